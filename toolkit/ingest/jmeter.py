"""JMeter CSV result files (CSV JTL), read by DuckDB's own CSV reader straight into ``samples``.

Format facts are from ``research/jmeter.md`` §1: 22 built-in columns in a fixed order plus
quoted ``"variable"`` columns, any subset; a header is optional (``print_field_names``);
one-character delimiter (``,`` by default, TAB, ``;``, ``|`` …); RFC-4180 quoting with
records that may span lines; ``timeStamp`` as epoch ms or a ``SimpleDateFormat`` text in the
JVM's local zone; rows in completion order; transaction-controller rows recognised by their
``responseMessage``; sub-result rows named ``<parent>-<N>`` since 5.0; a killed JMeter leaves
a last record cut mid-line (§1.8), which is dropped with a warning naming the line.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.analyze.time_bounds import FENCE_IQR, MIN_FENCE_MS
from toolkit.errors import InputFormatError, ToolkitError, UsageError
from toolkit.ingest.guarded import (
    GZIP_ERRORS,
    damaged_gzip,
    long_line,
    open_decompressed,
    quoted,
)
from toolkit.ingest.registry import (
    PROGRESS_MIN_BYTES,
    Ingester,
    IngestOptions,
    ReadAgain,
    register,
    run_with_progress,
)
from toolkit.native import duckdb
from toolkit.numbers import plural
from toolkit.options import check_timezone, delimiter_char
from toolkit.store import SourceWriter

if TYPE_CHECKING:
    import polars as pl

#: Every built-in CSV column in the order JMeter writes them (research/jmeter.md §1.1).
JMETER_COLUMNS = (
    "timeStamp",
    "elapsed",
    "label",
    "responseCode",
    "responseMessage",
    "threadName",
    "dataType",
    "success",
    "failureMessage",
    "bytes",
    "sentBytes",
    "grpThreads",
    "allThreads",
    "URL",
    "Filename",
    "Latency",
    "Encoding",
    "SampleCount",
    "ErrorCount",
    "Hostname",
    "IdleTime",
    "Connect",
)

#: The 17 columns JMeter 5.x writes by default (research/jmeter.md §1.1); assumed for a
#: header-less file unless ``--columns`` says otherwise.
DEFAULT_COLUMNS = (
    "timeStamp",
    "elapsed",
    "label",
    "responseCode",
    "responseMessage",
    "threadName",
    "dataType",
    "success",
    "failureMessage",
    "bytes",
    "sentBytes",
    "grpThreads",
    "allThreads",
    "URL",
    "Latency",
    "IdleTime",
    "Connect",
)

#: The columns ``warmup load`` and ``warmup compare`` read (pipeline/load.py: times,
#: labels, outcomes and error texts, thread names and counts, bytes for the dashboard's
#: KB/s, the load generator; dataType and responseMessage find transaction-controller rows
#: at ingest): what their scratch store keeps of a CSV JTL given without ``--db``
#: (``IngestOptions.sample_columns``; URL, Latency, Connect, IdleTime, SampleCount,
#: ErrorCount, Filename, Encoding and sample variables are neither parsed nor stored).
LOAD_COLUMNS = frozenset(JMETER_COLUMNS) - {
    "URL",
    "Latency",
    "Connect",
    "IdleTime",
    "SampleCount",
    "ErrorCount",
    "Filename",
    "Encoding",
}
#: ... and ``warmup report``'s (its latency and connect-time charts)
REPORT_COLUMNS = LOAD_COLUMNS | {"Latency", "Connect"}

_TYPES = {
    "timeStamp": "BIGINT",
    "elapsed": "BIGINT",
    "success": "BOOLEAN",
    "bytes": "BIGINT",
    "sentBytes": "BIGINT",
    "grpThreads": "INTEGER",
    "allThreads": "INTEGER",
    "Latency": "BIGINT",
    "SampleCount": "INTEGER",
    "ErrorCount": "INTEGER",
    "IdleTime": "BIGINT",
    "Connect": "BIGINT",
}

#: The fallback date patterns JMeter's reader tries for a non-numeric timeStamp
#: (``CSVSaveService.DATE_FORMAT_STRINGS``, research/jmeter.md §1.3), as strptime formats.
JMETER_DATE_FORMATS = (
    "%Y/%m/%d %H:%M:%S.%g",
    "%Y/%m/%d %H:%M:%S",
    "%Y-%m-%d %H:%M:%S.%g",
    "%Y-%m-%d %H:%M:%S",
    "%m/%d/%y %H:%M:%S",
)

#: Prefix of a Transaction Controller sample's responseMessage (research/jmeter.md §1.6).
TC_PREFIX = "Number of samples in transaction"
#: Prefix of an *empty* Transaction Controller sample (no child sampled), which JMeter's
#: dashboard drops everywhere (research/jmeter.md §4.4; ``Sample.isEmptyController``).
EMPTY_TC_PREFIX = "Number of samples in transaction : 0"

_DELIMITERS = (",", "\t", ";", "|")
#: Longest CSV record DuckDB reads (its max_line_size): far beyond a real sample's line
MAX_CSV_LINE_BYTES = 16 << 20
#: DuckDB's CSV buffer (its buffer_size): DuckDB's own default at its default 2 MiB lines
#: (16 x max_line_size), not the 256 MiB that 16 MiB lines would give by default, which
#: each reading thread filled before its first row: on a 10M-row JTL 3x the page faults
#: and 0.6-1.0 s more system CPU, 587 MiB peak RSS against 204-268 MiB; the first rows
#: read to judge a file (``head_groups_sql``) read the whole of a 229 MB file
CSV_BUFFER_BYTES = 2 * MAX_CSV_LINE_BYTES
# a response message can be megabytes long; csv's default limit of 128 KiB per field would
# make the first record unreadable (DuckDB reads up to max_line_size = 16 MiB)
csv.field_size_limit(max(csv.field_size_limit(), 1 << 26))
_KNOWN = frozenset(JMETER_COLUMNS)
_EPOCH_MS = re.compile(r"^\s*-?\d{9,}\s*$")
_DATE_START = re.compile(r"^\s*\d{1,4}[-/]\d{1,2}[-/]\d{1,4} \d{1,2}:\d\d")
#: a jmeter.log (log4j) line: "2026-01-15 10:23:45,123 INFO o.a.j.u.JMeterUtils: ..."
_LOG4J_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d{1,3} +[A-Z]+ +\S+: ")


#: Per suite, the bounds (epoch ms) its samples' starts and ends must lie within:
#: :func:`~toolkit.analyze.time_bounds.time_fences` of the quartiles of its start times,
#: in DOUBLE so hostile values (±10¹⁸) cannot overflow
TIME_FENCES = f"""(SELECT suite_id,
        q[1] - greatest({FENCE_IQR} * (q[2] - q[1]), {MIN_FENCE_MS}) AS lo_ms,
        q[2] + greatest({FENCE_IQR} * (q[2] - q[1]), {MIN_FENCE_MS}) AS hi_ms
    FROM (SELECT suite_id, quantile_disc(start_ms::DOUBLE, [0.25, 0.75]) AS q
          FROM samples GROUP BY suite_id))"""
#: Per suite, from its earliest start or end to its latest start or end (``span_ms``, as
#: DOUBLE: an elapsed time of 10^18 ms overflows BIGINT), a scan of two columns without a
#: sort (:func:`within_a_day`)
_SUITE_SPANS = """(SELECT suite_id,
        max(greatest(start_ms::DOUBLE, start_ms::DOUBLE + elapsed_ms))
        - min(least(start_ms::DOUBLE, start_ms::DOUBLE + elapsed_ms)) AS span_ms
    FROM samples GROUP BY suite_id)"""


def within_a_day(con: duckdb.DuckDBPyConnection, source_id: int | None = None) -> bool:
    """Whether every suite of the store (or every suite holding ``source_id``) starts and
    ends within ``MIN_FENCE_MS``: then every row lies inside its fences, which are at
    least that far beyond quartiles within the same span, and the quartiles, which sort
    every start time (0.6 s of CPU per 10M rows), are not needed."""
    where, params = "", []
    if source_id is not None:
        where = "WHERE suite_id IN (SELECT suite_id FROM samples WHERE source_id = ?)"
        params = [source_id]
    # fetchall: fetchone leaves DuckDB 2.0's result open, refusing the next statement
    ((span,),) = con.execute(
        f"SELECT coalesce(max(span_ms), 0) FROM {_SUITE_SPANS} {where}", params
    ).fetchall()
    return float(span) <= MIN_FENCE_MS


#: a row inside its suite's fences (a row without a start or elapsed time is judged on
#: what it has)
IN_FENCES = (
    "(s.start_ms IS NULL OR (s.start_ms BETWEEN f.lo_ms AND f.hi_ms AND (s.elapsed_ms IS "
    "NULL OR s.start_ms::DOUBLE + s.elapsed_ms BETWEEN f.lo_ms AND f.hi_ms)))"
)


def _decode_head(path: Path, head: bytes, encoding: str | None) -> str:
    try:
        return head.decode(encoding or "utf-8")
    except LookupError:
        raise UsageError(
            f"unknown --encoding {encoding!r}; pass a Python codec name such as cp1252, "
            "latin-1 or utf-16"
        ) from None
    except UnicodeDecodeError as exc:
        if exc.start > len(head) - 4 and encoding in (None, "utf-8", "utf8"):
            # a multi-byte character cut by the head's size limit
            return head[: exc.start].decode("utf-8")
        line = head[: exc.start].count(b"\n") + 1
        raise InputFormatError(
            path,
            f"byte 0x{head[exc.start]:02x} is not valid {encoding or 'UTF-8'}; "
            "pass --encoding (e.g. --encoding latin-1)",
            line=line,
        ) from None


def _header_names(first_line: str, delimiter: str) -> list[str] | None:
    """The column names when ``first_line`` is a JMeter header with ``delimiter``, else None.

    A header holds only built-in names, and quoted names for sample variables (§1.1).
    """
    if delimiter not in first_line and first_line.strip() not in _KNOWN:
        return None
    raw = first_line.rstrip("\r\n").split(delimiter)
    names = []
    for token in raw:
        if token in _KNOWN:
            names.append(token)
        elif len(token) >= 2 and token.startswith('"') and token.endswith('"'):
            names.append(token[1:-1].replace('""', '"'))
        else:
            return None
    return names if any(n in _KNOWN for n in names) else None


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0].rstrip("\r")


#: a header's first name (built-in or quoted variable) and the character after it
_FIRST_NAME = re.compile(r'(?:[A-Za-z]+|"(?:[^"]|"")*")(.)', re.DOTALL)


def _delimiters(first: str) -> tuple[str, ...]:
    """Delimiters to try on a first line: the usual ones, and whatever single character
    follows its first column name (JMeter takes any character for
    ``jmeter.save.saveservice.default_delimiter``)."""
    found = _FIRST_NAME.match(first)
    own = found.group(1) if found else ""
    if own and not own.isalnum() and own not in ('"', " ", "\r") and own not in _DELIMITERS:
        return (*_DELIMITERS, own)
    return _DELIMITERS


def _detect_header(text: str, delimiter: str | None) -> tuple[str, list[str]] | None:
    first = _first_line(text)
    for delim in (delimiter,) if delimiter else _delimiters(first):
        names = _header_names(first, delim)
        if names is not None:
            return delim, names
    return None


def _first_record(text: str, delimiter: str) -> list[str] | None:
    try:
        reader = csv.reader(io.StringIO(text), delimiter=delimiter, quotechar='"', doublequote=True)
        return next(reader, None)
    except csv.Error:
        return None


def _sniff(path: Path, head: bytes) -> bool:
    text = head.decode("utf-8", "replace").removeprefix("\ufeff")
    if _detect_header(text, None) is not None:
        return True
    # header-less: starts with an epoch-ms or JMeter date timeStamp and a delimiter
    first = _first_line(text)
    if _LOG4J_LINE.match(first):
        return False  # its date, a comma and milliseconds look like a timeStamp field
    for delim in _DELIMITERS:
        field = first.split(delim, 1)[0]
        if delim in first and (_EPOCH_MS.match(field) or _DATE_START.match(field)):
            return True
    return False


def suite_name(path: Path) -> str:
    """Default suite name of a result file: its name without ``.gz`` and result suffixes
    (``run-1.csv.jtl.gz`` → ``run-1``; dots inside the name are kept)."""
    name = path.name
    for suffix in (".gz", ".jtl", ".csv", ".tsv", ".xml", ".log", ".txt", ".jtl", ".csv"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name


def _sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _layout(
    path: Path, text: str, options: IngestOptions
) -> tuple[str, list[str], bool, list[str] | None]:
    """Return (delimiter, column names, has_header, first data record) of a CSV JTL."""
    forced = delimiter_char(options.delimiter) if options.delimiter else None
    found = _detect_header(text, forced)
    if found is None and forced is not None and _detect_header(text, None) is not None:
        other = _detect_header(text, None)
        assert other is not None
        raise UsageError(
            f"{path}: --delimiter {options.delimiter!r} does not split its header, which is "
            f"{other[0]!r}-delimited; leave --delimiter out (it is read from the header)"
        )
    if found is not None:
        delim, names = found
        if options.columns:
            raise UsageError(
                f"{path}: the file has a header; --columns is only for header-less files"
            )
        body = text.split("\n", 1)[1] if "\n" in text else ""
        return delim, names, True, _first_record(body, delim)
    names = list(options.columns or DEFAULT_COLUMNS)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise UsageError(f"--columns: {dup!r} appears twice")
    for name in names:
        if name not in _KNOWN and not (name.startswith('"') and name.endswith('"')):
            raise UsageError(
                f"--columns: unknown JMeter column {name!r}; known: {', '.join(JMETER_COLUMNS)} "
                'and "quoted" sample variables'
            )
    names = [n.strip('"') for n in names]
    candidates = (forced,) if forced else _DELIMITERS
    for delim in candidates:
        record = _first_record(text, delim)
        if record is not None and len(record) == len(names):
            return delim, names, False, record
    record = _first_record(text, forced or ",") or []
    what = "the --columns list" if options.columns else "JMeter's default 17-column set"
    raise InputFormatError(
        path,
        f"no header line, and the first record has {len(record)} fields where {what} has "
        f"{len(names)}; pass --columns NAME,NAME,... (the writer's jmeter.save.saveservice.* "
        "columns in order) or --delimiter",
        line=1,
    )


#: a first timeStamp in [10^9, 10^11) is epoch seconds (2001-09-09 to 5138), not the epoch
#: milliseconds JMeter writes (1970-01-12 to 1973-03-03): read as ms, a 60 s run spans
#: 60 ms and its every load figure is 1,000 times off ("0 full windows ... run longer")
EPOCH_SECONDS_MIN = 10**9
EPOCH_SECONDS_MAX = 10**11


def epoch_seconds_error(
    path: Path, value: int, *, line: int, name: str = "timeStamp"
) -> InputFormatError:
    """The error for a first timeStamp (``name``: the XML JTL's ``ts``) that is epoch
    seconds, with both readings."""
    as_ms = datetime.fromtimestamp(value / 1000, UTC).strftime("%Y-%m-%d")
    as_s = datetime.fromtimestamp(value, UTC).strftime("%Y-%m-%d %H:%M:%S")
    return InputFormatError(
        path,
        f"{name} {value} is epoch seconds ({as_s} UTC), not the epoch milliseconds "
        f"JMeter writes (as ms it is {as_ms}, and every rate 1,000 times off); write the "
        "column in milliseconds (x 1000)",
        line=line,
    )


def _timestamp_expr(
    names: list[str],
    record: list[str] | None,
    options: IngestOptions,
    writer: SourceWriter,
    *,
    line: int,
) -> tuple[str, str]:
    """SQL type of the timeStamp column and the expression giving epoch ms; a first record
    (at ``line``) whose date matches none of the formats is one clear error."""
    if "timeStamp" not in names:
        return "BIGINT", "NULL"
    index = names.index("timeStamp")
    value = record[index] if record and index < len(record) else ""
    if options.time_format is None and (not value or re.fullmatch(r"\s*-?\d+\s*", value)):
        if value and EPOCH_SECONDS_MIN <= int(value) < EPOCH_SECONDS_MAX:
            raise epoch_seconds_error(writer.path, int(value), line=line)
        return "BIGINT", '"timeStamp"'
    formats = (options.time_format,) if options.time_format else JMETER_DATE_FORMATS
    fmt_list = "[" + ", ".join(_sql_str(f) for f in formats) + "]"
    parsed = f'strptime("timeStamp", {fmt_list})'
    if value and writer.store.con.execute(
        f"SELECT try_strptime(?, {fmt_list}) IS NULL", [value]
    ).fetchone() == (True,):
        raise _time_format_error(writer, value, options.time_format, line=line)
    zone = options.timezone
    if options.time_format is not None and re.search(r"%[zZ]", options.time_format):
        # every timestamp carries its own offset, which is the truth; a zone would shift it
        if zone is not None:
            writer.warn(
                f"--timezone {zone} ignored: --time-format has %z/%Z, so every timeStamp "
                "carries its own offset"
            )
        return "VARCHAR", f"epoch_ms({parsed})"
    if zone is not None:
        check_timezone(zone)  # already checked by the ingest's entry points: remembered
    if zone is None:
        writer.warn(
            "timeStamp is a formatted date without a zone (JMeter writes the JVM's local "
            "time); read as UTC — pass --timezone to say otherwise"
        )
        return "VARCHAR", f"epoch_ms({parsed})"
    return "VARCHAR", f"epoch_ms(timezone({_sql_str(zone)}, {parsed}))"


#: date and time layouts tried to suggest a ``--time-format`` for a timeStamp that matches
#: none given (strptime codes as DuckDB reads them; ``%f``: 1 to 6 digits, so milliseconds)
_DATES = (
    "%Y/%m/%d",
    "%Y-%m-%d",
    "%d.%m.%Y",
    "%d/%m/%Y",
    "%m/%d/%Y",
    "%d-%m-%Y",
    "%m/%d/%y",
    "%d.%m.%y",
    "%Y%m%d",
)
_TIMES = ("%H:%M:%S", "%H:%M:%S.%f", "%H:%M:%S,%f", "%H:%M")
_ZONES = ("", "%z", " %z", " %Z")


def _fitting_format(con: duckdb.DuckDBPyConnection, value: str) -> str | None:
    """A strptime format that reads ``value`` (the first of :data:`_DATES` × :data:`_TIMES`
    × :data:`_ZONES`, date and time joined by a space or ``T``), or None."""
    for date in _DATES:
        for sep in (" ", "T"):
            for time in _TIMES:
                for zone in _ZONES:
                    fmt = f"{date}{sep}{time}{zone}"
                    found = con.execute(
                        f"SELECT try_strptime(?, {_sql_str(fmt)}) IS NOT NULL", [value]
                    ).fetchone()
                    if found == (True,):
                        return fmt
    return None


def _time_format_error(
    writer: SourceWriter, value: str, given: str | None, *, line: int | None
) -> ToolkitError:
    """The error for a first timeStamp ``value`` that the ``given`` ``--time-format`` (or,
    without one, JMeter's patterns) does not read: what the value is, and the option that
    reads it."""
    shown = value[:40]
    if given is not None and re.fullmatch(r"\s*-?\d+\s*", value):
        return UsageError(
            f"{writer.path}:{line}: timeStamp {shown!r} is epoch milliseconds, not a date; "
            "leave --time-format out"
        )
    fitting = _fitting_format(writer.store.con, value.strip())
    advice = (
        f"pass --time-format '{fitting}'"
        if fitting is not None
        else "pass --time-format with strptime codes that read it (e.g. '%d.%m.%Y %H:%M:%S.%f'; "
        "%f reads milliseconds too)"
    )
    if given is not None:
        what = f"does not match --time-format {given!r}"
        if fitting is not None:
            advice = f"try --time-format '{fitting}'"
    else:
        what = f"is not epoch ms nor in JMeter's date patterns ({', '.join(JMETER_DATE_FORMATS)})"
    return InputFormatError(writer.path, f"timeStamp {shown!r} {what}; {advice}", line=line)


def _col(names: list[str], name: str) -> str:
    return f'"{name}"' if name in names else "NULL"


_CSV_ERROR_LINE = re.compile(r"CSV Error on Line: (\d+)")
_CONVERT = re.compile(r'Error when converting column "(.*?)"\. Could not convert string "(.*?)" to')
_REASONS = re.compile(
    r"Expected Number of Columns: \d+ Found: \d+|Value with unterminated quote found"
    r"|Maximum line size of \d+ bytes exceeded|Invalid unicode"
)


def _bad_record(exc: duckdb.Error) -> tuple[int | None, str]:
    """DuckDB's record number and the record's text from its strict-mode CSV error."""
    text = str(exc)
    where = _CSV_ERROR_LINE.search(text)
    number = int(where.group(1)) if where else None
    start = text.find("\nOriginal Line: ")
    if start < 0:
        return number, ""
    after = text[start + len("\nOriginal Line: ") :]
    # the record (possibly several lines, when a quoted field is cut) runs up to the reason
    reasons = [m.start() for m in (*_REASONS.finditer(after), *_CONVERT.finditer(after))]
    record = (after[: max(reasons)] if reasons else after.split("\n", 1)[0]).rstrip("\r\n")
    return number, record


def _record_line(source: Path, record: str) -> int | None:
    """The physical line where ``record`` (DuckDB's text of a bad record) first starts a
    line in ``source``, or None when it is not found. DuckDB numbers records, not lines:
    they differ after the first field that spans lines."""
    needle = b"\n" + record.encode("utf-8")
    if len(needle) == 1:
        return None
    window, virtual, newlines = b"\n", 1, 0  # a virtual newline before the first byte
    try:
        with open_decompressed(source) as handle:
            while chunk := handle.read(1 << 23):
                window += chunk
                found = window.find(needle)
                if found >= 0:
                    return newlines + window.count(b"\n", virtual, found + 1) + 1
                keep = len(needle) - 1
                if len(window) > keep:
                    newlines += window.count(b"\n", virtual, len(window) - keep)
                    window, virtual = window[len(window) - keep :], 0
    except GZIP_ERRORS:
        return None
    return None


def _file_end(source: Path, size: int = 1 << 16) -> tuple[bytes, int]:
    """The last ``size`` bytes of ``source`` (decompressed) and its number of newlines,
    in one pass."""
    end, newlines = b"", 0
    with open_decompressed(source) as handle:
        while chunk := handle.read(1 << 23):
            newlines += chunk.count(b"\n")
            end = (end + chunk)[-size:]
    return end, newlines


def _csv_record_error(
    path: Path, source: Path, exc: duckdb.Error, encoding: str | None
) -> InputFormatError:
    """One line for DuckDB's strict-mode error about a CSV record (line, column, why)."""
    text = str(exc)
    number, record = _bad_record(exc)
    line = _record_line(source, record) if record else None
    where = "" if line is not None or number is None else f"record {number}: "
    # the reason follows the record's text; search after it (the record may contain anything)
    tail = text[text.find("\nOriginal Line: ") + 1 :]
    tail = tail[: tail.find("Possible fixes")] if "Possible fixes" in tail else tail
    if "Invalid unicode" in tail:
        return InputFormatError(
            path,
            f"{where}text is not valid {encoding or 'UTF-8'}; pass --encoding "
            "(e.g. --encoding cp1252)",
            line=line,
        )
    converted = list(_CONVERT.finditer(tail))
    if converted:
        column, value = converted[-1].group(1), converted[-1].group(2)
        return InputFormatError(
            path,
            f"{where}column {column!r}: {quoted(value)} is not a valid {column} value; not a "
            "valid JMeter CSV record (check --delimiter/--columns)",
            line=line,
        )
    reasons = list(_REASONS.finditer(tail))
    detail = reasons[-1].group(0) if reasons else "unreadable record"
    return InputFormatError(
        path,
        f"{where}{detail}; not a valid JMeter CSV record (check --delimiter/--columns)",
        line=line,
    )


def _cut_record_line(source: Path, exc: duckdb.Error) -> int | None:
    """The physical line of the record DuckDB's error is about when it is the file's cut
    last record, else None: its text, as DuckDB quotes it, ends the file, which either
    has no line end or ends inside a quoted field (an unterminated quote: the cut came
    just after a line break in it). A bad but whole last line is no cut."""
    _, record = _bad_record(exc)
    if not record:
        return None
    try:
        end, newlines = _file_end(source)
    except GZIP_ERRORS:
        return None
    if end.endswith(b"\n") and "unterminated quote" not in str(exc):
        return None
    text = end.decode("utf-8", "replace").rstrip("\r\n")
    if not text.endswith(record[-2000:]):
        return None
    # newlines from the record's start to the end of the file: its own and those after it
    trailing = end[len(end.rstrip(b"\r\n")) :]
    return newlines - record.count("\n") - trailing.count(b"\n") + 1


def _ends_with_newline(path: Path) -> bool:
    """Whether an uncompressed file's last byte is a newline (else JMeter may have been
    killed mid-record)."""
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - 1))
        return handle.read(1) == b"\n"


#: how far the head of a CSV JTL is read to hold its first record whole: the header and
#: two records of DuckDB's longest line
_HEAD_LIMIT = 2 * MAX_CSV_LINE_BYTES + (1 << 20)


def _head_layout(
    path: Path, source: Path, options: IngestOptions
) -> tuple[str, list[str], bool, list[str] | None]:
    """The layout of ``source`` (see :func:`_layout`) from its head: the first 64 KiB, or
    more until it holds the first data record whole (a quoted response message can be
    megabytes long)."""
    from toolkit.ingest.detect import HEAD_BYTES, read_head

    size = HEAD_BYTES
    while True:
        raw = read_head(source, size)
        whole = len(raw) < size or size >= _HEAD_LIMIT
        text = _decode_head(path, raw, None).removeprefix("\ufeff")
        if not text.strip():
            raise InputFormatError(path, "file is empty; nothing to ingest")
        try:
            delim, names, has_header, record = _layout(path, text, options)
        except InputFormatError:
            if whole:
                raise
        else:
            body = (text.split("\n", 1)[1] if "\n" in text else "") if has_header else text
            if whole or _has_two_records(body, delim):
                return delim, names, has_header, record
        size = min(size * 8, _HEAD_LIMIT)  # never past the limit (was: 256 MiB read)


def _has_two_records(text: str, delimiter: str) -> bool:
    """Whether ``text`` holds a whole record and the start of another."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, quotechar='"', doublequote=True)
    try:
        return next(reader, None) is not None and next(reader, None) is not None
    except csv.Error:
        return False


@contextmanager
def _utf8_copy(path: Path, encoding: str) -> Iterator[Path]:
    """A temporary UTF-8 copy of ``path`` (any Python codec: latin-1, cp1252, utf-16,
    shift_jis ...), for DuckDB's reader, which reads UTF-8. Lines stay where they were."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    with tempfile.TemporaryDirectory(prefix="warmup-jtl-") as tmp:
        copy = Path(tmp) / "utf8.csv"
        line = 1
        try:
            with open_decompressed(path) as source, copy.open("wb") as target:
                while chunk := source.read(1 << 22):
                    try:
                        text = decoder.decode(chunk)
                    except UnicodeDecodeError as exc:
                        bad = exc.object[exc.start : exc.start + 1].hex()
                        raise InputFormatError(
                            path,
                            f"byte 0x{bad} is not valid {encoding}; pass the file's --encoding",
                            line=line + bytes(exc.object[: exc.start]).count(b"\n"),
                        ) from None
                    line += text.count("\n")
                    target.write(text.encode("utf-8"))
                target.write(decoder.decode(b"", final=True).encode("utf-8"))
        except UnicodeDecodeError:
            raise InputFormatError(
                path, f"file ends inside a {encoding} character; pass the file's --encoding"
            ) from None
        except GZIP_ERRORS as exc:
            raise damaged_gzip(path, exc) from None
        yield copy


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    with path.open("rb") as handle:
        magic = handle.read(2)
    gz = magic == b"\x1f\x8b"
    # a UTF-16 byte-order mark names the encoding (JMeter with file.encoding=UTF-16)
    bom = "utf-16" if magic in (b"\xff\xfe", b"\xfe\xff") else None
    encoding = options.encoding or bom or "utf-8"
    if codecs.lookup(encoding).name == "utf-8":
        _load_utf8(writer, path, path, gz, options)
        return
    with _utf8_copy(path, encoding) as copy:
        _load_utf8(writer, path, copy, False, options)


def _refuse_long_line(path: Path, source: Path) -> None:
    """The one-line error for the first line of ``source`` longer than DuckDB's
    max_line_size, if it has one (one streaming pass, :func:`long_line`)."""
    line = long_line(source, MAX_CSV_LINE_BYTES)
    if line is not None:
        raise InputFormatError(
            path,
            f"line longer than {MAX_CSV_LINE_BYTES >> 20} MiB: not a JMeter CSV record "
            "(JMeter writes one sample a line); cut the line out or fix the file",
            line=line,
        )


def _load_utf8(
    writer: SourceWriter, path: Path, source: Path, gz: bool, options: IngestOptions
) -> None:
    """Read ``source`` (``path`` itself, or its UTF-8 copy) into ``samples``; messages name
    ``path``."""
    delim, names, has_header, record = _head_layout(path, source, options)
    # the columns read into the store (all, unless a scratch store keeps fewer)
    kept = options.sample_columns
    stored = names if kept is None else [n for n in names if n in kept]
    # the reader's column names: any text can name a sample variable (even empty, which is
    # no SQL identifier), so the reader numbers those columns
    reader_columns = [n if n in _KNOWN else f"_var{i}" for i, n in enumerate(names)]
    sample_variables = {
        c: n for c, n in zip(reader_columns, names, strict=True) if n not in _KNOWN and n in stored
    }
    ts_type, start_expr = _timestamp_expr(
        names, record, options, writer, line=2 if has_header else 1
    )
    types = {c: _TYPES.get(n, "VARCHAR") for c, n in zip(reader_columns, names, strict=True)}
    if "timeStamp" in types:
        types["timeStamp"] = ts_type
    if options.timestamps == "end" and "timeStamp" in names:
        # sampleresult.timestamp.start=false: timeStamp is when the sample ended (JMeter's
        # report generator converts the same way: start = timeStamp - elapsed)
        if "elapsed" not in names:
            raise InputFormatError(
                path, "--timestamps end needs the elapsed column to find start times", line=1
            )
        start_expr = f'({start_expr}) - coalesce("elapsed", 0)'
        writer.warn("timeStamp read as the sample END time (--timestamps end)")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputFormatError(path, f"column {dup!r} appears twice in the header", line=1)
    con = writer.store.con
    suite_id = writer.suite(
        options.suite or suite_name(path),
        kind="load",
        join=options.suite is not None,
        tags=[t for t in options.tags if "=" not in t],
        attributes={
            **dict(t.split("=", 1) for t in options.tags if "=" in t),
            "columns": ",".join(names),
        },
    )
    columns_sql = "{" + ", ".join(f"{_sql_str(n)}: {_sql_str(t)}" for n, t in types.items()) + "}"
    label = f"coalesce({_col(stored, 'label')}, '')"
    # JMeter writes a sample without URL (JDBC, Java, TCs) as `null`
    url = "nullif(\"URL\", 'null')" if "URL" in stored else "NULL"
    # sample_variables: name -> value; JMeter writes an unset variable as `null`
    variables = (
        "MAP(["
        + ", ".join(_sql_str(n) for n in sample_variables.values())
        + "], ["
        + ", ".join(f"nullif({column}, 'null')" for column in sample_variables)
        + "])"
        if sample_variables
        else "NULL"
    )
    message = _col(stored, "responseMessage")
    is_tc = f"coalesce(starts_with({message}, {_sql_str(TC_PREFIX)}), false)"
    # a last record cut by a killed JMeter, found by a first read (ReadAgain): its line
    cut = int(options.extra["jtl_cut_line"]) if "jtl_cut_line" in options.extra else None
    if gz or source.stat().st_size > MAX_CSV_LINE_BYTES:
        # DuckDB 2.0.1 drops a last line of 300-500 MB without a word (100 MB: an error);
        # a .gz is scanned decompressed (0.1 s for the 71 MB of a 1.6 MB real JTL)
        _refuse_long_line(path, source)
    reader = (
        f"read_csv({_sql_str(str(source))}, delim={_sql_str(delim)}, quote='\"', "
        f"escape='\"', header={'true' if has_header else 'false'}, columns={columns_sql}, "
        f"auto_detect=false, null_padding=false, ignore_errors={str(cut is not None).lower()}, "
        f"compression={_sql_str('gzip' if gz else 'none')}, encoding='utf-8', "
        f"max_line_size={MAX_CSV_LINE_BYTES}, buffer_size={CSV_BUFFER_BYTES})"
    )
    # Strict reading: DuckDB stops at the first bad record and says where (also when read
    # in parallel). (A tolerant read with a rejects table stored the whole record once per
    # bad field: a line of a million delimiters took hours; found by fuzzing.) When the bad
    # record is the file's last one, JMeter was killed mid-write: the transaction is rolled
    # back and the file read again skipping it — the only bad record, as it came first.
    values = {
        "suite_id": str(suite_id),
        "source_id": str(writer.source_id),
        "start_ms": start_expr,
        "elapsed_ms": _col(stored, "elapsed"),
        "latency_ms": _col(stored, "Latency"),
        "connect_ms": _col(stored, "Connect"),
        "idle_ms": _col(stored, "IdleTime"),
        "label": label,
        "response_code": _col(stored, "responseCode"),
        "response_message": message,
        "success": _col(stored, "success"),
        "failure_message": _col(stored, "failureMessage"),
        "thread_name": _col(stored, "threadName"),
        "data_type": _col(stored, "dataType"),
        "bytes": _col(stored, "bytes"),
        "sent_bytes": _col(stored, "sentBytes"),
        "grp_threads": _col(stored, "grpThreads"),
        "all_threads": _col(stored, "allThreads"),
        "url": url,
        "sample_count": _col(stored, "SampleCount"),
        "error_count": _col(stored, "ErrorCount"),
        "hostname": _col(stored, "Hostname"),
        "is_transaction": is_tc,
        "is_subresult": "false",
        "line": "NULL",
        "filename": _col(stored, "Filename"),
        "encoding": _col(stored, "Encoding"),
        "variables": variables,
    }
    # one analysis's scratch store: what this file leaves NULL is computed, not stored
    virtual = (
        writer.store.narrow_samples(c for c, value in values.items() if value == "NULL")
        if options.sample_columns is not None
        else writer.store.virtual_sample_columns()
    )
    if any(values[c] != "NULL" for c in virtual):
        writer.store.widen_samples()
        virtual = frozenset()
    filled = [c for c in values if c not in virtual]

    def read(sql: str, *, shown: bool = True) -> list[tuple[Any, ...]]:
        """Run a statement that reads ``source`` (its progress ``shown``) and return its
        rows: its errors as one line each."""
        try:
            return run_with_progress(con, sql, path, options.progress if shown else None).fetchall()
        except duckdb.IOException as exc:
            if "Could not write" in str(exc):
                raise  # the store's disk, not this file: new_source says so (store.write_failure)
            # DuckDB decompresses a .gz itself: a cut or damaged stream surfaces here
            first = " ".join(str(exc).replace(f": {source}", "").split())[:160]
            if gz:
                raise damaged_gzip(path, first) from None
            raise InputFormatError(path, f"cannot read the file ({first})") from None
        except duckdb.NotImplementedException as exc:
            # a line far beyond max_line_size: DuckDB's parallel reader gives up instead
            if "full read" in str(exc):
                _refuse_long_line(path, source)
            raise
        except (duckdb.InvalidInputException, duckdb.ConversionException) as exc:
            if "CSV Error on Line" in str(exc):
                line = _cut_record_line(source, exc) if cut is None else None
                if line is not None:
                    extra = {**options.extra, "jtl_cut_line": str(line)}
                    raise ReadAgain(replace(options, extra=extra)) from None
                raise _csv_record_error(path, source, exc, options.encoding) from None
            if isinstance(exc, duckdb.ConversionException):
                first = " ".join(str(exc).split())[:240]
                raise InputFormatError(
                    path,
                    f"timeStamp: {first}; pass --time-format (strptime, e.g. %Y/%m/%d %H:%M:%S.%g)",
                ) from None
            first = " ".join(str(exc).split())[:240]
            if "unicode" in first.lower() or "not utf-8" in first.lower():
                raise InputFormatError(
                    path, "text is not valid UTF-8; pass --encoding (e.g. --encoding cp1252)"
                ) from None
            unparsed = re.search(r'Could not parse string "(.*?)" according to format', str(exc))
            if unparsed:  # a later row's date in another format
                value = unparsed.group(1)
                formats = (options.time_format,) if options.time_format else JMETER_DATE_FORMATS
                # timeStamp is JMeter's first column: the record starts with the value
                line = _record_line(source, value) if names[0] == "timeStamp" else None
                raise InputFormatError(
                    path,
                    f"timeStamp {value[:40]!r} matches none of {', '.join(formats)} (the rows "
                    "before it do); pass --time-format (strptime codes)",
                    line=line,
                ) from None
            raise InputFormatError(path, f"cannot read as a JMeter CSV JTL: {first}") from None

    # a suite named by --suite may be joined by later files: rows, as a suite of several
    grouped = (
        options.group_window_ms is not None
        and options.suite is None
        and _read_grouped(
            writer,
            suite_id,
            source,
            gz,
            cut,
            names,
            values,
            reader,
            read,
            options.group_window_ms,
            charts=options.group_charts,
            polars_read=(
                None if gz or values["start_ms"] != '"timeStamp"' else (delim, has_header, types)
            ),
            progress=(
                None
                if options.progress is None or path.stat().st_size < PROGRESS_MIN_BYTES
                else partial(options.progress, path)
            ),
        )
    )
    if not grouped:
        read(
            f"""INSERT INTO samples ({", ".join(f'"{c}"' for c in filled)})
                SELECT {", ".join(values[c] for c in filled)} FROM {reader}"""
        )
        _after_rows(writer, path, source, gz, cut)
    if not has_header:
        writer.warn(f"no header line; columns taken as: {','.join(names)}")


def _after_rows(writer: SourceWriter, path: Path, source: Path, gz: bool, cut: int | None) -> None:
    """What the rows of a CSV JTL just stored need: a cut last record dropped, warnings
    of negative and far-off times, sub-result and interrupted transaction rows flagged."""
    con = writer.store.con
    size = source.stat().st_size
    if cut is None and not gz and size and not _ends_with_newline(source):
        # JMeter ends every record with a line end: without one, the last record was cut
        # where it still parses (e.g. inside its last number), so its values are wrong
        last = con.execute(
            "SELECT max(rowid) FROM samples WHERE source_id = ?", [writer.source_id]
        ).fetchone()
        if last is not None and last[0] is not None:
            con.execute("DELETE FROM samples WHERE rowid = ?", [last[0]])
            # the file's last line (a cut record that spans lines is named by its last one)
            last_line = _file_end(source, 1)[1] + 1
            writer.warn(
                f"{path}:{last_line}: last record has no line end (file cut at byte "
                f"{path.stat().st_size}, e.g. JMeter killed); dropped it, every record before "
                "it kept"
            )
    elif cut is not None:
        writer.warn(
            f"{path}:{cut}: last record is incomplete (file cut at byte {path.stat().st_size}, "
            "e.g. JMeter killed); dropped it, every record before it kept"
        )
    # one pass over the file's rows for the labels, transaction labels and negative times
    labels, negative, tc_labels = con.execute(
        "SELECT list(DISTINCT label), count(*) FILTER (elapsed_ms < 0), "
        "list(DISTINCT label) FILTER (is_transaction) FROM samples WHERE source_id = ?",
        [writer.source_id],
    ).fetchone() or (None, 0, None)
    _warn_negative(writer, int(negative or 0))
    warn_out_of_range(writer)
    mark_subresults(writer, {str(label) for label in labels or ()})
    mark_interrupted_transactions(writer, list(tc_labels or ()))


def _warn_negative(writer: SourceWriter, negative: int) -> None:
    """Warn of ``negative`` samples with a negative elapsed time (none: no warning)."""
    if negative:
        writer.warn(
            f"{negative} samples have a negative elapsed time (the load generator's clock "
            "went back?); kept as written, they count as fast in every statistic"
        )


#: the columns of ``samples`` that the sample groups read (pipeline.load.sample_groups_sql)
_GROUPED_COLUMNS = (
    "suite_id", "source_id", "start_ms", "elapsed_ms", "label", "response_code",
    "response_message", "success", "failure_message", "thread_name", "data_type", "bytes",
    "sent_bytes", "grp_threads", "all_threads", "hostname", "is_transaction", "is_subresult",
)  # fmt: skip


def _read_grouped(
    writer: SourceWriter,
    suite_id: int,
    source: Path,
    gz: bool,
    cut: int | None,
    names: list[str],
    values: dict[str, str],
    reader: str,
    read: Callable[..., list[tuple[Any, ...]]],
    window_ms: int,
    *,
    charts: bool = False,
    polars_read: tuple[str, bool, dict[str, str]] | None = None,
    progress: Callable[[float], None] | None = None,
) -> bool:
    """Read a CSV JTL straight into the sample groups of ``warmup load FILE``
    (:func:`toolkit.pipeline.load.sample_groups_sql`, windows of ``window_ms``), storing
    no row: the one-command job at the cost of one aggregating read, not of a store
    (issue 20 item 3). The groups' windows count from the first sample start, which only
    the whole file tells: the least start among its first rows is taken, and the file
    grouped again in the rare file where an earlier start comes later (a long first
    sample). Returns False, with nothing kept, where groups would be about as many as the
    rows (:func:`toolkit.pipeline.load.too_many_groups`, judged on the first rows) or the
    analysis needs the rows themselves: transaction-controller or sub-result rows (flagged by row order), no
    thread counts (active threads from thread names), samples spanning more than a day
    (time fences), a joined suite, or a cut last record; the caller stores them then.
    ``charts``: the groups keep what the report's charts need too (``warmup report
    FILE``: :func:`toolkit.pipeline.load.chart_groups`). ``polars_read``: the file's
    delimiter, header flag and reader column types when Polars may read it first
    (:mod:`toolkit.ingest.jmeter_polars`: uncompressed, epoch-ms start times); DuckDB
    reads it where Polars' reading is not vouched for; ``progress``: the share of it read,
    told by that read."""
    from toolkit.ingest.jmeter_polars import presummed_samples
    from toolkit.pipeline.load import (
        _ENGINE,
        _JMETER_TC,
        _LABEL,
        GROUPED,
        Grouped,
        head_groups_sql,
        sample_groups_sql,
        sample_rows_sql,
        too_many_groups,
    )

    con = writer.store.con
    if (
        cut is not None
        or writer.group is not None
        or not {"allThreads", "grpThreads"} & set(names)
        or (not gz and source.stat().st_size and not _ends_with_newline(source))
        or con.execute(
            "SELECT count(*) FROM suite_sources WHERE suite_id = ?", [suite_id]
        ).fetchall()[0][0]
        != 1
    ):
        return False
    types = writer.store.sample_column_types()
    kept = (*_GROUPED_COLUMNS, "latency_ms", "connect_ms") if charts else _GROUPED_COLUMNS
    columns = ", ".join(f"CAST({values[c]} AS {types[c]}) AS {c}" for c in kept)
    # the other columns kept (thread name, data type) read as they would be stored
    rows = f"""(SELECT * REPLACE ({_LABEL} AS label)
               FROM (SELECT {columns} FROM {reader}))"""
    table = f"_load_groups_{int(suite_id)}"
    # a file without a Hostname column has one load generator, its source: as a literal,
    # not a string built for each row (~6 % of the read's CPU on 10M rows)
    engine = f"'source {int(writer.source_id)}'" if values["hostname"] == "NULL" else _ENGINE
    ((t0, head, head_groups),) = read(head_groups_sql(rows, window_ms), shown=False)
    if too_many_groups(int(head), int(head_groups)):
        return False
    matched = False
    for _ in range(2):
        presummed = (
            None
            if t0 is None or polars_read is None
            else presummed_samples(
                source,
                delimiter=polars_read[0],
                has_header=polars_read[1],
                types=polars_read[2],
                t0=int(t0),
                window_ms=window_ms,
                charts=charts,
                progress=progress,
            )
        )
        if presummed is not None:
            _presummed_groups(con, table, presummed.frame, values, types, engine, charts)
        else:
            read(
                f"CREATE OR REPLACE TEMP TABLE {table} AS "
                + sample_groups_sql(
                    sample_rows_sql(rows, t0, window_ms, _JMETER_TC, charts=charts, engine=engine),
                    charts=charts,
                )
            )
        ((first, kinds, counted, span, negative, labels, read_rows),) = con.execute(
            f"""SELECT min(start_min), bool_or(is_transaction OR is_subresult),
                       bool_or(threads_n > 0),
                       max(greatest(start_max::DOUBLE, end_max::DOUBLE))
                       - min(least(start_min::DOUBLE, end_min::DOUBLE)),
                       coalesce(sum(n) FILTER (elapsed_ms < 0), 0), list(DISTINCT label),
                       coalesce(sum(n), 0)
                FROM {table}"""
        ).fetchall()
        matched = first == t0
        if matched:
            break
        t0 = first  # a sample started before the first rows' starts: group again
    labels = {str(label) for label in labels or ()}
    if (
        not matched  # the file changed between the two reads
        or kinds
        or (first is not None and not counted)
        or float(span or 0) > MIN_FENCE_MS
        or any(label.startswith("ALL") for label in labels)
        or subresult_parents(labels)
    ):
        con.execute(f"DROP TABLE {table}")
        return False
    _warn_negative(writer, int(negative))
    writer.grouped_rows = int(read_rows)
    GROUPED.setdefault(writer.store, {})[suite_id] = Grouped(
        table, None if first is None else int(first), window_ms, charts
    )
    return True


#: the columns of ``samples`` a presummed read keys on (:mod:`toolkit.ingest.jmeter_polars`)
_PRESUMMED_KEYS = (
    "suite_id", "source_id", "elapsed_ms", "label", "response_code", "response_message",
    "success", "failure_message", "hostname", "is_transaction", "is_subresult",
)  # fmt: skip
#: the columns a presummed read sums or counts, as :func:`presummed_rows_sql` reads them
_PRESUMMED_SUMS = (
    "w", "n", "start_min", "start_max", "bytes", "sent_bytes", "threads_sum", "threads_n",
    "thread_names", "data_types",
)  # fmt: skip
_PRESUMMED_CHART_SUMS = ("threads", "latency_sum", "latency_n", "connect_sum", "connect_n")


def _presummed_groups(
    con: duckdb.DuckDBPyConnection,
    table: str,
    frame: pl.DataFrame,
    values: dict[str, str],
    types: dict[str, str],
    engine: str,
    charts: bool,
) -> None:
    """Make the temporary ``table`` of sample groups from Polars' presummed samples
    ``frame``: its raw values turned into the columns of ``samples`` by the reader's own
    SQL ``values`` (of the file's columns), cast to the store's ``types``, then grouped
    as stored rows are (:func:`toolkit.pipeline.load.presummed_rows_sql`)."""
    from toolkit.pipeline.load import _JMETER_TC, _LABEL, presummed_rows_sql, sample_groups_sql

    view = f"{table}_presummed"
    keys = ", ".join(f"CAST({values[c]} AS {types[c]}) AS {c}" for c in _PRESUMMED_KEYS)
    sums = ", ".join(_PRESUMMED_SUMS + (_PRESUMMED_CHART_SUMS if charts else ()))
    rows = f"""(SELECT * REPLACE ({_LABEL} AS label)
               FROM (SELECT {keys}, {sums} FROM {view}))"""
    con.register(view, frame)
    try:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS "
            + sample_groups_sql(
                presummed_rows_sql(rows, _JMETER_TC, charts=charts, engine=engine),
                charts=charts,
                presummed=True,
            )
        )
    finally:
        con.unregister(view)


def warn_out_of_range(writer: SourceWriter) -> None:
    """Warn of the source's rows outside their suite's time fences (a timeStamp of 0, in
    seconds, decades away, or an absurd elapsed time): kept in the store, left out of the
    load analysis (:mod:`toolkit.analyze.time_bounds`)."""
    con = writer.store.con
    if within_a_day(con, writer.source_id):
        return
    row = con.execute(
        f"""SELECT count(*), any_value(s.start_ms), any_value(s.elapsed_ms)
            FROM samples s JOIN {TIME_FENCES} f ON f.suite_id = s.suite_id
            WHERE s.source_id = ? AND NOT {IN_FENCES}""",
        [writer.source_id],
    ).fetchone()
    if row and row[0]:
        writer.warn(
            f"{plural(int(row[0]), 'sample')} start or end far outside the run's time range "
            f"(e.g. start {row[1]} ms, elapsed {row[2]} ms): kept in the store, left out of "
            "every load figure"
        )


def mark_interrupted_transactions(writer: SourceWriter, tc_labels: list[str] | None = None) -> None:
    """Flag the rows a transaction controller writes when the test stops inside it: no
    responseMessage or dataType (so JMeter's "Number of samples in transaction" test
    misses them), under a label whose other rows are transaction-controller rows. Their
    responseCode is empty when no child completed (JMeter 5.6.3's default.csv has 3) and
    the last completed child's code, e.g. ``200``, when one did (JMeter 5.5, "Generate
    parent sample": fixtures/jmeter/recorded/csv-tab.csv). They are a transaction's sum,
    not a sample: counted in ALL they added a sample, and their label read as no
    transaction. ``tc_labels``: the labels with transaction rows, when the caller has them."""
    con = writer.store.con
    if tc_labels is None:
        found = con.execute(
            "SELECT list(DISTINCT label) FILTER (is_transaction) FROM samples WHERE source_id = ?",
            [writer.source_id],
        ).fetchone()
        tc_labels = list(found[0] or []) if found else []
    if not tc_labels:
        return
    con.execute(
        """UPDATE samples SET is_transaction = true
           WHERE source_id = ? AND NOT is_transaction AND list_contains(?, label)
             AND coalesce(response_message, '') = '' AND coalesce(data_type, '') = ''""",
        [writer.source_id, tc_labels],
    )


def subresult_parents(labels: set[str]) -> dict[str, str]:
    """The labels among ``labels`` that name a sub-result by :func:`mark_subresults`'s
    rule (``<label>-<N>``, with ``<label>-0`` … ``<label>-<N-1>`` and ``<label>`` labels
    too), each with its parent's label."""
    parents: dict[str, str] = {}
    for lab in labels:
        found = re.fullmatch(r"(.+)-(0|[1-9]\d*)", lab, flags=re.DOTALL)
        if not found or found.group(1) not in labels:
            continue
        parent, index = found.group(1), int(found.group(2))
        # the siblings are distinct labels: an index past their number cannot have them
        if index <= len(labels) and all(f"{parent}-{i}" in labels for i in range(index)):
            parents[lab] = parent
    return parents


def mark_subresults(writer: SourceWriter, labels: set[str]) -> None:
    """Flag JMeter 5.0+ sub-result rows: named ``<label>-<N>`` where ``<label>`` is another
    label of the same file, and — where the file has times — lying within a ``<label>`` row
    of the same thread that starts at or before it (research/jmeter.md §1.6: CSV has no
    other marker; children follow their parent, same thread, child time ⊂ parent time).
    JMeter numbers a parent's sub-results 0, 1, 2, … (``SampleResult.storeSubResult``
    appends the parent's ``subResultIndex++``, from 0; JMeter 5.5's bytecode), so
    ``<label>-<N>`` is one only when ``<label>-0`` … ``<label>-<N-1>`` are labels of the
    file too. Two samplers named ``Step`` and ``Step-2`` are then both samples, even with
    identical times. ``labels``: the file's distinct labels."""
    con = writer.store.con
    parents = subresult_parents(labels)
    if not parents:
        return
    timed = con.execute(
        "SELECT bool_and(start_ms IS NOT NULL AND elapsed_ms IS NOT NULL) FROM samples "
        "WHERE source_id = ? AND list_contains(?, label)",
        [writer.source_id, [*parents, *parents.values()]],
    ).fetchone()
    if not (timed and timed[0]):
        # no times (JMeter's batch-test files): the name is all there is
        con.execute(
            "UPDATE samples SET is_subresult = true WHERE source_id = ? "
            "AND list_contains(?, label)",
            [writer.source_id, list(parents)],
        )
        return
    # each child row against the last parent row of its thread starting no later (ASOF)
    con.execute(
        """UPDATE samples SET is_subresult = true
           WHERE rowid IN (
               SELECT c.rowid
               FROM (SELECT rowid, label, map_extract(MAP(?::VARCHAR[], ?::VARCHAR[]), label)[1] AS parent,
                            coalesce(thread_name, '') AS thread, start_ms, elapsed_ms
                     FROM samples WHERE source_id = ? AND list_contains(?, label)) c
               ASOF JOIN
                    (SELECT label, coalesce(thread_name, '') AS thread, start_ms, elapsed_ms
                     FROM samples WHERE source_id = ? AND list_contains(?, label)) p
               ON p.label = c.parent AND p.thread = c.thread AND p.start_ms <= c.start_ms
               WHERE c.start_ms + c.elapsed_ms <= p.start_ms + p.elapsed_ms)""",
        [
            list(parents),
            list(parents.values()),
            writer.source_id,
            list(parents),
            writer.source_id,
            sorted(set(parents.values())),
        ],
    )


register(
    Ingester(
        name="jtl-csv",
        description="JMeter CSV result file (.jtl/.csv, with or without header, .gz)",
        sniff=_sniff,
        load=_load,
        priority=60,
    )
)
