"""ClickBench scores of the iteration suites in a store, and the ``warmup score --json`` payload.

Selection (research/clickbench.md §1.1, ``generate-results.sh``): suites tagged
``historical`` are left out, and only the latest ``run_date`` per (system, machine) is
kept, unless asked otherwise; ``machine`` narrows to one machine (the website compares
machines too, but a score is only meaningful within one hardware selection).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import polars as pl

from toolkit.analyze.findings import named, rank_findings
from toolkit.analyze.iteration_findings import MAX_SERIES_RUNS
from toolkit.analyze.score import ScoreEntry, ScoreTable, clickbench_scores, score_findings
from toolkit.errors import UsageError
from toolkit.store import Store

__all__ = ["ScoredSuite", "SuiteScores", "score_entries", "score_payload", "suite_scores"]


@dataclass(frozen=True)
class ScoredSuite:
    """Identity of one scored suite."""

    suite_id: int
    suite: str
    system: str
    machine: str | None
    run_date: date | None
    runs: int
    queries: int


@dataclass(frozen=True)
class SuiteScores:
    """The scored selection: suites in the same order as ``table.entries``."""

    suites: tuple[ScoredSuite, ...]
    table: ScoreTable
    machine: str | None
    latest_only: bool
    historical: bool


def suite_scores(
    store: Store,
    *,
    suites: Sequence[str] | None = None,
    machine: str | None = None,
    latest_only: bool = True,
    historical: bool = False,
) -> SuiteScores:
    """Score the iteration suites of ``store`` as the ClickBench website does.

    Named ``suites`` are scored as given; otherwise every iteration suite, minus those
    tagged ``historical`` (unless ``historical``), keeping the latest date per (system,
    machine) (unless not ``latest_only``), on ``machine`` if given.
    """
    ids = store.suite_ids(suites, kind="iterations")
    frame = store.suites().filter(pl.col("suite_id").is_in(ids) & (pl.col("iterations") > 0))
    if not suites:
        if not historical:
            frame = frame.filter(~pl.col("tags").list.contains("historical"))
        if machine is not None:
            frame = frame.filter(pl.col("machine") == machine)
        if latest_only:
            frame = (
                frame.with_columns(pl.col("system").fill_null(pl.col("name")).alias("_system"))
                .sort("run_date", "suite_id", nulls_last=False)
                .group_by("_system", "machine", maintain_order=True)
                .last()
                .sort("suite_id")
                .drop("_system")
            )
    if frame.height == 0:
        where = f" on machine {machine!r}" if machine else ""
        raise UsageError(
            f"no iteration suites to score{where}{store.suites_elsewhere('iterations')}; "
            "list them with `warmup suites`"
        )
    rows = frame.to_dicts()
    # one query over the whole selection (issue 19: a query per suite was 12 % of a
    # 2,000-result report)
    entries = score_entries(store, [str(row["name"]) for row in rows])
    table = clickbench_scores(entries)
    scored = tuple(
        ScoredSuite(
            suite_id=int(row["suite_id"]),
            suite=str(row["name"]),
            system=e.system,
            machine=row["machine"],
            run_date=row["run_date"],
            runs=e.runs,
            queries=len(e.result),
        )
        for row, e in zip(rows, entries, strict=True)
    )
    return SuiteScores(scored, table, machine, latest_only, historical)


def score_payload(result: SuiteScores) -> dict[str, Any]:
    """The ``warmup score --json`` document (``schemas/score.schema.json``).

    Scores are geometric means of (0.01 s + time) / (0.01 s + baseline): 1.0 = best on
    every query, lower is better; ranks start at 1.
    """
    t = result.table
    payload: dict[str, Any] = {
        "method": "clickbench-website",
        "selection": {
            "machine": result.machine,
            "latest_only": result.latest_only,
            "historical": result.historical,
            "entries": len(t.entries),
        },
        "hot_iterations": list(t.hot_iterations),
        "entries": [
            {
                "suite": s.suite,
                "system": s.system,
                "machine": s.machine,
                "date": s.run_date.isoformat() if s.run_date else None,
                "runs": s.runs,
                "queries": s.queries,
                "in_memory": e.in_memory,
                "hot": e.hot,
                "cold": e.cold,
                "combined": e.combined,
                "hot_rank": e.hot_rank,
                "cold_rank": e.cold_rank,
                "combined_rank": e.combined_rank,
                "hot_by_k": [
                    {"hot_iterations": k, "score": score, "rank": rank}
                    for k, score, rank in zip(
                        t.hot_iterations, e.hot_by_k, e.hot_rank_by_k, strict=True
                    )
                ],
            }
            for s, e in zip(result.suites, t.entries, strict=True)
        ],
    }
    # the score family's findings (schemas/score.schema.json)
    found = rank_findings([named(f) for f in score_findings(payload)])
    payload["findings"] = [f.as_json() for f in found]
    return payload


def score_entries(store: Store, names: Sequence[str]) -> list[ScoreEntry]:
    """The :class:`ScoreEntry` of each suite in ``names`` (in that order), as
    :func:`suite_scores` scores them (the first process of each query), from one query over
    the whole store: the runs the report's system picker rescores in the page."""
    if not names:
        return []
    wanted = pl.DataFrame({"name": list(names), "_order": list(range(len(names)))})
    store.con.register("_score_names", wanted.to_arrow())
    try:
        suites = store.frame(
            """SELECT n._order, s.suite_id, s.name, s.system, s.machine, s.tags,
                      s.load_time_s, s.data_size_bytes
               FROM suites s JOIN _score_names n ON s.name = n.name AND s.kind = 'iterations'
               ORDER BY n._order"""
        )
        runs = store.frame(
            """WITH kept AS (
                   SELECT i.suite_id, i.query_index, i.process, i.iteration, i.seconds
                   FROM iterations i JOIN suites s USING (suite_id)
                   JOIN _score_names n ON s.name = n.name AND s.kind = 'iterations'
                   WHERE i.iteration < ?)
               SELECT suite_id, query_index, iteration, seconds FROM kept
               WHERE process = (SELECT min(process) FROM kept k
                                WHERE k.suite_id = kept.suite_id
                                  AND k.query_index = kept.query_index)
               ORDER BY suite_id, query_index, iteration""",
            [MAX_SERIES_RUNS],
        )
    finally:
        store.con.unregister("_score_names")
    rows_by_suite: dict[int, list[list[float | None]]] = {}
    for suite_id, q, it, seconds in runs.iter_rows():
        rows = rows_by_suite.setdefault(suite_id, [])
        rows.extend([] for _ in range(q + 1 - len(rows)))
        row = rows[q]
        row.extend([None] * (it + 1 - len(row)))
        row[it] = seconds
    entries = []
    for suite in suites.to_dicts():
        rows = rows_by_suite.get(suite["suite_id"], [])
        entries.append(
            ScoreEntry(
                name=str(suite["name"]),
                system=str(suite["system"] or suite["name"]),
                machine=suite["machine"],
                result=tuple(
                    None if not row or all(v is None for v in row) else tuple(row) for row in rows
                ),
                tags=tuple(suite["tags"] or ()),
                load_time_s=suite["load_time_s"],
                data_size_bytes=None
                if suite["data_size_bytes"] is None
                else float(suite["data_size_bytes"]),
            )
        )
    return entries
