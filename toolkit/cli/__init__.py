"""The ``warmup`` command line: a Typer app whose commands are thin wrappers over the library.

Only this package prints. Results go to stdout; messages and progress bars to stderr.
Exit codes: 0 success; 1 a user error (one line: bad input, nothing to analyse, a store
that cannot be read); 2 a command line that cannot be parsed; 3 a bug (an uncaught
exception: the traceback, then one line asking to report it); 4 a finding at or above the
``--fail-on`` level (``warmup check``); 130 interrupted (Ctrl-C), 143 terminated.
"""

from __future__ import annotations

import os
import sys
import traceback

# Importing a command module registers its commands on ``app``.
from toolkit.cli import (
    cache,  # noqa: F401  (registration)
    detect,  # noqa: F401  (registration)
    findings,  # noqa: F401  (registration)
    gaps,  # noqa: F401  (registration)
    ingest,  # noqa: F401  (registration)
    load,  # noqa: F401  (registration)
    report,  # noqa: F401  (registration)
    score,  # noqa: F401  (registration)
)
from toolkit.cli.common import app
from toolkit.interrupts import (
    Interrupted,
    exit_code,
    ignore_signals,
    install_command_handlers,
    interrupted_message,
    is_command_line,
    received_signal,
)

#: Exit code of a bug: an exception no command turned into a one-line error.
EXIT_BUG = 3


def main() -> None:
    """Entry point of the ``warmup`` console script and ``python -m toolkit``: a bug (an
    uncaught exception) prints its traceback and exits 3, so a CI can tell it from bad
    input (1) and from a finding (4). SIGINT and SIGTERM exit 130 and 143 with one line
    (:mod:`toolkit.interrupts`)."""
    # in this process's own command line only, not in a program calling main()
    command_line = is_command_line()
    if command_line:
        install_command_handlers()
        # numpy's OpenBLAS threads spin after each threaded call: the analyses' matrices
        # (≤ ~1,000 × 1,000) gain no time from them and cost ~8 % more CPU on a 0.9M-sample
        # run (benchmarks/RESULTS.md). Set before numpy loads; a user's own value stays.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        app(prog_name="warmup")
    except Interrupted as stop:
        # a signal outside a command's own error boundary (while parsing, printing help)
        sys.stderr.write(f"Error: {interrupted_message(stop.signum)}\n")
        sys.exit(stop.exit_code)
    except Exception:
        signum = received_signal()
        if signum is not None:
            # DuckDB's "Query interrupted" in place of the handler's Interrupted
            sys.stderr.write(f"Error: {interrupted_message(signum)}\n")
            sys.exit(exit_code(signum))
        traceback.print_exc()
        sys.stderr.write(
            "warmup: internal error (exit 3), a bug in warmup-toolkit: please report it "
            "with the traceback above\n"
        )
        sys.exit(EXIT_BUG)
    finally:
        if command_line:
            # the command has ended one way or another; a signal now would only add a line
            ignore_signals()


__all__ = ["app", "main"]
