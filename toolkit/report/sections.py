"""Report sections: one small function per section, each returning None when its data is
absent. They read the store only through pipeline-shaped payloads (the ``--json`` contract
in DESIGN.md) and turn them into blocks and findings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import polars as pl

from toolkit.analyze.findings import Finding, Severity
from toolkit.report import figures
from toolkit.report.model import Block, Cell, Chart, Column, Grid, Panel, Section, Table, Tone
from toolkit.store import Store

#: Small multiples drawn at most (the rest stay in report-data); enough for one 43-query suite.
MAX_PANELS = 48


@dataclass(frozen=True)
class ReportParams:
    """Analyzer parameters shown in the provenance section and embedded in report-data.

    ``tolerance``: a hot value within ±10 % of the reference counts as steady (the seed's
    table; research/warmup-science.md §8). ``window``: hot iterations in the benchmark's
    own hot value (ClickBench: min(run 2, run 3) = 2; research/clickbench.md §1).
    """

    tolerance: float = 0.10
    window: int = 2
    reference: str = "min-all"


@dataclass
class ReportContext:
    """The store and parameters, with per-pipeline results computed once."""

    store: Store
    params: ReportParams
    _cache: dict[str, Any] = field(default_factory=dict)

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]


# -- formatting ---------------------------------------------------------------------------


def fmt_seconds(value: float | None) -> str:
    """Seconds with 3 significant digits and a unit that keeps them readable."""
    if value is None or not math.isfinite(value):
        return "–"
    if value < 1e-3:
        return f"{value * 1e6:.3g} µs"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


def fmt_pct(value: float | None, *, signed: bool = True) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:+.0%}" if signed else f"{value:.0%}"


def fmt_bytes(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} B"


def fmt_rate(value: float | None) -> str:
    return "–" if value is None else f"{fmt_bytes(value)}/s"


def num(value: float | None, fmt: Callable[[float | None], str]) -> Cell:
    """A numeric cell: formatted text, sorting by the raw number (missing sorts last)."""
    sortable = value if value is not None and math.isfinite(value) else None
    return Cell(fmt(value), sortable)


def tone_of(gap: float | None, tolerance: float) -> Tone:
    """good within ±tolerance, bad outside, neutral when unknown."""
    if gap is None:
        return ""
    return "good" if abs(gap) <= tolerance else "bad"


def slug(*parts: object) -> str:
    """An ASCII id part from indexes (never from untrusted names)."""
    return "-".join(str(p) for p in parts)


# -- iterations: temporary bridge until pipeline/gaps.py and pipeline/detect.py land --------


def iteration_frame(store: Store) -> pl.DataFrame:
    """Every timed run with its suite's name and system, in suite/query/process/iteration order."""
    return store.frame(
        """
        SELECT s.suite_id, s.name AS suite, s.system, i.query, i.query_index, i.process,
               i.iteration, i.seconds
        FROM iterations i JOIN suites s USING (suite_id)
        ORDER BY s.suite_id, i.query_index, i.query, i.process, i.iteration
        """
    )


def _hot_min(values: Sequence[float | None], k: int) -> float | None:
    hot = [v for v in values[1 : k + 1] if v is not None]
    return min(hot) if hot else None


def bridge_gaps(frame: pl.DataFrame, params: ReportParams) -> dict[str, Any]:
    """The ``gaps --json`` payload computed directly (reference ``min-all``: the seed's
    definition, min of all hot runs per query). Temporary: replaced by pipeline/gaps.py."""
    suites = []
    for (suite_id,), part in frame.group_by(["suite_id"], maintain_order=True):
        first = part.row(0, named=True)
        per_query = []
        max_hot = 0
        for (_query,), q in part.filter(pl.col("process") == part["process"].min()).group_by(
            ["query"], maintain_order=True
        ):
            seconds = q.sort("iteration")["seconds"].to_list()
            hot_n = len(seconds) - 1
            max_hot = max(max_hot, hot_n)
            reference = _hot_min(seconds, hot_n)
            hot_by_k = [_hot_min(seconds, k) for k in range(1, hot_n + 1)]
            first_k = next(
                (
                    k
                    for k, h in enumerate(hot_by_k, start=1)
                    if h is not None and reference and abs(h / reference - 1) <= params.tolerance
                ),
                None,
            )
            per_query.append(
                {
                    "query": q["query"][0],
                    "query_index": int(q["query_index"][0]),
                    "cold_s": seconds[0],
                    "hot_s_by_k": hot_by_k,
                    "reference_s": reference,
                    "first_k_within": first_k,
                }
            )
        rows = []
        usable = [p for p in per_query if p["reference_s"]]
        ref_sum = sum(p["reference_s"] for p in usable)
        for k in range(1, max_hot + 1):
            values = [
                (p["hot_s_by_k"][k - 1] if k <= len(p["hot_s_by_k"]) else None, p["reference_s"])
                for p in usable
            ]
            total = sum(h for h, _ in values if h is not None)
            within = sum(
                1 for h, r in values if h is not None and abs(h / r - 1) <= params.tolerance
            )
            rows.append(
                {
                    "hot_iterations": k,
                    "total_runs": k + 1,
                    "suite_sum_s": total,
                    "gap": total / ref_sum - 1 if ref_sum else None,
                    "within_tolerance": within,
                }
            )
        suites.append(
            {
                "suite": first["suite"],
                "suite_id": int(suite_id),
                "system": first["system"],
                "queries": len(per_query),
                "reference": params.reference,
                "tolerance": params.tolerance,
                "rows": rows,
                "per_query": per_query,
            }
        )
    return {"suites": suites}


def gaps_payload(ctx: ReportContext) -> dict[str, Any]:
    payload: dict[str, Any] = ctx.cached(
        "gaps", lambda: bridge_gaps(iteration_frame(ctx.store), ctx.params)
    )
    return payload


# -- sections -----------------------------------------------------------------------------


def gaps_findings(payload: dict[str, Any], params: ReportParams) -> list[Finding]:
    """Per suite with more hot runs than the benchmark's window: how far the window's suite
    sum is from the reference, and the first k within half the tolerance."""
    found = []
    for suite in payload["suites"]:
        rows = {r["hot_iterations"]: r for r in suite["rows"]}
        if params.window not in rows or len(rows) <= params.window:
            continue
        row = rows[params.window]
        gap = row["gap"]
        if gap is None:
            continue
        queries = suite["queries"]
        off = queries - row["within_tolerance"]
        target = params.tolerance / 2
        enough = next(
            (
                k
                for k in sorted(rows)
                if rows[k]["gap"] is not None and abs(rows[k]["gap"]) <= target
            ),
            None,
        )
        severity: Severity = "problem" if abs(gap) > params.tolerance else "info"
        message = (
            f"{suite['suite']}: with {params.window} hot iterations the suite sum is "
            f"{gap:+.0%} off the reference ({fmt_seconds(row['suite_sum_s'])} vs "
            f"{fmt_seconds(row['suite_sum_s'] / (1 + gap))}); {off} of {queries} queries are "
            f"off by more than {params.tolerance:.0%}"
        )
        advice = (
            f"run at least {enough} hot iterations (gap {rows[enough]['gap']:+.0%})"
            if enough is not None and enough > params.window
            else "the benchmark's window is close to the reference"
        )
        found.append(
            Finding(
                rule="hot-window-gap",
                severity=severity,
                subject=suite["suite"],
                message=message,
                advice=advice,
                numbers={
                    "hot_iterations": params.window,
                    "gap": gap,
                    "queries_off": off,
                    "queries": queries,
                    "recommended_hot_iterations": enough,
                },
            )
        )
    return found


#: Suites overlaid in the gaps chart and given their own table (the rest: summary table).
MAX_GAP_SUITES = 8


def _gap_rows_table(n: int, suite: dict[str, Any], params: ReportParams) -> Table:
    """The seed's table for one suite: k, total runs, suite sum, gap, queries within."""
    tol = params.tolerance
    last = suite["rows"][-1]["hot_iterations"]
    rows = []
    for r in suite["rows"]:
        label = str(r["hot_iterations"])
        if r["hot_iterations"] == params.window:
            label += " (benchmark window)"
        if r["hot_iterations"] == last:
            label += " (reference)"
        tone = tone_of(r["gap"], tol)
        rows.append(
            (
                Cell(label, r["hot_iterations"]),
                num(r["total_runs"], lambda v: f"{v:.0f}"),
                num(r["suite_sum_s"], lambda v: f"{v:.3f}"),
                Cell(fmt_pct(r["gap"]), r["gap"], tone),
                Cell(f"{r['within_tolerance']}/{suite['queries']}", r["within_tolerance"]),
            )
        )
    return Table(
        f"table-gaps-{n}",
        f"{suite['suite']} ({suite['system'] or 'system not given'})",
        (
            Column("hot iterations k", True),
            Column("total runs", True),
            Column("suite sum (s)", True),
            Column("gap vs reference", True),
            Column(f"queries within ±{tol:.0%}", True),
        ),
        tuple(rows),
    )


def _window_row(suite: dict[str, Any], window: int) -> dict[str, Any] | None:
    return next((r for r in suite["rows"] if r["hot_iterations"] == window), None)


def _gap_summary_table(suites: Sequence[dict[str, Any]], params: ReportParams) -> Table:
    """One row per suite: the benchmark window's gap and queries within tolerance."""
    rows = []
    for suite in suites:
        row = _window_row(suite, params.window) or suite["rows"][-1]
        gap = row["gap"]
        tone = tone_of(gap, params.tolerance)
        rows.append(
            (
                Cell(suite["suite"]),
                Cell(suite["system"] or ""),
                num(suite["queries"], lambda v: f"{v:.0f}"),
                num(suite["rows"][-1]["hot_iterations"], lambda v: f"{v:.0f}"),
                Cell(fmt_pct(gap), gap, tone),
                Cell(f"{row['within_tolerance']}/{suite['queries']}", row["within_tolerance"]),
            )
        )
    return Table(
        "table-gaps-summary",
        f"Every suite: the benchmark window (k = {params.window}) against the reference",
        (
            Column("suite"),
            Column("system"),
            Column("queries", True),
            Column("hot runs", True),
            Column("gap at window", True),
            Column(f"within ±{params.tolerance:.0%}", True),
        ),
        tuple(rows),
    )


def gaps_section(ctx: ReportContext) -> Section | None:
    """Iteration gaps: the seed's table per suite, and gap / within-tolerance against k."""
    payload = gaps_payload(ctx)
    suites = [s for s in payload["suites"] if len(s["rows"]) >= 2]
    if not suites:
        return None
    params = ctx.params
    # suites with more hot runs than the benchmark's window say how far the window is off
    telling = [s for s in suites if len(s["rows"]) > params.window] or suites

    def window_gap(suite: dict[str, Any]) -> float:
        row = _window_row(suite, params.window)
        return -abs(row["gap"]) if row is not None and row["gap"] is not None else 0.0

    shown = sorted(telling, key=window_gap)[:MAX_GAP_SUITES]
    blocks: list[Block] = [
        Chart(
            "fig-gaps",
            figures.gaps_chart(
                [{"name": s["suite"], "queries": s["queries"], "rows": s["rows"]} for s in shown],
                tolerance=params.tolerance,
            ),
            caption=(
                "Solid: gap of the suite sum against the reference (min of all hot runs); "
                f"dotted: share of queries within ±{params.tolerance:.0%} of it."
                + (
                    f" The {len(shown)} of {len(telling)} suites with the largest gap."
                    if len(telling) > len(shown)
                    else ""
                )
            ),
        )
    ]
    if len(suites) > 1:
        blocks.append(_gap_summary_table(suites, params))
    blocks.extend(_gap_rows_table(n, suite, params) for n, suite in enumerate(shown))
    return Section(
        "gaps",
        "Iteration gaps",
        (
            "For each number of hot iterations k, the hot value of a query is the minimum of "
            "its first k hot runs; the table compares the suite sum with the reference."
        ),
        tuple(blocks),
        {"suites": suites},
        tuple(gaps_findings(payload, params)),
    )


def trajectories_section(ctx: ReportContext) -> Section | None:
    """Per-query trajectories as small multiples, worst gap first."""
    frame = iteration_frame(ctx.store)
    if frame.is_empty():
        return None
    gaps = {s["suite_id"]: s for s in gaps_payload(ctx)["suites"]}
    multi_suite = len(gaps) > 1
    series: list[dict[str, Any]] = []
    for (suite_id, query), part in frame.group_by(["suite_id", "query"], maintain_order=True):
        suite = gaps[int(suite_id)]
        info = next(p for p in suite["per_query"] if p["query"] == query)
        runs = [
            (int(proc), list(zip(p["iteration"].to_list(), p["seconds"].to_list(), strict=True)))
            for (proc,), p in part.group_by(["process"], maintain_order=True)
        ]
        ref = info["reference_s"]
        k = min(ctx.params.window, len(info["hot_s_by_k"]))
        window_s = info["hot_s_by_k"][k - 1] if k >= 1 else None
        gap = window_s / ref - 1 if window_s is not None and ref else None
        series.append(
            {
                "suite": suite["suite"],
                "suite_id": int(suite_id),
                "query": query,
                "query_index": info["query_index"],
                "runs": [{"process": p, "seconds": [s for _, s in pts]} for p, pts in runs],
                "reference_s": ref,
                "window_gap": gap,
                "cold_s": info["cold_s"],
                "_runs": runs,
            }
        )
    if not any(len(pts) > 1 for s in series for _, pts in s["_runs"]):
        return None
    series.sort(key=lambda s: (-(s["window_gap"] or 0.0), s["suite_id"], s["query_index"]))
    panels = []
    for n, s in enumerate(series[:MAX_PANELS]):
        gap = s["window_gap"]
        tone = tone_of(gap, ctx.params.tolerance)
        heading = f"{s['query']}" + (f" · {s['suite']}" if multi_suite else "")
        fig = figures.trajectory_chart(
            title="",
            runs=s["_runs"],
            steady=s["reference_s"],
            steady_ci=None,
            steady_iteration=None,
            change_points=(),
            spikes=(),
            reference_label="min of hot runs",
        )
        panels.append(
            Panel(
                Chart(f"fig-traj-{n}", fig),
                heading,
                f"window {fmt_pct(gap)}" if gap is not None else "no hot runs",
                tone,
                {
                    "gap": -gap if gap is not None else 1e9,
                    "query": float(s["suite_id"] * 100000 + s["query_index"]),
                    "cold": -(s["cold_s"] / s["reference_s"])
                    if s["cold_s"] and s["reference_s"]
                    else 0.0,
                },
            )
        )
    note = (
        f"Showing the {len(panels)} of {len(series)} series with the largest gap; "
        "all are in the embedded report data."
        if len(series) > len(panels)
        else ""
    )
    for s in series:
        del s["_runs"]
    grid = Grid(
        "grid-trajectories",
        (
            "Run time per iteration (log scale): hollow circle = cold run, line = hot runs, "
            "dashed green = reference. Badge: the benchmark window's hot value against it."
        ),
        tuple(panels),
        (("gap", "largest gap first"), ("query", "query order"), ("cold", "cold/hot ratio")),
        note,
    )
    return Section(
        "trajectories",
        "Per-query trajectories",
        "Each panel is one query's run times; the worst warm-up comes first.",
        (grid,),
        {"series": series},
    )


def provenance_section(ctx: ReportContext, *, toolkit_version: str, generated_at: str) -> Section:
    """Inputs with SHA-256, versions, analyzer parameters and generation time."""
    sources = ctx.store.frame(
        "SELECT source_id, path, sha256, format, bytes, rows, tool_version FROM sources "
        "ORDER BY source_id"
    ).to_dicts()
    for source in sources:
        source["name"] = PurePath(source["path"]).name
    params = {
        "tolerance": ctx.params.tolerance,
        "window": ctx.params.window,
        "reference": ctx.params.reference,
    }
    table = Table(
        "table-sources",
        "Input files",
        (
            Column("file"),
            Column("format"),
            Column("bytes", True),
            Column("rows", True),
            Column("sha256"),
        ),
        tuple(
            (
                Cell(s["name"]),
                Cell(s["format"]),
                num(s["bytes"], lambda v: f"{v:,.0f}"),
                num(s["rows"], lambda v: f"{v:,.0f}"),
                Cell(s["sha256"]),
            )
            for s in sources
        ),
    )
    settings = Table(
        "table-settings",
        "Versions and parameters",
        (Column("setting"), Column("value")),
        tuple(
            (Cell(k), Cell(str(v)))
            for k, v in (
                ("toolkit version", toolkit_version),
                ("store schema version", ctx.store.schema_version),
                ("generated at", generated_at),
                *((f"parameter: {k}", v) for k, v in params.items()),
            )
        ),
    )
    return Section(
        "provenance",
        "Provenance",
        "What this report was computed from.",
        (table, settings),
        {
            "sources": sources,
            "toolkit_version": toolkit_version,
            "schema_version": ctx.store.schema_version,
            "generated_at": generated_at,
            "parameters": params,
        },
    )


#: Data sections in report order (findings first and provenance last are added by render).
SECTIONS: tuple[Callable[[ReportContext], Section | None], ...] = (
    gaps_section,
    trajectories_section,
)
