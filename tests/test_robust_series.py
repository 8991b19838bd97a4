"""No analysis raises on valid input (issue 16, item 1): zeros, constant series, ties, values
on the timer's resolution grid, 1–2 runs, huge ratios. Every figure is finite or None, and a
ratio to a value below the resolution is not computed."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit.analyze.gaps import iteration_gaps
from toolkit.analyze.resolution import series_resolution
from toolkit.analyze.warmup import (
    SeriesAnalysis,
    analyze_series,
    refine_steady_start,
    revealed_resolution,
    single_iteration_spikes,
)
from toolkit.analyze.window_error import SteadySeries, window_error_grid
from toolkit.cli.common import app

#: The issue's minimal input: hot runs that are exact zeros (a result cache answering below
#: ClickBench's 1 ms rounding).
ZEROS = [3.7356, 0.0002, 0.0001, 0.0, 0.0, 0.0, 0.0001, 0.0, 0.0, 0.0]

CASES = settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _finite_or_none(value: Any, where: str) -> None:
    if value is None or isinstance(value, (bool, str)):
        return
    if isinstance(value, (int, float)):
        assert math.isfinite(value), where
        return
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            _finite_or_none(v, f"{where}[{i}]")
        return
    if isinstance(value, dict):
        for k, v in value.items():
            _finite_or_none(v, f"{where}.{k}")
        return
    for name in getattr(value, "__dataclass_fields__", {}):
        _finite_or_none(getattr(value, name), f"{where}.{name}")


def _check(a: SeriesAnalysis, x: np.ndarray) -> None:
    _finite_or_none(a, "analysis")
    res = revealed_resolution(x)
    hot = x[1:]
    if a.cold_ratio is not None:
        assert hot.min() > 0 and hot.min() >= res
    for sp in a.spikes:
        assert sp.ratio >= 1.0
    if a.steady_iteration is not None:
        assert 0 <= a.steady_iteration < x.size


#: Values: zeros, a 1 ms or 0.1 ms grid, ties, and magnitudes 1e-6 s … 1e4 s (ratios to 1e10).
_grid = st.integers(0, 60).map(lambda k: k * 0.001)
_fine = st.integers(0, 5).map(lambda k: k * 0.0001)
_any = st.floats(1e-6, 1e4, allow_nan=False, allow_infinity=False)
_value = st.one_of(_grid, _fine, _any, st.just(0.0))


@st.composite
def series(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(1, 200))
    kind = draw(st.sampled_from(["mixed", "grid", "constant", "two-values", "cold-then-zeros"]))
    if kind == "mixed":
        values = draw(st.lists(_value, min_size=n, max_size=n))
    elif kind == "grid":
        values = draw(st.lists(_grid, min_size=n, max_size=n))
    elif kind == "constant":
        values = [draw(_value)] * n
    elif kind == "two-values":
        a, b = draw(_value), draw(_value)
        values = draw(st.lists(st.sampled_from([a, b]), min_size=n, max_size=n))
    else:
        values = [draw(_any), *draw(st.lists(_fine, min_size=n - 1, max_size=n - 1))]
    return np.asarray(values, dtype=np.float64)


@pytest.mark.ci_only
@CASES
@given(series())
def test_analyze_series_never_raises_and_gives_finite_or_no_figures(x: np.ndarray) -> None:
    a = analyze_series(x, resamples=50)
    _check(a, x)


@pytest.mark.ci_only
@settings(CASES, max_examples=100)
@given(series())
def test_stopping_rule_comparators_divide_by_no_zero(x: np.ndarray) -> None:
    # Georges' CoV and Laaber's CI width divided by a window mean of 0 s (RuntimeWarning,
    # NaN figures); a rule that cannot judge zeros does not stop
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        a = analyze_series(x, resamples=50, comparators=True)
    _finite_or_none(a.comparators, "comparators")


@pytest.mark.ci_only
@CASES
@given(series())
def test_gaps_and_window_error_never_raise_on_such_series(x: np.ndarray) -> None:
    frame = pl.DataFrame({"query": ["Q0"] * x.size, "iteration": range(x.size), "seconds": x})
    for reference_s in (None, {"Q0": float(x.min())}):
        table = iteration_gaps(frame, reference_s=reference_s)
        for row in table.rows:
            _finite_or_none(row, "row")
        _finite_or_none(table.per_query, "per_query")
    a = analyze_series(x, resamples=50)
    if a.steady_s is not None and a.steady_iteration is not None:
        grid = window_error_grid(
            [SteadySeries(tuple(x.tolist()), a.steady_s, a.steady_iteration)],
            max_skip=2,
            max_window=3,
            resamples=50,
        )
        for cell in grid.cells:
            _finite_or_none(cell, "cell")


def test_the_issue_zeros_input_is_analysed() -> None:
    # was: ZeroDivisionError in refine_steady_start (steady level 0 s)
    a = analyze_series(ZEROS)
    _check(a, np.asarray(ZEROS))
    assert a.series_class == "warmup"
    # the truth from the runs: the first hot run more than one 0.1 ms step from the 0 s
    # steady level is run 1 (0.2 ms), so the steady state starts at run 2
    steady = 0.0
    res = series_resolution(ZEROS)
    assert res == pytest.approx(0.0001)
    late = [i for i, v in enumerate(ZEROS) if abs(v - steady) > res]
    assert a.steady_iteration == late[-1] + 1 == 2
    assert a.steady_s == 0.0
    # a ratio to 0 s is not computed, and no spike is a ratio to a sub-resolution run
    assert a.cold_ratio is None
    assert a.spikes == ()
    assert a.short is not None and a.short.cold_ratio is None and a.short.hot_spread is None
    # with ClickBench's declared 1 ms every hot run is 0 ms: steady from the first hot run
    assert analyze_series(ZEROS, resolution=0.001).steady_iteration == 1


def test_refine_steady_start_at_a_zero_level() -> None:
    # was: ZeroDivisionError; the band is absolute, at least one resolution step
    assert refine_steady_start(np.array([5.0, 2.0, 2.0, 0.0, 0.0, 0.0]), 1, 6, 0.0) == 2
    values = np.array([5.0, 0.001, 0.0, 0.0, 0.0])
    assert refine_steady_start(values, 3, 5, 0.0, resolution=0.001) == 1


def test_sub_resolution_neighbours_make_no_spike() -> None:
    # 0.1 ms after 0 ms was a spike of ratio inf (any value ≥ 2 × 0); 2 ms among 1 ms runs
    # on a 1 ms timer is one step, not a 2x spike; 5 ms among 1 ms runs is
    assert not single_iteration_spikes([1.0, 0.0, 0.0001, 0.0, 0.0]).any()
    grid = np.array([1.0, 0.001, 0.002, 0.001, 0.005, 0.001, 0.001])
    assert np.flatnonzero(single_iteration_spikes(grid, resolution=0.001)).tolist() == [4]
    assert np.flatnonzero(single_iteration_spikes(grid)).tolist() == [2, 4]


@pytest.fixture
def zeros_file(tmp_path: Path) -> Path:
    path = tmp_path / "zeros.json"
    doc = {"system": "X", "date": "2026-01-01", "machine": "m", "result": [ZEROS]}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["detect"],
        ["gaps", "--reference", "steady"],
        ["score"],
        ["cache"],
    ],
    ids=lambda a: "-".join(a),
)
def test_every_command_runs_on_the_zeros_input(runner, zeros_file: Path, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, [*args, str(zeros_file)])
    if args == ["cache"]:
        # no profile in a ClickBench result: nothing to analyse is exit 1 and one line for
        # every command (issue 18), never a traceback
        assert result.exit_code == 1 and result.exception is not None
        assert isinstance(result.exception, SystemExit), result.exception
        assert "no profiled query series" in result.output
        return
    assert result.exit_code == 0, (result.output, result.exception)


def test_report_is_written_for_the_zeros_input(runner, zeros_file: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(zeros_file), "-o", str(out)])
    assert result.exit_code == 0, (result.output, result.exception)
    assert out.stat().st_size > 0


# one command per file, 46 of them (~14 s); test_detect's still-warming test runs detect
# over the whole folder in a developer's run
@pytest.mark.ci_only
def test_detect_runs_on_every_real_clickbench_file(runner, real_dir: Path) -> None:  # type: ignore[no-untyped-def]
    files = sorted((real_dir / "clickbench").glob("*.json"))
    assert files
    failed = {}
    for path in files:
        result = runner.invoke(app, ["detect", str(path)])
        # a result with no successful run is skipped at ingest: nothing to analyse (exit 1,
        # one line), as cedardb's error-only file
        skipped = result.exit_code == 1 and "no iteration suites to analyze" in result.output
        if result.exit_code != 0 and not skipped:
            failed[path.name] = (result.exit_code, result.output[-300:], result.exception)
    assert not failed, failed


def test_a_step_that_is_the_only_step_is_not_the_resolution() -> None:
    """The smallest step between distinct values is a timer's resolution only when the
    values span many such steps. In [3, 1, 1, …] the only step is the 3x cold run itself;
    taken as the resolution it made the cold run unresolved: flat, cold ratio None."""
    runs = [3.0, *[1.0] * 9]
    assert revealed_resolution(runs) == 0.0
    got = analyze_series(runs)
    hot = runs[1:]
    assert got.cold_ratio == runs[0] / min(hot) == 3.0
    assert (got.series_class, got.steady_iteration) == ("warmup", 1)
    assert got.short is not None and got.short.short_class == "step"
    # a grid the values do fall on: the zeros result spans 37,356 steps of 0.1 ms
    assert revealed_resolution(ZEROS) == pytest.approx(0.0001)


def test_gaps_within_the_timer_resolution_are_not_findings(runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """0.2 ms against a 0.1 ms reference was 'hot window 2.0x the reference' and a +100 %
    suite gap; on ClickBench's 1 ms timer it is no difference at all: no window-error and
    no per-query finding (the window error leaves out series under 10 timer steps). 50-60 ms
    against 20 ms is a window error, and a 30 ms excess per query is above the 10 ms
    minimum effect."""

    def rules(runs: list[float]) -> set[str]:
        path = tmp_path / "r.json"
        doc = {"system": "X", "date": "2026-01-01", "machine": "m", "result": [runs] * 3}
        path.write_text(json.dumps(doc), encoding="utf-8")
        result = runner.invoke(app, ["gaps", str(path), "--json"])
        assert result.exit_code == 0, result.output
        return {f["rule"] for f in json.loads(result.stdout)["findings"]}

    tiny = [1.0, 0.0003, 0.0002, 0.0001, 0.0001, 0.0001, 0.0002, 0.0001, 0.0001, 0.0001]
    hot2, reference = min(tiny[1:3]), min(tiny[1:])
    assert hot2 - reference < 0.001  # below ClickBench's declared 1 ms
    assert not rules(tiny) & {"window-error", "window-query-excess", "still-warming"}
    real = [1.0, 0.060, 0.050, 0.020, 0.021, 0.020, 0.020, 0.022, 0.020, 0.020]
    got = rules(real)
    assert {"window-error", "window-query-excess"} <= got


def test_detect_takes_clickbench_s_declared_millisecond(runner, zeros_file: Path) -> None:  # type: ignore[no-untyped-def]
    """ClickBench rounds to 1 ms (FORMAT_RESOLUTION_S): every hot run of the zeros result
    is 0 ms to that timer, so the steady state starts at the first hot run; the runs' own
    0.1 ms grid would put it at run 2 (analyze_series' default)."""
    result = runner.invoke(app, ["detect", str(zeros_file), "--json"])
    assert result.exit_code == 0, result.output
    (series,) = json.loads(result.stdout)["series"]
    on_ms = [i for i, v in enumerate(ZEROS) if round(v, 3) != 0.0]
    assert series["steady_iteration"] == on_ms[-1] + 1 == 1
    assert analyze_series(ZEROS).steady_iteration == 2


def test_one_millisecond_step_on_a_millisecond_timer_is_one_level() -> None:
    """A 5 s cold run, then 30 runs at 0 ms and 30 at 1 ms (a result cache on ClickBench's
    1 ms timer): the hot runs differ by one step, which the timer cannot resolve, so they
    are one level. Was no steady state (a least-squares 'drift' of 1.5 ms, not compared
    with the resolution) and, with that fixed, slowdown (a mean of 1 ms runs is
    0.0010000000000000002 s, one rounding above the step)."""
    x = np.r_[5.0, np.zeros(30), np.full(30, 0.001)]
    step = revealed_resolution(x)
    assert step == pytest.approx(0.001)
    hot = x[1:]
    assert hot.max() - hot.min() <= step * (1 + 1e-9)  # the truth: one level to the timer
    got = analyze_series(x)
    assert (got.series_class, got.steady_iteration) == ("warmup", 1)
