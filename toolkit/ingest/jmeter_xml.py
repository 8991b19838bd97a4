"""JMeter XML result files (XML JTL), streamed with expat: memory independent of file size.

Format facts from ``research/jmeter.md`` §2: ``<testResults version="1.2">`` holding
``sample`` and ``httpSample`` elements (nested for sub-results and transaction controllers),
attribute abbreviations ``t it lt ct ts s lb rc|rs rm tn dt de by sby sc ec ng na hn``,
``assertionResult`` children carrying failures, ``<java.net.URL>`` for the URL. JMeter writes
XML-1.1 character references (``&#x0;``) under an XML 1.0 declaration (bug 59973): they are
removed before parsing. A killed JMeter leaves no ``</testResults>``: every complete sample
is kept and a warning says so. DOCTYPE and ENTITY declarations are refused (JMeter never
writes them; they are the vector of entity-expansion attacks).
"""

from __future__ import annotations

import contextlib
import gzip
import operator
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from xml.parsers import expat

import duckdb
import pyarrow as pa

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import GZIP_ERRORS, arrow_table, damaged_gzip, quoted
from toolkit.ingest.jmeter import (
    TC_PREFIX,
    mark_interrupted_transactions,
    suite_name,
    warn_out_of_range,
)
from toolkit.ingest.registry import PROGRESS_MIN_BYTES, Ingester, IngestOptions, register
from toolkit.store import SourceWriter

#: statSample: a StatisticalSampleResult (its sc/ec carry the counts), read like the others
_SAMPLE_TAGS = frozenset({"sample", "httpSample", "statSample"})
#: a character reference (decimal or hex); those naming a character XML 1.0 forbids are
#: removed before parsing, as JMeter writes them under an XML 1.0 declaration (bug 59973)
_CHAR_REF = re.compile(rb"&#(?:x([0-9a-fA-F]+)|([0-9]+));")
#: the unfinished start of a character reference at the end of a chunk
_PARTIAL_REF = re.compile(rb"&(?:#(?:x[0-9a-fA-F]*|[0-9]*))?")
#: longest partial reference carried to the next chunk (real ones are under 12 bytes)
_MAX_CARRY = 1024
_CHUNK = 1 << 20
#: XStream's escapes in attribute names: "_" is written "__" and "$" "_-" (§2.2: variable
#: __jm__TG__idx is written ____jm____TG____idx)
_XSTREAM_ESCAPES = re.compile(r"__|_-")
#: rows per Arrow batch handed to DuckDB (Python holds at most this many parsed rows)
_FLUSH_ROWS = 25_000
#: Longest tag (a sample's attributes) or kept text (a failure message) read, in bytes: a
#: JMeter sample's tag is under a kilobyte, a label kilobytes. expat holds an unfinished
#: tag whole and re-scans it as it grows: a 20 MB attribute took 25 s and 700 MB, a 500 MB
#: one ended in MemoryError after 130 s.
MAX_TAG_BYTES = 4 << 20

_INT_ATTRS = {
    "t": "elapsed_ms",
    "lt": "latency_ms",
    "ct": "connect_ms",
    "it": "idle_ms",
    "by": "bytes",
    "sby": "sent_bytes",
    "ng": "grp_threads",
    "na": "all_threads",
    "sc": "sample_count",
    "ec": "error_count",
}
_STR_ATTRS = {
    "lb": "label",
    "rc": "response_code",
    "rs": "response_code",
    "rm": "response_message",
    "tn": "thread_name",
    "dt": "data_type",
    "hn": "hostname",
    "de": "encoding",
}
#: attributes JMeter URL-encodes in a version-1.0 file (SampleResultConverter: lb rc rm tn
#: dt de, the old rs, and sample variables; numbers and hn are written plain)
_DECODED_ATTRS = frozenset(_STR_ATTRS) - {"hn"}
_COLUMNS = (
    ("start_ms", pa.int64()),
    ("elapsed_ms", pa.int64()),
    ("latency_ms", pa.int64()),
    ("connect_ms", pa.int64()),
    ("idle_ms", pa.int64()),
    ("label", pa.string()),
    ("response_code", pa.string()),
    ("response_message", pa.string()),
    ("success", pa.bool_()),
    ("failure_message", pa.string()),
    ("thread_name", pa.string()),
    ("data_type", pa.string()),
    ("bytes", pa.int64()),
    ("sent_bytes", pa.int64()),
    ("grp_threads", pa.int32()),
    ("all_threads", pa.int32()),
    ("url", pa.string()),
    ("sample_count", pa.int32()),
    ("error_count", pa.int32()),
    ("hostname", pa.string()),
    ("is_transaction", pa.bool_()),
    ("is_subresult", pa.bool_()),
    ("line", pa.int64()),
    ("filename", pa.string()),
    ("encoding", pa.string()),
    ("variables", pa.map_(pa.string(), pa.string())),
)

_TYPES = dict(_COLUMNS)
_NAMES = tuple(name for name, _ in _COLUMNS)
_SCHEMA = pa.schema(_COLUMNS)
#: expat errors that mean the file stopped mid-document (a killed JMeter)
_CUT_AT_END = frozenset(
    expat.ErrorString(expat.errors.codes[error])
    for error in (
        expat.errors.XML_ERROR_NO_ELEMENTS,
        expat.errors.XML_ERROR_UNCLOSED_TOKEN,
        expat.errors.XML_ERROR_PARTIAL_CHAR,
    )
)
#: a sample's row before its attributes are read (every column absent)
_EMPTY_ROW: dict[str, Any] = dict.fromkeys(_NAMES)
#: a row dict's values in column order, in one C call (the parser's hot path)
_ROW_VALUES = operator.itemgetter(*_NAMES)


def _xml10_char(code: int) -> bool:
    """Whether XML 1.0's ``Char`` production admits ``code`` (§2.2 of the XML spec)."""
    if code < 0x20:
        return code in (0x9, 0xA, 0xD)
    return code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF


def _drop_bad_ref(match: re.Match[bytes]) -> bytes:
    hex_digits, dec_digits = match.groups()
    digits = (hex_digits or dec_digits).lstrip(b"0")
    if len(digits) > 8:  # beyond U+10FFFF whatever the digits (and int() stays cheap)
        return b""
    code = int(digits or b"0", 16 if hex_digits is not None else 10)
    return match.group() if _xml10_char(code) else b""


def _strip_bad_refs(data: bytes) -> bytes:
    """``data`` without the character references XML 1.0 forbids (C0 controls other than
    TAB/LF/CR, surrogates, U+FFFE, U+FFFF, beyond U+10FFFF); valid references are kept."""
    if b"&#" not in data:
        return data
    return _CHAR_REF.sub(_drop_bad_ref, data)


def _xstream_unescape(match: re.Match[str]) -> str:
    return "_" if match.group() == "__" else "$"


def _sniff(path: Path, head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text.startswith(b"<") and b"<testResults" in head[:4096]


class _Refused(Exception):
    pass


class _Parser:
    """expat callbacks building one row per sample element."""

    def __init__(self, path: Path, writer: SourceWriter, suite_id: int) -> None:
        self.path = path
        self.writer = writer
        self.suite_id = suite_id
        self.rows: list[tuple[Any, ...]] = []  # pending rows, in _NAMES order
        self.stack: list[dict[str, Any]] = []  # open samples
        # completed samples nested in the open top-level one: stored only when it completes
        # (a killed file drops an unfinished sample with its children); past _FLUSH_ROWS
        # they are handed on anyway, to bound memory, and counted in ``spilled``
        self.pending: list[tuple[Any, ...]] = []
        self.spilled = 0
        self.text_target: str | None = None
        self.text: list[str] = []
        self.text_bytes = 0  # characters in ``text``
        self.assertion: dict[str, str] = {}
        self.decode = False  # URL-decode text attributes (testResults version 1.0)
        self.seen_root = False
        self.complete_top = 0
        self.has_start_hint = False
        self.last_top_ts: int | None = None
        self.inversions = 0

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if not self.seen_root and tag != "testResults":
            raise InputFormatError(
                self.path,
                f"root element is <{tag[:40]}>, not <testResults>: not a JMeter XML JTL",
                line=self.line(),
            )
        if tag == "testResults" and not self.seen_root:
            self.seen_root = True
            # TestResultWrapperConverter: a missing or empty version is "1.0", and only
            # "1.0" is URL-decoded (ConversionHelp.decode; research/jmeter.md §2.4)
            self.decode = (attrs.get("version") or "1.0") == "1.0"
            return
        if tag in _SAMPLE_TAGS:
            row = self._row(attrs)
            message = row["response_message"]
            row["is_transaction"] = tc = bool(message and message.startswith(TC_PREFIX))
            # a Transaction Controller's parent sample holds the samples themselves (CSV
            # writes them as ordinary rows under their own names, research/jmeter.md §1.6);
            # so does one cut by the end of a timed run: rm and dt empty, and rc empty (no
            # child completed, JMeter 5.6.3) or the completed child's code (rc="200",
            # JMeter 5.5: fixtures/jmeter/recorded/xml-allfields.xml.gz). Any other
            # sample's children are its sub-results (embedded resources, redirects:
            # "<label>-<N>").
            row["_holds_samples"] = tc or (attrs.get("dt") == "" and message is None)
            if self.stack:
                parent = self.stack[-1]
                row["is_subresult"] = parent["is_subresult"] or not parent["_holds_samples"]
            else:
                row["is_subresult"] = False
            self.stack.append(row)
            return
        if not self.stack:
            return
        if tag == "assertionResult":
            self.assertion = {}
        elif tag in ("failure", "error", "failureMessage", "java.net.URL", "responseFile"):
            self.text_target = tag
            self.text = []
            self.text_bytes = 0

    def _row(self, attrs: dict[str, str]) -> dict[str, Any]:
        decode = self.decode
        row = dict(_EMPTY_ROW)
        variables: dict[str, str | None] | None = None
        for key, value in attrs.items():
            if decode and key in _DECODED_ATTRS:
                value = urllib.parse.unquote_plus(value)
            if key in _INT_ATTRS:
                try:
                    row[_INT_ATTRS[key]] = int(value)
                except ValueError:
                    raise InputFormatError(
                        self.path,
                        f"attribute {key}={quoted(value)} is not an integer",
                        line=self.line(),
                    ) from None
            elif key in _STR_ATTRS:
                # "" = not recorded; NULL, as the CSV writer's empty field reads
                row[_STR_ATTRS[key]] = value or None
            elif key == "ts":
                try:
                    row["start_ms"] = int(value)
                except ValueError:
                    raise InputFormatError(
                        self.path, f"attribute ts={quoted(value)} is not epoch ms", line=self.line()
                    ) from None
            elif key == "s":
                row["success"] = value.lower() == "true"  # Java's Boolean.parseBoolean
            else:  # a sample variable (jmeter.save.saveservice sample_variables)
                if decode:
                    value = urllib.parse.unquote_plus(value)
                if variables is None:
                    variables = {}
                variables[_XSTREAM_ESCAPES.sub(_xstream_unescape, key)] = value or None
        if variables is not None:
            row["variables"] = list(variables.items())
        if "it" in attrs or "ct" in attrs or "sby" in attrs:
            self.has_start_hint = True
        row["line"] = self.line()
        return row

    def line(self) -> int:
        return int(self.expat.CurrentLineNumber)

    def data(self, text: str) -> None:
        if self.text_target is None:
            return
        if self.text_bytes + len(text) > MAX_TAG_BYTES:
            if self.text_bytes <= MAX_TAG_BYTES:  # once per text
                self.writer.warn(
                    f"line {self.line()}: <{self.text_target}> text cut at "
                    f"{MAX_TAG_BYTES >> 20} Mi characters (the rest is not stored)"
                )
            text = text[: max(MAX_TAG_BYTES - self.text_bytes, 0)]
            self.text_bytes = MAX_TAG_BYTES + 1
        else:
            self.text_bytes += len(text)
        self.text.append(text)

    def end(self, tag: str) -> None:
        if tag in _SAMPLE_TAGS and self.stack:
            self._emit(self.stack.pop())
            return
        if self.text_target == tag and self.stack:
            value = "".join(self.text)
            self.text_target = None
            if tag == "java.net.URL":
                self.stack[-1]["url"] = value
            elif tag == "responseFile":
                self.stack[-1]["filename"] = value or None
            else:
                self.assertion[tag] = value
        elif tag == "assertionResult" and self.stack:
            # JMeter's CSV failureMessage: the first assertion message that is not null
            # (present), failing or not (CSVSaveService); "" is NULL as an empty CSV field
            top = self.stack[-1]
            message = self.assertion.get("failureMessage")
            if message is not None and not top.get("_message_seen"):
                top["_message_seen"] = True
                top["failure_message"] = message or None

    def _emit(self, row: dict[str, Any]) -> None:
        if row["label"] is None:
            row["label"] = ""
        if self.stack:  # nested: stored when its top-level sample completes
            self.pending.append(_ROW_VALUES(row))
            if len(self.pending) >= _FLUSH_ROWS:
                self.rows.extend(self.pending)
                self.spilled += len(self.pending)
                self.pending = []
            return
        self.complete_top += 1
        ts = row["start_ms"]
        if ts is not None:
            if self.last_top_ts is not None and ts < self.last_top_ts:
                self.inversions += 1
            self.last_top_ts = ts
        if self.pending:
            self.rows.extend(self.pending)
            self.pending = []
        self.spilled = 0
        self.rows.append(_ROW_VALUES(row))

    def take_batch(self) -> pa.RecordBatch:
        """The pending rows as one Arrow batch (typed as the store's columns); clears them."""
        columns = dict(zip(_NAMES, zip(*self.rows, strict=True), strict=True))
        self.rows = []
        table = arrow_table(columns, _TYPES, path=self.path, lines=columns["line"])
        return table.combine_chunks().to_batches()[0]

    expat: Any = None


def _refuse(*_: object) -> Any:
    raise _Refused()


def _open(raw: IO[bytes]) -> IO[bytes]:
    """``raw`` itself, or a gzip reader over it (``raw.tell()`` then gives progress)."""
    magic = raw.read(2)
    raw.seek(0)
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    return raw


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    suite_id = writer.suite(
        options.suite or suite_name(path),
        kind="load",
        join=options.suite is not None,
        tags=[t for t in options.tags if "=" not in t],
        attributes=dict(t.split("=", 1) for t in options.tags if "=" in t),
    )
    state = _Parser(path, writer, suite_id)
    parser = expat.ParserCreate(encoding=options.encoding)
    state.expat = parser
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse
    parser.EntityDeclHandler = _refuse
    parser.ExternalEntityRefHandler = _refuse
    parser.StartElementHandler = state.start
    parser.EndElementHandler = state.end
    parser.CharacterDataHandler = state.data
    size = path.stat().st_size
    report = options.progress if size >= PROGRESS_MIN_BYTES else None
    truncated = False

    def batches() -> Iterator[pa.RecordBatch]:
        nonlocal truncated
        carry = b""
        fed = 0  # bytes given to the parser
        with path.open("rb") as raw, _open(raw) as handle:
            while True:
                try:
                    block = handle.read(_CHUNK)
                except GZIP_ERRORS as exc:
                    raise damaged_gzip(path, exc) from None
                final = not block
                data = carry + block
                carry = b""
                if not final:
                    # keep a possibly split character reference for the next round
                    amp = data.rfind(b"&", max(0, len(data) - _MAX_CARRY))
                    if amp != -1 and _PARTIAL_REF.fullmatch(data, amp):
                        data, carry = data[:amp], data[amp:]
                data = _strip_bad_refs(data)
                try:
                    parser.Parse(data, final)
                except LookupError as exc:  # <?xml ... encoding="UTF9"?>
                    raise InputFormatError(
                        path,
                        f"{str(exc)[:80]} in the XML declaration; fix it or pass --encoding",
                        line=int(parser.CurrentLineNumber),
                    ) from None
                except _Refused:
                    raise InputFormatError(
                        path,
                        "DOCTYPE/ENTITY declarations are not allowed in a JTL (JMeter never "
                        "writes them; refused to avoid entity expansion)",
                        line=int(parser.CurrentLineNumber),
                    ) from None
                except expat.ExpatError as exc:
                    code = expat.ErrorString(exc.code)
                    at_end = final and code in _CUT_AT_END
                    if at_end and state.seen_root:
                        truncated = True
                        break
                    if "encoding" in code or ("invalid token" in code and not state.seen_root):
                        raise InputFormatError(
                            path,
                            f"not readable as XML ({code}); if it is not UTF-8 pass --encoding",
                            line=exc.lineno,
                        ) from None
                    raise InputFormatError(
                        path,
                        f"not a well-formed XML JTL: {code} (column {exc.offset})",
                        line=exc.lineno,
                    ) from None
                fed += len(data)
                # CurrentByteIndex: where the parser stands, the start of an unfinished tag
                if fed - parser.CurrentByteIndex > MAX_TAG_BYTES:
                    raise InputFormatError(
                        path,
                        f"a tag longer than {MAX_TAG_BYTES >> 20} MiB (an attribute value of "
                        "megabytes?): not a JMeter sample; fix or cut the file",
                        line=int(parser.CurrentLineNumber),
                    )
                if len(state.rows) >= _FLUSH_ROWS:
                    yield state.take_batch()
                if report is not None:
                    report(path, raw.tell() / size)
                if final:
                    break
        if not state.seen_root:
            raise InputFormatError(path, "no <testResults> element: not a JMeter XML JTL")
        if state.rows:
            yield state.take_batch()

    # One INSERT pulls every batch from the parser: DuckDB then writes full row groups to
    # the file as they come. (An INSERT per batch kept the whole file's rows in the
    # transaction's memory until commit: RSS grew with the file, 1.2 GB at 3.6M samples.)
    failure: list[BaseException] = []

    def recorded() -> Iterator[pa.RecordBatch]:
        try:
            yield from batches()
        except BaseException as exc:
            # DuckDB reports a failing Arrow stream as its own error: keep ours
            failure.append(exc)
            raise

    con = writer.store.con
    con.register("_jtl_xml_rows", pa.RecordBatchReader.from_batches(_SCHEMA, recorded()))
    try:
        names = ", ".join(_NAMES)
        con.execute(
            f"INSERT INTO samples (suite_id, source_id, {names}) "
            f"SELECT {suite_id}, {writer.source_id}, {names} FROM _jtl_xml_rows"
        )
    except Exception:
        if failure:
            raise failure[0] from None
        raise
    finally:
        # after a failed INSERT the transaction is aborted and refuses even this; the
        # caller's rollback drops the registration with it
        with contextlib.suppress(duckdb.TransactionException):
            con.unregister("_jtl_xml_rows")
    if truncated:
        unfinished, nested = len(state.stack), len(state.pending)
        dropped = ""
        if unfinished:
            dropped = f", dropped {unfinished} unfinished (from line {state.stack[0]['line']})"
            if nested:
                dropped += f" and {nested} complete samples nested in them"
            if state.spilled:
                dropped += f"; {state.spilled} samples nested in them were kept (too many to hold)"
        writer.warn(
            f"{path}:{parser.CurrentLineNumber}: file ends without </testResults> (JMeter "
            f"killed?); kept {state.complete_top} complete top-level samples" + dropped
        )
    # pre-2.2 files carry END times and are sorted by them (research/jmeter.md §1.3):
    # without JMeter-3 attributes, a (nearly) sorted file is read as end times, unless
    # --timestamps says which they are
    sorted_end = (
        options.timestamps is None
        and state.complete_top > 1
        and state.last_top_ts is not None
        and not state.has_start_hint
        and state.inversions <= 0.001 * state.complete_top
    )
    if sorted_end or options.timestamps == "end":
        try:
            con.execute(
                "UPDATE samples SET start_ms = start_ms - elapsed_ms "
                "WHERE source_id = ? AND elapsed_ms IS NOT NULL",
                [writer.source_id],
            )
        except duckdb.OutOfRangeException:
            raise InputFormatError(
                path, "ts - t is out of range for epoch milliseconds; fix the file"
            ) from None
        writer.warn(
            "ts read as sample END time (file sorted by ts, no JMeter 3+ attributes; "
            "--timestamps start to read them as start times)"
            if sorted_end
            else "ts read as the sample END time (--timestamps end)"
        )
    warn_out_of_range(writer)
    mark_interrupted_transactions(writer)


register(
    Ingester(
        name="jtl-xml",
        description="JMeter XML result file (<testResults>, .jtl/.xml, .gz)",
        sniff=_sniff,
        load=_load,
        priority=60,
    )
)
