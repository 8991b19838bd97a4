"""Conformance with Apache JMeter's own dashboard beyond HTMLReportExpect.json: the
Statistics table that JMeter 5.5's ``jmeter -g`` wrote for real JTLs and for a generated
one (recorded by ``fixtures/record_jmeter_dashboards.py``) equals ``warmup load``'s
dashboard rows field by field; with JMeter's default 20,000-sample percentile window it
does not, and its percentiles are those of the last 20,000 samples."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jmeter_checks import STATISTICS_FIELDS, assert_error_tables_equal_jmeters

from toolkit import Store, ingest_file
from toolkit.options import apdex_thresholds
from toolkit.pipeline.load import load_report

ROOT = Path(__file__).resolve().parent.parent
RECORDED: dict[str, Any] = json.loads((ROOT / "fixtures" / "jmeter_dashboard.json").read_text())
PERCENTILES = {"medianResTime": 50, "pct1ResTime": 90, "pct2ResTime": 95, "pct3ResTime": 99}
#: the KB/s figures and the column each needs
RATE_COLUMNS = {"receivedKBytesPerSec": "bytes", "sentKBytesPerSec": "sentBytes"}


def _windowed(tmp_path: Path) -> Path:
    """The generated case's JTL, written again by the recorder's own function."""
    spec = importlib.util.spec_from_file_location(
        "record_jmeter_dashboards", ROOT / "fixtures" / "record_jmeter_dashboards.py"
    )
    assert spec is not None and spec.loader is not None
    recorder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorder)
    path = tmp_path / "windowed.jtl"
    digest = recorder.write_windowed(path)
    assert digest == RECORDED["windowed"]["sha256"], (
        "toolkit.synthetic.write_jtl no longer writes the recorded file: "
        "re-run python fixtures/record_jmeter_dashboards.py"
    )
    return path


def _input(case: dict[str, Any], real_dir: Path | None, tmp_path: Path) -> Path:
    if case["input"] == "windowed":
        return _windowed(tmp_path)
    assert real_dir is not None
    return real_dir / "jmeter" / case["input"]


def _dashboard(store: Store, path: Path) -> dict[str, dict[str, Any]]:
    ingest_file(store, path)
    return {r["transaction"]: r for r in load_report(store)["suites"][0]["dashboard"]}


def _header(path: Path, delimiter: str) -> list[str]:
    with path.open(encoding="utf-8", newline="") as handle:
        return next(csv.reader(handle, delimiter=delimiter))


REAL_CASES = [n for n, c in RECORDED["cases"].items() if c["input"] != "windowed"]


@pytest.mark.real
@pytest.mark.parametrize("name", REAL_CASES)
def test_dashboard_equals_jmeter_on_real_jtls(
    name: str, real_dir: Path, tmp_path: Path, store: Store
) -> None:
    case = RECORDED["cases"][name]
    path = _input(case, real_dir, tmp_path)
    delimiter = "\t" if "jmeter.save.saveservice.default_delimiter" in case["properties"] else ","
    header = _header(path, delimiter)
    ours = _dashboard(store, path)
    want = case["statistics"]
    assert set(ours) == set(want)
    for label, expected in want.items():
        for field in STATISTICS_FIELDS:
            mine = ours[label][field]
            if mine is None and field in RATE_COLUMNS:
                # a KB/s of a file without that column: JMeter prints 0.0, the toolkit
                # NULL ("not reported", DESIGN.md), never an invented zero
                assert RATE_COLUMNS[field] not in header and expected[field] == 0.0
                continue
            # JMeter prints errorPct as a float (1.1764706): relative 1e-7
            assert mine == pytest.approx(expected[field], rel=1e-7, abs=1e-12), (label, field)


def test_dashboard_equals_jmeter_with_every_sample_in_its_window(
    tmp_path: Path, store: Store
) -> None:
    """``-Jjmeter.reportgenerator.statistic_window=-1``: JMeter's percentiles over every
    sample, the toolkit's exact figures."""
    case = RECORDED["cases"]["windowed-exact"]
    assert case["properties"] == {"jmeter.reportgenerator.statistic_window": "-1"}
    ours = _dashboard(store, _input(case, None, tmp_path))
    want = case["statistics"]
    assert set(ours) == set(want) == {"Total", "browse", "buy"}
    for label, expected in want.items():
        assert expected["sampleCount"] > 20_000  # the default window would cut every label
        for field in STATISTICS_FIELDS:
            assert ours[label][field] == pytest.approx(expected[field], rel=1e-7), (label, field)


@pytest.mark.slow
def test_jmeter_default_window_takes_percentiles_of_the_last_20000_samples(
    tmp_path: Path, store: Store
) -> None:
    """JMeter's default dashboard on the same file: counts, mean, extremes and rates agree
    with the toolkit; its percentiles are those of the last 20,000 samples of each label
    in file order (research/jmeter.md §4), below the exact ones after a slow warm-up."""
    case = RECORDED["cases"]["windowed-default"]
    path = _input(case, None, tmp_path)
    ours = _dashboard(store, path)
    want = case["statistics"]
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for label, expected in want.items():
        for field in set(STATISTICS_FIELDS) - set(PERCENTILES):
            assert ours[label][field] == pytest.approx(expected[field], rel=1e-7), (label, field)
        elapsed = np.array(
            [float(r["elapsed"]) for r in rows if label == "Total" or r["label"] == label]
        )
        last = elapsed[-20_000:]
        for field, p in PERCENTILES.items():
            # commons-math's LEGACY estimator = Weibull h = p(n+1), clamped (numpy 'weibull')
            assert expected[field] == pytest.approx(np.percentile(last, p, method="weibull"))
        assert ours[label]["pct1ResTime"] > 1.05 * expected["pct1ResTime"], label


@pytest.mark.parametrize("name", list(RECORDED["cases"]))
def test_error_tables_equal_jmeter(
    name: str, request: pytest.FixtureRequest, tmp_path: Path, store: Store
) -> None:
    """The dashboard's Errors table (type, count, % in errors, % in all samples) and Top 5
    Errors by sampler table (Total first, then each label with errors) equal what JMeter
    5.5's ``jmeter -g`` wrote, on its own test file, JMeter 5.6.3's output (assertion
    failures, a ``199`` code, transaction controllers), Taurus's Cyrillic labels and a
    generated file with three error types, two tied."""
    case = RECORDED["cases"][name]
    real = request.getfixturevalue("real_dir") if case["input"] != "windowed" else None
    ingest_file(store, _input(case, real, tmp_path))
    suite = load_report(store)["suites"][0]
    assert_error_tables_equal_jmeters(suite, case)


@pytest.mark.parametrize("name", list(RECORDED["cases"]))
def test_apdex_equals_jmeter(
    name: str, request: pytest.FixtureRequest, tmp_path: Path, store: Store
) -> None:
    """The dashboard's APDEX per label and Total, and each label's thresholds, equal
    JMeter 5.5's APDEX table, with its default thresholds (500/1500 ms) and, on JMeter
    5.6.3's output, with T 20 and F 60 ms and per-label ones in JMeter's own property
    syntax (``Q1.*:10|30;TC parent:100|200``: a regex and a name with a space), passed as
    ``--apdex`` and ``--apdex-per-label`` take them. Total counts transaction-controller
    samples with the default thresholds (``ApdexSummaryConsumer``)."""
    case = RECORDED["cases"][name]
    props = {k.removeprefix("jmeter.reportgenerator."): v for k, v in case["properties"].items()}
    custom = "apdex_satisfied_threshold" in props
    thresholds = apdex_thresholds(
        f"{props['apdex_satisfied_threshold']},{props['apdex_tolerated_threshold']}"
        if custom
        else None,
        props.get("apdex_per_transaction"),
    )
    real = request.getfixturevalue("real_dir") if case["input"] != "windowed" else None
    ingest_file(store, _input(case, real, tmp_path))
    suite = load_report(store, apdex=thresholds)["suites"][0]
    ours = {row["transaction"]: row["apdex"] for row in suite["dashboard"]}
    want = case["apdex"]
    assert set(ours) == set(want)
    for label, (apdex, t_ms, f_ms) in want.items():
        assert ours[label] == pytest.approx(apdex, rel=1e-12, abs=1e-15), label
        if label != "Total":
            entry = next(x for x in suite["labels"] if x["label"] == label)
            assert entry["apdex_thresholds_ms"] == [t_ms, f_ms], label
    if custom:
        # the thresholds changed the scores: JMeter's defaults give other figures
        default = RECORDED["cases"]["jmeter-5.6.3-default"]["apdex"]
        assert want["Q1, with comma"][0] == 0.0 < default["Q1, with comma"][0]
        assert want["Total"][1:] == [20, 60] and want["TC parent"][1:] == [100, 200]


def test_error_types_follow_jmeter_rules(tmp_path: Path, store: Store) -> None:
    """JMeter's error type per failed sample (``ErrorsSummaryConsumer.getErrorKey``): code
    and message; a success code (200–399) or an empty code with a failure message: the
    message, else "Assertion failed"; transaction-controller samples left out; only the
    five most frequent types per sampler."""
    path = tmp_path / "types.csv"
    rows = [
        ("a", "500", "Internal Server Error", "false", ""),  # code/message
        ("a", "500", "", "false", ""),  # code alone
        ("a", "200", "OK", "false", "Expected <b>x</b>"),  # assertion on a 200: its message
        ("a", "302", "Found", "false", ""),  # a success code, no message
        ("a", "", "", "false", "Timeout"),  # no code, a failure message
        ("a", "199", "OK", "false", "ignored"),  # 199 is no success code: code/message
        ("a", "04a", "x", "false", "m"),  # not a number: code/message
        ("a", "200", "OK", "true", ""),  # success
        (
            "tc",
            "200",
            "Number of samples in transaction : 2, number of failing samples : 1",
            "false",
            "",
        ),  # the transaction-controller sample
        *[("b", str(400 + i), "E", "false", "") for i in range(7) for _ in range(7 - i)],
    ]
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["timeStamp", "elapsed", "label", "responseCode", "responseMessage",
                         "success", "failureMessage"])  # fmt: skip
        for i, (label, code, message, ok, failure) in enumerate(rows):
            writer.writerow([1_700_000_000_000 + i, 10, label, code, message, ok, failure])
    ingest_file(store, path)
    suite = load_report(store)["suites"][0]
    types = {r["type"]: r["errorCount"] for r in suite["dashboard_errors"]}
    assert {k: v for k, v in types.items() if not k.startswith("4")} == {
        "500/Internal Server Error": 1,
        "500": 1,
        "Expected <b>x</b>": 1,
        "Assertion failed": 1,
        "Timeout": 1,
        "199/OK": 1,
        "04a/x": 1,
    }
    samples = len(rows) - 1  # the transaction-controller sample is not counted
    assert sum(types.values()) == samples - 1  # one success
    assert suite["dashboard_errors"][0]["pctInAllSamples"] == pytest.approx(700 / samples)
    top = {r["sample"]: r for r in suite["dashboard_top_errors"]}
    assert list(top) == ["Total", "b", "a"]
    assert [e["errorCount"] for e in top["b"]["errors"]] == [7, 6, 5, 4, 3]
    assert "tc" not in top and top["Total"]["sampleCount"] == samples
