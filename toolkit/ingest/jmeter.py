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

import contextlib
import csv
import gzip
import io
import re
import uuid
import zlib
from pathlib import Path

import duckdb

from toolkit.errors import InputFormatError, UsageError
from toolkit.ingest.registry import Ingester, IngestOptions, register
from toolkit.store import SourceWriter

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

_DELIMITERS = (",", "\t", ";", "|")
_KNOWN = frozenset(JMETER_COLUMNS)
_EPOCH_MS = re.compile(r"^\s*-?\d{9,}\s*$")
_DATE_START = re.compile(r"^\s*\d{1,4}[-/]\d{1,2}[-/]\d{1,4} \d{1,2}:\d\d")


def _decode_head(path: Path, head: bytes, encoding: str | None) -> str:
    try:
        return head.decode(encoding or "utf-8")
    except LookupError:
        raise UsageError(f"unknown --encoding {encoding!r}") from None
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


def _detect_header(text: str, delimiter: str | None) -> tuple[str, list[str]] | None:
    first = _first_line(text)
    for delim in (delimiter,) if delimiter else _DELIMITERS:
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
    text = head.decode("utf-8", "replace")
    if _detect_header(text, None) is not None:
        return True
    # header-less: starts with an epoch-ms or JMeter date timeStamp and a delimiter
    first = _first_line(text)
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


def _data_size(path: Path, gz: bool) -> int:
    if not gz:
        return path.stat().st_size
    size = 0
    decomp = zlib.decompressobj(zlib.MAX_WBITS | 16)
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            size += len(decomp.decompress(block))
    return size


def _layout(
    path: Path, text: str, options: IngestOptions
) -> tuple[str, list[str], bool, list[str] | None]:
    """Return (delimiter, column names, has_header, first data record) of a CSV JTL."""
    if options.delimiter is not None and len(options.delimiter.replace("\\t", "\t")) != 1:
        raise UsageError(f"--delimiter must be one character, got {options.delimiter!r}")
    forced = options.delimiter.replace("\\t", "\t") if options.delimiter else None
    found = _detect_header(text, forced)
    if found is not None:
        delim, names = found
        if options.columns:
            raise UsageError(
                f"{path}: the file has a header; --columns is only for header-less files"
            )
        body = text.split("\n", 1)[1] if "\n" in text else ""
        return delim, names, True, _first_record(body, delim)
    names = list(options.columns or DEFAULT_COLUMNS)
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


def _timestamp_expr(
    names: list[str], record: list[str] | None, options: IngestOptions, writer: SourceWriter
) -> tuple[str, str]:
    """SQL type of the timeStamp column and the expression giving epoch ms."""
    if "timeStamp" not in names:
        return "BIGINT", "NULL"
    value = record[names.index("timeStamp")] if record else ""
    if options.time_format is None and (not value or re.fullmatch(r"\s*-?\d+\s*", value)):
        return "BIGINT", '"timeStamp"'
    formats = (options.time_format,) if options.time_format else JMETER_DATE_FORMATS
    fmt_list = "[" + ", ".join(_sql_str(f) for f in formats) + "]"
    parsed = f'strptime("timeStamp", {fmt_list})'
    zone = options.timezone
    if zone is None:
        writer.warn(
            "timeStamp is a formatted date without a zone (JMeter writes the JVM's local "
            "time); read as UTC — pass --timezone to say otherwise"
        )
        return "VARCHAR", f"epoch_ms({parsed})"
    return "VARCHAR", f"epoch_ms(timezone({_sql_str(zone)}, {parsed}))"


def _col(names: list[str], name: str) -> str:
    return f'"{name}"' if name in names else "NULL"


def _raise_rejects(
    path: Path,
    con: duckdb.DuckDBPyConnection,
    rejects: str,
    gz: bool,
    writer: SourceWriter,
    encoding: str | None,
) -> None:
    """Drop a truncated last record with a warning; any other rejected record is an error."""
    rows = con.execute(
        f"""SELECT line, min(line_byte_position), min(error_type), min(column_name),
                   any_value(csv_line), min(error_message)
            FROM {rejects} GROUP BY line ORDER BY line"""
    ).fetchall()
    if not rows:
        return
    line, _, etype, column, _, message = rows[0]
    last = rows[-1]
    if len(rows) == 1:
        end = int(last[1] or 0) + len(str(last[4] or "").encode("utf-8"))
        size = _data_size(path, gz)
        cut = etype in ("MISSING COLUMNS", "UNQUOTED VALUE", "CAST", "LINE SIZE OVER MAXIMUM")
        if cut and end >= size - 1 and not _ends_with_newline(path, gz):
            writer.warn(
                f"{path}:{line}: last record is incomplete (file cut at byte {size}, e.g. "
                "JMeter killed); dropped it, every record before it kept"
            )
            return
    if etype == "INVALID UNICODE" or "unicode" in str(message).lower():
        raise InputFormatError(
            path,
            f"text is not valid {encoding or 'UTF-8'}; pass --encoding (e.g. --encoding latin-1)",
            line=int(line),
        )
    where = f"column {column!r}: " if column and etype == "CAST" else ""
    detail = " ".join(str(message).split())[:200]
    raise InputFormatError(
        path,
        f"{where}{detail}; not a valid JMeter CSV record (check --delimiter/--columns)",
        line=int(line),
    )


def _ends_with_newline(path: Path, gz: bool) -> bool:
    if gz:
        with gzip.open(path, "rb") as handle:
            last = b""
            while block := handle.read(1 << 20):
                last = block[-1:]
        return last == b"\n"
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - 1))
        return handle.read(1) == b"\n"


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    from toolkit.ingest.detect import read_head

    raw_head = read_head(path)
    gz = path.open("rb").read(2) == b"\x1f\x8b"
    text = _decode_head(path, raw_head, options.encoding)
    if not text.strip():
        raise InputFormatError(path, "file is empty; nothing to ingest")
    delim, names, has_header, record = _layout(path, text, options)
    unknown = [n for n in names if n not in _KNOWN]
    ts_type, start_expr = _timestamp_expr(names, record, options, writer)
    if "elapsed" in names and "timeStamp" in names:
        # JMeter >= 2.2 writes start times (sampleresult.timestamp.start=true, §1.3)
        pass
    types = {n: (_TYPES.get(n, "VARCHAR") if n in _KNOWN else "VARCHAR") for n in names}
    if "timeStamp" in types:
        types["timeStamp"] = ts_type
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
    rejects = f"_jtl_rejects_{uuid.uuid4().hex[:8]}"
    columns_sql = "{" + ", ".join(f"{_sql_str(n)}: {_sql_str(t)}" for n, t in types.items()) + "}"
    encoding = (options.encoding or "utf-8").lower().replace("_", "-")
    if encoding in ("utf8",):
        encoding = "utf-8"
    if encoding in ("latin1", "iso-8859-1", "iso8859-1"):
        encoding = "latin-1"
    if encoding not in ("utf-8", "latin-1", "utf-16"):
        raise UsageError(
            f"--encoding {options.encoding!r}: JTL CSV supports utf-8, latin-1, utf-16"
        )
    label = f"coalesce({_col(names, 'label')}, '')"
    message = _col(names, "responseMessage")
    is_tc = f"coalesce(starts_with({message}, {_sql_str(TC_PREFIX)}), false)"
    reader = (
        f"read_csv({_sql_str(str(path))}, delim={_sql_str(delim)}, quote='\"', escape='\"', "
        f"header={'true' if has_header else 'false'}, columns={columns_sql}, "
        f"auto_detect=false, null_padding=false, ignore_errors=true, store_rejects=true, "
        f"rejects_table={_sql_str(rejects)}, rejects_scan={_sql_str(rejects + '_scan')}, "
        f"compression={_sql_str('gzip' if gz else 'none')}, encoding={_sql_str(encoding)}, "
        "max_line_size=16777216)"
    )
    try:
        con.execute(
            f"""INSERT INTO samples
                SELECT {suite_id}, {writer.source_id}, {start_expr},
                       {_col(names, "elapsed")}, {_col(names, "Latency")},
                       {_col(names, "Connect")}, {_col(names, "IdleTime")}, {label},
                       {_col(names, "responseCode")}, {message}, {_col(names, "success")},
                       {_col(names, "failureMessage")}, {_col(names, "threadName")},
                       {_col(names, "dataType")}, {_col(names, "bytes")},
                       {_col(names, "sentBytes")}, {_col(names, "grpThreads")},
                       {_col(names, "allThreads")}, {_col(names, "URL")},
                       {_col(names, "SampleCount")}, {_col(names, "ErrorCount")},
                       {_col(names, "Hostname")}, {is_tc}, false, NULL
                FROM {reader}"""
        )
        _raise_rejects(path, con, rejects, gz, writer, options.encoding)
    except duckdb.InvalidInputException as exc:
        first = " ".join(str(exc).split())[:240]
        if "unicode" in first.lower():
            raise InputFormatError(
                path, "text is not valid UTF-8; pass --encoding (e.g. --encoding latin-1)"
            ) from None
        raise InputFormatError(path, f"cannot read as a JMeter CSV JTL: {first}") from None
    except duckdb.ConversionException as exc:
        first = " ".join(str(exc).split())[:240]
        raise InputFormatError(
            path, f"timeStamp: {first}; pass --time-format (strptime, e.g. %Y/%m/%d %H:%M:%S.%g)"
        ) from None
    finally:
        with contextlib.suppress(duckdb.Error):
            con.execute(f"DROP TABLE IF EXISTS {rejects}")
            con.execute(f"DROP TABLE IF EXISTS {rejects}_scan")
    mark_subresults(writer)
    if unknown:
        writer.warn(f"sample-variable columns not stored: {', '.join(unknown)}")
    if not has_header:
        writer.warn(f"no header line; columns taken as: {','.join(names)}")


def mark_subresults(writer: SourceWriter) -> None:
    """Flag rows named ``<label>-<N>`` where ``<label>`` is another label of the same file:
    JMeter 5.0+ sub-result naming (research/jmeter.md §1.6; CSV carries no other marker)."""
    con = writer.store.con
    labels = {
        str(r[0])
        for r in con.execute(
            "SELECT DISTINCT label FROM samples WHERE source_id = ?", [writer.source_id]
        ).fetchall()
    }
    children = [
        lab
        for lab in labels
        if (m := re.fullmatch(r"(.+)-\d+", lab, flags=re.DOTALL)) and m.group(1) in labels
    ]
    if children:
        con.execute(
            "UPDATE samples SET is_subresult = true WHERE source_id = ? AND list_contains(?, label)",
            [writer.source_id, children],
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
