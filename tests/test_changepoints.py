"""PELT (normal mean + variance cost) against ruptures, penalties, CROPS and the elbow."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import ruptures as rpt
from conftest import RUN_SLOW
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.analyze.changepoints import crops, kneedle_elbow, pelt, penalty_value


def _ruptures_changepoints(x: np.ndarray, pen: float) -> list[int]:
    algo = rpt.Pelt(model="normal", min_size=2, jump=1, params={"add_small_diag": False})
    bkps = algo.fit(x).predict(pen=pen)
    # ruptures returns exclusive segment ends including n; ours omit n
    return [int(b) for b in bkps[:-1]]


#: random series checked against ruptures: ruptures' PELT is pure Python (~0.1 s a series
#: of 300 points), so a developer's run checks 50 and CI (tests marked slow run) 220
RUPTURES_EXAMPLES = 220 if RUN_SLOW else 50


@pytest.mark.slow
def test_equals_ruptures_normal_pelt_on_random_series() -> None:
    """≥ 200 random piecewise series (50 outside CI) of 4–300 points (levels, variances,
    spikes; four penalties): change points identical to ruptures' normal-cost PELT with
    jump 1, min_size 2 and its small-diagonal term off (research §5.1, §8.2). Continuous
    random draws (no exact ties), timings-like scale (~0.05 s). The example count is
    checked."""
    examples: list[int] = []

    @settings(max_examples=RUPTURES_EXAMPLES, deadline=None, derandomize=True, database=None)
    @given(
        seed=st.integers(0, 2**32 - 1),
        n=st.integers(4, 300),
        n_shifts=st.integers(0, 4),
        noise=st.sampled_from([0.005, 0.02, 0.1]),
        penalty=st.sampled_from(["barrett", "sic", "mbic", 2.0]),
    )
    def check(seed: int, n: int, n_shifts: int, noise: float, penalty: str | float) -> None:
        rng = np.random.default_rng(seed)
        level = np.full(n, 0.05)
        for pos in rng.integers(0, n, n_shifts):
            level[pos:] *= rng.uniform(0.5, 2.0)
        sd = noise * rng.uniform(0.5, 2.0, n) if n_shifts % 2 else noise
        x = level * (1.0 + sd * rng.standard_normal(n))
        if n > 10 and seed % 3 == 0:
            x[rng.integers(1, n - 1)] *= 5.0
        pen = penalty_value(penalty, n)
        ours = pelt(x, penalty=pen)
        assert list(ours.changepoints) == _ruptures_changepoints(x, pen)
        examples.append(len(ours.changepoints))

    check()
    assert len(examples) >= RUPTURES_EXAMPLES - 20
    # not a test of empty answers: many series have change points (100 of 220), some several
    assert sum(1 for c in examples if c) >= RUPTURES_EXAMPLES * 100 // 220 and max(examples) >= 3


def test_named_penalties() -> None:
    n = 1000
    assert penalty_value("barrett", n) == pytest.approx(15 * math.log(n))
    assert penalty_value("SIC/BIC", n) == pytest.approx(3 * math.log(n))
    assert penalty_value("mbic", n) == pytest.approx(4 * math.log(n))
    with pytest.raises(ValueError, match="unknown penalty"):
        penalty_value("aic", n)


def test_segments_and_scale_invariance() -> None:
    rng = np.random.default_rng(3)
    x = np.concatenate([np.full(30, 0.3), np.full(170, 0.1)]) * rng.lognormal(0, 0.02, 200)
    seg = pelt(x)
    assert seg.changepoints == (30,)
    first, last = seg.segments
    assert (first.start, first.end, last.start, last.end) == (0, 30, 30, 200)
    assert last.mean == pytest.approx(float(np.mean(x[30:])))
    assert last.variance == pytest.approx(float(np.var(x[30:], ddof=1)))
    # milliseconds vs seconds: same change points (median scaling + floor, research §1.3)
    assert pelt(x * 1000).changepoints == seg.changepoints
    assert pelt(x / 1000).changepoints == seg.changepoints


def test_constant_series_hits_the_variance_floor_without_error() -> None:
    seg = pelt(np.full(50, 0.042))
    assert seg.changepoints == ()
    assert seg.segments[0].variance == pytest.approx(0.0, abs=1e-20)


def test_kneedle_on_a_textbook_convex_curve() -> None:
    """y = 1/x on x = 1..10: the difference curve (1 − ŷ) − x̂ peaks at x = 3 (0.519) and
    first falls below 0.519 − mean(Δx̂) = 0.407 at x = 6 (0.370): elbow at index 2."""
    x = np.arange(1, 11, dtype=float)
    y = 1.0 / x
    assert kneedle_elbow(x, y) == 2
    assert kneedle_elbow([1, 2, 3], [1, 1, 1]) is None
    # a CROPS-shaped path: penalties bunched at the low end, counts 3..0: elbow at the
    # third point; with only three points the drop never reaches the threshold
    assert kneedle_elbow([22.0, 200.0, 500.0, 1.1e6], [3, 2, 1, 0]) == 2
    assert kneedle_elbow([22.0, 200.0, 1.1e6], [2, 1, 0]) is None


def test_crops_path_is_monotone_and_contains_the_true_segmentation() -> None:
    rng = np.random.default_rng(5)
    x = np.concatenate([np.full(40, 3.0), np.full(60, 1.5), np.full(300, 1.0)])
    x = x * rng.lognormal(0, 0.02, x.size)
    res = crops(x)
    pens = [p for p, _, _ in res.path]
    counts = [c for _, c, _ in res.path]
    assert pens == sorted(pens)
    assert all(a >= b for a, b in itertools.pairwise(counts))
    assert 2 in counts
    assert res.segmentation.changepoints == (40, 100)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.slow
def test_crops_finds_every_segmentation_pelt_finds_in_its_range(seed: int) -> None:
    """CROPS (Haynes et al. 2017) must return every distinct optimal segmentation in
    [4 ln n, 1e5 ln n]: PELT on a dense grid of 200 penalties finds no change-point count
    that is not on the CROPS path, and each path entry is PELT's own result at its
    penalty."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([np.full(20, 3.0), np.full(40, 1.5), np.full(60, 1.2), np.full(200, 1.0)])
    x = x * rng.lognormal(0, 0.03, x.size)
    res = crops(x)
    path_counts = {c for _, c, _ in res.path}
    n = x.size
    grid = np.geomspace(4 * math.log(n), 1e5 * math.log(n), 200)
    seen = {len(pelt(x, penalty=float(p)).changepoints) for p in grid}
    assert seen <= path_counts
    for pen, count, _ in res.path:
        assert len(pelt(x, penalty=pen).changepoints) == count
    # the Kneedle elbow of this 4-point path (counts 3, 2, 1, 0) is one of its penalties
    assert res.elbow_found and len(res.path) == 4
    elbow = kneedle_elbow([p for p, _, _ in res.path], [c for _, c, _ in res.path])
    assert elbow is not None and res.penalty == res.path[elbow][0]
    assert res.segmentation == pelt(x, penalty=res.penalty)


def _series_zoo(seed: int) -> tuple[np.ndarray, float]:
    """Warm-up decays, piecewise levels with spikes, millisecond-rounded timings,
    heavy tails and exact constant stretches, 4–1,500 points; with the variance floor
    the engine would use."""
    from toolkit.analyze.warmup import quantization_floor

    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 1500))
    k = np.arange(n)
    kind = seed % 5
    if kind == 0:
        x = 0.1 * (1 + 2 * 0.97**k) * (1 + 0.02 * rng.standard_normal(n))
    elif kind == 1:
        level = np.full(n, 0.05)
        for pos in rng.integers(0, n, int(rng.integers(0, 8))):
            level[pos:] *= rng.uniform(0.5, 2.0)
        x = level * (1 + 0.02 * rng.standard_normal(n))
        if n > 10:
            x[rng.integers(1, n - 1, 3)] *= 5
    elif kind == 2:
        x = np.round(np.where(k < n // 5, 0.3, 0.042) * (1 + 0.02 * rng.standard_normal(n)), 3)
    elif kind == 3:
        x = 0.2 * np.exp(0.05 * rng.standard_t(2, n))
    else:
        x = np.where(k < n // 3, 1.0, 0.5) + np.where(rng.random(n) < 0.1, 0.01, 0.0)
    return x, quantization_floor(x)


@pytest.mark.slow
def test_screened_search_equals_the_reference_pelt_loop() -> None:
    """The block-screened PELT (lower bounds skip candidates that cannot be the optimum)
    returns exactly the reference loop's change points — the loop that equals ruptures —
    on 80 series of every shape in the zoo and all four penalties. With a tiny penalty
    PELT's own pruning is inexact (minimum segment length); the screened search detects
    that and falls back to the reference loop, so the answer is still the same."""
    from toolkit.analyze import changepoints as cp

    fallbacks = 0
    for seed in range(80):
        x, floor = _series_zoo(seed)
        if x.size < 4:
            continue
        pen = penalty_value(["barrett", "sic", "mbic", 2.0][seed % 4], x.size)
        _, z = cp._scaled(x)
        s1, s2 = cp._cumsums(z)
        expected = cp._pelt_reference(s1, s2, x.size, pen, 2, floor)
        try:
            got = cp._pelt_screened(s1, s2, x.size, pen, 2, floor)
        except cp._NotPeltAlive:
            fallbacks += 1
            got = expected
        assert got == expected, seed
        assert list(pelt(x, penalty=pen, variance_floor=floor).changepoints) == expected
    assert 0 < fallbacks < 40  # the fallback is exercised, and stays the exception
