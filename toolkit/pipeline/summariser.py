"""The ``summary +`` windows of a summariser-log suite, read one summariser at a time.

A jmeter.log or console may hold several summarisers: JMeter's own (``summariser.name``,
``summary`` by default, over every sample but transaction controllers) and any "Generate
Summary Results" element of the plan under its own name, over the samples in its scope
(research/jmeter.md §3). Their windows overlap in time and in samples, so they are never
added up: ``warmup load`` and the report analyse each summariser as its own series. ALL is
the default ``summary`` summariser (else the only one, else the one with the most
samples); each other summariser is a label named after it.
"""

from __future__ import annotations

import polars as pl

from toolkit.analyze.load_findings import (
    LoadStep,
    WindowSeries,
    load_steps,
    summary_series,
)
from toolkit.analyze.timeseries import SUMMARY_MIN_WINDOWS, summary_interval
from toolkit.ingest.jmeter_log import window_duration
from toolkit.store import Store

#: the name JMeter gives its own summariser (``summariser.name`` in jmeter.properties)
DEFAULT_SUMMARISER = "summary"


def summarisers(store: Store, suite_id: int) -> list[str]:
    """The suite's summariser names, the one ALL stands for first, then in log order."""
    rows = store.con.execute(
        """SELECT name, sum(count) AS n, min(line) AS first FROM load_windows
           WHERE suite_id = ? AND kind = '+' GROUP BY name ORDER BY min(source_id), first""",
        [suite_id],
    ).fetchall()
    names = [str(r[0]) for r in rows]
    if not names:
        return []
    if DEFAULT_SUMMARISER in names:
        main = DEFAULT_SUMMARISER
    else:
        main = str(max(rows, key=lambda r: int(r[1]))[0])  # ties: the first in the log
    return [main, *(n for n in names if n != main)]


def summariser_windows(
    store: Store,
    suite_id: int,
    name: str,
    *,
    timed_only: bool = False,
    source_id: int | None = None,
) -> pl.DataFrame:
    """The ``summary +`` windows of one summariser in log order: count, seconds (the
    window's length, :func:`toolkit.ingest.jmeter_log.window_duration`: count ÷ printed
    rate where that is the more precise), avg_ms, min_ms, max_ms, errors,
    ``active_threads`` (the line's ``Active:``, null without one, and null for ``Active:
    0`` in a window where samples completed: a line printed after the last thread ended,
    as every run's last line is) and ``window_end`` (the
    line's time: its log timestamp, else the console's test start plus the windows'
    seconds; null when the log has neither). ``timed_only``: without windows of zero
    length.

    A hole in a log's times — a line whose window starts (its time less its seconds) more
    than half an interval (:func:`toolkit.analyze.timeseries.summary_interval`) after the
    previous line of the same file — is added to that line's window: no sample completed
    in it, as in the long window JMeter prints after a stall (it prints a line only when
    a sample completes), so rates and times into the run count it. ``source_id``: one
    log file's windows only (a JTL suite joined with its run's console and jmeter.log).

    A first window of one started thread, after which the next line shows every thread
    of the run started, is a setUp thread group's (JMeter runs it alone before the main
    groups): its ``Active:`` is null, as it is no step of a ramp-up (real
    pg_point_lookup_10t_60s.log: ``1 in 00:00:01 ... Active: 1 Started: 1``, then
    ``Active: 10 Started: 10`` for a plan with ramp-up 0 — read as a ramp to 9.16 s)."""
    frame = store.frame(
        """SELECT source_id, count, seconds, rate, avg_ms, min_ms, max_ms, errors,
                  active_threads::DOUBLE AS active_threads, started, window_end
           FROM load_windows
           WHERE suite_id = ? AND kind = '+' AND name = ?
             AND (source_id = ? OR ? IS NULL) ORDER BY source_id, line""",
        [suite_id, name, source_id, source_id],
    )
    durations = [
        window_duration(int(c), float(s), None if r is None else float(r))
        for c, s, r in zip(frame["count"], frame["seconds"], frame["rate"], strict=True)
    ]
    ends = (frame["window_end"].dt.epoch("us") / 1e6).to_list()
    sources = frame["source_id"].to_list()
    interval = summary_interval(durations)
    for i in range(1, len(durations)):
        if ends[i] is None or ends[i - 1] is None or sources[i] != sources[i - 1]:
            continue
        hole = ends[i] - durations[i] - ends[i - 1]
        if durations[i] > 0 and hole > 0.5 * interval:
            durations[i] += hole
    frame = frame.with_columns(
        pl.Series("seconds", durations, dtype=pl.Float64),
        # Active: is counted when the line is printed; the last line of a run is printed
        # after every thread finished (Active: 0) though samples completed in its window:
        # its threads are unknown, not 0 (read as 0, a real JMeter 5.5 run's 4 s last
        # window put 3.77 of 4 threads in the steady part: Little's law "inconsistent")
        pl.when((pl.col("active_threads") == 0) & (pl.col("count") > 0))
        .then(None)
        .otherwise(pl.col("active_threads"))
        .alias("active_threads"),
    )
    if _setup_first_window(frame["started"].to_list()):
        frame = frame.with_columns(
            pl.when(pl.int_range(pl.len()) == 0)
            .then(None)
            .otherwise(pl.col("active_threads"))
            .alias("active_threads")
        )
    frame = frame.drop("rate", "source_id", "started")
    return frame.filter(pl.col("seconds") > 0) if timed_only else frame


def _setup_first_window(started: list[int | None]) -> bool:
    """Whether the first ``summary +`` window is a setUp thread group's: one thread
    started in it, and every thread of the run (more than one) by the next line."""
    known = [s for s in started if s is not None]
    if len(started) < 2 or started[0] != 1 or started[1] is None or not known:
        return False
    return max(known) > 1 and started[1] == max(known)


def summary_window_series(frame: pl.DataFrame) -> WindowSeries:
    """:func:`toolkit.analyze.load_findings.summary_series` of a :func:`summariser_windows`
    frame of windows of non-zero length (``timed_only``)."""
    return summary_series(
        frame["seconds"].to_numpy(),
        frame["count"].to_numpy(),
        errors=frame["errors"].fill_null(0).to_numpy(),
        mean_ms=frame["avg_ms"].to_numpy(),
        threads=frame["active_threads"].to_numpy(),
    )


def summary_steps(series: WindowSeries) -> list[LoadStep]:
    """:func:`toolkit.analyze.load_findings.load_steps` on a summariser series: plateaus
    of ≥ 4 windows (and 30 s), each step's transient by MSER-1 (the coarse windows)."""
    return load_steps(series, min_windows=SUMMARY_MIN_WINDOWS, batch=1)
