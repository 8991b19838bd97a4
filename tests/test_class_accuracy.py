"""Class accuracy of the warm-up engine on an independent generator that includes the shapes
without a steady state (square waves, linear and step drifts) and a slow first run
(issue 16, item 6). The truth of every series is computed here from its noise-free level."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from toolkit.analyze.warmup import analyze_series

CLASSES = ("flat", "warmup", "slowdown", "no-steady-state")
#: Series per class (25 % each), and the generator's seed.
PER_CLASS = 250
SEED = 16
#: The engine's equivalence tolerance: the truth's steady iteration is where the noise-free
#: level enters ±5 % of its final value for good.
BAND = 0.05


def _steady_iteration(level: np.ndarray) -> int:
    """First run from which the noise-free level stays within ±BAND of its final value."""
    off = np.abs(level / level[-1] - 1.0) > BAND + 1e-12
    return int(np.flatnonzero(off)[-1] + 1) if off.any() else 0


def generate(rng: np.random.Generator, cls: str) -> tuple[np.ndarray, str, int | None, str]:
    """One series of class ``cls``: (times in seconds, class, true steady iteration, shape).

    n ∈ [30, 200]; level μ ∈ {20 ms, 0.3 s, 1.5 s, 30 s}; Gaussian noise of 1–5 %; times
    rounded to 0.1 ms; 0–3 outliers of 2–6x after the transient; a slow first run (1.5–2.5x
    its level) in 30 % of the non-flat series.

    - flat: μ throughout.
    - warmup: a step down by 1.3–3x at run U(3, n/3), a geometric decay μ(1 + A·q^k), A ∈
      [1, 5], q ∈ [0.5, 0.85], or a linear decay from (1 + A)μ to μ over U(3, n/3) runs.
    - slowdown: a step up by 20–60 % at U(n/5, n/2), or a linear rise of as much over
      5–15 runs from there.
    - no-steady-state: a square wave of period 4–20 runs and ±10–40 % over the whole run;
      a linear drift of ±20–60 % over the whole run or its last 40–60 %; a staircase of
      ±8–20 % steps every n/8–n/4 runs to the end; or one late step (0.7x or 1.4x) at
      0.80–0.93·n.
    """
    n = int(rng.integers(30, 201))
    mu = float(rng.choice([0.02, 0.3, 1.5, 30.0]))
    noise = float(rng.uniform(0.01, 0.05))
    k = np.arange(n, dtype=np.float64)
    level = np.full(n, mu)
    shape = "flat"
    if cls == "warmup":
        shape = str(rng.choice(["step", "geometric", "linear"]))
        if shape == "step":
            level[: int(rng.integers(3, n // 3))] *= rng.uniform(1.3, 3.0)
        elif shape == "geometric":
            level = mu * (1 + rng.uniform(1.0, 5.0) * rng.uniform(0.5, 0.85) ** k)
        else:
            t = int(rng.integers(3, n // 3))
            level = mu * (1 + rng.uniform(0.3, 2.0) * np.clip(1 - k / t, 0, None))
    elif cls == "slowdown":
        shape = str(rng.choice(["step", "ramp"]))
        pos = int(rng.integers(n // 5, n // 2))
        rise = rng.uniform(0.2, 0.6)
        width = 1 if shape == "step" else int(rng.integers(5, 16))
        level = mu * (1 + rise * np.clip((k - pos + 1) / width, 0, 1))
    elif cls == "no-steady-state":
        shape = str(rng.choice(["square", "drift", "staircase", "late-step"]))
        if shape == "square":
            period = int(rng.integers(4, 21))
            amp = rng.uniform(0.10, 0.40)
            phase = int(rng.integers(0, period))
            high = ((k + phase) % period) < period / 2
            level = mu * np.where(high, 1 + amp, 1 - amp)
        elif shape == "drift":
            start = int(n * rng.choice([0.0, rng.uniform(0.4, 0.6)]))
            d = rng.choice([-1, 1]) * rng.uniform(0.2, 0.6)
            level = mu * (1 + d * np.clip(k - start, 0, None) / (n - 1 - start))
        elif shape == "staircase":
            every = int(rng.integers(n // 8, n // 4 + 1))
            step = rng.choice([-1, 1]) * rng.uniform(0.08, 0.20)
            level = mu * (1 + step) ** (k // every)
        else:
            level[int(n * rng.uniform(0.80, 0.93)) :] *= rng.choice([0.7, 1.4])
    if cls != "flat" and rng.random() < 0.3:
        level[0] *= rng.uniform(1.5, 2.5)
        shape += "+slow-first"
    truth = None if cls == "no-steady-state" else _steady_iteration(level)
    x = level * (1 + noise * rng.standard_normal(n))
    after = (truth or 0) + 2
    if after < n - 1:
        count = min(int(rng.integers(0, 4)), n - 1 - after)
        for pos in rng.choice(np.arange(after, n - 1), count, replace=False):
            x[pos] *= rng.uniform(2.0, 6.0)
    return np.round(np.maximum(x, 0.0), 4), cls, truth, shape


def measure() -> tuple[collections.Counter[tuple[str, str]], int, int, list[str]]:
    """Run the engine over the generated series: (confusion, steady within ±2, warm-up and
    slowdown series, descriptions of the misses)."""
    rng = np.random.default_rng(SEED)
    confusion: collections.Counter[tuple[str, str]] = collections.Counter()
    within = changing = 0
    misses = []
    for i in range(PER_CLASS * len(CLASSES)):
        x, cls, truth, shape = generate(rng, CLASSES[i % len(CLASSES)])
        res = analyze_series(x, resamples=200)
        confusion[(cls, res.series_class)] += 1
        if cls != res.series_class:
            misses.append(f"#{i} {cls}/{shape} n={x.size} -> {res.series_class}")
        if truth is not None and cls != "flat":
            changing += 1
            if res.steady_iteration is not None and abs(res.steady_iteration - truth) <= 2:
                within += 1
            else:
                misses.append(f"#{i} {cls}/{shape} steady {res.steady_iteration} vs {truth}")
    return confusion, within, changing, misses


@pytest.mark.ci_only
def test_classes_are_right_on_an_independent_generator() -> None:
    """Classes right in ≥ 97 % and the steady iteration within ±2 runs of the truth in
    ≥ 90 % of warm-up and slowdown series (printed with the confusion matrix; ``-s``).

    Measured with seed 16 and 1000 series: 983/1000 = 98.3 % (was 88.8 % on its first 320
    before issue 16, with 26 of 80 square waves read as flat), steady iteration 477/500 =
    95.4 %. Seeds 1–7 of 1000 series each: 97.1–98.5 %, steady iteration 92.2–96.4 %: the
    errors left are mostly drifts and staircases read as a step (slowdown or warm-up)."""
    confusion, within, changing, misses = measure()
    total = sum(confusion.values())
    right = sum(v for (a, b), v in confusion.items() if a == b)
    print(f"\nclass accuracy {right}/{total} = {right / total:.1%}")
    print(f"steady iteration within ±2: {within}/{changing} = {within / changing:.1%}")
    print("truth \\ result".ljust(18) + "".join(c.rjust(17) for c in CLASSES))
    for a in CLASSES:
        print(a.ljust(18) + "".join(str(confusion[(a, b)]).rjust(17) for b in CLASSES))
    print("\n".join(misses))
    assert total >= 300
    assert {a for a, _ in confusion} == set(CLASSES)
    assert right / total >= 0.97
    assert within / changing >= 0.90
    # the figures in the docstring are what this seed gives
    assert (right, total, within, changing) == (983, 1000, 477, 500)


def test_a_slow_first_run_does_not_hide_a_change_at_run_6() -> None:
    """Issue 16: a 2.4x first run before five runs at 0.8x glued to them by PELT (segments
    have 2 runs or more) lifted their mean to the later level, and the slowdown at run 6
    read as flat. The truth from the levels: faster runs 1-5, slower from run 6 on."""
    rng = np.random.default_rng(5)
    for n in (20, 40, 100):
        level = np.r_[0.8 * 2.4, np.full(5, 0.8), np.full(n - 6, 1.0)]
        x = level * (1 + 0.02 * rng.standard_normal(n))
        got = analyze_series(x)
        assert got.series_class == "slowdown", n
        assert got.steady_iteration == _steady_iteration(level) == 6


def test_level_structure_tells_a_moving_level_from_noise() -> None:
    """A period-4 square wave of ±10 % (lag-1 differences look like noise, lag-4 ones do
    not), a 20 % drift and a staircase are structure; noise of 5 % around one level, or a
    square wave of ±1 % (inside the ±5 % band), is not."""
    from toolkit.analyze.warmup import level_structure

    rng = np.random.default_rng(3)
    k = np.arange(120)
    noise = 1 + 0.03 * rng.standard_normal(120)
    assert level_structure(np.where(k % 4 < 2, 1.1, 0.9) * noise)
    assert level_structure((1 + 0.2 * k / 119) * noise)
    assert level_structure(1.1 ** (k // 30) * noise)
    assert not level_structure(np.where(k % 4 < 2, 1.01, 0.99) * noise)
    flat_hits = sum(
        level_structure(1 + 0.05 * np.random.default_rng(s).standard_normal(60)) for s in range(200)
    )
    assert flat_hits <= 2  # the permutation test's alpha is 0.001


def test_two_pauses_in_a_row_are_spikes_but_a_square_wave_is_not() -> None:
    """Two 3-4x runs next to each other shielded each other from the spike rule (each was
    under 2x the larger neighbour) and, near the end, made a final segment: no steady
    state. The high half of a ±40 % square wave of period 4 is 2.3x the runs beside it but
    not twice the median around it."""
    from toolkit.analyze.warmup import single_iteration_spikes

    rng = np.random.default_rng(8)
    x = 1.0 + 0.02 * rng.standard_normal(60)
    x[[40, 41]] *= [3.5, 4.0]
    x[[57, 58]] *= [3.0, 3.4]
    assert np.flatnonzero(single_iteration_spikes(x)).tolist() == [40, 41, 57, 58]
    assert analyze_series(x).series_class == "flat"
    k = np.arange(60)
    square = np.where(k % 4 < 2, 1.4, 0.6) * (1 + 0.01 * rng.standard_normal(60))
    assert not single_iteration_spikes(square).any()
    assert analyze_series(square).series_class == "no-steady-state"
