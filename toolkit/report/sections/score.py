"""The ClickBench score section: hot, cold and combined scores and how ranks move with k."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolkit.report import figures
from toolkit.report.model import (
    Block,
    Cell,
    Chart,
    Column,
    Section,
    Table,
    Text,
)
from toolkit.report.sections.context import ReportContext
from toolkit.report.sections.formatting import num

if TYPE_CHECKING:
    pass


# -- ClickBench score -----------------------------------------------------------------------

#: Systems drawn in the rank chart (all are in the table and report-data).
MAX_RANK_LINES = 10


def score_result(ctx: ReportContext) -> dict[str, Any] | None:
    """The ``warmup score --json`` payload of the ClickBench suites in the store, or None
    with fewer than two scored entries (:meth:`~toolkit.pipeline.findings.Analyses.score`)."""
    return ctx.analyses.score()


def score_section(ctx: ReportContext) -> Section | None:
    """ClickBench's hot, cold and combined scores and ranks (the website's formula), the
    hot score and rank for every k, and a chart of how ranks move with k."""
    payload = score_result(ctx)
    if payload is None:
        return None
    ks = payload["hot_iterations"]
    entries = payload["entries"]

    def score_cell(score: float | None, rank: int | None) -> Cell:
        if score is None:
            return Cell("–", None)
        return Cell(f"{score:.3f} (#{rank})", score)

    machines = {e["machine"] for e in entries}
    table = Table(
        "table-score",
        "Scores as the ClickBench website computes them (lower is better; 1 = fastest on "
        "every query)",
        (
            Column("system"),
            *((Column("machine"),) if len(machines) > 1 else ()),
            Column("date"),
            Column("runs", True),
            Column("hot (rank)", True, "hot = min(run 2, run 3)"),
            Column("cold (rank)", True, "cold = run 1; in-memory systems are left out"),
            Column("combined (rank)", True, "load time, data size, cold and hot"),
            *(Column(f"hot k={k}", True, f"hot = min of the first {k} hot runs") for k in ks),
        ),
        tuple(
            (
                Cell(e["system"]),
                *((Cell(e["machine"] or ""),) if len(machines) > 1 else ()),
                Cell(e["date"] or ""),
                num(e["runs"], ".0f"),
                score_cell(e["hot"], e["hot_rank"]),
                score_cell(e["cold"], e["cold_rank"]),
                score_cell(e["combined"], e["combined_rank"]),
                *(score_cell(x["score"], x["rank"]) for x in e["hot_by_k"]),
            )
            for e in sorted(entries, key=lambda e: (e["hot_rank"] or 10**9, e["system"]))
        ),
    )
    blocks: list[Block] = []
    if len(ks) > 1:

        def movement(e: dict[str, Any]) -> tuple[int, int]:
            ranks = [x["rank"] for x in e["hot_by_k"] if x["rank"] is not None]
            return (-(max(ranks) - min(ranks)) if ranks else 0, min(ranks, default=10**9))

        drawn = sorted(entries, key=movement)[:MAX_RANK_LINES]
        drawn.sort(key=lambda e: e["hot_rank"] or 10**9)
        ranks: dict[str, Sequence[tuple[int, int]]] = {
            f"{e['system']} · {e['machine']}" if len(machines) > 1 else e["system"]: [
                (x["hot_iterations"], x["rank"]) for x in e["hot_by_k"] if x["rank"] is not None
            ]
            for e in drawn
        }
        blocks.append(
            Chart(
                "fig-score-ranks",
                figures.rank_chart(ranks),
                caption=(
                    "Hot rank against k, the number of hot runs whose minimum is the hot "
                    "time (ClickBench uses 2)."
                    + (
                        f" The {len(drawn)} of {len(entries)} entries whose rank moves most."
                        if len(entries) > len(drawn)
                        else ""
                    )
                ),
            )
        )
    else:
        blocks.append(
            Text(
                "Every entry has 3 runs (cold + 2 hot), so hot can only use k = 2: how ranks "
                "move with k needs more runs."
            )
        )
    blocks.append(table)
    return Section(
        "score",
        "ClickBench score",
        (
            "Per query, the time relative to the fastest entry ((0.01 s + t) / (0.01 s + "
            "best)); the score is the geometric mean (ClickBench index.html; "
            f"{len(entries)} entries"
            + (
                ", latest result per system and machine"
                if payload["selection"]["latest_only"]
                else ""
            )
            + ")."
        ),
        tuple(blocks),
        payload,
    )
