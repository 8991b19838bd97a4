"""A JMeter XML JTL of the shape JMeter writes, read a block of lines at a time in columns.

JMeter (XStream's pretty printer, research/jmeter.md §2) writes every sample's start tag
whole on a line of its own, its end tag on another, and the texts a JTL is read for
(``java.net.URL``, ``responseFile``, an assertion's ``failureMessage``) each on one line.
Such a file is read here without a Python call per element (expat's callbacks cost ~2.5x
an expat parse, issue 20 item 3): numpy finds each line's first tag and the nesting over
the block's bytes at once, Polars splits the sample tags at their quotes and takes the
texts, over whole columns.

Three readings, each falling back to the next (the transaction rolled back between):

1. **Columns alone**, where every line is one this reading holds to the XML rules itself:
   a sample's start tag (one space between double-quoted attributes, names that are XML
   Names, no ``<`` in a value), an end tag, an assertion's lines, the texts above, the
   declaration and root JMeter writes, blank lines; with no character XML 1.0 forbids, no
   ``]]>`` and no ``&`` that starts no reference. Anything else raises :class:`Unchecked`.
2. **Columns with expat** parsing the same bytes with no callback (other elements and
   multi-line texts between the lines read, as in a file with response data saved).
3. **expat's callbacks** (:mod:`toolkit.ingest.jmeter_xml`) for what the columns cannot
   follow (:class:`Irregular`): a file that is not well-formed or ends without
   ``</testResults>``, a tag read here beside another on its line or over two lines, a
   comment, CDATA or processing instruction, version 1.0 (URL-encoded values), an integer
   Arrow and ``int()`` do not read alike; they say what is wrong, as before.

Rows, their order (each sample as it ends, nested ones before their parent), ``line`` and
every column are those of expat's callbacks: tests compare them on every recorded and
real XML file and on hundreds of damaged documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO
from xml.parsers import expat

import numpy as np
import polars as pl
import pyarrow as pa

from toolkit.errors import InputFormatError
from toolkit.ingest import jmeter_xml as xml
from toolkit.ingest.jmeter import TC_PREFIX
from toolkit.ingest.registry import IngestOptions

#: Files from this size on are read in columns (smaller ones take longer to set up, 0.1 s
#: for Polars, than to read with expat's callbacks).
COLUMNAR_MIN_BYTES = 1 << 20
#: bytes of lines per block (a block ends between top-level samples)
_BLOCK = 4 << 20
#: a top-level sample longer than this (thousands of sub-samples) is read by expat
_MAX_CARRY = 64 << 20

_SAMPLE_TAGS = ("httpSample", "sample", "statSample")
_SAMPLE = "(?:httpSample|sample|statSample)"
#: the end of a line as read (its line break; a CR before it in a Windows file)
_EOL = r"\r?\n?$"
#: line kinds, by the first tag on the line (any other tag, or none: OTHER)
OTHER, START, END, URL, FILE, MESSAGE, ASSERTION, ASSERTION_END, ROOT, ROOT_END, PLAIN = range(11)
_KINDS = {
    **{f"<{tag}": START for tag in _SAMPLE_TAGS},
    **{f"</{tag}": END for tag in _SAMPLE_TAGS},
    "<java.net.URL": URL,
    "<responseFile": FILE,
    "<failureMessage": MESSAGE,
    "<assertionResult": ASSERTION,
    "</assertionResult": ASSERTION_END,
    "<testResults": ROOT,
    "</testResults": ROOT_END,
    # an assertion's other texts: not read, and whole on their lines in JMeter's files
    "<name": PLAIN,
    "<failure": PLAIN,
    "<error": PLAIN,
}
#: the one-line text elements read, with their text (a ``class`` attribute allowed)
_TEXT_TAG = {URL: "java.net.URL", FILE: "responseFile", MESSAGE: "failureMessage"}
_TEXT_LINE = {
    kind: rf'^[ \t]*<{re.escape(tag)}(?: class="[^"<]*")?(?:/>|>[^<]*</{re.escape(tag)}>){_EOL}'
    for kind, tag in _TEXT_TAG.items()
}
#: how the lines of the other kinds with text or attributes must read, whole
_WHOLE_LINE = {
    ROOT: rf'^[ \t]*<testResults(?: [^\s"=<>/]+="[^"<]*")*>{_EOL}',
    PLAIN: "|".join(
        rf"(?:^[ \t]*<{tag}>[^<]*</{tag}>{_EOL})" for tag in ("name", "failure", "error")
    ),
    **_TEXT_LINE,
}
#: what the lines of the bare kinds hold past their indentation (one of)
_EXACT_LINES = {
    END: tuple(f"</{tag}>".encode() for tag in _SAMPLE_TAGS),
    ASSERTION: (b"<assertionResult>",),
    ASSERTION_END: (b"</assertionResult>",),
    ROOT_END: (b"</testResults>",),
}
_VERSION = re.compile(r' version="([^"]*)"')
#: the character references found in JMeter's messages, decoded without Python
_COMMON_REFS = {"&#xa;": "\n", "&#xA;": "\n", "&#10;": "\n", "&#xd;": "\r", "&#xD;": "\r",
                "&#13;": "\r", "&#x9;": "\t", "&#9;": "\t"}  # fmt: skip
_NAME = re.compile(r' ([^\s"=<>/]+)=""')
_BOM = b"\xef\xbb\xbf"
#: The XML declaration and root JMeter writes: other ones (another version, encoding or
#: attribute) are left to expat to judge.
_DECLARATION = rf'^<\?xml version="1\.0"(?: encoding="UTF-8")?\?>{_EOL}'
_JMETER_ROOT = rf'^<testResults version="[0-9.]+">{_EOL}'
#: an attribute name that is an XML Name (the ASCII ones JMeter and XStream write)
_XML_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9._-]*")
#: a reference expat reads (character references XML 1.0 forbids are removed before)
_REFERENCES = re.compile(rb"&(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);")


class Irregular(Exception):
    """The file is not of the shape read here: read it with expat's callbacks."""


class Unchecked(Irregular):
    """The lines are of the shape read here, but not all of them are held to the XML
    rules by this reading (another element, text between them, a character or
    reference it does not check): read the file again with expat checking it."""


#: a character reference (those XML 1.0 forbids were removed with the block's:
#: :func:`toolkit.ingest.jmeter_xml._strip_bad_refs`, as before expat's read)
_CHAR_REF = re.compile(r"&#(?:x([0-9a-fA-F]+)|([0-9]+));")


def _decoded_refs(text: str) -> str:
    """``text``'s character references as characters."""
    return _CHAR_REF.sub(lambda ref: chr(int(ref[1], 16) if ref[1] else int(ref[2])), text)


def _unescaped(frame: pl.DataFrame, names: list[str], *, attribute: bool) -> pl.DataFrame:
    """``frame``'s columns ``names`` (XML text as written) as expat gives them: an
    attribute's raw tabs as spaces (XML's attribute-value normalisation; no line break
    stands inside a value here), the five predefined entities and the character
    references decoded (``&amp;`` last, so that ``&amp;lt;`` stays ``&lt;``). Only the
    columns holding a ``&`` or a tab are touched: most hold neither."""
    updates = []
    for name in names:
        column = frame[name]
        if attribute and column.str.contains("\t", literal=True).any():
            column = column.str.replace_all("\t", " ", literal=True)
        if not column.str.contains("&", literal=True).any():
            if column is not frame[name]:
                updates.append(column)
            continue
        for entity, char in (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'")):
            column = column.str.replace_all(entity, char, literal=True)
        for ref, char in _COMMON_REFS.items():
            column = column.str.replace_all(ref, char, literal=True)
        if column.str.contains("&#", literal=True).any():
            column = pl.Series(
                name,
                [None if v is None else _decoded_refs(v) for v in column.to_list()],
                pl.String,
            )
        updates.append(column.str.replace_all("&amp;", "&", literal=True))
    return frame.with_columns(updates) if updates else frame


class _Validator:
    """expat over the same bytes with no callback: the XML rules hold (DOCTYPE and ENTITY
    refused, the XML 1.1 references JMeter writes removed first, as in the expat read)."""

    def __init__(self, encoding: str | None) -> None:
        self.parser = xml.guarded_parser(encoding)
        self.carry = b""

    def feed(self, block: bytes) -> None:
        """Parse ``block`` (the file's next bytes; empty: the end)."""
        data, self.carry = xml.expat_ready(self.carry, block)
        try:
            self.parser.Parse(data, not block)
        except (expat.ExpatError, LookupError, xml._Refused) as exc:
            raise Irregular(f"expat: {exc!r}") from None


class _Plan:
    """One sequence of sample attributes: the regex of a start tag with exactly them, and
    where each value column and variable stands in the tag split at its quotes."""

    def __init__(self, names: list[str]) -> None:
        self.plan = xml._Plan(names)
        attributes = "".join(f' {re.escape(name)}="[^"<]*"' for name in names)
        self.xml_names = all(_XML_NAME.fullmatch(name) for name in names)
        self.regex = rf"^[ \t]*<{_SAMPLE}{attributes}/?>{_EOL}"
        variables = [name for _, name in self.plan.variables]
        if len(set(variables)) != len(variables) or len(set(names)) != len(names):
            raise Irregular("an attribute or sample variable named twice")


#: bytes of a line compared with the tags read (the longest, ``</assertionResult``, and one)
_HEAD = 19
#: bytes that may follow a tag's name (or the line ends there)
_AFTER_NAME = np.array([ord(c) for c in " \t/>"], np.uint8)


class _Lines:
    """A block's lines as byte positions: ``begin`` (after the indentation) and ``stop``
    (before the line break and a CR before it), and the block as an Arrow string column."""

    def __init__(self, block: bytes, skip: int) -> None:
        view = np.frombuffer(block, np.uint8)
        breaks = np.flatnonzero(view == 10)
        begin = np.concatenate(([skip], breaks + 1))
        end = np.concatenate((breaks, [len(block)]))
        if block.endswith(b"\n"):  # no line after the last break
            begin, end = begin[:-1], end[:-1]
        self.count = len(begin)
        # room past the end: a tag compared there reads zeros, not another line
        self.bytes = np.concatenate((view, np.zeros(64, np.uint8)))
        carriage = (end > begin) & (self.bytes[np.maximum(end - 1, 0)] == 13)
        self.stop = end - carriage
        self.begin = begin.copy()
        spaces = np.flatnonzero(self._blank(self.begin))
        while len(spaces):
            self.begin[spaces] += 1
            spaces = spaces[self._blank(self.begin[spaces], spaces)]
        offsets = np.concatenate((begin, [len(block)])).astype(np.int64)
        self.text = pa.LargeStringArray.from_buffers(
            self.count, pa.py_buffer(offsets), pa.py_buffer(block)
        )
        self._series: pl.Series | None = None

    def _blank(self, at: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Whether the byte at ``at`` is indentation (a space or tab inside its line)."""
        stop = self.stop if rows is None else self.stop[rows]
        byte = self.bytes[at]
        blank: np.ndarray = ((byte == 32) | (byte == 9)) & (at < stop)
        return blank

    def heads(self, rows: np.ndarray) -> np.ndarray:
        """The first :data:`_HEAD` bytes of ``rows`` past their indentation, a row each."""
        windows = np.lib.stride_tricks.sliding_window_view(self.bytes, _HEAD)
        head: np.ndarray = windows[self.begin[rows]]
        return head

    def starting(self, token: bytes, rows: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """Which of ``rows`` (their :meth:`heads`) start with the tag ``token``
        (``<name`` or ``</name``)."""
        size = len(token)
        found: np.ndarray = (heads[:, :size] == np.frombuffer(token, np.uint8)).all(axis=1)
        after = self.begin[rows] + size
        found &= np.isin(heads[:, size], _AFTER_NAME) | (after >= self.stop[rows])
        return found

    def exactly(self, text: bytes, rows: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """Which of ``rows`` (their :meth:`heads`) hold ``text`` and nothing else past
        their indentation (``text`` of :data:`_HEAD` bytes at most)."""
        found: np.ndarray = self.stop[rows] - self.begin[rows] == len(text)
        found &= (heads[:, : len(text)] == np.frombuffer(text, np.uint8)).all(axis=1)
        return found

    def series(self) -> pl.Series:
        """The lines (with their indentation and line break) as strings."""
        if self._series is None:
            self._series = pl.Series("l", self.text)
        return self._series

    def strings(self, rows: np.ndarray) -> pl.Series:
        """The lines ``rows`` as strings."""
        return self.series().gather(rows)


class _Reader:
    """Reads blocks of whole top-level samples; keeps what carries from block to block
    (lines read, the root seen, the attribute plans)."""

    def __init__(self, state: xml._Parser, text_tags: frozenset[str], *, checked: bool) -> None:
        self.state = state
        # whether expat reads the same bytes (and this reading need not hold them to the
        # XML rules: it then takes other elements and text between its lines, too)
        self.checked = checked
        # the URL and response file are read unless a scratch store leaves them out
        self.texts = [kind for kind in (URL, FILE) if _TEXT_TAG[kind] in text_tags]
        self.kinds = {
            token.encode(): kind
            for token, kind in _KINDS.items()
            if kind not in (URL, FILE) or kind in self.texts
        }
        tags = [*_SAMPLE_TAGS, "testResults", "assertionResult", "failureMessage"]
        tags += [_TEXT_TAG[kind] for kind in self.texts]
        alternatives = "|".join(re.escape(tag) for tag in tags)
        # what a line of another kind may not hold: a tag read here, or markup a
        # line-by-line reading cannot follow (a comment, CDATA, a processing instruction)
        self.hidden = rf"</?(?:{alternatives})(?:[\s/>]|$)|<!|<\?"
        self.first_line = 1  # the file's line number of the next block's first line
        self.first_block = True
        self.seen_root = False
        self.closed = False  # </testResults> read
        self.plans: dict[str, _Plan] = {}  # by the tag with its values blanked
        self.escapes = True  # the block being read holds an "&" or a tab

    def batch(self, block: bytes) -> pa.RecordBatch | None:
        """The samples of ``block`` (whole lines, from one top-level sample to the end of
        another) as one batch; None if it holds none."""
        first_block, self.first_block = self.first_block, False
        # the XML 1.1 references JMeter writes, removed as before expat's read (a block
        # ends at a line's end: no reference is cut)
        block = xml._strip_bad_refs(block)
        lines = _Lines(block, 3 if first_block and block.startswith(_BOM) else 0)
        try:
            lines.text.validate(full=True)  # UTF-8 (expat checks it too)
        except pa.ArrowInvalid:
            raise Irregular("not UTF-8") from None
        first_line, self.first_line = self.first_line, self.first_line + lines.count
        if lines.count and int((lines.stop - lines.begin).max()) > xml.MAX_TAG_BYTES:
            # expat's read refuses such a tag, or cuts such a text with a warning
            raise Irregular("a line longer than MAX_TAG_BYTES")
        # how often each byte value occurs: one pass for the checks below
        counts = np.bincount(np.frombuffer(block, np.uint8), minlength=256)
        self.escapes = bool(counts[38] or counts[9])  # an "&" or a tab: texts to decode
        if counts[13] and counts[13] != block.count(b"\r\n"):
            raise Irregular("a carriage return alone ends a line")
        if not self.checked:
            self._check_characters(block, counts)
        kinds, tags = self._kinds(lines, first_block)
        rows = np.flatnonzero(kinds != OTHER)
        structure = _Structure(lines, rows, kinds[rows], tags[rows])
        self._check_root(lines, structure)
        if not structure.samples.size:
            return None
        return self._typed(lines, structure, first_line)

    @staticmethod
    def _check_characters(block: bytes, counts: np.ndarray) -> None:
        """:class:`Unchecked` where ``block`` (whose byte values occur ``counts`` times)
        holds what expat would refuse and the lines' patterns let through: a character
        XML 1.0 forbids (a C0 control but TAB, LF and CR; U+FFFE, U+FFFF), ``]]>``, an
        ``&`` that does not start a reference expat reads."""
        if (
            counts[:32].sum() != counts[9] + counts[10] + counts[13]
            or b"\xef\xbf\xbe" in block  # U+FFFE
            or b"\xef\xbf\xbf" in block  # U+FFFF
            or b"]]>" in block
        ):
            raise Unchecked("a character or ]]> left to expat to judge")
        if counts[38] and counts[38] != len(_REFERENCES.findall(block)):  # "&"
            raise Unchecked("an & that starts no reference")

    def _kinds(self, lines: _Lines, first_block: bool) -> tuple[np.ndarray, np.ndarray]:
        """Each line's kind, by its first tag, and for a sample's start and end tag which
        of :data:`_SAMPLE_TAGS`; :class:`Irregular` where a line of a kind read here
        holds more than its element, or a line of another kind mentions one;
        :class:`Unchecked` for a line of another kind when expat does not check them."""
        kinds = np.full(lines.count, OTHER, np.int8)
        tags = np.full(lines.count, -1, np.int8)
        tagged = np.flatnonzero(lines.bytes[lines.begin] == 60)  # "<"
        heads = lines.heads(tagged)
        for token, kind in self.kinds.items():
            chosen = heads[:, 1] == token[1]
            rows = tagged[chosen]
            rows = rows[lines.starting(token, rows, heads[chosen])]
            kinds[rows] = kind
            if kind in (START, END):
                tags[rows] = _SAMPLE_TAGS.index(token.decode().lstrip("</"))
        plain = np.flatnonzero(kinds == PLAIN)
        if plain.size:  # not whole on its line: text of another kind
            whole = lines.strings(plain).str.contains(_WHOLE_LINE[PLAIN]).to_numpy()
            kinds[plain[~whole]] = OTHER
        for kind, texts in _EXACT_LINES.items():
            rows = np.flatnonzero(kinds == kind)
            heads = lines.heads(rows)
            if not np.logical_or.reduce([lines.exactly(t, rows, heads) for t in texts]).all():
                raise Irregular("a tag read here not alone on its line")
        for kind in (ROOT, *self.texts, MESSAGE):
            rows = np.flatnonzero(kinds == kind)
            if rows.size and not lines.strings(rows).str.contains(_WHOLE_LINE[kind]).all():
                raise Irregular("a tag read here not alone on its line")
        others = np.flatnonzero((kinds == OTHER) & (lines.begin < lines.stop))  # not blank
        if first_block and others.size and others[0] == 0:
            first = lines.strings(others[:1])
            if first.str.contains(_DECLARATION).all() or (
                first.str.contains(rf"^<\?xml [^<>]*\?>{_EOL}").all() and self.checked
            ):
                others = others[1:]
        if others.size and not self.checked:
            raise Unchecked("a line of another element or text")
        if others.size and lines.strings(others).str.contains(self.hidden).any():
            raise Irregular("a tag read here not first on its line, or a comment, CDATA, PI")
        return kinds, tags

    def _check_root(self, lines: _Lines, structure: _Structure) -> None:
        """One ``<testResults>`` (not version 1.0), before every sample; nothing after
        its end."""
        rows, kinds = structure.rows, structure.kinds
        roots = rows[kinds == ROOT]
        if roots.size:
            if self.seen_root or roots.size > 1 or roots[0] != rows[0]:
                raise Irregular("<testResults> not the first element")
            root = lines.strings(roots)
            version = _VERSION.search(root[0])
            if version is None or version.group(1) in ("", "1.0"):
                raise Irregular("version 1.0: URL-encoded values")
            if not self.checked and not root.str.contains(_JMETER_ROOT).all():
                raise Unchecked("a root of other attributes")
            self.seen_root = True
        elif not self.seen_root:
            raise Irregular("no <testResults> first")
        ends = rows[kinds == ROOT_END]
        if ends.size:
            if self.closed or ends.size > 1 or ends[0] != rows[-1]:
                raise Irregular("</testResults> not the last element")
            self.closed = True
        elif self.closed and rows.size:
            raise Irregular("elements after </testResults>")

    def _unescaped(self, frame: pl.DataFrame, names: list[str], *, attribute: bool) -> pl.DataFrame:
        """:func:`_unescaped`, in a block that holds an ``&`` or a tab (most hold neither:
        then the texts are as written)."""
        return _unescaped(frame, names, attribute=attribute) if self.escapes else frame

    def _typed(self, lines: _Lines, structure: _Structure, first_line: int) -> pa.RecordBatch:
        """The batch of the block's samples: rows in the order their samples end, as
        expat's reading stores them (nested ones before their parent)."""
        at = structure.samples
        samples = self._values(pl.DataFrame({"l": lines.strings(at), "at": at}))
        sub = structure.subresults(
            _holds(samples["response_message"], samples["data_type"]).to_numpy()
        )
        texts = self._texts(lines, structure)
        order = np.argsort(structure.sample_ends, kind="stable")
        samples = samples.with_columns(sub=pl.Series(sub)).join(texts, on="at", how="left")
        samples = samples[order]
        struct = pa.StructArray.from_arrays(
            [samples[name].to_arrow().cast(pa.string()) for name in xml._VALUE_COLUMNS],
            names=list(xml._VALUE_COLUMNS),
        )
        top = structure.sample_depths[order] == 0
        batch = self.state.typed_batch(
            struct,
            lines=at[order] + first_line,
            top=top,
            texts={
                name: samples[name].to_arrow().cast(pa.string())
                for name in ("url", "filename", "failure_message")
            },
            is_subresult=pa.array(sub[order]),
            variables=self._variables(samples),
            exact_ints=_no_exact_ints,
        )
        self.state.complete_top += int(top.sum())
        return batch

    def _values(self, samples: pl.DataFrame) -> pl.DataFrame:
        """``samples`` with a string column per value column (its attribute as expat
        gives it, NULL where the sample has none), ``plan`` and ``parts`` (the tag split
        at its quotes)."""
        line = pl.col("l")
        plan_of = pl.lit(None, pl.String)
        for key, known in self.plans.items():
            plan_of = pl.when(line.str.contains(known.regex)).then(pl.lit(key)).otherwise(plan_of)
        samples = samples.with_columns(plan=plan_of)
        unknown = samples.filter(pl.col("plan").is_null())
        if unknown.height:  # a sequence of attributes not seen before: its plan, then again
            key = re.sub(r'"[^"]*"', '""', unknown["l"][0].strip(" \t\r\n"))
            names = _NAME.findall(key)
            if key in self.plans or key.count('""') != len(names):
                raise Irregular("a sample tag not read (attributes, or an integer not plain)")
            self.plans[key] = _Plan(names)
            if not self.checked and not self.plans[key].xml_names:
                raise Unchecked("an attribute name left to expat to judge")
            return self._values(samples.drop("plan"))
        keys = samples["plan"].unique(maintain_order=True).to_list()
        samples = samples.with_columns(parts=line.str.split('"'))
        columns = []
        for column in xml._VALUE_COLUMNS:
            value: pl.Expr = pl.lit(None, pl.String)
            for key in keys:
                # value k is part 2k + 1 of the tag split at its quotes, as in expat's list
                at = self.plans[key].plan.positions.get(column)
                if at is None:
                    continue
                got = pl.col("parts").list.get(at)
                value = (
                    got
                    if len(keys) == 1
                    else pl.when(pl.col("plan") == key).then(got).otherwise(value)
                )
            columns.append(value.alias(column))
        for key in keys:
            plan = self.plans[key].plan
            self.state.has_start_hint = self.state.has_start_hint or plan.start_hint
        samples = samples.with_columns(columns)
        texts = [name for name in xml._VALUE_COLUMNS if name not in xml._INT_COLUMNS]
        return self._unescaped(samples, texts, attribute=True)

    def _texts(self, lines: _Lines, structure: _Structure) -> pl.DataFrame:
        """The texts of each sample (by its line ``at``): ``url`` and ``filename`` (the
        last of each, as expat's reading keeps them), ``failure_message`` (the first
        assertion's that has one; "" as NULL, JMeter's CSV failureMessage)."""
        found = pl.DataFrame({"at": structure.samples})
        for kind, name in ((URL, "url"), (FILE, "filename")):
            if kind not in self.texts:
                found = found.with_columns(pl.lit(None, pl.String).alias(name))
                continue
            rows, owners = structure.last_per_owner(kind)
            last = pl.DataFrame({"at": owners, "l": lines.strings(rows)})
            last = self._unescaped(
                last.select("at", _body(kind).alias(name)), [name], attribute=False
            )
            if kind == FILE:  # responseFile: "" as NULL
                last = last.with_columns(pl.when(pl.col(name) != "").then(pl.col(name)))
            found = found.join(last, on="at", how="left")
        # an assertion's message is its last failureMessage; a sample's, the first of its
        # assertions' that has one
        rows, owners = structure.failure_messages()
        messages = pl.DataFrame({"at": owners, "l": lines.strings(rows)})
        messages = self._unescaped(
            messages.select("at", _body(MESSAGE).alias("failure_message")),
            ["failure_message"],
            attribute=False,
        ).with_columns(pl.when(pl.col("failure_message") != "").then(pl.col("failure_message")))
        return found.join(messages, on="at", how="left")

    def _variables(self, samples: pl.DataFrame) -> pa.Array:
        """The samples' variables (extra attributes), in their order, as the map column:
        NULL for a sample without; an empty value as NULL."""
        map_type = xml._TYPES["variables"]
        plans = {key: self.plans[key].plan for key in samples["plan"].unique().to_list()}
        if not any(plan.variables for plan in plans.values()):
            return pa.nulls(samples.height, map_type)
        rows = samples.with_row_index("row")
        counts = np.zeros(samples.height, np.int64)
        entries = []
        for key, plan in plans.items():
            if not plan.variables:
                continue
            mine = rows.filter(pl.col("plan") == key)
            counts[mine["row"].to_numpy()] = len(plan.variables)
            for order, (at, name) in enumerate(plan.variables):
                entries.append(
                    mine.select(
                        "row",
                        pl.lit(order).alias("order"),
                        pl.lit(name).alias("key"),
                        pl.col("parts").list.get(at).alias("item"),
                    )
                )
        flat = self._unescaped(pl.concat(entries).sort("row", "order"), ["item"], attribute=True)
        flat = flat.with_columns(pl.when(pl.col("item") != "").then(pl.col("item")).alias("item"))
        offsets = pa.array(np.concatenate(([0], np.cumsum(counts))).astype(np.int32))
        return pa.MapArray.from_arrays(
            offsets,
            flat["key"].to_arrow().cast(pa.string()),
            flat["item"].to_arrow().cast(pa.string()),
            type=map_type,
            mask=pa.array(counts == 0),
        )


def _holds(message: pl.Series, data_type: pl.Series) -> pl.Series:
    """Whether each sample's children are samples in their own right, not sub-results:
    :meth:`toolkit.ingest.jmeter_xml._Parser._holds_samples`, over columns."""
    frame = pl.DataFrame({"m": message, "d": data_type})
    return frame.select(
        pl.when(pl.col("m").is_not_null() & (pl.col("m") != ""))
        .then(pl.col("m").str.starts_with(TC_PREFIX))
        .otherwise((pl.col("d") == "").fill_null(False))
    ).to_series()


class _Structure:
    """The nesting of a block's lines of the kinds read (``rows``, their ``kinds``): the
    samples (their lines, depths, where each ends, its parent) and the owner of each
    text; :class:`Irregular` unless the block holds whole top-level samples."""

    def __init__(
        self, lines: _Lines, rows: np.ndarray, kinds: np.ndarray, tags: np.ndarray
    ) -> None:
        self.rows, self.kinds = rows, kinds
        starts = kinds == START
        closing = (lines.bytes[lines.stop[rows] - 2] == 47) & (
            lines.bytes[lines.stop[rows] - 1] == 62
        )
        opens = starts & ~closing
        delta = opens.astype(np.int32) - (kinds == END)
        depth = np.cumsum(delta) - opens  # samples open before a line; an end's own
        step = (kinds == ASSERTION).astype(np.int32) - (kinds == ASSERTION_END)
        in_assertion = np.cumsum(step)
        inside = np.isin(kinds, [URL, FILE, MESSAGE, ASSERTION, ASSERTION_END, PLAIN])
        if rows.size and not (
            depth.min() >= 0
            and delta.sum() == 0
            and in_assertion.min() >= 0
            and in_assertion.max() <= 1
            and step.sum() == 0
            and not ((starts | (kinds == END)) & (in_assertion != 0)).any()
            and not ((kinds == MESSAGE) & (in_assertion != 1)).any()
            and not (inside & (depth < 1)).any()
        ):
            raise Irregular("nesting not followed")
        self.depth = depth
        # the line of the sample open at each depth, on every line
        self.open = [
            np.maximum.accumulate(np.where(opens & (depth == d), rows, -1))
            for d in range(int(depth[starts].max(initial=0)) + 1)
        ]
        self.samples = rows[starts]
        self.sample_depths = depth[starts]
        self.parents = self.owner_at(np.flatnonzero(starts), depth[starts] - 1)
        # the k-th sample opened at a depth ends at the k-th end tag at that depth
        ends = rows[starts].copy()
        for d in range(len(self.open)):
            opened = np.flatnonzero(opens & (depth == d))
            closing = np.flatnonzero((kinds == END) & (depth == d))
            closed = rows[closing]
            if (
                opened.size != closing.size
                or not (closed > rows[opened]).all()
                or not (rows[opened][1:] > closed[:-1]).all()
                or not (tags[opened] == tags[closing]).all()
            ):
                raise Irregular("start and end tags not paired")
            ends[np.searchsorted(self.samples, rows[opened])] = closed
        self.sample_ends = ends
        self.assertion_at = np.maximum.accumulate(np.where(kinds == ASSERTION, rows, -1))

    def owner_at(self, items: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """The line of the sample open at ``depth`` on each of the positions ``items``
        (of ``rows``); -1 for depth -1."""
        owner = np.full(len(items), -1, np.int64)
        for d, open_at in enumerate(self.open):
            chosen = depth == d
            owner[chosen] = open_at[items[chosen]]
        return owner

    def last_per_owner(self, kind: int) -> tuple[np.ndarray, np.ndarray]:
        """The lines of the last text of ``kind`` in each sample, and those samples."""
        items = np.flatnonzero(self.kinds == kind)
        owners = self.owner_at(items, self.depth[items] - 1)
        # the last of each owner: the first in reverse
        _, first = np.unique(owners[::-1], return_index=True)
        last = items[::-1][first]
        return self.rows[last], owners[::-1][first]

    def failure_messages(self) -> tuple[np.ndarray, np.ndarray]:
        """The failureMessage lines that make samples' messages (each assertion's last;
        of a sample's assertions the first that has one), and those samples."""
        items = np.flatnonzero(self.kinds == MESSAGE)
        assertion = self.assertion_at[items]
        _, first = np.unique(assertion[::-1], return_index=True)
        last = items[::-1][first]  # each assertion's last message, by assertion
        owners = self.owner_at(last, self.depth[last] - 1)
        # the assertions in file order: a sample's first with a message
        order = np.argsort(self.assertion_at[last], kind="stable")
        last, owners = last[order], owners[order]
        _, first = np.unique(owners, return_index=True)
        return self.rows[last[first]], owners[first]

    def subresults(self, holds: np.ndarray) -> np.ndarray:
        """Whether each sample is a sub-result: nested in a sample that holds no samples
        in their own right (``holds``, per sample), or in a sub-result."""
        sub = np.zeros(self.samples.size, bool)
        for d in range(1, len(self.open)):
            rows = np.flatnonzero(self.sample_depths == d)
            parent = np.searchsorted(self.samples, self.parents[rows])
            sub[rows] = sub[parent] | ~holds[parent]
        return sub


def _body(kind: int) -> pl.Expr:
    """The text of a one-line text element of ``kind`` ("" for an empty element)."""
    tag = re.escape(_TEXT_TAG[kind])
    return pl.col("l").str.extract(rf'^[ \t]*<{tag}(?: class="[^"]*")?>([^<]*)<', 1).fill_null("")


def _no_exact_ints() -> list[list[int | None]]:
    raise Irregular("an integer attribute Arrow does not read")


def columnar_batches(
    state: xml._Parser,
    handle: IO[bytes],
    path: Path,
    options: IngestOptions,
    progress: Callable[[], None] | None = None,
    *,
    checked: bool = False,
) -> Iterator[pa.RecordBatch]:
    """The samples of ``handle`` (the file's bytes) as Arrow batches, ``state`` holding
    the counts the expat read keeps; :class:`Irregular` where the file is not of the
    shape read here (the caller then reads it with expat's callbacks),
    :class:`Unchecked` where it is but this reading alone does not hold it to the XML
    rules (the caller then reads it again with ``checked``: expat parses the same bytes
    with no callback)."""
    validator = _Validator(options.encoding) if checked else None
    reader = _Reader(state, xml._text_tags(options.sample_columns), checked=checked)
    pieces: list[bytes] = []
    size = 0
    try:
        for block in xml._file_blocks(handle, path):
            if validator is not None:
                validator.feed(block)
            if block:
                pieces.append(block)
                size += len(block)
                if size < _BLOCK:
                    continue
            pending = b"".join(pieces)
            cut = _between_samples(pending) if block else len(pending)
            if cut is None:
                if len(pending) > _MAX_CARRY:
                    raise Irregular("a top-level sample of more than 64 MiB")
                pieces, size = [pending], len(pending)
                continue
            rest = pending[cut:]
            pieces, size = ([rest] if rest else []), len(rest)
            if cut:
                batch = reader.batch(pending[:cut])
                if batch is not None:
                    yield batch
            if progress is not None:
                progress()
    except InputFormatError as exc:
        # said by the expat read, with whatever it finds first
        raise Irregular(str(exc)) from None
    if not reader.closed:
        raise Irregular("no </testResults>")
    state.seen_root = True


def _between_samples(data: bytes) -> int | None:
    """Where ``data`` can be cut between top-level samples: after the last line break
    followed by a top-level (unindented) sample's start, or None."""
    at = max(data.rfind(b"\n<" + tag) for tag in (b"httpSample", b"sample ", b"statSample"))
    return None if at < 0 else at + 1
