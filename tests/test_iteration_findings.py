"""The iteration findings (toolkit/analyze/iteration_findings.py): one coherent answer on
how far off the benchmark's window is, the same in `warmup gaps`, `warmup detect` and the
report, each verdict checked against the runs themselves."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from report_checks import report_of

from toolkit.cli import app
from toolkit.report.sections.gaps import decode_gaps
from toolkit.resources import resource_dir

TARGET = 0.05
WINDOW = 2
#: the rules that used to restate the window's error against min-all
OLD_WINDOW_RULES = {
    "hot-window-gap",
    "gap-clickbench-window",
    "gap-worst-query",
    "min-all-underestimates",
    "min-all-suite-underestimates",
}


def _schema(name: str) -> Any:
    return json.loads((resource_dir("schemas") / name).read_text())


def clickbench(path: Path, system: str, tags: list[str], rows: list[list[float | None]]) -> Path:
    doc = {
        "system": system,
        "date": "2026-05-19",
        "machine": "c6a.metal",
        "tags": tags,
        "result": rows,
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def native_ten_runs(seed: int = 1) -> list[list[float | None]]:
    """A native engine recorded with 10 runs: cold run 3x, then hot runs with 3 % noise,
    no warm-up after the cold run (rounded to the ms like ClickBench)."""
    rng = np.random.default_rng(seed)
    rows: list[list[float | None]] = []
    for q in range(20):
        base = 0.2 + 0.05 * q
        hot = base * (1 + 0.03 * rng.standard_normal(9))
        rows.append([round(3 * base, 3), *(round(float(v), 3) for v in hot)])
    return rows


def _json(runner: Any, *args: str) -> Any:
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.stderr
    return json.loads(out.stdout)


def _grid_cell(suite: dict[str, Any], skip: int, window: int) -> dict[str, Any]:
    return next(
        c
        for c in suite["grid"]["cells"]
        if (c["skip"], c["window"], c["aggregator"]) == (skip, window, "min")
    )


def _steady_by_query(detect: dict[str, Any], suite: str) -> dict[str, float]:
    return {
        s["query"]: s["steady_s"]
        for s in detect["series"]
        if s["suite"] == suite and s["steady_s"] is not None
    }


def _runs_by_query(path: Path) -> list[list[float | None]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    result: list[list[float | None]] = doc["result"]
    return result


def _truth_window_error(runs: list[list[float | None]], steady: dict[str, float], m: int) -> float:
    """Mean over series of min(hot runs 1..m) / steady - 1, from the file's runs and the
    engine's steady values (queries are Q0, Q1, ... in file order)."""
    errors = []
    for q, row in enumerate(runs):
        ref = steady.get(f"Q{q}")
        window = (row or [])[1 : m + 1]
        if ref is None or len(window) < m or any(v is None for v in window):
            continue
        errors.append(min(v for v in window if v is not None) / ref - 1)
    return float(np.mean(errors))


@pytest.mark.parametrize("engine", ["jvm", "native"])
@pytest.mark.slow
def test_one_window_error_per_suite_equals_the_grid_parts(
    runner: Any, fixtures_dir: Path, tmp_path: Path, engine: str
) -> None:
    """On the 10-run JVM fixture and a 10-run native engine: one window-error finding, the
    same in gaps (min-all and steady), detect and the report; its total and parts are
    `gaps --grid`'s cell (skip 1, min of 2); the total equals the mean over series of
    min(run 2, run 3) / steady - 1 computed from the file; its k is the first window
    whose error (from the file) is within 5 %; no other finding gives the window's error."""
    if engine == "jvm":
        path = (
            fixtures_dir / "clickbench" / "jvm-engine" / "results" / "20260519" / "c6a.metal.json"
        )
    else:
        path = clickbench(tmp_path / "native10.json", "Native10", ["C++"], native_ten_runs())
    grid = _json(runner, "gaps", str(path), "--grid")
    jsonschema.validate(grid, _schema("gaps.schema.json"))
    (suite,) = grid["suites"]
    cell = _grid_cell(suite, 1, WINDOW)
    (window,) = [f for f in suite["findings"] if f["rule"] == "window-error"]
    nums = window["numbers"]
    assert nums["error"] == cell["mean_error"]
    assert nums["transient"] == cell["transient_bias"]
    assert nums["order_statistic"] == cell["order_statistic_bias"]
    assert nums["error"] == pytest.approx(nums["transient"] + nums["order_statistic"], abs=1e-12)
    # the figures read the same as `gaps --grid`'s text line
    text = runner.invoke(app, ["gaps", str(path), "--grid"]).stdout
    total = f"{cell['mean_error'] * 100:+.1f} %"
    assert f"mean {total} = transient {cell['transient_bias'] * 100:+.1f} %" in text
    assert f"is {total} off steady state" in window["message"]

    # truth from the runs and the engine's steady values
    detect = _json(runner, "detect", str(path))
    jsonschema.validate(detect, _schema("detect.schema.json"))
    steady = _steady_by_query(detect, suite["suite"])
    runs = _runs_by_query(path)
    assert nums["error"] == pytest.approx(_truth_window_error(runs, steady, WINDOW), abs=1e-9)
    errors = {m: _truth_window_error(runs, steady, m) for m in range(1, 10)}
    k = nums["k_for_target"]
    if abs(nums["error"]) <= TARGET:
        assert window["severity"] == "info"
    else:
        assert k is not None and abs(errors[k]) <= TARGET
        assert all(abs(errors[m]) > TARGET for m in range(1, k))
        assert window["severity"] == ("problem" if abs(nums["error"]) > 4 * TARGET else "warning")

    # every output: the same findings; none restates the window's error
    steady_ref = _json(runner, "gaps", str(path), "--reference", "steady")["suites"][0]
    plain = _json(runner, "gaps", str(path))["suites"][0]
    _, report = report_of(path)
    for found in (
        steady_ref["findings"],
        plain["findings"],
        detect["findings"],
        report["findings"],
    ):
        # the iteration family (the report also lists the score's and the ingest's)
        iteration = [
            f
            for f in found
            if f["rule"] != "score-ranks-move" and not f["rule"].startswith("ingest-")
        ]
        assert [f["message"] for f in iteration] == [f["message"] for f in suite["findings"]]
        assert not {f["rule"] for f in found} & OLD_WINDOW_RULES
        assert sum(f["rule"] == "window-error" for f in found) == 1
    # JIT is named only for the JVM system (tag Java)
    messages = " ".join(f["message"] for f in suite["findings"])
    assert ("JIT" in messages) == (engine == "jvm")
    if engine == "native":
        # no warm-up after the cold run: the window's error is the order statistic (noise)
        assert nums["cause"] == "noise" and nums["order_statistic"] < 0
        assert abs(nums["transient"]) < abs(nums["order_statistic"])


def test_the_same_runs_tagged_java_are_called_jit(runner: Any, tmp_path: Path) -> None:
    """A warm-up over several runs: JIT warm-up only with the tag Java; without it the
    same data are a multi-run warm-up (the data show it), never JIT."""
    rows: list[list[float | None]] = []
    for q in range(10):
        base = 0.1 + 0.02 * q
        rows.append([5 * base, 3 * base, 2 * base, 1.5 * base] + [base] * 6)
    words = {}
    for tag in ("Java", "Rust"):
        path = clickbench(tmp_path / f"{tag}.json", f"E-{tag}", [tag], rows)
        (suite,) = _json(runner, "gaps", str(path))["suites"]
        (window,) = [f for f in suite["findings"] if f["rule"] == "window-error"]
        words[tag] = window["message"]
        # truth: min(run 2, run 3) = 2 x steady for every query: +100 %
        assert window["numbers"]["error"] == pytest.approx(1.0)
    assert "JIT warm-up" in words["Java"]
    assert "JIT" not in words["Rust"] and "multi-run warm-up" in words["Rust"]


def test_slowdown_and_drift_reach_the_findings(runner: Any, tmp_path: Path) -> None:
    """A query 40 % slower from iteration 7 on and one that drifts up 6 % per run: both in
    one slowdown finding, the worst (the larger seconds per run) with its iteration and
    rise, equal to the medians of the file's runs before and after."""
    rows = native_ten_runs()[:12]
    step = [1.5, *[0.5] * 6, *[0.7] * 3]
    drift = [1.5, *(round(0.4 * (1 + 0.06 * i), 3) for i in range(9))]
    rows += [step, drift]
    path = clickbench(tmp_path / "slow.json", "Slow", ["C++"], rows)
    (suite,) = _json(runner, "gaps", str(path))["suites"]
    (slow,) = [f for f in suite["findings"] if f["rule"] == "slowdown"]
    assert slow["numbers"]["slowdown"] == 2
    assert "(Q12, Q13)" in slow["message"]
    nums = slow["numbers"]
    assert (nums["query"], nums["from_iteration"]) == ("Q12", 7)
    assert nums["before_s"] == pytest.approx(np.median(step[1:7]))
    assert nums["after_s"] == pytest.approx(np.median(step[7:]), rel=0.01)
    assert "from iteration 7 by +40%" in slow["message"]


def test_per_query_excess_ranks_by_seconds_and_skips_sub_resolution(
    runner: Any, tmp_path: Path
) -> None:
    """Q0: 0.5 ms vs 0.3 ms steady (1.7x, below what the 1 ms timer resolves): no finding.
    Q1: 3x but 20 ms; Q2: 1.2x but 0.4 s: Q2 comes first (seconds, not ratio)."""
    rows: list[list[float | None]] = [
        [0.002, 0.0005, 0.0005, *[0.0003] * 7],
        [0.05, 0.03, 0.03, *[0.01] * 7],
        [3.0, 2.4, 2.4, *[2.0] * 7],
        *native_ten_runs()[:6],
    ]
    path = clickbench(tmp_path / "excess.json", "Excess", ["C++"], rows)
    (suite,) = _json(runner, "gaps", str(path))["suites"]
    excess = [f for f in suite["findings"] if f["rule"] == "window-query-excess"]
    queries = [f["numbers"]["query"] for f in excess]
    assert "Q0" not in queries
    assert queries[:2] == ["Q2", "Q1"] or queries[0] == "Q2"
    q2 = excess[0]["numbers"]
    assert q2["excess_s"] == pytest.approx(2.4 - 2.0)
    for f in excess:
        assert f["numbers"]["excess_s"] >= f["numbers"]["min_effect_s"] >= 0.010


def test_still_warming_never_where_the_cold_run_is_fastest(runner: Any, tmp_path: Path) -> None:
    """3 runs: Q0 and Q1 get faster at run 3 with a slow cold run (still warming); Q2 gets
    faster at run 3 but its cold run is the fastest of all (not warming); Q3 drops by
    half a millisecond (below the timer)."""
    rows: list[list[float | None]] = [
        [1.0, 0.5, 0.4],
        [2.0, 1.0, 0.8],
        [0.1, 0.5, 0.4],
        [0.5, 0.0105, 0.0100],
    ]
    path = clickbench(tmp_path / "warm.json", "Warm", ["C++"], rows)
    (suite,) = _json(runner, "gaps", str(path))["suites"]
    (warm,) = [f for f in suite["findings"] if f["rule"] == "still-warming"]
    # truth from the runs: run 3 < run 2 by > 5 % and >= 1 ms, and the cold run slower
    truth = [
        q
        for q, (cold, r2, r3) in enumerate(rows)
        if r3 is not None
        and r2 is not None
        and cold is not None
        and r3 < 0.95 * r2
        and r2 - r3 > 0.010
        and cold > min(r2, r3)
    ]
    assert truth == [0, 1]
    assert warm["numbers"]["still_warming"] == len(truth)
    assert "(Q0, Q1;" in warm["message"]
    # the report's class table counts the same series; the detector alone also flags Q2
    import toolkit
    from toolkit.analyze.iteration_findings import still_warming
    from toolkit.pipeline.detect import detect_series

    with toolkit.open_store() as store:
        toolkit.ingest_file(store, path)
        results = detect_series(store)
    flagged = [d.query for d in results if d.analysis.short and d.analysis.short.still_warming]
    assert "Q2" in flagged
    assert [d.query for d in still_warming(results)] == ["Q0", "Q1"]


@pytest.mark.slow
def test_real_clickbench_still_warming_never_with_the_cold_run_fastest(
    runner: Any, real_dir: Path, need: Any
) -> None:
    """../shared/real/clickbench: every still-warming count equals the count from the
    files' own runs (run 3 below run 2 by > 5 % and > 10 ms, the cold run slower or
    failed)."""
    folder = real_dir / "clickbench"
    need(folder.is_dir(), f"{folder} missing")
    out = runner.invoke(app, ["gaps", str(folder), "--json"])
    assert out.exit_code == 0, out.stderr
    doc = json.loads(out.stdout)
    jsonschema.validate(doc, _schema("gaps.schema.json"))
    by_suite = {s["suite"]: s for s in doc["suites"]}
    checked = 0
    for suite in by_suite.values():
        pair = suite["hot_pair"]["per_query"]
        truth = sum(
            1
            for p in pair
            if None not in (p["first_hot_s"], p["second_hot_s"])
            and p["second_hot_s"] < 0.95 * p["first_hot_s"]
            and p["first_hot_s"] - p["second_hot_s"] > 0.010
            # a failed cold run is not a fast one: unknown, the hot runs decide
            and (p["cold_s"] is None or p["cold_s"] > p["second_hot_s"])
        )
        found = [f for f in suite["findings"] if f["rule"] == "still-warming"]
        if suite["runs"] == 3:
            assert (found[0]["numbers"]["still_warming"] if found else 0) == truth
            checked += 1
    assert checked > 30


def test_three_run_pair_spread_from_the_runs(runner: Any, real_dir: Path, need: Any) -> None:
    """Every real ClickBench result: the run 2 vs run 3 spread per query and summed, and the
    cold/hot ratio, equal what the file's rows give; the report says once that 3 runs
    have nothing beyond the window and shows the spread table."""
    folder = real_dir / "clickbench"
    need(folder.is_dir(), f"{folder} missing")
    doc = _json(runner, "gaps", str(folder))
    checked = 0
    for suite in doc["suites"]:
        if suite["runs"] != 3:
            continue
        # the rows of the file, through the gap table's own per-query cold and hot(1)
        pair = suite["hot_pair"]
        spreads = []
        for p, q in zip(pair["per_query"], suite["per_query"], strict=True):
            assert p["query"] == q["query"] and p["cold_s"] == q["cold_s"]
            assert p["first_hot_s"] == q["hot_s_by_k"][0]
            if p["first_hot_s"] is not None and p["second_hot_s"] is not None:
                assert min(p["first_hot_s"], p["second_hot_s"]) == q["hot_s_by_k"][1]
                spreads.append(abs(p["first_hot_s"] - p["second_hot_s"]))
        assert pair["spread_sum_s"] == pytest.approx(math.fsum(spreads))
        checked += 1
    assert checked > 30


def test_report_three_runs_said_once_with_the_pair_table(fixtures_dir: Path) -> None:
    """The 3-run native fixture: the gap section says once that min-all is the window and
    shows run 2 vs run 3 (1.25 r vs r: spread 0.25 r per query) instead of a table of
    zeros; the fixture's truth: the summed spread is 0.25 x the window sum."""
    path = fixtures_dir / "clickbench" / "native-engine"
    html, data = report_of(*sorted(path.rglob("*.json")))
    part = html[html.index('<section id="gaps">') :]
    part = part[: part.index("</section>")]
    assert part.count("has nothing beyond it") == 1
    assert 'id="table-hot-pair"' in part and 'id="table-gaps-0"' not in part
    (suite,) = decode_gaps(data["sections"]["gaps"])
    pair = suite["hot_pair"]
    assert pair["spread_share"] == pytest.approx(0.25)
    assert pair["queries"] == 42


def test_gap_chart_ranks_ties_by_the_first_hot_run(tmp_path: Path) -> None:
    """Nine 4-run suites whose window gap is 0 (min-all = min(run 2, run 3)) but whose
    first hot run is off by 0 … 80 %: the chart shows the 8 with the largest k = 1 gap,
    not the alphabetically first 8."""
    paths = []
    for n in range(9):
        first = 1.0 + 0.1 * n
        name = f"S{n}"  # S0 has the smallest k = 1 gap and comes first alphabetically
        paths.append(
            clickbench(tmp_path / f"{name}.json", name, ["C++"], [[3.0, first, 1.0, 1.0]] * 3)
        )
    html, _ = report_of(*paths)
    start = html.index('Plotly.newPlot(                        "fig-gaps",')
    body = html[start:].split(",", 1)[1].lstrip()
    traces, _ = json.JSONDecoder().raw_decode(body)
    names = {t["name"].split(" ")[0] for t in traces if t.get("name")}
    assert names == {f"S{n}" for n in range(1, 9)}, names


def test_tone_of_a_gap_above_the_target_is_not_green() -> None:
    from toolkit.report.sections import tone_of

    assert tone_of(0.08, 0.05, 0.10) == "warn"
    assert tone_of(0.04, 0.05, 0.10) == "good"
    assert tone_of(-0.12, 0.05, 0.10) == "bad"
    assert tone_of(None, 0.05) == ""


def test_fold_keeps_severities_apart() -> None:
    """Six suites with a window-error, one a problem and five within the target (info):
    the infos fold into one finding, the problem stays its own (it used to take the
    group's worst severity and hide among the others)."""
    from toolkit.analyze.findings import Finding
    from toolkit.analyze.iteration_findings import fold_findings

    def window(suite: str, error: float, severity: Any) -> tuple[str, Finding]:
        return suite, Finding("window-error", severity, suite, suite, "", {"effect": error})

    found = [window("A", 0.5, "problem")] + [window(f"S{n}", 0.01 * n, "info") for n in range(5)]
    folded = fold_findings(found, 6)
    assert [(f.severity, f.subject) for f in folded] == [
        ("problem", "A"),
        ("info", "5 of 6 suites"),
    ]
    assert folded[1].numbers["effect"] == pytest.approx(0.04)
