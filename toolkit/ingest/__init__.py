"""Ingesters: read benchmark output files into the store, every file whole or not at all.

``ingest_path(store, path)`` detects the format (``detect.py``), writes the file through
the format's loader inside :meth:`toolkit.store.Store.new_source` and returns one
:class:`IngestResult` per file. Directories are walked; a bad file among good ones is
reported and the good ones are stored.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from toolkit.errors import (
    DuplicateSourceError,
    InputFormatError,
    StoreError,
    ToolkitError,
    UnreadableFileError,
    UnrecognisedFormatError,
)
from toolkit.ingest.guarded import check_expansion
from toolkit.ingest.registry import FORMATS, Ingester, IngestOptions, ReadAgain, SkipFile
from toolkit.ingest.runs import join_run_logs
from toolkit.options import (
    RESULT_SUFFIXES,
    check_format_name,
    check_input_options,
    check_time_format,
    check_timezone,
)
from toolkit.store import SourceGroup, SourceWriter, Store, file_sha256

__all__ = [
    "FORMATS",
    "IngestOptions",
    "IngestResult",
    "Ingester",
    "PathReport",
    "SkipFile",
    "check_format",
    "check_options",
    "detect_format",
    "ingest_file",
    "ingest_path",
    "known_formats",
]

Status = Literal["stored", "replaced", "duplicate", "skipped", "failed"]


@dataclass(frozen=True)
class IngestResult:
    """What happened to one input file."""

    path: Path
    format: str
    status: Status
    rows: int = 0
    suites: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    message: str = ""
    #: written with other small files in one commit (:class:`toolkit.store.SourceGroup`)
    staged: bool = False


def detect_format(path: Path) -> str:
    """Return the name of the format of ``path`` (a key of ``FORMATS``).

    Raises :class:`InputFormatError` when no ingester recognises the file.
    """
    from toolkit.ingest.detect import detect

    return detect(path)


def known_formats() -> dict[str, Ingester]:
    """Every input format by name (:data:`FORMATS`; every ingester registers when this
    package is imported)."""
    return FORMATS


def check_format(format: str | None) -> None:
    """Raise :class:`UsageError` naming the known formats when ``format`` is not one."""
    check_format_name(format, known_formats())


#: the CSV JTL's options: given for a file no sniffer recognises, they name its format
_CSV_JTL_OPTIONS = ("columns", "delimiter", "time_format")
#: what a folder walk reads as a CSV JTL under those options when no sniffer recognises it
_CSV_JTL_SUFFIXES = (".jtl", ".csv", ".tsv", ".txt")


def check_options(options: IngestOptions) -> IngestOptions:
    """``options`` checked before any file is read, with ``delimiter`` normalised
    (``tab`` or ``\\t`` → a TAB character).

    Raises :class:`UsageError` for an unknown ``encoding`` (a Python codec name) or
    ``timezone`` (an IANA name, checked by the DuckDB time-zone database that applies it),
    a ``delimiter`` that is not one character, or ``timestamps`` other than start/end
    (:func:`toolkit.options.check_input_options`, :func:`toolkit.options.check_timezone`,
    :func:`toolkit.options.check_time_format`).
    """
    checked = check_input_options(options)
    if options.timezone is not None:
        check_timezone(options.timezone)
    if options.time_format is not None:
        check_time_format(options.time_format)
    return checked


def _loader_for(path: Path, format: str | None, options: IngestOptions, *, named: bool) -> Ingester:
    """The ingester of ``path``: ``format``, else the detected one; a file no sniffer
    recognises is read as a CSV JTL when CSV JTL options were given (``--columns`` etc.),
    if it is ``named`` on its own or has a CSV JTL's name in a folder walk."""
    from toolkit.ingest.detect import html_page, read_head

    if format is not None:
        check_format(format)
        if html_page(read_head(path)):
            raise html_error(path)
        return FORMATS[format]
    try:
        return FORMATS[detect_format(path)]
    except UnrecognisedFormatError as exc:
        given = [name for name in _CSV_JTL_OPTIONS if getattr(options, name) is not None]
        suffix = path.suffix.lower() if path.suffix.lower() != ".gz" else Path(path.stem).suffix
        if exc.skip_note == "file is empty" or not given:
            raise
        if named or suffix.lower() in _CSV_JTL_SUFFIXES:
            return FORMATS["jtl-csv"]
        raise


def html_error(path: Path) -> UnrecognisedFormatError:
    """The error for an HTML page given as a result file (no format reads one)."""
    return UnrecognisedFormatError(
        path,
        "an HTML page (a JMeter dashboard's index.html?), not a JTL; give the results file "
        "JMeter wrote with -l (e.g. results.jtl)",
        skip_note="an HTML page, not a result file",
    )


def ingest_file(
    store: Store,
    path: Path | str,
    *,
    format: str | None = None,
    options: IngestOptions | None = None,
    _fail_before_commit: Callable[[], None] | None = None,
) -> IngestResult:
    """Ingest one file in one transaction; return what happened.

    A file already stored (same SHA-256) is a no-op unless ``options.replace``.
    Raises :class:`ToolkitError` (the store unchanged) when the file is bad.
    """
    checked = check_options(options or IngestOptions())
    with _reading(Path(path)):
        result = _ingest(store, Path(path), format, checked, _fail_before_commit)
    if result.status == "skipped":
        record_skipped(store, result)
    return result


#: how often the reads of one file may end in :class:`ReadAgain` (the next may not)
_READS_AGAIN = 4


def _ingest(
    store: Store,
    path: Path,
    format: str | None,
    options: IngestOptions,
    fail_before_commit: Callable[[], None] | None = None,
    group: _Staging | None = None,
    *,
    named: bool = True,
) -> IngestResult:
    """One file, written directly in its own transaction, or staged in ``group`` when its
    ingester allows it (:attr:`Ingester.staged`, not ``--replace``); ``options`` already
    checked (:func:`check_options`); ``named``: given on its own, not found in a folder."""
    if not path.exists():
        raise InputFormatError(path, "no such file")
    if path.is_dir():
        raise InputFormatError(path, "is a directory; use ingest_path() for folders")
    if not path.is_file():
        # opening a FIFO blocks until a writer comes, reading a device never ends
        raise InputFormatError(
            path, "is not a regular file (a FIFO, socket or device); save the results to a file"
        )
    check_expansion(path, options.max_bytes)
    ingester = _loader_for(path, format, options, named=named)
    staged = group is not None and ingester.staged and not options.replace
    if group is not None and not staged:
        group.commit()  # a direct write must see (and not clash with) every staged file
    # a staged file's group caches the stored hashes: it always records the file's own
    lazy = options.lazy_sha256 and not staged
    sha = store.lazy_sha256(path) if lazy else file_sha256(path)
    try:
        source = (
            group.sources.new_source(path, format=ingester.name, sha256=sha)
            if group is not None and staged
            else store.new_source(path, format=ingester.name, sha256=sha, replace=options.replace)
        )
        # rolled back and read once more with what a read found (not staged: a staged
        # loader never asks), as often as each read asks with new options (a JTL XML
        # read in columns, then in two parts, then in one part)
        read = options
        for again_asked in range(_READS_AGAIN + 1):
            try:
                writer = _load_source(source, ingester, path, read, fail_before_commit)
                break
            except ReadAgain as again:
                if again_asked == _READS_AGAIN:
                    raise
                read = again.options
                source = store.new_source(
                    path, format=ingester.name, sha256=sha, replace=options.replace
                )
    except DuplicateSourceError as duplicate:
        return IngestResult(
            path,
            ingester.name,
            "duplicate",
            suites=_source_suites(store, duplicate.source_id),
            message=f"already stored (source {duplicate.source_id}); pass --replace to reload it",
        )
    except SkipFile as skip:
        return IngestResult(path, ingester.name, "skipped", message=str(skip))
    except InputFormatError as exc:
        if format is not None:
            _name_detected_format(exc, path, format)
        raise
    finally:
        if group is not None and not staged:
            group.sources.forget()
    return IngestResult(
        path,
        ingester.name,
        "replaced" if writer.replaced is not None else "stored",
        rows=writer.rows,
        suites=tuple(dict.fromkeys(writer.suite_names)),
        warnings=tuple(writer.warnings),
        staged=staged,
    )


#: errno values of a failed read that the user can fix (permissions) or must know of (a
#: failing disk): one line, not a traceback; any other OSError stays a bug
_UNREADABLE_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EIO})


@contextlib.contextmanager
def _reading(path: Path) -> Iterator[None]:
    """Turn a failed read of ``path`` (no permission, an I/O error) into one
    :class:`UnreadableFileError`; its transaction has rolled back already."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in _UNREADABLE_ERRNOS:
            raise
        raise UnreadableFileError(path, exc) from None


def _source_suites(store: Store, source_id: int) -> tuple[str, ...]:
    """The names of the suites a stored source feeds, in the order they were made (none
    while the source is only staged)."""
    rows = store.con.execute(
        "SELECT s.name FROM suite_sources ss JOIN suites s USING (suite_id) "
        "WHERE ss.source_id = ? ORDER BY s.suite_id",
        [source_id],
    ).fetchall()
    return tuple(str(row[0]) for row in rows)


def _load_source(
    source: AbstractContextManager[SourceWriter],
    ingester: Ingester,
    path: Path,
    options: IngestOptions,
    fail_before_commit: Callable[[], None] | None,
) -> SourceWriter:
    """Run ``ingester`` on ``path`` inside ``source``'s transaction; its writer."""
    with source as writer:
        writer.fail_before_commit = fail_before_commit
        ingester.load(writer, path, options)
    return writer


def _name_detected_format(exc: InputFormatError, path: Path, forced: str) -> None:
    """Append to the error of a forced ``--format`` the format the file looks like, when
    detection finds another one: the likely mistake is the flag, not the file."""
    try:
        detected = detect_format(path)
    except ToolkitError:
        return
    if detected != forced:
        exc.args = (
            f"{exc}; the file looks like {detected}: pass --format {detected} "
            "or leave --format out",
        )


def candidate_files(root: Path) -> list[Path]:
    """Files under ``root`` that some ingester may read, sorted for a stable order."""
    from toolkit.ingest.detect import looks_ingestible

    return sorted(p for p in root.rglob("*") if p.is_file() and looks_ingestible(p))


@dataclass
class PathReport:
    """Results of ingesting a path (file or folder), errors included."""

    results: list[IngestResult] = field(default_factory=list)
    errors: list[ToolkitError] = field(default_factory=list)


def record_skipped(store: Store, result: IngestResult) -> None:
    """Keep a skipped file in ``skipped_files`` (the reason without the ``path: skipped:``
    prefix), so the store's findings list it (:mod:`toolkit.analyze.ingest_findings`)."""
    reason = result.message
    prefix = f"{result.path}: skipped: "
    reason = reason[len(prefix) :] if reason.startswith(prefix) else reason
    store.con.execute(
        "INSERT OR REPLACE INTO skipped_files VALUES (?, ?, ?)",
        [str(result.path.resolve()), result.format, reason],
    )


class _Staging:
    """The files of one ``ingest_path``/``ingest_paths`` call: small files staged in a
    :class:`SourceGroup` and committed together, results held back until their commit."""

    def __init__(self, store: Store) -> None:
        self.sources = SourceGroup(store)
        self.report = PathReport()
        self._held: list[IngestResult] = []

    def add(self, result: IngestResult) -> None:
        if result.status == "skipped":
            record_skipped(self.sources.store, result)
        # results keep input order: a direct file's waits behind the staged ones before it
        if self._held or result.staged:
            self._held.append(result)
        else:
            self.report.results.append(result)
        if self.sources.due():
            self.commit()

    def commit(self) -> None:
        """Commit the staged files; if the store refuses them, one error says so and their
        results are dropped (none of them was stored)."""
        try:
            self.sources.commit()
        except StoreError as exc:
            self.report.errors.append(exc)
            self.report.results.extend(r for r in self._held if not r.staged)
        else:
            self.report.results.extend(self._held)
        self._held.clear()

    def path(
        self,
        path: Path,
        format: str | None,
        options: IngestOptions,
        on_file: Callable[[int, int, Path], None] | None,
    ) -> None:
        if not path.exists():
            self.report.errors.append(InputFormatError(path, "no such file or folder"))
            return
        if path.is_dir():
            files = candidate_files(path)
            if not files:
                self.report.errors.append(
                    InputFormatError(
                        path,
                        f"folder holds no result files (none named *{', *'.join(RESULT_SUFFIXES)}); "
                        "give the folder that holds the results, or the files",
                    )
                )
                return
        else:
            files = [path]
        unrecognised = 0
        for index, file in enumerate(files):
            if on_file is not None:
                on_file(index, len(files), file)
            try:
                with _reading(file):
                    result = _ingest(
                        self.sources.store, file, format, options, group=self, named=file is path
                    )
                self.add(result)
            except UnreadableFileError as exc:
                if file is path:
                    self.report.errors.append(exc)
                    continue
                # one file a walk may not read must not stop it: skipped, with a warning
                self.add(
                    IngestResult(file, "", "skipped", message=f"{file}: skipped: {exc.reason}")
                )
            except UnrecognisedFormatError as exc:
                if file is path:
                    self.report.errors.append(exc)
                    continue
                # a folder holds other files too (notes, configs, expected outputs): one
                # line says which were left out and how to read one anyway
                unrecognised += 1
                self.add(
                    IngestResult(
                        file,
                        "",
                        "skipped",
                        message=f"{file}: skipped: {exc.skip_note}",
                    )
                )
            except ToolkitError as exc:
                self.report.errors.append(exc)
        if path.is_dir() and unrecognised == len(files):
            self.report.errors.append(
                InputFormatError(
                    path,
                    f"no file in this folder is in a known format ({len(files)} tried); "
                    "give the folder that holds the results, or name a file with "
                    "`warmup ingest --format NAME`",
                )
            )


def ingest_path(
    store: Store,
    path: Path | str,
    *,
    format: str | None = None,
    options: IngestOptions | None = None,
    on_file: Callable[[int, int, Path], None] | None = None,
) -> PathReport:
    """Ingest a file or every ingestible file under a folder.

    Every file is stored whole or not at all: a bad file is recorded in ``errors`` and the
    others are still stored. Large files get a transaction each; small ClickBench files
    are committed in groups (:class:`toolkit.store.SourceGroup`: up to 500 files or 1 s
    of work), so a kill loses at most the group being written. ``on_file(done, total,
    path)`` is called before each file (for a progress bar).
    """
    return ingest_paths(store, [path], format=format, options=options, on_file=on_file)


def ingest_paths(
    store: Store,
    paths: Sequence[Path | str],
    *,
    format: str | None = None,
    options: IngestOptions | None = None,
    on_file: Callable[[int, int, Path], None] | None = None,
) -> PathReport:
    """:func:`ingest_path` over several paths, results in input order. Raises
    :class:`UsageError` before reading anything when ``format`` or ``options`` cannot be
    used (:func:`check_format`, :func:`check_options`)."""
    check_format(format)
    checked = check_options(options or IngestOptions())
    staging = _Staging(store)
    for path in paths:
        staging.path(Path(path), format, checked, on_file)
    staging.commit()
    # a JTL and the logs of the same run are one suite, whatever order they came in
    joined = join_run_logs(store)
    if joined:
        staging.report.results[:] = [
            replace(r, suites=tuple(dict.fromkeys(joined.get(s, s) for s in r.suites)))
            for r in staging.report.results
        ]
    return staging.report


# Every ingester registers itself in FORMATS when imported: import them all here, so that
# FORMATS (and ``--format NAME``) is complete for whoever imports this package (a fresh
# process knew only "iterations" until something ran format detection).
import toolkit.ingest.detect  # noqa: E402, F401
