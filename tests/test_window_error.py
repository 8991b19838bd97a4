"""Short-window error grid (research §7, §8.12): exact order statistics, cell figures,
the transient / order-statistic split, recommendations, and `warmup gaps --grid`."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import jsonschema
import numpy as np
import polars as pl
import pytest

from toolkit.analyze.window_error import (
    SteadySeries,
    expected_order_statistic,
    expected_window_value,
    grid_protocols,
    recommend_window,
    window_error_grid,
)
from toolkit.cli import app
from toolkit.resources import resource_dir


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_exact_expectations_equal_enumeration_of_every_draw(m: int) -> None:
    """E[min / median / mean of m draws with replacement] from the research §7 formula
    equals the average over all n^m equally likely draws (ties included)."""
    sample = [0.041, 0.040, 0.043, 0.040, 0.055]
    draws = list(itertools.product(sample, repeat=m))
    assert expected_window_value(sample, m, "min") == pytest.approx(
        np.mean([min(d) for d in draws]), rel=1e-12
    )
    assert expected_window_value(sample, m, "median") == pytest.approx(
        np.mean([np.median(d) for d in draws]), rel=1e-12
    )
    assert expected_window_value(sample, m, "mean") == pytest.approx(np.mean(sample))
    # the min formula of research §7 written out
    x = np.sort(sample)
    n = x.size
    i = np.arange(1, n + 1)
    by_hand = float(np.sum(x * ((1 - (i - 1) / n) ** m - (1 - i / n) ** m)))
    assert expected_order_statistic(sample, 1, m) == pytest.approx(by_hand, rel=1e-12)
    with pytest.raises(ValueError):
        expected_order_statistic(sample, m + 1, m)


def _flat_series(p: int, *, sigma: float, seed: int) -> list[SteadySeries]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(p):
        x = 0.5 * (1 + sigma * rng.standard_normal(60))
        out.append(SteadySeries(tuple(x), float(np.median(x)), 0))
    return out


def test_min_bias_without_warmup_is_the_normal_order_statistic() -> None:
    """100 flat series, 2 % Gaussian noise, no warm-up: the min of m runs is biased low
    by E[min of m N(0,1)]·σ = −0.564σ, −0.846σ, −1.029σ for m = 2, 3, 4 (standard normal
    order statistics), all of it order-statistic bias (within 0.1 % of the steady value)
    and no transient bias (within 0.3 %); the mean has neither."""
    sigma = 0.02
    grid = window_error_grid(_flat_series(100, sigma=sigma, seed=1), max_skip=2, max_window=4)
    for m, z in ((2, -1 / math.sqrt(math.pi)), (3, -0.846284), (4, -1.029375)):
        cell = grid.cell(1, m, "min")
        assert cell is not None and cell.series == 100
        assert cell.order_statistic_bias == pytest.approx(z * sigma, abs=0.001)
        assert abs(cell.transient_bias) < 0.003
        assert cell.mean_error == pytest.approx(cell.transient_bias + cell.order_statistic_bias)
        assert cell.in_transient == 0.0
    mean_cell = grid.cell(1, 3, "mean")
    assert mean_cell is not None
    assert abs(mean_cell.order_statistic_bias) < 0.001 and abs(mean_cell.transient_bias) < 0.003


def _step_series(p: int, *, seed: int, steady_from: int = 4, n: int = 12) -> list[SteadySeries]:
    """Runs 0..steady_from−1 at 2x, then 1x; 1 % noise; true steady iteration and value."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(p):
        level = np.where(np.arange(n) < steady_from, 2.0, 1.0) * 0.3
        x = level * (1 + 0.01 * rng.standard_normal(n))
        out.append(SteadySeries(tuple(x), 0.3, steady_from, f"s{i}"))
    return out


def test_cell_figures_transient_share_and_decomposition() -> None:
    """Each cell's figures recomputed from the windows by hand; windows that end before
    the steady iteration are ``in_transient``; ClickBench's skip 1, min of 2 is ≈ +100 %
    off, all of it transient bias."""
    series = _step_series(30, seed=2)
    grid = window_error_grid(series, max_skip=3, max_window=6, resamples=500, seed=3)
    cell = grid.cell(2, 3, "median")
    assert cell is not None
    e = np.array([np.median(s.times[2:5]) / 0.3 - 1 for s in series])
    assert cell.errors == pytest.approx(tuple(e))
    assert cell.median_error == pytest.approx(float(np.median(e)))
    assert (cell.p05_error, cell.p95_error) == pytest.approx(tuple(np.quantile(e, [0.05, 0.95])))
    assert dict(cell.within)[0.05] == pytest.approx(float(np.mean(np.abs(e) <= 0.05)))
    assert cell.median_ci[0] <= cell.median_error <= cell.median_ci[1]
    # window 2..4 ends at run 4 = the steady iteration: not wholly in the transient
    assert cell.in_transient == 0.0
    assert grid.cell(1, 3, "min").in_transient == 1.0  # type: ignore[union-attr]
    clickbench = grid.cell(1, 2, "min")
    assert clickbench is not None
    assert clickbench.median_error == pytest.approx(1.0, abs=0.05)
    assert clickbench.transient_bias > 0.95
    assert -0.01 < clickbench.order_statistic_bias < 0
    # seeded bootstrap: the same grid twice
    again = window_error_grid(series, max_skip=3, max_window=6, resamples=500, seed=3)
    assert again.cell(2, 3, "median") == cell


def test_recommended_protocol_is_the_cheapest_within_target() -> None:
    """Steady from run 4: the cheapest min-protocol within ±5 % for 90 % of series needs
    a window reaching run 4, i.e. 5 runs; ClickBench-style (skip 1) that is min of 4. A
    target no cell meets gives None."""
    grid = window_error_grid(_step_series(30, seed=4), max_skip=4, max_window=6, resamples=200)
    best = recommend_window(grid, target=0.05, coverage=0.9)
    assert best is not None and best.runs == 5 and best.aggregator == "min"
    assert best.skip + best.window - 1 >= 4
    clickbench = recommend_window(grid, target=0.05, coverage=0.9, skip=1)
    assert clickbench is not None and (clickbench.skip, clickbench.window) == (1, 4)
    for k in range(5):
        for m in range(1, 7):
            c = grid.cell(k, m, "min")
            if c is not None and c.runs < 5:
                assert c.share_within(0.05) < 0.9
    assert recommend_window(grid, target=0.0001, coverage=1.0) is None


def _jvm_frame() -> pl.DataFrame:
    """4 queries x 3 processes x 12 runs: cold 10x, then geometric JIT warm-up
    t = level·(1 + 3·0.5^k) with 1 % noise."""
    rng = np.random.default_rng(9)
    rows = []
    for q, level in enumerate((0.04, 0.2, 1.0, 3.0)):
        for process in range(3):
            for k in range(12):
                t = (
                    level
                    * (10.0 if k == 0 else 1 + 3 * 0.5**k)
                    * (1 + 0.01 * rng.standard_normal())
                )
                rows.append(
                    {
                        "suite": "jvm",
                        "query": f"Q{q}",
                        "process": process,
                        "iteration": k,
                        "seconds": t,
                    }
                )
    return pl.DataFrame(rows)


@pytest.mark.slow
def test_gaps_grid_cli_json_and_text(runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`warmup gaps --grid`: the grid in --json (schema-valid, every aggregator), the
    recommendations, and ClickBench's skip 1 / min of 2 far above steady state."""
    path = tmp_path / "jvm.csv"
    _jvm_frame().write_csv(path)
    out = runner.invoke(app, ["gaps", str(path), "--grid", "--json"])
    assert out.exit_code == 0, out.stderr
    doc = json.loads(out.stdout)
    jsonschema.validate(doc, json.loads((resource_dir("schemas") / "gaps.schema.json").read_text()))
    (suite,) = doc["suites"]
    grid = suite["grid"]
    assert grid["series"] == 12
    assert {c["aggregator"] for c in grid["cells"]} == {"min", "mean", "median"}
    cells = {(c["skip"], c["window"], c["aggregator"]): c for c in grid["cells"]}
    now = cells[(1, 2, "min")]
    # min(run 1, run 2) = level·(1 + 3/4): +75 % above steady state
    assert now["median_error"] == pytest.approx(0.75, abs=0.05)
    assert now["mean_error"] == pytest.approx(now["transient_bias"] + now["order_statistic_bias"])
    recs = {r["protocol"]: r["cell"] for r in grid["recommended"]}
    assert recs["clickbench"]["skip"] == 1 and recs["clickbench"]["window"] > 2
    assert recs["min"]["runs"] <= recs["clickbench"]["runs"]
    text = runner.invoke(app, ["gaps", str(path), "--grid"])
    assert text.exit_code == 0, text.stderr
    assert "short-window error vs steady state" in text.stdout
    assert "ClickBench-style (skip the cold run, min)" in text.stdout
    assert "ClickBench today, skip 1, min of 2 (3 runs)" in text.stdout
    bad = runner.invoke(app, ["gaps", str(path), "--grid", "--max-window", "0"])
    assert bad.exit_code == 1
    assert bad.stderr.strip() == "Error: --max-skip must be >= 0 and --max-window >= 1"


def test_grid_of_three_run_files_says_why_it_is_empty(runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """ClickBench-shaped 3-run series have no steady state: the grid is empty and the
    text says it needs long runs."""
    rows = [
        {"suite": "short", "query": f"Q{q}", "iteration": k, "seconds": t * (q + 1)}
        for q in range(3)
        for k, t in enumerate((1.0, 0.5, 0.49))
    ]
    path = tmp_path / "short.csv"
    pl.DataFrame(rows).write_csv(path)
    text = runner.invoke(app, ["gaps", "--grid", str(path)])
    assert text.exit_code == 0, text.stderr
    assert "no series reached a steady state" in text.stdout
    doc = json.loads(runner.invoke(app, ["gaps", "--grid", "--json", str(path)]).stdout)
    assert doc["suites"][0]["grid"]["series"] == 0 and doc["suites"][0]["grid"]["cells"] == []


def test_a_grid_past_the_longest_series_has_only_its_cells() -> None:
    """``gaps --grid --max-window 100000000`` looped 10^8 times over every series for
    cells no series fills (killed after 300 s): the protocols stop at the longest series,
    and the grid is the same cell for cell."""
    assert grid_protocols(10**8, 10**8, 4) == [
        (0, 1), (0, 2), (0, 3), (0, 4), (1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (3, 1),
    ]  # fmt: skip
    assert grid_protocols(1, 2, 10) == [(0, 1), (0, 2), (1, 1), (1, 2)]
    assert grid_protocols(5, 9, 0) == []
    series = _step_series(12, seed=4)
    longest = max(len(s.times) for s in series)
    huge = window_error_grid(series, max_skip=10**8, max_window=10**8, resamples=50)
    exact = window_error_grid(series, max_skip=longest, max_window=longest, resamples=50)
    assert huge.cells == exact.cells and len(huge.cells) > 0
    assert (huge.max_skip, huge.max_window) == (10**8, 10**8)  # as asked, shown as asked
