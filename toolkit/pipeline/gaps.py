"""Gap tables of the iteration suites in a store, and the ``warmup gaps --json`` payload.

Reads ``iterations`` of every suite in one query, calls
:func:`toolkit.analyze.gaps.iteration_gaps_by_suite` and
builds the payload whose keys DESIGN.md fixes (``schemas/gaps.schema.json``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from toolkit.analyze.findings import Finding
from toolkit.analyze.gaps import (
    DEFAULT_TARGET,
    DEFAULT_TOLERANCE,
    GapTable,
    hot_pair_spread,
    iteration_gaps_by_suite,
)
from toolkit.analyze.iteration_findings import (
    MAX_SERIES_RUNS,
    IterationSettings,
    iteration_findings,
)
from toolkit.analyze.window_error import (
    AGGREGATORS,
    WindowError,
    WindowErrorGrid,
    recommend_window,
    window_error_grid,
)
from toolkit.errors import UsageError
from toolkit.options import GAP_REFERENCES, check_grid, check_target, check_tolerance
from toolkit.pipeline.detect import (
    SeriesDetection,
    detect_series,
    steady_reference_of,
)
from toolkit.pipeline.detect import steady_series as to_steady_series
from toolkit.store import Store

__all__ = [
    "DEFAULT_COVERAGE",
    "GridOptions",
    "SuiteGaps",
    "gap_tables",
    "gaps_payload",
    "grid_payload",
    "grid_recommendations",
    "steady_reference_s",
]

#: A protocol is recommended when its error is within the target for 90 % of the series.
DEFAULT_COVERAGE = 0.90


@dataclass(frozen=True)
class GridOptions:
    """Parameters of the short-window error grid (research §8.12): skip k = 0…max_skip,
    window m = 1…max_window; a protocol is recommended when ``|e| ≤ target`` (the gap
    target) for at least ``coverage`` of the series."""

    max_skip: int = 5
    max_window: int = 9
    coverage: float = DEFAULT_COVERAGE
    seed: int = 0

    def check(self) -> None:
        """Raise :class:`UsageError` for options no grid can have."""
        check_grid(self.max_skip, self.max_window, self.coverage)


@dataclass(frozen=True)
class SuiteGaps:
    """The gap table of one stored suite, with the suite's identity, its iteration
    findings (:func:`toolkit.analyze.iteration_findings.iteration_findings`, the same
    for any reference) and, with a grid request, the short-window error grid of the
    suite's series that reached a steady state."""

    suite_id: int
    suite: str
    system: str | None
    machine: str | None
    run_date: date | None
    table: GapTable
    findings: tuple[Finding, ...] = ()
    grid: WindowErrorGrid | None = None


def steady_reference_s(store: Store, suite_id: int) -> Mapping[str, float | None]:
    """Per-query steady-state seconds of a suite from the warm-up engine
    (:func:`toolkit.pipeline.detect.steady_reference_s`): query name -> steady seconds,
    None when a process of the query has no steady state or too few runs (2-5) to have one.
    """
    from toolkit.pipeline.detect import steady_reference_s as engine_reference

    return engine_reference(store, suite_id)


def gap_tables(
    store: Store,
    *,
    suites: Sequence[str] | None = None,
    reference: str = "min-all",
    tolerance: float = DEFAULT_TOLERANCE,
    target: float = DEFAULT_TARGET,
    grid: GridOptions | None = None,
    window: int = 2,
    detections: Sequence[SeriesDetection] | None = None,
    suite_findings: bool = True,
) -> list[SuiteGaps]:
    """The gap table of every iteration suite in ``store`` (or of the named ``suites``).

    ``reference`` is ``min-all`` (min of all hot runs, seed 002) or ``steady`` (the
    warm-up engine's steady state, see :func:`steady_reference_s`). The findings of
    every suite come from the warm-up engine's series (``detections``, default: analysed
    here) and do not depend on the reference: the window (``window`` hot runs) against
    steady state, :func:`toolkit.analyze.iteration_findings.iteration_findings`.
    ``grid`` adds the short-window error grid (:func:`toolkit.analyze.window_error.
    window_error_grid`) of the series with a steady state. Suites without iteration rows
    are left out. Without ``suite_findings`` each suite's ``findings`` stay empty, for
    callers that show the findings engine's list instead (the report, the summary table).
    """
    if reference not in GAP_REFERENCES:
        raise UsageError(
            f"unknown reference {reference!r}; use one of: {', '.join(GAP_REFERENCES)}"
        )
    check_tolerance(tolerance)
    check_target(target)
    if grid is not None:
        grid.check()
    ids = store.suite_ids(suites, kind="iterations")
    settings = IterationSettings(window=window, target=target, tolerance=tolerance)
    if detections is None:
        detections = detect_series(store, suite_ids=ids) if ids else []
    by_suite: dict[int, list[SeriesDetection]] = {}
    for d in detections:
        by_suite.setdefault(d.suite_id, []).append(d)
    out: list[SuiteGaps] = []
    if not ids:
        return out
    # the whole selection in two queries and one sort, each suite a slice of its arrays
    # (issue 19: a query per suite was 18 % of `warmup gaps` on 2,000 results)
    frame = store.frame(
        "SELECT suite_id, query, query_index, process, iteration, seconds FROM iterations "
        "WHERE list_contains(?, suite_id) AND iteration < ? "
        "ORDER BY suite_id, query_index, process, iteration",
        [ids, MAX_SERIES_RUNS],
    )
    meta = {
        int(r[0]): (str(r[1]), r[2], r[3], r[4])
        for r in store.con.execute(
            "SELECT suite_id, name, system, machine, run_date FROM suites "
            "WHERE list_contains(?, suite_id)",
            [ids],
        ).fetchall()
    }
    references = None
    if reference == "steady":
        references = {i: steady_reference_of(by_suite.get(i, [])) for i in ids}
    tables = iteration_gaps_by_suite(
        frame, tolerance=tolerance, target=target, reference=reference, reference_s=references
    )
    for suite_id in ids:
        table = tables.get(suite_id)
        if table is None:
            continue
        name, system, machine, run_date = meta[suite_id]
        mine = by_suite.get(suite_id, [])
        findings = tuple(iteration_findings(mine, settings)) if suite_findings else ()
        suite_grid = None
        if grid is not None:
            suite_grid = window_error_grid(
                to_steady_series(mine),
                max_skip=grid.max_skip,
                max_window=grid.max_window,
                seed=grid.seed,
            )
        out.append(
            SuiteGaps(suite_id, name, system, machine, run_date, table, findings, suite_grid)
        )
    return out


def grid_recommendations(
    grid: WindowErrorGrid, *, target: float, coverage: float = DEFAULT_COVERAGE
) -> list[tuple[str, WindowError | None]]:
    """The cheapest protocol per aggregator within ``±target`` for ``coverage`` of the
    series (:func:`toolkit.analyze.window_error.recommend_window`), plus the cheapest
    ClickBench-style one (skip only the cold run, min): ``[(label, cell or None)]``."""
    out: list[tuple[str, WindowError | None]] = [
        (agg, recommend_window(grid, target=target, coverage=coverage, aggregator=agg))
        for agg in AGGREGATORS
    ]
    out.append(
        (
            "clickbench",
            recommend_window(grid, target=target, coverage=coverage, aggregator="min", skip=1),
        )
    )
    return out


def _cell_dict(c: WindowError) -> dict[str, Any]:
    return {
        "skip": c.skip,
        "window": c.window,
        "aggregator": c.aggregator,
        "runs": c.runs,
        "series": c.series,
        "median_error": c.median_error,
        "p05_error": c.p05_error,
        "p95_error": c.p95_error,
        "median_ci": list(c.median_ci),
        "mean_error": c.mean_error,
        "within": [{"epsilon": eps, "share": share} for eps, share in c.within],
        "in_transient": c.in_transient,
        "transient_bias": c.transient_bias,
        "order_statistic_bias": c.order_statistic_bias,
    }


def grid_payload(
    grid: WindowErrorGrid, *, target: float, coverage: float = DEFAULT_COVERAGE
) -> dict[str, Any]:
    """The ``grid`` object of ``warmup gaps --grid --json``: every cell and the
    recommended protocols (errors and biases as fractions of the steady value)."""
    recs = grid_recommendations(grid, target=target, coverage=coverage)
    return {
        "series": grid.series,
        "max_skip": grid.max_skip,
        "max_window": grid.max_window,
        "target": target,
        "coverage": coverage,
        "recommended": [
            {"protocol": label, "cell": None if c is None else _cell_dict(c)} for label, c in recs
        ],
        "cells": [_cell_dict(c) for c in grid.cells],
    }


def gaps_payload(
    results: Sequence[SuiteGaps],
    *,
    coverage: float = DEFAULT_COVERAGE,
    findings: Sequence[Finding] | None = None,
) -> dict[str, Any]:
    """The ``warmup gaps --json`` document (``schemas/gaps.schema.json``).

    Times in seconds, gaps and tolerances as fractions (0.48 = +48 %). A suite with a
    grid carries ``grid`` (:func:`grid_payload`, recommended at ``coverage``). Every
    suite with hot runs carries ``hot_pair``: run 2 vs run 3 and cold/hot ratios
    (:func:`toolkit.analyze.gaps.hot_pair_spread`), what 3-run results do show.
    ``findings``: the top-level ``findings`` (the findings engine's iteration family, as
    ``warmup findings`` gives them; default: every suite's own, in suite order).
    """
    suites: list[dict[str, Any]] = []
    for item in results:
        t = item.table
        pair = hot_pair_spread(t)
        suites.append(
            {
                "suite": item.suite,
                "system": item.system,
                "machine": item.machine,
                "date": item.run_date.isoformat() if item.run_date else None,
                "queries": t.queries,
                "included": t.included,
                "runs": t.runs,
                "reference": t.reference,
                "tolerance": t.tolerance,
                "target": t.target,
                "k_for_target": t.k_for_target,
                "runs_for_target": t.runs_for_target,
                "rows": [
                    {
                        "hot_iterations": r.hot_iterations,
                        "total_runs": r.total_runs,
                        "suite_sum_s": r.suite_sum_s,
                        "reference_sum_s": r.reference_sum_s,
                        "gap": r.gap,
                        "within_tolerance": r.within_tolerance,
                        "queries": r.queries,
                        "excluded": r.excluded,
                    }
                    for r in t.rows
                ],
                "findings": [
                    {
                        "rule": f.rule,
                        "severity": f.severity,
                        "subject": f.subject,
                        "message": f.message,
                        "advice": f.advice,
                        "numbers": f.numbers,
                    }
                    for f in item.findings
                ],
                "hot_pair": {
                    "queries": pair.queries,
                    "spread_sum_s": pair.spread_sum_s,
                    "window_sum_s": pair.window_sum_s,
                    "spread_share": pair.spread_share,
                    "cold_sum_s": pair.cold_sum_s,
                    "cold_hot_ratio": pair.cold_hot_ratio,
                    "per_query": [
                        {
                            "query": p.query,
                            "process": p.process,
                            "cold_s": p.cold_s,
                            "first_hot_s": p.first_hot_s,
                            "second_hot_s": p.second_hot_s,
                            "spread_s": p.spread_s,
                            "cold_hot_ratio": p.cold_hot_ratio,
                        }
                        for p in pair.per_query
                    ],
                },
                "per_query": [
                    {
                        "query": q.query,
                        "process": q.process,
                        "cold_s": q.cold_s,
                        "hot_s_by_k": list(q.hot_s_by_k),
                        "reference_s": q.reference_s,
                        "cold_hot_ratio": q.cold_hot_ratio,
                        "first_k_within": q.first_k_within,
                        "failed_runs": q.failed_runs,
                        "excluded": q.excluded,
                    }
                    for q in t.per_query
                ],
            }
        )
        if item.grid is not None:
            suites[-1]["grid"] = grid_payload(item.grid, target=t.target, coverage=coverage)
    found = [f for item in results for f in item.findings] if findings is None else findings
    return {"suites": suites, "findings": [f.as_json() for f in found]}
