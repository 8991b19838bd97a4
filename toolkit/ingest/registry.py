"""The table of input formats. Each ingester module registers itself here."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.errors import ToolkitError
from toolkit.ingest.guarded import MAX_INPUT_BYTES
from toolkit.native import duckdb
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


@dataclass(frozen=True)
class IngestOptions:
    """Options that apply while ingesting (CLI flags of ``warmup ingest``)."""

    suite: str | None = None  #: suite name (several files with the same name join)
    tags: tuple[str, ...] = ()  #: extra suite tags, ``K=V`` entries go to attributes
    replace: bool = False  #: reload a file already stored
    encoding: str | None = None  #: text encoding of the input, default UTF-8
    delimiter: str | None = None  #: CSV delimiter (JTL)
    columns: tuple[str, ...] | None = None  #: column names of a header-less CSV JTL
    time_format: str | None = None  #: strftime format of JTL timeStamp
    timezone: str | None = None  #: zone of formatted JTL timestamps (JMeter writes local time)
    #: what a JTL's timeStamp is: ``start`` (JMeter 2.2+'s default) or ``end`` (a run with
    #: ``sampleresult.timestamp.start=false``, or JMeter before 2.2); None: start, but an
    #: XML file sorted by ``ts`` without JMeter 3 attributes is read as end times
    timestamps: str | None = None
    extra: dict[str, str] = field(default_factory=dict)  #: format-specific options
    #: the built-in JMeter CSV columns to store (:data:`toolkit.ingest.jmeter.LOAD_COLUMNS`,
    #: ``REPORT_COLUMNS``): a scratch store for one analysis leaves the others NULL, unread
    #: (a value there is not checked either); None: every column, as ``warmup ingest``
    sample_columns: frozenset[str] | None = None
    #: hash a file only when a stored file has its size in bytes (:meth:`Store.lazy_sha256`):
    #: for a scratch store whose sources no output shows, where the SHA-256 only tells a
    #: file given twice; False: every file's SHA-256 up front (a kept store always does)
    lazy_sha256: bool = False
    #: most bytes one input may hold, decompressed (``--max-bytes``; a larger file or
    #: gzip stream is refused unread, :func:`toolkit.ingest.guarded.check_expansion`)
    max_bytes: int = MAX_INPUT_BYTES
    #: ``progress(path, fraction)`` with fraction 0–1, called from time to time while a file
    #: of at least :data:`PROGRESS_MIN_BYTES` is read (the CLI's progress bar); may be called
    #: from another thread
    progress: Callable[[Path, float], None] | None = field(default=None, compare=False)


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
