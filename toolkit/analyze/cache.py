"""Cache warm-up from query profiles: remote and local bytes per run, transfer rates, runs
to warm, cache capacity, curve fits and the cache/JIT attribution of time.

Methods: the seed ``seeds/001`` (Snowflake remote/local rates from the TableScan time
breakdown); ``research/profiles.md`` §11.6 (formulas, capacity lower bound, 1-s rule);
``research/warmup-science.md`` §6.2 (step / geometric / power models), §6.3 (regression of
time on remote and local bytes) and §8.13 (AIC choice, t∞, τ, k_ε; Zhang et al. HotCloud
2020 for "warm = enters and stays within ε").

Units: bytes, seconds, bytes/s; shares are fractions 0–1. Pure: frames in, dataclasses out.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
import polars as pl

TB = 1e12  #: the seed's "1 TB" (decimal, like its MB/s and GB/s)

RateBasis = Literal["breakdown", "elapsed"]


@dataclass(frozen=True)
class RunIO:
    """One run of a series with its tier bytes and transfer rates (bytes/s).

    ``remote_rate``/``local_rate`` are None when the time spent on that tier is under
    ``min_io_s`` (too short to measure, ``profiles.md`` §11.6) or cannot be assigned.
    ``rate_basis`` says how the time was obtained: ``breakdown`` = elapsed × scan share ×
    I/O share (seed); ``elapsed`` = the fallback, whole elapsed time of a run whose bytes
    are (≥ ``dominant_tier``) one tier — a lower bound of that tier's rate.
    """

    run: int
    elapsed_s: float
    bytes_scanned: int | None
    bytes_remote: int | None
    bytes_local: int | None
    local_share: float | None  #: bytes local / (remote + local)
    remote_io_s: float | None
    local_io_s: float | None
    remote_rate: float | None
    local_rate: float | None
    rate_basis: RateBasis | None


@dataclass(frozen=True)
class CurveFit:
    """A warm-up model fitted to elapsed time per run (warmup-science.md §6.2, §8.13).

    ``model`` is ``step`` (t1, then t∞), ``geometric`` (t∞ + A·q^(k−1), τ = −1/ln q) or
    ``power`` (t∞ + A·k^(−β)). ``aic`` = n·ln(RSS/n) + 2p. ``k_eps`` is the first run
    from which the fitted curve stays within ε of t∞.
    """

    model: Literal["step", "geometric", "power"]
    t_inf_s: float
    amplitude_s: float
    q: float | None
    tau_runs: float | None
    beta: float | None
    aic: float
    rss: float
    k_eps: int | None


@dataclass(frozen=True)
class Attribution:
    """Time attributed to remote bytes, local bytes and the rest by least squares
    ``t_k = a + b·remote_k + c·local_k`` with a, b, c ≥ 0 (warmup-science.md §6.3, §8.13).

    ``remote_s``/``local_s``/``rest_s`` are per run. ``residual_trend`` is the Spearman
    correlation of the residual with the run number: strongly negative means time still
    falls after the bytes are accounted for (a JIT/compilation effect, not the cache).
    """

    intercept_s: float
    s_per_remote_byte: float
    s_per_local_byte: float
    remote_s: tuple[float, ...]
    local_s: tuple[float, ...]
    rest_s: tuple[float, ...]
    r_squared: float
    residual_trend: float | None


@dataclass(frozen=True)
class CacheSeries:
    """The cache analysis of one series (one query on one warehouse, one cache epoch)."""

    series: str
    nodes: int | None
    runs: tuple[RunIO, ...]
    excluded_runs: tuple[int, ...]  #: result-cache hits, not part of the warm-up
    remote_rate: float | None  #: bulk rate: run with the most remote bytes (seed)
    remote_rate_run: int | None
    local_rate: float | None  #: median of the per-run local rates
    local_remote_ratio: float | None
    remote_time_per_tb_s: float | None
    local_time_per_tb_s: float | None
    scanned_first: int | None
    scanned_last: int | None
    compaction: float | None  #: bytes scanned, first run / last run
    runs_to_warm: int | None
    warm_metric: Literal["local_share", "elapsed"]
    local_plateau_bytes: int | None
    capacity_bytes: int | None
    capacity_per_node_bytes: float | None
    capacity_note: str
    cold_s: float | None
    warm_s: float | None
    speedup: float | None
    fit: CurveFit | None
    fits: tuple[CurveFit, ...]
    attribution: Attribution | None


def _col(frame: pl.DataFrame, name: str) -> list[float | None]:
    if name not in frame.columns:
        return [None] * frame.height
    return [None if v is None else float(v) for v in frame.get_column(name).to_list()]


def _median(values: Sequence[float]) -> float:
    return float(np.median(np.asarray(values, dtype=np.float64)))


def run_io(
    frame: pl.DataFrame, *, min_io_s: float = 1.0, dominant_tier: float = 0.9
) -> list[RunIO]:
    """Per-run tier bytes and rates of one series, in run order.

    ``remote_rate = bytes_remote / (elapsed × scan_share × remote_io_share)`` and the local
    rate likewise (seed; profiles.md §11.6). A missing ``scan_share`` counts as 1 (the
    whole query is the scan). Without I/O shares the fallback is ``bytes / elapsed`` for a
    run whose bytes are at least ``dominant_tier`` in one tier (a lower bound, basis
    ``elapsed``). A rate whose I/O time is under ``min_io_s`` seconds is not reported.
    """
    out: list[RunIO] = []
    runs = [int(v) for v in frame.get_column("run").to_list()]
    cols = {
        name: _col(frame, name)
        for name in (
            "elapsed_s",
            "bytes_scanned",
            "bytes_remote",
            "bytes_local",
            "scan_share",
            "remote_io_share",
            "local_io_share",
        )
    }
    for i, run in enumerate(runs):
        elapsed = cols["elapsed_s"][i] or 0.0
        scanned, remote, local = (
            cols[c][i] for c in ("bytes_scanned", "bytes_remote", "bytes_local")
        )
        scan = cols["scan_share"][i]
        rio, lio = cols["remote_io_share"][i], cols["local_io_share"][i]
        share = None
        if remote is not None and local is not None and remote + local > 0:
            share = local / (remote + local)
        remote_s = local_s = None
        basis: RateBasis | None = None
        if rio is not None or lio is not None:
            basis = "breakdown"
            scan_part = elapsed * (1.0 if scan is None else scan)
            remote_s = None if rio is None else scan_part * rio
            local_s = None if lio is None else scan_part * lio
        elif share is not None:
            basis = "elapsed"
            if share <= 1 - dominant_tier:
                remote_s = elapsed
            elif share >= dominant_tier:
                local_s = elapsed
        remote_rate = (
            remote / remote_s
            if remote is not None and remote > 0 and remote_s is not None and remote_s >= min_io_s
            else None
        )
        local_rate = (
            local / local_s
            if local is not None and local > 0 and local_s is not None and local_s >= min_io_s
            else None
        )
        out.append(
            RunIO(
                run=run,
                elapsed_s=elapsed,
                bytes_scanned=None if scanned is None else round(scanned),
                bytes_remote=None if remote is None else round(remote),
                bytes_local=None if local is None else round(local),
                local_share=share,
                remote_io_s=remote_s,
                local_io_s=local_s,
                remote_rate=remote_rate,
                local_rate=local_rate,
                rate_basis=basis if (remote_rate or local_rate) else None,
            )
        )
    return out


def runs_to_warm(values: Sequence[float], *, epsilon: float, plateau_runs: int = 3) -> int | None:
    """First run (1-based) from which every value stays within ``epsilon`` (relative) of
    the final level, the median of the last ``plateau_runs`` values (of at most n − 1) (Zhang et al. HotCloud
    2020: warm = enters and stays within ε; warmup-science.md §6.2 item 6, §8.13).

    None when there are fewer than 2 values, the final level is 0, or the last value is
    itself off the final level (no steady level: a result, not an error).
    """
    if len(values) < 2:
        return None
    # the final level leaves out run 1 when the series is short (2-3 runs)
    final = _median(values[-min(plateau_runs, len(values) - 1) :])
    if final == 0:
        return None
    warm: int | None = None
    for k in range(len(values) - 1, -1, -1):
        if abs(values[k] - final) <= epsilon * abs(final):
            warm = k + 1
        else:
            break
    return warm


def _aic(rss: float, n: int, p: int) -> float:
    # guard an exact fit: RSS 0 would give −inf
    return n * math.log(max(rss, 1e-12) / n) + 2 * p


def _k_eps(curve: npt.NDArray[np.float64], t_inf: float, epsilon: float) -> int | None:
    within = np.abs(curve - t_inf) <= epsilon * abs(t_inf)
    if not within[-1]:
        return None
    k = len(curve)
    while k > 0 and within[k - 1]:
        k -= 1
    return k + 1


def fit_curves(
    elapsed_s: Sequence[float],
    *,
    epsilon: float = 0.02,
    min_runs: tuple[int, int, int] = (2, 4, 5),
) -> tuple[CurveFit, ...]:
    """Fit step, geometric and power warm-up models to elapsed time per run, best AIC
    first (warmup-science.md §8.13: ε = 2 %, minimum runs step 2, geometric 4, power 5).

    The fitted curves are extended to twice the runs (at least 10) to find k_ε, so a
    curve still falling at the last run gets a k_ε past it.
    """
    from scipy.optimize import curve_fit

    t = np.asarray(elapsed_s, dtype=np.float64)
    n = len(t)
    k = np.arange(1, n + 1, dtype=np.float64)
    horizon = np.arange(1, max(2 * n, 10) + 1, dtype=np.float64)
    fits: list[CurveFit] = []
    if n >= min_runs[0]:
        hot = float(np.mean(t[1:]))
        rss = float(np.sum((t[1:] - hot) ** 2))
        curve = np.where(horizon == 1, t[0], hot)
        fits.append(
            CurveFit(
                "step",
                hot,
                float(t[0] - hot),
                None,
                0.0,
                None,
                _aic(rss, n, 2),
                rss,
                _k_eps(curve, hot, epsilon),
            )
        )
    scale = float(np.max(t)) or 1.0
    y = t / scale

    def geometric(
        x: npt.NDArray[np.float64], t_inf: float, a: float, q: float
    ) -> npt.NDArray[np.float64]:
        return t_inf + a * np.power(q, x - 1)

    def power(
        x: npt.NDArray[np.float64], t_inf: float, a: float, beta: float
    ) -> npt.NDArray[np.float64]:
        return t_inf + a * np.power(x, -beta)

    lo_t = float(np.min(y))
    for name, func, p0, bounds, need in (
        (
            "geometric",
            geometric,
            (lo_t, y[0] - lo_t, 0.5),
            ([0.0, -np.inf, 1e-6], [np.inf, np.inf, 1 - 1e-6]),
            min_runs[1],
        ),
        (
            "power",
            power,
            (lo_t * 0.9, y[0] - lo_t, 1.0),
            ([0.0, -np.inf, 1e-3], [np.inf, np.inf, 20.0]),
            min_runs[2],
        ),
    ):
        if n < need:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                params, _ = curve_fit(func, k, y, p0=p0, bounds=bounds, maxfev=20000)
        except (RuntimeError, ValueError):
            continue
        t_inf, amp, shape = (float(v) for v in params)
        rss = float(np.sum((func(k, t_inf, amp, shape) - y) ** 2)) * scale**2
        curve = func(horizon, t_inf, amp, shape) * scale
        fits.append(
            CurveFit(
                name,  # type: ignore[arg-type]
                t_inf * scale,
                amp * scale,
                shape if name == "geometric" else None,
                (-1.0 / math.log(shape)) if name == "geometric" and 0 < shape < 1 else None,
                shape if name == "power" else None,
                _aic(rss, n, 3),
                rss,
                _k_eps(curve, t_inf * scale, epsilon),
            )
        )
    return tuple(sorted(fits, key=lambda f: f.aic))


def attribute_time(
    elapsed_s: Sequence[float],
    bytes_remote: Sequence[float],
    bytes_local: Sequence[float],
    *,
    min_runs: int = 5,
) -> Attribution | None:
    """Split each run's time into remote bytes, local bytes and the rest by non-negative
    least squares ``t = a + b·remote + c·local`` (warmup-science.md §6.3, §8.13 linear I/O
    model). Needs ``min_runs`` runs (2 degrees of freedom left) and bytes that vary;
    otherwise None.
    """
    from scipy.optimize import nnls
    from scipy.stats import spearmanr

    t = np.asarray(elapsed_s, dtype=np.float64)
    r = np.asarray(bytes_remote, dtype=np.float64)
    loc = np.asarray(bytes_local, dtype=np.float64)
    n = len(t)
    if n < min_runs or np.ptp(r) == 0:
        return None
    # scale columns to GB so NNLS is well conditioned
    design = np.column_stack([np.ones(n), r / 1e9, loc / 1e9])
    if np.linalg.matrix_rank(design) < 3:
        design = design[:, :2]
    coef, _ = nnls(design, t)
    a = float(coef[0])
    b = float(coef[1]) / 1e9
    c = float(coef[2]) / 1e9 if design.shape[1] == 3 else 0.0
    fitted = a + b * r + c * loc
    resid = t - fitted
    total = float(np.sum((t - t.mean()) ** 2))
    r2 = 1.0 - float(np.sum(resid**2)) / total if total > 0 else 0.0
    trend = None
    if np.ptp(resid) > 0:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rho = spearmanr(np.arange(n), resid).statistic
        trend = None if rho != rho else float(rho)
    return Attribution(
        intercept_s=a,
        s_per_remote_byte=b,
        s_per_local_byte=c,
        remote_s=tuple(float(v) for v in b * r),
        local_s=tuple(float(v) for v in c * loc),
        rest_s=tuple(float(v) for v in t - b * r - c * loc),
        r_squared=r2,
        residual_trend=trend,
    )


def cache_series(
    frame: pl.DataFrame,
    *,
    series: str,
    nodes: int | None = None,
    epsilon: float = 0.02,
    plateau_runs: int = 3,
    plateau_spread: float = 0.05,
    min_io_s: float = 1.0,
    fits_epsilon: float = 0.02,
) -> CacheSeries:
    """Analyse one series (rows = runs; columns ``run, elapsed_s`` and optionally
    ``bytes_scanned, bytes_remote, bytes_local, scan_share, remote_io_share,
    local_io_share, result_cache_hit``).

    - Rates per run: :func:`run_io`. Series remote rate = the run moving the most remote
      bytes (the seed's "for large data transfers": run 1 on both warehouses); series local
      rate = median of the per-run local rates (robust to a run like the seed's Medium run
      7, 1.6 GB/s against ~5 GB/s in the others).
    - Time per TB = 10^12 / rate.
    - Runs to warm: :func:`runs_to_warm` on the local share of bytes when the split is
      known, else on elapsed time; ε = 2 % (warmup-science.md §8.13).
    - Capacity: the plateau of local bytes = median of the last ``plateau_runs`` runs when
      they lie within ``plateau_spread`` of it (profiles.md §11.6). It is a lower bound of
      the cache size: the query's cached working set; per node = / ``nodes``.
    - Speed-up: cold = the run with the least local share (first run without a split);
      warm = median of the last ``plateau_runs`` other runs.
    """
    hits: list[int] = []
    if "result_cache_hit" in frame.columns:
        mask = frame.get_column("result_cache_hit").fill_null(False)
        hits = [int(v) for v in frame.filter(mask).get_column("run").to_list()]
        frame = frame.filter(~mask)
    frame = frame.sort("run")
    runs = run_io(frame, min_io_s=min_io_s)
    n = len(runs)
    elapsed = [r.elapsed_s for r in runs]

    remote_candidates = [r for r in runs if r.remote_rate is not None and r.bytes_remote]
    bulk = max(remote_candidates, key=lambda r: (r.bytes_remote or 0, -r.run), default=None)
    remote_rate = bulk.remote_rate if bulk else None
    local_rates = [r.local_rate for r in runs if r.local_rate is not None]
    local_rate = _median(local_rates) if local_rates else None
    ratio = local_rate / remote_rate if local_rate and remote_rate else None

    scanned = [r.bytes_scanned for r in runs]
    first = scanned[0] if scanned and scanned[0] is not None else None
    last = scanned[-1] if scanned and scanned[-1] is not None else None
    compaction = first / last if first and last else None

    shares = [r.local_share for r in runs]
    has_split = n > 0 and all(s is not None for s in shares)
    if has_split:
        warm_metric: Literal["local_share", "elapsed"] = "local_share"
        to_warm = runs_to_warm(
            [float(s) for s in shares if s is not None], epsilon=epsilon, plateau_runs=plateau_runs
        )
    else:
        warm_metric = "elapsed"
        to_warm = runs_to_warm(elapsed, epsilon=epsilon, plateau_runs=plateau_runs)

    local_bytes = [r.bytes_local for r in runs if r.bytes_local is not None]
    plateau = capacity = None
    note = "no local-byte counts: capacity unknown"
    if len(local_bytes) >= 2:
        # as for runs to warm: a short series' plateau leaves out run 1
        tail = local_bytes[-min(plateau_runs, len(local_bytes) - 1) :]
        level = _median(tail)
        if level > 0 and max(abs(v - level) for v in tail) <= plateau_spread * level:
            plateau = round(level)
            capacity = plateau
            last_run = runs[-1]
            still_remote = last_run.local_share is not None and last_run.local_share < 1 - epsilon
            note = (
                "a lower bound: part of the data is still read remotely at the plateau, so "
                "the cache is full near this size or the engine chose not to cache the rest"
                if still_remote
                else "a lower bound: the working set fits, the cache may be larger"
            )
        else:
            note = "local bytes have not reached a plateau: run more times to estimate capacity"
    per_node = capacity / nodes if capacity is not None and nodes else None

    cold_s = warm_s = speedup = None
    if n >= 2:
        cold_i = min(range(n), key=lambda i: (shares[i] or 0.0, i)) if has_split else 0
        others = [elapsed[i] for i in range(n) if i != cold_i]
        cold_s = elapsed[cold_i]
        warm_s = _median(others[-plateau_runs:])
        speedup = cold_s / warm_s if warm_s > 0 else None

    fits = fit_curves(elapsed, epsilon=fits_epsilon) if n >= 2 else ()
    attribution = None
    if has_split:
        attribution = attribute_time(
            elapsed,
            [float(r.bytes_remote or 0) for r in runs],
            [float(r.bytes_local or 0) for r in runs],
        )
    return CacheSeries(
        series=series,
        nodes=nodes,
        runs=tuple(runs),
        excluded_runs=tuple(hits),
        remote_rate=remote_rate,
        remote_rate_run=bulk.run if bulk else None,
        local_rate=local_rate,
        local_remote_ratio=ratio,
        remote_time_per_tb_s=TB / remote_rate if remote_rate else None,
        local_time_per_tb_s=TB / local_rate if local_rate else None,
        scanned_first=first,
        scanned_last=last,
        compaction=compaction,
        runs_to_warm=to_warm,
        warm_metric=warm_metric,
        local_plateau_bytes=plateau,
        capacity_bytes=capacity,
        capacity_per_node_bytes=per_node,
        capacity_note=note,
        cold_s=cold_s,
        warm_s=warm_s,
        speedup=speedup,
        fit=fits[0] if fits else None,
        fits=fits,
        attribution=attribution,
    )
