"""``warmup ARGS`` run in the test's own process through Typer's ``CliRunner``, with the
exit code a real process would give. Not a test module (see tests/store_checks.py).

For tests of what a command prints and exits with; a test of the process itself (signals,
start-up time, an address-space limit, a peak RSS, a kill) keeps a subprocess
(store_checks.run_warmup). In-process saves the ~1 s of interpreter start-up and imports
(DuckDB, Polars, numpy) that each ``python -m toolkit`` costs."""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from toolkit.cli import EXIT_BUG, app


@dataclass(frozen=True)
class CliRun:
    """What a ``warmup`` command gave: exit code, standard output and standard error."""

    returncode: int
    stdout: str
    stderr: str


def invoke_warmup(*args: str | Path, **env: str) -> CliRun:
    """Run ``warmup ARGS`` in this process (``env`` added to the environment, tables 200
    columns wide). An uncaught exception is what ``toolkit.cli.main`` makes of it, exit 3
    with the traceback on stderr, not CliRunner's exit 1, so that a bug cannot pass for
    the refusal of bad input."""
    runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1", **env})
    result = runner.invoke(app, [str(a) for a in args], prog_name="warmup")
    stderr = result.stderr
    code = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        assert result.exc_info is not None
        stderr += "".join(traceback.format_exception(*result.exc_info))
        code = EXIT_BUG
    return CliRun(code, result.stdout, stderr)
