"""Gap tables of the iteration suites in a store, and the ``warmup gaps --json`` payload.

Reads ``iterations`` per suite, calls :func:`toolkit.analyze.gaps.iteration_gaps` and
builds the payload whose keys DESIGN.md fixes (``schemas/gaps.schema.json``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from toolkit.analyze.gaps import (
    DEFAULT_TARGET,
    DEFAULT_TOLERANCE,
    GapTable,
    gap_findings,
    iteration_gaps,
)
from toolkit.errors import UsageError
from toolkit.store import Store

__all__ = [
    "REFERENCES",
    "SuiteGaps",
    "gap_tables",
    "gaps_payload",
    "steady_provider",
    "steady_reference_s",
]

#: Names accepted by ``--reference``.
REFERENCES = ("min-all", "steady")


@dataclass(frozen=True)
class SuiteGaps:
    """The gap table of one stored suite, with the suite's identity."""

    suite_id: int
    suite: str
    system: str | None
    machine: str | None
    run_date: date | None
    table: GapTable


def steady_provider() -> Callable[[Store, int], Mapping[str, float | None]]:
    """The warm-up engine's per-query steady state, for ``--reference steady``
    (:func:`toolkit.pipeline.detect.steady_reference_s`)."""
    from toolkit.pipeline.detect import steady_reference_s as engine_reference

    return engine_reference


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
) -> list[SuiteGaps]:
    """The gap table of every iteration suite in ``store`` (or of the named ``suites``).

    ``reference`` is ``min-all`` (min of all hot runs, seed 002) or ``steady`` (the
    warm-up engine's steady state, see :func:`steady_reference_s`). Suites without
    iteration rows are left out.
    """
    if reference not in REFERENCES:
        raise UsageError(f"unknown reference {reference!r}; use one of: {', '.join(REFERENCES)}")
    if tolerance < 0 or target < 0:
        raise UsageError("--tolerance and --target must be fractions >= 0 (0.10 = 10 %)")
    ids = store.suite_ids(suites, kind="iterations")
    out: list[SuiteGaps] = []
    for suite_id in ids:
        frame = store.frame(
            "SELECT query, query_index, process, iteration, seconds FROM iterations "
            "WHERE suite_id = ? ORDER BY query_index, process, iteration",
            [suite_id],
        )
        if frame.height == 0:
            continue
        row = store.con.execute(
            "SELECT name, system, machine, run_date FROM suites WHERE suite_id = ?", [suite_id]
        ).fetchone()
        assert row is not None
        ref_s = steady_reference_s(store, suite_id) if reference == "steady" else None
        table = iteration_gaps(
            frame, tolerance=tolerance, target=target, reference=reference, reference_s=ref_s
        )
        out.append(SuiteGaps(suite_id, str(row[0]), row[1], row[2], row[3], table))
    return out


def gaps_payload(results: Sequence[SuiteGaps]) -> dict[str, Any]:
    """The ``warmup gaps --json`` document (``schemas/gaps.schema.json``).

    Times in seconds, gaps and tolerances as fractions (0.48 = +48 %).
    """
    suites = []
    for item in results:
        t = item.table
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
                    for f in gap_findings(t, subject=item.suite)
                ],
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
    return {"suites": suites}
