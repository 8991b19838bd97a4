"""Warm-up analysis of one series of iteration times: outliers, spikes, change points,
classification, steady state with a bootstrap CI, the short-series detector and the
literature's stopping rules as comparators.

Barrett, Bolz-Tereick, Killick, Mount & Tratt, "Virtual Machine Warmup Blows Hot and
Cold", OOPSLA 2017 (§4.1–4.4); Traini et al., EMSE 2023; Georges et al., OOPSLA 2007;
Laaber et al., ESEC/FSE 2020; White 1997 (MSER-5). research/warmup-science.md §1, §8.
All times are in seconds; iteration indices are 0-based positions in the given series.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from toolkit.analyze.changepoints import Segment, Segmentation, crops, pelt, segments_of
from toolkit.analyze.findings import Finding
from toolkit.analyze.mser import mser
from toolkit.analyze.resolution import MIN_EFFECT_STEPS, resolved, series_resolution

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

SeriesClass = Literal["flat", "warmup", "slowdown", "no-steady-state", "short"]
GroupClass = Literal[
    "flat",
    "warmup",
    "slowdown",
    "no-steady-state",
    "short",
    "good inconsistent",
    "bad inconsistent",
]
EquivalenceMode = Literal["warmup_stats", "ratio_ci", "tolerance"]
ShortClass = Literal["no-cache-effect", "step", "still-warming", "noisy", "single-run"]


# ---------------------------------------------------------------------------- outliers


def outlier_mask(
    values: npt.ArrayLike,
    *,
    window: int | None = None,
    band_k: float = 3.0,
    percentiles: tuple[float, float] = (10.0, 90.0),
    skip_start: int | None = None,
    resolution: float = 0.0,
) -> BoolArray:
    """Rolling-window outliers (Barrett et al. 2017 §4.1; warmup_stats ``outliers.py``;
    research §1.2, §8.1).

    Iteration i is an outlier when ``|x_i − med_W| > band_k·(P_hi,W − P_lo,W)`` on the
    window ``x[i − w/2 : i + w/2]`` (truncated at the end of the run). Iterations whose
    window would be truncated at the start are never tested: the first ``skip_start``
    (default ``w/2``, warmup_stats behaviour). ``window`` defaults to
    ``max(20, round(0.10·n))``; ``percentiles`` (10, 90) is warmup_stats, (1, 99) Traini.
    The band is at least ``resolution`` (seconds): on runs rounded to the timer's step a
    window of equal values has a band of 0, and one step off it is not an outlier.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    n = x.size
    w = window if window is not None else max(20, round(0.10 * n))
    h = max(1, w // 2)
    skip = h if skip_start is None else skip_start
    mask = np.zeros(n, dtype=bool)
    if n < 2 * h:
        return mask
    lo_q, hi_q = percentiles
    # full windows x[i-h : i+h] for i in [h, n-h]
    full = np.lib.stride_tricks.sliding_window_view(x, 2 * h)
    idx = np.arange(h, n - h + 1)
    q = np.percentile(full[: idx.size], [lo_q, 50.0, hi_q], axis=1)
    band = np.maximum(band_k * (q[2] - q[0]), resolution)
    mask[idx] = np.abs(x[idx] - q[1]) > band
    for i in range(n - h + 1, n):  # truncated at the end
        win = x[i - h : n]
        p = np.percentile(win, [lo_q, 50.0, hi_q])
        mask[i] = abs(x[i] - p[1]) > max(band_k * (p[2] - p[0]), resolution)
    mask[: min(skip, n)] = False
    return mask


@dataclass(frozen=True)
class Spike:
    """One iteration far above its neighbours (a JIT compile or GC pause inside it).

    ``ratio`` = seconds / the larger neighbour (or the steady value when that is higher
    in a rolling-window outlier)."""

    iteration: int
    seconds: float
    ratio: float


def single_iteration_spikes(
    values: npt.ArrayLike, *, spike_ratio: float = 2.0, resolution: float = 0.0
) -> BoolArray:
    """Iterations at least ``spike_ratio`` times both neighbours (the last iteration: its
    predecessor). The first iteration is never a spike: a slow first run is warm-up.
    A ratio to a neighbour below the timer ``resolution`` (seconds) means nothing, so the
    larger neighbour must be at least one ``resolution`` step and the spike more than one
    step above it (0.2 ms after 0.1 ms on a 0.1 ms timer is not 2x). Two consecutive
    iterations that are both ``spike_ratio`` times the runs either side of them are spikes
    too (two pauses in a row).

    Seed 002: "a single mid-iteration compile spike can push that iteration to 2-30x its
    steady-state time" — hence the default 2.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    n = x.size
    mask = np.zeros(n, dtype=bool)
    if n < 3:
        return mask
    left = x[:-2]
    right = x[2:]
    mid = x[1:-1]
    ref = np.maximum(left, right)
    mask[1:-1] = (
        (mid >= spike_ratio * ref) & (ref > 0) & (ref >= resolution) & (mid - ref > resolution)
    )
    last, prev = float(x[-1]), float(x[-2])
    mask[-1] = (
        n >= 4
        and last >= spike_ratio * prev
        and prev > 0
        and prev >= resolution
        and last - prev > resolution
    )
    # two pauses in a row shield each other from the rule above: a pair counts when both
    # runs are spikes against the runs either side of the pair (at the end: the run
    # before it); two 3-4x runs among the last 3 were read as a final segment, "no
    # steady state"
    if n >= 5:
        low = np.minimum(x[1:-1], x[2:])  # pair (i, i+1), i = 1..n-2
        outer = np.maximum(x[:-2], np.r_[x[3:], 0.0])  # x[i-1] and x[i+2] (none at the end)
        # and twice the median around the pair: the high half of a ±40 % square wave of
        # period 4 is 2.3x the runs beside it but not a pause
        starts = np.clip(np.arange(1, n - 1) - 5, 0, max(n - 12, 0))  # 12 runs, inside x
        # one median per row of a strided view (a median per run in Python was 20 s of 39
        # for 86 series of 10,000 runs); the same windows x[a : a + 12]
        windows = np.lib.stride_tricks.sliding_window_view(x, min(12, n))
        around = np.median(windows[starts], axis=1)
        pair = (
            (low >= spike_ratio * np.maximum(outer, around))
            & (outer > 0)
            & (outer >= resolution)
            & (low - outer > resolution)
        )
        for i in np.flatnonzero(pair) + 1:
            mask[i] = mask[i + 1] = True
    return mask


# ------------------------------------------------------------------------- equivalence


@dataclass(frozen=True)
class Equivalence:
    """Whether a segment is equivalent to the final segment, with ``ratio`` = its mean /
    the final mean (None when the final mean is below the timer resolution or 0: a ratio
    to a sub-resolution value means nothing) and, in ``ratio_ci`` mode, the bootstrap
    95 % CI of that ratio."""

    equivalent: bool
    ratio: float | None
    ratio_ci: tuple[float, float] | None


def segment_equivalence(
    seg: Segment,
    final: Segment,
    *,
    mode: EquivalenceMode = "tolerance",
    delta_s: float = 0.001,
    rel_tol: float = 0.05,
    abs_tol_s: float = 0.0001,
    raw_deltas: bool = False,
    effect_size: float = 0.05,
    values: FloatArray | None = None,
    resamples: int = 10_000,
    seed: int = 0,
    resolution: float = 0.0,
) -> Equivalence:
    """Segment equivalence in the three modes of research §8.4.

    - ``warmup_stats`` (Barrett et al. 2017 §4.3, as coded in warmup_stats):
      ``|m_i − m_f| ≤ v_i + max(v_f, Δ)`` with the variances read as seconds (the
      paper's admitted heuristic); ``raw_deltas``: ``|m_i − m_f| ≤ Δ``; ``delta_s`` = Δ.
    - ``ratio_ci`` (Traini et al. 2023, after Kalibera & Jones 2013): bootstrap 95 % CI
      of ``mean_i/mean_f`` (``resamples``, seeded); different iff the CI lies entirely
      outside ``[1 − es, 1 + es]``; needs ``values``.
    - ``tolerance`` (default; deterministic and dimensionally sound):
      ``|m_i/m_f − 1| ≤ max(rel_tol, abs_tol_s/m_f)`` with rel_tol = Traini's 5 % effect
      size and ``abs_tol_s`` = 0.1 ms, a timer-resolution guard (Barrett's 1 ms Δ would
      call a 2 ms → 1.4 ms change "equivalent").

    Means that differ by no more than the timer ``resolution`` (seconds) are equivalent in
    every mode: the timer cannot tell them apart.
    """
    ratio = seg.mean / final.mean if final.mean > 0 and final.mean >= resolution else None
    # within one step, with a relative slack for binary rounding (a mean of 1 ms runs is
    # 0.0010000000000000002 s)
    same = abs(seg.mean - final.mean) <= resolution * (1 + 1e-9)
    if same or (ratio is None and mode != "warmup_stats"):
        return Equivalence(same, ratio, None)
    if mode == "warmup_stats":
        if raw_deltas:
            return Equivalence(abs(seg.mean - final.mean) <= delta_s, ratio, None)
        half = max(final.variance, delta_s)
        lower, upper = final.mean - half, final.mean + half
        ok = seg.mean + seg.variance >= lower and seg.mean - seg.variance <= upper
        return Equivalence(bool(ok), ratio, None)
    if mode == "tolerance":
        assert ratio is not None  # a sub-resolution final mean returned above
        limit = max(rel_tol, max(abs_tol_s, resolution) / final.mean)
        return Equivalence(abs(ratio - 1.0) <= limit, ratio, None)
    if mode == "ratio_ci":
        if values is None:
            raise ValueError("ratio_ci equivalence needs the series values")
        rng = np.random.default_rng(seed)
        a = values[seg.start : seg.end]
        b = values[final.start : final.end]
        if float(b.min()) <= 0:
            # a resampled final mean of 0 has no ratio: compare by the means alone
            return Equivalence(same, ratio, None)
        ma = a[rng.integers(0, a.size, (resamples, a.size))].mean(axis=1)
        mb = b[rng.integers(0, b.size, (resamples, b.size))].mean(axis=1)
        lo, hi = np.percentile(ma / mb, [2.5, 97.5])
        differ = hi <= 1.0 - effect_size or lo >= 1.0 + effect_size
        return Equivalence(not differ, ratio, (float(lo), float(hi)))
    raise ValueError(f"unknown equivalence mode {mode!r}")


# ---------------------------------------------------------------------- classification


@dataclass(frozen=True)
class Classification:
    """Per-series class and its steady segments (research §1.5, §1.6, §8.5).

    ``steady_start`` = index (into the analysed series) of the first steady segment's
    first iteration; ``None`` for no steady state."""

    series_class: SeriesClass
    steady_segments: tuple[int, ...]
    steady_start: int | None
    equivalences: tuple[Equivalence, ...]


def classify_segments(
    segments: Sequence[Segment],
    *,
    n: int | None = None,
    steady_len: int | None = None,
    mode: EquivalenceMode = "tolerance",
    delta_s: float = 0.001,
    rel_tol: float = 0.05,
    values: FloatArray | None = None,
    seed: int = 0,
    resolution: float = 0.0,
) -> Classification:
    """flat / warmup / slowdown / no-steady-state by the backwards scan of warmup_stats
    ``Segments.get_classification`` (Barrett et al. 2017 §4.3; research §1.5):
    equivalent segments are skipped; a non-equivalent one ending inside the last
    ``steady_len`` iterations (default 25 % of n) means no steady state; an earlier faster
    one means slowdown; otherwise warm-up. Steady segments: the last one plus the
    contiguous equivalent ones before it (§1.6). Segment means within one timer
    ``resolution`` (seconds) of the final one are equivalent."""
    if not segments:
        raise ValueError("no segments")
    total = n if n is not None else segments[-1].end
    steady = steady_len if steady_len is not None else int(0.25 * total)
    final = segments[-1]
    eqs = [
        segment_equivalence(
            s,
            final,
            mode=mode,
            delta_s=delta_s,
            rel_tol=rel_tol,
            values=values,
            seed=seed + i,
            resolution=resolution,
        )
        for i, s in enumerate(segments[:-1])
    ]
    eqs.append(Equivalence(True, 1.0, None))
    cls: SeriesClass = "flat"
    for i in range(len(segments) - 2, -1, -1):
        seg = segments[i]
        if eqs[i].equivalent:
            continue
        if seg.end > total - steady:
            cls = "no-steady-state"
            break
        faster = (
            seg.mean - seg.variance < final.mean - max(final.variance, delta_s)
            if mode == "warmup_stats"
            else seg.mean < final.mean
        )
        if faster:
            cls = "slowdown"
            break
        cls = "warmup"
    steady_idx = [len(segments) - 1]
    for i in range(len(segments) - 2, -1, -1):
        if not eqs[i].equivalent:
            break
        steady_idx.append(i)
    steady_idx.reverse()
    start = None if cls == "no-steady-state" else segments[steady_idx[0]].start
    return Classification(cls, tuple(steady_idx), start, tuple(eqs))


def classify_processes(classes: Sequence[str]) -> GroupClass:
    """Across the processes (pexecs, forks) of one (system, benchmark): the common class,
    ``good inconsistent`` for exactly {flat, warmup}, else ``bad inconsistent``
    (Barrett et al. 2017; warmup_stats ``summary_statistics.py``; research §1.5)."""
    kinds = set(classes)
    if not kinds:
        raise ValueError("no classes")
    if len(kinds) == 1:
        only = next(iter(kinds))
        return only  # type: ignore[return-value]
    if kinds == {"flat", "warmup"}:
        return "good inconsistent"
    return "bad inconsistent"


# ----------------------------------------------------------------------- steady value


def steady_value_ci(
    parts: Sequence[FloatArray],
    *,
    statistic: Literal["median", "mean"] = "median",
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, tuple[float, float]]:
    """Steady value of the concatenated steady segments and a seeded percentile bootstrap
    CI that resamples each segment within itself (warmup_stats ``bootstrapper.py``,
    Barrett et al. 2017 §4.4; research §1.6, §8.7).

    ``statistic`` ``median`` (default) is robust to the JIT/GC blips the spike rule does
    not catch; ``mean`` is Barrett's per-segment-mean estimator.
    """
    data = [np.asarray(p, dtype=np.float64) for p in parts if len(p)]
    if not data:
        return math.nan, (math.nan, math.nan)
    pooled = np.concatenate(data)
    stat = np.median if statistic == "median" else np.mean
    point = float(stat(pooled))
    if pooled.size < 2:
        return point, (point, point)
    rng = np.random.default_rng(seed)
    draws = np.concatenate([p[rng.integers(0, p.size, (resamples, p.size))] for p in data], axis=1)
    boot = stat(draws, axis=1)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(boot, [alpha, 1.0 - alpha])
    return point, (float(lo), float(hi))


# ------------------------------------------------------------------------ short series


@dataclass(frozen=True)
class ShortSeries:
    """The cold/hot step detector for 2–10 runs (research §8.6; ClickBench README).

    ``cold_ratio`` = t_1 / min(t_2..t_r); ``hot_spread`` = (max − min)/min over runs
    2..r; ``hot_s`` = min(t_2, t_3) (ClickBench's hot); ``still_warming`` = the last run
    is a new minimum beyond the noise band; ``monotone_rho`` = Spearman ρ of runs 2..r
    against their index (None below 3 hot runs)."""

    runs: int
    cold_s: float
    hot_s: float | None
    cold_ratio: float | None
    hot_spread: float | None
    monotone_rho: float | None
    still_warming: bool
    short_class: ShortClass


def short_series(
    values: npt.ArrayLike,
    *,
    noise_rel: float = 0.05,
    noise_abs_s: float = 0.01,
    resolution: float = 0.0,
) -> ShortSeries:
    """Classify a 2–10 run series: ``step`` (cold > hot beyond the noise, hot runs agree),
    ``still-warming`` (the last hot run is below every earlier hot run by more than
    ``noise_rel`` and ``noise_abs_s``), ``noisy`` (hot runs disagree without a downward
    trend), ``no-cache-effect``. ``noise_rel`` = 5 % (research §8.6), ``noise_abs_s`` =
    ClickBench's 10 ms timing shift; ``min_ratio`` = 1 + noise_rel. ``cold_ratio`` and
    ``hot_spread`` are None when the fastest hot run is 0 or below the timer
    ``resolution`` (seconds): a ratio to a sub-resolution value means nothing."""
    x = np.asarray(values, dtype=np.float64).ravel()
    r = int(np.isfinite(x).sum())
    if x.size == 0:
        raise ValueError("empty series")
    cold = float(x[0])
    hot = x[1:][np.isfinite(x[1:])]
    if hot.size == 0:
        return ShortSeries(r, cold, None, None, None, None, False, "single-run")
    # ndarray methods, not np.ptp/np.all: this runs once per series (83,000 for 2,000
    # ClickBench results) and the functions' dispatch cost more than the 2-run arrays
    hmin = float(hot.min())
    hmax = float(hot.max())
    measurable = hmin > 0 and hmin >= resolution
    ratio = cold / hmin if measurable and math.isfinite(cold) else math.nan
    spread = (hmax - hmin) / hmin if measurable else None
    rho: float | None = None
    if hot.size >= 3 and hmax - hmin > 0:  # equal hot runs have no rank correlation
        from scipy.stats import spearmanr

        res = spearmanr(np.arange(hot.size), hot)
        rho = float(res.statistic) if np.isfinite(res.statistic) else None
    warming = False
    if hot.size >= 2:
        earlier = float(hot[:-1].min())
        drop = earlier - float(hot[-1])
        warming = drop > noise_rel * earlier and drop > noise_abs_s
        if hot.size >= 3 and rho is not None:
            warming = warming and rho < 0
    noise_ok = (spread is not None and spread <= noise_rel) or (hmax - hmin) <= max(
        noise_abs_s, resolution
    )
    cls: ShortClass
    if warming:
        cls = "still-warming"
    elif not noise_ok:
        cls = "noisy"
    elif math.isfinite(ratio) and ratio > 1.0 + noise_rel and cold - hmin > noise_abs_s:
        cls = "step"
    else:
        cls = "no-cache-effect"
    # ClickBench: hot = min(run 2, run 3), null when either failed
    pair = x[1:3]
    hot_s = float(pair.min()) if pair.size and np.isfinite(pair).all() else None
    return ShortSeries(
        r, cold, hot_s, None if math.isnan(ratio) else ratio, spread, rho, warming, cls
    )


# ------------------------------------------------------------------------- comparators


@dataclass(frozen=True)
class StoppingRule:
    """Where a rule would have declared steady state, and how wrong that was.

    ``stop`` = iteration index at which the rule says "warm" (None = never);
    ``value_s`` = the value the rule would report; ``iteration_error`` = stop − the
    engine's steady iteration; ``time_error_s`` = the same in wall-clock seconds (Traini's
    WEE); ``value_error`` = value / steady value − 1."""

    rule: str
    stop: int | None
    value_s: float | None
    iteration_error: int | None
    time_error_s: float | None
    value_error: float | None


def georges_cov(
    values: npt.ArrayLike, *, k: int = 10, cov_threshold: float = 0.01
) -> tuple[int | None, float | None]:
    """Georges et al. 2007: the first s where the CoV of the last ``k`` iterations
    ``x[s−k+1..s]`` is below ``cov_threshold`` (0.01, as evaluated by Barrett et al. 2017
    §7); returns (s, mean of that window) or (None, None). research §8.9."""
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size < k:
        return None, None
    win = np.lib.stride_tricks.sliding_window_view(x, k)
    mean = win.mean(axis=1)
    # a window of zeros (runs below the timer) has no CoV: never "steady" by this rule
    std = win.std(axis=1, ddof=1)
    cov = np.divide(std, mean, out=np.full_like(std, np.inf), where=mean > 0)
    hits = np.flatnonzero(cov < cov_threshold)
    if hits.size == 0:
        return None, None
    j = int(hits[0])
    return j + k - 1, float(mean[j])


def _laaber_prefilter(x: FloatArray) -> FloatArray:
    med = float(np.median(x))
    return x[(x <= 10 * med) & (x >= med / 10)]  # OUTLIER_FACTOR = 10


def laaber_stop(
    values: npt.ArrayLike,
    *,
    criterion: Literal["cov", "ci", "divergence"],
    min_iterations: int = 5,
    max_iterations: int = 50,
    history: int = 5,
    cov_threshold: float = 0.01,
    rciw_threshold: float = 0.03,
    kld_threshold: float = 0.99,
    resamples: int = 1000,
    seed: int = 0,
) -> int | None:
    """Laaber et al. 2020 dynamic reconfiguration, iteration level (research §2.2, §8.10).

    After iteration i (at least ``min_iterations``, at most ``max_iterations`` = JMH-fork
    defaults 5/50), on the outlier-filtered values so far (10×/÷10 of the median):
    ``cov``: ``max_{j=1..4} |CoV_i − CoV_{i−j}| < 0.01``; ``ci``: the same on the relative
    width of a 99 % bootstrap CI of the mean (1000 resamples) ``< 0.03``; ``divergence``:
    mean over the last 5 of ``2^−KL(P‖Q)·2^−KL(Q‖P)`` between the KDEs of values up to i
    and up to i−1 ``> 0.99`` (``history`` 6). Returns the stop index i or None.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    rng = np.random.default_rng(seed)
    hist = history + 1 if criterion == "divergence" else history
    stats: list[float] = []
    upto = min(x.size, max_iterations)
    for i in range(upto):
        data = _laaber_prefilter(x[: i + 1])
        if criterion == "cov":
            m = float(data.mean())
            stats.append(float(data.std(ddof=1)) / m if data.size > 1 and m > 0 else math.inf)
        elif criterion == "ci":
            if data.size > 1:
                boot = data[rng.integers(0, data.size, (resamples, data.size))].mean(axis=1)
                lo, hi = np.quantile(boot, [0.005, 0.995])
                m = float(data.mean())
                stats.append(float((hi - lo) / m) if m > 0 else math.inf)
            else:
                stats.append(math.inf)
        else:
            prev = _laaber_prefilter(x[:i]) if i > 0 else data[:0]
            stats.append(_kde_similarity(prev, data))
        if i + 1 < max(min_iterations, hist):
            continue
        if criterion == "divergence":
            if float(np.mean(stats[-history:])) > kld_threshold:
                return i
        else:
            cur = stats[-1]
            variability = max(abs(cur - stats[-1 - j]) for j in range(1, history))
            threshold = cov_threshold if criterion == "cov" else rciw_threshold
            if math.isfinite(variability) and variability < threshold:
                return i
    return None


def _kde_similarity(p: FloatArray, q: FloatArray, points: int = 1000) -> float:
    """``2^−KL(P‖Q) · 2^−KL(Q‖P)`` of Gaussian KDEs on a 1000-point grid spanning the
    Tukey fences of both samples (Laaber et al. 2020 ``DivergenceEvaluation``)."""
    if p.size < 2 or q.size < 2 or np.ptp(p) == 0 or np.ptp(q) == 0:
        return 0.0
    from scipy.stats import gaussian_kde

    def fences(a: FloatArray) -> tuple[float, float]:
        q1, q3 = np.percentile(a, [25, 75])
        return float(q1 - 1.5 * (q3 - q1)), float(q3 + 1.5 * (q3 - q1))

    lo = max(0.0, min(fences(p)[0], fences(q)[0]))
    hi = max(fences(p)[1], fences(q)[1])
    if hi <= lo:
        return 0.0
    grid = np.linspace(lo, hi, points)
    dp = gaussian_kde(p)(grid) + 1e-300
    dq = gaussian_kde(q)(grid) + 1e-300
    dp /= dp.sum()
    dq /= dq.sum()
    kl_pq = float(np.sum(dp * np.log2(dp / dq)))
    kl_qp = float(np.sum(dq * np.log2(dq / dp)))
    return float(2.0 ** (-kl_pq) * 2.0 ** (-kl_qp))


def compare_stopping_rules(
    values: FloatArray,
    *,
    steady_iteration: int | None,
    steady_value: float | None,
    measure_iterations: int = 5,
    seed: int = 0,
) -> tuple[StoppingRule, ...]:
    """MSER-5 (§8.8), Georges' CoV rule (§8.9) and Laaber's three criteria (§8.10) on one
    series, with their error against the change-point steady state. Laaber's value is the
    mean of the ``measure_iterations`` (JMH default 5) iterations after its stop."""
    x = np.asarray(values, dtype=np.float64)
    cum = np.concatenate(([0.0], np.cumsum(x)))
    out: list[StoppingRule] = []

    def rule(name: str, stop: int | None, value: float | None) -> StoppingRule:
        it_err = tm_err = val_err = None
        if stop is not None and steady_iteration is not None:
            it_err = stop - steady_iteration
            tm_err = float(cum[stop] - cum[steady_iteration])
        if value is not None and steady_value is not None and steady_value > 0:
            val_err = value / steady_value - 1.0
        return StoppingRule(name, stop, value, it_err, tm_err, val_err)

    m = mser(x)
    ms_stop = None if m.inconclusive else m.truncation
    ms_val = float(x[ms_stop:].mean()) if ms_stop is not None else None
    out.append(rule("mser5", ms_stop, ms_val))
    g_stop, g_val = georges_cov(x)
    out.append(rule("georges-cov", g_stop, g_val))
    for crit in ("cov", "ci", "divergence"):
        stop = laaber_stop(x, criterion=crit, seed=seed)
        val = None
        if stop is not None and stop + 1 < x.size:
            val = float(x[stop + 1 : stop + 1 + measure_iterations].mean())
        out.append(rule(f"laaber-{crit}", stop, val))
    return tuple(out)


# ------------------------------------------------------------------------ the one call


@dataclass(frozen=True)
class SeriesAnalysis:
    """Everything :func:`analyze_series` found in one series (seconds; 0-based indices
    into the given series).

    ``steady_iteration``: first iteration of the steady state (None: no steady state or a
    short series); ``time_to_steady_s``: wall-clock time of the iterations before it;
    ``steady_s`` and ``steady_ci``: steady value and its bootstrap CI; ``spikes``: single
    iterations far above their neighbours or rolling-window outliers above the band,
    excluded from the change points and the steady value; ``segments`` are in original
    indexing (start/end of the analysed points mapped back); ``batch``: aggregation
    factor for series longer than ``max_points`` (1 = none)."""

    n: int
    series_class: SeriesClass
    steady_iteration: int | None
    time_to_steady_s: float | None
    steady_s: float | None
    steady_ci: tuple[float, float] | None
    spikes: tuple[Spike, ...]
    outliers: tuple[int, ...]
    changepoints: tuple[int, ...]
    segments: tuple[Segment, ...]
    penalty: float | None
    cold_ratio: float | None
    short: ShortSeries | None
    comparators: tuple[StoppingRule, ...]
    findings: tuple[Finding, ...]
    batch: int


def quantization_floor(values: npt.ArrayLike, *, base: float = 1e-11) -> float:
    """Variance floor for PELT on the median-scaled series: the larger of R's 1e‑11 and
    the variance of rounding to the timer resolution, ``(q/median)²/12``, with ``q`` the
    smallest positive gap between distinct values. Timings printed in whole milliseconds
    (ClickBench, the seed) otherwise give identical runs a variance of 0 and a cost of
    −∞, and PELT splits every such run off (research §1.3 pitfall, generalised)."""
    x = np.asarray(values, dtype=np.float64).ravel()
    med = float(np.median(np.abs(x))) if x.size else 0.0
    uniq = np.unique(x)
    if med <= 0 or uniq.size < 2:
        return base
    gaps = np.diff(uniq)
    q = float(gaps[gaps > 0].min())
    # only a coarse grid is a resolution: most gaps are multiples of q
    if np.mean(np.abs(gaps / q - np.round(gaps / q)) < 1e-6) < 0.9:
        return base
    return max(base, (q / med) ** 2 / 12.0)


def aggregate_series(values: npt.ArrayLike, *, max_points: int = 5000) -> tuple[FloatArray, int]:
    """Batch means of ``b = ceil(n / max_points)`` consecutive points (the last batch may
    be shorter), so PELT sees at most ``max_points`` (research §8.11: PELT is O(n²) on
    warm-up series; batching also tames heavy tails). Returns (series, b); point j covers
    raw indices ``[j·b, (j+1)·b)``."""
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size <= max_points:
        return x, 1
    b = math.ceil(x.size / max_points)
    m = math.ceil(x.size / b)
    pad = m * b - x.size
    sums = np.add.reduceat(x, np.arange(0, x.size, b))
    counts = np.full(m, float(b))
    counts[-1] = b - pad
    return sums / counts, b


def revealed_resolution(values: npt.ArrayLike) -> float:
    """The timer resolution a series shows, seconds: its smallest step between distinct
    values (:func:`toolkit.analyze.resolution.series_resolution`) when its values span at
    least ``MIN_EFFECT_STEPS`` (10) such steps, else 0. Only a grid that many values fall
    on is a resolution: in [3, 1, 1, …] or a 2.0 s → 1.0 s step the smallest step is the
    change itself, and as a resolution it made a 3x cold run and a 2x warm-up
    "unresolved" (the first read flat, cold ratio None)."""
    x = np.asarray(values, dtype=np.float64).ravel()
    x = x[np.isfinite(x)]
    step = series_resolution(x.tolist())
    if step <= 0 or float(x.max() - x.min()) < MIN_EFFECT_STEPS * step:
        return 0.0
    return step


def revealed_resolutions(runs: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """:func:`revealed_resolution` of every row of ``runs`` (NaN pads a short row) in
    whole-array passes, seconds: the smallest step between the row's distinct finite
    values (rounded to 1e-12 s, as :func:`toolkit.analyze.resolution.series_resolution`
    rounds it) when the row spans at least ``MIN_EFFECT_STEPS`` such steps, else 0. For
    the 83,000 series of 2,000 ClickBench results (issue 19), where a call per series
    cost more than the 3-run arrays."""
    finite = np.isfinite(runs)
    ordered = np.sort(np.where(finite, runs, np.nan), axis=1)  # NaN sort last
    with np.errstate(invalid="ignore"):
        steps = np.diff(ordered, axis=1)
        steps = np.where(steps > 0, steps, np.inf)
    smallest = steps.min(axis=1, initial=np.inf)
    rounded = {v: round(v, 12) for v in set(smallest.tolist()) if math.isfinite(v)}
    step = np.array([rounded.get(v, 0.0) for v in smallest.tolist()], dtype=np.float64)
    high = np.where(finite, runs, -np.inf).max(axis=1, initial=-np.inf)
    low = np.where(finite, runs, np.inf).min(axis=1, initial=np.inf)
    with np.errstate(invalid="ignore"):
        span = high - low
        keep = (step > 0) & ~(span < MIN_EFFECT_STEPS * step)
    return np.where(keep, step, 0.0)


#: Series shorter than this (after spikes and outliers are set aside) that show no change
#: point at Barrett's 15·ln n but a monotone trend are segmented again at 4·ln n
#: (:func:`analyze_series`).
SHORT_RESEGMENT_MAX = 30


def analyze_series(
    times: npt.ArrayLike,
    *,
    subject: str = "series",
    penalty: float | str = "barrett",
    min_size: int = 2,
    equivalence: EquivalenceMode = "tolerance",
    delta_s: float = 0.001,
    rel_tol: float = 0.05,
    steady_frac: float = 0.25,
    spike_ratio: float = 2.0,
    short_max: int = 5,
    noise_rel: float = 0.05,
    statistic: Literal["median", "mean"] = "median",
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
    comparators: bool = False,
    max_points: int = 5000,
    min_all_tolerance: float = 0.05,
    variance_floor: float | None = None,
    resolution: float | None = None,
) -> SeriesAnalysis:
    """Warm-up analysis of one process's iteration times (seconds, in run order; NaN =
    failed run, dropped). The one-call entry for harnesses.

    Pipeline (research §8): single-iteration spikes (``spike_ratio``) and Barrett's
    rolling-window outliers (§8.1) are set aside; series longer than ``max_points`` are
    batch-averaged (§8.11); PELT with ``penalty`` (a number, ``"barrett"`` = 15·ln n,
    ``"sic"``/``"bic"`` = 3·ln n, ``"mbic"`` = 4·ln n, §8.2; or ``"crops"``: the elbow of
    the CROPS path, §8.3; with ``"barrett"``, a series of fewer than
    :data:`SHORT_RESEGMENT_MAX` points without a change point but with a monotone trend
    (:func:`monotone_trend`) is segmented again at 4·ln n); segments compared with the
    final one (``equivalence``, §8.4) and classified (§8.5, ``steady_frac`` of n must be
    steady); the steady iteration is the first steady segment's start (§1.6), for a
    warm-up in ``tolerance`` mode moved to where the runs enter the ±``rel_tol`` band
    (:func:`refine_steady_start`), 0 for a flat series; steady value = ``statistic`` of
    the steady segments with a seeded bootstrap CI (§8.7). A cold first run is a segment of
    its own (:func:`split_cold_run`); a steady part of 12 runs or more that still moves
    (:func:`level_structure`: a square wave or drift; or a significant trend) means no
    steady state, after a "flat" series is segmented again at 4·ln n and a warm-up's
    steady start may move a few runs later. Series of at most ``short_max`` runs get
    class ``short`` and the cold/hot
    detector (§8.6). ``comparators`` adds MSER-5, Georges and Laaber (§8.8–8.10).
    ``variance_floor`` (on the median-scaled series) defaults to
    :func:`quantization_floor`, so runs of identical rounded timings are not split off as
    zero-variance segments. Findings: spikes, and "min of all runs underestimates steady state" when
    ``min(times[1:])`` is more than ``min_all_tolerance`` below the steady value.

    ``resolution`` (seconds; default :func:`revealed_resolution` of ``times``, or pass the
    format's, 1 ms for ClickBench) is the timer's step: differences
    within it are neither spikes, outliers, segment differences nor findings, and a ratio to
    a value below it (``cold_ratio``, a spike's ratio) is not computed (None, or no spike).
    """
    raw = np.asarray(times, dtype=np.float64).ravel()
    keep = np.flatnonzero(np.isfinite(raw))
    x = raw[keep]
    n = int(x.size)
    res = revealed_resolution(x) if resolution is None else max(resolution, 0.0)
    findings: list[Finding] = []
    cold_ratio = None
    hot_runs = raw[1:][np.isfinite(raw[1:])]
    if raw.size and math.isfinite(raw[0]) and hot_runs.size:
        hot_min = float(hot_runs.min())
        if hot_min > 0 and hot_min >= res:
            cold_ratio = float(raw[0] / hot_min)
    if n <= short_max:
        sh = short_series(raw, noise_rel=noise_rel, resolution=res) if n else None
        return SeriesAnalysis(
            n, "short", None, None, None, None, (), (), (), (), None, cold_ratio, sh, (), (), 1
        )

    spike_mask = single_iteration_spikes(x, spike_ratio=spike_ratio, resolution=res)
    agg, b = aggregate_series(x, max_points=max_points)
    out_mask_agg = outlier_mask(agg, resolution=res)
    if b == 1:
        out_upper = out_mask_agg & (agg > np.median(agg))
        drop = spike_mask | out_mask_agg
        spike_mask = spike_mask | out_upper
    else:
        drop = out_mask_agg
    kept_pos = np.flatnonzero(~drop)
    y = agg[kept_pos]
    floor = variance_floor if variance_floor is not None else quantization_floor(y)
    if isinstance(penalty, str) and penalty.lower() == "crops":
        seg = crops(y, min_size=min_size, variance_floor=floor).segmentation
    else:
        seg = pelt(y, penalty=penalty, min_size=min_size, variance_floor=floor)
        if (
            not seg.changepoints
            and penalty == "barrett"
            and y.size < SHORT_RESEGMENT_MAX
            and monotone_trend(y)
        ):
            # 15·ln n was chosen for runs of 2,000 iterations: on ten runs a split must cut
            # the variance ~30-fold, so a warm-up from 1.25 s to 0.125 s over nine runs
            # reads as one flat segment. A short series with no change point but a
            # significant monotone trend is segmented again with mBIC's 4·ln n (§8.2's
            # named alternative). The trend test keeps flat noise flat: 4·ln n alone split
            # 9 % of 9-run series with 3 % noise; with it, none of 500 (6 % at 10 % noise).
            retry = pelt(y, penalty="mbic", min_size=min_size, variance_floor=floor)
            if retry.changepoints:
                seg = retry
    steady_len = int(steady_frac * y.size)

    def classify(
        segmentation: Segmentation,
    ) -> tuple[Segmentation, Classification, SeriesClass, int | None, bool]:
        # (segmentation, Barrett's scan, class, steady start, whether the steady part
        # failed the level-structure or trend test)
        segmentation = split_cold_run(y, segmentation, spike_ratio=spike_ratio, resolution=res)
        scan = classify_segments(
            segmentation.segments,
            n=y.size,
            steady_len=steady_len,
            mode=equivalence,
            delta_s=delta_s,
            rel_tol=rel_tol,
            values=y,
            seed=seed,
            resolution=res,
        )
        found = scan.series_class
        start = scan.steady_start
        if found != "no-steady-state" and tail_trend(
            y, steady_len, rel_tol=rel_tol, resolution=res
        ):
            return segmentation, scan, "no-steady-state", None, False
        # the refinement uses the tolerance mode's ±rel_tol band; the other modes keep
        # Barrett's definition (the first steady segment's start); a flat series is steady
        # from its first run by definition
        if start is not None and found in ("warmup", "slowdown") and equivalence == "tolerance":
            first = segmentation.segments[scan.steady_segments[0]]
            level = float(np.median(y[first.start : segmentation.segments[-1].end]))
            start = refine_steady_start(y, start, first.end, level, rel_tol=rel_tol, resolution=res)
            if y.size - start < steady_len:
                # the runs enter the band inside the last steady_frac of the run: they have
                # not been steady for as long as Barrett's rule asks (§1.5)
                return segmentation, scan, "no-steady-state", None, False
        if start is not None:

            def moves(s: int) -> bool:
                part = y[s:]
                return part.size >= STRUCTURE_MIN_POINTS and (
                    level_structure(part, rel_tol=rel_tol, resolution=res, seed=seed)
                    or tail_trend(part, part.size, rel_tol=rel_tol, alpha=0.001, resolution=res)
                )

            # from run 1 at least: a cold first run that is no spike (under spike_ratio)
            # still swells the variance and hides the structure of the rest
            tested = max(start, 1)
            if moves(tested):
                # the tail of a warm-up's decay may remain after the band was entered: when
                # the part starts above its median, a steady part that starts a few runs
                # later (up to 10 % of the series, keeping steady_frac of it) and is one
                # level is the steady state
                last = (
                    min(tested + max(5, y.size // 10), y.size - max(steady_len, 1))
                    if found == "warmup"
                    and float(np.mean(y[tested : tested + 5])) > float(np.median(y[tested:]))
                    else tested
                )
                # at most 10 starts tried: each test shuffles the part up to 999 times
                step = max(1, (last - tested) // 10)
                tries = range(tested + step, last + 1, step)
                later = next((s for s in tries if not moves(s)), None)
                if later is None:
                    return segmentation, scan, "no-steady-state", None, True
                start = later
        return segmentation, scan, found, start, False

    seg, cls, series_class, steady_start, moving = classify(seg)
    if moving and penalty == "barrett" and cls.series_class == "flat":
        # a "flat" series that is not one level: a square wave or a drift that PELT's
        # 15·ln n left in one segment (26 of 80 generated square waves read as flat), or a
        # change it missed (a ramp of +50 % over 6 of 41 runs). Segmented again at mBIC's 4·ln n (§8.2), the scan decides: a square
        # wave or drift then has non-equivalent segments at the end (no steady state); a
        # missed ramp becomes a change point, and the part after it is one level
        retried = classify(pelt(y, penalty="mbic", min_size=min_size, variance_floor=floor))
        if retried[2] != "no-steady-state":
            seg, cls, series_class, steady_start, moving = retried

    def to_raw(i: int) -> int:
        # analysed index → first raw iteration it covers (original, un-dropped indexing)
        pos = int(kept_pos[i]) if i < kept_pos.size else agg.size
        return int(keep[min(pos * b, n - 1)]) if pos < agg.size else int(raw.size)

    cps_raw = tuple(to_raw(c) for c in seg.changepoints)
    bounds = [0, *cps_raw, int(raw.size)]
    raw_segments = []
    for s, (a, z) in zip(seg.segments, itertools.pairwise(bounds), strict=True):
        raw_segments.append(Segment(a, z, s.n, s.mean, s.variance, s.median))

    steady_iteration = time_to_steady = steady_s = None
    steady_ci = None
    if steady_start is not None:
        steady_iteration = to_raw(steady_start) if steady_start > 0 else 0
        before = raw[:steady_iteration]
        time_to_steady = float(np.nansum(before))
        # each steady segment from the steady start on (the start may lie past the first
        # steady segment when a warm-up's decay tail was left out)
        parts = [
            y[max(steady_start, seg.segments[i].start) : seg.segments[i].end]
            for i in cls.steady_segments
            if seg.segments[i].end > steady_start
        ]
        steady_s, steady_ci = steady_value_ci(
            parts, statistic=statistic, confidence=confidence, resamples=resamples, seed=seed
        )

    spikes: list[Spike] = []
    if b == 1:
        for i in np.flatnonzero(spike_mask):
            nb = [x[j] for j in (i - 1, i + 1) if 0 <= j < n]
            ref = max(max(nb), steady_s or 0.0)
            if ref > 0 and ref >= res and resolved(float(x[i]), ref, res) and x[i] > ref:
                # a spike over sub-resolution neighbours has no ratio, and one no higher than
                # the steady value is no pause: set aside, no finding
                spikes.append(Spike(int(keep[i]), float(x[i]), float(x[i] / ref)))
    outliers = tuple(int(keep[i]) for i in np.flatnonzero(out_mask_agg)) if b == 1 else ()

    for sp in spikes:
        findings.append(
            Finding(
                "spike",
                "warning",
                subject,
                f"iteration {sp.iteration} took {sp.seconds:.3f} s, {sp.ratio:.1f}x its neighbours "
                "(a JIT compile or GC pause inside the iteration)",
                "it is excluded from the steady value; a window that contains it is not steady",
                {"iteration": sp.iteration, "seconds": sp.seconds, "ratio": sp.ratio},
            )
        )
    if steady_s is not None and hot_runs.size:
        min_all = float(hot_runs.min())
        if min_all < steady_s * (1.0 - min_all_tolerance) and resolved(min_all, steady_s, res):
            findings.append(
                Finding(
                    "min-all-underestimates",
                    "warning",
                    subject,
                    f"the min-all reference ({min_all:.3f} s, the fastest hot run) underestimates "
                    f"the steady value {steady_s:.3f} s by {1 - min_all / steady_s:.0%}",
                    "use the steady reference (warmup gaps --reference steady)",
                    {"min_all_s": min_all, "steady_s": steady_s},
                )
            )
    if series_class == "no-steady-state":
        findings.append(
            Finding(
                "no-steady-state",
                "problem",
                subject,
                f"no steady state: the last {steady_frac:.0%} of the run still changes level",
                "run more iterations, or report this series as not steady",
            )
        )

    comps: tuple[StoppingRule, ...] = ()
    if comparators:
        comps = compare_stopping_rules(
            x,
            steady_iteration=_kept_index(keep, steady_iteration),
            steady_value=steady_s,
            seed=seed,
        )
        # stops are positions among the non-failed runs; report raw iterations
        comps = tuple(
            dataclasses.replace(
                r,
                stop=int(keep[r.stop]),
                iteration_error=None
                if steady_iteration is None
                else int(keep[r.stop]) - steady_iteration,
            )
            if r.stop is not None and r.stop < keep.size
            else r
            for r in comps
        )
    return SeriesAnalysis(
        n=n,
        series_class=series_class,
        steady_iteration=steady_iteration,
        time_to_steady_s=time_to_steady,
        steady_s=steady_s,
        steady_ci=steady_ci,
        spikes=tuple(spikes),
        outliers=outliers,
        changepoints=cps_raw,
        segments=tuple(raw_segments),
        penalty=seg.penalty,
        cold_ratio=cold_ratio,
        short=short_series(raw, noise_rel=noise_rel, resolution=res) if raw.size <= 10 else None,
        comparators=comps,
        findings=tuple(findings),
        batch=b,
    )


def monotone_trend(values: FloatArray, *, alpha: float = 0.05, min_spread: float = 0.2) -> bool:
    """True when ``values`` rise or fall with run number by more than noise: their spread
    (max − min)/min exceeds ``min_spread`` and Spearman's ρ against the run index is
    significant at ``alpha`` (the monotone flag of research §8.6)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size < 4 or np.ptp(v) == 0 or v.min() <= 0 or np.ptp(v) / v.min() <= min_spread:
        return False
    from scipy.stats import spearmanr

    result = spearmanr(np.arange(v.size), v)
    return bool(float(result.pvalue) < alpha)


def tail_trend(
    values: FloatArray,
    steady_len: int,
    *,
    rel_tol: float = 0.05,
    alpha: float = 0.01,
    resolution: float = 0.0,
) -> bool:
    """True when the last ``steady_len`` points drift: a least-squares line through them
    changes by more than ``rel_tol`` of their mean and its slope is significant at
    ``alpha``. Our extension of Barrett's rule: PELT's mean + variance cost can absorb a
    slow ramp at the end of a run into one high-variance final segment, which Barrett's
    scan would call steady. The fitted change must also exceed two timer ``resolution``
    steps (seconds): a line through a single one-step change rises 1.5 steps."""
    tail = np.asarray(values[-steady_len:], dtype=np.float64) if steady_len > 0 else values[:0]
    if tail.size < 8 or np.ptp(tail) == 0 or float(tail.mean()) == 0:
        return False
    from scipy.stats import linregress

    fit = linregress(np.arange(tail.size, dtype=np.float64), tail)
    change_s = abs(float(fit.slope)) * (tail.size - 1)
    change = change_s / abs(float(tail.mean()))
    # a change within one timer step is no drift (0 ms → 1 ms runs on a 1 ms timer); a
    # line through a single step of height h rises up to 1.5·h, hence 2 steps
    return bool(change > rel_tol and change_s > 2 * resolution and float(fit.pvalue) < alpha)


#: Fewest points :func:`level_structure` tests (below, it cannot tell structure from noise).
STRUCTURE_MIN_POINTS = 12


def level_structure(
    values: FloatArray,
    *,
    rel_tol: float = 0.05,
    resolution: float = 0.0,
    alpha: float = 0.001,
    permutations: int = 999,
    max_lag: int = 20,
    seed: int = 0,
) -> bool:
    """True when ``values`` (a supposedly steady part) hold a level that moves — a square
    wave, a drift, a staircase — rather than noise around one level.

    Statistic: the smallest semivariogram ``γ(k) = mean((x_{t+k} − x_t)²)/2`` over lags
    k = 1..min(``max_lag``, n/3), over the variance. Noise around one level gives ≈ 1 at
    every lag; a moving level gives a small value at lag 1 (drift, long periods) or at
    its period (a period-4 square wave has γ(1) ≈ variance but γ(4) ≈ noise). It is von
    Neumann's ratio (mean square successive difference / variance; von Neumann 1941,
    Ann. Math. Stat. 12(4)) taken at its best lag; significance by a seeded permutation
    test (``permutations`` shuffles, one-sided at ``alpha``), so it holds at any n without
    tables. The moving part must matter too: its standard deviation
    ``√(variance − min γ)`` must exceed ``rel_tol``/2 of the mean (a square wave of
    ±rel_tol/2) and one timer ``resolution`` step. Our extension of Barrett et al.'s
    classification (research §1.5): PELT at 15·ln n leaves a ±10–40 % square wave of
    short period, or a slow drift, in one segment, which the scan calls flat."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    lags = min(max_lag, n // 3)
    mean = float(x.mean()) if n else 0.0
    var = float(x.var()) if n else 0.0
    if n < STRUCTURE_MIN_POINTS or lags < 1 or var <= 0 or mean <= 0:
        return False

    def min_gamma(a: FloatArray) -> FloatArray:
        # smallest semivariogram over the lags, per row of ``a``
        gammas = [np.mean((a[..., k:] - a[..., :-k]) ** 2, axis=-1) / 2 for k in range(1, lags + 1)]
        smallest: FloatArray = np.min(gammas, axis=0)
        return smallest

    observed = float(min_gamma(x))
    moving_sd = math.sqrt(max(var - observed, 0.0))
    if moving_sd <= max(rel_tol / 2 * mean, resolution):
        return False
    rng = np.random.default_rng(seed)
    allowed = math.floor(alpha * (permutations + 1)) - 1  # shuffles at or below observed
    below = 0
    for done in range(0, permutations, 100):
        # in chunks, so noise stops at its first chunk (and a 4,500-run series is not
        # shuffled 999 times when 100 already settle it)
        chunk = min(100, permutations - done)
        shuffled = rng.permuted(np.broadcast_to(x, (chunk, n)), axis=1)
        below += int(np.sum(min_gamma(shuffled) <= observed))
        if below > allowed:
            return False
    return True


def split_cold_run(
    values: FloatArray,
    segmentation: Segmentation,
    *,
    spike_ratio: float = 2.0,
    resolution: float = 0.0,
) -> Segmentation:
    """The first run as a segment of its own when it is at least ``spike_ratio`` times the
    second run and the median of the rest of its segment (and more than one timer
    ``resolution`` step above).
    PELT's segments have at least 2 runs, so a cold first run joins the next ones and
    lifts their mean: a 2.4x first run before five runs at 0.8x made the first segment's
    mean equal to the later 1.0 and hid the change at run 6 (issue 16). The scan then
    sees the cold run as a slower segment (warm-up) and the runs after it as they are."""
    segments = segmentation.segments
    if not segments or segments[0].n < 3:
        return segmentation
    rest = values[1 : segments[0].end]
    # against the larger of the second run and the rest's median: the first run alone,
    # not the start of a slow phase
    median = max(float(np.median(rest)), float(values[1]))
    first = float(values[0])
    if median <= 0 or first < spike_ratio * median or not resolved(first, median, resolution):
        return segmentation
    cps = (1, *segmentation.changepoints)
    return dataclasses.replace(segmentation, changepoints=cps, segments=segments_of(values, cps))


def refine_steady_start(
    values: FloatArray,
    start: int,
    limit: int,
    level: float,
    *,
    rel_tol: float = 0.05,
    width: int = 3,
    resolution: float = 0.0,
) -> int:
    """Move the change-point steady start to where the series actually enters the
    ``±rel_tol`` band around the steady ``level`` (the k_ε definition of research §8.13,
    on a ``width``-run median against noise): backwards while the earlier runs are already
    inside (each run and its ``width``-run median), forwards (up to ``limit``, the first steady segment's end) while they are not
    yet. PELT places a change inside a gradual decay where the likelihood gain peaks, not
    where the decay becomes negligible. The band is at least one timer ``resolution``
    (seconds) wide, and is absolute (no division), so a level of 0 s is a band too."""
    half = max(rel_tol * abs(level), resolution)

    def inside(i: int) -> bool:
        window = values[i : i + width]
        return abs(float(np.median(window)) - level) <= half

    def point_inside(i: int) -> bool:
        return abs(float(values[i]) - level) <= half

    def blip(j: int) -> bool:
        # one run off the band between two runs inside it (a small JIT/GC blip below
        # the spike ratio, like seed 002's 0.054 among 0.042s) does not end the steady state
        return 0 < j < values.size - 1 and point_inside(j - 1) and point_inside(j + 1)

    i = start
    while i > 0 and inside(i - 1) and (point_inside(i - 1) or blip(i - 1)):
        i -= 1
    if i == start:
        while i < limit - 1 and not inside(i):
            i += 1
    return i


def _kept_index(keep: npt.NDArray[np.int64], raw_index: int | None) -> int | None:
    """Raw iteration index → index among the non-failed runs."""
    if raw_index is None:
        return None
    return int(np.searchsorted(keep, raw_index))


__all__ = [
    "Classification",
    "Equivalence",
    "SeriesAnalysis",
    "ShortSeries",
    "Spike",
    "StoppingRule",
    "aggregate_series",
    "analyze_series",
    "classify_processes",
    "classify_segments",
    "compare_stopping_rules",
    "georges_cov",
    "laaber_stop",
    "level_structure",
    "outlier_mask",
    "quantization_floor",
    "revealed_resolution",
    "segment_equivalence",
    "segments_of",
    "short_series",
    "single_iteration_spikes",
    "steady_value_ci",
]
