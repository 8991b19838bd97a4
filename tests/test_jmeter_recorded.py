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
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jmeter_checks import STATISTICS_FIELDS, assert_error_tables_equal_jmeters
from typer.testing import CliRunner

from toolkit import IngestOptions, InputFormatError, Store, ingest_file, open_store
from toolkit.cli import app
from toolkit.ingest.jmeter import DEFAULT_COLUMNS
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
    "yyyy-MM-dd HH:mm:ss.SSS": "%Y-%m-%d %H:%M:%S.%f",
}
#: the patterns JMeter's own reader tries (research/jmeter.md §1.3), so no --time-format
JMETER_PATTERNS = frozenset({"yyyy/MM/dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss.SSS"})


def _text(path: Path) -> str:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def _props(name: str) -> dict[str, str]:
    return dict(CASES[name]["properties"])


def _delimiter(name: str) -> str:
    given = _props(name).get(SAVE + "default_delimiter", ",")
    return "\t" if given == "\\t" else given


def _header(name: str) -> bool:
    return _props(name).get(SAVE + "print_field_names") != "false"


def _csv_rows(path: Path, delimiter: str = ",", header: bool = True) -> list[dict[str, str]]:
    """Every record per Python's csv module, as name -> text."""
    records = list(csv.reader(io.StringIO(_text(path), newline=""), delimiter=delimiter))
    names = records[0] if header else list(DEFAULT_COLUMNS)
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
    result = ingest_file(store, path, options=IngestOptions(**options))
    # no warning but the one for a header-less file, and the one --timestamps end gives
    assert all(
        w.endswith((",".join(DEFAULT_COLUMNS), "END time (--timestamps end)"))
        for w in result.warnings
    ), result.warnings
    cursor = store.con.execute(
        "SELECT label, success, start_ms, elapsed_ms, thread_name, is_transaction, "
        "is_subresult, response_code, response_message, failure_message, variables, "
        "bytes, url, latency_ms, connect_ms, idle_ms, data_type, sent_bytes, grp_threads, "
        "all_threads, sample_count, error_count, hostname, filename, encoding "
        "FROM samples ORDER BY rowid"
    )
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


@dataclass(frozen=True)
class Stored:
    """A recording as a store holds it: its rows (:func:`_ingest`) and ``warmup load``'s
    report of the store (:func:`load_report`). Read-only: tests share it."""

    rows: list[dict[str, Any]]
    report: dict[str, Any]

    @property
    def dashboard(self) -> dict[str, dict[str, Any]]:
        """The report's dashboard rows by transaction (JMeter's Statistics table)."""
        return {r["transaction"]: r for r in self.report["suites"][0]["dashboard"]}


_STORED: dict[tuple[Path, tuple[tuple[str, Any], ...]], Stored] = {}


def _stored(path: Path, **options: Any) -> Stored:
    """``path`` ingested with ``options`` into a store of its own and analysed, once per
    test session (per xdist worker): up to five tests read each recording's rows and report
    (each ingested it and ran up to two load analyses of its own before)."""
    key = (path, tuple(sorted(options.items())))
    if key not in _STORED:
        with open_store() as store:
            rows = _ingest(store, path, **options)
            _STORED[key] = Stored(rows, load_report(store))
    return _STORED[key]


def _timestamp_options(name: str) -> dict[str, Any]:
    """``--timestamps end`` for a run whose timestamps are end times (the user knows:
    JMeter's log says "Sample TimeStamps are END times")."""
    ends = CASES[name]["properties"].get("sampleresult.timestamp.start") == "false"
    return {"timestamps": "end"} if ends else {}


def _csv_options(name: str) -> dict[str, Any]:
    """The ingest options a user gives for the case: the zone JMeter wrote its dates in,
    and the pattern when it is none of JMeter's own."""
    props = _props(name)
    options: dict[str, Any] = _timestamp_options(name)
    pattern = props.get(SAVE + "timestamp_format")
    if pattern == "none":
        return options
    if pattern is not None and pattern not in JMETER_PATTERNS:
        options["time_format"] = TIME_FORMATS[pattern]
    if pattern is not None and not pattern.endswith("Z"):  # Z: each date has its offset
        options["timezone"] = CASES[name]["timezone"]
    return options


def _epoch_ms(value: str, name: str) -> int:
    """A CSV timeStamp as epoch ms, independently of the toolkit: digits, or the case's
    pattern in the case's zone."""
    pattern = _props(name).get(SAVE + "timestamp_format")
    if pattern is None or pattern == "none":
        return int(value)
    from zoneinfo import ZoneInfo

    parsed = datetime.strptime(value, TIME_FORMATS[pattern])
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=ZoneInfo(CASES[name]["timezone"]))
    return round(parsed.timestamp() * 1000)


#: CSV column -> (samples column, XML attribute); text columns are NULL when empty
FIELDS = {
    "elapsed": ("elapsed_ms", "t", int),
    "label": ("label", "lb", str),
    "responseCode": ("response_code", "rc", str),
    "responseMessage": ("response_message", "rm", str),
    "threadName": ("thread_name", "tn", str),
    "dataType": ("data_type", "dt", str),
    "bytes": ("bytes", "by", int),
    "sentBytes": ("sent_bytes", "sby", int),
    "grpThreads": ("grp_threads", "ng", int),
    "allThreads": ("all_threads", "na", int),
    "Filename": ("filename", None, str),
    "Latency": ("latency_ms", "lt", int),
    "Encoding": ("encoding", "de", str),
    "SampleCount": ("sample_count", "sc", int),
    "ErrorCount": ("error_count", "ec", int),
    "Hostname": ("hostname", "hn", str),
    "IdleTime": ("idle_ms", "it", int),
    "Connect": ("connect_ms", "ct", int),
}
#: the plan's JMeter variables; JMeter writes an unset one as ``null`` (CSV) or "" (XML)
VARIABLES = ("scenario", "iter", "never_set")


def _value(text: str | None, kind: type) -> Any:
    return None if text is None or text == "" else kind(text)


def _row_key(columns: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted(columns.items(), key=lambda item: item[0]))


def _variables(row: dict[str, Any]) -> tuple[tuple[str, str | None], ...] | None:
    found = row["variables"]
    return None if found is None else tuple(sorted(dict(found).items()))


def _stored_key(row: dict[str, Any], columns: Any, **more: Any) -> tuple[Any, ...]:
    """A stored row's ``columns`` (JMeter's names) and sample variables, as a key."""
    return _row_key(
        {**{c: row[FIELDS[c][0]] for c in columns}, "variables": _variables(row), **more}
    )


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
        "csv-no-timestamp",
        "csv-pipe-noheader-dates",
        "csv-minimal",
        "csv-appended",
        "xml-appended",
        "xml-default",
        "xml-allfields",
    }
    for case in CASES.values():
        assert (RECORDED / case["file"]).exists() and (RECORDED / case["twin"]).exists()
        assert "Total" in case["statistics"] or "error" in case["statistics"]


# --- CSV cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", CSV_CASES)
def test_csv_rows_labels_and_outcomes_are_jmeters(name: str) -> None:
    """Row count, labels verbatim (commas, quotes, TAB, non-ASCII), success and failure
    counts per label, response and failure messages as Python's csv reads the file."""
    path = RECORDED / CASES[name]["file"]
    rows = _csv_rows(path, _delimiter(name), _header(name))
    ours = _stored(path, **_csv_options(name)).rows
    assert len(ours) == len(rows) > 200
    assert Counter((r["label"], r["success"] == "true") for r in rows) == Counter(
        (r["label"], r["success"]) for r in ours
    )
    labels = {r["label"] for r in ours}
    assert {"home, with comma", 'say "hi"', "tab\there", "Ünïcödé ページ"} <= labels
    assert Counter(
        (r["label"], r.get("responseCode") or None, r.get("responseMessage") or None) for r in rows
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
    # every column of every record, as the file has it (sample variables: their map)
    present = [c for c in FIELDS if c in rows[0]]
    variables = [c for c in rows[0] if c in VARIABLES]
    assert variables == (list(VARIABLES) if "sample_variables" in _props(name) else [])

    def theirs(r: dict[str, str]) -> tuple[Any, ...]:
        found = {c: _value(r[c], FIELDS[c][2]) for c in present}
        found["URL"] = None if r.get("URL", "null") == "null" else r["URL"]
        found["variables"] = (
            tuple(sorted((v, None if r[v] == "null" else r[v]) for v in variables))
            if variables
            else None
        )
        return _row_key(found)

    assert Counter(_stored_key(r, present, URL=r["url"]) for r in ours) == Counter(
        theirs(r) for r in rows
    )


@pytest.mark.parametrize("name", CSV_CASES)
def test_csv_transaction_and_subresult_rows_are_flagged(name: str) -> None:
    """Transaction-controller rows (with and without a parent sample) are flagged as
    transactions, ``<label>-<N>`` rows of redirects and embedded resources (also inside a
    transaction) as sub-results, and nothing else (research/jmeter.md §1.6)."""
    path = RECORDED / CASES[name]["file"]
    ours = _stored(path, **_csv_options(name)).rows
    # without responseMessage nothing marks a transaction row (nor for JMeter)
    messages = "responseMessage" in _csv_rows(path, _delimiter(name), _header(name))[0]
    for row in ours:
        assert row["is_transaction"] == (messages and row["label"] in TC_LABELS), row
        assert row["is_subresult"] == _is_sub_label(row["label"]), row
    if _props(name).get(SAVE + "subresults") == "false":
        assert not any(r["is_subresult"] for r in ours)
        assert "gp child A" not in {r["label"] for r in ours}


@pytest.mark.parametrize("name", CSV_CASES)
def test_csv_samples_are_the_twins(name: str) -> None:
    """The same samples as the run's XML twin: thread, label, elapsed, success and the
    start time in epoch ms (the twin's ``ts``) — for formatted dates given the zone JMeter
    wrote them in; and the CSV's own timestamps, read independently, agree."""
    case = CASES[name]
    path = RECORDED / case["file"]
    rows = _csv_rows(path, _delimiter(name), _header(name))
    twin = _xml_rows(RECORDED / case["twin"])
    if _props(name).get(SAVE + "subresults") == "false":
        # the twin keeps them; the CSV has the top-level samples only
        twin = [t for t in twin if t["_top"]]
    ours = _stored(path, **_csv_options(name)).rows

    # what the file has of thread, label, elapsed, success, start
    thread, start = "threadName" in rows[0], "timeStamp" in rows[0]

    def key(th: Any, label: Any, elapsed: Any, ok: Any, ts: Any) -> tuple[Any, ...]:
        return (th if thread else None, label, int(elapsed), ok, int(ts) if start else None)

    want = Counter(key(t["tn"], t["lb"], t["t"], t["s"] == "true", t["ts"]) for t in twin)
    assert (
        Counter(
            key(
                r.get("threadName"),
                r["label"],
                r["elapsed"],
                r["success"] == "true",
                _epoch_ms(r["timeStamp"], name) if start else None,
            )
            for r in rows
        )
        == want
    )
    # with end times (sampleresult.timestamp.start=false, the twin's too) the toolkit's
    # start is the twin's ts less the sample's elapsed time
    ends = bool(_timestamp_options(name))
    assert (
        Counter(
            key(
                r["thread_name"],
                r["label"],
                r["elapsed_ms"],
                r["success"],
                r["start_ms"] + r["elapsed_ms"] * ends if start else None,
            )
            for r in ours
        )
        == want
    )
    if not start:
        assert all(r["start_ms"] is None for r in ours)


@pytest.mark.parametrize("name", [n for n in CSV_CASES if "error" not in CASES[n]["statistics"]])
def test_csv_dashboard_equals_jmeters(name: str, tmp_path: Path) -> None:
    """Per label and Total: count, errors, mean, median, min, max, p90/95/99, throughput and
    KB/s equal JMeter's own ``jmeter -g`` on this file (read with the case's properties)."""
    case = CASES[name]
    path = RECORDED / case["file"]
    want = case["statistics"]
    if _props(name).get(SAVE + "print_field_names") == "false":
        # JMeter's report generator drops a header-less file's first record (it reads it
        # as a header candidate and does not rewind; research/jmeter.md §1.5)
        delimiter = _delimiter(name)
        records = list(csv.reader(io.StringIO(_text(path), newline=""), delimiter=delimiter))
        assert want["Total"]["sampleCount"] < len(records)
        path = tmp_path / "without-first-record.csv"
        out = io.StringIO(newline="")
        csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(records[1:])
        path.write_text(out.getvalue(), encoding="utf-8")
    stored = _stored(path, **_csv_options(name))
    _same_statistics(stored.dashboard, want)
    # and its Errors and Top 5 Errors tables: quoted, comma-holding and non-ASCII reasons
    # and assertion messages, "Assertion failed" where the file has no failure message
    assert_error_tables_equal_jmeters(stored.report["suites"][0], case)


@pytest.mark.parametrize("name", sorted(CASES))
def test_all_is_every_sample_but_transactions_and_subresults(name: str) -> None:
    """``ALL`` in ``warmup load``: the plan's samplers only (no transaction-controller row,
    no redirect or embedded-resource sub-result; a file without responseMessage cannot
    mark its transactions) — count, errors, mean, min, max and p50/p90/p99 by JMeter's
    estimator (numpy's ``weibull``: commons-math LEGACY, research/jmeter.md §4) over the
    records as csv/ElementTree read them."""
    case = CASES[name]
    path = RECORDED / case["file"]
    if name in XML_CASES:
        rows = [(e["lb"], e["s"] == "true", int(e["t"])) for e in _xml_rows(path)]
        messages = True
    else:
        records = _csv_rows(path, _delimiter(name), _header(name))
        rows = [(r["label"], r["success"] == "true", int(r["elapsed"])) for r in records]
        messages = "responseMessage" in records[0]
    kept = [
        (ok, t)
        for label, ok, t in rows
        if not _is_sub_label(label) and not (messages and label in TC_LABELS)
    ]
    options = _timestamp_options(name) if name in XML_CASES else _csv_options(name)
    all_ = _stored(path, **options).report["suites"][0]["labels"][0]
    assert all_["label"] == "ALL"
    elapsed = np.array([t for _, t in kept], dtype=float)
    assert all_["samples"] == len(kept) > 100
    assert all_["errors"] == sum(not ok for ok, _ in kept)
    overall = all_["latency_ms"]["overall"]
    assert overall["mean"] == pytest.approx(elapsed.mean(), rel=1e-12)
    assert (overall["min"], overall["max"]) == (elapsed.min(), elapsed.max())
    for key, level in (("p50", 50), ("p90", 90), ("p99", 99)):
        assert overall[key] == pytest.approx(np.percentile(elapsed, level, method="weibull"))


@pytest.mark.parametrize("name", ["csv-appended", "xml-appended"])
def test_two_runs_appended_to_one_file_are_one_suite_with_a_gap(name: str, store: Store) -> None:
    """JMeter run twice without ``-f`` appends (research/jmeter.md §1.7): the CSV keeps its
    one header, the XML is reopened before its ``</testResults>``. Every sample of both runs
    is read (the tests above), and the pause between the runs (a JVM start) is a
    ``load-gap``, not throughput."""
    case = CASES[name]
    assert case["runs"] == 2
    text = _text(RECORDED / case["file"])
    assert text.count("timeStamp,") + text.count("<testResults") == 1
    _ingest(store, RECORDED / case["file"])
    (suite,) = load_report(store, window_s=0.25)["suites"]
    gaps = [f for f in suite["findings"] if f["rule"] == "load-gap"]
    assert len(gaps) == 1


def test_files_jmeters_dashboard_refuses_are_read() -> None:
    """JMeter's ``-g`` makes no report of a file without timeStamp, nor of one without the
    columns its consumers need; the toolkit reads both (the tests above)."""
    refused = {n: c["statistics"]["error"] for n, c in CASES.items() if "error" in c["statistics"]}
    assert set(refused) == {"csv-no-timestamp", "csv-minimal"}
    assert "'none' format" in refused["csv-no-timestamp"]
    assert "No column <responseMessage>" in refused["csv-minimal"]


def test_local_dates_without_timezone_are_read_as_utc_with_a_warning(store: Store) -> None:
    """JMeter wrote the Kolkata run's dates in the JVM's zone (UTC+05:30): without
    --timezone they are read as UTC, 5.5 h late, and the warning says to pass it."""
    case = CASES["csv-datefmt-kolkata"]
    result = ingest_file(store, RECORDED / case["file"])
    assert any("pass --timezone" in w for w in result.warnings)
    twin = _xml_rows(RECORDED / case["twin"])
    (first,) = store.con.execute("SELECT min(start_ms) FROM samples").fetchone() or (None,)
    assert first == min(int(t["ts"]) for t in twin) + (5 * 60 + 30) * 60_000


def test_a_dates_with_offsets_pattern_is_named_by_the_error(store: Store) -> None:
    """``yyyy-MM-dd'T'HH:mm:ss.SSSZ`` is none of JMeter's own reading patterns: the refusal
    names the --time-format that reads it, and that option gives the twin's epoch ms (the
    test above, csv-datefmt-offset)."""
    with pytest.raises(InputFormatError) as refused:
        ingest_file(store, RECORDED / CASES["csv-datefmt-offset"]["file"])
    assert "pass --time-format '%Y-%m-%dT%H:%M:%S.%f%z'" in str(refused.value)
    assert _csv_options("csv-datefmt-offset") == {"time_format": "%Y-%m-%dT%H:%M:%S.%f%z"}


@pytest.mark.parametrize(
    ("name", "flags"),
    [("csv-datefmt-kolkata", ["--timezone", "Asia/Kolkata"]), ("csv-tab", []), ("xml-default", [])],
)
def test_cli_ingest_then_load_json_gives_jmeters_statistics(
    name: str, flags: list[str], tmp_path: Path, runner: CliRunner
) -> None:
    """``warmup ingest FILE --db X`` then ``warmup load --db X --json``: the dashboard rows
    equal JMeter's."""
    db = tmp_path / "x.duckdb"
    done = runner.invoke(
        app, ["ingest", str(RECORDED / CASES[name]["file"]), "--db", str(db), *flags]
    )
    assert done.exit_code == 0, done.output
    shown = runner.invoke(app, ["load", "--db", str(db), "--json"])
    assert shown.exit_code == 0, shown.output
    (suite,) = json.loads(shown.stdout)["suites"]
    _same_statistics({r["transaction"]: r for r in suite["dashboard"]}, CASES[name]["statistics"])


# --- XML cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", XML_CASES)
def test_xml_rows_labels_outcomes_and_flags(name: str) -> None:
    """Every sample element, nested ones too, is one row with its label, outcome, times,
    first assertion failure message and URL as ElementTree reads them; nested samples are
    sub-results unless their parent is a transaction controller."""
    path = RECORDED / CASES[name]["file"]
    elems = _xml_rows(path)
    ours = _stored(path).rows
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
    # every attribute of every sample; XStream writes never_set as never__set
    wanted = "sample_variables" in _props(name)

    def theirs(e: dict[str, Any]) -> tuple[Any, ...]:
        found = {c: _value(e.get(a), kind) for c, (_, a, kind) in FIELDS.items() if a}
        found["variables"] = (
            tuple(sorted((v, e[v.replace("_", "__")] or None) for v in VARIABLES))
            if wanted
            else None
        )
        return _row_key(found)

    in_xml = [c for c in FIELDS if FIELDS[c][1] is not None]
    assert Counter(_stored_key(r, in_xml) for r in ours) == Counter(theirs(e) for e in elems)


@pytest.mark.parametrize("name", XML_CASES)
def test_xml_samples_are_the_csv_twins(name: str) -> None:
    """The XML file and its CSV twin hold the same samples (the XML flattened)."""
    case = CASES[name]
    twin = _csv_rows(RECORDED / case["twin"])
    ours = _stored(RECORDED / case["file"]).rows
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
def test_xml_dashboard_equals_jmeters_on_its_csv_twin(name: str) -> None:
    """JMeter's dashboard reads CSV only: its Statistics table of the run's CSV twin equals
    the toolkit's on the XML file."""
    stored = _stored(RECORDED / CASES[name]["file"], **_timestamp_options(name))
    _same_statistics(stored.dashboard, CASES[name]["statistics"])
    assert_error_tables_equal_jmeters(stored.report["suites"][0], CASES[name])


@pytest.mark.parametrize("name", ["csv-end-times", "xml-end-times"])
def test_end_timestamps_are_read_as_ends_when_told(name: str) -> None:
    """A run with ``sampleresult.timestamp.start=false`` writes END times, in a file that
    looks like any other JMeter 5.5 file: read as starts, every sample starts its elapsed
    time late and Total's throughput is off JMeter's; ``--timestamps end`` gives JMeter's
    (its report generator reads the same property)."""
    case = CASES[name]
    want = case["statistics"]["Total"]["throughput"]
    path = RECORDED / case["file"]
    figures = {}
    for timestamps in (None, "end"):
        with open_store() as store:
            ingest_file(store, path, options=IngestOptions(timestamps=timestamps))
            figures[timestamps] = _dashboard(store)["Total"]["throughput"]
    assert figures["end"] == pytest.approx(want, rel=1e-9)
    assert abs(figures[None] / want - 1) > 0.01  # 64.38/s against JMeter's 65.91/s
