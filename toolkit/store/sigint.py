"""Ctrl-C that stops a running DuckDB statement.

DuckDB does not look at Python's signal flag while a statement runs: Ctrl-C during a long
ingest used to wait for the statement to end, and the file was then committed as if nothing
had happened (seen with a 10M-row JTL and a 3.6M-sample XML). Python's C-level signal
handler, though, writes each signal's number to the "wakeup fd" (``signal.set_wakeup_fd``)
at once, whatever thread runs; a watcher thread reading it calls DuckDB's
``interrupt()``. The statement then fails, the main thread raises ``KeyboardInterrupt`` (the
default SIGINT handler runs as soon as it is back in Python), and the ingest's transaction
rolls back: the store is as before the file.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

from toolkit.interrupts import Interrupted
from toolkit.native import duckdb

__all__ = ["interrupt_on_sigint"]

#: how often the watcher checks whether it should stop (s)
_POLL_S = 0.1


@contextlib.contextmanager
def interrupt_on_sigint(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Within the block, SIGINT (Ctrl-C) also interrupts the statement ``con`` is running,
    and the block ends in ``KeyboardInterrupt``; so does SIGTERM when the process handles
    it in Python (the ``warmup`` command line does), the block then ending in
    :class:`~toolkit.interrupts.Interrupted` (exit 143).

    While a statement runs, a watcher thread interrupts it; the statement's
    ``InterruptException`` then unwinds the ingest's ``finally`` and ``with`` clean-ups
    (progress threads joined, transaction rolled back) undisturbed — Python's own handler
    would raise ``KeyboardInterrupt`` in the middle of them — and leaves the block as
    ``KeyboardInterrupt``. A Ctrl-C while no statement runs raises ``KeyboardInterrupt`` at
    once, as usual. A no-op outside the main thread (Python delivers signals there only,
    and only it may set the wakeup fd) and when SIGINT is ignored.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(
        signal.SIGINT
    ) in (signal.SIG_IGN, None):
        yield
        return
    # SIGTERM only when a Python handler runs for it: otherwise it ends the process itself
    watched = [signal.SIGINT] + [
        signal.SIGTERM for handler in [signal.getsignal(signal.SIGTERM)] if callable(handler)
    ]
    received: list[int] = []  # the first signal decides how the block ends
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            ready, _, _ = select.select([read_fd], [], [], _POLL_S)
            if not ready:
                continue
            arrived = os.read(read_fd, 64)  # one read: a second would block
            if any(signum in arrived for signum in watched):
                # does nothing when no statement runs; the connection may be closing
                with contextlib.suppress(duckdb.Error):
                    con.interrupt()

    def raised(signum: int) -> BaseException:
        return KeyboardInterrupt() if signum == signal.SIGINT else Interrupted(signum)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        first = not received
        received.append(signum)
        if first and not isinstance(sys.exc_info()[1], duckdb.InterruptException):
            raise raised(signum)
        # else: the statement it stopped is unwinding; the block's end reports it

    previous = {signum: signal.signal(signum, on_signal) for signum in watched}
    previous_fd = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    watcher = threading.Thread(target=watch, name="warmup-sigint", daemon=True)
    watcher.start()
    try:
        yield
    except BaseException:
        if received:
            # whatever the interrupted statement's failure became on its way out
            raise raised(received[0]) from None
        raise
    finally:
        stop.set()
        # wake the watcher from its select at once: joining it otherwise waited for its
        # poll to time out, 50 ms on average added to every command
        with contextlib.suppress(OSError):
            os.write(write_fd, b"\0")
        watcher.join()
        signal.set_wakeup_fd(previous_fd)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        os.close(read_fd)
        os.close(write_fd)
    if received:
        raise raised(received[0])
