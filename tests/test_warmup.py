"""Warm-up engine: ground-truth accuracy on generated series, the seed trajectories,
short series, spikes, equivalence modes, process groups and the stopping-rule comparators."""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit
from toolkit.analyze.changepoints import Segment
from toolkit.analyze.warmup import (
    analyze_series,
    classify_processes,
    classify_segments,
    compare_stopping_rules,
    georges_cov,
    outlier_mask,
    quantization_floor,
    revealed_resolution,
    revealed_resolutions,
    segment_equivalence,
    short_series,
    single_iteration_spikes,
)

SEED_SPIKE = [0.256, 1.500, 0.043, 0.042, 0.043, 0.054, 0.042, 0.042, 0.042, 0.042]
SEED_CONVERGE = [0.461, 0.116, 0.066, 0.055, 0.030, 0.036, 0.039, 0.041, 0.041]

_CLASS_OF = {
    "flat": "flat",
    "step": "warmup",
    "geometric": "warmup",
    "slowdown": "slowdown",
    "no-steady-state": "no-steady-state",
}


def _generate(rng: np.random.Generator, i: int) -> tuple[np.ndarray, str, int, str]:
    """One series of known shape: (times, true class, true steady iteration, shape).

    n ∈ {60, 100, 200, 400}; level ∈ {2 ms, 40 ms, 1.5 s, 30 s}; Gaussian noise of
    0.5 %, 2 % or 5 %; 0–3 spikes of 2.5–10x after the warm-up.
    - step: level × U(1.3, 3) before a change at U(3, n/3) — the steady iteration.
    - geometric: level·(1 + A·q^k), A ∈ U(1, 5), q ∈ U(0.5, 0.85); steady iteration =
      first k with A·q^k ≤ 5 % (the engine's equivalence tolerance).
    - slowdown: +20–60 % from U(n/5, n/2) on.
    - no steady state: a ±30–40 % step at U(0.80, 0.93)·n, or a −40 %/+60 % ramp over the
      last 40 % of the run.
    """
    shape = ["flat", "step", "geometric", "slowdown", "no-steady-state"][i % 5]
    n = int(rng.choice([60, 100, 200, 400]))
    mu = float(rng.choice([0.002, 0.04, 1.5, 30.0]))
    noise = float(rng.choice([0.005, 0.02, 0.05]))
    k = np.arange(n)
    level = np.full(n, mu)
    truth = 0
    if shape == "step":
        truth = int(rng.integers(3, n // 3))
        level[:truth] *= rng.uniform(1.3, 3.0)
    elif shape == "geometric":
        a = rng.uniform(1.0, 5.0)
        q = rng.uniform(0.5, 0.85)
        level = mu * (1 + a * q**k)
        truth = int(np.argmax(a * q**k <= 0.05))
    elif shape == "slowdown":
        pos = int(rng.integers(n // 5, n // 2))
        level[pos:] *= rng.uniform(1.2, 1.6)
    elif shape == "no-steady-state":
        if rng.random() < 0.5:
            pos = int(n * rng.uniform(0.8, 0.93))
            level[pos:] *= rng.choice([0.7, 1.4])
        else:
            start = int(0.6 * n)
            ramp = np.clip(k - start, 0, None) / (n - start)
            level = mu * (1 + rng.choice([-0.4, 0.6]) * ramp)
    x = level * (1 + noise * rng.standard_normal(n))
    for pos in rng.choice(
        np.arange(max(truth, 1) + 1, n - 1), int(rng.integers(0, 4)), replace=False
    ):
        x[pos] *= rng.uniform(2.5, 10)
    return x, _CLASS_OF[shape], truth, shape


def _docstring_matrix(doc: str) -> dict[tuple[str, str], int]:
    """The confusion matrix table of a docstring: {(truth, result): count}."""
    rows = [line.strip() for line in doc.splitlines() if line.strip().startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")][1:]
    out = {}
    for line in rows[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        for col, value in zip(header, cells[1:], strict=True):
            out[(cells[0], col)] = int(value)
    return out


# 1,000 series with 200 bootstrap resamples each (~10 s): the accuracy run, with the CI
# tests; a developer's run keeps the per-class and seed-trajectory tests below
@pytest.mark.ci_only
def test_ground_truth_accuracy_on_1000_generated_series() -> None:
    """Class right in ≥ 95 % and steady iteration within ±2 in ≥ 90 % of warm-up series.

    Measured with this seed (2024): class accuracy 995/1000 = 99.5 %, steady iteration
    within ±2 in 378/400 = 94.5 % of the warm-up series. Confusion matrix (rows truth,
    columns result; the test checks every cell against this table):

    | truth \\ result  | flat | warmup | slowdown | no-steady-state |
    |-----------------|------|--------|----------|-----------------|
    | flat            | 199  | 0      | 0        | 1               |
    | warmup          | 0    | 396    | 0        | 4               |
    | slowdown        | 0    | 0      | 200      | 0               |
    | no-steady-state | 0    | 0      | 0        | 200             |
    """
    rng = np.random.default_rng(2024)
    confusion: collections.Counter[tuple[str, str]] = collections.Counter()
    within = warm = 0
    for i in range(1000):
        x, cls, truth, _ = _generate(rng, i)
        res = analyze_series(x, resamples=200)
        confusion[(cls, res.series_class)] += 1
        if cls == "warmup":
            warm += 1
            if res.steady_iteration is not None and abs(res.steady_iteration - truth) <= 2:
                within += 1
    right = sum(v for (a, b), v in confusion.items() if a == b)
    assert right / 1000 >= 0.95, confusion
    assert within / warm >= 0.90, (within, warm)
    # the figures in the docstring are what this seed gives, cell by cell
    assert test_ground_truth_accuracy_on_1000_generated_series.__doc__ is not None
    stated = _docstring_matrix(test_ground_truth_accuracy_on_1000_generated_series.__doc__)
    assert len(stated) == 16
    assert {k: v for k, v in stated.items() if v} == dict(confusion)
    assert (right, within, warm) == (995, 378, 400)


def test_seed_trajectory_with_a_jit_spike() -> None:
    """Seed 002, first trajectory (cold 9.83, then 0.256, 1.500, 0.043, …): warm-up, the
    1.500 s spike reported, steady 0.042 s ± 1 ms — with and without the cold run. With
    it, steady from iteration 3 (run 4, the first 0.043: DESIGN.md's "steady from
    iteration 4" in 1-based runs); the 0.054 blip at iteration 6 does not move it."""
    res = toolkit.analyze_series(SEED_SPIKE)
    assert res.series_class == "warmup"
    assert [(s.iteration, s.seconds) for s in res.spikes] == [(1, 1.5)]
    assert res.steady_s == pytest.approx(0.042, abs=0.001)
    assert res.steady_ci is not None
    assert res.steady_ci[0] <= res.steady_s <= res.steady_ci[1]
    assert res.steady_iteration == 2
    assert any(f.rule == "spike" and "1.500 s" in f.message for f in res.findings)
    # seeded bootstrap: reproducible
    assert toolkit.analyze_series(SEED_SPIKE).steady_ci == res.steady_ci
    cold = toolkit.analyze_series([9.83, *SEED_SPIKE])
    assert cold.series_class == "warmup"
    assert [(s.iteration, s.seconds) for s in cold.spikes] == [(2, 1.5)]
    assert cold.steady_s == pytest.approx(0.042, abs=0.001)
    assert cold.steady_iteration == 3
    assert cold.cold_ratio == pytest.approx(9.83 / 0.042)


def test_seed_convergence_steady_is_not_the_minimum() -> None:
    """0.461 … 0.030, 0.036, 0.039, 0.041, 0.041 (and with the cold 0.972 first): steady
    ≈ 0.040 s (± 1.5 ms), not the 0.030 minimum, and a finding says min-all
    underestimates it."""
    for series in (SEED_CONVERGE, [0.972, *SEED_CONVERGE]):
        res = analyze_series(series)
        assert res.series_class == "warmup"
        assert res.steady_s == pytest.approx(0.040, abs=0.0015)
        assert res.steady_s > 0.030 * 1.2
        finding = next(f for f in res.findings if f.rule == "min-all-underestimates")
        assert "underestimates" in finding.message
        assert finding.numbers["min_all_s"] == pytest.approx(0.030)


def test_short_series_detector() -> None:
    step = short_series([1.0, 0.20, 0.205])
    assert step.short_class == "step"
    assert step.cold_ratio == pytest.approx(5.0)
    assert step.hot_s == pytest.approx(0.20)
    warming = short_series([1.0, 0.60, 0.30])
    assert warming.still_warming and warming.short_class == "still-warming"
    flat = short_series([0.5, 0.5, 0.501])
    assert flat.short_class == "no-cache-effect" and not flat.still_warming
    noisy = short_series([0.5, 0.4, 0.8])
    assert noisy.short_class == "noisy"
    # 10 ms guard: tiny timings never "warm" by rounding alone
    assert not short_series([0.004, 0.003, 0.002]).still_warming
    res = analyze_series([1.0, 0.6, 0.3])
    assert res.series_class == "short" and res.short is not None and res.short.still_warming
    assert res.cold_ratio == pytest.approx(1.0 / 0.3)


def test_spikes_and_outliers() -> None:
    x = np.full(200, 0.1) * (1 + 0.01 * np.random.default_rng(0).standard_normal(200))
    x[50] = 0.5
    x[150] = 0.9
    assert list(np.flatnonzero(single_iteration_spikes(x))) == [50, 150]
    mask = outlier_mask(x)
    assert mask[50] and mask[150] and mask.sum() == 2
    assert not outlier_mask(x)[:10].any()  # first w/2 never tested
    res = analyze_series(x)
    assert res.series_class == "flat"
    assert {s.iteration for s in res.spikes} == {50, 150}
    assert res.steady_s == pytest.approx(0.1, rel=0.01)


def test_equivalence_modes() -> None:
    final = Segment(10, 100, 90, 0.100, 1e-6, 0.100)
    near = Segment(0, 10, 10, 0.1006, 1e-6, 0.1006)
    far = Segment(0, 10, 10, 0.130, 1e-6, 0.130)
    for mode in ("warmup_stats", "tolerance"):
        assert segment_equivalence(near, final, mode=mode).equivalent  # type: ignore[arg-type]
        assert not segment_equivalence(far, final, mode=mode).equivalent  # type: ignore[arg-type]
    assert segment_equivalence(near, final, mode="warmup_stats", raw_deltas=True).equivalent
    rng = np.random.default_rng(1)
    values = np.concatenate([np.full(10, 0.13), np.full(90, 0.10)]) * (
        1 + 0.01 * rng.standard_normal(100)
    )
    eq = segment_equivalence(far, final, mode="ratio_ci", values=values, resamples=2000)
    assert not eq.equivalent and eq.ratio_ci is not None and eq.ratio_ci[0] > 1.05


def test_classification_scan_follows_warmup_stats() -> None:
    def seg(a: int, b: int, m: float) -> Segment:
        return Segment(a, b, b - a, m, 0.0, m)

    assert classify_segments([seg(0, 100, 1.0)]).series_class == "flat"
    assert classify_segments([seg(0, 10, 2.0), seg(10, 100, 1.0)]).series_class == "warmup"
    assert classify_segments([seg(0, 40, 0.8), seg(40, 100, 1.0)]).series_class == "slowdown"
    late = classify_segments([seg(0, 90, 1.0), seg(90, 100, 1.5)])
    assert late.series_class == "no-steady-state" and late.steady_start is None
    eq = classify_segments([seg(0, 10, 2.0), seg(10, 50, 1.01), seg(50, 100, 1.0)])
    assert eq.series_class == "warmup" and eq.steady_start == 10 and eq.steady_segments == (1, 2)


def test_process_groups() -> None:
    assert classify_processes(["warmup", "warmup"]) == "warmup"
    assert classify_processes(["flat", "warmup", "flat"]) == "good inconsistent"
    assert classify_processes(["flat", "slowdown"]) == "bad inconsistent"


def test_quantized_timings_are_not_split_into_zero_variance_runs() -> None:
    x = np.array([0.043, 0.042, 0.043, 0.042, 0.042, 0.042, 0.042, 0.043, 0.042, 0.042] * 5)
    assert quantization_floor(x) > 1e-11
    assert analyze_series(x).changepoints == ()


def test_comparators_say_where_each_rule_stops_and_how_wrong_it_is() -> None:
    rng = np.random.default_rng(3)
    k = np.arange(300)
    x = 0.1 * (1 + 2.0 * 0.9**k) * (1 + 0.005 * rng.standard_normal(300))
    res = analyze_series(x, comparators=True)
    rules = {r.rule: r for r in res.comparators}
    assert set(rules) == {"mser5", "georges-cov", "laaber-cov", "laaber-ci", "laaber-divergence"}
    assert res.steady_iteration is not None
    mser_rule = rules["mser5"]
    assert (
        mser_rule.stop is not None
        and mser_rule.iteration_error == mser_rule.stop - res.steady_iteration
    )
    g_stop, g_value = georges_cov(x)
    assert rules["georges-cov"].stop == g_stop and g_value is not None
    # Georges' 10-run CoV window fires inside the tail of the decay: too early, too slow
    assert rules["georges-cov"].value_error is not None and rules["georges-cov"].value_error > 0
    # Laaber's CoV rule on cumulative data stops early (within its 50-iteration cap)
    assert rules["laaber-cov"].stop is not None and rules["laaber-cov"].stop < 50
    again = compare_stopping_rules(
        x, steady_iteration=res.steady_iteration, steady_value=res.steady_s
    )
    assert again == res.comparators


def test_long_series_are_aggregated() -> None:
    rng = np.random.default_rng(4)
    n = 50_000
    x = np.where(np.arange(n) < 5000, 0.3, 0.1) * (1 + 0.02 * rng.standard_normal(n))
    res = analyze_series(x, resamples=200)
    assert res.batch == 10
    # PELT saw at most 5,000 batch means (research §8.11), reported in raw iterations
    assert sum(s.n for s in res.segments) <= 5000
    assert res.segments[-1].end == n
    assert res.series_class == "warmup"
    assert res.steady_iteration is not None and abs(res.steady_iteration - 5000) <= 10
    assert res.steady_s == pytest.approx(0.1, rel=0.01)


def test_equivalence_mode_decides_the_class() -> None:
    """A 3 % higher first segment (clear change point, 0.3 % noise) at 1 s: the
    ``tolerance`` (±5 %) and ``ratio_ci`` (CI inside [0.95, 1.05]) modes call it
    equivalent, so the series is flat; ``warmup_stats`` (|Δmean| ≤ v_i + max(v_f, 1 ms),
    variances read as seconds) calls 30 ms different: warm-up from iteration 30."""
    rng = np.random.default_rng(7)
    x = np.r_[np.full(30, 1.03), np.full(90, 1.0)] * (1 + 0.003 * rng.standard_normal(120))
    by_mode = {
        mode: analyze_series(x, equivalence=mode)  # type: ignore[arg-type]
        for mode in ("tolerance", "ratio_ci", "warmup_stats")
    }
    assert all(r.changepoints == (30,) for r in by_mode.values())
    assert by_mode["tolerance"].series_class == "flat"
    assert by_mode["ratio_ci"].series_class == "flat"
    assert by_mode["tolerance"].steady_iteration == 0
    assert by_mode["warmup_stats"].series_class == "warmup"
    assert by_mode["warmup_stats"].steady_iteration == 30


def test_ratio_ci_mode_needs_the_ci_outside_the_effect_size() -> None:
    """Ten runs 7 % slow with 5 % noise: ``tolerance`` sees a 7.3 % ratio and calls the
    segments different; ``ratio_ci``'s bootstrap CI (1.040, 1.104) overlaps [0.95, 1.05],
    so it cannot say they differ (Traini et al. 2023)."""
    from toolkit.analyze.changepoints import segments_of

    rng = np.random.default_rng(11)
    v = np.r_[np.full(10, 1.07), np.full(90, 1.0)] * (1 + 0.05 * rng.standard_normal(100))
    first, final = segments_of(v, [10])
    assert not segment_equivalence(first, final, mode="tolerance").equivalent
    eq = segment_equivalence(first, final, mode="ratio_ci", values=v)
    assert eq.equivalent and eq.ratio_ci is not None
    assert eq.ratio_ci[0] < 1.05 < eq.ratio_ci[1]
    assert eq.ratio == pytest.approx(1.0727, abs=1e-4)


def test_crops_penalty_in_the_one_call_entry() -> None:
    """``penalty="crops"``: the change points of the CROPS elbow (§8.3) instead of
    15 ln n."""
    from toolkit.analyze.changepoints import crops

    rng = np.random.default_rng(0)
    x = np.concatenate([np.full(20, 3.0), np.full(40, 1.5), np.full(60, 1.2), np.full(200, 1.0)])
    x = x * rng.lognormal(0, 0.03, x.size)
    res = analyze_series(x, penalty="crops")
    chosen = crops(x, variance_floor=quantization_floor(x))
    assert chosen.elbow_found
    assert res.penalty == chosen.penalty
    assert res.changepoints == chosen.segmentation.changepoints
    assert res.changepoints != analyze_series(x).changepoints  # 15 ln n finds more
    assert res.series_class == "warmup"


def test_comparator_stops_are_raw_iterations_across_failed_runs() -> None:
    """With failed runs (NaN) the rules run on the remaining runs; their stops are
    reported as raw iteration numbers, and the iteration error against the raw steady
    iteration."""
    rng = np.random.default_rng(11)
    x = 0.1 * (1 + 2 * 0.9 ** np.arange(300)) * (1 + 0.005 * rng.standard_normal(300))
    x[[5, 40]] = np.nan
    res = analyze_series(x, comparators=True)
    kept = np.flatnonzero(np.isfinite(x))
    on_kept = compare_stopping_rules(
        x[kept],
        steady_iteration=int(np.searchsorted(kept, res.steady_iteration)),
        steady_value=res.steady_s,
    )
    assert res.steady_iteration is not None
    for raw_rule, kept_rule in zip(res.comparators, on_kept, strict=True):
        assert kept_rule.stop is not None
        assert raw_rule.stop == int(kept[kept_rule.stop])
        assert raw_rule.iteration_error == raw_rule.stop - res.steady_iteration
        assert raw_rule.value_error == kept_rule.value_error
    assert any(r.stop is not None and r.stop > 40 for r in res.comparators)


def test_short_warmup_without_a_barrett_change_point_is_segmented_again() -> None:
    """Nine hot runs falling from 1.25 s to 0.125 s (the JVM fixture's Q10, steady from
    hot run 7): at 15·ln n PELT finds no change point on so few runs, which read as one
    flat segment with a steady value of 0.375 s (the median of a warm-up). Below 30 points
    the engine segments again at 4·ln n when the runs trend (Spearman, spread > 20 %): a
    warm-up, steady 0.125 s from run 6. Flat noisy series of the same length stay flat."""
    falling = [0.25, 1.25, 0.75, 0.625, 0.5, 0.375, 0.125, 0.125, 0.140625]
    got = analyze_series(falling)
    assert (got.series_class, got.steady_iteration) == ("warmup", 6)
    assert got.steady_s == pytest.approx(0.125, abs=0.016)
    assert got.penalty == pytest.approx(4 * math.log(len(falling)))
    # flat noise stays flat: 4·ln n alone split 9 % of these; the trend test keeps them
    for seed in range(200):
        flat = 0.3 * (1 + 0.03 * np.random.default_rng(seed).standard_normal(9))
        still = analyze_series(flat, resamples=100)
        assert still.series_class == "flat" and still.changepoints == (), seed


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(
                st.just(float("nan")),
                st.just(float("inf")),
                st.sampled_from([0.0, 0.001, 0.002, 0.0015, 0.01, 0.011, 0.1, 1.0, 1.5]),
                st.floats(0.0, 20.0, allow_nan=False),
            ),
            min_size=0,
            max_size=12,
        ),
        min_size=1,
        max_size=8,
    )
)
@pytest.mark.slow
def test_revealed_resolutions_equal_one_call_per_row(rows: list[list[float]]) -> None:
    """The timer resolution of many series at once (issue 19: 83,000 calls for 2,000
    ClickBench results) equals :func:`revealed_resolution` of each series, NaN padding a
    short one: 1 ms grids, repeats, sub-resolution spans, inf and failed runs."""
    width = max(len(r) for r in rows)
    padded = np.array([r + [float("nan")] * (width - len(r)) for r in rows]).reshape(
        len(rows), width
    )
    assert revealed_resolutions(padded).tolist() == [revealed_resolution(r) for r in rows]
