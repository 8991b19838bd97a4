"""What the options of the commands take, parsed and checked with the standard library
alone: durations, APDEX thresholds, steady-window bounds, sizes, input options and names.

The command line checks every option value with these before it imports DuckDB, Polars,
numpy, scipy or Plotly and before it reads an input (issue 20 item 4), so a mistake is
one line at once (~0.2 s), not after the libraries' start-up or a whole file's ingest.
The library's entry points (:func:`toolkit.ingest.ingest_paths`,
:func:`toolkit.report.render.report_params`, ...) check the same values with the same
functions. Each raises :class:`~toolkit.errors.UsageError` (exit 1) naming the option,
or :class:`~toolkit.errors.StoreError` for a store file that cannot be there.
"""

from __future__ import annotations

import codecs
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolkit.analyze.apdex import ApdexThresholds
from toolkit.errors import StoreError, UsageError

__all__ = [
    "DEFAULT_APDEX",
    "EQUIVALENCE_MODES",
    "GAP_REFERENCES",
    "MAX_INPUT_BYTES",
    "MAX_WINDOW_S",
    "PENALTY_NAMES",
    "RESULT_SUFFIXES",
    "TIMESTAMP_KINDS",
    "IngestOptions",
    "apdex_thresholds",
    "check_format_name",
    "check_fraction",
    "check_grid",
    "check_hot_window",
    "check_input_options",
    "check_steady_bounds",
    "check_store_path",
    "check_target",
    "check_time_format",
    "check_timezone",
    "check_tolerance",
    "check_window_s",
    "delimiter_char",
    "detect_options",
    "parse_apdex",
    "parse_apdex_per_label",
    "parse_size",
    "parse_steady_bound",
    "parse_window",
]

#: Most bytes one input may hold, decompressed (README: input limits).
MAX_INPUT_BYTES = 20 * 10**9
#: APDEX thresholds of JMeter's dashboard (``apdex_satisfied/tolerated_threshold``), ms.
DEFAULT_APDEX = ApdexThresholds()
#: the values of ``IngestOptions.timestamps`` (``--timestamps``)
TIMESTAMP_KINDS = ("start", "end")
#: file name endings a folder walk tries (hidden files are skipped); a ``warmup compare``
#: argument ending so names a file, not a suite
RESULT_SUFFIXES = (
    ".json",
    ".jsonl",
    ".jtl",
    ".csv",
    ".tsv",
    ".xml",
    ".log",
    ".txt",
    ".gz",
    ".parquet",
    ".ndjson",
)
#: ``warmup gaps --reference``: the min of every hot run, or the detected steady state
GAP_REFERENCES = ("min-all", "steady")
#: ``--equivalence`` modes (research §8.4).
EQUIVALENCE_MODES = ("tolerance", "warmup_stats", "ratio_ci")
#: ``--penalty`` names: PELT penalties (research §8.2) and CROPS + elbow (§8.3).
PENALTY_NAMES = ("barrett", "sic", "bic", "mbic", "crops")


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
    #: ``warmup load FILE``'s windows in ms: a CSV JTL is read into the load analysis's
    #: sample groups (:func:`toolkit.pipeline.load.sample_groups_sql`) with no row stored,
    #: where the analysis needs no row (:func:`toolkit.ingest.jmeter._read_grouped`):
    #: such a suite is for ``load_report``/``compare_report`` with windows that long only
    #: (the report's charts need :attr:`group_charts`); None: rows stored, as every
    #: other command
    group_window_ms: int | None = None
    #: with :attr:`group_window_ms`: the groups keep what the report's charts need too
    #: (response codes, thread counts, latency and connect sums:
    #: :func:`toolkit.pipeline.load.chart_groups`), for ``warmup report FILE``
    group_charts: bool = False
    #: most bytes one input may hold, decompressed (``--max-bytes``; a larger file or
    #: gzip stream is refused unread, :func:`toolkit.ingest.guarded.check_expansion`)
    max_bytes: int = MAX_INPUT_BYTES
    #: ``progress(path, fraction)`` with fraction 0–1, called from time to time while a
    #: file of at least :data:`toolkit.ingest.registry.PROGRESS_MIN_BYTES` is read (the
    #: CLI's progress bar); may be called from another thread
    progress: Callable[[Path, float], None] | None = field(default=None, compare=False)


_SIZE_UNITS = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


def parse_size(text: str) -> int:
    """Bytes of a size as a user writes it: ``20GB``, ``20G``, ``500MB``, ``1.5T``,
    ``1000000`` (decimal units: 1 GB = 10⁹ bytes); ``ValueError`` for anything else."""
    value = text.strip().upper().removesuffix("B").strip()
    unit = value[-1:] if value[-1:] in _SIZE_UNITS else ""
    number = float(value[: len(value) - len(unit)])
    if not number > 0 or number == float("inf"):
        raise ValueError(f"not a positive size: {text!r}")
    return int(number * _SIZE_UNITS[unit])


#: names ``--delimiter`` takes for a TAB besides the character itself
_TAB_NAMES = ("tab", "\\t")


def delimiter_char(delimiter: str) -> str:
    """``--delimiter`` as the one character it names (``tab`` or ``\\t`` → TAB).

    Raises :class:`UsageError` for anything longer than one character."""
    if delimiter.lower() in _TAB_NAMES:
        return "\t"
    if len(delimiter) != 1:
        raise UsageError(f"--delimiter {delimiter!r}: give one character (e.g. ';' or '|'), or tab")
    return delimiter


def parse_apdex(text: str, option: str = "--apdex") -> tuple[int, int]:
    """``T,F`` (or JMeter's ``T|F``) in ms → (T, F); 0 ≤ T ≤ F."""
    parts = re.split(r"[,|]", text.strip())
    try:
        if len(parts) != 2:
            raise ValueError
        t_ms, f_ms = (int(part.strip().removesuffix("ms").strip()) for part in parts)
    except ValueError:
        raise UsageError(
            f"{option} {text!r}: expected the satisfied and tolerated thresholds in ms, "
            "e.g. 500,1500"
        ) from None
    if not 0 <= t_ms <= f_ms:
        raise UsageError(
            f"{option} {text!r}: the satisfied threshold T must be at least 0 and at most "
            "the tolerated threshold F"
        )
    return t_ms, f_ms


def apdex_thresholds(
    apdex: str | None, per_label: str | None, *, prefix: str = "--"
) -> ApdexThresholds:
    """The :class:`ApdexThresholds` of the ``--apdex T,F`` and ``--apdex-per-label SPEC``
    options (either None: JMeter's default; ``prefix``: the options' prefix in messages,
    ``--load-`` for ``warmup report``)."""
    t_ms, f_ms = (
        parse_apdex(apdex, f"{prefix}apdex") if apdex is not None else DEFAULT_APDEX.overall_ms
    )
    entries = (
        parse_apdex_per_label(per_label, f"{prefix}apdex-per-label")
        if per_label is not None
        else ()
    )
    return ApdexThresholds(t_ms, f_ms, entries)


def parse_apdex_per_label(
    text: str, option: str = "--apdex-per-label"
) -> tuple[tuple[str, int, int], ...]:
    """JMeter's ``jmeter.reportgenerator.apdex_per_transaction`` syntax →
    ``ApdexThresholds.per_label``: ``PATTERN:T|F`` entries separated by ``;`` (the pattern
    is everything before the entry's last ``:``; a regular expression matched against the
    whole label), e.g. ``login:1000|3000;search.*:200|800``. JMeter logs and skips an
    entry it cannot read; here it is an error naming the entry."""
    entries = []
    for chunk in text.split(";"):
        if not chunk.strip():
            continue
        pattern, colon, limits = chunk.rpartition(":")
        if not colon or not pattern.strip():
            raise UsageError(
                f"{option}: {chunk.strip()!r} is not PATTERN:T|F (e.g. login:1000|3000)"
            )
        t_ms, f_ms = parse_apdex(limits, f"{option} {pattern.strip()!r}:")
        try:
            re.compile(pattern.strip())
        except re.error as exc:
            raise UsageError(
                f"{option}: {pattern.strip()!r} is not a regular expression ({exc}); escape "
                "regex characters of a label name, e.g. GET /a\\?b"
            ) from None
        entries.append((pattern.strip(), t_ms, f_ms))
    if not entries:
        raise UsageError(f"{option} {text!r}: no PATTERN:T|F entry (e.g. login:1000|3000)")
    return tuple(entries)


def _duration_s(text: str) -> float | None:
    """``500ms``, ``30s``, ``2m`` or a bare number of seconds → seconds; None when it is no
    such duration (the callers say which option and what it takes)."""
    raw = text.strip().lower()
    scale = 1.0
    for suffix, factor in (("ms", 0.001), ("s", 1.0), ("m", 60.0)):
        if raw.endswith(suffix):
            raw, scale = raw[: -len(suffix)], factor
            break
    try:
        return float(raw) * scale
    except ValueError:
        return None


def parse_steady_bound(text: str | None, option: str) -> float | None:
    """``--steady-from``/``--steady-to``: ``30s``, ``1m``, ``500ms`` or a bare number of
    seconds from the first sample start → seconds (≥ 0); None stays None."""
    if text is None:
        return None
    value = _duration_s(text)
    if value is None:
        raise UsageError(f"{option} {text!r}: expected seconds from the first sample, e.g. 30s, 1m")
    if not (math.isfinite(value) and value >= 0):
        raise UsageError(f"{option} {text!r}: must be 0 or more (seconds from the first sample)")
    return value


def check_steady_bounds(steady_from_s: float | None, steady_to_s: float | None) -> None:
    """A ``--steady-to`` at or before ``--steady-from`` is a user error."""
    if steady_from_s is not None and steady_to_s is not None and steady_to_s <= steady_from_s:
        raise UsageError(
            f"--steady-to {steady_to_s:g} s is not after --steady-from {steady_from_s:g} s: "
            "give a window that ends after it starts"
        )


#: Longest analysis window, in seconds (a week): a soak test of weeks still gets the ten
#: windows the warm-up rule needs, and a window's milliseconds stay far inside int64
MAX_WINDOW_S = 7 * 86_400.0


def parse_window(text: str, option: str = "--window") -> float:
    """``1s``, ``500ms``, ``2m`` or a bare number of seconds → seconds, from 1 ms to
    :data:`MAX_WINDOW_S` (a week); ``option``: the option (or config key) named in the
    error."""
    value = _duration_s(text)
    if value is None or math.isnan(value):
        raise UsageError(f"{option} {text!r}: expected e.g. 1s, 500ms, 2m")
    if not value >= 0.001:
        raise UsageError(f"{option} {text!r}: must be at least 1ms")
    if not value <= MAX_WINDOW_S:
        raise UsageError(
            f"{option} {text!r}: must be at most a week ({MAX_WINDOW_S:.0f}s), e.g. 1m or 60m"
        )
    return value


def check_window_s(window_s: float, what: str = "window_s") -> float:
    """``window_s`` (seconds, as the library takes an analysis window) if it is from 1 ms to
    :data:`MAX_WINDOW_S`, else a :class:`UsageError` naming ``what``."""
    if not (math.isfinite(window_s) and 0.001 <= window_s <= MAX_WINDOW_S):
        raise UsageError(
            f"{what} {window_s!r} s: must be from 0.001 s (1 ms) to {MAX_WINDOW_S:.0f} s "
            "(a week), e.g. 1.0"
        )
    return float(window_s)


def check_format_name(format: str | None, known: Iterable[str]) -> None:
    """Raise :class:`UsageError` naming the ``known`` formats when ``format`` is not one
    (None: detected per file)."""
    names = sorted(known)
    if format is not None and format not in names:
        raise UsageError(f"unknown --format {format!r}; known formats: {', '.join(names)}")


def check_input_options(options: IngestOptions) -> IngestOptions:
    """``options`` checked but for the time zone (which needs DuckDB's time-zone database:
    :func:`toolkit.ingest.check_options`), with ``delimiter`` normalised (``tab`` or
    ``\\t`` → a TAB character).

    Raises :class:`UsageError` for an unknown ``encoding`` (a Python codec name), a
    ``delimiter`` that is not one character, or ``timestamps`` other than start/end.
    """
    if options.encoding is not None:
        try:
            codecs.lookup(options.encoding)
        except LookupError:
            raise UsageError(
                f"unknown --encoding {options.encoding!r}; pass a Python codec name such as "
                "cp1252 (JMeter on Windows), latin-1 or utf-16"
            ) from None
    if options.timestamps not in (None, *TIMESTAMP_KINDS):
        raise UsageError(
            f"--timestamps {options.timestamps!r}: use start (JMeter's default) or end "
            "(a run with sampleresult.timestamp.start=false)"
        )
    if options.delimiter is not None:
        return replace(options, delimiter=delimiter_char(options.delimiter))
    return options


#: time zones DuckDB's database was found to know in this process: the command line, the
#: ingest's entry point and the CSV JTL reader each check the zone they are given, the
#: first check only looking it up
_KNOWN_ZONES: set[str] = set()


def check_timezone(timezone: str) -> None:
    """Raise :class:`UsageError` for a ``--timezone`` that DuckDB's time-zone database,
    which applies it, does not know (:func:`toolkit.duckdb_time.known_zone`: its list of
    names, else DuckDB itself)."""
    if timezone in _KNOWN_ZONES:
        return
    from toolkit.duckdb_time import known_zone

    if not known_zone(timezone):
        raise UsageError(
            f"--timezone {timezone!r}: unknown time zone; pass an IANA name such "
            "as Europe/Paris, America/New_York or UTC"
        )
    _KNOWN_ZONES.add(timezone)


def check_time_format(time_format: str) -> None:
    """Raise :class:`UsageError` for a ``--time-format`` that DuckDB's ``strptime``, which
    reads the timestamps with it, cannot use (an unknown ``%Q``, a trailing ``%``): it was
    an internal error at the first row (:func:`toolkit.duckdb_time.time_format_error`:
    DuckDB's grammar, else DuckDB itself)."""
    from toolkit.duckdb_time import time_format_error

    reason = time_format_error(time_format)
    if reason:
        raise UsageError(
            f"--time-format {time_format!r}: not a strptime format ({reason[:120]}); use "
            "codes such as '%d.%m.%Y %H:%M:%S.%f' (%f reads milliseconds too)"
        )


def check_store_path(path: Path, *, read_only: bool) -> None:
    """Raise :class:`StoreError` when the store file ``path`` cannot be opened for what
    is asked: read-only, it must exist; to write, its folder must."""
    if read_only and not path.exists():
        raise StoreError(f"{path}: no such store; create it with `warmup ingest --db {path} FILE`")
    if not path.parent.exists():
        raise StoreError(f"{path}: folder {path.parent} does not exist; create it first")


def check_fraction(value: float, option: str, example: str) -> None:
    """``value`` is a fraction strictly between 0 and 1 (a :class:`UsageError` naming
    ``option``, with ``example`` such as ``0.10 = 10 %``, if not; NaN is not one)."""
    if not (math.isfinite(value) and 0 < value < 1):
        raise UsageError(f"{option} {value!r}: must be a fraction between 0 and 1 ({example})")


def check_tolerance(tolerance: float, option: str = "tolerance") -> None:
    """A gap tolerance is a fraction strictly between 0 and 1 (as the config file's)."""
    check_fraction(tolerance, option, "0.10 = 10 %")


def check_target(target: float, option: str = "target") -> None:
    """A window-error target is a fraction strictly between 0 and 1 (as the config
    file's)."""
    check_fraction(target, option, "0.05 = 5 %")


def check_hot_window(window: int, option: str = "window") -> None:
    """The benchmark's own hot value is the min of at least one hot iteration; ``option``:
    the option (or argument) named in the error."""
    if window < 1:
        raise UsageError(
            f"{option} {window!r}: must be at least 1 hot iteration (ClickBench's hot value "
            "is the fastest of its last 2 runs: 2)"
        )


def check_grid(max_skip: int, max_window: int, coverage: float) -> None:
    """Raise :class:`UsageError` for short-window grid options no grid can have
    (``warmup gaps --grid``)."""
    if max_skip < 0 or max_window < 1:
        raise UsageError("--max-skip must be >= 0 and --max-window >= 1")
    if not 0 < coverage <= 1:
        raise UsageError("--coverage must be a fraction in (0, 1] (0.9 = 90 % of series)")


def detect_options(penalty: str = "barrett", equivalence: str = "tolerance") -> dict[str, Any]:
    """Checked :func:`toolkit.analyze.warmup.analyze_series` options from their command-line spelling: a penalty
    name (``barrett`` = 15·ln n, ``sic``/``bic`` = 3·ln n, ``mbic`` = 4·ln n, ``crops`` =
    CROPS + elbow) or a number ≥ 0, and an equivalence mode. Raises :class:`UsageError`."""
    key = penalty.strip().lower()
    pen: float | str
    if key in PENALTY_NAMES:
        pen = key
    else:
        try:
            pen = float(key)
        except ValueError:
            pen = math.nan
        if not math.isfinite(pen) or pen < 0:
            raise UsageError(
                f"--penalty {penalty!r}: use a number >= 0 or one of {', '.join(PENALTY_NAMES)}"
            )
    if equivalence not in EQUIVALENCE_MODES:
        raise UsageError(
            f"--equivalence {equivalence!r}: use one of {', '.join(EQUIVALENCE_MODES)}"
        )
    return {"penalty": pen, "equivalence": equivalence}
