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

from toolkit.analyze.warmup import SeriesAnalysis, analyze_series, classify_processes
from toolkit.store import Store

__all__ = [
    "SeriesDetection",
    "detect_payload",
    "detect_series",
    "steady_reference_s",
    "still_warming_shares",
]

#: The ClickBench tag that marks JVM-based systems (research/clickbench.md §3).
JVM_TAG = "Java"


@dataclass(frozen=True)
class SeriesDetection:
    """One analysed series with its identity. ``jvm``: the suite carries the tag "Java"."""

    suite_id: int
    suite: str
    system: str | None
    jvm: bool
    query: str
    query_index: int
    process: int
    analysis: SeriesAnalysis


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
    frame = store.frame(
        "SELECT suite_id, query, query_index, process, iteration, seconds FROM iterations "
        "WHERE list_contains(?, suite_id) "
        "ORDER BY suite_id, query_index, process, iteration",
        [ids],
    )
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
    starts = np.concatenate(([0], change + 1))
    ends = np.concatenate((change + 1, [frame.height]))
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        iters = it[a:b]
        # place each run at its iteration number; missing iterations are gaps (NaN)
        series = np.full(int(iters.max()) + 1, np.nan)
        series[iters] = secs[a:b]
        s = int(sid[a])
        name, system, tags = meta[s]
        subject = f"{name} {queries[a]} process {int(proc[a])}"
        analysis = analyze_series(
            series, subject=subject, comparators=comparators, seed=seed, **options
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
            )
        )
    return out


def steady_reference_s(store: Store, suite_id: int) -> Mapping[str, float | None]:
    """Per-query steady seconds of one suite for ``warmup gaps --reference steady``.

    The median over the query's processes of their steady values; None when any process
    has no steady state or is too short to have one (Barrett et al. 2017: a pair with a
    no-steady-state pexec gets no steady performance; research §1.6).
    """
    per_query: dict[str, list[float | None]] = {}
    for det in detect_series(store, suite_ids=[suite_id]):
        per_query.setdefault(det.query, []).append(det.analysis.steady_s)
    out: dict[str, float | None] = {}
    for query, values in per_query.items():
        if any(v is None or not math.isfinite(v) for v in values):
            out[query] = None
        else:
            out[query] = float(np.median([v for v in values if v is not None]))
    return out


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


def detect_payload(results: Sequence[SeriesDetection]) -> dict[str, Any]:
    """The ``warmup detect --json`` document: one entry per series with the DESIGN.md
    contract keys (times in seconds), plus process groups and a summary."""
    series = []
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
    groups: dict[tuple[str, str], list[str]] = {}
    for d in results:
        groups.setdefault((d.suite, d.query), []).append(d.analysis.series_class)
    group_rows = [
        {"suite": s, "query": q, "processes": len(c), "class": classify_processes(c)}
        for (s, q), c in groups.items()
        if len(c) > 1
    ]
    classes: dict[str, int] = {}
    for d in results:
        classes[d.analysis.series_class] = classes.get(d.analysis.series_class, 0) + 1
    return {
        "series": series,
        "groups": group_rows,
        "summary": {
            "series": len(results),
            "classes": classes,
            "still_warming": still_warming_shares(results),
        },
    }
