"""Findings on a load suite beyond the warm-up end: too-short runs, stepped thread counts,
gaps with no completions, and errors.

Pure: arrays, frames and the ``--json`` label dicts of :mod:`toolkit.pipeline.load` in,
:class:`~toolkit.analyze.findings.Finding` lists out. Every finding names its figures in
the message and says what to do in the advice; labels reach messages as plain text (the
report escapes them, the CLI prints them as rich ``Text``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from toolkit.analyze.findings import Finding
from toolkit.analyze.timeseries import (
    MIN_VERDICT_SAMPLES,
    RAMP_MAX_FRAC,
    STEADY_STATUSES,
    SUMMARY_MIN_WINDOWS,
    SUMMARY_STEADY_MIN_WINDOWS,
    empty_stretches,
    full_summary_windows,
    summary_interval,
    warmup_end,
)
from toolkit.numbers import fmt_error_pct, fmt_num, name_list, plural

#: fewest full windows :func:`~toolkit.analyze.timeseries.warmup_end` looks for a
#: transient in (its ``min_windows``); the first and last window of a run are partial
#: and not counted
MIN_WINDOWS = 10
#: a plateau of the thread count is a load step when it lasts this long (s) and
#: ``MIN_WINDOWS`` windows; Ultimate/Concurrency Thread Group steps last minutes
STEP_MIN_S = 30.0
#: a window's thread count belongs to a plateau within this share of its level (or
#: half a thread, for small counts)
STEP_TOLERANCE = 0.02
#: two plateaus are different steps when their levels differ by this share or more
STEP_MIN_CHANGE = 0.10
#: overall error share above which a warning is given: at 5 % failed samples the p95
#: (and every higher percentile) can be the latency of a failure — a fast 404 or a
#: timeout — instead of a served request, since JMeter and this analysis count failed
#: samples in the latency figures as JMeter's dashboard does (research/jmeter.md §4)
ERROR_RATE_WARN = 0.05
#: ALL's mean latency this share or more below that of its successful samples: only then
#: do a failing label's fast failures "pull it down" (the rules' 5 % effect; a 1 % label
#: failing in 0 ms moved a sub-millisecond mean by 0.2 % in a real JMeter run, and the
#: finding said so)
FAIL_PULL_MIN = 0.05
#: an error-rate change point is reported when its G statistic (likelihood ratio of one
#: vs two binomial rates, χ² with 1 df under "no change" but maximised over split points)
#: exceeds this: far beyond what the maximum over a few thousand splits of pure noise
#: reaches (tens), and the rates differ by ``ERROR_JUMP_MIN`` and a factor 2
ERROR_JUMP_G = 100.0
ERROR_JUMP_MIN = 0.05
ERROR_JUMP_MIN_WINDOWS = 5
#: a label counts as all-failing from this many samples (one or two failed samples of a
#: rare label are a different story)
ALL_FAIL_MIN_SAMPLES = 10


def _s(value: float) -> str:
    """Seconds for a message: plain digits (:func:`toolkit.numbers.fmt_num`)."""
    return fmt_num(value)


def _pct(share: float) -> str:
    """A share as a percentage for a message, as the tables show it (``50%``, ``1.2%``,
    ``0.05%``)."""
    return fmt_error_pct(share)


def _ramp_too_long(all_label: Mapping[str, Any]) -> bool:
    """Whether the thread ramp-up (``rampup_end_s``) ends past :data:`RAMP_MAX_FRAC` of the
    run, which leaves the warm-up rule no steady part (``timeseries._after_ramp``: the
    same share of the windows, of which the run has its duration's worth less the two
    partial ones)."""
    ramp_s, duration = all_label.get("rampup_end_s"), all_label.get("duration_s")
    return bool(ramp_s and duration and float(ramp_s) > RAMP_MAX_FRAC * float(duration))


def full_windows(first_end_ms: int, last_end_ms: int, window_ms: int) -> int:
    """Full windows of ``window_ms`` a series has whose first and last completion are
    ``first_end_ms`` and ``last_end_ms`` (ms from the suite's first sample start), as
    :func:`~toolkit.analyze.timeseries.analyze_windows` counts them: every window from the
    one holding the first completion to the one holding the last, less those two (partial
    and left out)."""
    return max(0, last_end_ms // window_ms - first_end_ms // window_ms - 1)


#: windows the too-short advice may suggest (s), largest first
WINDOW_CHOICES = (30.0, 10.0, 5.0, 2.0, 1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01)


def _window_text(window_s: float) -> str:
    """A ``--load-window`` value for advice: ``500ms``, ``2s``."""
    if window_s < 1:
        return f"{window_s * 1000:g}ms"
    return f"{window_s:g}s"


# ---------------------------------------------------------------------------------------
# series


@dataclass(frozen=True)
class WindowSeries:
    """A suite's ALL windows as dense arrays over every window from the first to the
    last (missing windows: 0 samples, NaN mean and threads). ``t_s`` = window start in s
    from the first sample's start; ``errors`` is None when not given."""

    t_s: npt.NDArray[np.float64]
    n: npt.NDArray[np.float64]
    mean_ms: npt.NDArray[np.float64]
    threads: npt.NDArray[np.float64]
    errors: npt.NDArray[np.float64] | None
    window_s: float


def dense_series(
    w: npt.ArrayLike,
    n: npt.ArrayLike,
    mean_ms: npt.ArrayLike,
    threads: npt.ArrayLike | None,
    *,
    window_s: float,
    errors: npt.ArrayLike | None = None,
) -> WindowSeries:
    """:class:`WindowSeries` from a window frame's columns (``w`` = window index from the
    first sample's start, as :func:`toolkit.pipeline.load._windows` gives them)."""
    idx = np.asarray(w, dtype=np.int64)
    if idx.size == 0:
        empty = np.zeros(0)
        return WindowSeries(empty, empty, empty, empty, None if errors is None else empty, window_s)
    first, last = int(idx.min()), int(idx.max())
    size = last - first + 1
    pos = idx - first

    def fill(values: npt.ArrayLike | None, default: float) -> npt.NDArray[np.float64]:
        out = np.full(size, default)
        if values is not None:
            raw = np.asarray(
                [np.nan if v is None else v for v in np.asarray(values, dtype=object)],
                dtype=np.float64,
            )
            out[pos] = raw
        return out

    return WindowSeries(
        # rounded to 1 µs (windows are whole ms): 6 × 0.05 s is 0.3 s, not 0.30000000000000004
        t_s=np.round(np.arange(first, last + 1, dtype=np.float64) * window_s, 6),
        n=fill(n, 0.0),
        mean_ms=fill(mean_ms, np.nan),
        threads=fill(threads, np.nan),
        errors=None if errors is None else fill(errors, 0.0),
        window_s=window_s,
    )


def summary_series(
    seconds: npt.ArrayLike,
    counts: npt.ArrayLike,
    *,
    errors: npt.ArrayLike,
    mean_ms: npt.ArrayLike,
    threads: npt.ArrayLike,
) -> WindowSeries:
    """A summariser log's windows (of non-zero length, in log order) as a
    :class:`WindowSeries` of its interval (:func:`summary_interval`), for the rules above.

    Each window is one entry at its own start (s from the first window's start), its
    count and errors scaled to the interval (so ``n / window_s`` is the window's rate).
    A stretch without completed samples becomes empty entries, one per interval it
    spans: a window with count 0, and a window longer than 1.5 intervals whose rate is
    below the median window rate — JMeter prints a line only when a sample completes, so a
    stall lengthens the window it falls in (as does a hole in a log's times before a
    line, which :func:`toolkit.pipeline.summariser.summariser_windows` adds to its
    window). Such a window's
    samples are taken to complete at the median rate, in its first and last intervals;
    the rest of it is the empty stretch (where inside the window the stall lay is not in
    the log). ``threads`` is the line's ``Active:`` (NaN without one), ``mean_ms`` its
    ``Avg:``.
    """
    s = np.asarray(seconds, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    e = np.asarray(errors, dtype=np.float64)
    lat = _floats(mean_ms)
    thr = _floats(threads)
    interval = summary_interval(s)
    if s.size == 0 or not interval > 0:
        empty = np.zeros(0)
        return WindowSeries(empty, empty, empty, empty, empty, interval or 1.0)
    full = s >= 0.9 * interval
    rate_ref = float(np.median(c[full] / s[full])) if full.any() else 0.0
    t_s: list[float] = []
    rows: list[tuple[float, float, float, float]] = []  # n, mean, threads, errors

    def put(at: float, n: float, mean: float, threads_: float, errs: float) -> None:
        t_s.append(at)
        rows.append((n, mean, threads_, errs))

    t = 0.0
    for i in range(s.size):
        spans = max(1, math.floor(s[i] / interval + 0.5))
        busy = spans
        if spans >= 2 and rate_ref > 0 and c[i] / s[i] < rate_ref:
            busy = min(spans, max(1, math.floor(c[i] / (rate_ref * interval) + 0.5)))
        if c[i] == 0:
            busy = 0
        share = interval / s[i] if busy == spans else 1.0 / max(busy, 1)
        first = math.ceil(busy / 2)
        for k in range(spans):
            at = t + k * s[i] / spans if busy == spans else t + k * interval
            if busy == spans or k < first or k >= spans - (busy - first):
                put(at, c[i] * share, lat[i], thr[i], e[i] * share)
            else:
                put(at, 0.0, np.nan, np.nan, 0.0)
        t += s[i]
    arr = np.asarray(rows, dtype=np.float64)
    return WindowSeries(
        np.round(np.asarray(t_s), 6), arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], interval
    )


def _floats(values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``values`` as floats, None → NaN."""
    return np.asarray(
        [np.nan if v is None else v for v in np.asarray(values, dtype=object)], dtype=np.float64
    )


# ---------------------------------------------------------------------------------------
# load steps


@dataclass(frozen=True)
class LoadStep:
    """A plateau of the active thread count: ``threads`` (its median), its span in s from
    the first sample's start, and its throughput (/s) and mean latency (ms) over its
    windows after its own transient (MSER-5, :func:`warmup_end`), ``settle_s`` later
    than ``start_s``."""

    threads: float
    start_s: float
    end_s: float
    settle_s: float
    throughput: float
    mean_ms: float | None


def _plateaus(threads: npt.NDArray[np.float64]) -> list[tuple[int, int, float]]:
    """Maximal runs ``[i, j)`` of windows whose thread count stays within
    ``STEP_TOLERANCE`` of the run's first value (NaN windows, with no samples, neither
    end nor join a run), with their median level."""
    runs: list[tuple[int, int, float]] = []
    i = 0
    size = threads.size
    while i < size:
        if not np.isfinite(threads[i]):
            i += 1
            continue
        level = threads[i]
        tol = max(0.5, STEP_TOLERANCE * level)
        j = i + 1
        while j < size and (not np.isfinite(threads[j]) or abs(threads[j] - level) <= tol):
            j += 1
        part = threads[i:j]
        runs.append((i, j, float(np.median(part[np.isfinite(part)]))))
        i = j
    return runs


def load_steps(
    series: WindowSeries, *, min_windows: int = MIN_WINDOWS, batch: int = 5
) -> list[LoadStep]:
    """The load steps of a run whose thread count changes in steps (JMeter's Ultimate or
    Concurrency Thread Group: 10 → 20 → 40 threads), or ``[]``.

    Plateaus (thread count within 2 %, or ½ thread) of at least ``STEP_MIN_S`` and
    ``MIN_WINDOWS`` windows are candidates; neighbours at the same level merge (a brief
    dip is no step); the run is stepped when at least two steps remain, each differs from
    the next by ≥ 10 % and each change takes at most half the shorter step (an abrupt
    change: a slow linear ramp-up makes plateaus too, but each differs from the next by
    a few % only). A step's throughput and mean latency are taken
    after its own transient, by the warm-up rule on its windows. ``min_windows`` and
    ``batch``: the warm-up rule's (a summariser log's coarse windows: 4 and MSER-1).
    """
    window_s = series.window_s
    if series.threads.size == 0 or not np.isfinite(series.threads).any():
        return []
    min_len = max(min_windows, math.ceil(STEP_MIN_S / window_s))
    candidates = [p for p in _plateaus(series.threads) if p[1] - p[0] >= min_len]
    merged: list[list[Any]] = []
    for i, j, level in candidates:
        if merged and abs(level - merged[-1][2]) <= max(0.5, STEP_TOLERANCE * level):
            merged[-1][1] = j  # the same level again after a brief dip
            continue
        merged.append([i, j, level])
    if len(merged) < 2:
        return []
    for (i0, j0, l0), (i1, j1, l1) in pairwise(merged):
        if abs(l1 - l0) < STEP_MIN_CHANGE * max(l0, l1):
            return []  # plateaus a few % apart: a slow ramp or a drift, not steps
        if i1 - j0 > 0.5 * min(j0 - i0, j1 - i1):
            return []  # a change slower than the steps it joins
    steps = []
    for i, j, level in merged:
        n, lat = series.n[i:j], series.mean_ms[i:j]
        warm = warmup_end(n, lat, window_s=window_s, batch=batch, min_windows=min_windows)
        d = warm.end_window if warm.status == "warmup" and warm.end_window else 0
        lat_tail = lat[d:]
        steps.append(
            LoadStep(
                threads=level,
                start_s=float(series.t_s[i]),
                end_s=float(series.t_s[j - 1]) + window_s,
                settle_s=d * window_s,
                throughput=float(n[d:].mean()) / window_s,
                mean_ms=float(np.nanmean(lat_tail)) if np.isfinite(lat_tail).any() else None,
            )
        )
    return steps


def _threads(level: float) -> str:
    return f"{level:.0f}" if abs(level - round(level)) < 0.05 else f"{level:.1f}"


def _threads_word(level: float) -> str:
    """``1 thread``, ``20 threads``."""
    return f"{_threads(level)} thread{'' if _threads(level) == '1' else 's'}"


def step_finding(subject: str, steps: Sequence[LoadStep], *, warmup_end_s: float | None) -> Finding:
    """``load-steps``: the thread count changes in steps; each step has its own steady
    state. ``warmup_end_s``: where the warm-up rule cut ALL, to say when the "warm-up" it
    cut holds earlier load steps."""
    changes = [s.start_s for s in steps[1:]]
    levels = "→".join(_threads(s.threads) for s in steps)
    per_step = ", ".join(
        f"{_threads_word(s.threads)} {fmt_num(s.throughput)}/s"
        + (f" at {fmt_num(s.mean_ms)} ms" if s.mean_ms is not None else "")
        for s in steps
    )
    at = (
        " and ".join(f"{_s(c)} s" for c in changes)
        if len(changes) <= 2
        else (", ".join(f"{_s(c)} s" for c in changes[:-1]) + f" and {_s(changes[-1])} s")
    )
    message = (
        f"thread count changes at {at} ({levels}): stepped load; steady state is per "
        f"step ({per_step}, each after its own transient)"
    )
    earlier = [s for s in steps[:-1] if s.start_s < (warmup_end_s or 0.0)]
    if warmup_end_s and earlier:
        message += (
            f"; the first {_s(warmup_end_s)} s, cut as warm-up, hold the load steps at "
            f"{' and '.join(_threads(s.threads) for s in earlier)} threads"
        )
        last_start = steps[-1].start_s
        if warmup_end_s < last_start:
            message += (
                f", and the steady figures mix {_s(last_start - warmup_end_s)} s of the "
                f"{_threads(steps[-2].threads)}-thread step with the last step"
            )
        else:
            message += ", so the steady figures are the last step's"
    return Finding(
        rule="load-steps",
        severity="warning",
        subject=subject,
        message=message,
        advice=(
            "read each step on its own (its throughput and latency at that thread count); "
            "compare runs step by step, not by whole-run figures"
        ),
        numbers={
            "steps": len(steps),
            "changes_s": ",".join(_s(c) for c in changes),
            "threads": ",".join(_threads(s.threads) for s in steps),
            "throughput": ",".join(f"{s.throughput:.6g}" for s in steps),
        },
    )


# ---------------------------------------------------------------------------------------
# warm-up, no steady state, too short


def _mean(latency: Mapping[str, Any] | None) -> float | None:
    if not latency:
        return None
    value = latency.get("mean")
    return float(value) if value is not None else None


def _ramp_text(end_s: float, threads: float | None) -> str:
    """``threads ramp up until 90 s (10 threads)``."""
    return f"threads ramp up until {_s(end_s)} s" + (
        f" ({_threads_word(threads)})" if threads is not None else ""
    )


def _cause_text(cause: Finding) -> str:
    """A ``load-gap`` or ``load-error-change`` finding as the reason of a non-stationary
    run, with its figures."""
    x = cause.numbers
    if cause.rule == "load-gap":
        if int(x.get("gaps") or 1) == 1:
            return (
                f"the {_s(float(x['length_s'] or 0))} s with no completed sample from "
                f"{_s(float(x['start_s'] or 0))} s to {_s(float(x['end_s'] or 0))} s (load-gap)"
            )
        return (
            f"{x['gaps']} stretches with no completed sample ({_s(float(x['length_s'] or 0))} s "
            "in all; load-gap)"
        )
    if cause.rule == "load-error-change":
        return f"the error rate's change at {_s(float(x['at_s'] or 0))} s (load-error-change)"
    return cause.rule


#: how ``load-warmup`` names the rule that placed a warm-up end other than plain MSER
#: (``warmup_rule``; :data:`toolkit.analyze.timeseries.DecidingRule`)
WARMUP_RULE_TEXT = {
    "mser-uncapped": "MSER with its n/2 cap lifted; no trend after it",
    "changepoint": "change points in throughput or latency, later than MSER's end; no trend "
    "after it",
    "curve": "where the fitted warm-up curve of the latency comes within 5 % of its level; "
    "no trend after it",
}


def warmup_findings(
    subject: str,
    all_label: Mapping[str, Any],
    *,
    windows: int,
    window_s: float | None,
    summariser: bool = False,
    steps: Sequence[LoadStep] = (),
    timed: bool = True,
    completion_ms: tuple[int, int] | None = None,
    causes: Sequence[Finding] = (),
    summary_seconds: Sequence[float] | None = None,
    ramp_threads: float | None = None,
    ramp_windows: int | None = None,
    plateau_windows: int | None = None,
    rampdown_s: float | None = None,
) -> list[Finding]:
    """``load-warmup``, ``load-no-steady-state``, ``load-too-short`` or ``load-no-samples``
    for a suite from its ``ALL`` label dict (``--json`` keys) and its number of full
    windows (JTL: from the first full to the last full window; summariser log: windows of
    non-zero length). ``window_s`` is None for a summariser log (its windows are the
    log's). A stepped run (``steps``) gets no "run longer" advice: its trend is the steps.
    ``timed`` False: no sample has a start time and elapsed (JTL without ``timeStamp`` or
    ``elapsed`` columns), so there are no windows at all. ``completion_ms``: ALL's first
    and last completion (ms from the first sample start), for the too-short advice: a
    smaller ``--window`` is suggested only when it gives the rule its full windows
    (:func:`full_windows`), and none when the run has fewer samples than that.
    ``causes``: the suite's ``load-gap`` and ``load-error-change`` findings; with one, an
    inconclusive run's ``load-no-steady-state`` names it instead of advising a longer run.
    ``summary_seconds``: a summariser log's window lengths (s); with fewer than
    ``SUMMARY_MIN_WINDOWS`` of full length (:func:`full_summary_windows`), an inconclusive
    log is too short, not trending (a 12 s run's 0.25, 5.8, 6 and 0.125 s windows).
    ``ramp_threads``: the threads' plateau when ALL's ``rampup_end_s`` is set, named with
    it; ``ramp_windows``: the windows up to that ramp-up end, which when more than half of
    ``windows`` is why an inconclusive run has no steady state (threads still starting).
    ``plateau_windows``: the full windows the warm-up rule looks at in a JTL run whose
    threads ramp up or down (:func:`~toolkit.analyze.timeseries.thread_ramp_end` to
    :func:`~toolkit.analyze.timeseries.thread_rampdown_start`, starting at ``rampdown_s``
    s): a run too short for the rule there names them, not its ``windows`` (a 14 s JMeter
    run's 13 full windows, 6 of them with all 10 threads running, read "13 full windows
    … the rule needs ≥ 10").
    """
    status = all_label.get("warmup_status")
    samples = int(all_label.get("samples") or 0)
    tp = all_label.get("throughput") or {}
    lat = all_label.get("latency_ms") or {}
    found: list[Finding] = []
    if samples == 0:
        found.append(
            Finding(
                rule="load-no-samples",
                severity="problem",
                subject=subject,
                message="the file holds no samples (a header, or only empty transaction "
                "controllers): nothing to analyse",
                advice="check that the test ran and that the listener wrote its results "
                "(jmeter -n -t plan.jmx -l results.jtl)",
                numbers={"samples": 0},
            )
        )
        return found
    if not timed and not summariser:
        found.append(
            Finding(
                rule="load-too-short",
                severity="warning",
                subject=subject,
                message=(
                    (
                        "the one sample has no start time and elapsed time "
                        if samples == 1
                        else f"none of the {samples} samples has a start time and an elapsed time "
                    )
                    + "(no timeStamp or elapsed column): no windows, so no throughput, "
                    "warm-up end or steady figures"
                ),
                advice=(
                    "save both (JMeter's defaults: jmeter.save.saveservice.timestamp_format=ms, "
                    "jmeter.save.saveservice.time=true)"
                ),
                numbers={
                    "windows": 0,
                    "need": MIN_WINDOWS,
                    "window_s": window_s,
                    "samples": samples,
                    "reason": "no-timestamps",
                },
            )
        )
        return found
    full = full_summary_windows(summary_seconds) if summary_seconds is not None else None
    if (
        summariser
        and status in ("inconclusive", "no-steady-state")
        and full is not None
        and full < SUMMARY_MIN_WINDOWS
    ):
        status = "too-short"
    if status == "too-short":
        need = SUMMARY_MIN_WINDOWS if summariser else MIN_WINDOWS
        duration = float(all_label.get("duration_s") or 0.0)
        numbers: dict[str, float | int | str | None] = {
            "windows": windows,
            "need": need,
            "window_s": window_s,
            "samples": samples,
            "reason": "summariser" if summariser else "few-windows",
        }
        if summariser and full is not None and full >= need:
            assert summary_seconds is not None
            # analyze_summary_windows: enough windows for the warm-up rule, too few to
            # tell a steady state from a climb where their rates disagree
            message = (
                f"too few windows: {full} summariser windows of full length over "
                f"{_s(duration)} s, whose rates differ by more than the rule's 5 %; with "
                f"fewer than {SUMMARY_STEADY_MIN_WINDOWS} a trend cannot be told from noise, "
                "so no warm-up end or steady figures"
            )
            numbers.update(full_windows=full, need=SUMMARY_STEADY_MIN_WINDOWS,
                           reason="summariser-few-windows")  # fmt: skip
            interval = math.floor(duration / (SUMMARY_STEADY_MIN_WINDOWS + 2))
            advice = (
                f"print summariser lines more often (jmeter -Jsummariser.interval={interval}) "
                "or analyse the JTL, or run longer"
                if 1 <= interval < max(summary_seconds)
                else "analyse the JTL, or run longer"
            )
        elif summariser and full is not None and full < windows:
            assert summary_seconds is not None
            lengths = ", ".join(_s(x) for x in summary_seconds[:8])
            message = (
                f"{windows} summariser window{'s' if windows != 1 else ''} over "
                f"{_s(duration)} s ({lengths}{' …' if len(summary_seconds) > 8 else ''} s), "
                f"{full} of full length; the warm-up rule needs ≥ {need} full-length "
                "windows: too short to tell a warm-up or a trend, no steady figures"
            )
            numbers["full_windows"] = full
            # an interval that fits need + 2 windows (the first and last are cut) in the run
            interval = math.floor(duration / (need + 2))
            advice = (
                f"print summariser lines more often (jmeter -Jsummariser.interval={interval}) "
                "or analyse the JTL, or run longer"
                if 1 <= interval < max(summary_seconds)
                else "run longer (or analyse the JTL)"
            )
        elif summariser:
            message = (
                f"{windows} summariser window{'s' if windows != 1 else ''} over "
                f"{_s(duration)} s; the warm-up rule needs ≥ {need}: no warm-up end or "
                "steady figures"
            )
            advice = (
                "print summariser lines more often (jmeter -Jsummariser.interval=5) or "
                "analyse the JTL, or run longer"
            )
        elif samples < max(need, MIN_VERDICT_SAMPLES):
            # fewer samples than the windows the rule needs: no window size makes a series
            message = (
                f"only {samples} sample{'s' if samples != 1 else ''} over {_s(duration)} s: "
                f"too few for the warm-up rule, which needs ≥ {MIN_VERDICT_SAMPLES} samples "
                f"in a series of ≥ {need} windows; no warm-up end or steady figures"
            )
            advice = "run longer (or with more threads) to analyse the warm-up"
            numbers["reason"] = "few-samples"
        elif plateau_windows is not None and plateau_windows < need <= windows:
            assert window_s is not None
            # the rule sees only the windows with every thread running (timeseries:
            # _after_ramp and the ramp-down limit): they, not the run's, are too few
            ramp_s = all_label.get("rampup_end_s")
            span = [f"up until {_s(float(ramp_s))} s"] if ramp_s else []
            span += [f"down from {_s(rampdown_s)} s"] if rampdown_s is not None else []
            message = (
                f"{windows} full windows of {_s(window_s)} s over {_s(duration)} s, "
                f"{plateau_windows} of them with every thread running (the threads ramp "
                f"{' and '.join(span)}); the warm-up rule needs ≥ {need} of those: no "
                "warm-up end or steady figures"
            )
            numbers.update(plateau_windows=plateau_windows, reason="few-plateau-windows")
            plateau_s = plateau_windows * window_s
            # one window of margin: a smaller window's edges need not meet the ramp's
            smaller = [c for c in WINDOW_CHOICES if c < window_s and plateau_s / c >= need + 1]
            if smaller:
                advice = (
                    f"use a smaller window (--load-window {_window_text(smaller[0])}) or run "
                    "longer at full threads"
                )
                numbers["suggested_window_s"] = smaller[0]
            else:
                advice = "run longer at full threads"
        else:
            assert window_s is not None
            message = (
                f"{windows} full window{'s' if windows != 1 else ''} of {_s(window_s)} s "
                f"over {_s(duration)} s; the warm-up rule needs ≥ {need}: no warm-up end "
                "or steady figures"
            )
            # a smaller window only helps when it really gives ``need`` full windows
            # between the first and the last completion, counted as the analysis does
            smaller = (
                [
                    c
                    for c in WINDOW_CHOICES
                    if c < window_s
                    and full_windows(*completion_ms, max(1, round(c * 1000))) >= need
                ]
                if completion_ms is not None
                else []
            )
            if smaller:
                advice = (
                    f"use a smaller window (--load-window {_window_text(smaller[0])}) or run longer"
                )
                numbers["suggested_window_s"] = smaller[0]
            else:
                advice = "run longer"
        found.append(
            Finding(
                rule="load-too-short",
                severity="warning",
                subject=subject,
                message=message,
                advice=advice,
                numbers=numbers,
            )
        )
    elif (
        status in ("inconclusive", "no-steady-state")
        and not steps
        and all_label.get("rampup_end_s") is not None
        and (_ramp_too_long(all_label) or (ramp_windows is not None and ramp_windows > windows / 2))
    ):
        # the threads were still starting past half of the run (timeseries._after_ramp):
        # the run has no steady part to measure, whatever it does at its end
        ramp_end = float(all_label["rampup_end_s"])
        duration = float(all_label.get("duration_s") or 0.0)
        found.append(
            Finding(
                rule="load-no-steady-state",
                severity="problem",
                subject=subject,
                message=(
                    f"{_ramp_text(ramp_end, ramp_threads)}, past half of the "
                    + (f"{_s(duration)} s run ({_pct(ramp_end / duration)})" if duration else "run")
                    + ": no steady state (a closed loop is not steady before its last thread "
                    "runs, and the warm-up rule needs at least half of the run after that)"
                ),
                advice=(
                    f"hold the full thread count for longer than the ramp-up ({_s(ramp_end)} s), "
                    "or shorten the ramp-up"
                ),
                numbers={
                    "windows": windows,
                    "cause": "rampup",
                    "rampup_end_s": ramp_end,
                    "threads": ramp_threads,
                    "duration_s": duration,
                },
            )
        )
    elif status in ("inconclusive", "no-steady-state") and not steps and causes:
        # a gap or an error-rate change breaks the run into parts: that, not a trend a
        # longer run would outlast, is why no steady state is found
        found.append(
            Finding(
                rule="load-no-steady-state",
                severity="problem",
                subject=subject,
                message=(
                    f"no steady state: the run is not stationary because of "
                    f"{' and '.join(_cause_text(c) for c in causes)}, not a trend at its end"
                ),
                advice=(
                    "read the parts before and after it apart, or rerun without it before "
                    "comparing (a longer run would not remove it)"
                ),
                numbers={"windows": windows, "cause": ",".join(c.rule for c in causes)},
            )
        )
    elif status == "inconclusive" and not steps:
        found.append(
            Finding(
                rule="load-inconclusive",
                severity="warning",
                subject=subject,
                message=(
                    "the warm-up rules disagree: MSER's minimum stays at its cap even with the "
                    "cap lifted to 80 % of the run, while the trend test finds no trend after "
                    "it: no warm-up end or steady figures"
                ),
                advice="run longer, or set the steady part yourself (--steady-from, --steady-to)",
                numbers={"windows": windows, "rule": "mser-cap", "effect": 1.0},
            )
        )
    elif status == "no-steady-state" and not steps:
        message = (
            "throughput or latency still trends at the end of the run (the trend test on "
            "the part after MSER's warm-up end, cap lifted to 80 % of the run): no steady state"
        )
        if summariser:
            message = (
                f"throughput still trends over the {windows} summariser windows (trend "
                "test): no steady state"
            )
        found.append(
            Finding(
                rule="load-no-steady-state",
                severity="problem",
                subject=subject,
                message=message,
                advice="run longer (the steady part should be at least half of the run)"
                + (
                    "; shorter summariser windows (jmeter -Jsummariser.interval=5) give the "
                    "rule more points"
                    if summariser
                    else ""
                )
                + "; or set the steady part yourself (--steady-from, --steady-to)",
                numbers={"windows": windows, "rule": "trend", "effect": 1.0},
            )
        )
    elif status == "warmup" and all_label.get("warmup_end_s"):
        end_s = float(all_label["warmup_end_s"])
        parts = [f"warm-up ends {_s(end_s)} s after the first sample"]
        rule_text = WARMUP_RULE_TEXT.get(str(all_label.get("warmup_rule")))
        if rule_text is not None:
            parts[0] += f" ({rule_text})"
        ramp_at = all_label.get("rampup_end_s")
        if ramp_at is not None and not steps:
            # (a stepped run's thread count reaches its top step there: load-steps and the
            # clause below say so, it is no ramp-up)
            parts.append(_ramp_text(float(ramp_at), ramp_threads))
        if tp.get("steady") is not None and tp.get("overall") is not None:
            parts.append(
                f"steady throughput {fmt_num(tp['steady'], sig=4)}/s vs "
                f"{fmt_num(tp['overall'], sig=4)}/s over the "
                "whole run"
            )
        lat_all, lat_steady = _mean(lat.get("overall")), _mean(lat.get("steady"))
        if lat_all is not None and lat_steady is not None:
            parts.append(
                f"mean latency {fmt_num(lat_steady)} ms steady vs {fmt_num(lat_all)} ms over the "
                "whole run"
            )
        if len(steps) > 1 and steps[0].end_s <= end_s + 1e-9:
            parts.append("the part before it holds earlier load steps, not a warm-up")
        # the transient's own figures against the steady part's where they are known: the
        # whole run's dilute a short one (30 s at twice the rate in 600 s: 5 % over it)
        head_tp, head_lat = _transient_figures(all_label, lat_steady, lat_all)
        if head_tp is None:
            head_tp, head_lat = tp.get("overall"), lat_all
        fast = not steps and _fast_start(tp.get("steady"), head_tp, lat_steady, head_lat)
        if fast:
            parts[0] = (
                f"the run starts faster than it goes on: the transient that ends {_s(end_s)} s "
                "after the first sample ran at a higher throughput or a lower latency than "
                "the rest, a fast start, not a warm-up (a cache, buffer, heap or table "
                "filling up)"
            )
        found.append(
            Finding(
                rule="load-fast-start" if fast else "load-warmup",
                severity="warning",
                subject=subject,
                message="; ".join(parts),
                advice=(
                    f"a run shorter than {_s(end_s)} s overstates the steady figures: report "
                    "those after it, and look for what fills up"
                    if fast
                    else "report steady-state figures, or drop the warm-up before comparing runs"
                ),
                numbers={
                    "warmup_end_s": end_s,
                    "rampup_end_s": all_label.get("rampup_end_s"),
                    "throughput_steady": tp.get("steady"),
                    "throughput_overall": tp.get("overall"),
                    "latency_mean_steady_ms": lat_steady,
                    "latency_mean_overall_ms": lat_all,
                },
            )
        )
        found += short_steady_findings(subject, all_label)
    return found


def _transient_figures(
    all_label: Mapping[str, Any], lat_steady: float | None, lat_all: float | None
) -> tuple[float | None, float | None]:
    """The throughput (/s) and mean latency (ms) of a run's part before its warm-up end,
    from ALL's whole-run and steady figures where the steady part runs to the end (no
    cool-down): its samples are the run's less the steady rate × the steady seconds, its
    latency what the whole run's mean leaves once the steady samples' is taken out.
    (None, None) with a cool-down, or with fewer than 10 samples before the end."""
    tp = all_label.get("throughput") or {}
    end, duration = all_label.get("warmup_end_s"), all_label.get("duration_s")
    samples, steady = all_label.get("samples"), tp.get("steady")
    if (
        all_label.get("cooldown_start_s") is not None
        or not end
        or not duration
        or not samples
        or steady is None
        or float(duration) <= float(end)
    ):
        return None, None
    steady_n = float(steady) * (float(duration) - float(end))
    head_n = float(samples) - steady_n
    if head_n < 10:
        return None, None
    head_lat = None
    if lat_steady is not None and lat_all is not None:
        head_lat = (float(samples) * lat_all - steady_n * lat_steady) / head_n
    return head_n / float(end), head_lat


def _fast_start(
    tp_steady: float | None,
    tp_head: float | None,
    lat_steady: float | None,
    lat_head: float | None,
    min_effect: float = 0.05,
) -> bool:
    """Whether a run's transient at the start was faster than its steady part: the steady
    throughput more than ``min_effect`` below the transient's (``tp_head``, ``lat_head``:
    its own figures, or the whole run's, which hold it and so lie between the two), or
    the steady mean latency more than ``min_effect`` above it, and neither better (a
    warm-up makes a server faster: JIT, caches; a thread ramp raises the throughput)."""

    def below(a: float | None, b: float | None) -> bool:
        return a is not None and b is not None and a < (1 - min_effect) * b

    def above(a: float | None, b: float | None) -> bool:
        return a is not None and b is not None and a > (1 + min_effect) * b

    slower = below(tp_steady, tp_head) or above(lat_steady, lat_head)
    faster = above(tp_steady, tp_head) or below(lat_steady, lat_head)
    return slower and not faster


def short_steady_findings(subject: str, all_label: Mapping[str, Any]) -> list[Finding]:
    """``load-short-steady``: the warm-up took more than half of the run, so the steady
    figures rest on its last part only (a long warm-up, :func:`warmup_end`'s
    ``mser-uncapped`` rule), or the warm-up and a cool-down (``cooldown_start_s``: threads
    finishing, throughput falling) together leave less than half of it between them. The
    steady part is the ``steady_window`` (seconds from the first sample start), or the
    warm-up end to the run's end; ``effect`` is the share of the run outside it. The
    advice: a run of at least twice the warm-up and cool-down, whose steady part is then
    at least half of it (MSER's own n/2 rule, White 1997)."""
    duration = float(all_label.get("duration_s") or 0.0)
    window = all_label.get("steady_window") or {}
    if window.get("source") not in (None, "detected") or duration <= 0:
        return []
    start = window.get("from_s", all_label.get("warmup_end_s"))
    if start is None:
        return []
    stop = min(duration, float(window.get("to_s", duration)))
    steady_s = max(0.0, stop - float(start))
    if steady_s >= duration / 2:
        return []
    cool_s = all_label.get("cooldown_start_s")
    cool = float(cool_s) if cool_s is not None else duration
    # a cool-down (threads finishing, throughput falling) ends the steady part early: it
    # is not the last part, and the warm-up alone does not make it short
    tail = max(0.0, duration - cool)
    longer = max(2, math.ceil(2 * (float(start) + tail) / duration))
    numbers: dict[str, float | int | str | None] = {
        "steady_s": steady_s,
        "duration_s": duration,
        "warmup_end_s": float(start),
        "longer": longer,
        "effect": 1.0 - steady_s / duration,
    }
    if tail:
        numbers["cooldown_start_s"] = cool
        message = (
            f"steady for {_s(round(steady_s))} s of {_s(round(duration))} s only "
            f"({_s(float(start))}–{_s(cool)} s): the warm-up takes "
            f"{_pct(float(start) / duration)} of the run and the cool-down from "
            f"{_s(cool)} s the last {_pct(tail / duration)}, so the steady figures "
            "rest on a short part"
        )
    else:
        message = (
            f"steady for the last {_s(round(steady_s))} s of {_s(round(duration))} s only: "
            f"the warm-up takes {_pct(float(start) / duration)} of the run, so the "
            "steady figures rest on a short part"
        )
    return [
        Finding(
            rule="load-short-steady",
            severity="warning",
            subject=subject,
            message=message,
            advice=f"run at least {longer}x longer to confirm the steady figures",
            numbers=numbers,
        )
    ]


# ---------------------------------------------------------------------------------------
# a slowdown at the end


#: a cool-down part whose threads average below this share of the steady part's has
#: threads finishing: its latency may rise through the mix of what still runs
SLOWDOWN_THREADS_SHARE = 0.95


def slowdown_findings(
    subject: str,
    series: WindowSeries,
    *,
    all_label: Mapping[str, Any],
    z: float = 3.0,
    min_effect: float = 0.05,
    batch: int = 5,
) -> list[Finding]:
    """``load-slowdown``: the part the cool-down rule cut from the end of the run
    (``cooldown_start_s``) has a higher mean latency than the steady part, by more than
    ``z`` SEs of the steady windows' latency batch means (``batch`` windows; 1 for a
    summariser log, whose windows are already long) and ``min_effect`` of it, while the
    threads hold their count (or are not known). Threads finishing one by one lower the
    throughput and, on a less loaded server, the latency; fewer completions at a higher
    latency with every thread still running is the server slowing down (Little's law:
    X = N / R), which the table would show as a cool-down. The steady figures still end
    where it starts. The last window is left out (cut by the run's end)."""
    cool, lo = all_label.get("cooldown_start_s"), all_label.get("warmup_end_s")
    window = all_label.get("steady_window") or {}
    if cool is None or lo is None or window.get("source") != "detected":
        return []
    t, n, lat, thr = series.t_s, series.n, series.mean_ms, series.threads
    inner = np.arange(t.size) < t.size - 1
    timed = inner & (n > 0) & np.isfinite(lat)
    steady = timed & (t >= float(lo)) & (t < float(cool))
    tail = timed & (t >= float(cool))
    m = int(steady.sum()) // batch
    if m < 2 or int(tail.sum()) < max(2, batch):
        return []

    def mean_latency(part: npt.NDArray[np.bool_]) -> float:
        return float((lat[part] * n[part]).sum() / n[part].sum())

    lat_steady, lat_tail = mean_latency(steady), mean_latency(tail)
    means = lat[steady][: m * batch].reshape(m, batch).mean(axis=1)
    se = float(means.std(ddof=1)) / math.sqrt(max(1.0, int(tail.sum()) / batch))
    rise = lat_tail - lat_steady
    if not (rise > z * se and rise > min_effect * lat_steady):
        return []
    threads_steady = thr[steady][np.isfinite(thr[steady])]
    threads_tail = thr[tail][np.isfinite(thr[tail])]
    known = threads_steady.size > 0 and threads_tail.size > 0
    if known and threads_tail.mean() < SLOWDOWN_THREADS_SHARE * threads_steady.mean():
        return []  # threads finishing: what still runs may be the slower requests
    rate_steady = float(n[steady].mean()) / series.window_s
    rate_tail = float(n[tail].mean()) / series.window_s
    held = (
        f"while the threads held at {fmt_num(float(threads_tail.mean()))}"
        if known
        else "(no thread counts: if no thread finished then)"
    )
    return [
        Finding(
            rule="load-slowdown",
            severity="warning",
            subject=subject,
            message=(
                f"from {_s(float(cool))} s the throughput fell to "
                f"{fmt_num(rate_tail)}/s from {fmt_num(rate_steady)}/s and the mean latency "
                f"rose to {fmt_num(lat_tail)} ms from {fmt_num(lat_steady)} ms {held}: the "
                "server slowed down at the end, which threads finishing would not do (they "
                "lower the throughput, not raise the latency); the steady figures end there"
            ),
            advice=(
                "look for what slowed the server then (a filling disk or heap, a growing "
                "table, a throttled CPU, a neighbour); a longer run shows whether it lasts"
            ),
            numbers={
                "start_s": float(cool),
                "throughput_steady": rate_steady,
                "throughput_after": rate_tail,
                "latency_steady_ms": lat_steady,
                "latency_after_ms": lat_tail,
                "effect": rise / lat_steady,
            },
        )
    ]


# ---------------------------------------------------------------------------------------
# gaps


def gap_findings(
    subject: str, series: WindowSeries, *, all_label: Mapping[str, Any], min_windows: int = 2
) -> list[Finding]:
    """``load-gap``: stretches of windows inside the run (not the first or last) with no
    completed sample, where the rate around them would have completed at least
    ``GAP_MIN_EXPECTED`` samples — a pause of the load generator, or every thread blocked
    on a stalled server. One finding for all of them; it says whether the steady figures
    include them. ``min_windows``: the fewest empty windows a gap spans (2; one for a
    summariser log, whose one window is ``summariser.interval``, 30 s by default)."""
    n = series.n
    if n.size < 3:
        return []
    w = series.window_s
    gaps = empty_stretches(n, min_windows)
    if not gaps:
        return []
    spans = [(float(series.t_s[i]), float(series.t_s[j - 1]) + w, e) for i, j, e in gaps]
    total = sum(b - a for a, b, _ in spans)
    status = all_label.get("warmup_status")
    lo, hi = all_label.get("warmup_end_s"), all_label.get("cooldown_start_s")
    end_run = float(series.t_s[-1]) + w
    if status in STEADY_STATUSES and lo is not None:
        s_lo, s_hi = float(lo), float(hi) if hi is not None else end_run
        overlap = sum(max(0.0, min(b, s_hi) - max(a, s_lo)) for a, b, _ in spans)
        if overlap > 0:
            effect = (
                f"the steady figures include {_s(overlap)} s of "
                f"{'it' if len(spans) == 1 else 'them'} (empty windows lower the steady "
                "throughput and widen its CI)"
            )
        elif all(b <= s_lo for _, b, _ in spans):
            effect = (
                f"the warm-up cut at {_s(s_lo)} s lies after "
                f"{'it' if len(spans) == 1 else 'them'}: the run before counts as warm-up"
            )
        else:
            effect = "outside the steady part"
    else:
        effect = "the run is not stationary"
    if len(spans) == 1:
        a, b, e = spans[0]
        message = (
            f"no samples completed from {_s(a)} s to {_s(b)} s ({_s(b - a)} s; ~{e:.0f} "
            f"expected at the rate around it): {effect}"
        )
    else:
        listed = ", ".join(f"{_s(a)}–{_s(b)} s" for a, b, _ in spans[:5])
        more = f" and {len(spans) - 5} more" if len(spans) > 5 else ""
        message = (
            f"no samples completed in {len(spans)} stretches ({listed}{more}; "
            f"{_s(total)} s in all): {effect}"
        )
    return [
        Finding(
            rule="load-gap",
            severity="warning",
            subject=subject,
            message=message,
            advice=(
                "look for a pause of the load generator or a server stall at that time "
                "(GC, a blocked dependency); rerun before comparing, or report the parts "
                "before and after it apart"
            ),
            numbers={
                "gaps": len(spans),
                "start_s": spans[0][0],
                "end_s": spans[0][1],
                "length_s": total,
            },
        )
    ]


# ---------------------------------------------------------------------------------------
# errors


def _g_split(errors: npt.NDArray[np.float64], counts: npt.NDArray[np.float64]) -> tuple[int, float]:
    """The split k (windows ``[0, k)`` vs ``[k, …)``) maximising the binomial likelihood
    ratio statistic G = 2·(ℓ(two rates) − ℓ(one rate)), and that G."""
    ce, cn = np.cumsum(errors), np.cumsum(counts)
    te, tn = ce[-1], cn[-1]

    def loglik(e: npt.NDArray[np.float64], m: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(m > 0, e / np.where(m > 0, m, 1), 0.0)
            a = np.where(e > 0, e * np.log(np.where(p > 0, p, 1)), 0.0)
            b = np.where(m - e > 0, (m - e) * np.log(np.where(p < 1, 1 - p, 1)), 0.0)
        return np.asarray(a + b, dtype=np.float64)

    e1, n1 = ce[:-1], cn[:-1]
    e2, n2 = te - e1, tn - n1
    whole = float(loglik(np.array([te]), np.array([tn]))[0])
    g = 2 * (loglik(e1, n1) + loglik(e2, n2) - whole)
    k_all = np.arange(1, errors.size)
    sides = (k_all >= ERROR_JUMP_MIN_WINDOWS) & (errors.size - k_all >= ERROR_JUMP_MIN_WINDOWS)
    g = np.where((n1 > 0) & (n2 > 0) & sides, g, -np.inf)
    k = int(np.argmax(g))
    return k + 1, float(g[k])


def error_findings(
    subject: str,
    labels: Sequence[Mapping[str, Any]],
    *,
    failed_mean_ms: Mapping[str, float | None],
    ok_mean_ms_all: float | None,
    series: WindowSeries | None,
    until_s: float | None = None,
) -> list[Finding]:
    """Error findings of a suite from its label dicts (``--json``; ``labels[0]``-wise the
    one named ALL is the aggregate):

    * ``load-errors``: ALL's error share ≥ ``ERROR_RATE_WARN`` (warning);
    * ``load-label-fails``: a label (≥ ``ALL_FAIL_MIN_SAMPLES`` samples) whose every
      sample failed; when its failures are faster than ALL's successful samples
      (``failed_mean_ms`` per label, ``ok_mean_ms_all``) and ALL's mean is
      ``FAIL_PULL_MIN`` or more below theirs, that they pull ALL's latency down;
    * ``load-error-change``: ALL's error rate changes within the run (the split of
      ``series.errors`` with the largest binomial G statistic, G ≥ ``ERROR_JUMP_G``, rates
      differing by ≥ ``ERROR_JUMP_MIN`` and a factor 2, each side ≥
      ``ERROR_JUMP_MIN_WINDOWS`` windows), over the windows up to ``until_s`` (the last
      sample start, s from the first).
    """
    found: list[Finding] = []
    all_label = next((x for x in labels if x.get("label") == "ALL"), None)
    if all_label is None:
        return found
    samples, errors = int(all_label.get("samples") or 0), int(all_label.get("errors") or 0)
    if samples and errors / samples >= ERROR_RATE_WARN:
        share = errors / samples
        # what the failures distort: only the figures this suite has
        overall_lat = (all_label.get("latency_ms") or {}).get("overall") or {}
        has_p95 = overall_lat.get("p95") is not None
        has_mean = overall_lat.get("mean") is not None
        has_tp = (all_label.get("throughput") or {}).get("overall") is not None
        if has_p95:
            effect = (
                "; failed samples count in the throughput and latency figures, as in "
                "JMeter's dashboard, and at 5% or more they can set the p95"
            )
            advice = (
                "find the cause of the failures before reading throughput or latency as "
                "the system's; compare runs only at similar error rates"
            )
        elif has_mean or has_tp:
            effect = (
                "; failed samples count in the throughput and mean latency, as in JMeter's "
                "summariser"
            )
            advice = (
                "find the cause of the failures before reading throughput or latency as "
                "the system's; compare runs only at similar error rates"
            )
        else:
            effect = (
                "; the file has no timings (elapsed, timeStamp), so that share is its only figure"
            )
            advice = "find the cause of the failures; compare runs only at similar error rates"
        found.append(
            Finding(
                rule="load-errors",
                severity="warning",
                subject=subject,
                message=f"{_pct(share)} of the samples failed ({errors} of {samples}){effect}",
                advice=advice,
                numbers={"error_rate": share, "errors": errors, "samples": samples},
            )
        )
    failing = []
    for lab in labels:
        name = lab.get("label")
        n, e = int(lab.get("samples") or 0), int(lab.get("errors") or 0)
        if name == "ALL" or lab.get("is_transaction") or n < ALL_FAIL_MIN_SAMPLES or e != n:
            continue
        mean = failed_mean_ms.get(str(name))
        failing.append(
            (
                str(name),
                n,
                mean if mean is not None else _mean((lab.get("latency_ms") or {}).get("overall")),
            )
        )
    if failing:
        listed = ", ".join(
            f"{name} ({n} samples" + (f", mean {fmt_num(m)} ms)" if m is not None else ")")
            for name, n, m in failing
        )
        one = len(failing) == 1
        message = f"{'label' if one else 'labels'} {listed}: every sample failed"
        numbers: dict[str, float | int | str | None] = {
            "labels": len(failing),
            "samples": sum(n for _, n, _ in failing),
        }
        failed_n = sum(n for _, n, _ in failing)
        failed_sum = sum(n * m for _, n, m in failing if m is not None)
        fast = (
            failed_sum / failed_n if failed_n and all(m is not None for *_, m in failing) else None
        )
        all_overall = _mean((all_label.get("latency_ms") or {}).get("overall"))
        if (
            fast is not None
            and ok_mean_ms_all is not None
            and fast < ok_mean_ms_all
            and all_overall is not None
            and all_overall <= (1 - FAIL_PULL_MIN) * ok_mean_ms_all
        ):
            message += (
                f"; {'its' if one else 'their'} fast failures pull ALL's mean latency down"
                + f" to {fmt_num(all_overall)} ms"
                + f" (ALL's successful samples: {fmt_num(ok_mean_ms_all)} ms)"
            )
            numbers["failed_mean_ms"] = fast
            numbers["ok_mean_ms_all"] = ok_mean_ms_all
        found.append(
            Finding(
                rule="load-label-fails",
                severity="warning",
                subject=subject,
                message=message,
                advice=(
                    "fix the request or its assertion, or drop the label from the plan; "
                    "its latency is that of failures, not of the service"
                ),
                numbers=numbers,
            )
        )
    if series is not None and series.errors is not None:
        # up to the window of the last sample start: later completions are the drain of
        # the samples still running at the end, slow failures (timeouts) above all
        keep = series.t_s <= until_s if until_s is not None else np.ones(series.n.size, bool)
        errs, counts, t_s = series.errors[keep], series.n[keep], series.t_s[keep]
        change = _g_split(errs, counts) if counts.size >= 2 * ERROR_JUMP_MIN_WINDOWS else None
    else:
        change = None
    if change is not None:
        k, g = change
        before = float(errs[:k].sum() / max(counts[:k].sum(), 1))
        after = float(errs[k:].sum() / max(counts[k:].sum(), 1))
        lo_rate, hi_rate = min(before, after), max(before, after)
        if g >= ERROR_JUMP_G and hi_rate - lo_rate >= ERROR_JUMP_MIN and hi_rate >= 2 * lo_rate:
            at = float(t_s[k])
            if after > before:
                text = f"error rate {_pct(after)} from {_s(at)} s ({_pct(before)} before)"
            else:
                text = f"error rate {_pct(before)} until {_s(at)} s ({_pct(after)} after)"
            found.append(
                Finding(
                    rule="load-error-change",
                    severity="warning",
                    subject=subject,
                    message=f"{text}: the error rate is not steady",
                    advice=(
                        "find what changed at that time (server logs, a dependency, the "
                        "test data running out); read the figures before and after apart"
                    ),
                    numbers={"at_s": at, "before": before, "after": after, "g": g},
                )
            )
    return found


#: share by which a run's JTL and its summariser log may differ in their sample counts
#: before they disagree (the log's last line may miss samples that complete after it)
LOG_COUNT_TOLERANCE = 0.001


def log_disagreement_findings(
    subject: str, *, jtl_samples: int, log_samples: int, summariser: str
) -> list[Finding]:
    """``load-log-disagrees``: a JTL and the summariser log of the same run (one suite)
    count different samples, beyond ``LOG_COUNT_TOLERANCE``: one of them misses part of
    the run (a listener that did not write everything, a log of another run).
    ``numbers["effect"]`` is the relative gap, |log − JTL| ÷ JTL."""
    if jtl_samples <= 0 and log_samples <= 0:
        return []
    gap = abs(log_samples - jtl_samples) / max(jtl_samples, 1)
    if gap <= LOG_COUNT_TOLERANCE:
        return []
    return [
        Finding(
            rule="load-log-disagrees",
            severity="warning",
            subject=subject,
            message=(
                f"the summariser log ({summariser!r}) counts {log_samples:,} samples, the "
                f"JTL {jtl_samples:,} ({_pct(gap)} apart): they do not describe the same "
                "samples; the figures here are the JTL's"
            ),
            advice=(
                "check that the log and the JTL are of the same run, and that the JTL "
                "listener saved every sample (or ingest them under different --suite names)"
            ),
            numbers={"effect": gap, "jtl_samples": jtl_samples, "log_samples": log_samples},
        )
    ]


# ---------------------------------------------------------------------------------------
# folding across suites (the report)

#: suites given their own finding of one kind; above this, one finding for all of them
FOLD_ABOVE = 4

#: Per load rule (and, for ``load-too-short``, its ``reason``): what the suites have, the
#: number in ``numbers`` that ranks them, and whether larger is worse; rules not listed
#: rank by suite name
LOAD_FOLDED: dict[str, tuple[str, str | None, bool]] = {
    "load-too-short/no-timestamps": (
        "no start or elapsed time on any sample (no windows, throughput or warm-up end)",
        "samples",
        True,
    ),
    "load-too-short/few-samples": ("too few samples for the warm-up rule", "samples", False),
    "load-too-short/few-windows": (
        "fewer full windows than the warm-up rule needs",
        "windows",
        False,
    ),
    "load-too-short/few-plateau-windows": (
        "fewer full windows with every thread running than the warm-up rule needs",
        "plateau_windows",
        False,
    ),
    "load-too-short/summariser": ("too few summariser windows", "windows", False),
    "load-no-samples": ("no samples", None, False),
    "load-no-steady-state": ("no steady state", None, False),
    "load-inconclusive": ("warm-up rules that disagree", None, False),
    "load-short-steady": ("a steady part shorter than half of the run", "effect", True),
    "load-warmup": ("a warm-up", "warmup_end_s", True),
    "load-fast-start": ("a fast start the run does not keep", "warmup_end_s", True),
    "load-steps": ("stepped thread counts", "steps", True),
    "load-gap": ("stretches with no completed sample", "length_s", True),
    "load-slowdown": ("a server that slows down at the end", "effect", True),
    "load-errors": ("5% or more failed samples", "error_rate", True),
    "load-label-fails": ("labels whose every sample failed", "samples", True),
    "load-error-change": ("an error rate that changes within the run", "g", True),
    "jmeter-percentile-window": (
        "labels over JMeter's 20,000-sample percentile window",
        "labels",
        True,
    ),
}


def _load_fold_key(f: Finding) -> str:
    reason = f.numbers.get("reason")
    return f"{f.rule}/{reason}" if f.rule == "load-too-short" and reason else f.rule


def _load_figure(value: float | int | str | None, key: str | None) -> str:
    if value is None or key is None or isinstance(value, str):
        return ""
    if key == "error_rate":
        return f" {fmt_error_pct(float(value))}"
    if key == "windows":
        return f" {plural(int(value), 'window')}"
    if key == "samples":
        return f" {plural(int(value), 'sample')}"
    if key in ("warmup_end_s", "length_s"):
        return f" {fmt_num(float(value))} s"
    return f" {fmt_num(float(value))}"


def fold_load_findings(
    found: Sequence[Finding], suites: int, limit: int = FOLD_ABOVE
) -> list[Finding]:
    """Load findings of all suites with a kind (rule; for ``load-too-short``, its reason)
    found in more than ``limit`` suites folded into one finding: the worst suite's own
    sentence, and the others by name with their figure (as the report's detection
    findings fold the warm-up engine's). Order kept by first appearance."""
    by_kind: dict[str, list[Finding]] = {}
    for f in found:
        by_kind.setdefault(_load_fold_key(f), []).append(f)
    out: list[Finding] = []
    for kind, group in by_kind.items():
        if len({f.subject for f in group}) <= limit:
            out.extend(group)
            continue
        what, key, larger_worse = LOAD_FOLDED.get(kind, (f"{group[0].rule} findings", None, False))

        def rank(
            f: Finding, key: str | None = key, sign: float = -1.0 if larger_worse else 1.0
        ) -> tuple[int, float, str]:
            sev = ("problem", "warning", "info").index(f.severity)
            value = f.numbers.get(key) if key is not None else None
            number = float(value) if isinstance(value, int | float) else math.inf
            return sev, sign * number if math.isfinite(number) else math.inf, f.subject

        group.sort(key=rank)
        worst = group[0]
        others = [
            f"{f.subject}{_load_figure(f.numbers.get(key) if key else None, key)}"
            for f in group[1:]
        ]
        subjects = len({f.subject for f in group})
        message = f"{subjects} of {suites} load suites have {what}; the worst: {worst.message}" + (
            f"; also {name_list(others, limit=6)}" if others else ""
        )
        out.append(
            Finding(
                rule=worst.rule,
                severity=worst.severity,
                subject=f"{subjects} of {suites} load suites",
                message=message,
                advice=f"{worst.subject}: {worst.advice}",
                numbers={
                    "suites": subjects,
                    "worst": worst.subject,
                    **({key: worst.numbers.get(key)} if key else {}),
                },
            )
        )
    return out


def percentile_window_finding(
    suite: str, windowed: Sequence[Mapping[str, Any]], window: int
) -> Finding:
    """``jmeter-percentile-window`` for a suite: its labels with more than ``window``
    samples (their ``jmeter-percentile-window`` finding dicts) in one finding, the largest
    first; ``effect`` is the number of labels."""
    ranked = sorted(windowed, key=lambda i: -int(i["numbers"]["samples"]))
    examples = [f"{i['subject']} {int(i['numbers']['samples']):,}" for i in ranked]
    return Finding(
        rule="jmeter-percentile-window",
        severity="info",
        subject=suite,
        message=(
            f"{suite}: {plural(len(ranked), 'label')} "
            f"{'has' if len(ranked) == 1 else 'have'} more than "
            f"{window:,} samples ({name_list(examples)}): JMeter's "
            f"dashboard computes their percentiles over the last "
            f"{window:,} samples only"
        ),
        advice=str(ranked[0]["advice"]),
        numbers={"labels": len(ranked), "effect": float(len(ranked))},
    )


def finding_from_json(item: Mapping[str, Any]) -> Finding:
    """A finding dict of a ``--json`` payload back as a :class:`Finding`."""
    return Finding(
        rule=str(item["rule"]),
        severity=item["severity"],
        subject=str(item["subject"]),
        message=str(item["message"]),
        advice=str(item["advice"]),
        numbers=dict(item.get("numbers") or {}),
    )


def suite_load_findings(suite: Mapping[str, Any], window: int) -> list[Finding]:
    """A load suite's findings from its ``warmup load --json`` entry, each naming the
    suite; the per-label JMeter percentile-window notes (labels over ``window`` samples)
    folded into one (:func:`percentile_window_finding`)."""
    name = str(suite["suite"])
    found: list[Finding] = []
    windowed = []
    for item in suite["findings"]:
        if item["rule"] == "jmeter-percentile-window":
            windowed.append(item)
            continue
        f = finding_from_json(item)
        if not f.message.startswith(name):
            f = replace(f, subject=name, message=f"{name}: {f.message}")
        found.append(f)
    if windowed:
        found.append(percentile_window_finding(name, windowed, window))
    return found


def load_family_findings(suites: Sequence[Mapping[str, Any]], window: int) -> list[Finding]:
    """Every load suite's findings (:func:`suite_load_findings`), a kind found in more than
    :data:`FOLD_ABOVE` suites folded into one (:func:`fold_load_findings`)."""
    found = [f for suite in suites for f in suite_load_findings(suite, window)]
    return fold_load_findings(found, len(suites))


#: JMeter's dashboard computes a label's percentiles over its last this many samples
#: (``jmeter.reportgenerator.statistic_window``, research/jmeter.md §0).
JMETER_STATISTIC_WINDOW = 20_000


def label_percentile_window_finding(label: str, samples: int) -> Finding:
    """``jmeter-percentile-window`` (info): a label with more than
    :data:`JMETER_STATISTIC_WINDOW` samples, whose percentiles JMeter's dashboard computes
    over its last samples only."""
    return Finding(
        rule="jmeter-percentile-window",
        severity="info",
        subject=label,
        message=(
            f"{samples} samples: JMeter's dashboard computes this label's "
            f"percentiles over its last {JMETER_STATISTIC_WINDOW} samples only"
        ),
        advice="use the exact percentiles here (all samples, or the steady part)",
        numbers={"samples": samples},
    )


def several_summarisers_finding(subject: str, names: Sequence[str]) -> Finding:
    """``load-several-summarisers`` (info): a log with more than one summariser; the first
    is ALL, each other one its own label (their samples overlap, never added up)."""
    return Finding(
        rule="load-several-summarisers",
        severity="info",
        subject=subject,
        message=(
            f"{subject}: {len(names)} summarisers in the log ({', '.join(names)}); "
            f"ALL is {names[0]!r}, each other one is its own label (their samples "
            "overlap, so they are not added up)"
        ),
        advice="",
        numbers={"summarisers": len(names), "all": names[0]},
    )
