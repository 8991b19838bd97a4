"""Cache warm-up from query profiles: remote and local bytes per run, transfer rates, runs
to warm, cache capacity, curve fits and the cache/JIT attribution of time.

Methods: the seed ``seeds/001`` (Snowflake remote/local rates from the TableScan time
breakdown); ``research/profiles.md`` §11.6 (formulas, capacity lower bound, 1-s rule);
``research/warmup-science.md`` §6.2 (step / geometric / power models), §6.3 (regression of
time on remote and local bytes) and §8.13 (AIC choice, t∞, τ, k_ε; Zhang et al. HotCloud
2020 for "warm = enters and stays within ε").

Verdicts follow the data: runs are read in time order (start time where the profile gives
one), "warm from run k" needs later runs that are faster and read more locally, a run that
is slower and reads less locally than the run before is a cold (evicted) run, and capacity
and curve fits need at least 3 runs warming (issue 16 item 5).

Units: bytes, seconds, bytes/s; shares are fractions 0–1. Pure: frames in, dataclasses out.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from toolkit.analyze.findings import Finding, Severity
from toolkit.analyze.resolution import min_effect_s

TB = 1e12  #: the seed's "1 TB" (decimal, like its MB/s and GB/s)

RateBasis = Literal["breakdown", "elapsed"]

#: What the runs of a series show: ``warming`` (later runs faster and more local),
#: ``steady`` (at the final level from run 1), ``evicted`` (a later run slower and less
#: local: the cache went cold again), ``not-settled`` (no final level yet), ``no-warm-up``
#: (settled, but not faster or not more local than run 1), ``single-run``.
Verdict = Literal["warming", "steady", "evicted", "not-settled", "no-warm-up", "single-run"]

#: Resolution of a profile's run times, seconds: every source is stored in whole or
#: fractional ms (``query_runs.elapsed_ms``). A few runs tell nothing of the timer: the
#: smallest step between 2 or 3 run times is their gap, not the resolution.
PROFILE_RESOLUTION_S = 0.001

#: Fewest runs whose warming trend supports a capacity estimate and a curve fit.
MIN_TREND_RUNS = 3


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
    #: remote bytes / summed remote-read time (ClickHouse ReadBufferFromS3Microseconds,
    #: Databricks "Cloud storage request duration"): throughput per reading stream, not the
    #: cluster's bandwidth (profiles.md §11.6 "counter method")
    remote_stream_rate: float | None = None
    #: start time, seconds since the Unix epoch (UTC); None when the profile gives none
    start_epoch_s: float | None = None


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
class EvictedRun:
    """A run slower than the run before it that read less from the local cache: the cache
    was cold again (evicted, restarted or another cluster), not a step of a warm-up.

    Shares are fractions 0–1; ``since_previous_s`` is start to start, seconds (None
    without start times).
    """

    run: int
    previous_run: int
    local_share: float
    previous_local_share: float
    elapsed_s: float
    previous_elapsed_s: float
    since_previous_s: float | None


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
    #: runs numbered by ``start_time`` (every run has one) or by the stored ``run`` order
    ordered_by: Literal["start_time", "run"] = "run"
    verdict: Verdict = "single-run"
    verdict_note: str = ""
    verdict_advice: str = ""  #: what to do, for a ``no-warm-up`` verdict
    #: first run from which the warm metric stays within ε of its final level, whatever
    #: the verdict (``runs_to_warm`` is set only where the runs warm)
    settled_from: int | None = None
    evicted: tuple[EvictedRun, ...] = ()
    fit_note: str = ""

    def to_polars(self) -> pl.DataFrame:
        """The series' runs as a frame: one row per run in run order (elapsed seconds,
        bytes scanned/remote/local, local share, I/O seconds and rates in bytes/s, the
        rate basis, start time in epoch seconds), with the series name."""
        rows = [{"series": self.series, **asdict(r)} for r in self.runs]
        return pl.DataFrame(rows, infer_schema_length=None)


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
    rate likewise (seed; profiles.md §11.6); ``elapsed`` is the execution time
    (``io_time_s``) when the frame has it. A missing ``scan_share`` counts as 1 (the
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
            "io_time_s",
            "bytes_scanned",
            "bytes_remote",
            "bytes_local",
            "scan_share",
            "remote_io_share",
            "local_io_share",
            "remote_read_s",
            "start_epoch_s",
        )
    }
    for i, run in enumerate(runs):
        elapsed = cols["elapsed_s"][i] or 0.0
        # execution time when the source has it (the breakdown shares are of execution)
        io_time = cols["io_time_s"][i] or elapsed
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
            scan_part = io_time * (1.0 if scan is None else scan)
            remote_s = None if rio is None else scan_part * rio
            local_s = None if lio is None else scan_part * lio
        elif share is not None:
            basis = "elapsed"
            if share <= 1 - dominant_tier:
                remote_s = io_time
            elif share >= dominant_tier:
                local_s = io_time
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
        read_s = cols["remote_read_s"][i]
        stream = remote / read_s if remote and read_s and read_s > 0 else None
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
                remote_stream_rate=stream,
                start_epoch_s=cols["start_epoch_s"][i],
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


def time_ordered(frame: pl.DataFrame) -> tuple[pl.DataFrame, Literal["start_time", "run"]]:
    """The runs of one series in time order, renumbered 1..n: by ``start_epoch_s`` when
    every run has one (ties and the rest by ``run``), else by the stored ``run`` (ingest
    order). A profile's run number is the order the files were given, which need not be the
    order the queries ran (the Databricks pair in ``real/profiles``: given cold first, the
    warm run started 72 min earlier)."""
    if (
        frame.height
        and "start_epoch_s" in frame.columns
        and frame.get_column("start_epoch_s").null_count() == 0
    ):
        ordered = frame.sort(["start_epoch_s", "run"])
        return ordered.with_columns(
            pl.int_range(1, ordered.height + 1, dtype=pl.Int64).alias("run")
        ), "start_time"
    return frame.sort("run"), "run"


def evicted_runs(
    runs: Sequence[RunIO], *, epsilon: float, share_step: float, min_effect: float
) -> list[EvictedRun]:
    """Runs slower than the run before (by more than ``epsilon`` relative and
    ``min_effect`` seconds) that read a local share lower by more than ``share_step``
    (fraction 0–1): the cache was cold again, so the run is a cold run, not warm-up."""
    out: list[EvictedRun] = []
    for prev, cur in itertools.pairwise(runs):
        if prev.local_share is None or cur.local_share is None:
            continue
        slower = (
            cur.elapsed_s > prev.elapsed_s * (1 + epsilon)
            and cur.elapsed_s - prev.elapsed_s > min_effect
        )
        if slower and cur.local_share < prev.local_share - share_step:
            since = (
                cur.start_epoch_s - prev.start_epoch_s
                if cur.start_epoch_s is not None and prev.start_epoch_s is not None
                else None
            )
            out.append(
                EvictedRun(
                    cur.run,
                    prev.run,
                    cur.local_share,
                    prev.local_share,
                    cur.elapsed_s,
                    prev.elapsed_s,
                    since,
                )
            )
    return out


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %"


def _evicted_text(e: EvictedRun) -> str:
    when = (
        f"{human_minutes(e.since_previous_s)} after run {e.previous_run} started"
        if e.since_previous_s is not None
        else "since the run before"
    )
    return (
        f"run {e.run} read {_pct(e.local_share)} locally (run {e.previous_run}: "
        f"{_pct(e.previous_local_share)}) and took {human_elapsed(e.elapsed_s)} (run "
        f"{e.previous_run}: {human_elapsed(e.previous_elapsed_s)}): the cache was cold again "
        f"{when}"
    )


def _verdict(
    runs: Sequence[RunIO],
    *,
    settled: int | None,
    evicted: Sequence[EvictedRun],
    has_split: bool,
    epsilon: float,
    share_step: float,
    min_effect: float,
) -> tuple[Verdict, str, str]:
    """What the runs show, one sentence saying why (see :data:`Verdict`) and, for
    ``no-warm-up``, what to do. "Faster" =
    the median time from the settled run on is below run 1's by more than ``epsilon`` and
    ``min_effect`` s; "more local" = its median local share is above run 1's by more than
    ``share_step`` (fraction 0–1)."""
    n = len(runs)
    metric = "local share of bytes" if has_split else "elapsed time"
    if n < 2:
        return "single-run", "one run: nothing to compare", ""
    if evicted:
        return "evicted", "; ".join(_evicted_text(e) for e in evicted), ""
    if settled is None or (n >= MIN_TREND_RUNS and settled >= n):
        return "not-settled", f"the {metric} has not settled within {n} runs", ""
    if settled == 1:
        return "steady", f"the {metric} is at its final level from run 1: nothing warms up", ""
    first, later = runs[0], runs[settled - 1 :]
    t_warm = _median([r.elapsed_s for r in later])
    faster = t_warm < first.elapsed_s * (1 - epsilon) and first.elapsed_s - t_warm > min_effect
    span = f"run {settled} is" if settled == n else f"runs {settled}–{n} are"
    times = f"{human_elapsed(first.elapsed_s)} → {human_elapsed(t_warm)}"
    if has_split:
        share_first = float(first.local_share or 0.0)
        share_warm = _median([float(r.local_share or 0.0) for r in later])
        more_local = share_warm > share_first + share_step
        shares = f"local share {_pct(share_first)} → {_pct(share_warm)}"
    else:
        more_local, shares = True, ""
    if faster and more_local:
        local = f" and read more locally ({shares})" if has_split else ""
        return "warming", f"warm from run {settled}: {span} faster ({times}){local}", ""
    if not faster:
        slower = t_warm > first.elapsed_s
        word = "slower than" if slower else "no faster than"
        local = f"; {shares}" if has_split else ""
        return (
            "no-warm-up",
            f"{span} {word} run 1 ({times}{local}): no warm-up to discard",
            "look for what else changed between the runs (plan, data, load on the system) "
            "before comparing them"
            if slower
            else "report the runs as they are: no cold/warm split is needed",
        )
    return (
        "no-warm-up",
        f"{span} faster ({times}) but read no more locally ({shares}): "
        "the speed-up is not the cache",
        "look for JIT, compilation or the OS page cache",
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
    share_step: float = 0.1,
) -> CacheSeries:
    """Analyse one series (rows = runs; columns ``run, elapsed_s`` and optionally
    ``start_epoch_s, bytes_scanned, bytes_remote, bytes_local, scan_share,
    remote_io_share, local_io_share, result_cache_hit``).

    - Order: :func:`time_ordered` (start time where every run has one); run numbers
      follow it.
    - Rates per run: :func:`run_io`. Series remote rate = the run moving the most remote
      bytes (the seed's "for large data transfers": run 1 on both warehouses); series local
      rate = median of the per-run local rates (robust to a run like the seed's Medium run
      7, 1.6 GB/s against ~5 GB/s in the others).
    - Time per TB = 10^12 / rate.
    - Settled from: :func:`runs_to_warm` on the local share of bytes when the split is
      known, else on elapsed time; ε = 2 % (warmup-science.md §8.13).
    - Verdict (:data:`Verdict`): cold (evicted) runs by :func:`evicted_runs`
      (``share_step`` = 10 share points, the time beyond ε and the timer's minimum effect,
      ``analyze/resolution.py``); ``runs_to_warm`` only for a warming or steady series.
    - Capacity and curve fits only for a warming series of at least
      :data:`MIN_TREND_RUNS` runs. Capacity: the plateau of local bytes = median of the
      last ``plateau_runs`` runs when they lie within ``plateau_spread`` of it
      (profiles.md §11.6); a lower bound of the cache size: the query's cached working
      set; per node = / ``nodes``.
    - Speed-up: cold = the run with the least local share (first run without a split);
      warm = median of the last ``plateau_runs`` other runs.
    """
    frame, ordered_by = time_ordered(frame)
    hits: list[int] = []
    if "result_cache_hit" in frame.columns:
        mask = frame.get_column("result_cache_hit").fill_null(False)
        hits = [int(v) for v in frame.filter(mask).get_column("run").to_list()]
        frame = frame.filter(~mask)
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
        settled = runs_to_warm(
            [float(s) for s in shares if s is not None], epsilon=epsilon, plateau_runs=plateau_runs
        )
    else:
        warm_metric = "elapsed"
        settled = runs_to_warm(elapsed, epsilon=epsilon, plateau_runs=plateau_runs)
    min_effect = min_effect_s(PROFILE_RESOLUTION_S)
    evicted = evicted_runs(runs, epsilon=epsilon, share_step=share_step, min_effect=min_effect)
    verdict, verdict_note, verdict_advice = _verdict(
        runs,
        settled=settled,
        evicted=evicted,
        has_split=has_split,
        epsilon=epsilon,
        share_step=share_step,
        min_effect=min_effect,
    )
    to_warm = settled if verdict in ("warming", "steady") else None
    trend = verdict == "warming" and n >= MIN_TREND_RUNS
    why_not = (
        f"run {evicted[0].run} was a cold (evicted) run"
        if evicted
        else f"needs at least {MIN_TREND_RUNS} runs warming in time order, the series has {n}"
        if verdict == "warming"
        else verdict_note
    )

    local_bytes = [r.bytes_local for r in runs if r.bytes_local is not None]
    plateau = capacity = None
    note = "no local-byte counts: capacity unknown"
    if len(local_bytes) >= 2 and not trend:
        note = f"capacity not estimated: {why_not}"
    elif len(local_bytes) >= 2:
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

    fits = fit_curves(elapsed, epsilon=fits_epsilon) if trend else ()
    fit_note = "" if fits else f"no warm-up curve fitted: {why_not}" if n >= 2 else ""
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
        ordered_by=ordered_by,
        verdict=verdict,
        verdict_note=verdict_note,
        verdict_advice=verdict_advice,
        settled_from=settled,
        evicted=tuple(evicted),
        fit_note=fit_note,
    )


#: Speed-up from which a warm-up is a warning (report cold and warm apart), not a note.
WARMUP_WARNING_SPEEDUP = 1.1


def cache_findings(s: CacheSeries, *, jit_trend: float = -0.7) -> list[Finding]:
    """The cache rules for one series, each with a stable ``rule`` id and
    ``numbers["effect"]`` (for :func:`toolkit.analyze.findings.rank_findings`):

    - ``cache.result-cache`` (problem): runs served from the result cache (profiles.md
      §11.6); effect = their share of the runs.
    - ``cache.evicted`` (warning): a run slower and less local than the one before, with
      the time since it when known; effect = seconds it took longer.
    - ``cache-warmup``: warm from run k, later runs faster and more local (warning from a
      1.1x speed-up, else info); effect = seconds the runs before k took beyond the warm
      level (Zhang et al. HotCloud 2020, warmup-science.md §8.13).
    - ``cache.not-warm`` (warning): no final level within the runs; effect = relative
      range of the last 3 times.
    - ``cache.no-warm-up`` (info): the runs settle but are not faster, or not more local,
      than run 1; effect = relative change of the time from run 1.
    - ``cache.jit`` (warning): time falls with the run after the bytes are accounted for
      (warmup-science.md §6.3); effect = |Spearman ρ|.
    """
    found: list[Finding] = []
    n = len(s.runs)
    if s.excluded_runs:
        runs = ", ".join(str(r) for r in s.excluded_runs)
        found.append(
            Finding(
                "cache.result-cache",
                "problem",
                s.series,
                f"run {runs} came from the result cache and measured no query work",
                "disable the result cache for benchmark sessions "
                "(Snowflake: ALTER SESSION SET USE_CACHED_RESULT = FALSE)",
                {
                    "excluded_runs": len(s.excluded_runs),
                    "effect": len(s.excluded_runs) / (len(s.excluded_runs) + n),
                },
            )
        )
    for e in s.evicted:
        found.append(
            Finding(
                "cache.evicted",
                "warning",
                s.series,
                _evicted_text(e),
                f"run {e.run} is a cold run, not part of a warm-up: report cold and warm runs "
                "separately, and run the warm repetitions back to back",
                {
                    "run": e.run,
                    "local_share": e.local_share,
                    "previous_local_share": e.previous_local_share,
                    "elapsed_s": e.elapsed_s,
                    "previous_elapsed_s": e.previous_elapsed_s,
                    "since_previous_s": e.since_previous_s,
                    "effect": e.elapsed_s - e.previous_elapsed_s,
                },
            )
        )
    if s.verdict == "warming" and s.runs_to_warm is not None and s.warm_s is not None:
        k = s.runs_to_warm
        severity: Severity = (
            "warning" if s.speedup is not None and s.speedup >= WARMUP_WARNING_SPEEDUP else "info"
        )
        rates = ""
        if s.remote_rate and s.local_rate:
            rates = (
                f"; remote reads run at {human_rate(s.remote_rate)}, local at "
                f"{human_rate(s.local_rate)} ({s.local_rate / s.remote_rate:.0f}x)"
            )
        speed = (
            f" ({human_elapsed(s.cold_s)} cold, {human_elapsed(s.warm_s)} warm, {s.speedup:.1f}x)"
            if s.speedup is not None
            else ""
        )
        found.append(
            Finding(
                "cache-warmup",
                severity,
                s.series,
                f"the cache is warm from run {k}{speed}{rates}",
                "report cold and warm separately, or discard "
                + (f"the first {k - 1} runs" if k > 2 else "run 1")
                + " before measuring",
                {
                    "runs_to_warm": k,
                    "cold_s": s.cold_s,
                    "warm_s": s.warm_s,
                    "remote_rate": s.remote_rate,
                    "local_rate": s.local_rate,
                    "effect": sum(max(r.elapsed_s - s.warm_s, 0.0) for r in s.runs[: k - 1]),
                },
            )
        )
    if s.verdict == "not-settled" and n >= MIN_TREND_RUNS:
        last = [r.elapsed_s for r in s.runs[-MIN_TREND_RUNS:]]
        level = _median(last)
        found.append(
            Finding(
                "cache.not-warm",
                "warning",
                s.series,
                s.verdict_note,
                "run the query more times before reading hot numbers",
                {
                    "runs": n,
                    "effect": (max(last) - min(last)) / level if level > 0 else 0.0,
                },
            )
        )
    if s.verdict == "no-warm-up":
        t1, later = s.runs[0].elapsed_s, s.runs[-1].elapsed_s
        found.append(
            Finding(
                "cache.no-warm-up",
                "info",
                s.series,
                s.verdict_note,
                s.verdict_advice,
                {"runs": n, "effect": (later - t1) / t1 if t1 > 0 else 0.0},
            )
        )
    att = s.attribution
    if att is not None and att.residual_trend is not None and att.residual_trend <= jit_trend:
        found.append(
            Finding(
                "cache.jit",
                "warning",
                s.series,
                "time keeps falling with the run after remote and local bytes are accounted for "
                f"(Spearman ρ {att.residual_trend:.2f})",
                "look for JIT or compilation warm-up besides the cache",
                {"residual_trend": att.residual_trend, "effect": abs(att.residual_trend)},
            )
        )
    return found


def iso_time(epoch_s: float | None) -> str | None:
    """Seconds since the Unix epoch as an ISO-8601 UTC time, None for None."""
    if epoch_s is None:
        return None
    return datetime.fromtimestamp(epoch_s, UTC).isoformat()


# -- units as the seed prints them (decimal: 1 GB = 10^9 bytes, profiles.md §0 item 7) ------


def human_bytes(value: float | None) -> str:
    """``121700000000`` → ``121.7 GB``; ``269900000`` → ``269.9 MB`` (decimal units)."""
    if value is None:
        return ""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(value) >= size:
            return f"{value / size:.1f} {unit}"
    return f"{value:.0f} B"


def human_rate(bytes_per_s: float | None) -> str:
    """``264.7e6`` → ``264.7 MB/s``; ``5.18e9`` → ``5.2 GB/s`` (decimal, like the seed)."""
    if bytes_per_s is None:
        return ""
    if bytes_per_s >= 1e9:
        return f"{bytes_per_s / 1e9:.1f} GB/s"
    if bytes_per_s >= 1e6:
        return f"{bytes_per_s / 1e6:.1f} MB/s"
    return f"{bytes_per_s / 1e3:.1f} kB/s"


def human_elapsed(seconds: float | None) -> str:
    """Execution time as the seed's profile prints it: ``33.5s``, ``7m 48s``, ``31m``."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f}s" if seconds != int(seconds) else f"{int(seconds)}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes >= 60:
        hours, minutes = divmod(minutes, 60)
        return f"{hours}h {minutes}m {secs}s" if secs else f"{hours}h {minutes}m"
    return f"{minutes}m {secs}s" if secs else f"{minutes}m"


def human_minutes(seconds: float | None) -> str:
    """A long duration to the nearest minute, in minutes below two hours: ``63 min``,
    ``4 h 11 min`` (the seed writes "63 minutes" and "4 hours 10 minutes" for 62.9 and
    250.6 min)."""
    if seconds is None:
        return ""
    total = round(seconds / 60)
    if total < 120:
        return f"{total} min"
    hours, minutes = divmod(total, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
