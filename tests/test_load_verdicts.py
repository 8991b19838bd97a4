"""Issue 17 (items 1, 2, 5): load-test verdicts that hold on real runs — a warm-up longer
than half of the run gets a best estimate with a short-steady caveat, ``no-steady-state``
only where the retained part still trends, ALL and a label that is nearly all of it
agree, ``--steady-from``/``--steady-to`` set the steady window, and compare always
answers. Truths are counted from the files' rows, not from the analysis."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import polars as pl
import pytest
from test_load_findings import open_loop, rules, suite_of, write_csv_jtl
from typer.testing import CliRunner

from toolkit import Store, ingest_file, open_store, resource_dir
from toolkit.analyze.compare import compare_findings
from toolkit.analyze.timeseries import WarmupEnd, analyze_windows
from toolkit.cli import app
from toolkit.pipeline.load import compare_report, load_report

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "jmeter" / "recorded_warmup"
TRUTH: dict[str, Any] = json.loads((RECORDED / "truth.json").read_text())


def _completions(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Every sample's completion time (s from the first sample start) and label, read
    from the CSV JTL's rows with the csv module (not the toolkit's reader)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    start = np.array([int(r["timeStamp"]) for r in rows])
    ends = (start + np.array([int(r["elapsed"]) for r in rows]) - start.min()) / 1000.0
    return ends, np.array([r["label"] for r in rows])


def _rate(ends: np.ndarray, lo: float, hi: float) -> float:
    """Samples completing per s in [lo, hi)."""
    return float(((ends >= lo) & (ends < hi)).sum()) / (hi - lo)


def _per_second(ends: np.ndarray) -> np.ndarray:
    return np.bincount(np.floor(ends).astype(int))


# --- item 1: a long warm-up is a best estimate with its caveat -----------------------


def test_a_warmup_over_half_the_run_is_found_with_a_short_steady_warning(
    tmp_path: Path, store: Store
) -> None:
    """60 s, throughput rising 40 → 740/s over 34 s, then flat (the issue's JDBC run that
    plateaus from 33–37 s): MSER-5 is pinned at its n/2 cap. Was "inconclusive: still
    trends at the end" with no steady figure; now a warm-up within 10 % of 34 s, a steady
    CI holding the rate counted from the rows after it, and load-short-steady."""
    rng = np.random.default_rng(7)
    starts, el = open_loop(rng, 60, lambda t: 40 + 700 * min(t, 34) / 34, lambda t: 5)
    path = write_csv_jtl(tmp_path / "jit60.jtl", starts, el)
    suite = suite_of(store, path)
    all_ = suite["labels"][0]
    assert all_["warmup_status"] == "warmup", all_["warmup_status"]
    assert abs(all_["warmup_end_s"] - 34) <= 0.1 * 34, all_["warmup_end_s"]
    ends, _ = _completions(path)
    per_s = _per_second(ends)
    # the truth: where the per-second counts reach 95 % of the last 20 s' level
    level = per_s[38:58].mean()
    assert level == pytest.approx(740, rel=0.05)
    lo, hi = all_["throughput"]["steady_ci"]
    window = all_["steady_window"]
    assert window["source"] == "detected" and window["from_s"] == all_["warmup_end_s"]
    assert lo <= _rate(ends, window["from_s"], window["to_s"]) <= hi
    found = rules(suite)
    assert "load-no-steady-state" not in found
    short = found["load-short-steady"]
    assert short["severity"] == "warning"
    assert short["message"].startswith("steady for the last ")
    assert " of 60 s only" in short["message"]
    assert short["advice"] == "run at least 2x longer to confirm the steady figures"
    assert 0.5 < short["numbers"]["effect"] < 0.7


def test_a_run_still_climbing_at_its_end_is_no_steady_state_by_the_trend_test(
    tmp_path: Path, store: Store
) -> None:
    """Throughput rising over the whole 60 s: no-steady-state, and the finding names the
    trend test that decided (was "inconclusive" in the table under a "no steady state"
    finding)."""
    rng = np.random.default_rng(8)
    starts, el = open_loop(rng, 60, lambda t: 40 + 10 * t, lambda t: 5)
    path = write_csv_jtl(tmp_path / "climb.jtl", starts, el)
    suite = suite_of(store, path)
    all_ = suite["labels"][0]
    ends, _ = _completions(path)
    per_s = _per_second(ends)
    # the truth: the last 20 s still rise by more than 10 %
    assert per_s[50:59].mean() > 1.1 * per_s[40:49].mean()
    assert (all_["warmup_status"], all_["warmup_rule"]) == ("no-steady-state", "trend")
    assert all_["steady_window"] is None and all_["throughput"]["steady"] is None
    assert "(the trend test on the part after" in rules(suite)["load-no-steady-state"]["message"]


@pytest.mark.parametrize("name", ["f-half-run-warmup", "g-never-steady"])
def test_recorded_long_and_endless_warmups_match_their_truth(name: str) -> None:
    """JMeter 5.5 against a server whose service time falls 160 → 40 ms over the first
    20 s of 40 s (f), or over 80 s of a 40 s run (g, still falling at its end). Both were
    "inconclusive" (no steady figure, "still trends" for f too); now f's warm-up ends within
    a window or 10 % of 20 s and its steady CI holds the rate counted from the JTL after
    20 s; g is no-steady-state by the trend test."""
    truth = TRUTH["scenarios"][name]["truth"]
    path = RECORDED / f"{name}.jtl.gz"
    with open_store() as store:
        ingest_file(store, path)
        (suite,) = load_report(store)["suites"]
    all_ = suite["labels"][0]
    assert all_["warmup_status"] == truth["warmup_status"], all_
    ends, _ = _completions(path)
    if truth["warmup_end_s"] is None:
        assert all_["warmup_rule"] == "trend" and all_["throughput"]["steady_ci"] is None
        per_s = _per_second(ends)
        # the truth: the last 10 s complete more than the 10 s before them
        assert per_s[29:39].sum() > 1.05 * per_s[19:29].sum()
        return
    end = truth["warmup_end_s"]
    assert abs(all_["warmup_end_s"] - end) <= max(1.0, 0.1 * end), all_["warmup_end_s"]
    lo, hi = all_["throughput"]["steady_ci"]
    stop = float(np.floor(ends.max()))
    assert lo <= _rate(ends, end, stop) <= hi, (lo, hi)


# --- item 2: ALL and its only label agree ---------------------------------------------


def test_a_label_holding_nearly_all_samples_takes_alls_verdict() -> None:
    """analyze_windows with ``verdict_from``: the label's own series would read a warm-up
    (it rises for 20 windows), ALL says no steady state; the label gets ALL's verdict, and
    with a steady ALL, ALL's warm-up end and cool-down."""
    rng = np.random.default_rng(2)
    n = rng.poisson(np.r_[np.linspace(100, 300, 20), np.full(80, 300.0)]).astype(float)
    frame = pl.DataFrame({"w": np.arange(100), "n": n, "mean_ms": np.full(100, 5.0)})
    own = analyze_windows("q", frame, window_s=1.0, samples=int(n.sum()), errors=0,
                          duration_s=100.0)  # fmt: skip
    assert own.warmup.status == "warmup"
    suite = analyze_windows("ALL", frame, window_s=1.0, samples=int(n.sum()), errors=0,
                            duration_s=100.0)  # fmt: skip
    never = type(suite)(**{**suite.__dict__, "warmup": WarmupEnd("no-steady-state", None, None,
                           None, None, "trend")})  # fmt: skip
    taken = analyze_windows("q", frame, window_s=1.0, samples=int(n.sum()), errors=0,
                            duration_s=100.0, verdict_from=never)  # fmt: skip
    assert (taken.warmup.status, taken.warmup.decided_by) == ("no-steady-state", "all-label")
    assert taken.throughput_steady is None and taken.steady_from_window is None
    later = WarmupEnd("warmup", 40, 40.0, None, None, "mser")
    shifted = type(suite)(**{**suite.__dict__, "warmup": later, "cooldown_window": 90})
    taken = analyze_windows("q", frame, window_s=1.0, samples=int(n.sum()), errors=0,
                            duration_s=100.0, verdict_from=shifted)  # fmt: skip
    assert (taken.warmup.end_window, taken.steady_from_window, taken.steady_to_window) == (
        40, 40, 90,
    )  # fmt: skip
    assert taken.throughput_steady is not None
    assert taken.throughput_steady.mean == pytest.approx(n[40:90].mean())


# slow: analyses a real run of ../shared/real/jmeter-runs (406,000 or 880,000 samples);
# the quick run still reads those runs (test_real_runs_that_never_flatten_are_inconclusive)
@pytest.mark.ci_only
@pytest.mark.real
def test_real_h2_run_all_and_its_point_lookup_agree(real_dir: Path, store: Store) -> None:
    """h2_point_lookup_10t_60s: point_lookup holds 880,918 of ALL's 880,922 samples (the
    other 4 are setUp statements): one verdict for both, from ALL."""
    path = real_dir / "jmeter-runs" / "h2_point_lookup_10t_60s.csv.jtl.gz"
    ingest_file(store, path)
    (suite,) = load_report(store)["suites"]
    by = {x["label"]: x for x in suite["labels"]}
    all_, q = by["ALL"], by["point_lookup"]
    assert (all_["samples"], q["samples"]) == (880_922, 880_918)
    assert q["warmup_rule"] == "all-label"
    for key in ("warmup_status", "warmup_end_s", "cooldown_start_s", "steady_window"):
        assert q[key] == all_[key], key
    # the truth of that verdict: the per-second counts of the last 20 s still move by
    # far more than 5 % (19,894 … 58,156 … 23,597/s)
    ends, labels = _completions(path)
    per_s = _per_second(ends[labels == "point_lookup"])
    assert per_s[40:60].max() > 2 * per_s[40:60].min()
    assert all_["warmup_status"] == "no-steady-state"


# --- item 5: --steady-from/--steady-to and compare ------------------------------------


# slow: analyses a real run of ../shared/real/jmeter-runs (406,000 or 880,000 samples);
# the quick run still reads those runs (test_real_runs_that_never_flatten_are_inconclusive)
@pytest.mark.ci_only
@pytest.mark.real
def test_steady_from_sets_every_labels_window(real_dir: Path, store: Store) -> None:
    """pg_point_lookup_10t_60s has no steady state; --steady-from 50s --steady-to 58s
    gives every label steady figures over [50, 58) s, and the JSON says so; the rate is
    the rows' completions in that window (102,140 / 8 s)."""
    path = real_dir / "jmeter-runs" / "pg_point_lookup_10t_60s.csv.jtl.gz"
    ingest_file(store, path)
    payload = load_report(store, steady_from_s=50.0, steady_to_s=58.0)
    jsonschema.validate(payload, _schema("load.schema.json"))
    (suite,) = payload["suites"]
    all_ = suite["labels"][0]
    assert all_["warmup_status"] == "no-steady-state"  # the verdict stays the detected one
    assert all_["steady_window"] == {"from_s": 50.0, "to_s": 58.0, "source": "user"}
    ends, labels = _completions(path)
    rate = _rate(ends[labels == "point_lookup"], 50.0, 58.0)
    assert all_["throughput"]["steady"] == pytest.approx(rate)
    lo, hi = all_["throughput"]["steady_ci"]
    assert lo <= rate <= hi
    # a one-sample setUp label has no full window inside: no steady figures, no window
    setup = next(x for x in suite["labels"] if x["label"] == "setup_count_rows")
    assert setup["steady_window"] is None and setup["throughput"]["steady"] is None


def _schema(name: str) -> dict[str, Any]:
    return json.loads((resource_dir("schemas") / name).read_text())  # type: ignore[no-any-return]


@pytest.mark.slow
def test_compare_without_steady_state_answers_overall_and_with_steady_from(
    tmp_path: Path,
) -> None:
    """Two runs still climbing at their end (no steady state): compare gave notes and a
    table of dashes. Now the overall ratio with a Fieller interval that holds the ratio of
    the rows' whole-run rates, a note and a compare-overall finding that say so; with
    --steady-from 40s the ratio is of [40 s, end) and the rows say "user"."""
    rng = np.random.default_rng(9)
    paths = []
    for name, scale in (("a", 1.0), ("b", 1.5)):
        starts, el = open_loop(rng, 60, lambda t, s=scale: s * (40 + 4 * t), lambda t: 5)
        paths.append(write_csv_jtl(tmp_path / f"{name}.jtl", starts, el))
    with open_store() as store:
        for path in paths:
            ingest_file(store, path)
        result = compare_report(store, "a", "b")
        user = compare_report(store, "a", "b", steady_from_s=40.0)
    jsonschema.validate(result, _schema("compare.schema.json"))
    jsonschema.validate(user, _schema("compare.schema.json"))
    row = result["labels"][0]
    assert row["basis"] == "overall" and not row["steady"]
    assert row["steady_window"]["a"]["source"] == "overall"
    completions = [_completions(p)[0] for p in paths]
    truth = [float(e.size) / (e.max()) for e in completions]
    lo, hi = row["throughput"]["ci"]
    assert lo <= truth[1] / truth[0] <= hi, (lo, hi, truth)
    assert any("overall figures" in note for note in result["notes"])
    (finding,) = compare_findings(result)
    assert finding.rule == "compare-overall" and finding.severity == "warning"
    assert finding.numbers["effect"] == pytest.approx(abs(row["throughput"]["ratio"] - 1))
    urow = user["labels"][0]
    assert urow["basis"] == "steady" and urow["steady_window"]["b"]["source"] == "user"
    ulo, uhi = urow["throughput"]["ci"]
    stops = [float(np.floor(e.max())) - 1 for e in completions]
    rates = [_rate(e, 40.0, stop) for e, stop in zip(completions, stops, strict=True)]
    assert ulo <= rates[1] / rates[0] <= uhi, (ulo, uhi, rates)
    (finding,) = compare_findings(user)
    assert "steady (--steady-from/--steady-to) throughput" in finding.message


def test_steady_bounds_on_the_command_line(tmp_path: Path) -> None:
    """--steady-from/--steady-to on load and compare; a window that ends before it
    starts, or a value that is no duration, is one line and exit 1."""
    rng = np.random.default_rng(3)
    starts, el = open_loop(rng, 40, lambda t: 100, lambda t: 5)
    path = write_csv_jtl(tmp_path / "flat.jtl", starts, el)
    runner = CliRunner()
    res = runner.invoke(app, ["load", str(path), "--steady-from", "10s", "--steady-to", "30s"])
    assert res.exit_code == 0, res.output
    assert "10–30 (set)" in res.stdout
    res = runner.invoke(app, ["load", str(path), "--steady-from", "30s", "--steady-to", "10s"])
    assert res.exit_code == 1 and "--steady-to 10 s is not after --steady-from 30 s" in res.output
    res = runner.invoke(app, ["load", str(path), "--steady-from", "soon"])
    assert res.exit_code == 1 and "--steady-from 'soon'" in res.output


@pytest.mark.slow
def test_report_ab_section_draws_overall_and_steady_from_ratios(tmp_path: Path) -> None:
    """The report's A/B section for two runs without a steady state drew an empty chart
    (every ratio null); now it draws the overall ratios with their intervals and says so,
    and with --steady-from the ratios of that window."""
    from report_checks import report_of
    from test_report_sections import figure_json

    rng = np.random.default_rng(11)
    paths = []
    for name, scale in (("a", 1.0), ("b", 1.5)):
        starts, el = open_loop(rng, 60, lambda t, s=scale: s * (40 + 4 * t), lambda t: 5)
        paths.append(write_csv_jtl(tmp_path / f"{name}.jtl", starts, el))
    for kwargs, basis in (({}, "overall"), ({"load_steady_from_s": 40.0}, "steady")):
        html, data = report_of(*paths, **kwargs)
        (pair,) = data["sections"]["compare"]["pairs"]
        (row,) = (r for r in pair["labels"] if r["label"] == "ALL")
        assert row["basis"] == basis
        lo, hi = row["throughput"]["ci"]
        assert lo < row["throughput"]["ratio"] < hi
        traces, _ = figure_json(html, "fig-compare-0")
        # the chart draws the ratio (rounded to 4 digits for the page)
        assert traces[0]["x"][traces[0]["y"].index("ALL")] == pytest.approx(
            row["throughput"]["ratio"], abs=1e-3
        )
        rules_found = {f["rule"] for f in data["findings"]}
        assert ("compare-overall" in rules_found) == (basis == "overall")


def test_a_labels_earlier_end_stands_only_where_its_own_series_shows_it() -> None:
    """A label whose rules end its warm-up at window 5 while ALL's ends at 30: where the
    label's windows 5–29 run 10 % below its windows from 30 on (ALL's end shows in its own
    series), its end moves to ALL's; where they match, its own earlier end stands."""
    from toolkit.analyze.timeseries import _confirm_earlier_end

    rng = np.random.default_rng(4)
    own = WarmupEnd("warmup", 5, 5.0, None, None, "mser")
    suite = WarmupEnd("warmup", 31, 31.0, None, None, "mser")  # the label starts at 1
    latency = np.full(100, 5.0)
    stepped = rng.normal(np.r_[np.full(30, 900.0), np.full(70, 1000.0)], 10)
    flat = rng.normal(np.full(100, 1000.0), 10)
    moved = _confirm_earlier_end(own, suite, 1, stepped, latency, batch=5)
    assert (moved.end_window, moved.decided_by) == (30, "all-label")
    # the truth of the move: the label's own mean differs by 10 % across ALL's end
    assert stepped[30:].mean() / stepped[5:30].mean() == pytest.approx(1.11, abs=0.01)
    assert _confirm_earlier_end(own, suite, 1, flat, latency, batch=5) == own
