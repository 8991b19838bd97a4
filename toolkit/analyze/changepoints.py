"""Change points in a series of iteration times: PELT with the normal mean + variance cost,
and CROPS with a Kneedle elbow for choosing the penalty.

Methods: Killick, Fearnhead & Eckley, JASA 2012 (PELT); R ``changepoint`` ``mll_meanvar``
(cost); Barrett et al. 2017 §4.2 (penalty ``15·ln n``, minimum segment 2); Haynes, Eckley
& Fearnhead, JCGS 2017 (CROPS); Satopää et al. 2011 (Kneedle); Traini et al. 2023
replication (CROPS + elbow as a penalty choice). research/warmup-science.md §1.3, §8.2, §8.3.

Index convention: a *change point* is the exclusive end of a segment (0-based), i.e. the
first index of the next segment. This equals R ``cpts()`` (1-based last index) and
``ruptures`` breakpoints without the trailing ``n``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Named penalties as multiples of ``ln n`` (research/warmup-science.md §8.2).
PENALTY_FACTORS: dict[str, float] = {
    "barrett": 15.0,  # Barrett et al. 2017: 15·ln n
    "sic": 3.0,  # R changepoint "SIC"/"BIC" for a mean + variance change: (2+1)·ln n
    "bic": 3.0,
    "mbic": 4.0,  # R cpt.meanvar default, Barrett's "typical 4 log n"
}

_LOG_2PI_PLUS_1 = math.log(2.0 * math.pi) + 1.0


@dataclass(frozen=True)
class Segment:
    """One segment ``[start, end)`` of a series (0-based, end exclusive).

    ``mean`` and ``median`` in the series' unit (seconds for timings); ``variance`` is the
    unbiased (n − 1) sample variance, as R ``var()`` in Barrett's ``param.est`` (0 for n = 1).
    """

    start: int
    end: int
    n: int
    mean: float
    variance: float
    median: float


@dataclass(frozen=True)
class Segmentation:
    """PELT result: change points (exclusive segment ends), segments, the penalty used and
    the minimised objective ``Σ C(segment) + penalty·#changepoints`` on the median-scaled
    series (−2·log-likelihood units)."""

    changepoints: tuple[int, ...]
    segments: tuple[Segment, ...]
    penalty: float
    cost: float


@dataclass(frozen=True)
class CropsResult:
    """CROPS path and the elbow choice.

    ``path`` holds ``(penalty, n_changepoints, unpenalised_cost)`` for every distinct
    segmentation found in ``[pen_min, pen_max]``, sorted by penalty; ``penalty`` is the
    Kneedle elbow (or the fallback ``15·ln n`` when there is no elbow); ``segmentation``
    is PELT at that penalty.
    """

    path: tuple[tuple[float, int, float], ...]
    penalty: float
    elbow_found: bool
    segmentation: Segmentation


def penalty_value(penalty: float | str, n: int) -> float:
    """The numeric penalty for ``n`` points: a number as is, or a name from
    :data:`PENALTY_FACTORS` (``"barrett"`` = 15·ln n, ``"sic"``/``"bic"`` = 3·ln n,
    ``"mbic"`` = 4·ln n), natural log."""
    if isinstance(penalty, str):
        key = penalty.lower().replace("/", "")
        if key == "sicbic":
            key = "sic"
        if key not in PENALTY_FACTORS:
            names = ", ".join(sorted(PENALTY_FACTORS))
            raise ValueError(f"unknown penalty {penalty!r}; use a number or one of {names}")
        return PENALTY_FACTORS[key] * math.log(max(n, 2))
    value = float(penalty)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"penalty must be a finite number ≥ 0, got {penalty!r}")
    return value


def _scaled(values: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The series, and the same scaled by its median and centred (x/median − 1).

    Scaling multiplies every variance by the same factor, which adds a constant to the
    objective and leaves the argmin alone; it makes the 1e‑11 variance floor meaningful for
    timings in seconds (research §1.3 pitfall). Centring keeps the cumulative-sum variance
    free of cancellation.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size and not np.all(np.isfinite(x)):
        raise ValueError("series contains NaN or infinite values; drop failed runs first")
    med = float(np.median(np.abs(x))) if x.size else 1.0
    scale = med if med > 0 else 1.0
    return x, x / scale - 1.0


def _cumsums(z: FloatArray) -> tuple[FloatArray, FloatArray]:
    s1 = np.concatenate(([0.0], np.cumsum(z)))
    s2 = np.concatenate(([0.0], np.cumsum(z * z)))
    return s1, s2


def _segment_cost(
    s1: FloatArray, s2: FloatArray, starts: npt.NDArray[np.int64], end: int, floor: float
) -> FloatArray:
    """``m·log σ̂²`` for the segments ``[starts, end)``; the ``m(log 2π + 1)`` part is a
    constant over any segmentation and is added back in the reported cost."""
    m = (end - starts).astype(np.float64)
    a = s1[end] - s1[starts]
    var = (s2[end] - s2[starts] - a * a / m) / m
    np.maximum(var, floor, out=var)
    out: FloatArray = m * np.log(var)
    return out


def _values(
    f: FloatArray,
    s1: FloatArray,
    s2: FloatArray,
    starts: npt.NDArray[np.int64],
    ends: npt.NDArray[np.int64] | int,
    floor: float,
) -> FloatArray:
    """``F[s] + C(s, t)`` for candidate starts and segment ends (broadcast), with the
    same floating-point operations in the same order as the step loops below, so the
    numbers are bit-identical wherever they are computed."""
    m = np.subtract(ends, starts).astype(np.float64)
    a = s1[ends] - s1[starts]
    a = a * a
    a = a / m
    v = s2[ends] - s2[starts]
    v = v - a
    v = v / m
    np.maximum(v, floor, out=v)
    out: FloatArray = np.log(v) * m + f[starts]
    return out


def _backtrack(last: npt.NDArray[np.int64], n: int) -> list[int]:
    cps: list[int] = []
    t = n
    while t > 0:
        t = int(last[t])
        if t > 0:
            cps.append(t)
    cps.reverse()
    return cps


def _pelt_reference(
    s1: FloatArray, s2: FloatArray, n: int, pen: float, min_size: int, floor: float
) -> list[int]:
    """PELT exactly as Killick et al. 2012 state it (and R changepoint and ruptures run
    it): every step evaluates every unpruned candidate, then prunes with K = 0 — s is
    dropped once F[s] + C(s, t) > F[t]. O(n²) when the series has few changes. The
    reference for :func:`_pelt_screened` and its fallback."""
    # F[t] = optimal penalised cost of x[:t] with every segment paying ``pen`` (so the
    # change-point objective is F[n] − pen). The candidates' start index, F and
    # cumulative sums live in parallel buffers so each step is a few contiguous passes.
    f = np.full(n + 1, np.inf)
    f[0] = 0.0
    last = np.zeros(n + 1, dtype=np.int64)
    c_start = np.zeros(n + 1, dtype=np.int64)
    c_m = np.zeros(n + 1)  # start index as float, for m = t − start
    c_f = np.zeros(n + 1)
    c_s1 = np.zeros(n + 1)
    c_s2 = np.zeros(n + 1)
    k = 1  # candidate 0: f = 0, sums 0
    m = np.empty(n + 1)
    a = np.empty(n + 1)
    v = np.empty(n + 1)
    for t in range(min_size, n + 1):
        new = t - min_size
        if new >= min_size:
            c_start[k] = new
            c_m[k] = new
            c_f[k] = f[new]
            c_s1[k] = s1[new]
            c_s2[k] = s2[new]
            k += 1
        mm, aa, vv = m[:k], a[:k], v[:k]
        np.subtract(float(t), c_m[:k], out=mm)
        np.subtract(s1[t], c_s1[:k], out=aa)
        np.subtract(s2[t], c_s2[:k], out=vv)
        np.multiply(aa, aa, out=aa)
        np.divide(aa, mm, out=aa)
        np.subtract(vv, aa, out=vv)
        np.divide(vv, mm, out=vv)
        np.maximum(vv, floor, out=vv)
        np.log(vv, out=vv)
        np.multiply(vv, mm, out=vv)
        np.add(vv, c_f[:k], out=vv)
        j = int(vv.argmin())
        best = float(vv[j])
        f[t] = best + pen
        last[t] = c_start[j]
        keep = vv <= best + pen
        kept = int(np.count_nonzero(keep))
        if kept < k:
            for buf in (c_start, c_m, c_f, c_s1, c_s2):
                buf[:kept] = buf[:k][keep]
            k = kept
    return _backtrack(last, n)


class _NotPeltAlive(Exception):
    """The screened search's optimum is a candidate PELT had already pruned."""


#: Steps per block of the screened search, and the shortest segment whose bound is used.
_BLOCK = 48
_MIN_SCREEN_LEN = 8


def _pelt_screened(
    s1: FloatArray, s2: FloatArray, n: int, pen: float, min_size: int, floor: float
) -> list[int]:
    """The same result as :func:`_pelt_reference`, with far fewer cost evaluations on
    series whose changes are few (research §5.1: PELT's pruning keeps every candidate
    inside a long homogeneous stretch, so it costs O(n²) on warm-up series).

    Every ``_BLOCK`` steps all candidates are evaluated exactly (and pruned exactly as
    PELT prunes at that step). Within the block, a candidate is skipped at step t when a
    lower bound of ``F[s] + C(s, t)`` from its value ``V0`` at the block start already
    exceeds an upper bound of the step's optimum (the exact value, at t, of the block
    start's best candidate). The bounds, for a candidate whose segment ``[s, t0)`` has m
    points and MLE variance v ≥ the floor, with j = t − t0 new points:

    - ``C(s, t) ≥ C(s, t0) + C(t0, t)`` (splitting never raises the Gaussian −2 log L;
      C without the floor on the right);
    - ``(m + j)·log v' ≥ m log v + j log v + (m + j)·log(m/(m + j))`` since the sum of
      squares about the mean cannot shrink as points are added, and
      ``(m + j)·log(m/(m + j)) ≥ −j − j²/m``.

    Candidates too short or with a variance far below the block best's are never
    skipped. The argmin is exact over a superset of PELT's candidates; when it changes,
    the new argmin is checked to be one PELT still holds (never pruned before t); if
    not — possible only where the variance floor or the minimum segment length breaks
    the pruning theorem — the whole series falls back to the reference loop.
    """
    f = np.full(n + 1, np.inf)
    f[0] = 0.0
    last = np.zeros(n + 1, dtype=np.int64)
    pool = np.zeros(1, dtype=np.int64)  # candidate starts, increasing
    buf_start = np.zeros(n + 1, dtype=np.int64)
    buf_m = np.zeros(n + 1)
    buf_f = np.zeros(n + 1)
    buf_s1 = np.zeros(n + 1)
    buf_s2 = np.zeros(n + 1)
    mm_buf = np.empty(n + 1)
    aa_buf = np.empty(n + 1)
    vv_buf = np.empty(n + 1)
    prev_arg = -1

    def check_alive(s: int, t: int) -> None:
        # PELT keeps s at step u iff F[s] + C(s, u) <= F[u]; s entered at s + min_size
        first = max(s + min_size, min_size)
        if first >= t:
            return
        ends = np.arange(first, t, dtype=np.int64)
        vals = _values(f, s1, s2, np.full(ends.size, s, dtype=np.int64), ends, floor)
        if not np.all(vals <= f[ends]):
            raise _NotPeltAlive

    added: list[int] = []  # candidates admitted inside the current block
    t = min_size
    while t <= n:
        t0 = t
        new = t0 - min_size
        if new >= min_size:
            added.append(new)
        if added:
            pool = np.concatenate((pool, np.asarray(added, dtype=np.int64)))
            added = []
        vals = _values(f, s1, s2, pool, t0, floor)
        j = int(np.argmin(vals))
        best = float(vals[j])
        f[t0] = best + pen
        last[t0] = pool[j]
        if int(pool[j]) != prev_arg:
            check_alive(int(pool[j]), t0)
            prev_arg = int(pool[j])
        keep = vals <= best + pen
        pool, vals = pool[keep], vals[keep]
        end = min(n, t0 + _BLOCK - 1)
        if end <= t0:
            break
        # -- screen the pool for steps t0+1 .. end
        s_best = prev_arg
        steps = np.arange(t0 + 1, end + 1, dtype=np.int64)
        ub = _values(f, s1, s2, np.full(steps.size, s_best, dtype=np.int64), steps, floor)
        m0 = (t0 - pool).astype(np.float64)
        a0 = s1[t0] - s1[pool]
        v0 = (s2[t0] - s2[pool] - a0 * a0 / m0) / m0
        with np.errstate(divide="ignore", invalid="ignore"):
            lv = np.log(v0)
            jj = (steps - t0).astype(np.float64)
            at = s1[steps] - s1[t0]
            vt = (s2[steps] - s2[t0] - at * at / jj) / jj
            c_true = jj * np.log(np.maximum(vt, 0.0))  # −inf for a zero-variance stretch
        lv_best = float(lv[np.searchsorted(pool, s_best)]) if s_best in pool else -np.inf
        l_min = lv_best - 3.0
        bound = np.maximum(c_true, jj * (l_min - 1.0) - jj * jj / _MIN_SCREEN_LEN)
        with np.errstate(invalid="ignore"):
            threshold = float(np.max(ub - bound))
        margin = 1e-9 * (abs(threshold) + float(np.max(np.abs(vals))) + 1.0)
        screenable = (m0 >= _MIN_SCREEN_LEN) & (v0 >= floor) & (lv >= l_min) & np.isfinite(lv)
        active = pool[~screenable | ~(vals > threshold + margin)]
        # fixed views for the whole block: the active candidates, then one slot per
        # candidate admitted in the block; empty slots have F = inf and never win
        k = active.size
        cap = k + (end - t0)
        c_start, c_m, c_f = buf_start[:cap], buf_m[:cap], buf_f[:cap]
        c_s1, c_s2 = buf_s1[:cap], buf_s2[:cap]
        c_start[:k] = active
        c_m[:k] = active
        c_f[:k] = f[active]
        c_s1[:k] = s1[active]
        c_s2[:k] = s2[active]
        c_m[k:] = -1.0
        c_f[k:] = np.inf
        c_s1[k:] = 0.0
        c_s2[k:] = 0.0
        mm, aa, vv = mm_buf[:cap], aa_buf[:cap], vv_buf[:cap]
        for t in range(t0 + 1, end + 1):
            new = t - min_size
            if new >= min_size:
                c_start[k] = new
                c_m[k] = new
                c_f[k] = f[new]
                c_s1[k] = s1[new]
                c_s2[k] = s2[new]
                k += 1
                added.append(new)
            np.subtract(float(t), c_m, out=mm)
            np.subtract(s1[t], c_s1, out=aa)
            np.subtract(s2[t], c_s2, out=vv)
            np.multiply(aa, aa, out=aa)
            np.divide(aa, mm, out=aa)
            np.subtract(vv, aa, out=vv)
            np.divide(vv, mm, out=vv)
            np.maximum(vv, floor, out=vv)
            np.log(vv, out=vv)
            np.multiply(vv, mm, out=vv)
            np.add(vv, c_f, out=vv)
            j = int(vv.argmin())
            f[t] = float(vv[j]) + pen
            arg = int(c_start[j])
            last[t] = arg
            if arg != prev_arg:
                check_alive(arg, t)
                prev_arg = arg
        t = end + 1
    return _backtrack(last, n)


def _pelt_core(
    s1: FloatArray, s2: FloatArray, n: int, pen: float, min_size: int, floor: float
) -> list[int]:
    """PELT change points of the median-scaled series (see :func:`_pelt_screened`)."""
    try:
        return _pelt_screened(s1, s2, n, pen, min_size, floor)
    except _NotPeltAlive:
        return _pelt_reference(s1, s2, n, pen, min_size, floor)


def segments_of(
    values: npt.ArrayLike, changepoints: tuple[int, ...] | list[int]
) -> tuple[Segment, ...]:
    """Per-segment statistics (start, end, n, mean, unbiased variance, median)."""
    x = np.asarray(values, dtype=np.float64).ravel()
    bounds = [0, *changepoints, x.size]
    out = []
    for a, b in itertools.pairwise(bounds):
        seg = x[a:b]
        var = float(np.var(seg, ddof=1)) if seg.size > 1 else 0.0
        out.append(Segment(a, b, int(seg.size), float(seg.mean()), var, float(np.median(seg))))
    return tuple(out)


def pelt(
    values: npt.ArrayLike,
    *,
    penalty: float | str = "barrett",
    min_size: int = 2,
    variance_floor: float = 1e-11,
) -> Segmentation:
    """Optimal segmentation of ``values`` under the normal mean + variance cost (PELT).

    Cost of a segment of m points: ``m(log 2π + log σ̂² + 1)`` with the MLE variance
    ``σ̂²`` from cumulative sums (O(1) per segment) on the series scaled by its median,
    floored at ``variance_floor`` (R ``mll_meanvar``). Penalty per change point: a number,
    or ``"barrett"`` = 15·ln n (default, Barrett et al. 2017 §4.2), ``"sic"`` = 3·ln n,
    ``"mbic"`` = 4·ln n. ``min_size`` = minimum segment length (R ``minseglen`` = 2).

    Equals ``ruptures.Pelt(model="normal", min_size=2, jump=1,
    params={"add_small_diag": False})`` (tests/test_changepoints.py).
    """
    if min_size < 1:
        raise ValueError("min_size must be ≥ 1")
    x, z = _scaled(values)
    n = int(x.size)
    pen = penalty_value(penalty, n)
    if n < 2 * min_size:
        segs = segments_of(x, []) if n else ()
        cost = _total_cost(z, [], variance_floor) if n else 0.0
        return Segmentation((), segs, pen, cost)
    s1, s2 = _cumsums(z)
    cps = _pelt_core(s1, s2, n, pen, min_size, variance_floor)
    cost = _total_cost(z, cps, variance_floor) + pen * len(cps)
    return Segmentation(tuple(cps), segments_of(x, cps), pen, cost)


def _total_cost(z: FloatArray, cps: list[int], floor: float) -> float:
    """Unpenalised ``Σ m(log 2π + log σ̂² + 1)`` of a segmentation of the scaled series."""
    s1, s2 = _cumsums(z)
    bounds = [0, *cps, z.size]
    total = 0.0
    for a, b in itertools.pairwise(bounds):
        c = _segment_cost(s1, s2, np.array([a], dtype=np.int64), b, floor)
        total += float(c[0]) + (b - a) * _LOG_2PI_PLUS_1
    return total


def kneedle_elbow(x: npt.ArrayLike, y: npt.ArrayLike, *, sensitivity: float = 1.0) -> int | None:
    """Index of the elbow of a convex, decreasing curve (Satopää et al. 2011, offline, as
    ``kneed.KneeLocator(curve="convex", direction="decreasing")`` which Traini et al.
    2023 use).

    Normalise both axes to [0, 1], turn y into ``max − y`` (concave increasing), take the
    difference curve ``d = y − x``; its local maxima and minima compare each point with
    its neighbours (an end point with itself). Walking from the first maximum, each
    maximum sets the threshold ``d_max − S·mean(Δx)``, each minimum resets it to 0; the
    elbow is the last maximum before the first point that falls below the threshold.
    ``None`` when there is none (fewer than 3 points, a flat curve, no drop).
    """
    xa = np.asarray(x, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    if xa.size < 3 or np.ptp(xa) == 0 or np.ptp(ya) == 0:
        return None
    xn = (xa - xa.min()) / np.ptp(xa)
    yn = (ya - ya.min()) / np.ptp(ya)
    yn = yn.max() - yn  # convex decreasing → concave increasing
    diff = yn - xn
    size = diff.size
    left = np.concatenate(([diff[0]], diff[:-1]))
    right = np.concatenate((diff[1:], [diff[-1]]))
    is_max = (diff >= left) & (diff >= right)
    is_min = (diff <= left) & (diff <= right)
    maxima = np.flatnonzero(is_max)
    if maxima.size == 0:
        return None
    step = float(np.mean(np.abs(np.diff(xn))))
    threshold: float | None = None
    at: int | None = None
    for i in range(int(maxima[0]), size - 1):
        if is_max[i]:
            threshold, at = float(diff[i]) - sensitivity * step, i
        if is_min[i]:
            threshold = 0.0
        if threshold is not None and diff[i + 1] < threshold:
            return at
    return None


def crops(
    values: npt.ArrayLike,
    *,
    pen_min: float | None = None,
    pen_max: float | None = None,
    min_size: int = 2,
    fallback: float | str = "barrett",
    sensitivity: float = 1.0,
    max_runs: int = 200,
    variance_floor: float = 1e-11,
) -> CropsResult:
    """Every distinct optimal segmentation for penalties in ``[pen_min, pen_max]`` (CROPS,
    Haynes et al. 2017) and the penalty at the elbow of (penalty, #change points).

    Defaults follow Traini et al. 2023: ``[4·ln n, 1e5·ln n]``, Kneedle with S = 1,
    fallback ``15·ln n``. Each CROPS step runs PELT at the penalty where the two
    neighbouring segmentations' penalised costs are equal. ``variance_floor`` as in
    :func:`pelt`.
    """
    x, z = _scaled(values)
    n = int(x.size)
    lo = pen_min if pen_min is not None else 4.0 * math.log(max(n, 2))
    hi = pen_max if pen_max is not None else 1e5 * math.log(max(n, 2))
    s1, s2 = _cumsums(z)

    def run(pen: float) -> tuple[int, float, list[int]]:
        if n < 2 * min_size:
            return 0, _total_cost(z, [], variance_floor), []
        cps = _pelt_core(s1, s2, n, pen, min_size, variance_floor)
        return len(cps), _total_cost(z, cps, variance_floor), cps

    found: dict[float, tuple[int, float, list[int]]] = {lo: run(lo), hi: run(hi)}
    todo = [(lo, hi)]
    runs = 2
    while todo and runs < max_runs:
        a, b = todo.pop()
        ma, qa, _ = found[a]
        mb, qb, _ = found[b]
        if ma <= mb + 1:
            continue
        mid = (qb - qa) / (ma - mb)
        if not (a < mid < b):
            continue
        found[mid] = run(mid)
        runs += 1
        if found[mid][0] != mb:
            todo.extend([(a, mid), (mid, b)])
    pens = sorted(found)
    path = tuple((p, found[p][0], found[p][1]) for p in pens)
    elbow = kneedle_elbow([p[0] for p in path], [p[1] for p in path], sensitivity=sensitivity)
    if elbow is None:
        chosen = penalty_value(fallback, n)
        seg = pelt(x, penalty=chosen, min_size=min_size, variance_floor=variance_floor)
        return CropsResult(path, chosen, False, seg)
    chosen = path[elbow][0]
    seg = pelt(x, penalty=chosen, min_size=min_size, variance_floor=variance_floor)
    return CropsResult(path, chosen, True, seg)
