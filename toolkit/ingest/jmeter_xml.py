"""JMeter XML result files (XML JTL), streamed with expat: memory independent of file size.

Format facts from ``research/jmeter.md`` §2: ``<testResults version="1.2">`` holding
``sample`` and ``httpSample`` elements (nested for sub-results and transaction controllers),
attribute abbreviations ``t it lt ct ts s lb rc|rs rm tn dt de by sby sc ec ng na hn``,
``assertionResult`` children carrying failures, ``<java.net.URL>`` for the URL. JMeter writes
XML-1.1 character references (``&#x0;``) under an XML 1.0 declaration (bug 59973): they are
removed before parsing. A killed JMeter leaves no ``</testResults>``: every complete sample
is kept and a warning says so. DOCTYPE and ENTITY declarations are refused (JMeter never
writes them; they are the vector of entity-expansion attacks). A large plain file is read
in two parts at once, the second by a child process (:func:`_two_part_batches`): the parse
is Python callbacks on one core, and the store holds the same rows either way.
"""

from __future__ import annotations

import contextlib
import gc
import gzip
import json
import operator
import os
import re
import subprocess
import sys
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import IO, Any
from xml.parsers import expat

import numpy as np
import pyarrow as pa

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import GZIP_ERRORS, arrow_table, damaged_gzip, quoted
from toolkit.ingest.jmeter import (
    EPOCH_SECONDS_MAX,
    EPOCH_SECONDS_MIN,
    TC_PREFIX,
    epoch_seconds_error,
    mark_interrupted_transactions,
    suite_name,
    warn_out_of_range,
)
from toolkit.ingest.registry import (
    PROGRESS_MIN_BYTES,
    Ingester,
    IngestOptions,
    ReadAgain,
    register,
)
from toolkit.native import duckdb
from toolkit.store import SourceWriter
from toolkit.store.scratch import scratch_folder

#: statSample: a StatisticalSampleResult (its sc/ec carry the counts), read like the others
_SAMPLE_TAGS = frozenset({"sample", "httpSample", "statSample"})
#: elements inside a sample whose text is read
_TEXT_TAGS = frozenset({"failure", "error", "failureMessage", "java.net.URL", "responseFile"})
#: the texts of a sample that fill a JMeter CSV column, by that column
_COLUMN_TEXTS = {"URL": "java.net.URL", "Filename": "responseFile"}


def _text_tags(sample_columns: frozenset[str] | None) -> frozenset[str]:
    """The elements whose text is read: all of :data:`_TEXT_TAGS`, less the URL and the
    response file when a scratch store keeps only ``sample_columns`` without them
    (``warmup load FILE``: expat then skips their text, 8 % of the CPU of a 1M-sample
    file, benchmarks/RESULTS.md)."""
    if sample_columns is None:
        return _TEXT_TAGS
    return _TEXT_TAGS - {
        tag for column, tag in _COLUMN_TEXTS.items() if column not in sample_columns
    }


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


#: the attribute-borne columns, in the order of a sample's value tuple: integers first
_INT_COLUMNS = (
    "start_ms",
    "elapsed_ms",
    "latency_ms",
    "connect_ms",
    "idle_ms",
    "bytes",
    "sent_bytes",
    "grp_threads",
    "all_threads",
    "sample_count",
    "error_count",
)
_TEXT_COLUMNS = (
    "label",
    "response_code",
    "response_message",
    "thread_name",
    "data_type",
    "hostname",
    "encoding",
)
_VALUE_COLUMNS = (*_INT_COLUMNS, *_TEXT_COLUMNS, "success")
_VALUE_AT = {name: at for at, name in enumerate(_VALUE_COLUMNS)}
#: a batch's attribute values as Arrow reads them: one string field per value column
_VALUES_TYPE = pa.struct([(name, pa.string()) for name in _VALUE_COLUMNS])
#: attribute name -> its column (rc and rs both name the response code)
_ATTR_COLUMN = {"ts": "start_ms", **_INT_ATTRS, **_STR_ATTRS, "s": "success"}
#: attribute of each integer column, for the error message
_INT_ATTR = {column: key for key, column in _ATTR_COLUMN.items() if column in _INT_COLUMNS}
_DECODED_COLUMNS = frozenset(_STR_ATTRS[key] for key in _DECODED_ATTRS)
_MESSAGE_AT = _VALUE_AT["response_message"]
_TYPE_AT = _VALUE_AT["data_type"]
#: a record, one per sample element: [values, line, top, is_subresult, variables,
#: holds_samples, plan, url, filename, failure_message, failure_message_seen]; a list, not
#: an object or a dict, as it is made per sample (the hot path)
(
    _VALUES,
    _LINE,
    _TOP,
    _SUB,
    _VARIABLES,
    _HOLDS,
    _PLAN,
    _URL,
    _FILENAME,
    _FAILURE_MESSAGE,
    _MESSAGE_SEEN,
) = range(11)


class _Plan:
    """How one sequence of attribute names (the same for every sample of most files) maps
    onto the value columns: picking the values is then one C call per sample."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys
        # positions in expat's [name, value, ...] list; -1: the None appended to it
        at = dict.fromkeys(_VALUE_COLUMNS, -1)
        variables: list[tuple[int, str]] = []
        for index, key in enumerate(keys):
            column = _ATTR_COLUMN.get(key)
            if column is None:  # a sample variable (jmeter.save.saveservice sample_variables)
                variables.append((2 * index + 1, _XSTREAM_ESCAPES.sub(_xstream_unescape, key)))
            else:
                at[column] = 2 * index + 1  # the last of rc/rs wins, as a dict of them did
        self.pick = operator.itemgetter(*(at[column] for column in _VALUE_COLUMNS))
        #: where each value column's value stands in the list (the columns it has)
        self.positions = {column: place for column, place in at.items() if place >= 0}
        self.variables = tuple(variables)
        self.start_hint = bool({"it", "ct", "sby"} & set(keys))


class _Parser:
    """expat callbacks keeping one record per sample element (its attribute values as
    expat gives them) and turning each batch of records into Arrow columns at once."""

    def __init__(
        self, path: Path, writer: SourceWriter, text_tags: frozenset[str] = _TEXT_TAGS
    ) -> None:
        self.path = path
        self.writer = writer  # for warnings (a text cut at MAX_TAG_BYTES)
        self.text_tags = text_tags  # the elements whose text is read (:func:`_text_tags`)
        self.rows: list[list[Any]] = []  # completed records, in storage order
        self.stack: list[list[Any]] = []  # open samples
        # completed samples nested in the open top-level one: stored only when it completes
        # (a killed file drops an unfinished sample with its children); past _FLUSH_ROWS
        # they are handed on anyway, to bound memory, and counted in ``spilled``
        self.pending: list[list[Any]] = []
        self.spilled = 0
        self.text_target: str | None = None
        self.text: list[str] = []
        self.text_bytes = 0  # characters in ``text``
        self.assertion: dict[str, str] = {}
        self.decode = False  # URL-decode text attributes (testResults version 1.0)
        self.seen_root = False
        self.complete_top = 0
        self.has_start_hint = False
        self.first_top_ts: int | None = None
        self.last_top_ts: int | None = None
        self.truncated = False  # the file ended without </testResults>
        self.cut: _Cut | None = None  # what a two-part read's second part found there
        self.inversions = 0
        self.plans: dict[tuple[str, ...], _Plan] = {}
        self.plan = _Plan([])
        self.keys: list[str] = []

    def start(self, tag: str, attrs: list[Any]) -> None:
        if tag not in _SAMPLE_TAGS or not self.seen_root:
            if tag in self.text_tags and self.stack:
                self.text_target = tag
                self.text = []
                self.text_bytes = 0
                # text is wanted only here: elsewhere expat skips the callback (the blank
                # lines between samples cost a call each)
                self.expat.CharacterDataHandler = self.data
            else:
                self._start_other(tag, attrs)
            return
        # the hot path: attrs is [name, value, name, value, ...] (ordered_attributes)
        keys = attrs[::2]
        if keys != self.keys:
            self._choose_plan(keys)
        plan = self.plan
        attrs.append(None)  # what the plan picks for a column without its attribute
        stack = self.stack
        if stack:
            parent = stack[-1]
            holds = parent[_HOLDS]
            if holds is None:
                holds = parent[_HOLDS] = self._holds_samples(parent[_VALUES])
            sub = parent[_SUB] or not holds
        else:
            sub = False
        stack.append(
            [
                plan.pick(attrs),
                self.expat.CurrentLineNumber,
                not stack,
                sub,
                self._variables(plan, attrs) if plan.variables else None,
                None,
                plan,
                None,
                None,
                None,
                False,
            ]
        )

    def _choose_plan(self, keys: list[str]) -> None:
        self.keys = keys
        plan = self.plans.get(tuple(keys))
        if plan is None:
            plan = self.plans[tuple(keys)] = _Plan(keys)
        self.plan = plan
        self.has_start_hint = self.has_start_hint or plan.start_hint

    def _variables(self, plan: _Plan, attrs: list[str]) -> list[tuple[str, str | None]]:
        variables: dict[str, str | None] = {}
        for at, name in plan.variables:
            value = attrs[at]
            if self.decode:
                value = urllib.parse.unquote_plus(value)
            variables[name] = value or None
        return list(variables.items())

    def _holds_samples(self, values: tuple[Any, ...]) -> bool:
        """Whether a sample's children are samples in their own right, not sub-results."""
        message = values[_MESSAGE_AT]
        if message and self.decode:
            message = urllib.parse.unquote_plus(message)
        # a Transaction Controller's parent sample holds the samples themselves (CSV
        # writes them as ordinary rows under their own names, research/jmeter.md §1.6);
        # so does one cut by the end of a timed run: rm and dt empty, and rc empty (no
        # child completed, JMeter 5.6.3) or the completed child's code (rc="200",
        # JMeter 5.5: fixtures/jmeter/recorded/xml-allfields.xml.gz). Any other
        # sample's children are its sub-results (embedded resources, redirects:
        # "<label>-<N>").
        if message:
            return bool(message.startswith(TC_PREFIX))
        return bool(values[_TYPE_AT] == "")

    def _start_other(self, tag: str, attrs: list[str]) -> None:
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
            version = dict(zip(attrs[::2], attrs[1::2], strict=True)).get("version")
            self.decode = (version or "1.0") == "1.0"
            return
        if not self.stack:
            return
        if tag == "assertionResult":
            self.assertion = {}

    def line(self) -> int:
        return int(self.expat.CurrentLineNumber)

    def data(self, text: str) -> None:
        """Text of the element being read, kept up to :data:`MAX_TAG_BYTES` characters."""
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
        stack = self.stack
        if tag in _SAMPLE_TAGS and stack:
            record = stack.pop()
            if stack:  # nested: stored when its top-level sample completes
                self.pending.append(record)
                if len(self.pending) >= _FLUSH_ROWS:
                    self.rows.extend(self.pending)
                    self.spilled += len(self.pending)
                    self.pending = []
                return
            self.complete_top += 1
            if self.pending:
                self.rows.extend(self.pending)
                self.pending = []
            self.spilled = 0
            self.rows.append(record)
            return
        if self.text_target == tag and stack:
            self.expat.CharacterDataHandler = None
            value = "".join(self.text)
            self.text_target = None
            if tag == "java.net.URL":
                stack[-1][_URL] = value
            elif tag == "responseFile":
                stack[-1][_FILENAME] = value or None
            else:
                self.assertion[tag] = value
        elif tag == "assertionResult" and stack:
            # JMeter's CSV failureMessage: the first assertion message that is not null
            # (present), failing or not (CSVSaveService); "" is NULL as an empty CSV field
            top = stack[-1]
            message = self.assertion.get("failureMessage")
            if message is not None and not top[_MESSAGE_SEEN]:
                top[_MESSAGE_SEEN] = True
                top[_FAILURE_MESSAGE] = message or None

    def check_integers(self, records: list[list[Any]]) -> list[list[int | None]]:
        """The integer columns of ``records`` read by Python's ``int()``, or the error
        naming the first attribute (in file order) that is not an integer."""
        for record in sorted(records, key=operator.itemgetter(_LINE)):
            values, plan = record[_VALUES], record[_PLAN]
            for key in plan.keys:
                column = _ATTR_COLUMN.get(key)
                if column not in _INT_ATTR:
                    continue
                value = values[_VALUE_AT[column]]
                try:
                    int(value)
                except ValueError:
                    what = "epoch ms" if key == "ts" else "an integer"
                    raise InputFormatError(
                        self.path,
                        f"attribute {key}={quoted(value)} is not {what}",
                        line=record[_LINE],
                    ) from None
        return [
            [None if (v := r[_VALUES][at]) is None else int(v) for r in records]
            for at in range(len(_INT_COLUMNS))
        ]

    def take_batch(self) -> pa.RecordBatch:
        """The pending rows as one Arrow batch (typed as the store's columns); clears them.

        Strings become integers, booleans and NULLs here, column by column in Arrow
        (vectorised), not per attribute in Python."""
        records, self.rows = self.rows, []
        fields = list(zip(*records, strict=True))  # the records' fields as columns
        # the attribute values (a tuple per record) into Arrow in one pass: a string
        # column per attribute, not transposed in Python first
        return self.typed_batch(
            pa.array(fields[_VALUES], _VALUES_TYPE),
            lines=fields[_LINE],
            top=fields[_TOP],
            texts={
                "url": pa.array(fields[_URL], pa.string()),
                "filename": pa.array(fields[_FILENAME], pa.string()),
                "failure_message": pa.array(fields[_FAILURE_MESSAGE], pa.string()),
            },
            is_subresult=pa.array(fields[_SUB], pa.bool_()),
            variables=pa.array(fields[_VARIABLES], _TYPES["variables"]),
            exact_ints=lambda: self.check_integers(records),
        )

    def typed_batch(
        self,
        values: pa.StructArray,
        *,
        lines: Sequence[int],
        top: Sequence[bool],
        texts: dict[str, pa.Array],
        is_subresult: pa.Array,
        variables: pa.Array,
        exact_ints: Callable[[], list[list[int | None]]],
    ) -> pa.RecordBatch:
        """One batch typed as the store's columns from a batch's attribute values (a
        string field per value column, as the file gives them), its texts (``url``,
        ``filename``, ``failure_message``) and the fields of its rows; ``exact_ints``
        reads the integer columns by ``int()`` where Arrow's cast cannot (or raises the
        error naming the attribute). Counts the top-level ``ts`` inversions."""
        import pyarrow.compute as pc

        columns: dict[str, pa.Array] = {}
        raw_ints = [values.field(at) for at in range(len(_INT_COLUMNS))]
        # Arrow's string -> integer cast reads what Python's int() reads, the same, except
        # hexadecimal "0x1F" (int() refuses it); " 5", "+5", "1_0" (int() reads them) and
        # every error take the exact path, int() per value
        if not any(pc.any(pc.starts_with(raw, "0x", ignore_case=True)).as_py() for raw in raw_ints):
            try:
                for name, raw in zip(_INT_COLUMNS, raw_ints, strict=True):
                    columns[name] = pc.cast(raw, _TYPES[name])
            except pa.ArrowInvalid:  # beyond the column's width: the exact path says where
                columns = {}
        if not columns:
            ints = exact_ints()
            exact = arrow_table(
                dict(zip(_INT_COLUMNS, ints, strict=True)), _TYPES, path=self.path, lines=lines
            )
            columns = {name: exact.column(name).combine_chunks() for name in _INT_COLUMNS}
        for name in _TEXT_COLUMNS:
            text = values.field(_VALUE_AT[name])
            if self.decode and name in _DECODED_COLUMNS:
                decoded = [
                    None if v is None else urllib.parse.unquote_plus(v) for v in text.to_pylist()
                ]
                text = pa.array(decoded, pa.string())
            # "" = not recorded; NULL, as the CSV writer's empty field reads
            columns[name] = pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.string()), text)
        columns["label"] = pc.fill_null(columns["label"], "")
        columns["is_transaction"] = pc.fill_null(
            pc.starts_with(columns["response_message"], TC_PREFIX), False
        )
        # Java's Boolean.parseBoolean: "true" in any case
        columns["success"] = pc.equal(pc.utf8_lower(values.field(_VALUE_AT["success"])), "true")
        columns.update(texts)
        columns["is_subresult"] = is_subresult
        columns["line"] = pa.array(lines, pa.int64())
        columns["variables"] = variables
        if self.first_top_ts is None:
            self._check_first_stamp(columns["start_ms"], top, lines)
        self._count_inversions(columns["start_ms"], top)
        return pa.RecordBatch.from_arrays([columns[name] for name in _NAMES], schema=_SCHEMA)

    def _check_first_stamp(
        self, start_ms: pa.Array, top: Sequence[bool], lines: Sequence[int]
    ) -> None:
        """Refuse a file whose first top-level ts is epoch seconds (as the CSV reader)."""
        for at, is_top in enumerate(top):
            if is_top and (value := start_ms[at].as_py()) is not None:
                if EPOCH_SECONDS_MIN <= value < EPOCH_SECONDS_MAX:
                    raise epoch_seconds_error(self.path, value, line=lines[at], name="ts")
                return

    def _count_inversions(self, start_ms: pa.Array, top: Sequence[bool]) -> None:
        """Count top-level samples whose ts is below the previous top-level one's."""
        import pyarrow.compute as pc

        stamps = pc.drop_null(pc.filter(start_ms, pa.array(top, pa.bool_()))).to_numpy()
        if not len(stamps):
            return
        if self.first_top_ts is None:
            self.first_top_ts = int(stamps[0])
        if self.last_top_ts is not None:
            self.inversions += int(stamps[0] < self.last_top_ts)
        self.inversions += int(np.count_nonzero(stamps[1:] < stamps[:-1]))
        self.last_top_ts = int(stamps[-1])

    expat: Any = None


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block, as it was before after it.

    The parser allocates a few lists per sample and keeps up to a batch of them: the
    collector's passes over them cost a quarter of the parse (0.6 s of 2.6 s CPU for
    240,000 samples, cProfile) and find nothing, as the parser makes no cycles."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _refuse(*_: object) -> Any:
    raise _Refused()


def _open(raw: IO[bytes]) -> IO[bytes]:
    """``raw`` itself, or a gzip reader over it (``raw.tell()`` then gives progress)."""
    magic = raw.read(2)
    raw.seek(0)
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    return raw


@dataclass(frozen=True)
class _Cut:
    """Where a file cut by a killed JMeter ends (``end_line``) and what its end drops:
    ``unfinished`` samples still open (the first from ``first_line``), ``nested``
    complete samples inside them, ``spilled`` of those kept as too many to hold."""

    end_line: int
    unfinished: int
    first_line: int | None
    nested: int
    spilled: int


def _cut_of(state: _Parser, parser: Any) -> _Cut:
    """The :class:`_Cut` of a parse that ended without ``</testResults>``."""
    return _Cut(
        end_line=int(parser.CurrentLineNumber),
        unfinished=len(state.stack),
        first_line=state.stack[0][_LINE] if state.stack else None,
        nested=len(state.pending),
        spilled=state.spilled,
    )


def guarded_parser(encoding: str | None) -> Any:
    """An expat parser refusing DOCTYPE and ENTITY declarations (:class:`_Refused`)."""
    parser = expat.ParserCreate(encoding=encoding)
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse
    parser.EntityDeclHandler = _refuse
    parser.ExternalEntityRefHandler = _refuse
    return parser


def expat_ready(carry: bytes, block: bytes) -> tuple[bytes, bytes]:
    """What expat is given of ``carry + block`` (the file's next bytes; ``block`` empty at
    its end): those bytes less a character reference their end may cut, with the XML 1.1
    references JMeter writes removed (:func:`_strip_bad_refs`, which must see each
    reference whole); and the cut part, carried to the next block."""
    data, carry = carry + block, b""
    if block:
        amp = data.rfind(b"&", max(0, len(data) - _MAX_CARRY))
        if amp != -1 and _PARTIAL_REF.fullmatch(data, amp):
            data, carry = data[:amp], data[amp:]
    return _strip_bad_refs(data), carry


def _new_parser(path: Path, writer: Any, options: IngestOptions) -> tuple[_Parser, Any]:
    """A :class:`_Parser` and the expat parser feeding it (DOCTYPE and ENTITY refused)."""
    state = _Parser(path, writer, _text_tags(options.sample_columns))
    parser = guarded_parser(options.encoding)
    state.expat = parser
    parser.buffer_text = True
    parser.ordered_attributes = True
    parser.StartElementHandler = state.start
    parser.EndElementHandler = state.end
    return state, parser


def _file_blocks(handle: IO[bytes], path: Path, limit: int | None = None) -> Iterator[bytes]:
    """``handle``'s bytes in blocks of up to :data:`_CHUNK` (at most ``limit`` in all),
    then one empty block."""
    left = limit
    while left is None or left > 0:
        try:
            block = handle.read(_CHUNK if left is None else min(_CHUNK, left))
        except GZIP_ERRORS as exc:
            raise damaged_gzip(path, exc) from None
        if not block:
            break
        if left is not None:
            left -= len(block)
        yield block
    yield b""


def _parsed_batches(
    state: _Parser,
    parser: Any,
    blocks: Iterator[bytes],
    path: Path,
    progress: Callable[[], None] | None = None,
) -> Iterator[pa.RecordBatch]:
    """Feed ``blocks`` (the document's bytes in order, the last one empty) to ``parser``;
    yield ``state``'s samples as Arrow batches. A document cut at its end (a killed
    JMeter) sets ``state.truncated``; any other fault is one :class:`InputFormatError`."""
    carry = b""
    fed = 0  # bytes given to the parser
    for block in blocks:
        final = not block
        data, carry = expat_ready(carry, block)
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
            # a bad integer before the XML error is reported first, as it was read
            # first (integers are converted per batch, not as samples start)
            state.check_integers(state.rows + state.pending + state.stack)
            code = expat.ErrorString(exc.code)
            at_end = final and code in _CUT_AT_END
            if at_end and state.seen_root:
                state.truncated = True
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
        if progress is not None:
            progress()
        if final:
            break
    if not state.seen_root:
        raise InputFormatError(path, "no <testResults> element: not a JMeter XML JTL")
    if state.rows:
        yield state.take_batch()


#: IngestOptions.extra key of a file read again in one part (its two-part read failed)
_SERIAL = "jtl_xml_one_part"
#: IngestOptions.extra key of a file read by expat's callbacks, not in columns (its
#: columnar read found a shape it does not follow)
_EXPAT_ONLY = "jtl_xml_expat"
#: IngestOptions.extra key of a file read in columns with expat checking its bytes (the
#: columnar read alone does not hold all its lines to the XML rules)
_CHECKED = "jtl_xml_checked"


def _columnar(path: Path, options: IngestOptions) -> bool:
    """Whether ``path`` is read a block of lines at a time in columns
    (:mod:`toolkit.ingest.jmeter_xml_lines`): UTF-8, of
    :data:`~toolkit.ingest.jmeter_xml_lines.COLUMNAR_MIN_BYTES` or more, and, if plain,
    ending in ``</testResults>`` (a killed JMeter's file is read by expat's callbacks,
    which say what its end drops; a gzip file's end is found only by reading it all)."""
    from toolkit.ingest.jmeter_xml_lines import COLUMNAR_MIN_BYTES

    size = path.stat().st_size
    if size < COLUMNAR_MIN_BYTES:
        return False
    with path.open("rb") as handle:
        head = handle.read(1 << 12)
        if head[:2] != b"\x1f\x8b":
            handle.seek(max(0, size - 256))
            ends = handle.read().rstrip().endswith(b"</testResults>")
            return ends and _read_as_utf8(options, head)
    try:
        with gzip.open(path, "rb") as unpacked:
            head = unpacked.read(1 << 12)
    except GZIP_ERRORS:
        return False
    return _read_as_utf8(options, head)


#: the encoding an XML declaration names
_DECLARED = re.compile(rb"<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)")


def _read_as_utf8(options: IngestOptions, head: bytes) -> bool:
    """Whether a file whose first bytes are ``head`` is read as UTF-8: no ``--encoding``
    naming another, no UTF-16 byte order mark, no other encoding declared."""
    if options.encoding not in (None, "utf-8", "UTF-8", "utf8"):
        return False
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return False
    declared = _DECLARED.search(head)
    return declared is None or declared.group(1).lower() in (b"utf-8", b"utf8")


#: A plain XML JTL from this size on is read in two parts at once, the second by a child
#: process (the parse is single-threaded Python: 10 s of CPU per 1M samples)
TWO_PART_MIN_BYTES = 64 << 20
#: a line that starts a top-level sample (JMeter indents nested elements)
_TOP_SAMPLE = re.compile(rb"\n<(?:httpSample|sample|statSample)[ \t\r\n/>]")
#: how far past the middle a top-level sample start is looked for
_SPLIT_SEARCH = 16 << 20


@dataclass(frozen=True)
class _Split:
    """Where the second part of a two-part read starts: ``offset`` (a byte, the ``<``
    of a top-level sample at the start of a line), and the document's ``head`` (its bytes
    up to the end of the ``<testResults>`` start tag), given to the second part's parser
    ahead of it."""

    offset: int
    head: bytes


def _second_part(path: Path, options: IngestOptions) -> _Split | None:
    """Where a plain UTF-8 XML JTL of :data:`TWO_PART_MIN_BYTES` or more splits into
    two parts read at once (a top-level sample starting a line past the middle), or None
    to read it in one part: a gzip file, another encoding, a DOCTYPE before the root, one
    core, or no such line. A split that turns out not to be between top-level samples
    (inside a comment, a CDATA section, a nested sample at column 0) makes one part
    ill-formed: the file is then read again in one part (:func:`_two_part_batches`)."""
    # the cores this process may run on (sched_getaffinity is Linux's; cpu_count elsewhere)
    affinity = getattr(os, "sched_getaffinity", None)
    if (len(affinity(0)) if affinity is not None else os.cpu_count() or 1) < 2:
        return None
    size = path.stat().st_size
    if size < TWO_PART_MIN_BYTES:
        return None
    with path.open("rb") as handle:
        head = handle.read(1 << 16)
        if head[:2] == b"\x1f\x8b":
            return None
        root = head.find(b"<testResults")
        end = head.find(b">", root)
        if root == -1 or end == -1 or b"<!DOCTYPE" in head[:root] or head[end - 1 : end] == b"/":
            return None
        if not _read_as_utf8(options, head[:root]):
            return None
        handle.seek(size // 2)
        window = handle.read(_SPLIT_SEARCH)
        found = _TOP_SAMPLE.search(window)
        if found is None:
            return None
    return _Split(size // 2 + found.start() + 1, head[: end + 1])


class _LineBreaks:
    """Line breaks counted block by block as expat counts them (its line numbers): LF,
    CR LF and a lone CR each one, also where a block ends between CR and LF."""

    def __init__(self) -> None:
        self.count = 0
        self.after_cr = False

    def add(self, block: bytes) -> bytes:
        """Count ``block``'s line breaks; ``block`` itself."""
        if block:
            self.count += block.count(b"\n") + block.count(b"\r") - block.count(b"\r\n")
            if self.after_cr and block[:1] == b"\n":
                self.count -= 1  # a CR LF split between two blocks
            self.after_cr = block[-1:] == b"\r"
        return block


def _line_breaks(blocks: Iterator[bytes]) -> int:
    """The line breaks in ``blocks`` (:class:`_LineBreaks`)."""
    breaks = _LineBreaks()
    for block in blocks:
        breaks.add(block)
    return breaks.count


def _second_part_command(path: Path, split: _Split, options: IngestOptions, out: Path) -> list[str]:
    """The child process reading ``split``'s second part into the Arrow stream ``out``."""
    arguments = {
        "path": str(path),
        "offset": split.offset,
        "head": split.head.decode("utf-8", "surrogateescape"),
        "encoding": options.encoding,
        "sample_columns": None
        if options.sample_columns is None
        else sorted(options.sample_columns),
        "out": str(out),
    }
    code = "from toolkit.ingest.jmeter_xml import _read_second_part as r; r()"
    return [sys.executable, "-c", code, json.dumps(arguments)]


class _NoWarnings:
    """The second part's writer: a warning (a text cut at MAX_TAG_BYTES) makes the file
    be read again in one part, where it is said once, as before."""

    def warn(self, message: str) -> None:
        raise _OnePart(message)


class _OnePart(Exception):
    pass


def _read_second_part() -> None:
    """Child process of a two-part read: parse the document's head and the bytes from
    the split on, write the samples as an Arrow stream (``line`` numbered from the head's
    first line: the reader shifts it), print the counts the first part needs to judge the
    whole file; exit 3 when the part cannot be read as it is (the file is then read
    again in one part)."""
    arguments = json.loads(sys.argv[1])
    path = Path(arguments["path"])
    head = str(arguments["head"]).encode("utf-8", "surrogateescape")
    columns = arguments["sample_columns"]
    options = IngestOptions(
        encoding=arguments["encoding"],
        sample_columns=None if columns is None else frozenset(columns),
    )
    state, parser = _new_parser(path, _NoWarnings(), options)
    parent = os.getppid()

    def blocks() -> Iterator[bytes]:
        yield head + b"\n"
        with path.open("rb") as handle:
            handle.seek(int(arguments["offset"]))
            for block in _file_blocks(handle, path):
                if os.getppid() != parent:  # the reading process was killed: stop too
                    sys.exit(3)
                yield block

    try:
        with (
            _gc_paused(),
            pa.OSFile(arguments["out"], "wb") as sink,
            # LZ4: a quarter of the bytes on disk (55 bytes a sample), less CPU than plain
            pa.ipc.new_stream(
                sink, _SCHEMA, options=pa.ipc.IpcWriteOptions(compression="lz4")
            ) as stream,
        ):
            for batch in _parsed_batches(state, parser, blocks(), path):
                stream.write_batch(batch)
    except (InputFormatError, _OnePart):
        sys.exit(3)
    counts = {
        "complete_top": state.complete_top,
        "has_start_hint": state.has_start_hint,
        "inversions": state.inversions,
        "first_top_ts": state.first_top_ts,
        "last_top_ts": state.last_top_ts,
        # a killed JMeter's file: where it ends and what it drops
        "cut": asdict(_cut_of(state, parser)) if state.truncated else None,
    }
    sys.stdout.write(json.dumps(counts))


def _two_part_batches(
    state: _Parser,
    parser: Any,
    path: Path,
    split: _Split,
    options: IngestOptions,
    report: Callable[[Path, float], None] | None,
) -> Iterator[pa.RecordBatch]:
    """The samples of ``path`` read in two parts at once: this process parses the bytes
    before ``split`` (closed by a ``</testResults>`` of its own), a child process those
    from it on (:func:`_read_second_part`); the first part's batches, then the second's,
    in file order, and ``state`` holds the counts of both, so the file reads as in one
    part. Anything but a clean read of both (an ill-formed part, a warning, a cut end, a
    failed child) raises :class:`ReadAgain`: the transaction is rolled back and the file
    is read again in one part, which says what is wrong as before."""
    import pyarrow.compute as pc

    one_part = replace(options, extra={**options.extra, _SERIAL: "1"})
    package = str(Path(__file__).resolve().parents[2])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (package, os.environ.get("PYTHONPATH")) if p),
    }
    # a scratch folder of this process: removed by a later command if a SIGKILL leaves it
    with scratch_folder() as folder:
        out = Path(folder) / "second.arrows"
        try:
            with (Path(folder) / "stderr").open("wb") as errors:
                child = subprocess.Popen(
                    _second_part_command(path, split, options, out),
                    stdout=subprocess.PIPE,
                    stderr=errors,
                    stdin=subprocess.DEVNULL,
                    env=env,
                )
        except OSError:  # no interpreter to start (an embedded Python), no processes left
            raise ReadAgain(one_part) from None
        try:
            # the first part's line breaks, counted as it is read: where the second starts
            breaks = _LineBreaks()
            with path.open("rb") as raw:

                def closed() -> Iterator[bytes]:
                    # the first part, its root closed here: it ends between top-level samples
                    blocks = _file_blocks(raw, path, split.offset)
                    yield from (breaks.add(block) for block in blocks if block)
                    yield b"</testResults>"
                    yield b""

                def progress() -> None:
                    if report is not None:
                        report(path, raw.tell() / split.offset / 2)

                try:
                    yield from _parsed_batches(state, parser, closed(), path, progress)
                except InputFormatError:
                    raise ReadAgain(one_part) from None
            stdout, _ = child.communicate()
            if child.returncode != 0 or state.truncated or state.stack:
                raise ReadAgain(one_part)
            counts = json.loads(stdout)
            # the child numbers lines from the head it was given, then a newline
            shift = breaks.count + 1 - (_line_breaks(iter([split.head])) + 2)
            first, last = counts["first_top_ts"], counts["last_top_ts"]
            if first is not None:
                if state.last_top_ts is not None:
                    state.inversions += int(first < state.last_top_ts)
                state.last_top_ts = last
            state.inversions += counts["inversions"]
            if counts["cut"] is not None:
                state.truncated = True
                cut = _Cut(**counts["cut"])
                opened = None if cut.first_line is None else cut.first_line + shift
                state.cut = replace(cut, end_line=cut.end_line + shift, first_line=opened)
            state.complete_top += counts["complete_top"]
            state.has_start_hint = state.has_start_hint or counts["has_start_hint"]
            # read, not mapped: DuckDB may still hold a batch when the file is removed; into
            # the system allocator, which returns what DuckDB has written (Arrow's default
            # pool kept ~45 MB more at the peak of a 3M-sample file)
            pool = pa.system_memory_pool()
            with (
                pa.OSFile(str(out)) as source,
                pa.ipc.open_stream(source, memory_pool=pool) as stream,
            ):
                at_line = _NAMES.index("line")
                for batch in stream:
                    columns = batch.columns
                    columns[at_line] = pc.add(columns[at_line], shift)
                    yield pa.RecordBatch.from_arrays(columns, schema=_SCHEMA)
            if report is not None:
                report(path, 1.0)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    suite_id = writer.suite(
        options.suite or suite_name(path),
        kind="load",
        join=options.suite is not None,
        tags=[t for t in options.tags if "=" not in t],
        attributes=dict(t.split("=", 1) for t in options.tags if "=" in t),
    )
    state, parser = _new_parser(path, writer, options)
    size = path.stat().st_size
    report = options.progress if size >= PROGRESS_MIN_BYTES else None
    columnar = _EXPAT_ONLY not in options.extra and _columnar(path, options)
    split = None if _SERIAL in options.extra or columnar else _second_part(path, options)

    def batches() -> Iterator[pa.RecordBatch]:
        if columnar:
            from toolkit.ingest import jmeter_xml_lines

            try:
                with path.open("rb") as raw, _open(raw) as handle:
                    progress = None if report is None else lambda: report(path, raw.tell() / size)
                    yield from jmeter_xml_lines.columnar_batches(
                        state, handle, path, options, progress, checked=_CHECKED in options.extra
                    )
            except jmeter_xml_lines.Unchecked:
                # rolled back, and read again in columns with expat checking every byte
                raise ReadAgain(replace(options, extra={**options.extra, _CHECKED: "1"})) from None
            except jmeter_xml_lines.Irregular:
                # rolled back, and read again by expat's callbacks (which say what is wrong)
                raise ReadAgain(
                    replace(options, extra={**options.extra, _EXPAT_ONLY: "1"})
                ) from None
            return
        if split is not None:
            yield from _two_part_batches(state, parser, path, split, options, report)
            return
        with path.open("rb") as raw, _open(raw) as handle:
            progress = None if report is None else lambda: report(path, raw.tell() / size)
            yield from _parsed_batches(state, parser, _file_blocks(handle, path), path, progress)

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
    # every column of samples stored again, if a CSV JTL's scratch store made some virtual
    writer.store.widen_samples()
    with _gc_paused():
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
    if state.truncated:
        cut = state.cut or _cut_of(state, parser)
        dropped = ""
        if cut.unfinished:
            dropped = f", dropped {cut.unfinished} unfinished (from line {cut.first_line})"
            if cut.nested:
                dropped += f" and {cut.nested} complete samples nested in them"
            if cut.spilled:
                dropped += f"; {cut.spilled} samples nested in them were kept (too many to hold)"
        writer.warn(
            f"{path}:{cut.end_line}: file ends without </testResults> (JMeter "
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
