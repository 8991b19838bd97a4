"""Load-test time series (JMeter): warm-up end, steady throughput and latency, dashboard
statistics, APDEX and a Little's-law check. Pure: aggregated frames in, dataclasses out.

The store-side aggregation (per-window counts, per-value latency histograms) is done in SQL
by ``toolkit.pipeline.load``; this module never sees raw samples, so memory does not grow
with the size of the JTL.

Methods:

- Warm-up end: MSER-5 (White 1997; research/warmup-science.md §3.1, §8.8) on the per-window
  throughput series and on the per-window mean-latency series (the windows are the batching
  of §8.11). A truncation counts as a warm-up only when the truncated part differs from the
  rest by more than ``z`` standard errors (batch means of the retained part) *and* by more
  than ``min_effect``. A truncation pinned at the n/2 cap (§3.1 rule) or a retained part
  that still drifts gets a second look with the cap lifted (a long warm-up): the verdict
  is a warm-up when the part after MSER's uncapped minimum holds no trend (the plateau
  test, Geweke 1992 halves), "no-steady-state" when it still trends. Two more rules see a
  warm-up's end (:func:`warmup_end`'s ``changepoints``): PELT change points on throughput
  and latency (Killick et al. 2012, Barrett et al. 2017's 15·ln n penalty and backward
  scan; research §1.3, §1.5, §8.2), and the fitted warm-up curve of the latency (step,
  linear ramp or exponential decay, research §8.13). The end is the latest that the
  rules agree on; the combination is documented at :func:`warmup_end`.
- Steady throughput and latency CIs: non-overlapping batch means over the windows after
  the warm-up end, Student t (Law & Kelton's batch-means method; research §8.7).
- Percentiles over all samples or the steady part: exact, from value histograms, with the
  estimator of JMeter's dashboard (commons-math LEGACY: position p·(n+1), linear
  interpolation; research/jmeter.md §7.7), so numbers match ``jmeter -g`` where JMeter's
  20,000-sample window does not cut in.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt
import polars as pl

# defined in a light module for the command line's option checks; imported from here too
from toolkit.analyze.apdex import ApdexThresholds as ApdexThresholds
from toolkit.analyze.changepoints import pelt
from toolkit.analyze.distributions import kendall_trend_pvalue, t_quantile
from toolkit.analyze.findings import Finding
from toolkit.analyze.mser import mser
from toolkit.analyze.warmup_curve import fit_warmup_curve
from toolkit.numbers import fmt_num

if TYPE_CHECKING:
    from collections.abc import Callable


#: Percentile levels reported everywhere (p99.9 as 99.9).
PERCENTILES = (50.0, 90.0, 95.0, 99.0, 99.9)

#: The class of a warm-up verdict, one meaning everywhere (``--json``'s ``warmup_status``,
#: the table and the report; README "Load tests"): ``warmup`` — a transient ends at
#: ``end_s`` and the series holds steady after it; ``flat`` — steady from the start (no
#: transient); ``no-steady-state`` — the part left after the warm-up still trends (the
#: trend test says so) or the threads ramp up past half of the run; ``too-short`` — too
#: few windows for the rules; ``inconclusive`` — the rules disagree (MSER pinned at its
#: cap even with the cap lifted while the part after it shows no trend).
WarmupStatus = Literal["warmup", "flat", "no-steady-state", "too-short", "inconclusive"]

#: the classes that have a steady part (steady figures are computed after ``end_s``)
STEADY_STATUSES: tuple[str, ...] = ("warmup", "flat")

#: where a steady window comes from (:attr:`LabelLoad.steady_source`; ``overall`` is
#: compare's fallback to every full window when a run has no steady state)
SteadySource = Literal["detected", "user", "overall"]

#: a label holding at least this share of ALL's samples gets ALL's verdict
#: (:func:`analyze_windows`' ``verdict_from``): its series is ALL's but for a few samples,
#: and two verdicts on one series would disagree only by the noise of the rules
ALL_SHARE_FOR_VERDICT = 0.99

#: the rule that decided a verdict (:attr:`WarmupEnd.decided_by`)
DecidingRule = Literal[
    "mser",
    "mser-uncapped",
    "changepoint",
    "curve",
    "trend",
    "mser-cap",
    "rampup",
    "gap",
    "too-short",
    "all-label",
]

#: a stretch of empty windows is a gap when the run's mean rate would have completed at
#: least this many samples in it: P(no completion) = e^-10 ≈ 5·10⁻⁵ for Poisson arrivals
GAP_MIN_EXPECTED = 10.0
#: a run whose inner windows are mostly empty, in at least this many stretches, is a run of
#: bursts (:func:`empty_stretches`), and there a gap is at least ``RHYTHM_GAP_FACTOR``
#: times its median empty stretch
RHYTHM_MIN_STRETCHES = 5
RHYTHM_GAP_FACTOR = 3.0
#: the largest share of a steady part's windows that one gap (:func:`empty_stretches`)
#: may take: a stall longer than that lowers the "steady" throughput by more than the 5 %
#: the rules call an effect (``min_effect``), so the part is no steady state (two runs
#: appended to one JTL, an hour apart: MSER cut the first run as a "warm-up" and called
#: the hour of nothing steady; two 300 s runs 600 s apart were "flat, 25/s" for a server
#: that ran at 50/s). One gap, not their sum: a pause that recurs (a GC pause a minute)
#: is part of the steady state, and a run of bursts has no gaps (its rhythm)
GAP_MAX_SHARE = 0.05

#: MSER's cap when a warm-up takes more than half of the run (:func:`warmup_end`): the
#: part after the truncation keeps at least a fifth of the series for the plateau test
LONG_WARMUP_MAX_FRAC = 0.8


def legacy_percentile(values: npt.ArrayLike, counts: npt.ArrayLike, p: float) -> float | None:
    """Percentile ``p`` (0–100) of a value histogram, commons-math LEGACY estimator.

    Position ``pos = p/100·(n+1)``; below 1 → minimum, at or above n → maximum, else
    linear interpolation between the order statistics ``⌊pos⌋`` and ``⌊pos⌋+1``
    (research/jmeter.md §7.7; JMeter ``backend_metrics_percentile_estimator=LEGACY``).
    ``values`` must be sorted ascending; ``counts`` are their multiplicities.

    >>> legacy_percentile([100, 170, 329], [1, 1, 1], 50)
    170.0
    """
    v = np.asarray(values, dtype=np.float64)
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    if n == 0:
        return None
    cum = np.cumsum(c)
    pos = p / 100.0 * (n + 1)
    if pos < 1:
        return float(v[0])
    if pos >= n:
        return float(v[-1])
    lo = math.floor(pos)
    frac = pos - lo
    x_lo = v[int(np.searchsorted(cum, lo, side="left"))]
    x_hi = v[int(np.searchsorted(cum, lo + 1, side="left"))]
    return float(x_lo + frac * (x_hi - x_lo))


@dataclass(frozen=True)
class LatencySummary:
    """Latency statistics in ms of a set of samples (from its histogram)."""

    samples: int
    mean: float | None
    min: float | None
    max: float | None
    percentiles: dict[str, float | None]

    def as_dict(self) -> dict[str, float | int | None]:
        """Keys p50, p90, p95, p99, p99_9, mean, min, max (ms)."""
        return {**self.percentiles, "mean": self.mean, "min": self.min, "max": self.max}


def percentile_key(p: float) -> str:
    """The key of percentile ``p`` in results and frames: 99 → ``p99``, 99.9 → ``p99_9``."""
    return f"p{p:g}".replace(".", "_")


def latency_summary(values: npt.ArrayLike, counts: npt.ArrayLike) -> LatencySummary:
    """Mean, min, max and :data:`PERCENTILES` (LEGACY estimator) of a histogram of ms."""
    v = np.asarray(values, dtype=np.float64)
    c = np.asarray(counts, dtype=np.int64)
    order = np.argsort(v, kind="stable")
    v, c = v[order], c[order]
    n = int(c.sum())
    if n == 0:
        return LatencySummary(0, None, None, None, {percentile_key(p): None for p in PERCENTILES})
    return LatencySummary(
        samples=n,
        mean=float((v * c).sum() / n),
        min=float(v[0]),
        max=float(v[-1]),
        percentiles={percentile_key(p): legacy_percentile(v, c, p) for p in PERCENTILES},
    )


@dataclass(frozen=True)
class WarmupEnd:
    """Where the warm-up ends in a windowed series.

    ``status``: a :data:`WarmupStatus` — ``warmup`` (a transient ends at ``end_s``),
    ``flat`` (no clear transient: steady from the start, ``end_s`` = 0),
    ``no-steady-state`` (the retained part still trends, ``end_s`` None), ``inconclusive``
    (the rules disagree, ``end_s`` None) or ``too-short`` (fewer than ``min_windows``
    windows). ``end_window`` counts windows. ``decided_by`` names the rule that decided
    (:data:`DecidingRule`): ``mser`` (MSER-5 within its n/2 cap), ``mser-uncapped`` (a
    warm-up longer than half of the run: MSER with the cap lifted, and the plateau test
    on the part after it), ``changepoint`` (PELT change points on throughput or latency,
    :func:`_changepoint_end`), ``curve`` (the latency's fitted warm-up curve,
    :func:`_curve_end`), ``trend`` (the trend test on the retained part), ``mser-cap``
    (MSER pinned at even the lifted cap, no trend after it), ``rampup`` (threads still
    starting past half of the run), ``gap`` (a stall: :func:`_gap_verdict`) or
    ``all-label`` (ALL's verdict, for a label holding nearly all of its samples).
    """

    status: WarmupStatus
    end_window: int | None
    end_s: float | None
    throughput_truncation: int | None
    latency_truncation: int | None
    decided_by: DecidingRule | None = None


def _transient_is_real(
    x: npt.NDArray[np.float64], d: int, batch: int, z: float, eff: float
) -> bool:
    if d <= 0 or d >= x.size:
        return False
    pre, post = x[:d], x[d:]
    m = post.size // batch
    if m >= 2:
        means = post[: m * batch].reshape(m, batch).mean(axis=1)
        sd = float(means.std(ddof=1))
    else:
        sd = float(post.std(ddof=1)) if post.size > 1 else 0.0
    se = sd / math.sqrt(max(1.0, d / batch))
    effect = abs(float(pre.mean()) - float(post.mean()))
    return effect > z * se and effect > eff * abs(float(post.mean()))


#: the chance that a flat series reads as a warm-up (or, run backwards, a cool-down)
#: that :func:`selection_z` allows: 1 %
SELECTION_FALSE_ALARM = 0.01


def _bridge_tail(c: float, ratio: float) -> float:
    """P(max |U(t)| > c) of the standardized Brownian bridge U over t in [t0, t1],
    ``ratio`` = t1(1 - t0) / (t0(1 - t1)): the null distribution of the largest
    standardized difference of means over every split point in that range. James,
    James & Siegmund (1987), Biometrika 74(1), §3's large-c approximation
    c·φ(c)·((1 - 1/c²)·ln ratio + 4/c²)."""
    phi = math.exp(-0.5 * c * c) / math.sqrt(2 * math.pi)
    return c * phi * ((1 - 1 / (c * c)) * math.log(ratio) + 4 / (c * c))


@functools.lru_cache(maxsize=4096)
def selection_z(z: float, batches: int, max_frac: float) -> float:
    """The critical value for a transient that MSER chose among the first ``max_frac`` of
    ``batches`` batch means: the transient is the best split of all those tried, so its
    standardized difference is compared with the null distribution of the largest one
    (:func:`_bridge_tail`, or Bonferroni over the splits where that is tighter), at a
    false-alarm rate of ``SELECTION_FALSE_ALARM`` per series; never below ``z``. (The
    difference :func:`_transient_is_real` measures leaves out the retained part's own
    error, so on iid noise its largest value passes this in ~4 % of series, against
    over 10 % for ``z`` = 3.)

    Measured on generated 600 s runs of per-second Poisson counts (tests/
    test_load_accuracy.py): z = 3 on the chosen split alone read 6–7 of 200 flat runs at
    30 and 100/s as a warm-up or cool-down, this 1; of 162 warm-ups (30–300/s, 15–60 %
    below the level, time constants 5–40 s) it finds 115 against 132 and ends 65 within
    max(2 s, 25 %) of the truth against 71: those it no longer finds are 1–2 batches
    within the noise. The 30 generated flat runs of tests/load_series.py: 28 flat, was 27.
    """
    candidates = int(max_frac * batches)
    if candidates < 2:
        return z
    alpha = SELECTION_FALSE_ALARM
    t0 = 1.0 / batches
    t1 = min(max(max_frac, 2 * t0), 1 - t0)
    ratio = t1 * (1 - t0) / (t0 * (1 - t1))

    def quantile(tail: Callable[[float], float]) -> float:
        lo, hi = 0.5, 10.0
        for _ in range(50):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if tail(mid) > alpha else (lo, mid)
        return hi

    # few candidates: Bonferroni over them is the tighter bound (the approximation is
    # for a continuum of split points)
    bonferroni = quantile(lambda c: candidates * math.erfc(c / math.sqrt(2)))
    return max(z, min(quantile(lambda c: _bridge_tail(c, ratio)), bonferroni))


def _transient_is_sustained(x: npt.NDArray[np.float64], d: int, batch: int, eff: float) -> bool:
    """Whether the transient ``x[:d]``'s median batch lies off the retained part's median
    batch by ``eff``, not only its mean off the retained mean: a warm-up is a run of
    batches away from the level, while one window holding a 30 s sample among 20 ms ones
    (a mean latency of 1,500 ms at 20/s) makes a start of any length "differ" by its mean
    alone (flat runs with 0.1 % of such samples read "warm-up ends 36 s", "181 s",
    "206 s"). Starts or retained parts of fewer than 3 batches are left to
    :func:`_transient_is_real`."""
    m, k = d // batch, (x.size - d) // batch
    if m < 3 or k < 3:
        return True
    means = x[: m * batch].reshape(m, batch).mean(axis=1)
    # the retained part's median batch too: its own spikes raise its mean
    centre = float(np.median(x[d : d + k * batch].reshape(k, batch).mean(axis=1)))
    return abs(float(np.median(means)) - centre) > eff * abs(centre)


def _extend_back(x: npt.NDArray[np.float64], d: int, batch: int, z: float, eff: float) -> int:
    """Move a truncation ``d`` earlier while the batches it would add match the retained
    part: a batch "differs" when its mean is more than ``z`` batch-means SDs *or* more than
    ``eff`` (relative) from the retained mean, and the move stops at two differing batches
    in a row (a transient is a run of them; one batch beyond 3 SDs is noise).

    Past the transient MSER's curve is nearly flat and its minimum lands anywhere in the
    flat part: a very smooth series (mean latency over ~1000 samples per window) turns small
    wobbles there into a minimum well after the true end.
    """

    def differs(lo: int, hi: int) -> bool:
        post = x[d:]
        m = post.size // batch
        means = post[: m * batch].reshape(m, batch).mean(axis=1)
        centre = float(post.mean())
        effect = abs(float(x[lo:hi].mean()) - centre)
        return effect > z * float(means.std(ddof=1)) or effect > eff * abs(centre)

    while d - batch >= 0 and (x.size - d) // batch >= 2:
        if not differs(d - batch, d):
            d -= batch
        elif d - 2 * batch >= 0 and not differs(d - 2 * batch, d - batch):
            d -= 2 * batch
        else:
            break
    return d


def _trending(
    x: npt.NDArray[np.float64], batch: int, z: float, eff: float, *, counts: bool = False
) -> bool:
    """Whether the first and second half of ``x`` differ (Geweke-style, batch-means SE).

    Both halves are compared over their whole batches, the batches the SE is computed
    from (a trailing part batch moved a half's mean with no SE to match it). For a
    series of ``counts`` per window the SE is at least the Poisson one, √(mean/n) per
    half of n windows: a periodic label (one sample every 5 windows) has batch means
    with no variance at all, and a difference of a sample or two between the halves is
    the discreteness of the counts, not a trend.
    """
    half = x.size // 2
    a, b = x[:half], x[half:]
    ma, mb = a.size // batch, b.size // batch
    if ma < 2 or mb < 2:
        return False
    za = a[: ma * batch].reshape(ma, batch).mean(axis=1)
    zb = b[: mb * batch].reshape(mb, batch).mean(axis=1)
    var = float(za.var(ddof=1)) / ma + float(zb.var(ddof=1)) / mb
    centre = float(np.concatenate([za, zb]).mean())
    if counts:
        var = max(var, abs(centre) / (ma * batch) + abs(centre) / (mb * batch))
    effect = abs(float(za.mean()) - float(zb.mean()))
    return effect > z * math.sqrt(var) and effect > eff * abs(centre)


def warmup_end(
    counts: npt.ArrayLike,
    mean_latency: npt.ArrayLike | None,
    *,
    window_s: float,
    batch: int = 5,
    max_frac: float = 0.5,
    z: float = 3.0,
    min_effect: float = 0.05,
    min_windows: int = 10,
    basin: float = 0.10,
    long_warmup: bool = False,
    changepoints: bool = False,
) -> WarmupEnd:
    """Warm-up end of a windowed load series by MSER-``batch`` on throughput and latency.

    ``counts[i]`` = samples completed in window i, ``mean_latency[i]`` their mean elapsed
    (NaN for empty windows, which are skipped for the latency series). Defaults: MSER-5,
    n/2 cap (White 1997; research/warmup-science.md §3.1, §8.8); a transient must differ
    from the retained part by > ``z`` = 3 standard errors and > ``min_effect`` = 5 %.
    MSER has no notion of a drifting "steady" part (§3.1, known weaknesses), so the
    retained part is also checked Geweke-style (Geweke 1992: first vs second half, batch
    means). With ``long_warmup``, MSER pinned at its cap or a drifting retained part gets
    MSER again with the cap
    lifted to ``LONG_WARMUP_MAX_FRAC``: the part after its minimum decides — drifting by the
    same margins, "no-steady-state" (``decided_by`` ``trend``); steady, a warm-up longer
    than half of the run (``mser-uncapped``; the caller warns that the steady part is
    short); MSER pinned again, "inconclusive" (``mser-cap``). MSER's argmin
    is noisy once the transient is over (the curve is flat there, §3.1), so the earliest
    truncation whose MSER is within ``basin`` = 10 % of the minimum is taken (calibrated
    on generated runs: a 60 s ramp is found at 55–60 s, plain argmin gave 60–110 s), and
    then moved earlier while the batches it would add match the steady part by the same
    ``z`` and ``min_effect`` margins (:func:`_extend_back`). The end is the later of the
    throughput and latency ends.

    With ``changepoints`` (the load analysis; not summariser logs, whose few coarse
    windows keep MSER and the trend test alone), two more rules, combined per series so
    that the end is the latest one the rules agree on:

    - change points (:func:`_changepoint_end`): where MSER found a transient, the later
      of its end and the change points' end where the windows between the two differ
      from those after the later one (by ``z`` SEs and ``min_effect``), else the earlier
      one only when MSER's end came with its cap lifted, else MSER's; where MSER is
      pinned at its cap or its retained part trends and MSER with the cap lifted fails
      the plateau test or stays pinned, the change points' end when its steady part
      passes the plateau test (``decided_by`` ``changepoint``; a run whose change points
      find no such part stays ``no-steady-state`` or ``inconclusive``). Change points
      alone, where MSER sees no transient, make no warm-up.
    - the warm-up curve (:func:`_curve_end`): a warm-up found, the mean-latency curve's
      entry into ±``min_effect`` of its level when that is later (``curve``).

    Calibrated on tests/load_series.py (30 seeds of each shape, tests/test_load_accuracy.py):
    ends right 71 → 96 of 120 warm-ups, early 30 → 10; no flat or never-ending run changed
    class.
    """
    x = np.asarray(counts, dtype=np.float64)
    if x.size < min_windows:
        return WarmupEnd("too-short", None, None, None, None, "too-short")
    series = [x]
    if mean_latency is not None:
        lat = np.asarray(mean_latency, dtype=np.float64)
        series.append(np.where(np.isfinite(lat), lat, np.nan))
    ends: list[int] = []
    trending = undecided = uncapped = by_changepoint = False
    truncations: list[int | None] = []
    for values in series:
        # the latency of empty windows is unknown: MSER runs over the windows that have
        # one, and its truncation maps back to a window index (carrying the last value
        # over empty windows made runs of equal values, whose too-small batch variance
        # turned noise into "transients" on sparse labels: 48 of 200 flat 0.2/s series)
        kept = np.flatnonzero(np.isfinite(values))
        if kept.size == 0:
            truncations.append(None)
            continue
        filled = values[kept]
        is_counts = values is x and bool(np.all(x == np.round(x)))
        end = _series_end(
            filled, batch=batch, max_frac=max_frac, z=z, min_effect=min_effect,
            min_windows=min_windows, basin=basin, long_warmup=long_warmup,
            changepoints=changepoints, is_counts=is_counts,
        )  # fmt: skip
        d = end.truncation
        truncations.append(int(kept[d]) if d < kept.size else values.size)
        trending = trending or end.verdict == "trend"
        undecided = undecided or end.verdict == "undecided"
        if end.verdict == "end":
            # no transient (0) is no warm-up, even where the first windows are empty
            end_window = (
                0 if end.end == 0 else int(kept[end.end]) if end.end < kept.size else values.size
            )
            if end.placed:
                truncations[-1] = end_window
            if not ends or end_window > max(ends):
                by_changepoint = end.rule == "changepoint"
                uncapped = end.rule == "mser-uncapped"
            elif end_window == max(ends):
                by_changepoint = by_changepoint and end.rule == "changepoint"
                uncapped = uncapped and end.rule == "mser-uncapped"
            ends.append(end_window)
    tp_trunc = truncations[0]
    lat_trunc = truncations[1] if len(truncations) > 1 else None
    if trending:
        return WarmupEnd("no-steady-state", None, None, tp_trunc, lat_trunc, "trend")
    if undecided:
        return WarmupEnd("inconclusive", None, None, tp_trunc, lat_trunc, "mser-cap")
    if not ends or max(ends) == 0:
        # a transient extended back to the first window is no transient
        return WarmupEnd("flat", 0, 0.0, tp_trunc, lat_trunc, "mser")
    last = max(ends)
    rule: DecidingRule = (
        "changepoint" if by_changepoint else "mser-uncapped" if uncapped else "mser"
    )
    if changepoints and len(series) > 1:
        curve_end = _curve_end(
            series[1], last, batch=batch, z=z, min_effect=min_effect, min_windows=min_windows
        )
        if curve_end is not None:
            last, rule = curve_end, "curve"
    return WarmupEnd("warmup", last, last * window_s, tp_trunc, lat_trunc, rule)


def _curve_end(
    latency: npt.NDArray[np.float64],
    end: int,
    *,
    batch: int,
    z: float,
    min_effect: float,
    min_windows: int,
) -> int | None:
    """A later warm-up end than the rules' ``end`` (a window index) from the mean-latency
    series' fitted warm-up curve (:func:`~toolkit.analyze.warmup_curve.fit_warmup_curve`),
    or None: where the curve enters ±``min_effect`` of the level the run ends at, when that
    is after ``end``, the fitted amplitude is ``z`` standard errors from 0, the curve moves
    the way the latency does across ``end``, and the windows after its entry hold at least
    ``max(min_windows, 4·batch)`` values and pass the plateau test (:func:`_plateau`).

    Latency only: it is the service time that warms up, and a closed loop's throughput is
    threads ÷ latency, a hyperbola when the service time ramps linearly, which none of
    the models fits (its fits put the end 10–30 % late on generated ramps); a throughput
    ramp with a flat latency (threads starting) has its own rule. The local rules see the
    last part of a slow approach only where a few windows alone stand out of the noise:
    on generated noisy ramps they ended early in 22 of 60 (tests/test_load_accuracy.py)."""
    kept = np.flatnonzero(np.isfinite(latency))
    if kept.size == 0:
        return None
    filled = latency[kept]
    d = int(np.searchsorted(kept, end))
    curve = fit_warmup_curve(filled, band=min_effect)
    if curve is None or curve.t_ratio <= z or curve.band_entry <= d:
        return None
    entry = curve.band_entry
    # a warm-up makes the service faster: latency that rises to its level is threads
    # starting or a server filling up (real sample_log1.jtl: 10 threads started 15 s
    # apart, whose curve "ended" at 630 s), not a warm-up to extend
    if not curve.start > curve.level:
        return None
    if 0 < d < filled.size and float(filled[:d].mean()) <= float(filled[d:].mean()):
        return None
    tail = filled[entry:]
    if tail.size < max(min_windows, 4 * batch) or not _plateau(
        tail, batch, z, min_effect, counts=False
    ):
        return None
    return int(kept[entry])


@dataclass(frozen=True)
class _SeriesEnd:
    """One series' answer to :func:`warmup_end` (indices into its finite values):
    ``verdict`` ``end`` (a warm-up ends at ``end``, 0 for none), ``trend`` (the retained
    part trends) or ``undecided`` (MSER pinned at its cap, no trend after it);
    ``truncation`` MSER's own; ``rule`` the rule that placed ``end``."""

    verdict: Literal["end", "trend", "undecided"]
    end: int
    truncation: int
    rule: DecidingRule
    #: the rules placed ``end`` (a real transient; False: MSER saw none, ``end`` 0)
    placed: bool = True


def _series_end(
    filled: npt.NDArray[np.float64],
    *,
    batch: int,
    max_frac: float,
    z: float,
    min_effect: float,
    min_windows: int,
    basin: float,
    long_warmup: bool,
    changepoints: bool,
    is_counts: bool,
) -> _SeriesEnd:
    """:func:`warmup_end` on one series (throughput or latency) without missing values."""
    d, pinned = _mser_end(filled, batch, max_frac, z, min_effect, basin)
    truncation = d
    if pinned:
        # at its cap, d is the cap itself, one split: z, and a difference there keeps the
        # run undecided rather than flat
        real = _transient_is_real(filled, d, batch, z, min_effect)
    else:
        # MSER chose d as the truncation that makes the retained part look most steady:
        # the transient it cuts off is the most different start of any it tried, so it is
        # measured against the largest of that many noise differences, not one (a flat
        # Poisson run at 100/s read "warm-up ends 11 s" in 4 of 50 seeds at z = 3), and
        # must be a run of batches off the level, not one spike
        critical = selection_z(z, filled.size // batch, max_frac)
        real = _transient_is_real(filled, d, batch, critical, min_effect) and (
            _transient_is_sustained(filled, d, batch, min_effect)
        )
    drifts = _trending(filled[d:], batch, z, min_effect, counts=is_counts)
    if not long_warmup and ((real and pinned) or drifts):
        return _SeriesEnd("trend" if drifts else "undecided", 0, truncation, "mser")
    cp = (
        _changepoint_end(filled, batch, z, min_effect, min_windows, counts=is_counts)
        if changepoints
        else None
    )
    rule: DecidingRule = "mser"
    if (real and pinned) or drifts:
        # MSER at its n/2 cap, or a retained part that still drifts: a warm-up longer
        # than half of the run (real JDBC runs: JIT warm-up of 8 s in 20 s, of ~35 s
        # in 60 s) looks like this too. The cap lifted, the part after MSER's minimum
        # decides: no trend there (the plateau test) is a long warm-up, a trend is no
        # steady state
        long_d, long_pinned = _mser_end(
            filled, batch, max(max_frac, LONG_WARMUP_MAX_FRAC), z, min_effect, 0.0
        )
        tail = filled[long_d:]
        if tail.size < max(min_windows, 4 * batch) or not _plateau(
            tail, batch, z, min_effect, counts=is_counts
        ):
            if cp is not None:
                # the change points' steady segment holds no trend where MSER's
                # retained part does: MSER's cut fell inside the warm-up
                return _SeriesEnd("end", cp, truncation, "changepoint")
            return _SeriesEnd("trend", 0, truncation, "mser")
        head = filled[: max(batch, math.ceil(0.1 * long_d))]
        if (
            long_pinned
            or not _transient_is_real(filled, long_d, batch, z, min_effect)
            or not _differs(head, tail, batch, z, min_effect)
        ):
            # a warm-up starts away from its steady level: a run that starts at it
            # and leaves it (a pause, an outage) has no warm-up to end
            if cp is not None:
                return _SeriesEnd("end", cp, truncation, "changepoint")
            return _SeriesEnd("undecided", 0, truncation, "mser")
        d, real, truncation = long_d, True, long_d
        rule = "mser-uncapped" if long_d > max_frac * filled.size else "mser"
    if not real:
        # MSER sees no transient: change points alone make no warm-up (a cool-down's
        # falling latency in real sample_log2.jtl read as a warm-up ending at 630 s)
        return _SeriesEnd("end", 0, truncation, "mser", placed=False)
    d = _extend_forward(filled, d, batch, min_effect, min_windows)
    d = _extend_back(filled, d, batch, z, min_effect)
    if cp is not None and d > 0:
        early, late = sorted((d, cp))
        # the later of the two ends where the windows between them differ from those
        # after it (the rules agree that it is warm-up); else the earlier, the later
        # rule's extra cut being noise
        later = _differs(filled[early:late], filled[late:], batch, z, min_effect)
        # MSER's own later end stands unless it came with the cap lifted: a long warm-up
        # that change points end earlier, with no difference between the two ends, was
        # MSER's flat minimum wandering into the steady part (a 29 s step in 120 s read 81 s)
        chosen = late if later or (d > cp and rule != "mser-uncapped") else early
        if chosen != d:
            d, rule = chosen, "changepoint"
    return _SeriesEnd("end", d, truncation, rule)


#: PELT's penalty in :func:`_changepoint_end`: Barrett et al. 2017's 15·ln n, which
#: makes the independence assumption tolerable under autocorrelation (research
#: warmup-science.md §1.3, §8.2); MBIC's 4·ln n cut noise of an AR(1) wobble into
#: segments and put ends late in 30 of 120 generated warm-ups (tests/load_series.py)
CHANGEPOINT_PENALTY = "barrett"

#: at most this many points go to PELT: longer series are batched further (§8.11)
CHANGEPOINT_MAX_POINTS = 2000

#: a counts series whose median window holds fewer samples than this gets no change
#: points: runs of empty windows have no variance, and PELT's normal cost cuts them all
CHANGEPOINT_MIN_COUNT = 5.0


def _changepoint_end(
    x: npt.NDArray[np.float64],
    batch: int,
    z: float,
    eff: float,
    min_windows: int,
    *,
    counts: bool = False,
) -> int | None:
    """The warm-up end by change points (index into ``x``), or None when they show no
    warm-up with a steady part after it.

    PELT with the normal mean + variance cost and :data:`CHANGEPOINT_PENALTY` (Killick et
    al. 2012; Barrett et al. 2017 §4.2; research/warmup-science.md §8.2) over the batch
    means of ``batch`` windows (or more, to stay within :data:`CHANGEPOINT_MAX_POINTS`);
    a last segment shorter than ``max(min_windows, 4·batch)`` windows joins the one
    before it. Then Barrett's backward scan (§1.5) with a dimensionally sound
    equivalence (§8.4): a segment belongs to the steady part when its mean is within
    ``z`` standard errors *or* ``eff`` of the part after it (:func:`_differs`); the
    warm-up ends at the first segment of the steady part. The end counts only when the
    part after it passes the plateau test (:func:`_plateau`), the part before it is a
    real transient (:func:`_transient_is_real`) and the run starts away from the steady
    level (its first tenth differs from the steady part): a run that starts steady and
    leaves it has no warm-up to end."""
    if counts and float(np.median(x)) < CHANGEPOINT_MIN_COUNT:
        return None
    size = max(batch, math.ceil(x.size / CHANGEPOINT_MAX_POINTS))
    m = x.size // size
    shortest = max(min_windows, 4 * batch)
    if m < 4 or x.size < 2 * shortest:
        return None
    means = x[: m * size].reshape(m, size).mean(axis=1)
    bounds = [0, *pelt(means, penalty=CHANGEPOINT_PENALTY).changepoints]
    while len(bounds) > 1 and (x.size - bounds[-1] * size) < shortest:
        bounds.pop()
    start = bounds[-1] * size
    for a in reversed(bounds[:-1]):
        if _differs(x[a * size : start], x[start:], batch, z, eff):
            break
        start = a * size
    if start == 0 or start > LONG_WARMUP_MAX_FRAC * x.size:
        # MSER's own lifted cap: at least a fifth of the run after a warm-up (a cool-down
        # at the end of real sample_log2.jtl made a "warm-up" ending at 88 % of it)
        return None
    tail = x[start:]
    head = x[: max(batch, math.ceil(0.1 * start))]
    # a warm-up makes the service faster: throughput rises to its level, latency falls;
    # a change the other way is a slowdown (Barrett et al.'s class), no warm-up to end
    faster = (
        float(x[:start].mean()) < float(tail.mean())
        if counts
        else (float(x[:start].mean()) > float(tail.mean()))
    )
    if (
        not faster
        or not _plateau(tail, batch, z, eff, counts=counts)
        or not _transient_is_real(x, start, batch, z, eff)
        or not _differs(head, tail, batch, z, eff)
    ):
        return None
    return start


def _extend_forward(
    x: npt.NDArray[np.float64], d: int, batch: int, eff: float, min_windows: int, z: float = 2.0
) -> int:
    """Move a long warm-up's truncation ``d`` later while the next ``max(batch, 3)`` values
    still lie below or above the rest by more than ``eff`` of its mean and ``z`` standard
    errors (a window's SD over √k), keeping ``min_windows`` after it. MSER weighs bias
    against variance, so the last windows of a slow approach, each within noise of the
    plateau, stay in its retained part: on a 34 s linear JIT ramp into 8 % noise MSER-1
    cut at 26–32 s."""
    k = max(batch, 3)
    last = x.size - k - min_windows  # the latest truncation that keeps min_windows after
    if last < d:
        return d
    # every candidate at once from prefix sums (a loop re-reading the rest is O(n²))
    c1 = np.concatenate([[0.0], np.cumsum(x)])
    c2 = np.concatenate([[0.0], np.cumsum(x * x)])
    ds = np.arange(d, last + 1)
    head = (c1[ds + k] - c1[ds]) / k
    m = (x.size - ds - k).astype(np.float64)
    s1, s2 = c1[-1] - c1[ds + k], c2[-1] - c2[ds + k]
    centre = s1 / m
    se = np.sqrt(np.maximum(s2 - s1 * centre, 0.0) / np.maximum(m - 1, 1.0) / k)
    effect = np.abs(head - centre)
    moving = (effect > eff * np.abs(centre)) & (effect > z * se)
    return d + (int(np.argmin(moving)) if not moving.all() else ds.size)


def _differs(
    head: npt.NDArray[np.float64],
    tail: npt.NDArray[np.float64],
    batch: int,
    z: float,
    eff: float,
) -> bool:
    """Whether the mean of ``head`` lies outside ``tail``'s by more than ``z`` standard
    errors of ``tail``'s batch means and more than ``eff`` of its mean."""
    m = tail.size // batch
    if m < 2 or head.size == 0:
        return False
    means = tail[: m * batch].reshape(m, batch).mean(axis=1)
    se = float(means.std(ddof=1)) / math.sqrt(max(1.0, head.size / batch))
    centre = float(tail.mean())
    effect = abs(float(head.mean()) - centre)
    return effect > z * se and effect > eff * abs(centre)


def _plateau(
    tail: npt.NDArray[np.float64], batch: int, z: float, eff: float, *, counts: bool
) -> bool:
    """The plateau test of a long warm-up's retained part: no Geweke-style trend
    (:func:`_trending`) and no least-squares slope that is both ``z`` standard errors from
    0 and worth more than ``eff`` of the mean over the part (a short part's halves have
    too few batches to see a steady climb: 6 windows of a 30 s ramp passed them)."""
    if _trending(tail, batch, z, eff, counts=counts):
        return False
    t = np.arange(tail.size, dtype=np.float64)
    t -= t.mean()
    sxx = float((t * t).sum())
    slope = float((t * (tail - tail.mean())).sum()) / sxx
    resid = tail - tail.mean() - slope * t
    se = math.sqrt(float((resid * resid).sum()) / max(1, tail.size - 2) / sxx)
    change = abs(slope) * tail.size
    return not (abs(slope) > z * se and change > eff * abs(float(tail.mean())))


def _mser_end(
    filled: npt.NDArray[np.float64], batch: int, max_frac: float, z: float, eff: float, basin: float
) -> tuple[int, bool]:
    """MSER-``batch``'s truncation (observations) of ``filled`` under the ``max_frac`` cap
    with :func:`warmup_end`'s flat-basin rule, and whether it is pinned at the cap."""
    result = mser(filled, batch=batch, max_frac=max_frac)
    d = result.truncation
    if result.curve.size and not result.inconclusive:
        # flat-basin rule: past the transient MSER(d) is flat and its argmin wanders
        # with noise; take the earliest d within ``basin`` of the minimum — unless that
        # cuts too little to hold a real transient where the argmin does (a slow start
        # whose first batch alone is not significant: real sample_log1c.jtl, 10 s)
        within = result.curve <= result.curve.min() * (1 + basin)
        earliest = int(np.argmax(within)) * batch
        if _transient_is_real(filled, earliest, batch, z, eff) or not (
            _transient_is_real(filled, d, batch, z, eff)
        ):
            d = earliest
    return d, result.inconclusive


#: the quantile of a run's per-window thread counts taken as its plateau
#: (:func:`thread_ramp_end`): a spike shorter than a tenth of the run is none
RAMP_PLATEAU_QUANTILE = 0.9


def thread_ramp_end(
    threads: npt.ArrayLike,
    *,
    plateau_quantile: float = RAMP_PLATEAU_QUANTILE,
    tolerance: float = 0.02,
    hold: float = 0.2,
    hold_tolerance: float = 0.1,
) -> int | None:
    """The first window in which the active threads reach their plateau: the end of a
    thread group's ramp-up (JMeter starts a group's threads one by one over its ramp-up
    period; a closed loop's throughput and latency are not steady before the last one
    runs).

    ``threads[i]``: active threads in window i (NaN where unknown). The plateau is the
    ``plateau_quantile`` = 90 % quantile of the known counts, so a spike shorter than a
    tenth of the run (a setUp group) is not one; it is reached at ``tolerance`` = 2 % (at
    least half a thread) below it, as a window's count is a mean over its samples. 0 when
    the first known count is at the plateau; None when no count is known, or when the threads do
    not hold the plateau once they reach it: more than ``hold_tolerance`` = 10 % (at least
    half a thread) below it in more than ``hold`` = 20 % of the windows up to the last one
    at it (threads that come and go, as in real sample_log1c.jtl, where each thread ends
    before the third next one starts and 2 or 3 run at a time: no ramp to a plateau to
    wait for). A dip of a thread at 20 is held (10 %, the least change that makes a load
    step): a thread group that recreates its threads (a second or so without one) is at its
    plateau, and the 2 % of the first reach made such a run's plateau never held.
    """
    t = np.asarray(threads, dtype=np.float64)
    known = np.flatnonzero(np.isfinite(t))
    if known.size == 0:
        return None
    level = float(np.quantile(t[known], plateau_quantile))
    at = t[known] >= level - max(0.5, tolerance * level)
    reached = np.flatnonzero(at)
    if reached.size == 0:
        return None
    held = t[known] >= level - max(0.5, hold_tolerance * level)
    between = held[reached[0] : reached[-1] + 1]
    if float(between.mean()) < 1.0 - hold:
        return None
    # the first count known already at the plateau: no ramp, however late that window
    # (a label sampled every 40 s has counts in its own windows only)
    return int(known[reached[0]]) if reached[0] > 0 else 0


def thread_rampdown_start(
    threads: npt.ArrayLike,
    *,
    plateau_quantile: float = RAMP_PLATEAU_QUANTILE,
    tolerance: float = 0.02,
    level_share: float = 0.1,
) -> int | None:
    """The first window of a thread ramp-down at the end of the run: the window after
    the last one at the plateau (:func:`thread_ramp_end`'s level and ``tolerance``) when
    the threads then finish one by one to the end (loop-count thread groups: each thread
    ends after its iterations; real sample_log1.jtl's 10 threads end at 561–672 s). A
    closed loop is not steady once its threads finish, whether or not the throughput
    shows it (a saturated server keeps its throughput while latency falls). None when the
    threads hold the plateau to the end (JMeter's scheduler stops them all at once), when
    the ramp-down is shorter than ``level_share`` = 10 % of the run (the threads' last
    samples end up to a think time before the scheduler stops them: thread names show a
    ramp-down over the last think time, 50 s of a 900 s run with 0–60 s think times; the
    throughput's cool-down rule still runs), or when the windows after it hold another
    level (within ``tolerance``, at least half a thread) for as long: a group that
    finished early leaves the others at a lower plateau, a load step, not a ramp-down.
    """
    t = np.asarray(threads, dtype=np.float64)
    known = np.flatnonzero(np.isfinite(t))
    if known.size == 0:
        return None
    level = float(np.quantile(t[known], plateau_quantile))
    reached = known[t[known] >= level - max(0.5, tolerance * level)]
    if reached.size == 0:
        return None
    last = int(reached[-1])
    if t.size - last - 1 < level_share * t.size:
        return None
    tail = t[last + 1 :]
    tail = tail[np.isfinite(tail)]
    if tail.size == 0:
        return None
    longest, i = 0, 0
    while i < tail.size:
        j = i + 1
        while j < tail.size and abs(tail[j] - tail[i]) <= max(0.5, tolerance * tail[i]):
            j += 1
        longest, i = max(longest, j - i), j
    if longest >= level_share * t.size:
        return None
    return last + 1


@dataclass(frozen=True)
class MeanCI:
    """A mean with a two-sided confidence interval (batch means, Student t)."""

    mean: float
    lo: float
    hi: float
    batches: int


def batch_means(values: npt.ArrayLike, *, target_batches: int = 20) -> npt.NDArray[np.float64]:
    """Non-overlapping batch means, about ``target_batches`` of them (≥ 1 value each)."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return x
    size = max(1, x.size // target_batches)
    m = x.size // size
    means: npt.NDArray[np.float64] = x[: m * size].reshape(m, size).mean(axis=1)
    return means


def mean_ci(
    values: npt.ArrayLike, *, level: float = 0.95, target_batches: int = 20
) -> MeanCI | None:
    """Mean of ``values`` with a batch-means t interval (Law & Kelton; research §8.7).

    Batching absorbs the autocorrelation of consecutive windows. None when there are
    fewer than 2 batches.
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    means = batch_means(x, target_batches=target_batches)
    if means.size < 2:
        return None
    centre = float(x.mean())
    half = (
        t_quantile(0.5 + level / 2, means.size - 1)
        * float(means.std(ddof=1))
        / math.sqrt(means.size)
    )
    return MeanCI(centre, centre - half, centre + half, int(means.size))


#: fewer batches than this (of ``batch`` windows) make a series "short" for
#: :func:`analyze_windows`, which then runs MSER-1 over its windows
SHORT_RUN_BATCHES = 20


@dataclass(frozen=True)
class LabelLoad:
    """Windowed analysis of one label (or ``ALL``) of a load suite."""

    label: str
    samples: int
    errors: int
    duration_s: float | None
    throughput_overall: float | None
    warmup: WarmupEnd
    throughput_steady: MeanCI | None
    latency_steady_mean: MeanCI | None
    threads_steady: float | None
    #: first window of a cool-down (threads finishing one by one) that ends the steady
    #: part, counted like ``warmup.end_window``; None when the run holds steady to its end
    cooldown_window: int | None = None
    cooldown_s: float | None = None
    #: the window in which the active threads reached their plateau
    #: (:func:`thread_ramp_end`), counted like ``warmup.end_window``; None without thread
    #: counts or when every thread ran from the start
    rampup_window: int | None = None
    rampup_s: float | None = None
    #: the first window of a thread ramp-down that ends the steady part
    #: (:func:`thread_rampdown_start`), counted like ``warmup.end_window``; None without one
    rampdown_window: int | None = None
    #: the windows the steady figures are computed over, ``[steady_from_window,
    #: steady_to_window)`` counted like ``warmup.end_window``; None without steady figures
    steady_from_window: int | None = None
    steady_to_window: int | None = None
    #: why those windows: ``detected`` (after the warm-up end, before a cool-down) or
    #: ``user`` (``--steady-from``/``--steady-to``, whatever the verdict)
    steady_source: SteadySource | None = None


#: Fewer samples than this in a label give it no verdict ("too-short"): a rate counted from
#: n events is ±1.96/√n at 95 % (Poisson), within ±50 % from n = 16 on, so "flat at
#: 0.05/s" from 3 samples would be a verdict without evidence.
MIN_VERDICT_SAMPLES = 16


def empty_stretches(
    n: npt.NDArray[np.float64], min_windows: int = 2
) -> list[tuple[int, int, float]]:
    """Runs ``[i, j)`` of empty windows inside the count series ``n`` (not its first or
    last window), at least ``min_windows`` long, in which the rate of the 10 windows on
    each side would have completed ≥ :data:`GAP_MIN_EXPECTED` samples; with that expected
    count (the ``load-gap`` rule's gaps).

    In a run of bursts (most inner windows empty, in :data:`RHYTHM_MIN_STRETCHES` or more
    stretches: a few threads with a long timer) an empty stretch after each burst is the
    run's rhythm, not a stall: there a gap is also at least :data:`RHYTHM_GAP_FACTOR`
    times the median empty stretch (a run of 50-sample bursts every 31 s had "no samples
    completed in 29 stretches ... look for a pause of the load generator")."""
    # the runs of zeros among the inner windows, at once (this runs for every label, and
    # a week of 1 s windows is 604,800 of them): +1 where a run starts, -1 past its end
    zero = np.concatenate([[0], (n[1:-1] == 0).astype(np.int8), [0]])
    edges = np.diff(zero)
    stretches = list(
        zip(
            (np.flatnonzero(edges == 1) + 1).tolist(),
            (np.flatnonzero(edges == -1) + 1).tolist(),
            strict=True,
        )
    )
    inner = max(n.size - 2, 0)
    empty = sum(j - i for i, j in stretches)
    rhythm = len(stretches) >= RHYTHM_MIN_STRETCHES and empty > inner / 2
    least = RHYTHM_GAP_FACTOR * float(np.median([j - i for i, j in stretches])) if rhythm else 0
    out = []
    for i, j in stretches:
        around = np.concatenate([n[max(0, i - 10) : i], n[j : j + 10]])
        expected = float(around.mean()) * (j - i) if around.size else 0.0
        if j - i >= max(min_windows, least) and expected >= GAP_MIN_EXPECTED:
            out.append((i, j, expected))
    return out


def _gap_verdict(
    warm: WarmupEnd,
    counts: npt.NDArray[np.float64],
    latency: npt.NDArray[np.float64],
    *,
    batch: int,
    z: float = 3.0,
    min_effect: float = 0.05,
    rules: Callable[[npt.NDArray[np.float64], npt.NDArray[np.float64]], WarmupEnd] | None = None,
) -> WarmupEnd:
    """``warm`` seen with the run's gaps (:func:`empty_stretches`), ``decided_by`` ``gap``
    where they change it:

    - a warm-up whose end comes within two batches after a gap, where the windows before
      the gap match the steady part (neither throughput nor latency differs by ``z`` SEs
      and ``min_effect``: :func:`_differs`), was the gap alone (a 10 s stall at 120 s of a
      flat run read "warm-up ends 131 s"): ``flat``;
    - where they differ, the warm-up ``rules`` run again with the gaps filled at the level
      beside them (:func:`_without_gaps`): a warm-up they end before the gap ended there,
      and the gap only drew MSER's cut after it (a warm-up of 76 s with a 10 s stall at
      250 s read "warm-up ends 261 s"); so for any gap the warm-up's end is past, if the
      rules end it before the last of them. The end keeps the rule that found it;
    - a flat run in which the ``rules`` find a warm-up with the gaps filled: the gaps'
      empty windows hid it (they widen the spread its transient is weighed against);
    - an inconclusive run, or one whose trend test failed, that the ``rules`` find steady
      with the gaps filled had the gaps as its only disturbance: it takes that verdict
      (and the test below; a 60 s stall in the middle of a flat 600 s run kept MSER at
      its cap, "inconclusive", where a summariser log of it said "no steady state");
    - a steady part one of whose gaps takes more than :data:`GAP_MAX_SHARE` of its windows
      is no steady state."""
    unsettled = warm.status == "inconclusive" or (
        warm.status == "no-steady-state" and warm.decided_by == "trend"
    )
    if not unsettled and (warm.status not in STEADY_STATUSES or warm.end_window is None):
        return warm
    gaps = empty_stretches(counts)
    if not gaps:
        return warm
    # the rules' verdict on the series with its gaps filled, found once when first asked
    filled: list[WarmupEnd] = []

    def without_gaps(rules: Callable[..., WarmupEnd]) -> WarmupEnd:
        if not filled:
            filled.append(rules(*_without_gaps(counts, latency, gaps)))
        return filled[0]

    if unsettled:
        if rules is None:
            return warm
        again = without_gaps(rules)
        if again.status not in STEADY_STATUSES or again.end_window is None:
            return warm
        warm = again
    elif warm.status == "flat" and rules is not None:
        # a gap's empty windows widen the spread MSER's transient is weighed against: a
        # warm-up from 40 % (time constant 60 s) with a 30 s stall at 300 s of 600 s read
        # "flat" in 2 of 6 seeds at 30/s. Filled, the rules see the warm-up. Only a
        # warm-up: a "trend" in the filled series can be the filling's (a flat run with
        # rare 30 s samples, its latency series heavy-tailed, its last windows a gap)
        again = without_gaps(rules)
        if again.status == "warmup" and again.end_window is not None:
            warm = again
    end = warm.end_window
    if end is None:
        return warm
    # gaps the warm-up's end lies in or after (a change-point end can fall inside one)
    passed = [(i, j) for i, j, _ in gaps if i < end]
    near = [(i, j) for i, j in passed if end <= j + 2 * batch]
    if warm.status == "warmup" and near:
        i, j = near[-1]
        # the windows next to a gap hold part of it: left out with it
        head = np.r_[0 : i - 1, j + 1 : end]
        steady = np.arange(end, counts.size)
        if _same_level(
            counts, latency, head, steady, gaps, batch=batch, z=z, min_effect=min_effect
        ):
            warm = WarmupEnd(
                "flat", 0, 0.0, warm.throughput_truncation, warm.latency_truncation, "gap"
            )
            end = 0
    if warm.status == "warmup" and passed and rules is not None:
        # MSER's cut can also land a few batches past the gap (its extension rules): the
        # same test for any gap the warm-up passed, against the last of them
        again = without_gaps(rules)
        if again.status in STEADY_STATUSES and (again.end_window or 0) < passed[-1][0]:
            warm, end = again, again.end_window or 0
    part = counts[end:]
    longest = max((j - i for i, j, _ in empty_stretches(part)), default=0)
    if not part.size or longest <= GAP_MAX_SHARE * part.size:
        return warm
    return WarmupEnd(
        "no-steady-state", None, None, warm.throughput_truncation, warm.latency_truncation, "gap"
    )


def _stall_not_cooldown(
    counts: npt.NDArray[np.float64],
    latency: npt.NDArray[np.float64],
    start: int,
    stop: int,
    gaps: list[tuple[int, int, float]],
    *,
    batch: int,
    z: float = 3.0,
    min_effect: float = 0.05,
) -> bool:
    """Whether a cool-down found at window ``stop`` (the steady part ``[start, stop)``) is
    a gap (:func:`empty_stretches`) starting within two batches after it, where the windows
    after the gap match the steady part (:func:`_differs` on throughput and latency): the
    run came back, so nothing cooled down (a 10 s stall at 200 s of a flat 300 s run read
    "cool-down from 195 s"). The mirror of :func:`_gap_verdict`'s warm-up test.

    Also whether the cool-down rule finds none in ``[start, …)`` once the gaps there are
    filled at the level beside them (:func:`_without_gaps`): the gap was what it saw (a 5 s
    stall at 270 s of a flat 300 s run lowered the last 30-70 s's mean enough to read
    "cool-down from 229 s", with the run back at its level after the stall). ``gaps``:
    the series' :func:`empty_stretches`."""
    for i, j, _ in gaps:
        if not stop <= i <= stop + 2 * batch:
            continue
        # the windows next to a gap hold part of it: left out with it
        after = np.r_[stop : i - 1, j + 1 : counts.size]
        steady = np.arange(start, stop)
        return _same_level(
            counts, latency, after, steady, gaps, batch=batch, z=z, min_effect=min_effect
        )
    if not any(j > start for _, j, _ in gaps):
        return False
    filled, filled_latency = _without_gaps(counts, latency, gaps)
    back = cooldown_start(filled[start:], filled_latency[start:], window_s=1.0, batch=batch, z=z,
                          min_effect=min_effect)  # fmt: skip
    return back is None


def _without_gaps(
    counts: npt.NDArray[np.float64],
    latency: npt.NDArray[np.float64],
    gaps: list[tuple[int, int, float]],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``counts`` and ``latency`` with each gap's windows and the one on each side of it
    (:func:`empty_stretches`; they hold part of it) set to the mean of the up to 10 windows
    beside them: the run as the rules would see it without its stalls."""
    n, lat = counts.copy(), latency.copy()
    for i, j, _ in gaps:
        lo, hi = max(0, i - 1), min(counts.size, j + 1)
        side = np.r_[max(0, lo - 10) : lo, hi : min(counts.size, hi + 10)]
        if not side.size:
            continue
        n[lo:hi] = float(counts[side].mean())
        known = latency[side][np.isfinite(latency[side])]
        lat[lo:hi] = float(known.mean()) if known.size else np.nan
    return n, lat


def _same_level(
    counts: npt.NDArray[np.float64],
    latency: npt.NDArray[np.float64],
    windows: npt.NDArray[np.intp],
    steady: npt.NDArray[np.intp],
    gaps: list[tuple[int, int, float]],
    *,
    batch: int,
    z: float,
    min_effect: float,
) -> bool:
    """Whether ``windows`` (at least a batch of them) match the ``steady`` windows: neither
    their throughput nor their latency (the windows that have one) differs by ``z`` SEs
    and ``min_effect`` (:func:`_differs`). The windows of the ``gaps`` (the series'
    :func:`empty_stretches`) and those beside them are left out of both: the steady part's
    stalls would widen its SE until a warm-up at a third of the steady rate passed for the
    same level (real sample_log1c.jtl: its first 6 s at 4.2/s against 12.6/s after, with
    two stalls)."""
    stalled = np.zeros(counts.size, dtype=bool)
    for i, j, _ in gaps:
        stalled[max(0, i - 1) : j + 1] = True
    windows, steady = windows[~stalled[windows]], steady[~stalled[steady]]
    if windows.size < batch:
        return False
    lat, lat_steady = latency[windows], latency[steady]
    return not (
        _differs(counts[windows], counts[steady], batch, z, min_effect)
        or _differs(
            lat[np.isfinite(lat)], lat_steady[np.isfinite(lat_steady)], batch, z, min_effect
        )
    )


def _window_seconds(index: int, window_s: float) -> float:
    """The start (s) of window ``index``, rounded to 1 µs: windows are whole ms, so this
    drops binary noise only (6 × 0.05 = 0.30000000000000004 → 0.3)."""
    return round(index * window_s, 6)


def analyze_windows(
    label: str,
    windows: pl.DataFrame,
    *,
    window_s: float,
    samples: int,
    errors: int,
    duration_s: float | None,
    batch: int = 5,
    ramp_from: LabelLoad | None = None,
    verdict_from: LabelLoad | None = None,
    steady_from: int | None = None,
    steady_to: int | None = None,
) -> LabelLoad:
    """Warm-up end and steady throughput/latency of one label from its window frame.

    ``windows`` has one row per window index ``w`` (0 = the window holding the first
    sample start) with ``n`` (samples completed in it, by completion time as JMeter counts),
    ``mean_ms`` and optionally ``threads``. Missing windows count as 0. The first and last
    windows of the label are partial and left out of the series: the test stops inside the
    last one, and the first holds only what completed after the label's first samples
    started somewhere inside it (on flat runs it read as a rising start: a "warm-up" of one
    window in 18 of 30 seeds). A series of fewer than :data:`SHORT_RUN_BATCHES` batches
    runs with batch 1 (MSER-1 over the windows, themselves batch means; research/
    warmup-science.md §8.11): MSER-5 on 28 windows tries truncations {0, 5} only.

    The thread ramp-up (:func:`thread_ramp_end`) is found on the ``threads`` column, or,
    with ``ramp_from`` (the suite's ALL result), is ALL's: the threads are the test's,
    not a label's, and a label's own counts are known only in the windows it completes
    in (a label sampled every 40 s put its ramp-up end up to 40 s late); a label whose
    first full window is after ALL's ramp-up has none.

    ``verdict_from`` (the suite's ALL result, for a label holding ≥
    :data:`ALL_SHARE_FOR_VERDICT` of its samples): the label takes ALL's verdict, warm-up
    end and cool-down (``decided_by`` ``all-label``) instead of its own. ``steady_from``,
    ``steady_to`` (window indices counted like ``warmup.end_window``; ``--steady-from``,
    ``--steady-to``): the steady figures are computed over ``[steady_from, steady_to)``
    clipped to the label's full windows, whatever the verdict (``steady_source`` ``user``).
    """
    throughput_overall = samples / duration_s if duration_s else None
    few = samples < MIN_VERDICT_SAMPLES and verdict_from is None and steady_from is None
    if windows.height == 0 or (few and steady_to is None):
        return LabelLoad(
            label, samples, errors, duration_s, throughput_overall,
            WarmupEnd("too-short", None, None, None, None), None, None, None,
        )  # fmt: skip
    first = int(windows["w"].min())  # type: ignore[arg-type]
    last = int(windows["w"].max())  # type: ignore[arg-type]
    size = last - first + 1
    n = np.zeros(size)
    mean_ms = np.full(size, np.nan)
    threads = np.full(size, np.nan)
    w = windows["w"].to_numpy().astype(np.int64) - first
    n[w] = windows["n"].to_numpy()
    mean_ms[w] = windows["mean_ms"].to_numpy()
    if "threads" in windows.columns:
        threads[w] = windows["threads"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    n, mean_ms, threads = n[1:-1], mean_ms[1:-1], threads[1:-1]
    first += 1  # the series starts at the label's first full window
    if n.size < SHORT_RUN_BATCHES * batch:
        # a short run: MSER-5 over a few batches tries only truncations 0, 5, … below
        # n/2, so a transient longer than that pins it at its cap (30 windows, a 10 s
        # latency warm-up: only {0, 5} tried), and halves of one or two batches hide a
        # trend. The windows are already batch means (research/warmup-science.md §8.11):
        # MSER-1 over them
        batch = 1
    if ramp_from is None:
        ramp = thread_ramp_end(threads)
        # a ramp-down needs a plateau to come down from (none where threads come and go)
        down = thread_rampdown_start(threads) if ramp is not None else None
    else:
        suite_ramp, suite_down = ramp_from.rampup_window, ramp_from.rampdown_window
        ramp = suite_ramp - first if suite_ramp is not None and suite_ramp > first else None
        down = suite_down - first if suite_down is not None else None
    # a thread ramp-down ends the steady part: the rules run on the windows before it
    limit = down if down is not None and down > (ramp or 0) else n.size

    def warmup_rules(
        counts: npt.NDArray[np.float64], latency: npt.NDArray[np.float64]
    ) -> WarmupEnd:
        """The warm-up rules on these windows: MSER and the rest, the ramp-up's floor, and
        a label's check against ALL's end."""
        w = _warmup_before_cooldown(counts, latency, window_s=window_s, batch=batch)
        if ramp is not None and ramp > 0 and w.status != "too-short":
            w = _after_ramp(w, ramp, counts, latency, window_s=window_s, batch=batch)
        if ramp_from is not None and verdict_from is None and w.status in STEADY_STATUSES:
            w = _confirm_earlier_end(w, ramp_from.warmup, first, counts, latency, batch=batch)
        return w

    warm = warmup_rules(n[:limit], mean_ms[:limit])
    warm = _gap_verdict(warm, n[:limit], mean_ms[:limit], batch=batch, rules=warmup_rules)
    if verdict_from is not None:
        suite = verdict_from.warmup
        warm = WarmupEnd(
            suite.status,
            None if suite.end_window is None else max(0, suite.end_window - first),
            None,
            warm.throughput_truncation,
            warm.latency_truncation,
            "all-label",
        )
    steady_tp = steady_lat = None
    steady_threads = None
    stop: int | None = None  # window indices here count from ``first``
    start: int | None = None
    source: SteadySource | None = None
    if steady_from is not None or steady_to is not None:
        start = min(n.size, max(0, (steady_from if steady_from is not None else first) - first))
        end = n.size if steady_to is None else min(n.size, max(start, steady_to - first))
        # a window that holds none of the label's full windows gives it no steady figures
        source = "user"
        if end <= start:
            start = None
    elif (
        verdict_from is not None and warm.status in STEADY_STATUSES and warm.end_window is not None
    ):
        start = warm.end_window
        cool = verdict_from.cooldown_window
        stop = None if cool is None else min(n.size, max(start, cool - first))
        end = stop if stop is not None else n.size
        source = "detected"
    elif warm.status in STEADY_STATUSES and warm.end_window is not None:
        start = warm.end_window
        # a known thread ramp-down is the cool-down: up to it the threads hold their
        # plateau, so a dip there is no cool-down (real sample_log1.jtl: one slow window at
        # 500 s, 60 s before the threads finish, read as jmeter_home's cool-down at 506 s)
        stop = (
            cooldown_start(n[start:limit], mean_ms[start:limit], window_s=window_s, batch=batch)
            if limit == n.size
            else None
        )
        gaps = empty_stretches(n) if limit == n.size else []
        if stop is not None and _stall_not_cooldown(
            n, mean_ms, start, start + stop, gaps, batch=batch
        ):
            stop = None
        elif stop is None and limit == n.size:
            # and a cool-down the gaps hid (they keep the backward rule's retained part
            # moving): the rule again with them filled at the level beside them
            later = [g for g in gaps if g[1] > start]
            if later:
                filled, filled_ms = _without_gaps(n, mean_ms, later)
                stop = cooldown_start(filled[start:], filled_ms[start:], window_s=window_s,
                                      batch=batch)  # fmt: skip
        if stop is not None:
            stop += start
            # the cool-down widened the spread of the "steady" part that MSER weighs the
            # warm-up against: look for the warm-up end again without it
            again = warmup_end(n[:stop], mean_ms[:stop], window_s=window_s, batch=batch)
            # and a stall before it is no warm-up there either (a 10 s stall at 90 s of a
            # flat run that cools down from 550 s read "warm-up ends 101 s")
            again = _gap_verdict(
                again, n[:stop], mean_ms[:stop], batch=batch,
                rules=lambda c, lat: warmup_end(c, lat, window_s=window_s, batch=batch),
            )  # fmt: skip
            if again.status == "warmup" and (again.end_window or 0) > start:
                warm, start = again, again.end_window or 0
        elif limit < n.size:
            stop = limit
        end = stop if stop is not None else n.size
        source = "detected"
    if start is not None:
        steady_tp = mean_ci(n[start:end] / window_s)
        if steady_tp is not None and steady_tp.lo < 0:
            # a rate is never negative: a t interval on a few sparse counts can reach below 0
            steady_tp = MeanCI(steady_tp.mean, 0.0, steady_tp.hi, steady_tp.batches)
        steady_lat = mean_ci(mean_ms[start:end])
        tail = threads[start:end]
        steady_threads = float(np.nanmean(tail)) if np.isfinite(tail).any() else None
    if warm.end_window is not None:
        # window indices count from the suite's first sample start, not this label's
        absolute = first + warm.end_window if warm.status == "warmup" else first
        warm = WarmupEnd(
            warm.status,
            absolute,
            _window_seconds(absolute, window_s) if warm.status == "warmup" else 0.0,
            warm.throughput_truncation,
            warm.latency_truncation,
            warm.decided_by,
        )
    cooldown = first + stop if stop is not None and source == "detected" else None
    rampup = first + ramp if ramp else None
    return LabelLoad(
        label,
        samples,
        errors,
        duration_s,
        throughput_overall,
        warm,
        steady_tp,
        steady_lat,
        steady_threads,
        cooldown,
        _window_seconds(cooldown, window_s) if cooldown is not None else None,
        rampup,
        _window_seconds(rampup, window_s) if rampup is not None else None,
        first + down if down is not None else None,
        None if start is None else first + start,
        None if start is None else first + end,
        source,
    )


def _confirm_earlier_end(
    warm: WarmupEnd,
    suite: WarmupEnd,
    first: int,
    n: npt.NDArray[np.float64],
    mean_ms: npt.NDArray[np.float64],
    *,
    batch: int,
    z: float = 3.0,
    min_effect: float = 0.05,
) -> WarmupEnd:
    """A label's steady verdict ``warm`` (window indices from the label's ``first``) whose
    warm-up ends before ALL's (``suite``, indices from the suite's start): it stands only
    where the label's own series shows it — the label's windows between the two ends
    match its windows after ALL's end. Where they differ (by ``z`` SEs and ``min_effect``,
    throughput or latency), the label's warm-up ends at ALL's end, as its own series says
    once ALL points there: a label's rules miss what ALL's more samples show (a real JDBC
    run's label read "warm-up ends at 10 s" through a jump from ~4.5k to ~7k/s at 16 s)."""
    if suite.status != "warmup" or suite.end_window is None or warm.end_window is None:
        return warm
    own, end = warm.end_window, suite.end_window - first
    if not own < end < n.size - 2 * batch:
        return warm
    for values in (n, mean_ms):
        head, tail = values[own:end], values[end:]
        head, tail = head[np.isfinite(head)], tail[np.isfinite(tail)]
        if head.size and _differs(head, tail, batch, z, min_effect):
            return WarmupEnd("warmup", end, None, warm.throughput_truncation,
                             warm.latency_truncation, "all-label")  # fmt: skip
    return warm


def _before_cooldown(
    warmup: Callable[[int | None], WarmupEnd], cooldown: Callable[[], int | None]
) -> WarmupEnd:
    """``warmup(None)``, a warm-up rule on the whole series, and where that is
    inconclusive ``warmup(stop)`` on the windows before a cool-down found at
    ``cooldown()``: a cool-down is a trend at the end of the run, and without it the run
    may well have a steady part."""
    warm = warmup(None)
    if warm.status in ("inconclusive", "no-steady-state"):
        rescue = cooldown()
        if rescue is not None:
            again = warmup(rescue)
            if again.status in STEADY_STATUSES:
                warm = again
    return warm


def _warmup_before_cooldown(
    n: npt.NDArray[np.float64], mean_ms: npt.NDArray[np.float64], *, window_s: float, batch: int
) -> WarmupEnd:
    """:func:`warmup_end`, again before a cool-down (:func:`cooldown_start`) where that is
    inconclusive (:func:`_before_cooldown`)."""
    return _before_cooldown(
        lambda stop: warmup_end(
            n[:stop],
            mean_ms[:stop],
            window_s=window_s,
            batch=batch,
            long_warmup=True,
            changepoints=True,
        ),
        lambda: cooldown_start(n, mean_ms, window_s=window_s, batch=batch),
    )


#: a thread ramp-up that ends past this share of a series leaves it no steady part
#: (:func:`_after_ramp`; MSER's own n/2 cap)
RAMP_MAX_FRAC = 0.5


def _after_ramp(
    warm: WarmupEnd,
    ramp: int,
    n: npt.NDArray[np.float64],
    mean_ms: npt.NDArray[np.float64],
    *,
    window_s: float,
    batch: int,
    max_frac: float = RAMP_MAX_FRAC,
) -> WarmupEnd:
    """The warm-up end given that the threads ramp up until window ``ramp``
    (:func:`thread_ramp_end`): a closed loop is not steady before its last thread runs,
    whatever MSER finds in a ramp whose throughput levels off early (real sample_log1.jtl:
    throughput flat from ~80 s while latency rises with each new thread until ~130 s;
    MSER-5 read 72 s). A transient found beyond the ramp stands; otherwise the warm-up
    rule runs again on the windows after the ramp, for a transient of its own (JIT,
    caches) that starts only when every thread runs. A ramp beyond ``max_frac`` of the
    series leaves no steady state to measure (MSER's own n/2 cap): inconclusive."""
    if ramp > max_frac * n.size:
        return WarmupEnd("no-steady-state", None, None, warm.throughput_truncation,
                         warm.latency_truncation, "rampup")  # fmt: skip
    if warm.status == "warmup" and warm.end_window is not None and warm.end_window >= ramp:
        return warm
    after = _warmup_before_cooldown(n[ramp:], mean_ms[ramp:], window_s=window_s, batch=batch)
    if after.status not in STEADY_STATUSES:
        return WarmupEnd(after.status, None, None, warm.throughput_truncation,
                         warm.latency_truncation, after.decided_by)  # fmt: skip
    own = after.end_window if after.status == "warmup" and after.end_window else 0
    end = ramp + own
    return WarmupEnd(
        "warmup", end, end * window_s, warm.throughput_truncation, warm.latency_truncation,
        after.decided_by if own else "rampup",
    )  # fmt: skip


def cooldown_start(
    counts: npt.ArrayLike,
    mean_latency: npt.ArrayLike | None,
    *,
    window_s: float,
    batch: int = 5,
    z: float = 3.0,
    min_effect: float = 0.05,
    min_windows: int = 10,
) -> int | None:
    """Index of the first window of a cool-down at the end of a steady series, or None.

    The warm-up rule run backwards (MSER truncates the start of a series; reversed, the
    end): a run whose threads finish one by one (loop-count thread groups) ends with
    falling throughput and latency, which otherwise counts as steady. Only a clear
    transient counts (:func:`warmup_end`'s margins), and only one whose throughput falls
    by ``min_effect`` or more; "inconclusive" is no cool-down.
    """
    x = np.asarray(counts, dtype=np.float64)[::-1]
    lat = None if mean_latency is None else np.asarray(mean_latency, dtype=np.float64)[::-1]
    back = warmup_end(
        x, lat, window_s=window_s, batch=batch, z=z, min_effect=min_effect,
        min_windows=min_windows,
    )  # fmt: skip
    if back.status in ("inconclusive", "no-steady-state") and lat is not None:
        # the cool-down is defined by the throughput: a latency series that alone keeps
        # MSER at its cap (one slow sample near the middle of the run) must not hide it
        back = warmup_end(
            x, None, window_s=window_s, batch=batch, z=z, min_effect=min_effect,
            min_windows=min_windows,
        )  # fmt: skip
    if back.status != "warmup" or not back.end_window:
        return None
    # threads finishing lower the throughput; a run still climbing at its end is not
    # cooling down (it never reached a steady state). By ``min_effect`` at least: a cut
    # that only the latency series made (the last 5 s of a flat Poisson run at 100/s,
    # 7 % faster by chance, throughput 2.7 % lower) is no cool-down
    if x[: back.end_window].mean() >= (1 - min_effect) * x[back.end_window :].mean():
        return None
    return int(x.size - back.end_window)


LittlesVerdict = Literal["thinking", "saturated", "inconsistent"]


@dataclass(frozen=True)
class LittlesLaw:
    """Little's law N = X·(R + Z) on the steady part (Little 1961).

    ``busy_fraction`` = X·R/N, the share of its time a thread spends waiting for a response;
    ``think_s`` = N/X − R is the implied think time (0 for a busy fraction just above 1,
    within the estimates' noise; None when the data are inconsistent: a negative think time
    means nothing). A busy fraction near 1 means a closed
    loop with no think time: throughput is set by latency (a saturated client or server),
    and latency percentiles suffer coordinated omission (a slow response delays the next
    request instead of being measured against a fixed arrival schedule). Above 1 (beyond
    the estimates' noise) the data are inconsistent: N threads cannot be in more than N
    requests at once, so N is too low or X·R too high. ``verdict``: ``thinking`` (busy
    fraction below ``saturated_at``), ``saturated`` or ``inconsistent``.
    """

    threads: float
    throughput: float
    latency_s: float
    busy_fraction: float
    think_s: float | None
    finding: Finding | None
    verdict: LittlesVerdict = "thinking"


def _threads_word(threads: float) -> str:
    return "thread" if threads == 1 else "threads"


def littles_law(
    subject: str,
    *,
    threads: float | None,
    throughput: float | None,
    latency_ms: float | None,
    saturated_at: float = 0.9,
    tolerance: float = 0.02,
) -> LittlesLaw | None:
    """Check Little's law for a closed-loop load test; None when an input is missing.

    ``saturated_at`` = 0.9: above it, threads are in a request ≥ 90 % of the time. A busy
    fraction above 1 + ``tolerance`` (the relative uncertainty of X·R; 2 % by default,
    the caller passes its CIs' when wider) is impossible for a closed loop of N threads:
    "littles-law-inconsistent" (the thread counts miss load generators — JMeter's
    allThreads counts one engine — or the steady part holds a stall whose long samples
    all complete at once) instead of a saturation verdict.
    """
    if not threads or not throughput or latency_ms is None or threads <= 0:
        return None
    r = latency_ms / 1000.0
    busy = throughput * r / threads
    think: float | None = max(0.0, threads / throughput - r)
    finding = None
    verdict: LittlesVerdict = "thinking"
    numbers: dict[str, float | int | str | None] = {
        "busy_fraction": busy,
        "threads": threads,
        "throughput": throughput,
    }
    if busy > 1 + tolerance:
        verdict, think = "inconsistent", None
        finding = Finding(
            rule="littles-law-inconsistent",
            severity="warning",
            subject=subject,
            message=(
                f"{fmt_num(threads)} {_threads_word(threads)} cannot sustain {fmt_num(throughput, sig=4)}/s at a "
                f"steady mean latency of {fmt_num(latency_ms)} ms: that keeps "
                f"{fmt_num(throughput * r)} requests "
                f"in flight ({busy:.0%} of the threads; Little's law allows at most 100%). "
                "The thread count is likely too low (JMeter's allThreads counts one engine: "
                "a distributed test's files need a Hostname column, or one file per "
                "engine) or a stall in the steady part ends in a burst of long samples"
            ),
            advice=(
                "check the allThreads/grpThreads columns against the test plan and look "
                "for stalls in the throughput chart before reading the Little's-law figures"
            ),
            numbers=numbers,
        )
    elif busy >= saturated_at:
        verdict = "saturated"
        finding = Finding(
            rule="closed-loop-saturated",
            severity="warning",
            subject=subject,
            message=(
                f"{fmt_num(threads)} {_threads_word(threads)} × steady latency {fmt_num(latency_ms)} ms explain "
                f"{busy:.0%} of the measured {fmt_num(throughput, sig=4)}/s (Little's law): "
                "the threads "
                "never pause, so throughput is set by latency and percentiles carry "
                "coordinated-omission bias"
            ),
            advice=(
                "add think time or a constant-throughput timer (open-loop arrivals), "
                "or more threads, before reading latency percentiles as user experience"
            ),
            numbers=numbers,
        )
    return LittlesLaw(threads, throughput, r, busy, think, finding, verdict)


@dataclass(frozen=True)
class DashboardRow:
    """One row of JMeter's dashboard Statistics table (``statistics.json`` fields)."""

    transaction: str
    sample_count: int
    error_count: int
    error_pct: float
    mean_res_time: float | None
    median_res_time: float | None
    min_res_time: float | None
    max_res_time: float | None
    pct1_res_time: float | None
    pct2_res_time: float | None
    pct3_res_time: float | None
    throughput: float | None
    received_kbytes_per_sec: float | None
    sent_kbytes_per_sec: float | None
    apdex: float | None
    extra: dict[str, float] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        """The ``statistics.json`` object of this row (JMeter's field names) plus apdex."""
        return {
            "transaction": self.transaction,
            "sampleCount": self.sample_count,
            "errorCount": self.error_count,
            "errorPct": self.error_pct,
            "meanResTime": self.mean_res_time,
            "medianResTime": self.median_res_time,
            "minResTime": self.min_res_time,
            "maxResTime": self.max_res_time,
            "pct1ResTime": self.pct1_res_time,
            "pct2ResTime": self.pct2_res_time,
            "pct3ResTime": self.pct3_res_time,
            "throughput": self.throughput,
            "receivedKBytesPerSec": self.received_kbytes_per_sec,
            "sentKBytesPerSec": self.sent_kbytes_per_sec,
            "apdex": self.apdex,
        }


def apdex_score(satisfied: int, tolerated: int, samples: int | None) -> float | None:
    """APDEX = (satisfied + tolerated / 2) / samples (research/jmeter.md §4.2); None for
    no samples."""
    return (satisfied + tolerated / 2.0) / samples if samples else None


def dashboard_statistics(
    totals: pl.DataFrame,
    histograms: pl.DataFrame,
    *,
    pct: tuple[float, float, float] = (90.0, 95.0, 99.0),
) -> list[DashboardRow]:
    """JMeter's dashboard Statistics table and APDEX, exactly, over all samples.

    ``totals``: one row per ``label`` with ``samples, errors, sum_ms, min_ms, max_ms,
    first_start_ms, last_end_ms, bytes, sent_bytes, satisfied, tolerated`` (APDEX counts of
    successful samples ≤ T and in (T, F]); ``histograms``: ``label, elapsed_ms, n``. The
    label ``Total`` must be present in both (JMeter: Total excludes transaction-controller
    samples; research/jmeter.md §4.2). Definitions (research/jmeter.md §4.2, §7.7):
    Error % = errors·100/count; throughput = count ÷ (last end − first start) in s; KB/s =
    bytes/1024 over the same span; percentiles LEGACY (:func:`legacy_percentile`) over all
    samples (no 20,000-sample window); APDEX = (satisfied + tolerated/2)/count.
    """
    rows = []
    for rec in totals.iter_rows(named=True):
        label = rec["label"]
        hist = histograms.filter(pl.col("label") == label).sort("elapsed_ms")
        v = hist["elapsed_ms"].to_numpy()
        c = hist["n"].to_numpy()
        count = int(rec["samples"])
        span = None
        if rec["first_start_ms"] is not None and rec["last_end_ms"] is not None:
            span = (rec["last_end_ms"] - rec["first_start_ms"]) / 1000.0

        def per_s(x: float, span: float | None = span) -> float | None:
            return x / span if span else None

        has_time = v.size > 0
        rows.append(
            DashboardRow(
                transaction=label,
                sample_count=count,
                error_count=int(rec["errors"]),
                error_pct=100.0 * rec["errors"] / count if count else 0.0,
                mean_res_time=rec["sum_ms"] / count if count and has_time else None,
                median_res_time=legacy_percentile(v, c, 50.0) if has_time else None,
                min_res_time=float(rec["min_ms"]) if has_time else None,
                max_res_time=float(rec["max_ms"]) if has_time else None,
                pct1_res_time=legacy_percentile(v, c, pct[0]) if has_time else None,
                pct2_res_time=legacy_percentile(v, c, pct[1]) if has_time else None,
                pct3_res_time=legacy_percentile(v, c, pct[2]) if has_time else None,
                throughput=per_s(count),
                received_kbytes_per_sec=(
                    per_s(rec["bytes"] / 1024.0) if rec["bytes"] is not None else None
                ),
                sent_kbytes_per_sec=(
                    per_s(rec["sent_bytes"] / 1024.0) if rec["sent_bytes"] is not None else None
                ),
                apdex=apdex_score(rec["satisfied"], rec["tolerated"], rec.get("apdex_n")),
            )
        )
    return rows


@dataclass(frozen=True)
class SummaryLoad:
    """Warm-up and steady throughput from summariser windows alone (no JTL)."""

    windows: int
    warmup: WarmupEnd
    throughput_overall: float | None
    throughput_steady: MeanCI | None
    steady_samples: int
    #: first window (among those of non-zero length) of a cool-down that ends the steady
    #: part, and its start in seconds from the first window's start; None without one
    cooldown_window: int | None = None
    cooldown_s: float | None = None
    #: windows (of non-zero length) up to the one whose line first shows the threads'
    #: plateau (``Active:``, :func:`thread_ramp_end`), its end in seconds from the first
    #: window's start, and that plateau; None without a ramp or ``Active:`` counts
    rampup_window: int | None = None
    rampup_s: float | None = None
    ramp_threads: float | None = None
    #: mean ``Active:`` threads over the steady windows, weighted by their seconds (the
    #: N of Little's law); None without a steady part or thread counts
    threads_steady: float | None = None


def _summary_settle(
    rates: npt.NDArray[np.float64], *, trend_p: float, z: float, min_effect: float
) -> WarmupEnd:
    """:func:`_summary_warmup`, again before a cool-down (:func:`_summary_cooldown`) where
    that is inconclusive (:func:`_before_cooldown`)."""
    return _before_cooldown(
        lambda stop: _summary_warmup(rates[:stop], trend_p=trend_p, z=z, min_effect=min_effect),
        lambda: _summary_late_cooldown(rates, z=z, min_effect=min_effect),
    )


def _summary_late_cooldown(
    rates: npt.NDArray[np.float64], *, z: float, min_effect: float
) -> int | None:
    """:func:`_summary_cooldown` on the whole series, else on its second half: a cool-down
    ends the run, and a warm-up at its start keeps the backward rule's retained part
    trending (a climb from 45 to 100/s over 150 s, then threads finishing over the last
    60 s of 600 s: both rules said "no steady state")."""
    back = _summary_cooldown(rates, z=z, min_effect=min_effect)
    if back is not None:
        return back
    half = rates.size // 2
    late = _summary_cooldown(rates[half:], z=z, min_effect=min_effect)
    return None if late is None else half + late


def _shifted(warm: WarmupEnd, by: int) -> WarmupEnd:
    """``warm`` with its window indices moved ``by`` windows later ("flat" then starts
    its steady part at window ``by``; seconds are set by the caller)."""
    if by == 0:
        return warm
    return WarmupEnd(
        warm.status,
        None if warm.end_window is None else warm.end_window + by,
        warm.end_s,
        None if warm.throughput_truncation is None else warm.throughput_truncation + by,
        warm.latency_truncation,
        warm.decided_by,
    )


def _summary_verdict(
    rates: npt.NDArray[np.float64],
    *,
    cut: int,
    ramp_w: int | None,
    trend_p: float,
    z: float,
    min_effect: float,
) -> tuple[WarmupEnd, int | None]:
    """:func:`analyze_summary_windows`' warm-up end and cool-down start (window indices)
    from the window ``rates`` (/s): the warm-up rule on the windows after the first
    ``cut``, the thread ramp's floor (its windows ``[0, ramp_w)``), then the cool-down
    after the warm-up."""
    warm = _shifted(_summary_settle(rates[cut:], trend_p=trend_p, z=z, min_effect=min_effect), cut)
    if ramp_w is not None:
        if ramp_w > rates.size / 2:
            # threads still starting past half of the run: no steady state in it
            warm = WarmupEnd("no-steady-state", None, None, warm.throughput_truncation, None,
                             "rampup")  # fmt: skip
        elif warm.status in STEADY_STATUSES and (warm.end_window or 0) < ramp_w:
            warm = WarmupEnd("warmup", ramp_w, None, warm.throughput_truncation, None)
        elif warm.status in ("inconclusive", "no-steady-state"):
            # the ramp's own trend may be what kept MSER from a steady part
            after = _summary_settle(rates[ramp_w:], trend_p=trend_p, z=z, min_effect=min_effect)
            if after.status in STEADY_STATUSES and after.end_window is not None:
                warm = WarmupEnd(
                    "warmup", ramp_w + after.end_window, None, warm.throughput_truncation, None
                )
    stop: int | None = None
    if warm.status in STEADY_STATUSES and warm.end_window is not None:
        back = _summary_late_cooldown(rates[warm.end_window :], z=z, min_effect=min_effect)
        stop = warm.end_window + back if back is not None else None
    if stop is not None and warm.end_window is not None:
        # the cool-down widened the spread of the "steady" part that MSER weighs the
        # warm-up against: look for the warm-up end again without it, as for a JTL (a
        # 150 s climb from 40 % before a cool-down read "flat" in 30 s windows)
        again = _shifted(
            _summary_warmup(rates[cut:stop], trend_p=trend_p, z=z, min_effect=min_effect), cut
        )
        if again.status == "warmup" and (again.end_window or 0) > warm.end_window:
            warm = again
    return warm, stop


def analyze_summary_windows(
    counts: npt.ArrayLike,
    seconds: npt.ArrayLike,
    *,
    threads: npt.ArrayLike | None = None,
    stepped: bool = False,
    z: float = 3.0,
    min_effect: float = 0.05,
    trend_p: float = 0.01,
) -> SummaryLoad:
    """The same warm-up end, cool-down and steady throughput from ``summary +`` windows.

    The summariser windows are already aggregates (30 s by default), so MSER runs with
    batch 1 (research/warmup-science.md §8.11); windows of zero seconds are skipped, a
    first window shorter than ``SUMMARY_FULL_SHARE`` of the interval (JMeter's first line:
    one sample over the time since the start) is left out of the rate rules (its
    ``Active:`` still counts for the ramp-up; a flat run's steady part starts after it),
    and a log with fewer than ``SUMMARY_MIN_WINDOWS`` windows of full length
    (:func:`full_summary_windows`) is "too-short". A
    cool-down (threads finishing one by one) is the same rule run backwards
    (:func:`cooldown_start`). The steady rate is Σcount/Σseconds between the warm-up end
    and the cool-down, its CI a t interval over the window rates.

    ``threads``: each window's ``Active:`` count (None or NaN where the line has none, as
    in old JMeters' logs: then no ramp-up is known and nothing changes). ``Active:`` is the count when the line is printed, at the window's end, so
    the ramp-up ends with the first window whose line shows the plateau
    (:func:`thread_ramp_end`): a closed loop is not steady while threads still start, so
    the steady part starts after that window (the warm-up end moves there when MSER's is
    earlier; MSER runs again after it when the whole run was inconclusive), and a ramp
    that ends past half of the windows leaves no steady state ("no-steady-state"). The
    steady windows' mean count, weighted by their seconds, is ``threads_steady``.
    ``stepped``: the counts change in load steps (``load_findings.load_steps``), whose
    plateau is the last step, not the end of a ramp-up: no ramp-up floor then.
    """
    c = np.asarray(counts, dtype=np.float64)
    s = np.asarray(seconds, dtype=np.float64)
    keep = s > 0
    t = None
    if threads is not None:
        t = np.asarray(
            [np.nan if v is None else v for v in np.asarray(threads, dtype=object)],
            dtype=np.float64,
        )[keep]
    c, s = c[keep], s[keep]
    total = float(s.sum())
    overall = float(c.sum()) / total if total else None
    rates = c / s if c.size else c
    if full_summary_windows(s) < SUMMARY_MIN_WINDOWS:
        # the first and last windows are cut by the test's start and end: a 12 s run's
        # 0.244, 5.81, 6 and 0.125 s windows are 2 of full length, too few for any rule
        return SummaryLoad(int(c.size), WarmupEnd("too-short", None, None, None, None), overall,
                           None, 0)  # fmt: skip
    # a first window cut short by the test's start is left out of the rate rules, as a
    # JTL's partial first window is (analyze_windows): JMeter prints its first line at
    # the first sample's end, so it holds that one sample over the time since the start
    # (real JMeter 5.5: "1 in 00:00:01 = 1.8/s" before 15 windows of ~39.7/s), a rate set
    # by the first response time, not by the load. Its Active: still counts for the ramp
    cut = 1 if s[0] < SUMMARY_FULL_SHARE * summary_interval(s) else 0
    ramp = thread_ramp_end(t) if t is not None and not stepped else None
    # windows up to and including the first that shows the plateau: they hold the ramp
    ramp_w = ramp + 1 if ramp else None
    rules = functools.partial(
        _summary_verdict, cut=cut, ramp_w=ramp_w, trend_p=trend_p, z=z, min_effect=min_effect
    )
    warm, stop = rules(rates)
    stalls = [
        (i + cut, j + cut)
        for i, j in summary_stalls(rates[cut:], s[cut:], z=z, min_effect=min_effect)
    ]
    if stalls:
        # a stall the run comes back from is no warm-up, cool-down or change of level: the
        # rules judge the run without it (a 20 s stall at 120 s of a flat 600 s run logged
        # every 10 s read "warm-up ends 130 s"; at 420 s, "cool-down from 430 s"), and the
        # steady figures keep it
        level = _without_stalls(rates, stalls)
        again, again_stop = rules(level)
        if (again.status, again.end_window, again_stop) != (warm.status, warm.end_window, stop):
            changed = warm.status != again.status
            warm, stop = again, again_stop
            if changed and warm.status == "flat":
                warm = WarmupEnd("flat", warm.end_window, warm.end_s,
                                 warm.throughput_truncation, None, "gap")  # fmt: skip
        if warm.status in STEADY_STATUSES and warm.end_window is not None:
            # a stall is lost time: Σseconds − Σcount ÷ the rate beside it. Over
            # GAP_MAX_SHARE of the steady part, as for a JTL's gap (_gap_verdict), the
            # "steady" rate would be that much below what the server ran at
            d = warm.end_window
            lost = max(
                (
                    float(s[i:j].sum() - c[i:j].sum() / level[i])
                    for i, j in stalls
                    if d <= i and (stop is None or j <= stop) and level[i] > 0
                ),
                default=0.0,
            )
            if lost > GAP_MAX_SHARE * float(s[d:stop].sum()):
                warm = WarmupEnd("no-steady-state", None, None, warm.throughput_truncation,
                                 None, "gap")  # fmt: skip
                stop = None
    steady: MeanCI | None = None
    steady_n = 0
    if warm.status in STEADY_STATUSES and warm.end_window is not None:
        d = warm.end_window
        tail_c, tail_s = c[d:stop], s[d:stop]
        steady_n = int(tail_c.sum())
        if tail_c.size >= 2 and tail_s.sum() > 0:
            steady = summary_rate_ci(tail_c, tail_s)
        if (
            steady is not None
            and full_summary_windows(s) < SUMMARY_STEADY_MIN_WINDOWS
            and steady.hi - steady.mean > min_effect * steady.mean
        ):
            # few coarse windows whose rates disagree: the trend test cannot tell a climb
            # from noise in them (real pg_point_lookup_10t_60s.log, 5 full 10 s windows
            # climbing 3k → 14k/s, p = 0.011), so no steady state is claimed
            return SummaryLoad(int(c.size), WarmupEnd("too-short", None, None, None, None),
                               overall, None, 0)  # fmt: skip
    threads_steady = None
    if t is not None and warm.status in STEADY_STATUSES and warm.end_window is not None:
        tt, ts = t[warm.end_window : stop], s[warm.end_window : stop]
        known = np.isfinite(tt)
        if known.any() and ts[known].sum() > 0:
            threads_steady = float((tt[known] * ts[known]).sum() / ts[known].sum())
    # express the end in seconds from the start of the first window
    if warm.end_window is not None and warm.status == "warmup":
        end_s = float(s[: warm.end_window].sum())
        warm = WarmupEnd(warm.status, warm.end_window, end_s, warm.throughput_truncation, None)
    return SummaryLoad(
        int(c.size),
        warm,
        overall,
        steady,
        steady_n,
        stop,
        float(s[:stop].sum()) if stop is not None else None,
        ramp_w,
        float(s[:ramp_w].sum()) if ramp_w is not None else None,
        float(t[ramp]) if t is not None and ramp_w is not None and ramp is not None else None,
        threads_steady,
    )


#: fewest full-length summariser windows (:func:`full_summary_windows`) from which a
#: steady state is claimed whatever the spread of their rates; with fewer, only when the
#: steady rate's 95 % CI is within ``min_effect`` of it (the trend test has little power
#: on 5 or 6 windows: Kendall's p is at least 0.017 on 5)
SUMMARY_STEADY_MIN_WINDOWS = 10
#: fewest summariser windows to look for a transient in (4 × 30 s by default), and of
#: full length (:func:`full_summary_windows`) a log needs for the warm-up rule; with
#: fewer its status is "too-short"
SUMMARY_MIN_WINDOWS = 4
#: a summariser window is of full length from this share of the log's interval (the
#: first and last windows of a log are cut by the start and the end of the test)
SUMMARY_FULL_SHARE = 0.9


def summary_rate_ci(counts: npt.ArrayLike, seconds: npt.ArrayLike) -> MeanCI:
    """The rate Σcount/Σseconds of summariser windows (/s) with a 95 % CI from the windows'
    counts: the ratio estimator's standard error, sqrt(Σ(cᵢ − R·sᵢ)² / (n(n−1)·s̄²))
    (Cochran, *Sampling Techniques*, 3rd ed., §6.4), Student t with n − 1 degrees of
    freedom. Not clamped: a lower bound below 0 says the windows do not agree on a rate."""
    c = np.asarray(counts, dtype=np.float64)
    s = np.asarray(seconds, dtype=np.float64)
    rate = float(c.sum() / s.sum())
    n = c.size
    se = math.sqrt(float(((c - rate * s) ** 2).sum()) / (n * (n - 1))) / float(s.mean())
    half = t_quantile(0.975, n - 1) * se
    return MeanCI(rate, rate - half, rate + half, int(n))


def summary_interval(seconds: npt.ArrayLike) -> float:
    """A summariser log's interval (``summariser.interval``) in s: the median length of
    its windows of non-zero length (only the first and last are cut, and a stall makes
    one window longer: JMeter prints a line only when a sample completes); 0 for none."""
    s = np.asarray(seconds, dtype=np.float64)
    s = s[s > 0]
    return float(np.median(s)) if s.size else 0.0


def full_summary_windows(seconds: npt.ArrayLike) -> int:
    """Summariser windows of full length: at least ``SUMMARY_FULL_SHARE`` of the log's
    interval (:func:`summary_interval`), in s."""
    s = np.asarray(seconds, dtype=np.float64)
    interval = summary_interval(s)
    if not interval > 0:
        return 0
    return int(np.count_nonzero(s >= SUMMARY_FULL_SHARE * interval))


#: the most summariser windows a dip (:func:`summary_dips`) spans: a stall shorter than an
#: interval lowers the one or two windows it falls in (a longer one lengthens one window,
#: as JMeter prints a line only when a sample completes); more low windows in a row are a
#: change of level, which the warm-up and cool-down rules judge
SUMMARY_DIP_MAX_WINDOWS = 2
#: the windows on each side of a dip whose rates say whether the run came back to the
#: level it left (:func:`summary_stalls`)
SUMMARY_STALL_SIDE = 5
#: a summariser window longer than this many intervals held a stall: no sample completed
#: when its interval ended (``load_findings.summary_series`` reads it so too)
SUMMARY_STALL_LENGTH = 1.5


def _robust_level(x: npt.NDArray[np.float64]) -> tuple[float, float]:
    """The median of ``x`` and its robust SD, 1.4826 × the median absolute deviation
    (Hampel's identifier; Pearson, *IEEE Trans. Control Syst. Technol.* 10, 2002): both
    hold with a warm-up or a cool-down in up to half of the values."""
    centre = float(np.median(x))
    return centre, 1.4826 * float(np.median(np.abs(x - centre)))


def summary_dips(
    rates: npt.ArrayLike, *, z: float = 3.0, min_effect: float = 0.05
) -> list[tuple[int, int]]:
    """Dips ``[i, j)`` in summariser window rates (/s): runs of at most
    :data:`SUMMARY_DIP_MAX_WINDOWS` windows whose rates lie below the median window rate
    by more than ``z`` robust SDs (:func:`_robust_level`) and more than ``min_effect`` of
    it — a stall shorter than the window, or a window a longer stall lengthened."""
    x = np.asarray(rates, dtype=np.float64)
    if x.size < 3:
        return []
    centre, spread = _robust_level(x)
    low = x < centre - max(z * spread, min_effect * abs(centre))
    edges = np.diff(np.concatenate([[0], low.astype(np.int8), [0]]))
    starts, stops = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return [
        (int(i), int(j))
        for i, j in zip(starts, stops, strict=True)
        if j - i <= SUMMARY_DIP_MAX_WINDOWS
    ]


def summary_stalls(
    rates: npt.ArrayLike,
    seconds: npt.ArrayLike | None = None,
    *,
    z: float = 3.0,
    min_effect: float = 0.05,
) -> list[tuple[int, int]]:
    """Stalls ``[i, j)`` in summariser window rates (/s): dips (:func:`summary_dips`) with
    windows on both sides, where the mean rates of the up to :data:`SUMMARY_STALL_SIDE`
    windows before and after the dip differ by no more than ``z`` standard errors (the
    windows' robust SD, :func:`_robust_level`, × √(1/n₁ + 1/n₂)) or ``min_effect`` of the
    median rate: the run left its level and came back to it. A dip at the start of a log
    has no such evidence and stays what the rules make of it (a slow first window is a
    warm-up); one at its end is a stall where a window in it is longer than
    :data:`SUMMARY_STALL_LENGTH` intervals (``seconds``, each window's length: JMeter
    prints a line only when a sample completes, so no sample completed at the interval's
    end, which threads finishing one by one would still do), else it stays a cool-down."""
    x = np.asarray(rates, dtype=np.float64)
    dips = summary_dips(x, z=z, min_effect=min_effect)
    if not dips:
        return []
    centre, spread = _robust_level(x)
    s = None if seconds is None else np.asarray(seconds, dtype=np.float64)
    long = 0.0 if s is None else SUMMARY_STALL_LENGTH * summary_interval(s)
    out = []
    for i, j in dips:
        before = x[max(0, i - SUMMARY_STALL_SIDE) : i]
        after = x[j : j + SUMMARY_STALL_SIDE]
        if not before.size:
            continue
        if not after.size:
            if s is not None and long > 0 and bool((s[i:j] > long).any()):
                out.append((i, j))
            continue
        step = abs(float(before.mean()) - float(after.mean()))
        se = spread * math.sqrt(1 / before.size + 1 / after.size)
        if step <= z * se or step <= min_effect * abs(centre):
            out.append((i, j))
    return out


def _without_stalls(
    rates: npt.NDArray[np.float64], stalls: list[tuple[int, int]]
) -> npt.NDArray[np.float64]:
    """``rates`` with each stall's windows (:func:`summary_stalls`) set to the mean rate of
    the windows beside it: what the warm-up and cool-down rules see."""
    level = rates.copy()
    for i, j in stalls:
        side = np.concatenate(
            [rates[max(0, i - SUMMARY_STALL_SIDE) : i], rates[j : j + SUMMARY_STALL_SIDE]]
        )
        level[i:j] = float(side.mean())
    return level


def _summary_cooldown(rates: npt.NDArray[np.float64], *, z: float, min_effect: float) -> int | None:
    """:func:`cooldown_start` on summariser window rates (batch 1)."""
    return cooldown_start(
        rates, None, window_s=1.0, batch=1, z=z, min_effect=min_effect,
        min_windows=SUMMARY_MIN_WINDOWS,
    )  # fmt: skip


def _summary_warmup(
    rates: npt.NDArray[np.float64], *, trend_p: float, z: float, min_effect: float
) -> WarmupEnd:
    """:func:`warmup_end` on summariser window rates (batch 1), with a trend test."""
    warm = warmup_end(
        rates, None, window_s=1.0, batch=1, z=z, min_effect=min_effect,
        min_windows=SUMMARY_MIN_WINDOWS,
    )  # fmt: skip
    if warm.status in STEADY_STATUSES and warm.end_window is not None:
        # few coarse windows: halves comparisons lack power, so also test for a monotonic
        # trend (Mann-Kendall via Kendall's tau, p < trend_p) in the retained part
        tail = rates[warm.end_window :]
        if tail.size >= 4:
            pvalue = kendall_trend_pvalue(tail)
            change = abs(float(tail[-1] - tail[0])) / max(abs(float(tail.mean())), 1e-12)
            if pvalue < trend_p and change > min_effect:
                warm = WarmupEnd("no-steady-state", None, None, warm.throughput_truncation,
                                 None, "trend")  # fmt: skip
    return warm
