"""Every finding about iteration results (ClickBench-style runs per query), in one place.

``warmup gaps``, ``warmup detect`` and the report call :func:`iteration_findings`, so
they say the same thing. The findings answer one question coherently — how far off is
the benchmark's window, and how many runs does it need — with ONE ``window-error``
finding per suite: the window's error against the warm-up engine's steady state (the
short-window error grid's cell skip 1, min of ``window``; research/warmup-science.md
§7, §8.12), decomposed as ``mean error = transient part + order-statistic part``, the
numbers ``warmup gaps --grid`` prints. No other finding restates that error with another
figure; the min-all gap table (seed 002) stays a table.

Rules (stable ids; ``numbers["effect"]`` ranks within a severity,
:func:`toolkit.analyze.findings.rank_findings`):

- ``window-error``: the window's mean error, its parts, the hot-run count k that brings
  it within the target; severity from the total (info within the target, warning up to
  4× it, problem beyond). Effect: |total error| (fraction).
- ``window-query-excess``: the queries whose window value is furthest above their steady
  value, in seconds (what moves the suite sum), at least the minimum effect
  (:func:`toolkit.analyze.resolution.min_effect_s`). Effect: seconds.
- ``slowdown``: series that get slower after a point (by at least one resolution step):
  from which iteration, by how much. Effect: seconds per run of the worst.
- ``no-steady-state``: series whose last quarter still changes level. Effect: share.
- ``spikes``: single-iteration spikes resolvably above their neighbours. Effect: share
  of series with one.
- ``still-warming``: short series whose last hot run is a new minimum (at least one
  resolution step), never where the cold run is the fastest. Effect: share.
- ``warmup-length``: how long warm-ups last (info; the cost is in ``window-error``).
  Effect: share of series whose window ends before steady state.
- ``gap-excluded``: queries left out of the sums (failed runs). Effect: share.

Cause wording: the warm-up part is called JIT warm-up only where the suite is a JVM
system (ClickBench tag "Java"); otherwise a warm-up that lasts beyond the first hot run
is a "multi-run warm-up", and one that ends with it is a cache effect. The
order-statistic part is noise: the min of m noisy runs reads below the typical run.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from toolkit.analyze.findings import SEVERITY_ORDER, Finding, Severity, effect_size
from toolkit.analyze.resolution import (
    MIN_EFFECT_S,
    MIN_EFFECT_STEPS,
    min_effect_s,
    series_resolution,
)
from toolkit.analyze.warmup import SeriesAnalysis
from toolkit.analyze.window_error import (
    SteadySeries,
    WindowError,
    WindowErrorGrid,
    window_error_grid,
)

__all__ = [
    "MAX_QUERY_FINDINGS",
    "MAX_SUITE_FINDINGS",
    "DetectedSeries",
    "IterationSettings",
    "fold_findings",
    "iteration_findings",
    "still_warming",
    "suite_resolution",
    "suite_window_grid",
    "window_k_for_target",
]

#: Suites given their own finding of one kind; above this, one finding for all of them.
MAX_SUITE_FINDINGS = 4
#: Per-query findings per suite (the queries that lose the most seconds).
MAX_QUERY_FINDINGS = 3


class DetectedSeries(Protocol):
    """One analysed series: ``times`` in seconds by iteration (0 = cold, NaN = failed),
    the warm-up engine's ``analysis``, the suite's ``jvm`` flag and declared timer
    resolution ``resolution_s`` (seconds; 0 = none declared)."""

    @property
    def suite(self) -> str: ...
    @property
    def jvm(self) -> bool: ...
    @property
    def query(self) -> str: ...
    @property
    def process(self) -> int: ...
    @property
    def analysis(self) -> SeriesAnalysis: ...
    @property
    def times(self) -> tuple[float, ...]: ...
    @property
    def resolution_s(self) -> float: ...


#: Most runs of one series analysed: its first runs (warm-up is at the start). A series of
#: 4.9 million runs took gigabytes in the per-run arrays of the analysis (MemoryError under
#: a 4 GiB limit), and 100,000 runs still made a 45 MB report; real series hold 3
#: (ClickBench) to a few thousand runs. The rest is counted in an
#: ``iteration-runs-capped`` finding.
MAX_SERIES_RUNS = 10_000


@dataclass(frozen=True)
class IterationSettings:
    """``window``: hot runs in the benchmark's hot value (ClickBench: min(run 2, run 3) =
    2); ``target``: the window error to reach (fraction, 5 %); ``tolerance``: a series
    within ±tolerance of its reference counts as steady (10 %); ``max_window``: largest
    window searched for the k that meets the target (the grid's default 9);
    ``min_effect_floor_s``: floor of the minimum per-query effect (10 ms)."""

    window: int = 2
    target: float = 0.05
    tolerance: float = 0.10
    max_window: int = 9
    min_effect_floor_s: float = MIN_EFFECT_S


def _pct(value: float) -> str:
    # the format `warmup gaps --grid` prints, so the figures read the same
    return f"{value * 100:+.1f} %"


def _s(value: float) -> str:
    return f"{value:.3f} s" if abs(value) >= 0.01 else f"{value:.3g} s"


def _names(names: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _step(a: float, b: float, resolution: float) -> bool:
    """True when ``a`` and ``b`` differ by at least one resolution step: a difference
    below what the timer resolves is not a finding (research/clickbench.md: 1 ms)."""
    diff = abs(a - b)
    return diff > 0 and diff + 1e-12 >= resolution


def _finite(values: Sequence[float]) -> list[float]:
    return [v for v in values if math.isfinite(v)]


def suite_window_grid(
    series: Sequence[DetectedSeries], settings: IterationSettings
) -> WindowErrorGrid:
    """The part of the short-window error grid the findings read: skip 0–1, min of m
    runs, m = 1…``max_window`` (mean error and its decomposition do not depend on the
    other cells or on the bootstrap; :func:`window_error_grid`). A series whose steady
    value is under :data:`MIN_EFFECT_STEPS` steps of its timer's resolution is left out:
    there one step is a relative error of 10 % or more (0.2 ms against 0.1 ms on a 1 ms
    timer read +100 %), the quantization, not the window (ClickBench's score adds 10 ms
    to every time for the same reason, research/clickbench.md §2)."""
    steady = [
        SteadySeries(d.times, d.analysis.steady_s, d.analysis.steady_iteration, d.query)
        for d in series
        if d.analysis.steady_s is not None
        and d.analysis.steady_iteration is not None
        and math.isfinite(d.analysis.steady_s)
        and d.analysis.steady_s >= MIN_EFFECT_STEPS * d.resolution_s
    ]
    return window_error_grid(
        steady, max_skip=1, max_window=settings.max_window, aggregators=("min",), resamples=200
    )


def window_k_for_target(grid: WindowErrorGrid, target: float) -> WindowError | None:
    """The smallest window m (skip 1 = only the cold run dropped, min of m hot runs) whose
    mean error is within ±``target``, among cells that at least half the grid's series
    reach (a long window only a few series have cannot speak for the suite)."""
    need = max(1, math.ceil(grid.series / 2))
    for c in sorted(grid.cells, key=lambda c: c.window):
        usable = c.skip == 1 and c.aggregator == "min" and c.series >= need
        if usable and abs(c.mean_error) <= target + 1e-12:
            return c
    return None


def _warmup_cause(series: Sequence[DetectedSeries], jvm: bool) -> tuple[str, int]:
    """What the warm-up part is called, and how many series warm up past hot run 1."""
    late = sum(
        1
        for d in series
        if d.analysis.steady_iteration is not None and d.analysis.steady_iteration > 1
    )
    if jvm:
        return "JIT warm-up of a JVM system, tag Java", late
    if late and late * 4 >= len(series):
        return f"a multi-run warm-up ({late} of {len(series)} series settle after hot run 1)", late
    return "cache warm-up (slow first runs)", late


def _window_error(
    suite: str,
    series: Sequence[DetectedSeries],
    grid: WindowErrorGrid,
    settings: IterationSettings,
) -> Finding | None:
    w, target = settings.window, settings.target
    cell = grid.cell(1, w, "min")
    if cell is None:
        return None
    total, transient, noise = cell.mean_error, cell.transient_bias, cell.order_statistic_bias
    jvm = any(d.jvm for d in series)
    cause, late = _warmup_cause(series, jvm)
    best = window_k_for_target(grid, target)
    severity: Severity = (
        "info"
        if abs(total) <= target + 1e-12
        else "warning"
        if abs(total) <= 4 * target
        else "problem"
    )
    if transient < 0:
        # the window reads fast against a later, slower level: not a warm-up
        cause = "runs that get slower later: a slowdown or an upward drift"
    main = ("warm-up" if transient > 0 else "slowdown") if abs(transient) >= abs(noise) else "noise"
    # the min-all table's reference (fastest hot run) against the same steady values
    below = [
        min(hot) / float(d.analysis.steady_s) - 1.0
        for d in series
        if d.analysis.steady_s and (hot := _finite(list(d.times[1:])))
    ]
    min_all = float(np.mean(below)) if below else math.nan
    message = (
        f"{suite}: the benchmark's window (min of hot runs 1-{w}) is {_pct(total)} off steady "
        f"state (mean over {cell.series} series) = warm-up transient {_pct(transient)} "
        f"({cause}) + order statistic {_pct(noise)} (noise: the min of {w} noisy runs reads "
        f"{'low' if noise < 0 else 'high'} against the steady median); mostly {main}"
        + (
            f"; the gap table's min-all reference (fastest hot run) is itself {_pct(min_all)} "
            "off steady state"
            if abs(min_all) > target
            else ""
        )
    )
    if severity == "info":
        advice = f"the window is within ±{target:.0%} of steady state"
    elif best is not None:
        advice = (
            f"take the min of {_plural(best.window, 'hot run')} ({best.window + 1} runs per "
            f"query): its error is then {_pct(best.mean_error)}"
        )
        if best.window < w:
            advice += " (more runs read lower still: the min of more noisy runs)"
    else:
        advice = (
            f"no window of up to {grid.max_window} hot runs gets within ±{target:.0%}; run "
            "more iterations or report the steady value"
        )
    return Finding(
        rule="window-error",
        severity=severity,
        subject=suite,
        message=message,
        advice=advice,
        numbers={
            "effect": abs(total),
            "error": total,
            "transient": transient,
            "order_statistic": noise,
            "hot_runs": w,
            "series": cell.series,
            "k_for_target": None if best is None else best.window,
            "error_at_k": None if best is None else best.mean_error,
            "target": target,
            "jvm": int(jvm),
            "late_warmups": late,
            "cause": main,
            "min_all_vs_steady": min_all if math.isfinite(min_all) else None,
        },
    )


def _query_excess(
    suite: str,
    series: Sequence[DetectedSeries],
    settings: IterationSettings,
    resolution: float,
) -> list[Finding]:
    """Per query (summed over its processes): seconds the window's min(hot 1..w) is above
    the steady value, largest first, at least the minimum effect."""
    w = settings.window
    floor = min_effect_s(resolution, settings.min_effect_floor_s)
    excess: dict[str, list[tuple[float, float, float, int | None]]] = {}
    steady_sum = 0.0
    for d in series:
        a = d.analysis
        hot = _finite(list(d.times[1 : w + 1]))
        if a.steady_s is None or not math.isfinite(a.steady_s) or len(hot) < w:
            continue
        steady_sum += a.steady_s
        excess.setdefault(d.query, []).append(
            (min(hot) - a.steady_s, min(hot), a.steady_s, a.steady_iteration)
        )
    rows = []
    for query, parts in excess.items():
        lost = math.fsum(p[0] for p in parts)
        if lost >= floor:
            rows.append((lost, query, parts))
    rows.sort(key=lambda r: (-r[0], r[1]))
    out = []
    for lost, query, parts in rows[:MAX_QUERY_FINDINGS]:
        window_s = math.fsum(p[1] for p in parts)
        steady_s = math.fsum(p[2] for p in parts)
        its = [p[3] for p in parts if p[3] is not None]
        share = lost / steady_sum if steady_sum > 0 else math.nan
        out.append(
            Finding(
                rule="window-query-excess",
                severity="warning" if share > settings.target else "info",
                subject=f"{suite} {query}",
                message=(
                    f"{suite} {query}: the window's min of hot runs 1-{w} ({_s(window_s)}) is "
                    f"{_s(lost)} above its steady value ({_s(steady_s)}), "
                    f"{share:.1%} of the suite's steady sum"
                    + (f"; steady from iteration {max(its)}" if its else "")
                ),
                advice=(
                    "this query moves the suite sum most: its hot value needs more runs "
                    "than the window"
                ),
                numbers={
                    "effect": lost,
                    "query": query,
                    "excess_s": lost,
                    "window_s": window_s,
                    "steady_s": steady_s,
                    "share_of_suite": share,
                    "steady_iteration": max(its) if its else None,
                    "min_effect_s": floor,
                },
            )
        )
    return out


def _label(d: DetectedSeries, many: set[str]) -> str:
    return f"{d.query} (process {d.process})" if d.query in many else d.query


#: An upward drift: hot runs rank-correlated with their index (Spearman ρ ≥ 0.8) over at
#: least 5 hot runs, the last third's median ≥ 5 % above the first third's (Traini et al.
#: 2023's 5 % effect size) and at least one resolution step.
DRIFT_RHO = 0.8
DRIFT_MIN_RISE = 0.05


def _upward_drift(
    d: DetectedSeries, resolution: float
) -> tuple[float, float, int, float, float] | None:
    """(seconds added, relative rise, first iteration 5 % above the start, first-third
    median, last-third median) of a series whose hot runs keep getting slower, else None. Change points miss
    a steady drift in 10 runs (no level to split at), so the trend is tested directly."""
    hot = [(i, t) for i, t in enumerate(d.times) if i >= 1 and math.isfinite(t)]
    if len(hot) < 5 or len({t for _, t in hot}) < 2:  # a constant series has no trend
        return None
    # imported here, past the early return: 3-run results never need scipy (its import
    # was 8 % of `warmup gaps` on 2,000 ClickBench results)
    from scipy.stats import spearmanr

    third = max(1, len(hot) // 3)
    first = statistics.median(t for _, t in hot[:third])
    last = statistics.median(t for _, t in hot[-third:])
    rho = float(spearmanr([i for i, _ in hot], [t for _, t in hot]).statistic)
    if not (rho >= DRIFT_RHO and first > 0 and last >= first * (1 + DRIFT_MIN_RISE)):
        return None
    if not _step(last, first, resolution):
        return None
    # from the first hot run that is a resolvable 5 % above the first third's level
    start = next(
        i for i, t in hot if t >= first * (1 + DRIFT_MIN_RISE) and _step(t, first, resolution)
    )
    return (last - first, last / first - 1, start, first, last)


def _slowdowns(
    suite: str, series: Sequence[DetectedSeries], resolution: float, many: set[str]
) -> Finding | None:
    """Series classed ``slowdown`` (the steady level starts at ``steady_iteration`` and is
    above the median of the hot runs before it by at least one resolution step) and
    series that drift upward (:func:`_upward_drift`)."""
    found = []
    for d in series:
        a = d.analysis
        start = a.steady_iteration
        if a.series_class != "slowdown" or start is None or a.steady_s is None:
            continue
        before = _finite(list(d.times[1:start])) or _finite(list(d.times[:start]))
        if not before:
            continue
        level = statistics.median(before)
        added = a.steady_s - level
        if added > 0 and level > 0 and _step(a.steady_s, level, resolution):
            found.append((added, added / level, start, level, a.steady_s, d))
    for d in series:
        drift = _upward_drift(d, resolution)
        if d.analysis.series_class != "slowdown" and drift is not None:
            found.append((*drift, d))
    if not found:
        return None
    found.sort(key=lambda f: (-f[0], f[5].query))
    added, rel, start, level, steady, worst = found[0]
    return Finding(
        rule="slowdown",
        severity="warning",
        subject=suite,
        message=(
            f"{suite}: {len(found)} of {len(series)} series get slower and stay slower "
            f"({_names([_label(f[5], many) for f in found])}); the worst, "
            f"{_label(worst, many)}, from iteration {start} by {rel:+.0%} "
            f"({_s(level)} -> {_s(steady)} per run)"
        ),
        advice=(
            "a hot window before the slowdown reads faster than the steady state: find what "
            "degrades (memory growth, cache eviction, background work) or report the later level"
        ),
        numbers={
            "effect": added,
            "series": len(series),
            "slowdown": len(found),
            "query": worst.query,
            "from_iteration": start,
            "before_s": level,
            "after_s": steady,
            "relative": rel,
        },
    )


def suite_resolution(series: Sequence[DetectedSeries]) -> float:
    """The timer resolution of one suite's series, seconds: the smallest step between its
    distinct run times, or its format's declared resolution when coarser
    (:func:`toolkit.analyze.resolution.series_resolution`)."""
    declared = max((d.resolution_s for d in series), default=0.0)
    return series_resolution(
        (t for d in series for t in d.times if math.isfinite(t)), declared or None
    )


def _still_warming(series: Sequence[DetectedSeries], resolution: float) -> list[DetectedSeries]:
    out = []
    for d in series:
        sh = d.analysis.short
        if sh is None or not sh.still_warming:
            continue
        hot = _finite(list(d.times[1:]))
        cold = d.times[0] if d.times else math.nan
        # the cold run being the fastest is not warming (a cache that cools, or noise)
        if hot and math.isfinite(cold) and cold <= min(hot):
            continue
        if len(hot) >= 2 and not _step(min(hot[:-1]), hot[-1], resolution):
            continue
        out.append(d)
    return out


def still_warming(series: Sequence[DetectedSeries]) -> list[DetectedSeries]:
    """The short series the ``still-warming`` finding counts: flagged by the short-series
    detector (the last hot run a new minimum by > 5 % and > 10 ms; research §8.6), at
    least one timer step below every earlier hot run, and the cold run not the fastest
    (a cold run below every hot run is no warm-up). Resolution per suite."""
    by_suite: dict[str, list[DetectedSeries]] = {}
    for d in series:
        by_suite.setdefault(d.suite, []).append(d)
    return [
        d
        for members in by_suite.values()
        for d in _still_warming(members, suite_resolution(members))
    ]


def _runs_capped(suite: str, series: Sequence[DetectedSeries]) -> Finding | None:
    """One warning when series of ``suite`` hold more than :data:`MAX_SERIES_RUNS` runs:
    how many series, and how many runs no figure includes (``runs_not_analysed``, set by
    the reader that left them out)."""
    left = [(d, int(getattr(d, "runs_not_analysed", 0))) for d in series]
    left = [(d, n) for d, n in left if n > 0]
    if not left:
        return None
    total = sum(n for _, n in left)
    analysed = sum(len(d.times) for d, _ in left)
    return Finding(
        rule="iteration-runs-capped",
        severity="warning",
        subject=suite,
        message=(
            f"{suite}: {len(left)} series hold more than {MAX_SERIES_RUNS:,} runs; only the "
            f"first {MAX_SERIES_RUNS:,} of each are analysed ({total:,} later runs are in no "
            "figure)"
        ),
        advice="split the runs into several processes or suites if the later runs matter",
        numbers={
            "effect": total / (total + analysed),
            "series": len(left),
            "runs_not_analysed": total,
            "max_series_runs": MAX_SERIES_RUNS,
        },
    )


def _suite_findings(
    suite: str, series: Sequence[DetectedSeries], settings: IterationSettings
) -> list[Finding]:
    n = len(series)
    resolution = suite_resolution(series)
    counts: dict[str, int] = {}
    for d in series:
        counts[d.query] = counts.get(d.query, 0) + 1
    many = {q for q, c in counts.items() if c > 1}
    jvm = any(d.jvm for d in series)
    out: list[Finding] = []

    grid = suite_window_grid(series, settings)
    window = _window_error(suite, series, grid, settings)
    if window is not None:
        out.append(window)
        out.extend(_query_excess(suite, series, settings, resolution))

    slow = _slowdowns(suite, series, resolution, many)
    if slow is not None:
        out.append(slow)

    capped = _runs_capped(suite, series)
    if capped is not None:
        out.append(capped)

    never = [d for d in series if d.analysis.series_class == "no-steady-state"]
    if never:
        out.append(
            Finding(
                rule="no-steady-state",
                severity="problem",
                subject=suite,
                message=(
                    f"{suite}: {len(never)} of {n} series never reach a steady state "
                    f"({_names([_label(d, many) for d in never])}): the last quarter of "
                    "their runs still changes level"
                ),
                advice="run more iterations, or report these queries as not steady",
                numbers={"effect": len(never) / n, "series": n, "no_steady_state": len(never)},
            )
        )

    warming = _still_warming(series, resolution)
    if warming:
        runs = sorted({d.analysis.n for d in warming})
        out.append(
            Finding(
                rule="still-warming",
                severity="warning",
                subject=suite,
                message=(
                    f"{suite}: {len(warming)} of {n} series {'is' if len(warming) == 1 else 'are'} "
                    "still getting faster at their "
                    f"last run ({_names([_label(d, many) for d in warming])}; "
                    f"{'/'.join(map(str, runs))} runs each, the last hot run more than 5% and "
                    "10 ms below every earlier one, the cold run slower)"
                ),
                advice=(
                    "add hot runs until the last two agree within 5%: the hot value of "
                    "these runs is above steady state"
                ),
                numbers={
                    "effect": len(warming) / n,
                    "series": n,
                    "still_warming": len(warming),
                    "share": len(warming) / n,
                },
            )
        )

    warm = [
        d
        for d in series
        if d.analysis.series_class == "warmup" and d.analysis.steady_iteration is not None
    ]
    if warm:
        iters = sorted(int(d.analysis.steady_iteration or 0) for d in warm)
        longest = max(warm, key=lambda d: int(d.analysis.steady_iteration or 0))
        late = [d for d in warm if int(d.analysis.steady_iteration or 0) > settings.window]
        median = statistics.median(iters)
        out.append(
            Finding(
                rule="warmup-length",
                severity="info",
                subject=suite,
                message=(
                    f"{suite}: {len(warm)} of {n} series warm up before a steady state, "
                    f"steady from iteration {median:g} (median) and {iters[-1]} at the latest "
                    f"({_label(longest, many)}, {_s(longest.analysis.time_to_steady_s or 0.0)} "
                    f"of warm-up runs); in {len(late)} of them the benchmark's "
                    f"{settings.window} hot runs end before the steady state"
                ),
                advice="what this costs the benchmark's window is in its window-error finding",
                numbers={
                    "effect": len(late) / n,
                    "series": n,
                    "warming_up": len(warm),
                    "median_steady_iteration": median,
                    "max_steady_iteration": iters[-1],
                    "window_before_steady": len(late),
                },
            )
        )

    spikes = []
    for d in series:
        for sp in d.analysis.spikes:
            # a spike's excess over its neighbours must be resolvable and worth a finding
            if sp.ratio and _step(sp.seconds, sp.seconds / sp.ratio, resolution):
                spikes.append((d, sp))
    if spikes:
        worst_d, worst = max(spikes, key=lambda ds: ds[1].seconds - ds[1].seconds / ds[1].ratio)
        queries = {d.query for d, _ in spikes}
        pause = "a JIT compile or GC pause" if jvm else "a pause (GC, I/O or another process)"
        out.append(
            Finding(
                rule="spikes",
                severity="warning",
                subject=suite,
                message=(
                    f"{suite}: {_plural(len(spikes), 'single-iteration spike')} in "
                    f"{_plural(len(queries), 'query', 'queries')}, the worst {worst.ratio:.1f}x "
                    f"its neighbours ({_label(worst_d, many)} iteration {worst.iteration}: "
                    f"{_s(worst.seconds)}), {pause} inside the iteration"
                ),
                advice=(
                    "a hot window that contains a spike overstates the hot time: use the "
                    "steady value (it leaves spikes out) or more hot runs"
                ),
                numbers={
                    "effect": len({(d.query, d.process) for d, _ in spikes}) / n,
                    "series": n,
                    "spikes": len(spikes),
                    "queries": len(queries),
                    "max_ratio": worst.ratio,
                },
            )
        )

    # as the gap table: a query missing any of the suite's hot runs is left out of its sums
    n_hot = max((len(d.times) for d in series), default=1) - 1
    # in query order, each query once
    failed = list(
        dict.fromkeys(d.query for d in series if len(_finite(list(d.times[1 : n_hot + 1]))) < n_hot)
    )
    if failed:
        n_queries = len(counts)
        out.append(
            Finding(
                rule="gap-excluded",
                severity="info",
                subject=suite,
                message=(
                    f"{suite}: {len(failed)} of {n_queries} queries left out of the window's "
                    f"sums (a failed or missing hot run): {_names(failed, 10)}"
                ),
                advice="fix or rerun the failing queries to compare the whole suite",
                numbers={
                    "effect": len(failed) / n_queries,
                    "excluded": len(failed),
                    "queries": n_queries,
                },
            )
        )
    return out


#: Per rule: the numbers key counted over folded suites, and what those suites have.
_FOLDED: dict[str, str] = {
    "window-error": "this verdict on the window's error against steady state",
    "window-query-excess": "queries whose window is far above their steady value",
    "slowdown": "series that slow down",
    "no-steady-state": "series that never reach a steady state",
    "still-warming": "series still getting faster at their last run",
    "warmup-length": "warm-ups longer than the benchmark's window",
    "spikes": "single-iteration spikes",
    "gap-excluded": "queries left out for failed runs",
}


def fold_findings(found: Sequence[tuple[str, Finding]], suites: int) -> list[Finding]:
    """``(suite, finding)`` pairs with a rule found at one severity in more than
    :data:`MAX_SUITE_FINDINGS` suites folded into one finding of that severity naming the
    worst (largest effect) ones; its effect is the largest."""
    # folded per rule and severity: a problem is never hidden among infos of its rule
    by_rule: dict[tuple[str, str], list[Finding]] = {}
    suites_of: dict[tuple[str, str], set[str]] = {}
    for suite, f in found:
        by_rule.setdefault((f.rule, f.severity), []).append(f)
        suites_of.setdefault((f.rule, f.severity), set()).add(suite)
    out: list[Finding] = []
    for key, group in by_rule.items():
        rule = key[0]
        if len(suites_of[key]) <= MAX_SUITE_FINDINGS:
            out.extend(group)
            continue
        group = sorted(
            group, key=lambda f: (SEVERITY_ORDER[f.severity], -effect_size(f), f.subject)
        )
        severity = group[0].severity
        worst = [f"{f.subject} ({effect_size(f):.3g})" for f in group]
        out.append(
            Finding(
                rule=rule,
                severity=severity,
                subject=f"{len(suites_of[key])} of {suites} suites",
                message=(
                    f"{len(suites_of[key])} of {suites} suites have {_FOLDED.get(rule, rule)}; the "
                    f"largest (effect in brackets): {_names(worst)}"
                ),
                advice=group[0].advice,
                numbers={
                    "effect": effect_size(group[0]),
                    "suites": len(suites_of[key]),
                    "findings": len(group),
                },
            )
        )
    return out


def iteration_findings(
    series: Sequence[DetectedSeries],
    settings: IterationSettings | None = None,
    *,
    fold: bool = False,
) -> list[Finding]:
    """Every iteration finding of the analysed ``series`` (any number of suites), in the
    order every output shows them (:func:`toolkit.analyze.findings.rank_findings` within
    each suite, suites in input order; with ``fold``, a rule found in many suites is one
    finding, :func:`fold_findings`, and the whole list is ranked)."""
    from toolkit.analyze.findings import rank_findings

    settings = settings or IterationSettings()
    by_suite: dict[str, list[DetectedSeries]] = {}
    for d in series:
        by_suite.setdefault(d.suite, []).append(d)
    found: list[tuple[str, Finding]] = []
    for suite, members in by_suite.items():
        found.extend((suite, f) for f in rank_findings(_suite_findings(suite, members, settings)))
    if fold:
        return rank_findings(fold_findings(found, len(by_suite)))
    return [f for _, f in found]
