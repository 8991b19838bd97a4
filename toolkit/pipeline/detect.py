"""Warm-up detection over the iteration suites of a store, and the ``warmup detect --json``
payload (``schemas/detect.schema.json``).

Each (suite, query, process) series, in iteration order with the cold run (iteration 0)
first and failed runs as gaps, goes through :func:`toolkit.analyze.warmup.analyze_series`.
Also the per-query steady reference for ``warmup gaps --reference steady``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from toolkit.analyze.changepoints import PENALTY_FACTORS
from toolkit.analyze.findings import Finding
from toolkit.analyze.iteration_findings import MAX_SERIES_RUNS, iteration_findings
from toolkit.analyze.resolution import FORMAT_RESOLUTION_S
from toolkit.analyze.warmup import (
    SeriesAnalysis,
    analyze_series,
    classify_processes,
    revealed_resolutions,
)
from toolkit.analyze.window_error import SteadySeries
from toolkit.options import PENALTY_NAMES, detect_options
from toolkit.store import Store

__all__ = [
    "SeriesDetection",
    "comparator_summary",
    "detect_options",
    "detect_payload",
    "detect_series",
    "detections_frame",
    "process_groups",
    "steady_reference_of",
    "steady_reference_s",
    "steady_series",
    "still_warming_shares",
]

#: The ClickBench tag that marks JVM-based systems (research/clickbench.md §3).
JVM_TAG = "Java"


# every penalty the analyzer scales by n is one --penalty names
assert set(PENALTY_FACTORS) <= set(PENALTY_NAMES)


@dataclass(frozen=True)
class SeriesDetection:
    """One analysed series with its identity. ``jvm``: the suite carries the tag "Java";
    ``times``: seconds by iteration (index 0 = cold run, NaN = failed or missing run);
    ``resolution_s``: :data:`toolkit.analyze.resolution.FORMAT_RESOLUTION_S` of the
    suite's file format."""

    suite_id: int
    suite: str
    system: str | None
    jvm: bool
    query: str
    query_index: int
    process: int
    analysis: SeriesAnalysis
    times: tuple[float, ...] = ()
    #: the timer resolution its format declares, seconds (ClickBench: 1 ms; 0 = none)
    resolution_s: float = 0.0
    #: runs beyond :data:`~toolkit.analyze.iteration_findings.MAX_SERIES_RUNS`, not read
    runs_not_analysed: int = 0

    @property
    def min_hot_s(self) -> float | None:
        """The fastest hot run (iteration ≥ 1): this series' min-all reference."""
        hot = [t for t in self.times[1:] if math.isfinite(t)]
        return min(hot) if hot else None

    def to_polars(self) -> pl.DataFrame:
        """This series' verdict as a one-row frame (see :func:`detections_frame`)."""
        return detections_frame([self])


def detect_series(
    store: Store,
    *,
    suites: Sequence[str] | None = None,
    suite_ids: Sequence[int] | None = None,
    comparators: bool = False,
    seed: int = 0,
    **options: Any,
) -> list[SeriesDetection]:
    """Analyse every series of the iteration suites in ``store`` (or the named ones).

    ``options`` are passed to :func:`analyze_series` (penalty, equivalence, …); each
    series' bootstrap uses ``seed`` so results are reproducible.
    """
    ids = list(suite_ids) if suite_ids is not None else store.suite_ids(suites, kind="iterations")
    if not ids:
        return []
    meta = {
        int(r[0]): (str(r[1]), r[2], list(r[3] or []))
        for r in store.con.execute(
            "SELECT suite_id, name, system, tags FROM suites WHERE list_contains(?, suite_id)",
            [ids],
        ).fetchall()
    }
    # the coarsest declared resolution of a suite's source formats (ClickBench: 1 ms)
    declared: dict[int, float] = {}
    for suite_id, fmt in store.con.execute(
        "SELECT ss.suite_id, src.format FROM suite_sources ss JOIN sources src USING (source_id) "
        "WHERE list_contains(?, ss.suite_id)",
        [ids],
    ).fetchall():
        step = FORMAT_RESOLUTION_S.get(str(fmt), 0.0)
        declared[int(suite_id)] = max(declared.get(int(suite_id), 0.0), step)
    # the first MAX_SERIES_RUNS runs of each series: memory bounded whatever the input
    frame = store.frame(
        "SELECT suite_id, query, query_index, process, iteration, seconds FROM iterations "
        "WHERE list_contains(?, suite_id) AND iteration < ? "
        "ORDER BY suite_id, query_index, process, iteration",
        [ids, MAX_SERIES_RUNS],
    )
    beyond = {
        (int(s), int(q), int(p)): int(n)
        for s, q, p, n in store.con.execute(
            "SELECT suite_id, query_index, process, count(*) FROM iterations "
            "WHERE list_contains(?, suite_id) AND iteration >= ? GROUP BY ALL",
            [ids, MAX_SERIES_RUNS],
        ).fetchall()
    }
    out: list[SeriesDetection] = []
    if frame.height == 0:
        return out
    sid = frame["suite_id"].to_numpy()
    qidx = frame["query_index"].to_numpy()
    proc = frame["process"].to_numpy()
    it = frame["iteration"].to_numpy()
    secs = frame["seconds"].fill_null(float("nan")).to_numpy().astype(np.float64)
    queries = frame["query"].to_list()
    change = np.flatnonzero((np.diff(sid) != 0) | (np.diff(qidx) != 0) | (np.diff(proc) != 0))
    starts = np.concatenate(([0], change + 1)).tolist()
    ends = np.concatenate((change + 1, [frame.height])).tolist()
    all_series = []
    for a, b in zip(starts, ends, strict=True):
        iters = it[a:b]
        # place each run at its iteration number; missing iterations are gaps (NaN)
        series = np.full(int(iters.max()) + 1, np.nan)
        series[iters] = secs[a:b]
        all_series.append(series)
    revealed = _revealed_by_length(all_series)
    for a, series, shown in zip(starts, all_series, revealed, strict=True):
        s = int(sid[a])
        name, system, tags = meta[s]
        subject = f"{name} {queries[a]} process {int(proc[a])}"
        series_options = dict(options)
        if series_options.get("resolution") is None and declared.get(s, 0.0) > 0:
            # the format's resolution unless the runs show a coarser grid
            series_options["resolution"] = max(declared[s], shown)
        analysis = analyze_series(
            series, subject=subject, comparators=comparators, seed=seed, **series_options
        )
        out.append(
            SeriesDetection(
                s,
                name,
                system,
                JVM_TAG in tags,
                str(queries[a]),
                int(qidx[a]),
                int(proc[a]),
                analysis,
                tuple(float(v) for v in series),
                declared.get(s, 0.0),
                beyond.get((s, int(qidx[a]), int(proc[a])), 0),
            )
        )
    return out


def _revealed_by_length(series: Sequence[npt.NDArray[np.float64]]) -> list[float]:
    """:func:`toolkit.analyze.warmup.revealed_resolution` of each of ``series``, the series
    of one length at a time in one array (:func:`revealed_resolutions`; one call per
    series cost more than the 3-run arrays of 2,000 ClickBench results)."""
    out = [0.0] * len(series)
    by_length: dict[int, list[int]] = {}
    for n, values in enumerate(series):
        by_length.setdefault(values.size, []).append(n)
    for members in by_length.values():
        found = revealed_resolutions(np.stack([series[n] for n in members]))
        for n, value in zip(members, found.tolist(), strict=True):
            out[n] = value
    return out


def steady_reference_of(results: Sequence[SeriesDetection]) -> dict[str, float | None]:
    """Per-query steady seconds from analysed series of one suite: the median over the
    query's processes of their steady values; None when any process has no steady state
    or is too short to have one (Barrett et al. 2017: a pair with a no-steady-state
    pexec gets no steady performance; research §1.6)."""
    per_query: dict[str, list[float | None]] = {}
    for det in results:
        per_query.setdefault(det.query, []).append(det.analysis.steady_s)
    out: dict[str, float | None] = {}
    for query, values in per_query.items():
        if any(v is None or not math.isfinite(v) for v in values):
            out[query] = None
        else:
            out[query] = float(np.median([v for v in values if v is not None]))
    return out


def steady_reference_s(store: Store, suite_id: int) -> Mapping[str, float | None]:
    """Per-query steady seconds of one suite for ``warmup gaps --reference steady``
    (:func:`steady_reference_of` over :func:`detect_series` of the suite)."""
    return steady_reference_of(detect_series(store, suite_ids=[suite_id]))


def steady_series(results: Sequence[SeriesDetection]) -> list[SteadySeries]:
    """The analysed series that have a steady state, as input for the short-window error
    grid (:func:`toolkit.analyze.window_error.window_error_grid`)."""
    out = []
    for d in results:
        a = d.analysis
        if a.steady_s is None or a.steady_iteration is None or not math.isfinite(a.steady_s):
            continue
        label = f"{d.suite} {d.query} process {d.process}"
        out.append(SteadySeries(d.times, a.steady_s, a.steady_iteration, label))
    return out


def comparator_summary(results: Sequence[SeriesDetection]) -> list[dict[str, Any]]:
    """Per stopping rule (MSER-5, Georges, Laaber; research §8.8–8.10), over the series
    analysed with comparators that have a steady state: how many it stopped on, how many
    of those it stopped before the engine's steady iteration ("premature": it would have
    measured warm-up), the median stop error in iterations and seconds, and the median
    absolute error of the value it would have reported (fraction of the steady value)."""
    rows: dict[str, dict[str, Any]] = {}
    for d in results:
        a = d.analysis
        if a.steady_iteration is None:
            continue
        for r in a.comparators:
            row = rows.setdefault(
                r.rule,
                {
                    "rule": r.rule,
                    "series": 0,
                    "stopped": 0,
                    "premature": 0,
                    "_it": [],
                    "_t": [],
                    "_v": [],
                },
            )
            row["series"] += 1
            if r.stop is None:
                continue
            row["stopped"] += 1
            if r.iteration_error is not None:
                row["_it"].append(r.iteration_error)
                row["premature"] += int(r.iteration_error < 0)
            if r.time_error_s is not None:
                row["_t"].append(r.time_error_s)
            if r.value_error is not None:
                row["_v"].append(abs(r.value_error))
    out = []
    for row in rows.values():
        its, ts, vs = row.pop("_it"), row.pop("_t"), row.pop("_v")
        row["median_iteration_error"] = float(np.median(its)) if its else None
        row["median_time_error_s"] = float(np.median(ts)) if ts else None
        row["median_abs_value_error"] = float(np.median(vs)) if vs else None
        out.append(row)
    return out


def process_groups(results: Sequence[SeriesDetection]) -> list[dict[str, Any]]:
    """(suite, query) pairs with several processes: the class counts and the group class,
    the common class or good / bad inconsistent (Barrett et al. 2017 §4.3; research §8.5)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for d in results:
        groups.setdefault((d.suite, d.query), []).append(d.analysis.series_class)
    rows = []
    for (suite, query), classes in groups.items():
        if len(classes) < 2:
            continue
        counts: dict[str, int] = {}
        for c in classes:
            counts[c] = counts.get(c, 0) + 1
        rows.append(
            {
                "suite": suite,
                "query": query,
                "processes": len(classes),
                "class": classify_processes(classes),
                "counts": counts,
            }
        )
    return rows


def still_warming_shares(results: Sequence[SeriesDetection]) -> dict[str, dict[str, float | int]]:
    """Share of short series flagged still-warming, for JVM (tag "Java") and other
    systems: ``{"jvm": {"series", "still_warming", "share"}, "native": {...}}``."""
    out: dict[str, dict[str, float | int]] = {}
    for group, want in (("jvm", True), ("native", False)):
        shorts = [d for d in results if d.jvm == want and d.analysis.short is not None]
        flagged = sum(
            1 for d in shorts if d.analysis.short is not None and d.analysis.short.still_warming
        )
        out[group] = {
            "series": len(shorts),
            "still_warming": flagged,
            "share": flagged / len(shorts) if shorts else 0.0,
        }
    return out


def _num(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def detect_payload(
    results: Sequence[SeriesDetection], findings: Sequence[Finding] | None = None
) -> dict[str, Any]:
    """The ``warmup detect --json`` document (``schemas/detect.schema.json``): one entry
    per series with the DESIGN.md contract keys (times in seconds), process groups, the
    iteration findings (:func:`toolkit.analyze.iteration_findings.iteration_findings`,
    folded across suites as the report shows them) and a summary. When the series
    were analysed with comparators, each series carries ``comparators`` (where each rule
    stopped and how wrong it was) and the summary :func:`comparator_summary`.
    ``findings``: the findings to give (default: the iteration rules' with their default
    thresholds; ``warmup detect`` passes the findings engine's)."""
    with_comparators = any(d.analysis.comparators for d in results)
    series: list[dict[str, Any]] = []
    for d in results:
        a = d.analysis
        sh = a.short
        series.append(
            {
                "suite": d.suite,
                "system": d.system,
                "jvm": d.jvm,
                "query": d.query,
                "process": d.process,
                "class": a.series_class,
                "runs": a.n,
                "steady_iteration": a.steady_iteration,
                "time_to_steady_s": _num(a.time_to_steady_s),
                "steady_s": _num(a.steady_s),
                "steady_ci": [_num(a.steady_ci[0]), _num(a.steady_ci[1])] if a.steady_ci else None,
                "spikes": [
                    {"iteration": s.iteration, "seconds": s.seconds, "ratio": _num(s.ratio)}
                    for s in a.spikes
                ],
                "cold_ratio": _num(a.cold_ratio),
                "changepoints": list(a.changepoints),
                "short": None
                if sh is None
                else {
                    "class": sh.short_class,
                    "hot_s": _num(sh.hot_s),
                    "hot_spread": _num(sh.hot_spread),
                    "still_warming": sh.still_warming,
                },
                "findings": [f.sentence() for f in a.findings],
            }
        )
        if with_comparators:
            series[-1]["comparators"] = [
                {
                    "rule": r.rule,
                    "stop": r.stop,
                    "value_s": _num(r.value_s),
                    "iteration_error": r.iteration_error,
                    "time_error_s": _num(r.time_error_s),
                    "value_error": _num(r.value_error),
                }
                for r in a.comparators
            ]
    classes: dict[str, int] = {}
    for d in results:
        classes[d.analysis.series_class] = classes.get(d.analysis.series_class, 0) + 1
    summary: dict[str, Any] = {
        "series": len(results),
        "classes": classes,
        "still_warming": still_warming_shares(results),
    }
    if with_comparators:
        summary["comparators"] = comparator_summary(results)
    return {
        "series": series,
        "groups": process_groups(results),
        "findings": [
            f.as_json()
            for f in (iteration_findings(results, fold=True) if findings is None else findings)
        ],
        "summary": summary,
    }


def detections_frame(results: Sequence[SeriesDetection]) -> pl.DataFrame:
    """The verdicts of analysed series as a frame, one row each: suite, system, the JVM
    flag, query, process, class (``short: CLASS`` for short series), steady iteration,
    time to steady state (s), steady value (s) with its CI, cold ratio, spikes and runs."""
    schema = {
        "suite": pl.String,
        "system": pl.String,
        "jvm": pl.Boolean,
        "query": pl.String,
        "process": pl.Int64,
        "class": pl.String,
        "steady_iteration": pl.Int64,
        "time_to_steady_s": pl.Float64,
        "steady_s": pl.Float64,
        "steady_ci_lo": pl.Float64,
        "steady_ci_hi": pl.Float64,
        "cold_ratio": pl.Float64,
        "spikes": pl.Int64,
        "runs": pl.Int64,
    }
    rows = []
    for d in results:
        a = d.analysis
        rows.append(
            (
                d.suite,
                d.system,
                d.jvm,
                d.query,
                d.process,
                a.series_class if a.short is None else f"short: {a.short.short_class}",
                a.steady_iteration,
                a.time_to_steady_s,
                a.steady_s,
                a.steady_ci[0] if a.steady_ci else None,
                a.steady_ci[1] if a.steady_ci else None,
                a.cold_ratio,
                len(a.spikes),
                a.n,
            )
        )
    return pl.DataFrame(rows, schema=schema, orient="row")
