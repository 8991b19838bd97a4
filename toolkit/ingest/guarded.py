"""Guarded parsing shared by the ingesters: JSON, CSV and integer columns.

The standard parsers fail on hostile input in ways that are not :class:`InputFormatError`
(found by fuzzing, issue 7 §1): ``json.loads`` raises ``RecursionError`` on deeply nested
arrays and ``ValueError`` on integers of more than 4300 digits; ``csv`` raises
``csv.Error`` on a stray carriage return and on fields over its size limit; ``pyarrow``
raises ``OverflowError`` on a Python int beyond 64 bits, and DuckDB a conversion error on
a value beyond its column's width. Ingesters read through the functions here, which turn
each of those into one :class:`InputFormatError` naming the file (and line or field).
"""

from __future__ import annotations

import collections
import csv
import dataclasses
import gzip
import io
import json
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, cast

import pyarrow as pa

from toolkit.errors import InputFormatError
from toolkit.options import MAX_INPUT_BYTES

#: Deepest JSON nesting accepted. Benchmark exports nest a few levels; a DuckDB profile
#: nests two levels per operator, so 200 allows a plan about 100 operators deep. The limit keeps
#: every later recursive walk (``json.dumps`` of attributes, the profile tree walk) far
#: below Python's recursion limit.
MAX_JSON_DEPTH = 200

#: What Python's gzip module raises on a damaged stream: ``BadGzipFile`` (an ``OSError``), a
#: cut stream (``EOFError``), and a corrupt deflate block (``zlib.error``, found by fuzzing).
GZIP_ERRORS: tuple[type[Exception], ...] = (OSError, EOFError, zlib.error)

#: Longest run time accepted (s), about 32 years: no benchmark run lasts longer, and 10³⁰⁸ s
#: runs overflowed every sum of the analysis (math.fsum: OverflowError, exit 3).
MAX_RUN_SECONDS = 1e9

#: Value range of the store's integer column types, by width in bits.
INT_RANGES = {32: (-(2**31), 2**31 - 1), 64: (-(2**63), 2**63 - 1)}
_ARROW_BITS = {pa.int32(): 32, pa.int64(): 64}


def damaged_gzip(path: Path, reason: object) -> InputFormatError:
    """The one-line error for a ``.gz`` whose stream is damaged or cut (``reason``: the
    decompressor's words)."""
    return InputFormatError(
        path,
        f"damaged gzip file ({reason}); test it with `gzip -t` and compress the original again",
    )


#: A gzip input expanding to more than this many times its own size is refused as a gzip
#: bomb: deflate's ceiling is 1032:1, reached only by long runs of one byte; the real
#: JTLs of ../shared/real/jmeter-runs expand 45:1.
MAX_GZIP_RATIO = 1000
#: Most bytes of a file that is read whole into memory (ClickBench results, query
#: profiles, summariser logs), decompressed: kilobytes to megabytes in practice.
MAX_WHOLE_FILE_BYTES = 256 << 20
_CHUNK = 1 << 20


def is_gzip(path: Path) -> bool:
    """Whether ``path`` starts with the gzip magic."""
    with path.open("rb") as probe:
        return probe.read(2) == b"\x1f\x8b"


@dataclasses.dataclass(frozen=True)
class _GzipPass:
    """What one whole, clean pass over a gzip file found (:func:`_count_expansion`)."""

    decompressed: int
    compressed: int
    #: the longest line that spans decompressed chunks (of at most ``_CHUNK`` bytes): so,
    #: for any limit of ``_CHUNK`` bytes or more, whether a line is longer than it
    longest_line: int


#: whole passes over gzip files, by the file's identity (path, size, mtime, inode): the
#: scratch store's size, the gzip-bomb check and the CSV reader's long-line check read the
#: same file, which was decompressed once for each (3 × 0.05 s of CPU for the real 0.9M-
#: sample h2 run, ~10 % of its `warmup load`)
_GZIP_PASSES: collections.OrderedDict[tuple[str, int, int, int], _GzipPass] = (
    collections.OrderedDict()
)
_GZIP_PASSES_KEPT = 64


def _identity(path: Path) -> tuple[str, int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino


def _count_expansion(path: Path, limit: int, max_ratio: float | None) -> tuple[int, int]:
    """``(decompressed, compressed)`` bytes of the gzip ``path`` (every member) read in
    one streaming pass that stops once past ``limit`` decompressed bytes (``limit + 1``
    then), or, with ``max_ratio``, once the bytes out exceed ``max_ratio`` times the bytes
    in after :data:`_RATIO_AFTER` (a bomb is refused in a fraction of a second, not after
    decompressing 1000 times its size); a damaged stream counts up to the damage. zlib
    directly: Python's gzip reader decompresses 6 times slower. A whole, clean pass with
    :data:`MAX_GZIP_RATIO` is kept (:data:`_GZIP_PASSES`): a later call on the same file
    whose ``limit`` it is within returns what a new pass would, unread."""
    key = _identity(path) if max_ratio == MAX_GZIP_RATIO else None
    kept = _GZIP_PASSES.get(key) if key is not None else None
    if kept is not None and kept.decompressed <= limit:
        return kept.decompressed, kept.compressed
    count, consumed, whole = _gzip_pass(path, limit, max_ratio)
    if key is not None and whole is not None:
        _GZIP_PASSES[key] = whole
        while len(_GZIP_PASSES) > _GZIP_PASSES_KEPT:
            _GZIP_PASSES.popitem(last=False)
    return count, consumed


def _gzip_pass(
    path: Path, limit: int, max_ratio: float | None
) -> tuple[int, int, _GzipPass | None]:
    """:func:`_count_expansion`'s reading: its answer, and the :class:`_GzipPass` when
    the pass read the whole file and every member ended cleanly (else None)."""
    count = consumed = 0
    longest = run = 0  # run: bytes since the last line end
    inflate = zlib.decompressobj(wbits=31)
    member_started = False
    with path.open("rb") as raw:
        try:
            while count <= limit:
                data = raw.read(1 << 16)
                if not data:
                    break
                consumed += len(data)
                member_started = True
                while data and count <= limit:
                    out = inflate.decompress(data, _CHUNK)
                    count += len(out)
                    first = out.find(b"\n")
                    if first == -1:
                        run += len(out)
                    else:
                        longest = max(longest, run + first)
                        run = len(out) - out.rfind(b"\n") - 1
                    data = inflate.unconsumed_tail
                    if inflate.eof:  # the next member of a multi-member file
                        data = inflate.unused_data
                        inflate = zlib.decompressobj(wbits=31)
                        member_started = bool(data)
                    if (
                        max_ratio is not None
                        and count >= _RATIO_AFTER
                        and count > max_ratio * consumed
                    ):
                        return count, consumed, None
        except zlib.error:
            return min(count, limit + 1), consumed, None
    whole = count <= limit and not member_started and consumed > 0
    found = _GzipPass(count, consumed, max(longest, run)) if whole else None
    return min(count, limit + 1), consumed, found


def _known_without_long_line(path: Path, limit: int) -> bool:
    """Whether a kept whole pass over the gzip ``path`` shows no line longer than
    ``limit`` bytes (``limit`` of ``_CHUNK`` bytes or more)."""
    key = _identity(path)
    kept = _GZIP_PASSES.get(key) if key is not None else None
    return kept is not None and limit >= _CHUNK and kept.longest_line <= limit


#: decompressed bytes after which :func:`check_expansion` judges the ratio so far
_RATIO_AFTER = 16 << 20


def expanded_size(path: Path, limit: int) -> int:
    """The bytes ``path`` holds decompressed (its size when not gzip), counted in one
    streaming pass that stops once past ``limit`` (then ``limit + 1``), or early at a
    gzip bomb's ratio (:func:`check_expansion` refuses it); a damaged gzip stream counts
    up to the damage (the ingester reports it)."""
    if not is_gzip(path):
        return path.stat().st_size
    return _count_expansion(path, limit, MAX_GZIP_RATIO)[0]


def check_expansion(path: Path, max_bytes: int = MAX_INPUT_BYTES) -> None:
    """Refuse, in one :class:`InputFormatError` before any reader holds its content, a
    gzip ``path`` that expands beyond :data:`MAX_GZIP_RATIO` times its size (a gzip bomb)
    or beyond ``max_bytes`` bytes, and a plain file larger than ``max_bytes`` (the input
    limit, ``--max-bytes``)."""
    if not is_gzip(path):
        size = path.stat().st_size
        if size > max_bytes:
            raise InputFormatError(
                path,
                f"holds {size} bytes, beyond {max_bytes} bytes (the input limit); "
                "refused unread: pass a larger --max-bytes to read it",
            )
        return
    packed = path.stat().st_size
    count, consumed = _count_expansion(path, max_bytes, MAX_GZIP_RATIO)
    if count > MAX_GZIP_RATIO * max(consumed, 1) and count >= _RATIO_AFTER:
        why = f"more than {MAX_GZIP_RATIO} times the bytes it was read from ({packed} in all)"
        advice = (
            "a gzip bomb or a damaged file; refused unread. Decompress it yourself "
            "(gzip -dc) if it is a real result"
        )
    elif count > max_bytes:
        why = f"beyond {max_bytes} bytes (the input limit)"
        advice = "refused unread: pass a larger --max-bytes to read it"
    else:
        return
    raise InputFormatError(path, f"gzip stream expands to {why}: {advice}")


def file_bytes(path: Path) -> bytes:
    """The whole content of ``path``, decompressed when it starts with the gzip magic; a
    damaged gzip stream, or content beyond :data:`MAX_WHOLE_FILE_BYTES`, is one
    :class:`InputFormatError` (read no further than the limit)."""
    # read(n) of a plain file allocates n bytes at once: plain files by their size, gzip
    # streams in chunks
    if not is_gzip(path):
        size = path.stat().st_size
        raw = path.read_bytes() if size <= MAX_WHOLE_FILE_BYTES else b""
    else:
        chunks: list[bytes] = []
        size = 0
        with gzip.open(path, "rb") as stream:
            try:
                while size <= MAX_WHOLE_FILE_BYTES and (chunk := stream.read(_CHUNK)):
                    chunks.append(chunk)
                    size += len(chunk)
            except GZIP_ERRORS as exc:
                raise damaged_gzip(path, exc) from None
        raw = b"".join(chunks)
    if size > MAX_WHOLE_FILE_BYTES:
        raise InputFormatError(
            path,
            f"holds more than {MAX_WHOLE_FILE_BYTES >> 20} MiB (decompressed): too large for "
            "a result, profile or log file, which this format reads whole; split it",
        )
    return raw


def open_decompressed(path: Path) -> BinaryIO:
    """``path`` opened for reading bytes, through a gzip reader when it starts with the
    gzip magic (a damaged stream raises one of :data:`GZIP_ERRORS` while read)."""
    with path.open("rb") as probe:
        packed = probe.read(2) == b"\x1f\x8b"
    return cast(BinaryIO, gzip.open(path, "rb")) if packed else path.open("rb")


def long_line(path: Path, limit: int) -> int | None:
    """The number of the first line of ``path`` (decompressed) longer than ``limit``
    bytes, or None. A streaming pass in 1 MiB chunks that looks only at each chunk's
    first and last line end (a line can only pass ``limit`` > 1 MiB across chunks that
    hold no line end); lines are counted (``bytes.count``, about 0.3 s a GB: most of the
    pass) in a second pass, only once such a line is found."""
    if _known_without_long_line(path, limit) or _scan_lines(path, limit, count=False) is None:
        return None
    return _scan_lines(path, limit, count=True)


def _scan_lines(path: Path, limit: int, *, count: bool) -> int | None:
    """:func:`long_line`'s pass: the number of the first line longer than ``limit`` (1
    when not ``count``-ing), or None."""
    number, run = 1, 0  # run: bytes since the last line end
    with open_decompressed(path) as stream:
        try:
            while chunk := stream.read(_CHUNK):
                first = chunk.find(b"\n")
                if first == -1:
                    run += len(chunk)
                    if run > limit:
                        return number
                    continue
                if run + first > limit:
                    return number
                if count:
                    number += chunk.count(b"\n")
                run = len(chunk) - chunk.rfind(b"\n") - 1
        except GZIP_ERRORS:
            return None
    return number if run > limit else None


def quoted(value: object, limit: int = 40) -> str:
    """``repr`` of a value for a one-line message, cut after ``limit`` characters (a
    fuzzed cell can be a megabyte long)."""
    text = str(value)
    if len(text) <= limit:
        return repr(value)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def _children(item: dict[Any, Any] | list[Any]) -> Iterator[Any]:
    return iter(item.values() if isinstance(item, dict) else item)


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether containers nest more than ``limit`` levels in ``value``: a depth-first walk
    holding one iterator per open level (memory by depth, not by the number of items: a
    stack of every item's children took 700 MB for 10 million arrays)."""
    stack = [_children(value)]
    while stack:
        child = next(stack[-1], _END)
        if child is _END:
            stack.pop()
        elif isinstance(child, dict | list):
            if len(stack) + 1 > limit:
                return True
            stack.append(_children(child))
    return False


_END = object()

#: Most JSON values read from one document (counted as its commas + 1, an upper bound):
#: Python holds each parsed value in about 65 bytes, and the ingest copies them again, so
#: 10 million values (a ClickBench result of 10 million queries, 140 MB) took 2.7 GB and
#: ended in MemoryError. Real results and profiles hold thousands to a few hundred thousand.
MAX_JSON_VALUES = 5_000_000
#: texts shorter than this cannot hold MAX_JSON_VALUES values: not counted
_COUNT_FROM = 2 * MAX_JSON_VALUES


def check_value_count(text: str, *, path: Path) -> None:
    """Refuse JSON ``text`` that may hold more than :data:`MAX_JSON_VALUES` values, in one
    :class:`InputFormatError`, before it is parsed (a count of its commas: 0.1 s for 140
    MB)."""
    if len(text) < _COUNT_FROM:
        return
    values = text.count(",") + 1
    if values > MAX_JSON_VALUES:
        raise InputFormatError(
            path,
            f"holds up to {values:,} JSON values (counted by their commas; at most "
            f"{MAX_JSON_VALUES:,} are read, as the file is read whole into memory): too many "
            "for a result or profile file; split it",
        )


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a valid JSON number")


def parse_json(
    text: str,
    *,
    path: Path,
    expected: str | None = None,
    line: int | None = None,
    field: str | None = None,
    finite: bool = False,
) -> Any:
    """Parse JSON ``text`` read from ``path``; any failure is one :class:`InputFormatError`.

    ``line`` is the file line where ``text`` starts (a JSON line or a CSV cell), so a syntax
    error names the file line; ``field`` names the column of a cell. ``finite`` refuses the
    non-standard ``NaN``/``Infinity`` constants. Values nested more than
    :data:`MAX_JSON_DEPTH` levels are refused.
    """
    suffix = f"; expected {expected}" if expected else ""
    check_value_count(text, path=path)
    try:
        value = json.loads(text, parse_constant=_reject_constant if finite else None)
    except json.JSONDecodeError as exc:
        at = exc.lineno if line is None else line + exc.lineno - 1
        raise InputFormatError(
            path, f"invalid JSON: {exc.msg} (column {exc.colno}){suffix}", line=at, field=field
        ) from None
    except RecursionError:
        value = None
        deep = True
    except ValueError as exc:
        reason = str(exc)
        if "integer string conversion" in reason:
            reason = "a number has more than 4300 digits"
        raise InputFormatError(
            path, f"invalid JSON: {reason}{suffix}", line=line, field=field
        ) from None
    else:
        # each level opens with its own bracket, so a text of at most MAX_JSON_DEPTH of
        # them cannot nest deeper (brackets in strings only raise the count): the walk
        # was a fifth of reading 2,000 ClickBench results, which hold ~45 (issue 19)
        deep = (
            isinstance(value, dict | list)
            and text.count("[") + text.count("{") > MAX_JSON_DEPTH
            and _deeper_than(value, MAX_JSON_DEPTH)
        )
    if deep:
        raise InputFormatError(
            path,
            f"invalid JSON: nested more than {MAX_JSON_DEPTH} levels deep{suffix}",
            line=line,
            field=field,
        )
    return value


def parse_json_records(text: str, *, path: Path, expected: str) -> list[tuple[int, Any]]:
    """The records of a JSON document or of JSON lines, each with its number.

    A document that is an array gives its items (numbered from 1); any other document is one
    record. Text with one value per line (JSONEachRow, ``TO_JSON`` output) gives one record per
    non-blank line, numbered by its file line; a bad line is an error naming that line.
    """
    check_value_count(text, path=path)  # for the lines too, not only the whole
    try:
        doc = parse_json(text, path=path, expected=expected)
    except InputFormatError as whole:
        # one value per line fails as a document ("Extra data"); else the error stands
        try:
            json.loads(text.lstrip().split("\n", 1)[0])
        except (ValueError, RecursionError):
            raise whole from None
        return [
            (number, parse_json(line_text, path=path, expected=expected, line=number))
            for number, line_text in enumerate(text.splitlines(), start=1)
            if line_text.strip()
        ]
    items = doc if isinstance(doc, list) else [doc]
    return list(enumerate(items, start=1))


def csv_rows(text: str, *, path: Path, delimiter: str = ",") -> list[tuple[int, list[str]]]:
    """Every record of CSV ``text`` with the file line it starts on (blank lines skipped).

    Lines end at LF, CRLF or a lone CR (``newline=""``: a CR inside an unquoted field is a
    line end, not an error). No field can be longer than the text, so the module's
    field-size limit (131,072 characters) is lifted to the text's length for the call:
    a long query text is data, not an error.
    """
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for row in reader:
            if row:
                rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputFormatError(path, f"not readable as CSV ({exc})", line=start) from None
    finally:
        csv.field_size_limit(limit)
    return rows


#: widest CSV header read as named columns; exports have tens of columns (Snowflake's
#: QUERY_HISTORY about 70, ClickHouse's query_log about 80)
MAX_CSV_COLUMNS = 1000


def csv_dicts(text: str, *, path: Path) -> list[tuple[int, dict[str, str | None]]]:
    """:func:`csv_rows` as ``{header name: value}`` records, with the line each starts on.

    Missing trailing values are None, values beyond the header are dropped, and of two
    columns with the same name the last wins (as ``csv.DictReader``). A header of more
    than :data:`MAX_CSV_COLUMNS` names is refused.
    """
    rows = csv_rows(text, path=path)
    if not rows:
        return []
    header = rows[0][1]
    if len(header) > MAX_CSV_COLUMNS:
        raise InputFormatError(
            path,
            f"header has {len(header)} columns (at most {MAX_CSV_COLUMNS} expected); "
            "not a CSV export",
            line=rows[0][0],
        )
    index = {name: i for i, name in enumerate(header)}
    return [
        (line, {name: (row[i] if i < len(row) else None) for name, i in index.items()})
        for line, row in rows[1:]
    ]


def upper_keys(record: Mapping[Any, Any], names: dict[Any, str], *, strip: bool) -> dict[str, Any]:
    """``record`` with its keys upper-cased (and stripped when ``strip``), each distinct key
    converted once through the cache ``names`` shared by all records of a file. (Converting
    per row copied a megabyte-long header name into every row: 2.5 GB for a 1 MB file,
    found by fuzzing.)"""
    out: dict[str, Any] = {}
    for key, value in record.items():
        name = names.get(key)
        if name is None:
            name = str(key).upper()
            names[key] = name = name.strip() if strip else name
        out[name] = value
    return out


def check_int(
    value: int | None,
    *,
    bits: int,
    path: Path,
    what: str,
    line: int | None = None,
    field: str | None = None,
) -> int | None:
    """``value`` unchanged when it fits a signed ``bits``-bit column, else the error."""
    if value is None:
        return None
    low, high = INT_RANGES[bits]
    if not low <= value <= high:
        shown = (
            str(value)
            if len(str(value)) <= 30
            else f"{str(value)[:12]}… ({len(str(value))} digits)"
        )
        raise InputFormatError(
            path,
            f"{what} {shown} is out of range for a {bits}-bit integer; fix the file",
            line=line,
            field=field,
        )
    return value


def arrow_table(
    columns: Mapping[str, Sequence[Any]],
    types: Mapping[str, pa.DataType],
    *,
    path: Path,
    lines: Sequence[Any] | None = None,
) -> pa.Table:
    """An Arrow table of Python values, typed as the store's columns.

    When an integer does not fit its column (Arrow raises ``OverflowError`` or
    ``ArrowInvalid``), the first such value is reported with its file line (``lines[i]``
    for row ``i``) and the column name. Checking only after a failed conversion keeps the
    common path at Arrow's speed.
    """
    try:
        return pa.table(
            {name: pa.array(values, type=types[name]) for name, values in columns.items()}
        )
    except (OverflowError, pa.ArrowInvalid):
        for name, values in columns.items():
            bits = _ARROW_BITS.get(types[name])
            if bits is None:
                continue
            for i, value in enumerate(values):
                check_int(
                    value,
                    bits=bits,
                    path=path,
                    what="value",
                    line=lines[i] if lines is not None else None,
                    field=name,
                )
        raise
