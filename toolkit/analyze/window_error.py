"""The short-window error grid: how far "skip k runs, then aggregate the next m" is from
steady state, over many long series (research/warmup-science.md §7, §8.12).

For P long series (processes, restarts, queries) with steady references μ_p (the warm-up
engine's steady value, §8.7) and protocol π(k, m, agg) = "discard the first k runs, take
the min / mean / median of the next m" (ClickBench's hot is π(1, 2, min): run 0 is cold):

- ``v_p = agg(t_{p,k} … t_{p,k+m−1})`` (0-based run indices), ``e_p = v_p/μ_p − 1``
  (< 0: the protocol is optimistic);
- per cell: median of ``e_p`` with its 5–95 % range over p (the spread across processes)
  and a seeded bootstrap CI of the median resampling series (top-level resampling,
  Kalibera & Jones 2013); the share with ``|e_p| ≤ ε`` for ε = 1, 2, 5 %; the share of
  windows wholly inside the transient (``k + m ≤ steady iteration``);
- the decomposition ``mean e = transient bias + order-statistic bias``: the order-statistic
  part ``E[agg of m iid draws from F_ss,p]/μ_p − 1`` is exact on the empirical steady
  distribution ``F_ss,p`` (the series from its steady iteration on), with
  ``E[X_(j:m)] = Σ_i x_(i)·[P(Bin(m, i/n) ≥ j) − P(Bin(m, (i−1)/n) ≥ j)]``, which for the
  min (j = 1) is ``Σ x_(i)[(1 − (i−1)/n)^m − (1 − i/n)^m]`` (research §7); the transient
  part is the rest, ``e_p`` minus that.

Barrett et al. 2017 §8.1 (truncation study) is the model for evaluating every cut; the
order-statistic identity is standard (sampling with replacement).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = [
    "AGGREGATORS",
    "DEFAULT_EPSILONS",
    "SteadySeries",
    "WindowError",
    "WindowErrorGrid",
    "expected_order_statistic",
    "expected_window_value",
    "recommend_window",
    "window_error_grid",
]

FloatArray = npt.NDArray[np.float64]
Aggregator = Literal["min", "mean", "median"]

#: The aggregators of research §8.12; ClickBench's hot is ``min``.
AGGREGATORS: tuple[Aggregator, ...] = ("min", "mean", "median")
#: |e| ≤ ε shares reported per cell (5 % matches Traini et al. 2023's effect size).
DEFAULT_EPSILONS = (0.01, 0.02, 0.05)


@dataclass(frozen=True)
class SteadySeries:
    """One long series with its steady state: ``times`` in seconds in run order (index 0
    = the first run, the cold one for ClickBench; NaN = failed run), ``steady_s`` = μ_p,
    ``steady_iteration`` = index of its first steady run; ``label`` names it."""

    times: tuple[float, ...]
    steady_s: float
    steady_iteration: int
    label: str = ""


@dataclass(frozen=True)
class WindowError:
    """One cell of the grid: protocol (skip k, window m, aggregator) over ``series`` series.

    Errors are fractions (``v/μ − 1``; −0.03 = 3 % below steady state). ``within`` holds
    ``(ε, share of |e| ≤ ε)``; ``in_transient`` = share of series whose window ends before
    their steady iteration; ``transient_bias + order_statistic_bias = mean_error``
    (means over series). ``errors`` are the per-series errors, in input order of the
    series that had all m runs."""

    skip: int
    window: int
    aggregator: Aggregator
    series: int
    median_error: float
    p05_error: float
    p95_error: float
    median_ci: tuple[float, float]
    mean_error: float
    within: tuple[tuple[float, float], ...]
    in_transient: float
    transient_bias: float
    order_statistic_bias: float
    errors: tuple[float, ...] = field(repr=False)

    @property
    def runs(self) -> int:
        """Runs a benchmark needs for this protocol: k + m."""
        return self.skip + self.window

    def share_within(self, epsilon: float) -> float:
        """Share of series with ``|e| ≤ epsilon``."""
        e = np.abs(np.asarray(self.errors))
        return float(np.mean(e <= epsilon + 1e-12)) if e.size else math.nan


@dataclass(frozen=True)
class WindowErrorGrid:
    """Every cell with at least one series, ordered by aggregator, k, m. ``series`` = how
    many series had a steady state and entered the grid."""

    cells: tuple[WindowError, ...]
    series: int
    max_skip: int
    max_window: int
    epsilons: tuple[float, ...]

    def cell(self, skip: int, window: int, aggregator: Aggregator = "min") -> WindowError | None:
        """The cell of protocol (skip, window, aggregator), or None when no series had
        ``skip + window`` runs."""
        for c in self.cells:
            if c.skip == skip and c.window == window and c.aggregator == aggregator:
                return c
        return None


def expected_order_statistic(sample: npt.ArrayLike, j: int, m: int) -> float:
    """Exact ``E[X_(j:m)]``, the j-th smallest of m draws with replacement from the
    empirical distribution of ``sample``:
    ``Σ_i x_(i)·[P(Bin(m, i/n) ≥ j) − P(Bin(m, (i−1)/n) ≥ j)]`` with x sorted
    (P(X_(j:m) ≤ x_(i)) is the chance that at least j draws are among the i smallest).
    j = 1 gives research §7's min formula."""
    from scipy.stats import binom

    x = np.sort(np.asarray(sample, dtype=np.float64).ravel())
    n = x.size
    if n == 0 or not 1 <= j <= m:
        raise ValueError(f"need a non-empty sample and 1 ≤ j ≤ m (j={j}, m={m}, n={n})")
    p = np.arange(n + 1) / n
    at_least_j = binom.sf(j - 1, m, p)  # P(Bin(m, p) ≥ j)
    weights = np.diff(at_least_j)
    return float(np.dot(x, weights))


def expected_window_value(sample: npt.ArrayLike, m: int, aggregator: Aggregator) -> float:
    """Exact expectation of ``aggregator`` over m iid draws from the empirical
    distribution of ``sample``: min = ``E[X_(1:m)]``; median = ``E[X_((m+1)/2:m)]`` (odd
    m) or the mean of the two middle order statistics (even m); mean = the sample mean."""
    x = np.asarray(sample, dtype=np.float64).ravel()
    if aggregator == "mean":
        return float(x.mean())
    if aggregator == "min":
        return expected_order_statistic(x, 1, m)
    if aggregator == "median":
        if m % 2:
            return expected_order_statistic(x, (m + 1) // 2, m)
        return 0.5 * (
            expected_order_statistic(x, m // 2, m) + expected_order_statistic(x, m // 2 + 1, m)
        )
    raise ValueError(f"unknown aggregator {aggregator!r}; use min, mean or median")


def _aggregate(windows: FloatArray, aggregator: Aggregator) -> FloatArray:
    out: FloatArray
    if aggregator == "min":
        out = windows.min(axis=1)
    elif aggregator == "mean":
        out = windows.mean(axis=1)
    else:
        out = np.median(windows, axis=1)
    return out


def grid_protocols(max_skip: int, max_window: int, longest: int) -> list[tuple[int, int]]:
    """The (skip k, window m) pairs of a grid over series of at most ``longest`` runs:
    k = 0…``max_skip``, m = 1…``max_window``, with k + m ≤ ``longest`` (no series has a
    window past its last run, so the others are empty cells; ``--max-window 100000000``
    looped 10^8 times over every series for them)."""
    return [
        (k, m)
        for k in range(min(max_skip, longest - 1) + 1)
        for m in range(1, min(max_window, longest - k) + 1)
    ]


def window_error_grid(
    series: Sequence[SteadySeries],
    *,
    max_skip: int = 5,
    max_window: int = 9,
    aggregators: Sequence[Aggregator] = AGGREGATORS,
    epsilons: Sequence[float] = DEFAULT_EPSILONS,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> WindowErrorGrid:
    """The error of every protocol π(k, m, agg), k = 0…``max_skip``, m = 1…``max_window``,
    against each series' steady value (research §8.12; see the module docstring).

    A series enters a cell when it has k + m runs and none of them failed. Series without
    a positive finite steady value are left out. The steady distribution ``F_ss`` of a
    series is every finite run from its steady iteration on — spikes included, since a
    window in steady state meets them too (the steady value excludes them). The
    bootstrap of the median resamples series (``resamples``, seeded by ``seed``).
    """
    if max_skip < 0 or max_window < 1:
        raise ValueError("max_skip must be ≥ 0 and max_window ≥ 1")
    usable = [
        s
        for s in series
        if math.isfinite(s.steady_s) and s.steady_s > 0 and 0 <= s.steady_iteration < len(s.times)
    ]
    times = [np.asarray(s.times, dtype=np.float64) for s in usable]
    mu = np.array([s.steady_s for s in usable])
    steady_iter = np.array([s.steady_iteration for s in usable])
    steady_parts = [
        t[s.steady_iteration :][np.isfinite(t[s.steady_iteration :])]
        for t, s in zip(times, usable, strict=True)
    ]
    rng = np.random.default_rng(seed)
    alpha = (1.0 - confidence) / 2.0
    cells: list[WindowError] = []
    # exact order-statistic expectation per (series, m, aggregator), shared across k
    expected: dict[tuple[int, int, str], float] = {}
    protocols = grid_protocols(max_skip, max_window, max((t.size for t in times), default=0))
    for agg in aggregators:
        for k, m in protocols:
            idx = [
                i
                for i, t in enumerate(times)
                if t.size >= k + m and np.all(np.isfinite(t[k : k + m]))
            ]
            if not idx:
                continue
            windows = np.stack([times[i][k : k + m] for i in idx])
            e = _aggregate(windows, agg) / mu[idx] - 1.0
            b_os = np.empty(len(idx))
            for pos, i in enumerate(idx):
                key = (i, m, agg)
                if key not in expected:
                    part = steady_parts[i]
                    expected[key] = (
                        expected_window_value(part, m, agg) / mu[i] - 1.0 if part.size else math.nan
                    )
                b_os[pos] = expected[key]
            boot = np.median(e[rng.integers(0, e.size, (resamples, e.size))], axis=1)
            lo, hi = np.quantile(boot, [alpha, 1.0 - alpha])
            p05, med, p95 = np.quantile(e, [0.05, 0.5, 0.95])
            ae = np.abs(e)
            os_bias = float(np.nanmean(b_os)) if np.isfinite(b_os).any() else math.nan
            mean_e = float(e.mean())
            cells.append(
                WindowError(
                    skip=k,
                    window=m,
                    aggregator=agg,
                    series=len(idx),
                    median_error=float(med),
                    p05_error=float(p05),
                    p95_error=float(p95),
                    median_ci=(float(lo), float(hi)),
                    mean_error=mean_e,
                    within=tuple(
                        (float(eps), float(np.mean(ae <= eps + 1e-12))) for eps in epsilons
                    ),
                    in_transient=float(np.mean(k + m <= steady_iter[idx])),
                    transient_bias=mean_e - os_bias,
                    order_statistic_bias=os_bias,
                    errors=tuple(float(v) for v in e),
                )
            )
    return WindowErrorGrid(tuple(cells), len(usable), max_skip, max_window, tuple(epsilons))


def recommend_window(
    grid: WindowErrorGrid,
    *,
    target: float = 0.05,
    coverage: float = 0.90,
    aggregator: Aggregator = "min",
    skip: int | None = None,
    min_series: int | None = None,
) -> WindowError | None:
    """The cheapest protocol (fewest runs k + m; among those the most series within
    the target, then the fewest skipped) whose error is
    within ``±target`` for at least ``coverage`` of the series, with ``aggregator`` and,
    if given, a fixed ``skip`` (``skip=1`` = ClickBench: only the cold run is dropped).
    Only cells with ``min_series`` series or more count (default: half the grid's
    series, so a long-window cell that only a few long series reach cannot win; a series
    whose window holds a failed run has no value in that cell). None: no cell qualifies."""
    need = max(1, math.ceil(grid.series / 2)) if min_series is None else min_series
    best: WindowError | None = None
    for c in grid.cells:
        if c.aggregator != aggregator or c.series < need:
            continue
        if skip is not None and c.skip != skip:
            continue
        if c.share_within(target) + 1e-12 < coverage:
            continue
        if best is None or _rank(c, target) < _rank(best, target):
            best = c
    return best


def _rank(c: WindowError, target: float) -> tuple[int, float, int]:
    # fewest runs, then the most series within the target, then the fewest skipped
    return (c.runs, -c.share_within(target), c.skip)
