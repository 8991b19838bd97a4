"""The JTL ingesters against real Apache JMeter 5.5 output under a matrix of
``jmeter.save.saveservice.*`` settings (``fixtures/jmeter/recorded/``, written by
``fixtures/record_jmeter_matrix.py``; no java needed here).

Every case is one run of one plan (two thread groups; labels with commas, quotes, a TAB and
non-ASCII text; a 404, a 500 with a quoted reason phrase, a failing Response Assertion; a
redirect and embedded resources as sub-results; transaction controllers with and without a
parent sample). Each recording has a **twin** written by a second listener of the same run
with fixed settings: XML for a CSV case (epoch-ms ``ts``, sub-results nested under their
parent), CSV for an XML case. The checks are independent of the toolkit's readers: Python's
``csv`` and ``xml.etree`` on the files, the twin, and JMeter's own dashboard
(``statistics.json`` of ``jmeter -g`` on the case's CSV, recorded in ``dashboards.json``).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from jmeter_checks import STATISTICS_FIELDS

from toolkit import IngestOptions, Store, ingest_file
from toolkit.pipeline.load import load_report

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "fixtures" / "jmeter" / "recorded"
INDEX: dict[str, Any] = json.loads((RECORDED / "dashboards.json").read_text(encoding="utf-8"))
CASES: dict[str, Any] = INDEX["cases"]
CSV_CASES = sorted(n for n, c in CASES.items() if c["file"].split(".")[1] == "csv")
XML_CASES = sorted(n for n, c in CASES.items() if c["file"].split(".")[1] == "xml")
SAVE = "jmeter.save.saveservice."
#: the plan's transaction controllers (fixtures/record_jmeter_matrix.py)
TC_LABELS = frozenset({"TC plain", 'TC parent, "gen"'})
#: the plan's samplers whose children are sub-results (redirects, embedded resources)
SUB_PARENTS = ("redirect", "page", "gp child B")
#: JMeter's formatted-timestamp patterns in the matrix, as strptime formats
TIME_FORMATS = {
    "yyyy/MM/dd HH:mm:ss.SSS": "%Y/%m/%d %H:%M:%S.%f",
    "yyyy-MM-dd'T'HH:mm:ss.SSSZ": "%Y-%m-%dT%H:%M:%S.%f%z",
}
#: JMeter 5.x's default CSV columns (research/jmeter.md §1.1), for header-less files
DEFAULT_COLUMNS = [
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
]


def _text(path: Path) -> str:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def _props(name: str) -> dict[str, str]:
    return dict(CASES[name]["properties"])


def _delimiter(name: str) -> str:
    return "\t" if _props(name).get(SAVE + "default_delimiter") == "\\t" else ","


def _csv_rows(path: Path, delimiter: str = ",", header: bool = True) -> list[dict[str, str]]:
    """Every record per Python's csv module, as name -> text."""
    records = list(csv.reader(io.StringIO(_text(path), newline=""), delimiter=delimiter))
    names = records[0] if header else DEFAULT_COLUMNS
    body = records[1:] if header else records
    assert all(len(r) == len(names) for r in body)
    return [dict(zip(names, r, strict=True)) for r in body]


def _xml_rows(path: Path) -> list[dict[str, Any]]:
    """Every sample element (nested ones too) per ElementTree: its attributes, its first
    assertion failure message, its URL, and whether it is a sub-result (nested in a sample
    that is no transaction controller of the plan)."""
    rows: list[dict[str, Any]] = []

    def walk(elem: ET.Element, parent: dict[str, Any] | None) -> None:
        for child in elem:
            if child.tag not in ("sample", "httpSample"):
                continue
            row = dict(child.attrib)
            failures = [
                a.findtext("failureMessage")
                for a in child.findall("assertionResult")
                if a.find("failureMessage") is not None
            ]
            row["_failure"] = failures[0] if failures else None
            row["_url"] = child.findtext("java.net.URL")
            # the plan says which samples are transaction controllers
            row["_holds_samples"] = row.get("lb") in TC_LABELS
            row["_top"] = parent is None
            row["_sub"] = parent is not None and (parent["_sub"] or not parent["_holds_samples"])
            rows.append(row)
            walk(child, row)

    walk(ET.fromstring(_text(path)), None)
    return rows


def _ingest(store: Store, path: Path, **options: Any) -> list[dict[str, Any]]:
    ingest_file(store, path, options=IngestOptions(**options))
    cursor = store.con.execute(
        "SELECT label, success, start_ms, elapsed_ms, thread_name, is_transaction, "
        "is_subresult, response_code, response_message, failure_message, variables, "
        "bytes, url FROM samples ORDER BY rowid"
    )
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


def _csv_options(name: str) -> dict[str, Any]:
    """The ingest options a user gives for the case: the zone JMeter wrote its dates in,
    and the pattern when it is none of JMeter's own."""
    props = _props(name)
    options: dict[str, Any] = {}
    pattern = props.get(SAVE + "timestamp_format")
    if pattern is not None:
        options["timezone"] = CASES[name]["timezone"]
        if pattern != "yyyy/MM/dd HH:mm:ss.SSS":
            options["time_format"] = TIME_FORMATS[pattern]
    return options


def _epoch_ms(value: str, name: str) -> int:
    """A CSV timeStamp as epoch ms, independently of the toolkit: digits, or the case's
    pattern in the case's zone."""
    pattern = _props(name).get(SAVE + "timestamp_format")
    if pattern is None:
        return int(value)
    from zoneinfo import ZoneInfo

    parsed = datetime.strptime(value, TIME_FORMATS[pattern])
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=ZoneInfo(CASES[name]["timezone"]))
    return round(parsed.timestamp() * 1000)


def _dashboard(store: Store) -> dict[str, dict[str, Any]]:
    return {r["transaction"]: r for r in load_report(store)["suites"][0]["dashboard"]}


def _is_sub_label(label: str) -> bool:
    found = re.fullmatch(r"(.+)-\d+", label)
    return found is not None and found.group(1) in SUB_PARENTS


def _same_statistics(ours: dict[str, dict[str, Any]], want: dict[str, Any]) -> None:
    assert set(ours) == set(want)
    for label, expected in want.items():
        for field in STATISTICS_FIELDS:
            assert ours[label][field] == pytest.approx(expected[field], rel=1e-7, abs=1e-12), (
                label,
                field,
            )


# --- the recordings themselves -----------------------------------------------------------


def test_the_matrix_is_recorded() -> None:
    """Every case of the recorder's matrix has its file, its twin and JMeter's dashboard."""
    assert set(CASES) >= {
        "csv-default",
        "csv-allfields",
        "csv-tab",
        "csv-noheader",
        "csv-datefmt-utc",
        "csv-datefmt-kolkata",
        "csv-datefmt-offset",
        "csv-sample-variables",
        "csv-no-subresults",
        "csv-no-failure-message",
        "xml-default",
        "xml-allfields",
    }
    for case in CASES.values():
        assert (RECORDED / case["file"]).exists() and (RECORDED / case["twin"]).exists()
        assert "Total" in case["statistics"]


# --- CSV cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", CSV_CASES)
def test_csv_rows_labels_and_outcomes_are_jmeters(name: str, store: Store) -> None:
    """Row count, labels verbatim (commas, quotes, TAB, non-ASCII), success and failure
    counts per label, response and failure messages as Python's csv reads the file."""
    path = RECORDED / CASES[name]["file"]
    header = _props(name).get(SAVE + "print_field_names") != "false"
    rows = _csv_rows(path, _delimiter(name), header)
    ours = _ingest(store, path, **_csv_options(name))
    assert len(ours) == len(rows) > 200
    assert Counter((r["label"], r["success"] == "true") for r in rows) == Counter(
        (r["label"], r["success"]) for r in ours
    )
    labels = {r["label"] for r in ours}
    assert {"home, with comma", 'say "hi"', "tab\there", "Ünïcödé ページ"} <= labels
    assert Counter(
        (r["label"], r["responseCode"] or None, r["responseMessage"] or None) for r in rows
    ) == Counter((r["label"], r["response_code"], r["response_message"]) for r in ours)
    if "failureMessage" in rows[0]:
        assert Counter(r["failureMessage"] or None for r in rows) == Counter(
            r["failure_message"] for r in ours
        )
    else:
        assert all(r["failure_message"] is None for r in ours)
    # the run's failures: 404, 500 and the assertion
    failed = {r["label"] for r in ours if not r["success"]}
    assert {"not found", "server error", "maybe ok"} <= failed


@pytest.mark.parametrize("name", CSV_CASES)
def test_csv_transaction_and_subresult_rows_are_flagged(name: str, store: Store) -> None:
    """Transaction-controller rows (with and without a parent sample) are flagged as
    transactions, ``<label>-<N>`` rows of redirects and embedded resources (also inside a
    transaction) as sub-results, and nothing else (research/jmeter.md §1.6)."""
    ours = _ingest(store, RECORDED / CASES[name]["file"], **_csv_options(name))
    for row in ours:
        assert row["is_transaction"] == (row["label"] in TC_LABELS), row
        assert row["is_subresult"] == _is_sub_label(row["label"]), row
    if _props(name).get(SAVE + "subresults") == "false":
        assert not any(r["is_subresult"] for r in ours)
        assert "gp child A" not in {r["label"] for r in ours}


@pytest.mark.parametrize("name", CSV_CASES)
def test_csv_samples_are_the_twins(name: str, store: Store) -> None:
    """The same samples as the run's XML twin: thread, label, elapsed, success and the
    start time in epoch ms (the twin's ``ts``) — for formatted dates given the zone JMeter
    wrote them in; and the CSV's own timestamps, read independently, agree."""
    case = CASES[name]
    path = RECORDED / case["file"]
    header = _props(name).get(SAVE + "print_field_names") != "false"
    rows = _csv_rows(path, _delimiter(name), header)
    twin = _xml_rows(RECORDED / case["twin"])
    if _props(name).get(SAVE + "subresults") == "false":
        # the twin keeps them; the CSV has the top-level samples only
        twin = [t for t in twin if t["_top"]]
    ours = _ingest(store, path, **_csv_options(name))

    def key(thread: Any, label: Any, elapsed: Any, ok: Any, start: Any) -> tuple[Any, ...]:
        return (thread, label, int(elapsed), ok, int(start))

    want = Counter(key(t["tn"], t["lb"], t["t"], t["s"] == "true", t["ts"]) for t in twin)
    assert (
        Counter(
            key(
                r["threadName"],
                r["label"],
                r["elapsed"],
                r["success"] == "true",
                _epoch_ms(r["timeStamp"], name),
            )
            for r in rows
        )
        == want
    )
    assert (
        Counter(
            key(r["thread_name"], r["label"], r["elapsed_ms"], r["success"], r["start_ms"])
            for r in ours
        )
        == want
    )


@pytest.mark.parametrize("name", CSV_CASES)
def test_csv_dashboard_equals_jmeters(name: str, store: Store, tmp_path: Path) -> None:
    """Per label and Total: count, errors, mean, median, min, max, p90/95/99, throughput and
    KB/s equal JMeter's own ``jmeter -g`` on this file (read with the case's properties)."""
    case = CASES[name]
    path = RECORDED / case["file"]
    want = case["statistics"]
    if _props(name).get(SAVE + "print_field_names") == "false":
        # JMeter's report generator drops a header-less file's first record (it reads it
        # as a header candidate and does not rewind; research/jmeter.md §1.5)
        records = len(_csv_rows(path, header=False))
        assert want["Total"]["sampleCount"] < records
        text = _text(path)
        first = next(csv.reader(io.StringIO(text, newline="")))
        path = tmp_path / "without-first-record.csv"
        rest = io.StringIO(text, newline="")
        reader = csv.reader(rest)
        next(reader)
        out = io.StringIO(newline="")
        csv.writer(out, lineterminator="\n").writerows(reader)
        path.write_text(out.getvalue(), encoding="utf-8")
        assert first[2] in want
    _ingest(store, path, **_csv_options(name))
    _same_statistics(_dashboard(store), want)


# --- XML cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", XML_CASES)
def test_xml_rows_labels_outcomes_and_flags(name: str, store: Store) -> None:
    """Every sample element, nested ones too, is one row with its label, outcome, times,
    first assertion failure message and URL as ElementTree reads them; nested samples are
    sub-results unless their parent is a transaction controller."""
    path = RECORDED / CASES[name]["file"]
    elems = _xml_rows(path)
    ours = _ingest(store, path)
    assert len(ours) == len(elems) > 200

    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        return (
            r["tn"],
            r["lb"],
            int(r["t"]),
            int(r["ts"]),
            r["s"] == "true",
            r["_failure"],
            r["_url"],
            r.get("rm") or None,
            r["_sub"],
        )

    assert Counter(key(e) for e in elems) == Counter(
        (
            r["thread_name"],
            r["label"],
            r["elapsed_ms"],
            r["start_ms"],
            r["success"],
            r["failure_message"],
            r["url"],
            r["response_message"],
            r["is_subresult"],
        )
        for r in ours
    )
    for row in ours:
        assert row["is_transaction"] == (row["label"] in TC_LABELS), row
        assert row["is_subresult"] == _is_sub_label(row["label"]), row


@pytest.mark.parametrize("name", XML_CASES)
def test_xml_samples_are_the_csv_twins(name: str, store: Store) -> None:
    """The XML file and its CSV twin hold the same samples (the XML flattened)."""
    case = CASES[name]
    twin = _csv_rows(RECORDED / case["twin"])
    ours = _ingest(store, RECORDED / case["file"])
    assert Counter(
        (
            r["threadName"],
            r["label"],
            int(r["elapsed"]),
            int(r["timeStamp"]),
            r["success"] == "true",
            r["failureMessage"] or None,
        )
        for r in twin
    ) == Counter(
        (
            r["thread_name"],
            r["label"],
            r["elapsed_ms"],
            r["start_ms"],
            r["success"],
            r["failure_message"],
        )
        for r in ours
    )


@pytest.mark.parametrize("name", XML_CASES)
def test_xml_dashboard_equals_jmeters_on_its_csv_twin(name: str, store: Store) -> None:
    """JMeter's dashboard reads CSV only: its Statistics table of the run's CSV twin equals
    the toolkit's on the XML file."""
    _ingest(store, RECORDED / CASES[name]["file"])
    _same_statistics(_dashboard(store), CASES[name]["statistics"])
