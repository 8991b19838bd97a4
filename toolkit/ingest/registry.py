"""The table of input formats. Each ingester module registers itself here."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import ToolkitError
from toolkit.native import duckdb

# defined where the command line checks options without importing the readers
from toolkit.options import IngestOptions as IngestOptions
from toolkit.store import SourceWriter


class SkipFile(ToolkitError):
    """Raised by a loader for a file that holds no data by design (e.g. ClickBench
    ``{"error": ...}``): nothing is stored and the CLI says why in one line."""


class ReadAgain(Exception):
    """Raised by a loader that found, too late to fix in place, that the file must be read
    with other options (e.g. a CSV JTL whose last record turns out to be cut): the file's
    transaction is rolled back and the loader runs once more with ``options``. Not a
    :class:`ToolkitError`: it never reaches the user."""

    def __init__(self, options: IngestOptions) -> None:
        super().__init__("read the file again")
        self.options = options


#: Files from this size on report their reading progress (``IngestOptions.progress``).
PROGRESS_MIN_BYTES = 4 << 20


def run_with_progress(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    path: Path,
    progress: Callable[[Path, float], None] | None,
    *,
    interval_s: float = 0.2,
) -> duckdb.DuckDBPyConnection:
    """``con.execute(sql)``, reporting DuckDB's own progress of the statement (its
    ``query_progress()``, polled from a helper thread) as ``progress(path, fraction)``
    when ``path`` is at least :data:`PROGRESS_MIN_BYTES` long."""
    if progress is None or path.stat().st_size < PROGRESS_MIN_BYTES:
        return con.execute(sql)
    done = threading.Event()

    def poll() -> None:
        while not done.wait(interval_s):
            percent = con.query_progress()
            if percent >= 0:
                progress(path, min(percent, 100.0) / 100.0)

    thread = threading.Thread(target=poll, name="ingest-progress", daemon=True)
    thread.start()
    try:
        result = con.execute(sql)
    finally:
        done.set()
        thread.join()
    progress(path, 1.0)
    return result


Loader = Callable[[SourceWriter, Path, IngestOptions], None]
Sniffer = Callable[[Path, bytes], bool]


@dataclass(frozen=True)
class Ingester:
    """One input format: a name, a sniffer over the first bytes, and a loader."""

    name: str
    description: str
    sniff: Sniffer
    load: Loader
    #: lower runs first when several sniffers accept a file
    priority: int = 100
    #: the loader writes only through ``writer.suite()``, ``append()`` and ``warn()``, so
    #: many small files can be staged and committed together (toolkit.store.SourceGroup)
    staged: bool = False


FORMATS: dict[str, Ingester] = {}


def register(ingester: Ingester) -> Ingester:
    """Add ``ingester`` to :data:`FORMATS` (module import time)."""
    FORMATS[ingester.name] = ingester
    return ingester
