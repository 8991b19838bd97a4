"""The Typer app, shared options and the error boundary used by every command."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from toolkit.config import Settings, check_fail_level, load_settings
from toolkit.errors import InputFormatError, ToolkitError, UsageError
from toolkit.interrupts import Interrupted, exit_code, interrupted_message, received_signal
from toolkit.numbers import name_list, plural
from toolkit.options import (
    MAX_INPUT_BYTES,
    IngestOptions,
    check_format_name,
    check_input_options,
    check_store_path,
    check_time_format,
    check_timezone,
    parse_size,
)

# The libraries behind the commands (DuckDB, Polars, numpy, scipy: ~0.3 s) are imported
# inside the functions that use them, so that `warmup --help` and a command line error
# answer at once (issue 20.4; benchmarks/RESULTS.md "Start-up").
if TYPE_CHECKING:
    from rich.text import Text

    from toolkit.analyze.findings import Finding
    from toolkit.ingest import PathReport
    from toolkit.store import Store

#: The input formats ``--format`` takes, for its help without importing the readers
#: (tests/test_cli_startup.py checks it against ``toolkit.ingest.known_formats()``).
INPUT_FORMATS = (
    "clickbench",
    "clickhouse-query-log",
    "databricks-history",
    "databricks-profile",
    "duckdb-profile",
    "iterations",
    "jmeter-log",
    "jtl-csv",
    "jtl-xml",
    "profile-csv",
    "snowflake-history",
    "snowflake-operator-stats",
)

#: ``warmup --help`` lists the commands in the order of the workflow: read, look, analyse,
#: gate, report (a command missing here comes last, by name).
WORKFLOW_ORDER = (
    "ingest",
    "suites",
    "doctor",
    "gaps",
    "detect",
    "score",
    "load",
    "compare",
    "cache",
    "findings",
    "check",
    "report",
    "demo",
)


class WorkflowGroup(typer.core.TyperGroup):
    """The command group, listing its commands in :data:`WORKFLOW_ORDER`."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        order = {name: n for n, name in enumerate(WORKFLOW_ORDER)}
        return sorted(names, key=lambda name: (order.get(name, len(order)), name))


app = typer.Typer(
    name="warmup",
    cls=WorkflowGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help=(
        "Tells benchmark authors when their numbers are real: finds JIT and cache warm-up, "
        "steady state, and how far a short iteration window is from it."
    ),
    epilog="Example: warmup gaps results/*.json   (or: warmup demo -o demo.html)",
)

DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help=(
            "DuckDB store file to read (or set WARMUP_DB). With input files, they are stored "
            "in it first (created if missing); files already there are not read again. "
            "Default: an in-memory store of the input files."
        ),
        envvar="WARMUP_DB",
        dir_okay=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
PathsArgument = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Input files or folders (read into an in-memory store unless --db).",
        metavar="PATH",
        show_default=False,
        # an unreadable file is the ingest's one line (exit 1), not Click's usage error
        readable=False,
    ),
]

# Input options: how files are read (warmup ingest, and load/compare/report when they read
# files). Shared so that advice such as "pass --encoding" holds for each of them.
FormatOption = Annotated[
    str | None,
    typer.Option(
        "--format",
        help=(
            "Input format of every file, instead of detecting it per file: "
            f"{', '.join(INPUT_FORMATS)}."
        ),
        metavar="NAME",
    ),
]
EncodingOption = Annotated[
    str | None,
    typer.Option(
        "--encoding",
        help="Text encoding of the inputs, any Python codec (cp1252, latin-1, utf-16); "
        "default UTF-8.",
        metavar="CODEC",
    ),
]
DelimiterOption = Annotated[
    str | None,
    typer.Option(
        "--delimiter",
        help="CSV JTL delimiter, one character or tab (also '\\t'); default: read from the "
        "header. Implies a CSV JTL for a file in no recognised format.",
        metavar="CHAR",
    ),
]
ColumnsOption = Annotated[
    str | None,
    typer.Option(
        "--columns",
        help="Comma-separated JMeter column names of a header-less CSV JTL, in file order "
        "(e.g. timeStamp,elapsed,label,responseCode,success). Implies a CSV JTL.",
        metavar="NAME,...",
    ),
]
TimeFormatOption = Annotated[
    str | None,
    typer.Option(
        "--time-format",
        help="strptime-style format of a CSV JTL's formatted timeStamp, e.g. "
        "'%d.%m.%Y %H:%M:%S.%f' (%f reads milliseconds too; %z an offset). Not for epoch ms.",
        metavar="FORMAT",
    ),
]
TimezoneOption = Annotated[
    str | None,
    typer.Option(
        "--timezone",
        help="IANA time zone a formatted JTL timeStamp was written in (JMeter writes local "
        "time), e.g. Europe/Paris; default UTC.",
        metavar="ZONE",
    ),
]

MaxBytesOption = Annotated[
    str | None,
    typer.Option(
        "--max-bytes",
        help="Most bytes one input file may hold, decompressed, e.g. 20GB, 500MB; a larger "
        "file or gzip stream is refused unread (a gzip bomb past 1000:1 always is). "
        "Default: 20GB.",
        metavar="SIZE",
    ),
]

TimestampsOption = Annotated[
    str | None,
    typer.Option(
        "--timestamps",
        help="What a JTL's timeStamp is: start (JMeter's default) or end (a run with "
        "sampleresult.timestamp.start=false; start = timeStamp - elapsed). Default: start, "
        "but an XML JTL sorted by ts without JMeter 3 attributes (pre-2.2) is read as end.",
        metavar="start|end",
    ),
]


ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help=(
            "Settings file (warmup.toml, or a pyproject.toml with [tool.warmup]); default: "
            "the first one found walking up from the working directory. Options win."
        ),
        dir_okay=False,
        metavar="FILE",
    ),
]
FailOnOption = Annotated[
    str | None,
    typer.Option(
        "--fail-on",
        help=(
            "Exit 4 when a finding at or above this level is found: problem, warning or "
            "never (default: the config file's fail_on; without --fail-on or a config, "
            "analysing commands exit 0 and warmup check fails on problems)."
        ),
        metavar="LEVEL",
    ),
]

#: Exit code of a command that found something at or above its ``--fail-on`` level.
EXIT_FINDING = 4


@dataclasses.dataclass(frozen=True)
class InputSpec:
    """How to read input files: ``--format`` and the :class:`IngestOptions` of the input
    options (checked before any file is read)."""

    format: str | None = None
    options: IngestOptions = dataclasses.field(default_factory=IngestOptions)


def input_spec(
    *,
    format: str | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    columns: str | None = None,
    time_format: str | None = None,
    timezone: str | None = None,
    timestamps: str | None = None,
    suite: str | None = None,
    tags: Sequence[str] = (),
    replace: bool = False,
    max_bytes: str | None = None,
) -> InputSpec:
    """The :class:`InputSpec` of the input options; :class:`UsageError` (exit 1) for a
    ``--format``, ``--encoding``, ``--timezone``, ``--delimiter`` or ``--max-bytes`` that
    cannot be used, before the readers are imported (only ``--timezone`` loads DuckDB,
    whose time-zone database applies it)."""
    try:
        limit = MAX_INPUT_BYTES if max_bytes is None else parse_size(max_bytes)
    except ValueError:
        raise UsageError(
            f"--max-bytes {max_bytes!r}: give a size such as 20GB, 500MB or a number of bytes"
        ) from None

    options = IngestOptions(
        suite=suite,
        tags=tuple(tags),
        replace=replace,
        encoding=encoding,
        delimiter=delimiter,
        columns=tuple(c.strip() for c in columns.split(",")) if columns else None,
        time_format=time_format,
        timezone=timezone,
        timestamps=timestamps,
        max_bytes=limit,
    )
    check_format_name(format, INPUT_FORMATS)
    checked = check_input_options(options)
    if timezone is not None:
        check_timezone(timezone)
    if time_format is not None:
        check_time_format(time_format)
    return InputSpec(format, checked)


#: What a command that reads results says when given none.
NO_INPUT = "no input: give result files or folders, or --db STORE (see --help)"


def check_inputs(paths: Sequence[Path] | None, db: Path | None, fail_on: str | None = None) -> None:
    """Refuse before any library is imported or file read what the command would refuse
    later: a ``--fail-on`` level that does not exist (:func:`check_fail_on`), and what
    :func:`ingested_store` refuses: no input at all (exit 2); ``--db`` alone naming no
    store; without ``--db``, a path that does not exist (the whole command fails on it, as
    its ingest would, so nothing is read first). With ``--db`` and paths the files are
    ingested into the store, which keeps the ones that exist (the ingest says which do
    not), unless none does (:func:`refuse_missing_inputs`)."""
    check_fail_on(fail_on)
    if not paths:
        if db is None:
            fail(NO_INPUT, code=2)
        check_store_path(db, read_only=True)
    else:
        refuse_missing_inputs(paths, partial_ok=db is not None)


def refuse_missing_inputs(paths: Sequence[Path], *, partial_ok: bool) -> None:
    """Exit 1 with the ingest's line for each path that does not exist, when one does not
    (``partial_ok``: when none exists; the ingest then reads those that do and names the
    others). Before any store is opened: one that would be created stays uncreated."""
    missing = [p for p in paths if not p.exists()]
    if missing and (not partial_ok or len(missing) == len(paths)):
        for path in missing:
            print_error(str(InputFormatError(path, "no such file or folder")))
        raise typer.Exit(1)


def check_fail_on(fail_on: str | None) -> None:
    """A ``--fail-on`` level that does not exist, refused before the analysis."""
    if fail_on is not None:
        check_fail_level(fail_on)


def escape_controls(text: str) -> str:
    """``text`` with its control characters shown as escapes (``\\t``, ``\\n``,
    ``\\x1b``): untrusted text (a label, a file or system name, an error message) on a
    terminal, where a TAB moved a table's columns and an ESC could drive the terminal."""
    return _CONTROL.sub(lambda found: repr(found.group())[1:-1], text)


def plain(text: str) -> Text:
    """A table cell or line of untrusted text: a rich ``Text``, never read as markup, its
    control characters escaped (:func:`escape_controls`)."""
    from rich.text import Text

    return Text(escape_controls(text))


#: C0 control characters and DEL, shown escaped on the terminal
# C0, DEL and C1 (U+0080-U+009F: CSI U+009B drives many terminals as ESC [ does)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``Error: message`` on stderr (one line) and exit with ``code``."""
    print_error(message)
    raise typer.Exit(code)


def print_error(message: str) -> None:
    """``Error: message`` on stderr, on one line (its whitespace runs made one space, its
    control characters shown as escapes)."""
    typer.echo(f"Error: {escape_controls(' '.join(message.split()))}", err=True)


def settings_of(config: Path | None, **options: Any) -> Settings:
    """The settings of ``--config`` (or the file found upwards from the working directory)
    with the command-line ``options`` that were given (not None) on top."""
    return load_settings(config).overridden(**options)


def print_findings(
    findings: Sequence[Finding], *, title: str = "Findings", err: bool = False
) -> None:
    """The findings as lines on stdout (stderr when ``err``: after csv or tsv tables),
    after a table: ``problem: subject: message; advice.``, problems first (the order of
    :func:`~toolkit.pipeline.findings.finalized`)."""
    if not findings:
        return
    width = output_width()
    typer.echo(f"\n{title}:", err=err)
    for f in findings:
        for line in wrapped(escape_controls(f"{f.severity}: {f.sentence()}"), width):
            typer.echo(line, err=err)


def output_width() -> int | None:
    """Columns to wrap text at: ``COLUMNS`` when set, else the terminal's width when stdout
    is a terminal; None (no wrapping) for a file or pipe, so a line is never cut there."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def wrapped(text: str, width: int | None) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken after spaces (each line but
    the last keeps its trailing space, so the lines joined are ``text`` again); a word
    longer than ``width`` has a line of its own."""
    if width is None or len(text) <= width:
        return [text]
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        piece = word + " "
        if line and len(line) + len(word) + 1 > width:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line[:-1])
    return lines


def fail_level(fail_on: str | None, settings: Settings | None = None) -> str | None:
    """The level :func:`finish` checks the findings against: ``--fail-on``, else the
    ``fail_on`` the settings file sets; None when neither does (nothing is checked)."""
    config_level = settings.fail_on if settings and "fail_on" in settings.from_file else None
    return fail_on or config_level


def finish(
    findings: Sequence[Finding], fail_on: str | None, settings: Settings | None = None
) -> None:
    """Exit 4 (:data:`EXIT_FINDING`) when a finding reaches ``--fail-on`` (or, without it,
    the ``fail_on`` of the settings file when the file sets it); the reason goes to stderr.
    Otherwise return."""
    level = fail_level(fail_on, settings)
    if level is None:
        return
    from toolkit.pipeline.findings import failing

    hits = failing(findings, check_fail_level(level))
    if hits:
        worst = hits[0]
        info(
            f"--fail-on {level}: {plural(len(hits), 'finding')} at or above {level} "
            f"(first: {worst.severity} {worst.rule}, {worst.subject}); exit {EXIT_FINDING}"
        )
        raise typer.Exit(EXIT_FINDING)


def refuse_overwriting_inputs(output: Path, paths: Sequence[Path] | None, db: Path | None) -> None:
    """A :class:`UsageError` when ``output`` is the store, its WAL, or a file the inputs
    name or a folder walk would read: writing a report there would destroy it."""
    if not output.exists():
        return
    from toolkit.ingest import candidate_files

    protected: list[tuple[Path, str]] = []
    if db is not None:
        protected += [(db, "the store"), (db.with_name(db.name + ".wal"), "the store's WAL")]
    for path in paths or []:
        protected += [(f, "an input") for f in (candidate_files(path) if path.is_dir() else [path])]
    for item, what in protected:
        with contextlib.suppress(OSError):
            if item.exists() and output.samefile(item):
                raise UsageError(
                    f"{output}: is {what} of this command; refusing to overwrite it with the "
                    "report: choose another --output"
                )


def nothing_to_analyze(what: str, elsewhere: str = "") -> NoReturn:
    """Exit 1 with one line: the input holds no ``what``; ``elsewhere``
    (:meth:`Store.suites_elsewhere`) says what it does hold and which command reads it.
    The same code for every command, as ``warmup load`` and ``warmup score`` give."""
    fail(f"no {what} to analyze in the input{elsewhere}")


def info(message: str) -> None:
    """A message for the user on stderr (one line: control characters escaped)."""
    typer.echo(escape_controls(message), err=True)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn :class:`ToolkitError` into one line on stderr and exit 1, SIGINT / SIGTERM
    (``KeyboardInterrupt``, :class:`~toolkit.interrupts.Interrupted`) into one line and exit
    130 / 143; bugs stay tracebacks."""
    interrupted: int | None = None
    stored: str | None = None
    try:
        yield
    except ToolkitError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        # failing outside this handler drops the traceback, which holds the store's frames
        # (DuckDB's bindings then report the connection as leaked at exit)
        interrupted = signal.SIGINT
    except Interrupted as stop:
        interrupted = stop.signum
        stored = stop.stored
    except Exception:
        # the handler's Interrupted, replaced by DuckDB's "Query interrupted" on its way out
        interrupted = received_signal()
        if interrupted is None:
            raise
    except BrokenPipeError:
        # `warmup gaps --json | head` closes stdout early: not an error
        with contextlib.suppress(OSError):
            sys.stdout = Path(os.devnull).open("w")  # noqa: SIM115
        raise typer.Exit(0) from None
    if interrupted is not None:
        # an ingest rolls back the file it was reading; files finished before it stay
        message = interrupted_message(interrupted, **({"stored": stored} if stored else {}))
        fail(message, code=exit_code(interrupted))


def signal_of(exc: BaseException) -> int | None:
    """The signal ``exc`` stands for: SIGINT for ``KeyboardInterrupt``, an
    :class:`Interrupted`'s own, the handler's for DuckDB's "Query interrupted" in its place;
    None for any other exception."""
    if isinstance(exc, KeyboardInterrupt):
        return int(signal.SIGINT)
    if isinstance(exc, Interrupted):
        return exc.signum
    return received_signal() if isinstance(exc, Exception) else None


def stored_note(store: Store, paths: Sequence[str]) -> str:
    """What an interrupted command kept: ``paths``, the files it stored in ``store``, or
    that a store without ``--db`` keeps nothing (the one line's second half)."""
    if not store.kept:
        return "nothing was kept (no --db)"
    if not paths:
        return f"nothing was stored in {store.path}"
    names = name_list([Path(p).name for p in paths])
    return f"{plural(len(paths), 'file')} stored in {store.path} ({names}); nothing half-read"


def print_json(payload: Any) -> None:
    """Print ``payload`` as indented JSON on stdout (non-finite floats become null)."""
    typer.echo(json.dumps(_finite(payload), indent=2, ensure_ascii=False))


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


class _Progress:
    """Progress bars on stderr (rich, shipped with Typer): files done of a multi-file ingest,
    and how much of a large file (≥ ``PROGRESS_MIN_BYTES``) has been read."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._files: Any = None
        self._file: Any = None
        self._file_path: Path | None = None
        self._total = 0

    def _start(self) -> Any:
        if self._bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TextColumn("{task.fields[name]}"),
                console=Console(stderr=True),
                transient=False,
            )
            self._bar.start()
        return self._bar

    def __call__(self, done: int, total: int, path: Path) -> None:
        if total < 2:
            return
        bar = self._start()
        if self._files is None:
            self._files = bar.add_task("ingest", total=total, name="")
        self._total = total
        bar.update(
            self._files, completed=done, description=f"ingest {done}/{total}", name=path.name[-40:]
        )

    def file_progress(self, path: Path, fraction: float) -> None:
        """``IngestOptions.progress``: the share of ``path`` read so far (any thread)."""
        bar = self._start()
        if self._file is None or path != self._file_path:
            if self._file is not None:
                bar.remove_task(self._file)
            self._file = bar.add_task("read", total=1.0, name=path.name[-40:])
            self._file_path = path
        bar.update(self._file, completed=fraction)

    def close(self, *, finished: bool) -> None:
        """Stop drawing; ``finished``: every file was read (an interrupted or failed run
        keeps the count of files done)."""
        if self._bar is not None:
            # on_file is called before each file: the last file's completion is only known here
            if self._files is not None and finished:
                done = self._total
                self._bar.update(
                    self._files, completed=done, description=f"ingest {done}/{done}", name=""
                )
            self._bar.stop()


def report_ingest(report: PathReport, *, quiet_stored: bool = False) -> None:
    """Print one line per file (stderr) and one per error; does not exit. ``quiet_stored``:
    no line for a file stored, or found already stored (analysis commands)."""
    for result in report.results:
        if result.status in ("stored", "replaced"):
            if not quiet_stored:
                suites = ", ".join(result.suites)
                info(
                    f"{result.path}: {result.format}, {result.rows} rows -> {suites} ({result.status})"
                )
        elif result.status == "duplicate":
            if not quiet_stored:
                info(f"{result.path}: {result.message}")
        else:
            info(result.message)
        for warning in result.warnings:
            # the file's name unless the warning starts with it (one naming its line)
            where = "" if warning.startswith(str(result.path)) else f"{result.path}: "
            info(f"warning: {where}{warning}")
    for error in report.errors:
        print_error(str(error))


def run_ingest(
    store: Store,
    paths: Sequence[Path],
    *,
    format: str | None = None,
    options: IngestOptions | None = None,
    quiet_stored: bool = False,
) -> PathReport:
    """Ingest ``paths`` with a progress bar; print per-file lines; exit 1 if any failed."""
    from toolkit.ingest import ingest_paths
    from toolkit.store import interrupt_on_sigint

    progress = _Progress()
    options = dataclasses.replace(options or IngestOptions(), progress=progress.file_progress)
    mark = store.last_source_id()
    try:
        with interrupt_on_sigint(store.con):
            report = ingest_paths(store, paths, format=format, options=options, on_file=progress)
    except BaseException as exc:
        progress.close(finished=False)
        signum = signal_of(exc)
        if signum is None or (isinstance(exc, Interrupted) and exc.stored):
            raise
        # what the store holds now says what was kept: a file whose commit ended as the
        # signal came is stored though its ingest did not return
        raise Interrupted(signum, stored=_stored_since(store, mark)) from None
    progress.close(finished=True)
    report_ingest(report, quiet_stored=quiet_stored)
    if report.errors:
        raise typer.Exit(1)
    return report


def _stored_since(store: Store, mark: int) -> str | None:
    """:func:`stored_note` of the files stored since ``mark``; None when the store cannot
    say (its connection broken by the interrupt): the default line then."""
    from toolkit.native import duckdb

    try:
        return stored_note(store, store.source_paths_after(mark))
    except duckdb.Error:
        return None


#: Input files of this total size (decompressed: a 12.5 MB gzip can hold 12 GB) and more are read into a temporary store file instead of
#: memory: DuckDB's in-memory tables hold ~250 bytes per JTL row (2.5 GB of RAM for a 1.2 GB,
#: 10M-row JTL), a store file keeps the peak near 1 GB whatever the size, for ~50 % more CPU
#: time (benchmarks/RESULTS.md).
SCRATCH_FILE_BYTES = 512 << 20


@contextlib.contextmanager
def scratch_store(paths: Sequence[Path]) -> Iterator[Store]:
    """A store for reading ``paths`` without ``--db``: in memory, or a temporary store file
    (deleted afterwards) when the files among ``paths`` add up to ``SCRATCH_FILE_BYTES``."""
    from toolkit.ingest import candidate_files
    from toolkit.ingest.guarded import expanded_size
    from toolkit.store import open_store

    files = [f for p in paths for f in (candidate_files(p) if p.is_dir() else [p])]
    size = 0
    for file in files:
        # an unreadable file counts nothing here; its ingest says so in one line
        with contextlib.suppress(OSError):
            size += expanded_size(file, SCRATCH_FILE_BYTES) if file.is_file() else 0
    if size < SCRATCH_FILE_BYTES:
        with open_store() as store:
            yield store
        return
    from toolkit.store.scratch import scratch_folder

    # named after this process: the next command removes it if a SIGKILL leaves it
    with scratch_folder() as tmp, open_store(tmp / "scratch.duckdb") as store:
        yield store


@contextlib.contextmanager
def analysis_store(
    paths: Sequence[Path] | None,
    db: Path | None,
    spec: InputSpec | None = None,
    *,
    sample_columns: frozenset[str] | None = None,
    sources_shown: bool = False,
    group_window_ms: int | None = None,
    group_charts: bool = False,
) -> Iterator[Store]:
    """The store an analysis command reads: ``--db`` (read-only), or the given files
    ingested into a scratch store (:func:`scratch_store`), or into ``--db`` when both are
    given; ``spec``: how to read the files; ``sample_columns``: the JTL columns a scratch
    store keeps, ``sources_shown``: whether the output shows the files' SHA-256,
    ``group_window_ms`` and ``group_charts``: CSV JTLs read into sample groups
    (:func:`scratch_spec`)."""
    with ingested_store(
        paths,
        db,
        spec,
        sample_columns=sample_columns,
        sources_shown=sources_shown,
        group_window_ms=group_window_ms,
        group_charts=group_charts,
    ) as (store, _):
        yield store


def scratch_spec(
    spec: InputSpec,
    sample_columns: frozenset[str] | None,
    *,
    sources_shown: bool = False,
    group_window_ms: int | None = None,
    group_charts: bool = False,
) -> InputSpec:
    """``spec`` for reading files into a scratch store (no ``--db``) for one analysis: a
    CSV JTL's ``sample_columns`` only (``toolkit.ingest.jmeter.LOAD_COLUMNS`` for
    ``warmup load`` and ``compare``, ``REPORT_COLUMNS`` for ``report``; None: all). The
    others are neither parsed nor stored, which made the one-command job read the file
    at the cost of a full store (issue 20 item 3); the analysis reads the same values.
    Unless the output shows the files' SHA-256 (``sources_shown``: the report's
    provenance), a file is hashed only when another has its size
    (:attr:`IngestOptions.lazy_sha256`): the hash then only tells a file given twice.
    ``group_window_ms``: a CSV JTL read into ``warmup load``'s sample groups of windows
    that long, no row stored where the analysis needs none
    (:attr:`IngestOptions.group_window_ms`), with what the report's charts need too where
    ``group_charts`` (:attr:`IngestOptions.group_charts`)."""
    options = dataclasses.replace(
        spec.options,
        lazy_sha256=not sources_shown,
        group_window_ms=group_window_ms,
        group_charts=group_charts,
    )
    if sample_columns is not None:
        options = dataclasses.replace(options, sample_columns=sample_columns)
    return dataclasses.replace(spec, options=options)


@contextlib.contextmanager
def ingested_store(
    paths: Sequence[Path] | None,
    db: Path | None,
    spec: InputSpec | None = None,
    *,
    sample_columns: frozenset[str] | None = None,
    sources_shown: bool = False,
    group_window_ms: int | None = None,
    group_charts: bool = False,
) -> Iterator[tuple[Store, PathReport | None]]:
    """:func:`analysis_store` with the :class:`PathReport` of the files read (None when
    only ``--db`` was given): which suites the input files are. ``group_window_ms``:
    without ``--db``, read CSV JTLs into ``warmup load``'s sample groups of windows that
    long, storing no rows where the analysis needs none (:attr:`IngestOptions.group_window_ms`;
    ``group_charts``: the report's charts too)."""
    from toolkit.store import open_store

    spec = spec or InputSpec()
    if paths:
        if db is None:
            spec = scratch_spec(
                spec,
                sample_columns,
                sources_shown=sources_shown,
                group_window_ms=group_window_ms,
                group_charts=group_charts,
            )
        with open_store(db, on_wait=info) if db is not None else scratch_store(paths) as store:
            report = run_ingest(
                store, paths, format=spec.format, options=spec.options, quiet_stored=True
            )
            try:
                yield store, report
            except BaseException as exc:
                signum = signal_of(exc)
                if signum is None or (isinstance(exc, Interrupted) and exc.stored):
                    raise
                kept = [str(r.path) for r in report.results if r.status in ("stored", "replaced")]
                raise Interrupted(signum, stored=stored_note(store, kept)) from None
    elif db is not None:
        with open_store(db, read_only=True, on_wait=info) as store:
            yield store, None
    else:
        fail(NO_INPUT, code=2)


def with_errors(func: Callable[..., None]) -> Callable[..., None]:
    """Decorator form of :func:`user_errors` for command functions."""
    import functools

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        with user_errors():
            func(*args, **kwargs)

    return wrapper
