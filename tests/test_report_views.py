"""Issue 19, items 3 and 4: the ClickBench website's views (relative-time heat map, score
bars, a system picker that rescores in the page) and JMeter's dashboard charts, each checked
against a truth computed here from the raw files."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from report_checks import WHEN, embedded_data, report_of

import toolkit
from toolkit.pipeline.score import suite_scores
from toolkit.report.render import build_report
from toolkit.report.sections.score import decode_score_runs

# research/clickbench.md §2.4: the website's c6a.4xlarge scores (hot, cold, combined)
WEBSITE_C6A = {
    "Umbra": (1.092, 1.385, 1.504),
    "Salesforce Hyper": (1.898, 3.665, 2.905),
    "ClickHouse": (2.237, 4.379, 3.292),
    "Polars (Parquet)": (4.771, 4.093, 3.624),
    "DuckDB": (3.772, 2.054, 3.650),
    "PostgreSQL": (4116.544, 779.638, 1147.297),
}


def _clickbench_files(real_dir: Path) -> list[Path]:
    return sorted((real_dir / "clickbench").glob("*.json"))


def _heat_truth(docs: list[dict[str, Any]]) -> list[list[float | None]]:
    """Per file and query, straight from the JSON: hot = min(run 2, run 3) when both ran,
    best = the smallest run 2 or run 3 of any file, ratio (0.01 + hot) / (0.01 + best)."""
    n_queries = max(len(d["result"]) for d in docs)
    best = []
    for q in range(n_queries):
        values = [
            v
            for d in docs
            if q < len(d["result"]) and d["result"][q]
            for v in d["result"][q][1:3]
            if v is not None
        ]
        best.append(min(values) if values else None)
    out = []
    for d in docs:
        row: list[float | None] = []
        for q in range(n_queries):
            runs = d["result"][q] if q < len(d["result"]) else None
            ok = runs and len(runs) >= 3 and runs[1] is not None and runs[2] is not None
            row.append(
                (0.01 + min(runs[1], runs[2])) / (0.01 + best[q])  # type: ignore[index]
                if ok and best[q] is not None
                else None
            )
        out.append(row)
    return out


@pytest.mark.real
@pytest.mark.slow
def test_heatmap_and_bars_equal_the_raw_files(real_dir: Path) -> None:
    """On the 44 real ClickBench files the heat map holds, per scored system and query, the
    hot ratio computed here from the JSON (1e-12), and the bars the hot, cold and combined
    scores of the score payload, systems ordered by hot score."""
    html, data = report_of(*_clickbench_files(real_dir))
    score = data["sections"]["score"]
    entries = score["entries"]
    series = data["sections"]["trajectories"]["series"]
    decoded = decode_score_runs(score["runs"], series)
    assert len(entries) >= 30 and len(decoded) == len(entries)
    # the picker's runs are read from the trajectories' columns, not sent twice
    assert min(score["runs"]["suite"]) >= 0 and score["runs"]["seconds"] == []
    by_suite = {}
    for path in _clickbench_files(real_dir):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or "system" not in doc:
            continue  # not a result file
        by_suite[f"{doc['system']} / {doc['machine']} / {doc['date']}"] = doc
    docs = [by_suite[e["suite"]] for e in entries]
    for doc, got in zip(docs, decoded, strict=True):
        # the raw rows: a row of only nulls is a null row (the score's and the page's view)
        want = [None if all(v is None for v in row) else row for row in doc["result"]]
        assert got["result"] == want, doc["system"]
    truth = _heat_truth(docs)
    with toolkit.open_store() as store:
        for path in _clickbench_files(real_dir):
            toolkit.ingest_file(store, path)
        report = build_report(store, generated_at=WHEN)
    section = next(s for s in report.sections if s.id == "score")
    charts = {b.div_id: b.figure for b in section.blocks if b.kind == "chart"}
    heat = charts["fig-score-heatmap"].data[0]
    order = sorted(range(len(entries)), key=lambda i: (entries[i]["hot_rank"] or 10**9, i))
    assert [entries[i]["hot_rank"] for i in order[:3]] == [1, 2, 3]
    cells = 0
    for col, i in enumerate(order):
        for q, expected in enumerate(truth[i]):
            z = heat.z[q][col]
            if expected is None:
                assert z is None, (entries[i]["suite"], q)
            else:
                assert 10**z == pytest.approx(expected, rel=1e-12), (entries[i]["suite"], q)
                cells += 1
    assert cells > 1000
    # the best system of each query is ×1 (log 0), and no cell is below it
    for q in range(len(heat.z)):
        row = [z for z in heat.z[q] if z is not None]
        if row:
            assert min(row) == pytest.approx(0.0, abs=1e-12)
    bars = {t.name: t for t in charts["fig-score-bars"].data}
    for key in ("hot", "cold", "combined"):
        assert list(bars[key].x) == [entries[i][key] for i in order]
    assert embedded_data(html)["sections"]["score"]["runs"]["queries"][0] == "Q0"


# -- the system picker in Chromium --------------------------------------------------------


def _open(browser: Any, path: Path) -> tuple[Any, list[str]]:
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    # plotly.js is inflated after load (reports/plotly-loader.js); report.js marks its end
    page.wait_for_selector("html[data-report=ready]", state="attached")
    return page, errors


@pytest.mark.browser
@pytest.mark.real
@pytest.mark.slow
def test_system_picker_rescores_as_python_does(
    browser: Any, real_dir: Path, tmp_path: Path
) -> None:
    """Ticking only the c6a.4xlarge systems in the page gives, per system, the hot, cold and
    combined scores that suite_scores computes in Python for that subset (1e-12) and
    the website's own figures (research/clickbench.md §2.4, 3 significant digits); the heat
    map's best per query is again ×1 within the subset."""
    with toolkit.open_store() as store:
        for path in _clickbench_files(real_dir):
            toolkit.ingest_file(store, path)
        out = toolkit.write_report(store, tmp_path / "cb.html", generated_at=WHEN)
        data = embedded_data(out.read_text(encoding="utf-8"))
        entries = data["sections"]["score"]["entries"]
        chosen = [i for i, e in enumerate(entries) if e["machine"] == "c6a.4xlarge"]
        assert len(chosen) == 19
        python = suite_scores(store, suites=[entries[i]["suite"] for i in chosen]).table
    page, errors = _open(browser, out)
    picker = page.locator("#score-system-picker")
    assert picker.is_visible()
    picker.locator("button", has_text="none").click()
    # all but the last box ticked without an event, the last one clicked: one redraw from
    # the boxes' state instead of 19 (each redraws both charts, ~0.15 s)
    page.evaluate(
        """values => values.forEach(v =>
             document.querySelector(`#score-system-picker input[value='${v}']`).checked = true)""",
        [str(i) for i in chosen[:-1]],
    )
    picker.locator(f"input[value='{chosen[-1]}']").check()
    assert picker.locator("input:checked").count() == len(chosen)
    drawn = page.evaluate(
        """() => {
             const bars = document.getElementById('fig-score-bars').data;
             const heat = document.getElementById('fig-score-heatmap').data[0];
             return {bars: bars.map(t => ({name: t.name, x: t.x, y: t.y})),
                     heat: {x: heat.x, z: heat.z}};
           }"""
    )
    assert errors == []
    labels = [data["sections"]["score"]["runs"]["label"][i] for i in chosen]
    expected = {
        key: {label: getattr(e, key) for label, e in zip(labels, python.entries, strict=True)}
        for key in ("hot", "cold", "combined")
    }
    hot_order = sorted(labels, key=lambda lab: expected["hot"][lab])
    for trace in drawn["bars"]:
        assert trace["y"] == hot_order
        for label, value in zip(trace["y"], trace["x"], strict=True):
            want = expected[trace["name"]][label]
            if want is None:
                assert value is None
            else:
                assert value == pytest.approx(want, rel=1e-12), (trace["name"], label)
    system_of = {lab: entries[i]["system"] for lab, i in zip(labels, chosen, strict=True)}
    checked = 0
    for label in labels:
        website = WEBSITE_C6A.get(system_of[label])
        if website is None:
            continue
        for key, want in zip(("hot", "cold", "combined"), website, strict=True):
            got = next(t for t in drawn["bars"] if t["name"] == key)
            value = got["x"][got["y"].index(label)]
            assert float(f"{value:.4g}") == pytest.approx(want, rel=1e-3), (label, key)
            checked += 1
    assert checked == 3 * len(WEBSITE_C6A)
    assert drawn["heat"]["x"] == hot_order
    for row in drawn["heat"]["z"]:
        finite = [z for z in row if z is not None]
        if finite:
            assert math.isclose(min(finite), 0.0, abs_tol=1e-12)
    page.screenshot(path=str(tmp_path / "score.png"), full_page=False)


# -- JMeter dashboard charts --------------------------------------------------------------

PG_RUN = "jmeter-runs/pg_point_lookup_10t_60s.csv.jtl.gz"
H2_RUN = "jmeter-runs/h2_point_lookup_10t_60s.csv.jtl.gz"


def _jtl(path: Path) -> Any:
    """The JTL's rows straight from the file (duckdb's CSV reader, not the toolkit's)."""
    import duckdb

    return duckdb.sql(f"SELECT * FROM read_csv('{path}', header = true, all_varchar = false)").pl()


def _legacy(values: list[int], p: float) -> float:
    """commons-math LEGACY on sorted values: position p/100·(n+1), clamped, interpolated."""
    n = len(values)
    pos = p / 100 * (n + 1)
    if pos < 1:
        return float(values[0])
    if pos >= n:
        return float(values[-1])
    lo = math.floor(pos)
    return values[lo - 1] + (pos - lo) * (values[lo] - values[lo - 1])


def _charts(path: Path) -> tuple[dict[str, Any], Any]:
    with toolkit.open_store() as store:
        toolkit.ingest_file(store, path)
        report = build_report(store, generated_at=WHEN)
    section = next(s for s in report.sections if s.id == "load")
    charts = {b.div_id: b.figure for b in section.blocks if b.kind == "chart"}
    return charts, section.data


def _at(trace: Any, x: float) -> Any:
    return trace.y[list(trace.x).index(x)]


# slow: analyses a real run of ../shared/real/jmeter-runs (406,000 or 880,000 samples);
# the quick run still reads those runs (test_real_runs_that_never_flatten_are_inconclusive)
@pytest.mark.ci_only
@pytest.mark.real
def test_dashboard_charts_equal_the_jtl_at_one_window(real_dir: Path) -> None:
    """pg point lookup (406k samples, 1 s windows): at window 30 s the codes, bytes,
    latency and connect charts hold what the raw JTL gives (duckdb on the file, windows by
    completion time from the first start); over the run, the distribution bar holding 0 ms,
    the percentiles 50/90/99 (LEGACY, computed here) and the mean at 10 active threads."""
    import polars as pl

    path = real_dir / PG_RUN
    charts, data = _charts(path)
    jtl = _jtl(path)
    t0 = jtl["timeStamp"].min()
    jtl = jtl.with_columns(((pl.col("timeStamp") + pl.col("elapsed") - t0) // 1000).alias("w"))
    at = jtl.filter(pl.col("w") == 30)
    point = at.filter(pl.col("label") == "point_lookup")
    assert point.height > 1000
    codes = {t.name: t for t in charts["fig-jm-0-codes"].data}
    assert set(codes) == {str(c) for c in jtl["responseCode"].unique()}
    for code, part in at.group_by("responseCode"):
        assert _at(codes[str(code[0])], 30.0) == pytest.approx(part.height, rel=5e-4)
    received, sent = charts["fig-jm-0-bytes"].data
    assert _at(received, 30.0) == pytest.approx(at["bytes"].sum(), rel=5e-4)
    assert _at(sent, 30.0) == pytest.approx(at["sentBytes"].sum(), rel=5e-4, abs=1e-9)
    by_meta = {(t.meta, t.name): t for t in charts["fig-jm-0-latency"].data}
    assert _at(by_meta["point_lookup", "latency"], 30.0) == pytest.approx(
        point["Latency"].mean(), rel=5e-4
    )
    assert _at(by_meta["point_lookup", "connect"], 30.0) == pytest.approx(
        point["Connect"].mean(), rel=5e-4, abs=1e-6
    )
    # whole run, one label
    run = jtl.filter(pl.col("label") == "point_lookup")
    elapsed = sorted(run["elapsed"].to_list())
    dist = next(t for t in charts["fig-jm-0-distribution"].data if t.meta == "point_lookup")
    width = dist.width
    first_bar = sum(1 for v in elapsed if v < width)
    assert dist.y[0] == first_bar and sum(dist.y) == len(elapsed)
    curve = next(t for t in charts["fig-jm-0-percentiles"].data if t.meta == "point_lookup")
    for p in (50, 90, 99, 100):
        assert curve.customdata[p] == pytest.approx(_legacy(elapsed, p), abs=1e-9)
    threads = next(t for t in charts["fig-jm-0-threads"].data if t.meta == "point_lookup")
    ten = run.filter(pl.col("allThreads") == 10)["elapsed"].mean()
    assert _at(threads, 10.0) == pytest.approx(ten, rel=5e-4)
    # the picker holds ALL first, then the labels by samples
    picker = data["label_pickers"][0]
    assert picker["labels"][:2] == ["ALL", "point_lookup"]
    assert set(picker["figures"]) <= set(charts)


# slow: analyses a real run of ../shared/real/jmeter-runs (406,000 or 880,000 samples);
# the quick run still reads those runs (test_real_runs_that_never_flatten_are_inconclusive)
@pytest.mark.ci_only
@pytest.mark.real
def test_latency_axes_show_zero_ms(real_dir: Path) -> None:
    """h2 point lookup: its p50 is 0 ms in most windows (1 ms JTL resolution). Before, the
    log axis dropped those points (the legend listed p50, no line was drawn); now each 0 is
    drawn at the 0.5 ms floor, ticked "0", its hover value the real 0."""
    import polars as pl

    path = real_dir / H2_RUN
    charts, _ = _charts(path)
    jtl = _jtl(path)
    t0 = jtl["timeStamp"].min()
    medians = (
        jtl.with_columns(((pl.col("timeStamp") + pl.col("elapsed") - t0) // 1000).alias("w"))
        .group_by("w")
        .agg(pl.col("elapsed").sort().alias("v"))
    )
    zero_windows = sum(1 for v in medians["v"] if _legacy(v, 50) == 0)
    assert zero_windows >= 30
    fig = charts["fig-load-0"]
    p50 = next(t for t in fig.data if t.name == "p50")
    floor = 0.5
    drawn_zero = [y for y, real in zip(p50.y, p50.customdata, strict=True) if real == 0]
    assert len(drawn_zero) >= zero_windows - 1 and set(drawn_zero) == {floor}
    axis = fig.layout["yaxis" + (p50.yaxis or "y")[1:]]
    assert axis.type == "log" and axis.tickvals[0] == floor and axis.ticktext[0] == "0"


# slow: analyses a real run of ../shared/real/jmeter-runs (406,000 or 880,000 samples);
# the quick run still reads those runs (test_real_runs_that_never_flatten_are_inconclusive)
@pytest.mark.ci_only
@pytest.mark.browser
@pytest.mark.real
def test_label_picker_switches_the_dashboard_charts(
    browser: Any, real_dir: Path, tmp_path: Path
) -> None:
    """The label picker shows the picked label's trace in every per-label chart (and no
    other), with no console error; every dashboard chart is drawn with tick labels."""
    with toolkit.open_store() as store:
        toolkit.ingest_file(store, real_dir / PG_RUN)
        out = toolkit.write_report(store, tmp_path / "pg.html", generated_at=WHEN)
    page, errors = _open(browser, out)
    ids = ["codes", "bytes", "latency", "distribution", "percentiles", "threads"]
    for name in ids:
        assert page.locator(f"#fig-jm-0-{name} .xtick").count() >= 2, name
        assert page.locator(f"#fig-jm-0-{name} .ytick").count() >= 2, name
    page.select_option("#label-picker-0", "point_lookup")
    shown = page.evaluate(
        """() => ['latency', 'distribution', 'percentiles', 'threads'].map(k =>
             document.getElementById('fig-jm-0-' + k).data
               .filter(t => t.visible === true).map(t => t.meta))"""
    )
    assert all(metas and set(metas) == {"point_lookup"} for metas in shown), shown
    assert errors == []
    page.screenshot(path=str(tmp_path / "jmeter.png"))


@pytest.mark.slow
def test_views_draw_at_most_the_best_60_systems(tmp_path: Path) -> None:
    """70 generated results (system i is i+1 times slower than system 0): the bars and the heat
    map draw the 60 best hot scores, best first; every system stays in the picker's runs and
    the table, and the heat map's worst drawn column is system 59's ratio, computed here."""
    from toolkit.report.sections.score import MAX_VIEW_SYSTEMS

    paths = []
    for i in range(70):
        base = 0.1 * (i + 1)
        doc = {
            "system": f"S{i:02d}",
            "machine": "m1",
            "date": "2026-05-19",
            "result": [[2 * base, base, base * 1.01], [3 * base, 1.5 * base, 1.5 * base]],
        }
        path = tmp_path / f"s{i:02d}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        paths.append(path)
    with toolkit.open_store() as store:
        for path in paths:
            toolkit.ingest_file(store, path)
        report = build_report(store, generated_at=WHEN)
    section = next(s for s in report.sections if s.id == "score")
    charts = {b.div_id: b.figure for b in section.blocks if b.kind == "chart"}
    heat = charts["fig-score-heatmap"].data[0]
    assert MAX_VIEW_SYSTEMS == 60 and len(heat.x) == 60
    assert list(heat.x) == [f"S{i:02d}" for i in range(60)]
    assert 10 ** heat.z[0][59] == pytest.approx((0.01 + 6.0) / (0.01 + 0.1), rel=1e-12)
    for trace in charts["fig-score-bars"].data:
        assert len(trace.y) == 60 and trace.y[0] == "S00"
    series = next(s for s in report.sections if s.id == "trajectories").data["series"]
    assert len(decode_score_runs(section.data["runs"], series)) == 70
    assert len(section.data["entries"]) == 70
