"""The store side of :mod:`toolkit.analyze.load_findings`: the few aggregates its rules need
beyond :mod:`toolkit.pipeline.load`'s (the span of ALL's completions, mean latency of failed and
successful samples), in SQL, and the findings of one suite."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from toolkit.analyze.findings import Finding
from toolkit.analyze.load_findings import (
    LoadStep,
    dense_series,
    error_findings,
    gap_findings,
    load_steps,
    slowdown_findings,
    step_finding,
    warmup_findings,
)
from toolkit.analyze.timeseries import RAMP_PLATEAU_QUANTILE, LabelLoad
from toolkit.pipeline.summariser import summariser_windows, summary_steps, summary_window_series
from toolkit.store import Store


def sample_suite_findings(
    store: Store,
    groups: str,
    name: str,
    labels: Sequence[Mapping[str, Any]],
    windows_all: pl.DataFrame | None,
    *,
    t0: int | None,
    window_s: float,
    failed_mean_ms: Mapping[str, float | None],
    all_result: LabelLoad,
) -> list[Finding]:
    """Warm-up/too-short, load-step, gap and error findings of a JTL suite, whose
    :func:`~toolkit.pipeline.load.sample_groups` table is ``groups``. ``labels``:
    the suite's ``--json`` label dicts; ``windows_all``: ALL's window frame (``w``, ``n``,
    ``mean_ms``, ``threads``), None without samples; ``t0``: the first sample start (ms);
    ``failed_mean_ms``: each label's mean elapsed time of its failed samples (ms);
    ``all_result``: ALL's analysis, whose thread ramp bounds the windows its warm-up rule
    had."""
    from toolkit.pipeline.load import _ALL_FILTER, ALL

    all_label = next(x for x in labels if x["label"] == ALL)
    if t0 is None or windows_all is None or windows_all.height == 0:
        return warmup_findings(
            name, all_label, windows=0, window_s=window_s, timed=False
        ) + error_findings(name, labels, failed_mean_ms={}, ok_mean_ms_all=None, series=None)
    frame = windows_all.sort("w")
    series = dense_series(
        frame["w"].to_numpy(),
        frame["n"].to_numpy(),
        frame["mean_ms"].to_numpy(),
        frame["threads"].to_numpy() if "threads" in frame.columns else None,
        window_s=window_s,
        errors=frame["errors"].fill_null(0).to_numpy(),
    )
    steps = load_steps(series)
    # one pass over ALL's samples: the span of its completions, the mean elapsed of its
    # successful samples and its last start
    row = store.con.execute(
        f"""SELECT min(end_min) - ?, max(end_max) - ?,
                   (sum(elapsed_ms::HUGEINT * n) FILTER (success))::DOUBLE
                   / sum(n) FILTER (success AND elapsed_ms IS NOT NULL),
                   (max(start_max) - ?) / 1000.0
            FROM {groups} WHERE {_ALL_FILTER}""",
        [t0, t0, t0],
    ).fetchone()
    span, ok_row = (row[:2], row[2:]) if row is not None else (None, None)
    completion_ms = (
        (int(span[0]), int(span[1])) if span is not None and span[0] is not None else None
    )
    gaps = gap_findings(name, series, all_label=all_label)
    gaps += slowdown_findings(name, series, all_label=all_label)
    errors = error_findings(
        name,
        labels,
        failed_mean_ms=failed_mean_ms,
        ok_mean_ms_all=None if ok_row is None or ok_row[0] is None else float(ok_row[0]),
        series=series,
        until_s=None if ok_row is None or ok_row[1] is None else float(ok_row[1]),
    )
    ramp_threads = ramp_windows = None
    ramp_s = all_label.get("rampup_end_s")
    if ramp_s is not None:
        # the windows up to the ramp-up end, and the plateau it reaches (the level
        # timeseries.thread_ramp_end looks for; the window itself may be within 2 % below)
        at = int(np.searchsorted(series.t_s, float(ramp_s) + 1e-6)) - 1
        known = series.threads[np.isfinite(series.threads)]
        if known.size:
            ramp_threads = float(np.round(np.quantile(known, RAMP_PLATEAU_QUANTILE), 1))
        ramp_windows = max(0, at)  # the partial first window is no full window
    first_full = int(frame["w"][0]) + 1  # the partial first window is no full window
    plateau_windows, rampdown_s = _plateau(all_result, first_full, series.n.size - 2, window_s)
    return _suite_findings(
        name,
        all_label,
        steps,
        gaps,
        errors,
        windows=max(0, series.n.size - 2),
        window_s=window_s,
        ramp_threads=ramp_threads,
        ramp_windows=ramp_windows,
        completion_ms=completion_ms,
        plateau_windows=plateau_windows,
        rampdown_s=rampdown_s,
    )


def _plateau(
    all_result: LabelLoad, first_full: int, windows: int, window_s: float
) -> tuple[int | None, float | None]:
    """The full windows that ALL's warm-up rule looked at where the threads ramp up or
    down (:func:`~toolkit.analyze.timeseries.analyze_windows`: from its ``rampup_window``
    to its ``rampdown_window``, window indices from the first sample start, of the
    ``windows`` full ones from ``first_full`` on), and the ramp-down's start (s); (None,
    None) when the threads ramp neither up nor down."""
    ramp = all_result.rampup_window or first_full
    down = all_result.rampdown_window
    if down is not None and down <= ramp:
        down = None  # no ramp-down after the ramp-up: the rule ignored it too
    if all_result.rampup_window is None and down is None:
        return None, None
    limit = down if down is not None else first_full + windows
    return limit - ramp, None if down is None else round(down * window_s, 6)


def _suite_findings(
    name: str,
    all_label: Mapping[str, Any],
    steps: Sequence[LoadStep],
    gaps: list[Finding],
    errors: list[Finding],
    **warmup_args: Any,
) -> list[Finding]:
    """A suite's findings in report order: warm-up (:func:`warmup_findings` with
    ``warmup_args``; a gap or error change is its cause when there is no steady state),
    load steps, gaps, errors."""
    found = warmup_findings(
        name,
        all_label,
        steps=steps,
        causes=[f for f in gaps + errors if f.rule in ("load-gap", "load-error-change")],
        **warmup_args,
    )
    if steps:
        found.append(step_finding(name, steps, warmup_end_s=all_label.get("warmup_end_s")))
    return found + gaps + errors


def summary_suite_findings(
    store: Store, suite_id: int, name: str, main: str | None, all_label: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Warm-up/too-short/no-steady-state, load-step, gap and error findings of a
    summariser-log suite from its ``ALL`` label dict (``main``: the summariser ALL comes
    from), as ``--json`` dicts: the JTL rules on the log's windows
    (:func:`toolkit.pipeline.summariser.summary_window_series`; a gap spans one window)."""
    frame = summariser_windows(store, suite_id, main, timed_only=True) if main else None
    series = summary_window_series(frame) if frame is not None else None
    steps = summary_steps(series) if series is not None else []
    gaps = (
        gap_findings(name, series, all_label=all_label, min_windows=1)
        + slowdown_findings(name, series, all_label=all_label, batch=1)
        if series is not None
        else []
    )
    errors = error_findings(
        name, [all_label], failed_mean_ms={}, ok_mean_ms_all=None, series=series
    )
    ramp_threads = ramp_windows = None
    ramp_s = all_label.get("rampup_end_s")
    if frame is not None and ramp_s is not None:
        # the ramp-up ends with a window's end: the windows up to it, and its Active:
        ends = frame["seconds"].cum_sum().to_numpy()
        ramp_windows = int(np.searchsorted(ends, float(ramp_s) - 1e-6)) + 1
        ramp_threads = float(frame["active_threads"][ramp_windows - 1])
    found = _suite_findings(
        name,
        all_label,
        steps,
        gaps,
        errors,
        windows=frame.height if frame is not None else 0,
        window_s=None,
        summariser=True,
        summary_seconds=[float(x) for x in frame["seconds"]] if frame is not None else None,
        ramp_threads=ramp_threads,
        ramp_windows=ramp_windows,
    )
    return [f.as_json() for f in found]
