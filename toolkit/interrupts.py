"""SIGINT and SIGTERM for the ``warmup`` command line: one line and exit 130 / 143, at
any moment from start-up on, never a traceback.

Standard library only: :func:`install_startup_handlers` runs at the top of
``toolkit/__init__.py``, before Polars, DuckDB and PyArrow are imported (about a second of
start-up in which a Ctrl-C used to print a ``KeyboardInterrupt`` traceback from inside an
import and exit -2, and SIGTERM killed the process with no word). Nothing is open then, so
the start-up handler prints its line and ends the process at once. From
:func:`install_command_handlers` (``toolkit.cli.main``) on, a signal raises
:class:`Interrupted` instead, so that an ingest's transaction rolls back and the store is
closed before the command exits with the signal's code.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

__all__ = [
    "Interrupted",
    "exit_code",
    "install_command_handlers",
    "install_startup_handlers",
    "interrupted_message",
    "is_command_line",
    "received_signal",
    "signals_held",
]

#: the signals the command line turns into an exit code
SIGNALS = (signal.SIGINT, signal.SIGTERM)


def exit_code(signum: int) -> int:
    """The shell's code of a process ended by ``signum``: 128 + its number (130 for
    SIGINT, 143 for SIGTERM)."""
    return 128 + int(signum)


def interrupted_message(signum: int, *, stored: str = "nothing half-read was stored") -> str:
    """What the one line says after ``signum``: ``interrupted (Ctrl-C); …`` or
    ``terminated (SIGTERM); …``."""
    what = "interrupted (Ctrl-C)" if signum == signal.SIGINT else "terminated (SIGTERM)"
    return f"{what}; {stored}"


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived while a command ran (see :func:`install_command_handlers`).

    A ``BaseException``, not a ``KeyboardInterrupt``: Click turns a ``KeyboardInterrupt``
    raised while it parses the command line into "Aborted!" and exit 1.
    """

    def __init__(self, signum: int, *, stored: str | None = None) -> None:
        super().__init__(signum)
        self.signum = int(signum)
        #: what the command had stored when the signal came (the one line's second half),
        #: None for the default of :func:`interrupted_message`
        self.stored = stored

    @property
    def exit_code(self) -> int:
        """130 for SIGINT, 143 for SIGTERM."""
        return exit_code(self.signum)


def is_command_line() -> bool:
    """Whether this process is the ``warmup`` command (the console script, or ``python -m
    toolkit``) rather than a program importing the library, whose signals are its own.
    Read from the interpreter's own arguments (``sys.orig_argv``), which a test calling
    ``toolkit.cli.main()`` in its own process with a patched ``sys.argv`` does not change."""
    argv = list(getattr(sys, "orig_argv", sys.argv))
    if any(Path(arg).stem == "warmup" for arg in argv[:2]):
        return True
    return "-m" in argv[:-1] and argv[argv.index("-m") + 1] == "toolkit"


def _wanted(signum: int) -> bool:
    # a SIGINT ignored by the parent (a background job of a non-interactive shell) stays so
    return signal.getsignal(signum) is not signal.SIG_IGN


def _exit_at_start(signum: int, frame: FrameType | None) -> None:
    # nothing is open yet: no store, no output; end now, from wherever the import was
    line = f"Error: {interrupted_message(signum, stored='nothing was read or stored')}\n"
    try:
        os.write(2, line.encode())
    finally:
        os._exit(exit_code(signum))


def install_startup_handlers() -> None:
    """When this process is the command line, SIGINT and SIGTERM from now until
    :func:`install_command_handlers` print one line and exit 130 / 143."""
    if not is_command_line():
        return
    for signum in SIGNALS:
        if _wanted(signum):
            signal.signal(signum, _exit_at_start)


class _Raise:
    """The command's handler: the first signal raises :class:`Interrupted`; later ones are
    ignored while the first unwinds (a second Ctrl-C must not break the rollback). Inside
    :func:`signals_held` the first signal waits for the block's end."""

    def __init__(self) -> None:
        self.signum: int | None = None
        #: the depth of :func:`signals_held` blocks, and a signal that came inside one
        self.held = 0
        self.pending: int | None = None

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None:
            return
        if self.held:
            self.pending = self.pending or int(signum)
            return
        self.signum = int(signum)
        raise Interrupted(signum)


_HANDLER = _Raise()


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """A signal that comes inside the block raises :class:`Interrupted` as the block ends,
    not where it came. For the import of DuckDB: its native module (nanobind) cannot take
    a Python exception while it sets itself up, and a Ctrl-C raised in there printed
    "Critical nanobind error" and a traceback. (Masking the signal would not do: another
    thread may take it, and Python runs the handler in the main thread all the same.)"""
    _HANDLER.held += 1
    try:
        yield
    finally:
        _HANDLER.held -= 1
        if not _HANDLER.held and _HANDLER.pending is not None and _HANDLER.signum is None:
            signum, _HANDLER.pending = _HANDLER.pending, None
            _HANDLER.signum = signum
            raise Interrupted(signum)


def _redeliver_unraised(unraisable: Any) -> None:
    """``sys.unraisablehook`` of the command: an :class:`Interrupted` raised where Python
    cannot pass an exception on (a weakref callback, such as the import system's clean-up
    of a module lock, or a ``__del__``) is not lost. Python printed "Exception ignored in"
    with a traceback and the command ran on to its end (a SIGTERM 0.2 s into an ingest, in
    CI). The same signal is sent again from a new thread once this hook has returned (sent
    from here, the handler would run inside the hook, where an exception is lost too), and
    the handler raises at the next point that can take it. Any other unraisable exception
    goes to the hook that was there before."""
    exc = unraisable.exc_value
    if isinstance(exc, Interrupted) and _HANDLER.signum == exc.signum:
        _HANDLER.signum = None
        _thread.start_new_thread(_signal_again, (exc.signum,))
        return
    _PREVIOUS_UNRAISABLE_HOOK[0](unraisable)


def _signal_again(signum: int) -> None:
    # the main thread holds the GIL until it leaves the hook; a millisecond more is margin
    time.sleep(0.001)
    os.kill(os.getpid(), signum)


_PREVIOUS_UNRAISABLE_HOOK: list[Callable[[Any], object]] = [sys.unraisablehook]


def install_command_handlers() -> None:
    """SIGINT and SIGTERM raise :class:`Interrupted` (the first one only), for the command
    that is about to run; one raised where no exception can pass is raised again
    (:func:`_redeliver_unraised`)."""
    if sys.unraisablehook is not _redeliver_unraised:
        _PREVIOUS_UNRAISABLE_HOOK[0] = sys.unraisablehook
        sys.unraisablehook = _redeliver_unraised
    for signum in SIGNALS:
        if _wanted(signum):
            signal.signal(signum, _HANDLER)


def received_signal() -> int | None:
    """The signal the command's handler raised :class:`Interrupted` for, if any. DuckDB
    checks for signals while a statement runs and, when the handler raises, stops the
    statement and raises ``RuntimeError: Query interrupted`` in its place: the error
    boundary asks this to tell that from a bug."""
    return _HANDLER.signum


def ignore_signals() -> None:
    """After the command: a late signal no longer changes how it ended. ``SIG_IGN``, not
    a Python handler: Python resets its handlers to the default while it shuts down, and a
    SIGINT then killed a finished command (exit -2, its output complete)."""
    for signum in SIGNALS:
        if _wanted(signum):
            signal.signal(signum, signal.SIG_IGN)
