"""Report sections fed by the analyzers: warm-up detection in the trajectories, ClickBench
score, load tests (bounded by windows, not rows) and the A/B comparison."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from report_checks import WHEN, embedded_data, report_data_schema, report_of

import toolkit
from toolkit.cli import app
from toolkit.report.model import Chart
from toolkit.report.render import build_report, render_html
from toolkit.report.sections import MAX_LOAD_WINDOWS, chart_window_s
from toolkit.report.sections.series_columns import decode_series
from toolkit.synthetic import JtlTruth, write_jtl

# the seed's two trajectories (seeds/002): cold + 9 hot runs, seconds
SEED_A = [9.83, 0.256, 1.500, 0.043, 0.042, 0.043, 0.054, 0.042, 0.042, 0.042]
SEED_B = [0.972, 0.461, 0.116, 0.066, 0.055, 0.030, 0.036, 0.039, 0.041, 0.041]


def clickbench(folder: Path, name: str, system: str, result: list[list[float]]) -> Path:
    path = folder / name
    doc = {"system": system, "date": "2026-05-19", "machine": "c6a.metal", "result": result}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def section_html(html: str, section: str) -> str:
    part = html[html.index(f'<section id="{section}">') :]
    return part[: part.index("</section>")]


def figure_json(html: str, div_id: str) -> Any:
    """The data and layout plotly draws in ``div_id`` (the ``Plotly.newPlot`` arguments)."""
    start = html.index(f'Plotly.newPlot(                        "{div_id}",')
    body = html[start:].split(",", 1)[1]
    decoder = json.JSONDecoder()
    traces, end = decoder.raw_decode(body.lstrip())
    layout, _ = decoder.raw_decode(body.lstrip()[end:].lstrip(", \n"))
    return traces, layout


# -- warm-up detection in the trajectories ---------------------------------------------


def test_trajectories_show_the_seed_steady_state_spike_and_class(tmp_path: Path) -> None:
    html, data = report_of(clickbench(tmp_path, "c6a.json", "jvm", [SEED_A, SEED_B]))
    series = {s["query"]: s for s in decode_series(data["sections"]["trajectories"]["series"])}
    q0, q1 = series["Q0"], series["Q1"]
    # seed 002: "iter 3 takes 1.5 s because a JIT recompile pause ... Steady state is ~42 ms"
    assert q0["spikes"] == [[2, 1.5]]
    assert q0["steady_s"] == pytest.approx(0.042, rel=0.05)
    assert q0["steady_ci"][0] <= q0["steady_s"] <= q0["steady_ci"][1]
    assert q0["class"] == "warmup" and q0["steady_iteration"] == 3
    assert q0["changepoints"] == [3]
    # "monotonic convergence", settling at 41 ms: steady is above the 30 ms fastest run
    assert q1["steady_s"] == pytest.approx(0.041, rel=0.05)
    assert q1["class"] == "warmup" and q1["spikes"] == []
    # what the panels draw besides the runs: the gap table's reference (min of all hot runs),
    # the window's gap (min of hot runs 1-2 against it) and ClickBench's 1 ms resolution
    assert q0["reference_s"] == pytest.approx(min(SEED_A[1:]))
    assert q0["window_gap"] == pytest.approx(min(SEED_A[1:3]) / min(SEED_A[1:]) - 1, rel=5e-3)
    assert q1["window_gap"] == pytest.approx(min(SEED_B[1:3]) / min(SEED_B[1:]) - 1, rel=5e-3)
    assert q0["resolution_s"] == q1["resolution_s"] == 0.001
    # the badges' tones and help come with the section (the page draws the panels)
    panels = data["sections"]["trajectories"]["panels"]
    assert panels["classes"]["warmup"] == ["warn", "faster after a warm-up, then steady"]
    assert panels["window"] == 2 and panels["tolerance"] == pytest.approx(0.10)
    part = section_html(html, "trajectories")
    assert 'id="table-detect"' in part and 'id="table-detect-summary"' in part
    assert "2: 1.5 s" in part  # the spike in the per-series table
    # the panel grid is drawn in the page (tests/test_report_browser.py), not shipped
    assert 'class="panel-grid" id="grid-trajectories"' in part and "Plotly.newPlot" not in part


def test_detection_findings_one_per_suite_and_kind(tmp_path: Path) -> None:
    _, data = report_of(clickbench(tmp_path, "c6a.json", "jvm", [SEED_A, SEED_B]))
    found = {f["rule"]: f for f in data["findings"]}
    assert {"window-error", "warmup-length", "spikes"} <= set(found)
    # the min-all shortfall (Q1: fastest hot run 30 ms vs steady 41 ms) is a figure of the
    # window-error finding, not a finding of its own
    assert not {"hot-window-gap", "min-all-underestimates"} & set(found)
    series = {s["query"]: s for s in decode_series(data["sections"]["trajectories"]["series"])}
    below = [min(SEED_A[1:]) / series["Q0"]["steady_s"], min(SEED_B[1:]) / series["Q1"]["steady_s"]]
    assert found["window-error"]["numbers"]["min_all_vs_steady"] == pytest.approx(
        sum(below) / 2 - 1
    )
    spikes = found["spikes"]
    assert spikes["numbers"]["spikes"] == 1
    assert spikes["numbers"]["max_ratio"] == pytest.approx(1.5 / 0.256, rel=1e-6)
    assert "Q0 iteration 2: 1.500 s" in spikes["message"]
    # no tag Java: the pause is not called a JIT compile
    assert "JIT" not in spikes["message"]
    warm = found["warmup-length"]
    # what the warm-up costs the window is in window-error: warmup-length only informs
    assert warm["severity"] == "info" and warm["numbers"]["window_before_steady"] == 2
    assert warm["numbers"]["max_steady_iteration"] == 7
    for finding in data["findings"]:
        assert finding["message"].startswith(finding["subject"])


def test_short_series_still_warming_finding(tmp_path: Path) -> None:
    # ClickBench's 3 runs: the last hot run 20 % below the first, in 3 of 4 queries
    rows = [[1.0, 0.5, 0.4], [1.0, 0.25, 0.2], [2.0, 1.0, 0.8], [1.0, 0.3, 0.3]]
    _, data = report_of(clickbench(tmp_path, "c6a.json", "native", rows))
    (finding,) = (f for f in data["findings"] if f["rule"] == "still-warming")
    assert finding["numbers"]["still_warming"] == 3 and finding["numbers"]["series"] == 4
    classes = [s["class"] for s in decode_series(data["sections"]["trajectories"]["series"])]
    assert classes.count("short: still-warming") == 3


# -- ClickBench score ------------------------------------------------------------------


def test_score_section_ranks_move_with_k(tmp_path: Path) -> None:
    flat = [1.0, 0.5, 0.5] + [0.045] * 7
    html, data = report_of(
        clickbench(tmp_path, "a.json", "seed", [SEED_A, SEED_B]),
        clickbench(tmp_path, "b.json", "flat", [flat, flat]),
    )
    score = data["sections"]["score"]
    entries = {e["system"]: e for e in score["entries"]}
    seed, other = entries["seed"], entries["flat"]
    # k = 2 (ClickBench): baselines 0.256 and 0.116 s are the seed's own hot times
    assert seed["hot"] == pytest.approx(1.0)
    assert other["hot"] == pytest.approx(math.sqrt((0.51 / 0.266) * (0.51 / 0.126)))
    by_k = {k["hot_iterations"]: k for k in other["hot_by_k"]}
    seed_k = {k["hot_iterations"]: k for k in seed["hot_by_k"]}
    # k = 3: baselines min(..., 0.043) and min(..., 0.045)
    assert by_k[3]["score"] == pytest.approx(math.sqrt(0.055 / 0.053))
    assert seed_k[3]["score"] == pytest.approx(math.sqrt(0.076 / 0.055))
    assert (seed_k[2]["rank"], by_k[2]["rank"]) == (1, 2)
    assert (seed_k[3]["rank"], by_k[3]["rank"]) == (2, 1)
    assert (seed_k[9]["rank"], by_k[9]["rank"]) == (1, 2)
    (finding,) = (f for f in data["findings"] if f["rule"] == "score-ranks-move")
    assert finding["numbers"]["moved"] == 2 and finding["numbers"]["max_k"] == 9
    traces, _ = figure_json(html, "fig-score-ranks")
    assert {t["name"] for t in traces} == {"seed", "flat"}
    part = section_html(html, "score")
    assert "1.000 (#1)" in part and 'id="table-score"' in part


def test_score_needs_two_clickbench_entries(tmp_path: Path) -> None:
    csv = tmp_path / "harness.csv"
    csv.write_text(
        "suite,query,iteration,seconds\n" + "".join(f"h,q,{i},{s}\n" for i, s in enumerate(SEED_A)),
        encoding="utf-8",
    )
    _, data = report_of(clickbench(tmp_path, "a.json", "seed", [SEED_A, SEED_B]), csv)
    assert "score" not in data["sections"] and "gaps" in data["sections"]


# -- load tests -------------------------------------------------------------------------


def jtl(path: Path, rows: int, **kwargs: Any) -> tuple[Path, JtlTruth]:
    truth = write_jtl(path, rows, **kwargs)
    return path, truth


@pytest.mark.slow
def test_load_section_tables_verdict_and_cut(tmp_path: Path) -> None:
    path, truth = jtl(tmp_path / "run.jtl", 30_000, seed=3, duration_s=120, warmup_s=30)
    html, data = report_of(path)
    load = data["sections"]["load"]
    (suite,) = load["suites"]
    labels = {lab["label"]: lab for lab in suite["labels"]}
    assert set(labels) == {
        "ALL",
        "login",
        "search",
        "view_item",
        "add_to_cart",
        "checkout",
        "logout",
    }
    everything = labels["ALL"]
    assert 20 <= everything["warmup_end_s"] <= 45  # the generator ramps for 30 s
    assert everything["throughput"]["steady"] == pytest.approx(truth.steady_rate, rel=0.05)
    part = section_html(html, "load")
    # the label table, JMeter's Statistics/APDEX table and the Little's-law verdict
    assert 'id="table-load-0"' in part and 'id="table-jmeter-0"' in part
    assert "<td>Total</td>" in part and "APDEX" in part
    assert "saturated closed loop" in part  # 50 threads, no think time
    rules = {f["rule"] for f in data["findings"]}
    assert {"load-warmup", "closed-loop-saturated"} <= rules
    # ALL + the busiest labels are drawn with the warm-up cut at the detected end
    traces, layout = figure_json(html, "fig-load-0")
    assert [t["name"] for t in traces] == [
        "active threads",
        "throughput",
        "errors",
        "p50",
        "p95",
        "p99",
    ]
    # the generator's 50 threads, on the top panel's right axis
    assert set(traces[0]["y"]) == {50} and traces[0]["yaxis"] == "y2"
    assert plotted_threads(load) == {50.0}
    cut = [
        s for s in layout["shapes"] if s["type"] == "rect" and s["fillcolor"].startswith("rgba(136")
    ]
    assert cut and cut[0]["x1"] == pytest.approx(everything["warmup_end_s"])
    band = [
        s
        for s in layout["shapes"]
        if s["type"] == "rect" and s["fillcolor"].startswith("rgba(0,158")
    ]
    assert band[0]["y0"] == pytest.approx(everything["throughput"]["steady_ci"][0], rel=1e-3)
    (plotted,) = (s for s in load["series"] if s["label"] == "ALL")
    assert plotted["window_s"] == 1.0 and 115 <= len(plotted["t_s"]) <= 121
    # windows sum to the samples (all but the partial last window)
    assert sum(plotted["throughput"]) == pytest.approx(everything["samples"], rel=0.02)


@pytest.mark.slow
def test_load_chart_draws_failed_samples_per_second_where_they_fall(tmp_path: Path) -> None:
    # 2 % of samples fail; the errors line must put them where the file has them
    path, _ = jtl(
        tmp_path / "run.jtl", 20_000, seed=5, duration_s=100, warmup_s=20, error_rate=0.02
    )
    html, data = report_of(path)
    # failures per completion second, counted from the file itself
    failed: dict[int, int] = {}
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    t0 = min(int(r["timeStamp"]) for r in rows)
    for r in rows:
        if r["success"] == "false":
            w = (int(r["timeStamp"]) + int(r["elapsed"]) - t0) // 1000
            failed[w] = failed.get(w, 0) + 1
    (plotted,) = (s for s in data["sections"]["load"]["series"] if s["label"] == "ALL")
    assert len(plotted["errors"]) == len(plotted["t_s"])
    for t, rate in zip(plotted["t_s"], plotted["errors"], strict=True):
        assert rate == failed.get(int(t), 0), t
    assert sum(plotted["errors"]) > 300
    traces, _ = figure_json(html, "fig-load-0")
    (errors,) = (t for t in traces if t["name"] == "errors")
    assert errors["yaxis"] == "y" and errors["y"] == plotted["errors"]
    assert "dotted red = failed samples/s" in section_html(html, "load")
    # a run without failures draws no errors line
    clean, _ = jtl(tmp_path / "clean.jtl", 5_000, seed=6, duration_s=60, warmup_s=0, error_rate=0)
    html, _ = report_of(clean)
    traces, _ = figure_json(html, "fig-load-0")
    assert "errors" not in [t["name"] for t in traces]
    assert "failed samples/s" not in section_html(html, "load")


@pytest.mark.parametrize(
    ("duration_s", "expected"),
    [(None, 1.0), (600.0, 1.0), (1998.0, 1.0), (4000.0, 5.0), (30_000.0, 20.0), (86_400.0, 50.0)],
)
def test_chart_window_keeps_windows_below_cap(duration_s: float | None, expected: float) -> None:
    window = chart_window_s(duration_s, 1.0)
    assert window == expected
    if duration_s:
        assert duration_s / window + 1 <= MAX_LOAD_WINDOWS


@pytest.mark.parametrize(
    ("duration_s", "window_s", "expected"),
    [
        (4000.0, 0.25, 5.0),  # 1-2-5 values are whole quarter seconds
        (30_000.0, 5.0, 20.0),
        (4000.0, 2.0, 10.0),  # 5 s is not whole 2 s windows
        (8000.0, 3.0, 6.0),  # no 1-2-5 value is whole 3 s windows: the fewest, 2 of them
        (30_000.0, 0.3, 15.3),  # nor whole 300 ms windows: 51 of them
    ],
)
def test_chart_window_is_whole_analysis_windows(
    duration_s: float, window_s: float, expected: float
) -> None:
    """A chart window is a whole number of analysis windows (``report FILE`` reads the
    samples into groups of analysis windows: a chart window adds whole groups up), the
    smallest 1-2-5 value that is one, else the fewest windows below the cap."""
    window = chart_window_s(duration_s, window_s)
    assert round(window * 1000) % round(window_s * 1000) == 0
    assert duration_s / window + 1 <= MAX_LOAD_WINDOWS
    assert window == pytest.approx(expected)


@pytest.mark.slow
def test_long_load_test_is_drawn_with_at_most_max_windows_points(tmp_path: Path) -> None:
    # 8.3 hours at 1 s windows would be 30,000 points per line
    path, _ = jtl(tmp_path / "soak.jtl", 40_000, seed=4, duration_s=30_000, warmup_s=3_000)
    with toolkit.open_store() as store:
        toolkit.ingest_file(store, path)
        report = build_report(store, generated_at=WHEN)
    (section,) = (s for s in report.sections if s.id == "load")
    charts = [b for b in section.blocks if isinstance(b, Chart)]
    assert charts
    for chart in charts:
        for trace in chart.figure.data:
            assert len(trace.x) <= MAX_LOAD_WINDOWS, chart.div_id
    for series in section.data["series"]:
        assert series["window_s"] == 20.0
        assert len(series["t_s"]) <= MAX_LOAD_WINDOWS
    (everything,) = (s for s in section.data["series"] if s["label"] == "ALL")
    assert 1400 <= len(everything["t_s"]) <= 30_000 // 20 + 1


@pytest.mark.slow
def test_report_size_does_not_grow_with_rows(tmp_path: Path) -> None:
    sizes = {}
    for rows in (20_000, 400_000):
        path, _ = jtl(tmp_path / f"r{rows}.jtl", rows, seed=5, duration_s=600, warmup_s=60)
        with toolkit.open_store() as store:
            toolkit.ingest_file(store, path)
            html = render_html(build_report(store, generated_at=WHEN), plotlyjs="inline")
        sizes[rows] = len(html.encode("utf-8"))
    # 20x the samples, the same 600 windows per line: the same size within 3 %
    assert sizes[400_000] == pytest.approx(sizes[20_000], rel=0.03)
    assert sizes[400_000] < 8_000_000


# -- A/B comparison ---------------------------------------------------------------------


@pytest.mark.slow
def test_two_load_tests_are_compared_automatically(tmp_path: Path) -> None:
    # the same plan and profile, 1.25x the samples: B's steady rate is 1.25x A's
    a, ta = jtl(tmp_path / "a.jtl", 12_000, seed=6, duration_s=120, warmup_s=20)
    b, tb = jtl(tmp_path / "b.jtl", 15_000, seed=7, duration_s=120, warmup_s=20)
    assert tb.steady_rate / ta.steady_rate == pytest.approx(1.25)
    html, data = report_of(a, b)
    (pair,) = data["sections"]["compare"]["pairs"]
    assert (pair["a"], pair["b"]) == ("a", "b")
    (row,) = (r for r in pair["labels"] if r["label"] == "ALL")
    assert row["throughput"]["ratio"] == pytest.approx(1.25, rel=0.04)
    lo, hi = row["throughput"]["ci"]
    assert 1 < lo < 1.25 < hi
    # closed loop, same threads: latency scales with 1/throughput
    assert row["latency_mean_ms"]["ratio"] == pytest.approx(0.8, rel=0.05)
    (finding,) = (f for f in data["findings"] if f["rule"] == "compare-throughput")
    assert "b is faster beyond noise" in finding["advice"]
    traces, _ = figure_json(html, "fig-compare-0")
    assert [t["name"] for t in traces] == ["throughput", "mean latency"]
    assert "ALL" in traces[0]["y"]
    assert 'id="table-compare-0"' in section_html(html, "compare")


@pytest.mark.slow
def test_compare_option_picks_pairs_by_name_or_file(tmp_path: Path, runner: Any) -> None:
    paths = [
        jtl(tmp_path / f"{name}.jtl", 4000, seed=n, duration_s=60, warmup_s=10)[0]
        for n, name in enumerate(("a", "b", "c"))
    ]
    _, data = report_of(*paths)
    assert "compare" not in data["sections"]  # three load tests: nothing to guess
    out = tmp_path / "ab.html"
    args = ["report", *map(str, paths), "-o", str(out), "--compare", f"{paths[2]},a"]
    result = runner.invoke(app, [*args, "--compare", "b.jtl,c"])
    assert result.exit_code == 0, result.output
    data = embedded_data(out.read_text(encoding="utf-8"))
    pairs = [(p["a"], p["b"]) for p in data["sections"]["compare"]["pairs"]]
    assert pairs == [("c", "a"), ("b", "c")]
    assert data["sections"]["provenance"]["parameters"]["compare"] == [["c", "a"], ["b", "c"]]
    result = runner.invoke(app, [*args[:-1], "a,nope"])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: --compare: no load suite or input file 'nope'")
    assert len(result.stderr.strip().splitlines()) == 1
    result = runner.invoke(app, [*args[:-1], "a"])
    assert result.exit_code == 1 and "expected two load tests as A,B" in result.stderr


def test_compare_names_with_commas(tmp_path: Path) -> None:
    a = jtl(tmp_path / "x,1.jtl", 3000, seed=1, duration_s=60, warmup_s=10)[0]
    b = jtl(tmp_path / "y.jtl", 3000, seed=2, duration_s=60, warmup_s=10)[0]
    from toolkit.pipeline.load import split_compare_pair

    with toolkit.open_store() as store:
        toolkit.ingest_file(store, a)
        toolkit.ingest_file(store, b)
        assert split_compare_pair(store, "x,1,y") == ("x,1", "y")
        assert split_compare_pair(store, "y.jtl,x,1.jtl") == ("y.jtl", "x,1.jtl")


# -- cache findings and real inputs -----------------------------------------------------


def test_cache_findings_need_a_speedup_and_keep_the_analyzers(tmp_path: Path) -> None:
    profile = tmp_path / "profile.csv"
    rows = {
        # remote bytes move to the local cache over 3 runs: 8x faster when warm
        "filling": [(1, 40, 9e10, 1e9), (2, 12, 3e10, 6e10), (3, 5, 1e9, 9e10), (4, 5, 1e9, 9e10)],
        # the local cache takes over, but the query does not get faster: no warm-up finding
        "no gain": [(1, 5, 9e10, 1e9), (2, 6, 3e10, 6e10), (3, 6, 1e9, 9e10), (4, 6, 1e9, 9e10)],
    }
    profile.write_text(
        "series,run,elapsed_s,bytes_remote,bytes_local\n"
        + "".join(
            f"{name},{r},{t},{b},{c}\n" for name, runs in rows.items() for r, t, b, c in runs
        ),
        encoding="utf-8",
    )
    _, data = report_of(profile)
    warm = [f for f in data["findings"] if f["rule"] == "cache-warmup"]
    assert [f["subject"] for f in warm] == ["filling"]
    assert warm[0]["numbers"]["cold_s"] == 40 and warm[0]["numbers"]["warm_s"] == 5
    payload = {s["series"]: s for s in data["sections"]["cache"]["series"]}
    # one rule set (analyze/cache.py): the report shows exactly the findings of the JSON
    analyzer = [(f["subject"], f["rule"]) for e in payload.values() for f in e["findings"]]
    shown = [(f["subject"], f["rule"]) for f in data["findings"] if f["rule"].startswith("cache")]
    assert sorted(analyzer) == sorted(shown)
    # the local cache takes over in "no gain" but the time does not fall: said as such
    assert ("no gain", "cache.no-warm-up") in shown
    assert payload["no gain"]["runs_to_warm"] is None


# slow: analyses a real run of ../shared/real/jmeter-runs (406,000 or 880,000 samples);
# the quick run still reads those runs (test_real_runs_that_never_flatten_are_inconclusive)
@pytest.mark.ci_only
def test_real_clickbench_and_jmeter_runs(real_dir: Path) -> None:
    with toolkit.open_store() as store:
        toolkit.ingest_path(store, real_dir / "clickbench")
        toolkit.ingest_path(store, real_dir / "jmeter-runs")
        html = toolkit.render_report(store, generated_at=WHEN)
    data = embedded_data(html)
    jsonschema.validate(data, report_data_schema())
    sections = data["sections"]
    assert {"gaps", "trajectories", "score", "load", "compare"} <= set(sections)
    # each run left a JTL and a JMeter log (two suites per run): the JTLs are compared
    (pair,) = sections["compare"]["pairs"]
    assert (pair["a"], pair["b"]) == ("h2_point_lookup_10t_60s", "pg_point_lookup_10t_60s")
    # 43 ClickBench results: one finding per kind for all suites, not one per suite
    still = [f for f in data["findings"] if f["rule"] == "still-warming"]
    assert len(still) == 1 and still[0]["numbers"]["suites"] > 4
    assert len(data["findings"]) < 20
    assert len(html.encode("utf-8")) < 8_000_000


@pytest.mark.slow
def test_many_load_tests_share_the_chart_budget(tmp_path: Path) -> None:
    from toolkit.report.sections import MAX_LOAD_CHARTS

    paths = [
        jtl(tmp_path / f"run{n:02d}.jtl", 600, seed=n, duration_s=30, warmup_s=5)[0]
        for n in range(MAX_LOAD_CHARTS + 2)
    ]
    html, data = report_of(*paths)
    assert html.count('<div id="fig-load-') == MAX_LOAD_CHARTS
    assert len(data["sections"]["load"]["suites"]) == MAX_LOAD_CHARTS + 2
    # the first suites get their ALL chart; every suite keeps its tables
    assert [s["suite"] for s in data["sections"]["load"]["series"]] == [
        f"run{n:02d}" for n in range(MAX_LOAD_CHARTS)
    ]
    assert html.count('id="table-load-') == MAX_LOAD_CHARTS + 2
    assert "7 labels in the tables below, not drawn" in html


def plotted_threads(load: dict[str, Any]) -> set[float]:
    """The distinct active-thread counts of ALL's plotted series."""
    (plotted,) = (s for s in load["series"] if s["label"] == "ALL")
    return {v for v in plotted["threads"] if v is not None}


@pytest.mark.real
@pytest.mark.slow
def test_real_thread_ramp_is_drawn_from_thread_names(real_dir: Path) -> None:
    """sample_log1.jtl has no thread counts: the chart's active threads come from the
    thread names, 1 rising to 10 (one more every ~15 s), beside the warm-up it sets."""
    with toolkit.open_store() as store:
        toolkit.ingest_file(store, real_dir / "jmeter" / "bin__testfiles__sample_log1.jtl")
        report = build_report(store, generated_at=WHEN)
    html = render_html(report)
    traces, _ = figure_json(html, "fig-load-0")
    assert traces[0]["name"] == "active threads"
    ys = [y for y in traces[0]["y"] if y is not None]
    first_ten = next(i for i, y in enumerate(traces[0]["y"]) if y == 10)
    rising = [y for y in traces[0]["y"][: first_ten + 1] if y is not None]
    assert rising[0] == 1 and max(ys) == 10 and rising == sorted(rising)
    assert 130 <= traces[0]["x"][first_ten] <= 136
    assert "grey line = active threads (right axis)" in section_html(html, "load")


def test_summariser_chart_draws_active_threads(tmp_path: Path) -> None:
    """A summariser log's chart draws its lines' ``Active:`` counts (10 → 50 threads)."""
    import summariser_logs

    threads = [10, 20, 30, 40, 50] + [50] * 25
    ws = summariser_logs.closed_loop(threads, seed=0, latency_ms=50, capacity=100.0)
    path = tmp_path / "ramp.log"
    path.write_text("\n".join(summariser_logs.jmeter_log({"summary": ws})) + "\n")
    text, data = report_of(path)
    traces, _ = figure_json(text, "fig-load-0")
    assert traces[0]["name"] == "active threads"
    assert [y for y in traces[0]["y"] if y is not None][:6] == [10, 20, 30, 40, 50, 50]
    assert plotted_threads(data["sections"]["load"]) == {10.0, 20.0, 30.0, 40.0, 50.0}


@pytest.mark.parametrize("threads", [None, [4.0, 8.0, 8.0, 8.0]])
def test_load_chart_layout_holds_its_two_panels(threads: list[float] | None) -> None:
    """The chart is built as one layout (not by make_subplots and add_* per panel): every
    trace and shape refers to an axis it has, throughput and its band on the top panel's
    left axis, threads on its right one, latency on the bottom panel's log axis sharing
    the top's time axis, the warm-up shaded on both panels, a 0 ms window at the marked
    floor."""
    from toolkit.report import figures

    fig = figures.load_chart(
        title="ALL",
        t_s=[0.0, 1.0, 2.0, 3.0],
        throughput=[10.0, 20.0, 30.0, 30.0],
        percentiles={"p50": [1.0, 0.0, 2.0, 2.0], "p99": [5.0, 4.0, 6.0, 6.0]},
        warmup_end_s=2.0,
        steady_throughput=30.0,
        steady_ci=(29.0, 31.0),
        threads=threads,
        errors=[0.0, 1.0, 0.0, 0.0],
    ).to_plotly_json()
    layout = fig["layout"]
    axes = {k.replace("axis", "") for k in layout if k.startswith(("xaxis", "yaxis"))}
    low = "y3" if threads else "y2"
    by_name = {t["name"]: (t["xaxis"], t["yaxis"]) for t in fig["data"]}
    assert by_name["throughput"] == by_name["errors"] == ("x", "y")
    assert by_name["p50"] == by_name["p99"] == ("x2", low)
    assert ("active threads" in by_name) == (threads is not None)
    if threads:
        assert by_name["active threads"] == ("x", "y2")
        assert layout["yaxis2"]["overlaying"] == "y" and layout["yaxis2"]["side"] == "right"
    for xaxis, yaxis in by_name.values():
        assert {xaxis, yaxis} <= axes
    assert layout["xaxis"]["matches"] == "x2"
    assert layout[f"yaxis{low[1:]}"]["type"] == "log"
    assert layout[f"yaxis{low[1:]}"]["ticktext"][0] == "0"  # p50 = 0 ms drawn at the floor
    for shape in layout["shapes"]:
        assert shape["xref"].split()[0][0] == "x" and shape["yref"].split()[0] in axes
    warmup = [s for s in layout["shapes"] if s["type"] == "rect" and s.get("x1") == 2.0]
    assert [(s["xref"], s["yref"]) for s in warmup] == [("x", "y domain"), ("x2", f"{low} domain")]
    (band,) = (s for s in layout["shapes"] if s.get("y0") == 29.0)
    assert (band["xref"], band["yref"], band["y1"]) == ("x domain", "y", 31.0)
    (floor,) = layout["annotations"]
    assert (floor["text"], floor["yref"], floor["y"]) == ("0 ms", low, figures.ZERO_FLOOR_MS)


def test_compare_name_of_no_load_suite_is_refused_before_the_analyses(
    tmp_path: Path, runner: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``warmup report FILES --compare a,nope`` says so as soon as the files are read, not
    after analysing them all for the report (seconds on a large JTL)."""
    import toolkit.report.render

    paths = [
        jtl(tmp_path / f"{name}.jtl", 2000, seed=n, duration_s=30, warmup_s=5)[0]
        for n, name in enumerate(("a", "b"))
    ]

    def analysed(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the report was built before --compare was checked")

    monkeypatch.setattr(toolkit.report.render, "build_report", analysed)
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", *map(str, paths), "-o", str(out), "--compare", "a,nope"])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: --compare: no load suite or input file 'nope'")
    assert not out.exists()


@pytest.mark.slow
def test_load_chart_caption_names_a_fast_start_and_a_slowdown(tmp_path: Path) -> None:
    """ALL's chart said "grey = warm-up (and, at the end, a cool-down)" where the findings
    say the run started faster than it went on (load-fast-start) or the server slowed
    down at the end (load-slowdown); the caption now names what the findings name, and
    a run with a real warm-up keeps the old words."""
    from test_load_findings import open_loop, write_csv_jtl

    rng = np.random.default_rng(0)
    starts, el = open_loop(rng, 300, lambda t: 200 if t < 30 else 100, lambda t: 20)
    html, _ = report_of(write_csv_jtl(tmp_path / "fast.jtl", starts, el))
    fast = "grey = a fast start (load-fast-start) (and, at the end, a cool-down)"
    assert fast in section_html(html, "load")
    starts, el = open_loop(
        rng, 300, lambda t: 100 if t < 250 else 60, lambda t: 20 if t < 250 else 40
    )
    threads = np.full(starts.size, 10)
    html, _ = report_of(write_csv_jtl(tmp_path / "slow.jtl", starts, el, threads=threads))
    slow = "grey = warm-up (and, at the end, a slowdown (load-slowdown))"
    assert slow in section_html(html, "load")
    starts, el = open_loop(rng, 300, lambda t: 50 if t < 30 else 100, lambda t: 20)
    html, _ = report_of(write_csv_jtl(tmp_path / "warm.jtl", starts, el))
    assert "grey = warm-up (and, at the end, a cool-down)" in section_html(html, "load")
