"""Suites of thousands of runs per query (issue 21 item 3: output bounded whatever the input;
issue 22: ``warmup score`` was quadratic in runs). A table shows at most
:data:`~toolkit.analyze.gaps.MAX_SHOWN_K` values of k (the score table
:data:`~toolkit.analyze.score.MAX_SCORE_K_COLUMNS`), a chart at most ``MAX_CHARTED_K``, the
page at most :data:`~toolkit.report.sections.series_columns.MAX_PAGE_RUNS` run times, and
``--json`` every k. Inputs are generated here."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hostile_inputs import RSS_LIMIT_MB, bounded_run

from toolkit.analyze.gaps import MAX_SHOWN_K, shown_hot_iterations
from toolkit.analyze.score import MAX_SCORE_K_COLUMNS, _hot_selector
from toolkit.analyze.warmup import single_iteration_spikes
from toolkit.report import figures
from toolkit.report.sections.gaps import MAX_CHARTED_K
from toolkit.report.sections.series_columns import MAX_PAGE_RUNS, SeriesColumns, first_runs
from toolkit.synthetic import write_clickbench_runs

MB = 1_000_000


@pytest.mark.parametrize("n", [1, 2, 12, 40, 41, 100, 999, 9_999])
@pytest.mark.parametrize("limit", [12, 40])
def test_shown_hot_iterations_is_a_bounded_spread_subset(n: int, limit: int) -> None:
    ks = list(range(2, n + 2))
    keep = [2, ks[len(ks) // 3]]
    shown = shown_hot_iterations(ks, limit, keep=keep)
    if n <= limit:
        assert shown == ks
        return
    assert shown == sorted(set(shown)) and set(shown) <= set(ks)
    assert {ks[0], ks[-1], *keep} <= set(shown)
    assert limit <= len(shown) <= limit + len(keep)
    # spread over the whole range: no gap wider than a log-scale step of the range
    widest = max(b / a for a, b in itertools.pairwise(shown))
    assert widest <= (ks[-1] / ks[0]) ** (2 / (limit - 1)) + 1


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.floats(0.0, 100.0, allow_nan=False)), min_size=0, max_size=30),
    st.integers(2, 35),
)
@pytest.mark.slow
def test_hot_score_selector_is_the_min_of_the_first_k_hot_runs(
    row: list[float | None], k: int
) -> None:
    """The running minima behind ``warmup score``'s every-k scores (linear since issue 22)
    give what the definition says: min of hot runs 1..k (capped at the row's last run),
    None when one of them failed, None for a row without a hot run."""
    last = min(k, len(row) - 1)
    window = row[1 : last + 1]
    want = None if not window or any(v is None for v in window) else min(window)  # type: ignore[type-var]
    assert _hot_selector(k)(tuple(row)) == want


def test_first_runs_cuts_each_block_to_its_share() -> None:
    blocks = 4
    runs = 1_000
    columns = SeriesColumns(
        keys=[(1, f"Q{n}") for n in range(blocks)],
        suite=["s"] * blocks,
        system=["x"] * blocks,
        query_index=list(range(blocks)),
        block_series=list(range(blocks)),
        block_process=[0] * blocks,
        block_start=[n * runs for n in range(blocks)],
        block_runs=[runs] * blocks,
        iteration=[i for _ in range(blocks) for i in range(runs)],
        seconds=[float(n * runs + i) for n in range(blocks) for i in range(runs)],
    )
    same, cap = first_runs(columns, max_runs=blocks * runs)
    assert same is columns and cap == 0
    cut, cap = first_runs(columns, max_runs=1_000)
    assert cap == 250 and cut.block_runs == [250] * blocks
    assert cut.block_start == [0, 250, 500, 750]
    # each block keeps its own first runs
    assert [cut.seconds[s] for s in cut.block_start] == [0.0, 1000.0, 2000.0, 3000.0]
    assert cut.iteration[250:253] == [0, 1, 2]


@pytest.mark.parametrize(("last_k", "log"), [(9, False), (30, False), (31, True), (9_999, True)])
def test_k_axes_tick_every_k_only_when_few(last_k: int, log: bool) -> None:
    """A tick label per k laid out 10,000 labels (80 s in Chromium): beyond 30 the k axes
    of the gap and rank charts are log axes."""
    rows = [
        {"hot_iterations": k, "gap": 1 / k, "within_tolerance": 1, "queries": 2}
        for k in range(1, last_k + 1)
    ]
    gaps = figures.gaps_chart([{"name": "s", "rows": rows}], tolerance=0.1)
    ranks = figures.rank_chart({"a": [(k, 1) for k in range(2, last_k + 1)]})
    for fig in (gaps, ranks):
        axis = fig.layout.xaxis
        assert (axis.type == "log") is log
        assert (axis.dtick == 1) is (not log)


@pytest.mark.ci_only
def test_ten_thousand_runs_per_query_give_bounded_tables_and_report(tmp_path: Path) -> None:
    """2 systems × 43 queries × 10,000 runs: ``score`` and ``gaps`` answer with at most
    12 / 41 values of k in their tables (every k in --json), and the report is ≤ 8 MB with
    bounded tables, charts and run times (was 14.6 MB: 9,998 score columns, 9,999 gap rows
    per suite, 860,000 run times, and a tick label per k that took Chromium 80 s)."""
    folder = write_clickbench_runs(tmp_path / "cb", ("alpha", "beta"), 10_000)
    # wide enough for 12 columns whatever COLUMNS the test runner set (xdist: 80)
    score = bounded_run("score", folder, timeout=240, COLUMNS="400")
    assert score.returncode == 0, score.stderr[-2000:]
    header = next(line for line in score.stdout.splitlines() if "k=2 " in line)
    assert len(re.findall(r"k=\d+", header)) == MAX_SCORE_K_COLUMNS
    assert f"{MAX_SCORE_K_COLUMNS} of the 9,998 values of k shown" in score.stdout
    payload = json.loads(bounded_run("score", folder, "--json", timeout=240).stdout)
    assert payload["hot_iterations"] == list(range(2, 10_000))

    gaps = bounded_run("gaps", folder, "--per-suite", timeout=240)
    assert gaps.returncode == 0, gaps.stderr[-2000:]
    rows = [line for line in gaps.stdout.splitlines() if re.match(r"^│ +\d+", line)]
    # the summary's 2 rows, then each suite's table
    assert 2 * MAX_SHOWN_K <= len(rows) - 2 <= 2 * (MAX_SHOWN_K + 2), len(rows)
    assert gaps.stdout.count("of the 9,999 values of k shown") == 2

    html = tmp_path / "r.html"
    report = bounded_run("report", folder, "-o", html, timeout=600)
    assert report.returncode == 0, report.stderr[-2000:]
    assert max(score.peak_rss_mb, gaps.peak_rss_mb, report.peak_rss_mb) < RSS_LIMIT_MB
    text = html.read_text(encoding="utf-8")
    assert len(text.encode()) <= 8 * MB
    raw = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S)
    assert raw is not None
    data = json.loads(raw.group(1))["sections"]
    assert len(data["trajectories"]["series"]["seconds"]) <= MAX_PAGE_RUNS
    assert "The panels draw the first 2,325 runs of each process" in text
    score_data = data["score"]
    assert score_data["hot_iterations_total"] == 9_998
    assert len(score_data["hot_iterations"]) <= MAX_CHARTED_K + MAX_SCORE_K_COLUMNS
    assert score_data["runs"]["seconds"] == []  # the picker reads the trajectories' runs
    for n in (0, 1):
        table = re.search(rf'<table id="table-gaps-{n}".*?</table>', text, re.S)
        assert table is not None
        assert MAX_SHOWN_K <= table.group(0).count("<tr") - 1 <= MAX_SHOWN_K + 2
    score_table = re.search(r'<table id="table-score".*?</table>', text, re.S)
    assert score_table is not None
    assert score_table.group(0).count(">hot k=") == MAX_SCORE_K_COLUMNS


def _spikes_run_by_run(x: np.ndarray, spike_ratio: float, resolution: float) -> np.ndarray:
    """``single_iteration_spikes`` written one run at a time, from its docstring: the
    reference for the vectorised form (its median around each pair was a Python loop)."""
    n = len(x)
    mask = np.zeros(n, dtype=bool)
    if n < 3:
        return mask

    def above(v: float, ref: float) -> bool:
        return bool(
            v >= spike_ratio * ref and ref > 0 and ref >= resolution and v - ref > resolution
        )

    for i in range(1, n - 1):
        mask[i] = above(x[i], max(x[i - 1], x[i + 1]))
    mask[-1] = n >= 4 and above(x[-1], x[-2])
    if n >= 5:
        for i in range(1, n - 1):
            outer = max(x[i - 1], x[i + 2] if i + 2 < n else 0.0)
            start = min(max(i - 5, 0), max(n - 12, 0))
            around = float(np.median(x[start : start + 12]))
            low = min(x[i], x[i + 1])
            if (
                low >= spike_ratio * max(outer, around)
                and outer > 0
                and outer >= resolution
                and low - outer > resolution
            ):
                mask[i] = mask[i + 1] = True
    return mask


@pytest.mark.parametrize("seed", range(5))
def test_spike_rule_equals_its_run_by_run_form(seed: int) -> None:
    """The strided median around each pair of runs gives the spikes the run-by-run rule
    gives, on 200 series of 3-80 runs with pauses, pairs of pauses, zeros and a 0.1 ms grid."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        n = int(rng.integers(3, 80))
        x = rng.lognormal(-3, 0.3, n)
        for i in rng.integers(0, n, int(rng.integers(0, 4))):
            x[i : i + int(rng.integers(1, 3))] *= rng.uniform(2, 6)
        if rng.random() < 0.3:
            x = np.round(x, 4)
        if rng.random() < 0.1:
            x[rng.integers(0, n)] = 0.0
        resolution = float(rng.choice([0.0, 1e-4, 1e-3]))
        want = _spikes_run_by_run(x, 2.0, resolution)
        got = single_iteration_spikes(x, spike_ratio=2.0, resolution=resolution)
        assert np.array_equal(got, want), (x.tolist(), resolution)
