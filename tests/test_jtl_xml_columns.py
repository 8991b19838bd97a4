"""The XML JTL reader's stored columns against an independent ElementTree reading of the
same files: every real XML JTL of ../shared/real/jmeter and every recorded XML fixture.

The reader turns expat's attribute strings into columns per batch (Arrow casts, not a
dict per sample); this oracle reads each sample element on its own, in Python, by the
format's rules (research/jmeter.md §2), so a column the batch path fills wrongly differs.
"""

from __future__ import annotations

import gzip
import re
import urllib.parse
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from toolkit import Store
from toolkit.ingest import ingest_file
from toolkit.ingest.registry import IngestOptions

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_TAGS = ("sample", "httpSample", "statSample")
TC_PREFIX = "Number of samples in transaction"
INTS = {
    "ts": "start_ms",
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
TEXTS = {
    "lb": "label",
    "rc": "response_code",
    "rs": "response_code",
    "rm": "response_message",
    "tn": "thread_name",
    "dt": "data_type",
    "hn": "hostname",
    "de": "encoding",
}
COLUMNS = (
    *dict.fromkeys(INTS.values()),
    *dict.fromkeys(TEXTS.values()),
    "success",
    "failure_message",
    "url",
    "filename",
    "is_transaction",
    "is_subresult",
    "variables",
)
#: the killed file has no end tag: ElementTree cannot read it (tests/test_jtl_xml_edges.py
#: covers what the reader keeps of it)
UNREADABLE = {"generated__jmeter-5.6.3__killed-SIGKILL.xml"}


def _xml_files(real: Path) -> list[Path]:
    files = [
        path
        for path in sorted((real / "jmeter").iterdir())
        if path.suffix in (".xml", ".jtl") and path.name not in UNREADABLE
    ]
    files += sorted((ROOT / "fixtures" / "jmeter" / "recorded").glob("*.xml.gz"))
    return [path for path in files if b"<testResults" in _content(path)[:4096]]


def _content(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def _valid_ref(match: re.Match[bytes]) -> bytes:
    text = match.group(1)
    code = int(text[1:], 16) if text[:1] in (b"x", b"X") else int(text)
    allowed = (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )
    return match.group() if allowed else b""


def _oracle(path: Path) -> list[tuple[Any, ...]]:
    """Each sample element's columns, read by ElementTree in Python, one at a time."""
    data = re.sub(rb"&#([xX][0-9a-fA-F]+|[0-9]+);", _valid_ref, _content(path))
    root = ET.fromstring(data)
    decode = (root.get("version") or "1.0") == "1.0"
    rows: list[dict[str, Any]] = []

    def text_of(value: str) -> str | None:
        value = urllib.parse.unquote_plus(value) if decode else value
        return value or None

    def walk(element: ET.Element, parent: dict[str, Any] | None) -> None:
        row: dict[str, Any] = dict.fromkeys(COLUMNS)
        variables = {}
        for key, value in element.attrib.items():
            if key in INTS:
                row[INTS[key]] = int(value)
            elif key == "hn":  # written plain, never URL-encoded
                row["hostname"] = value or None
            elif key in TEXTS:
                row[TEXTS[key]] = text_of(value)
            elif key == "s":
                row["success"] = value.lower() == "true"
            else:
                name = key.replace("__", "\0").replace("_-", "$").replace("\0", "_")
                variables[name] = text_of(value)
        row["variables"] = sorted(variables.items()) if variables else None
        row["label"] = row["label"] or ""
        message = row["response_message"]
        row["is_transaction"] = bool(message and message.startswith(TC_PREFIX))
        holds = row["is_transaction"] or (element.get("dt") == "" and message is None)
        if parent is None:
            row["is_subresult"] = False
        else:
            row["is_subresult"] = parent["is_subresult"] or not parent["holds"]
        row["holds"] = holds
        for child in element:
            if child.tag in SAMPLE_TAGS:
                walk(child, row)
            elif child.tag == "java.net.URL":
                row["url"] = child.text or ""
            elif child.tag == "responseFile":
                row["filename"] = child.text or None
            elif child.tag == "assertionResult" and "seen" not in row:
                # the first assertion that has a failureMessage, failing or not
                found = child.find("failureMessage")
                if found is not None:
                    row["seen"] = True
                    row["failure_message"] = found.text or None
        rows.append(row)

    for element in root:
        if element.tag in SAMPLE_TAGS:
            walk(element, None)
    # a transaction cut by the end of the run: rm and dt empty under a transaction's label
    tc_labels = {row["label"] for row in rows if row["is_transaction"]}
    for row in rows:
        if row["label"] in tc_labels and not row["response_message"] and not row["data_type"]:
            row["is_transaction"] = True
    return sorted((tuple(row[c] for c in COLUMNS) for row in rows), key=repr)


def _stored(store: Store) -> list[tuple[Any, ...]]:
    columns = ", ".join(c if c != "variables" else "map_entries(variables)" for c in COLUMNS)
    rows = []
    for row in store.con.execute(f"SELECT {columns} FROM samples").fetchall():
        entries = row[-1]
        variables = sorted((e["key"], e["value"]) for e in entries) if entries else None
        rows.append((*row[:-1], variables))
    return sorted(rows, key=repr)


@pytest.mark.slow
def test_stored_columns_match_an_elementtree_reading(real_dir: Path, store: Store) -> None:
    files = _xml_files(real_dir)
    assert len(files) >= 30, [f.name for f in files]
    compared = 0
    for path in files:
        store.con.execute("DELETE FROM samples")
        # start times as written: the end-time correction is another test's verdict
        ingest_file(store, path, options=IngestOptions(timestamps="start", replace=True))
        expected, stored = _oracle(path), _stored(store)
        assert len(stored) == len(expected), path.name
        for want, got in zip(expected, stored, strict=True):
            assert got == want, (path.name, dict(zip(COLUMNS, got, strict=True)), want)
        compared += len(stored)
    assert compared > 25_000  # the sample_log files alone hold 22,000


@pytest.mark.parametrize("value", ["0x1F", "0X10"])
def test_hexadecimal_integer_is_refused_as_int_does(
    tmp_path: Path, store: Store, value: str
) -> None:
    """Arrow's string cast reads "0x1F" as 31; Python's int(), the reader's rule, refuses
    it: the batch cast must not accept what the per-value reading refused."""
    from toolkit.errors import InputFormatError

    path = tmp_path / "hex.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<testResults version="1.2">\n'
        '<sample t="5" ts="1000" s="true" lb="a"/>\n'
        f'<sample t="{value}" ts="1001" s="true" lb="b"/>\n</testResults>\n'
    )
    with pytest.raises(InputFormatError) as info:
        ingest_file(store, path)
    assert "hex.xml:4" in str(info.value) and f"t='{value}'" in str(info.value)


@pytest.mark.parametrize(("value", "stored"), [(" 7", 7), ("+7", 7), ("1_0", 10), ("007", 7)])
def test_integers_python_reads_and_arrow_does_not_are_kept(
    tmp_path: Path, store: Store, value: str, stored: int
) -> None:
    """int() reads " 7", "+7" and "1_0" (the reader's rule before batching); Arrow's cast
    refuses them: such a batch takes the per-value path and stores the same numbers."""
    path = tmp_path / "odd.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<testResults version="1.2">\n'
        f'<sample t="{value}" ts="1000" s="true" lb="a"/>\n</testResults>\n'
    )
    ingest_file(store, path)
    assert store.con.execute("SELECT elapsed_ms FROM samples").fetchall() == [(stored,)]
