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
    if value < 60:
        return f"{value:.3g} s"
    minutes, seconds = divmod(round(value), 60)
    return f"{minutes}m {seconds}s" if minutes < 60 else f"{minutes // 60}h {minutes % 60}m"


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


def num(value: float | None, fmt: Callable[[float], str]) -> Cell:
    """A numeric cell: formatted text, sorting by the raw number; missing shows "–"."""
    if value is None or not math.isfinite(value):
        return Cell("–", None)
    return Cell(fmt(value), value)


def tone_of(gap: float | None, tolerance: float) -> Tone:
    """good within ±tolerance, bad outside, neutral when unknown."""
    if gap is None:
        return ""
    return "good" if abs(gap) <= tolerance else "bad"


def slug(*parts: object) -> str:
    """An ASCII id part from indexes (never from untrusted names)."""
    return "-".join(str(p) for p in parts)


# -- iterations ---------------------------------------------------------------------------


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


def gaps_payload(ctx: ReportContext) -> dict[str, Any]:
    """The ``warmup gaps --json`` payload of the store (pipeline/gaps.py), each suite with
    its ``suite_id`` added so other sections can join on it."""

    def compute() -> dict[str, Any]:
        from toolkit.pipeline.gaps import gap_tables
        from toolkit.pipeline.gaps import gaps_payload as payload_of

        results = gap_tables(ctx.store, tolerance=ctx.params.tolerance)
        payload = payload_of(results)
        for item, suite in zip(results, payload["suites"], strict=True):
            suite["suite_id"] = item.suite_id
        return payload

    payload: dict[str, Any] = ctx.cached("gaps", compute)
    return payload


# -- sections -----------------------------------------------------------------------------


def gaps_findings(payload: dict[str, Any], params: ReportParams) -> list[Finding]:
    """Per suite with more hot runs than the benchmark's window: how far the window's suite
    sum is from the reference, how many queries are off, and the gaps analyzer's k for its
    target (``k_for_target``, gap <= 5 %; toolkit/analyze/gaps.py)."""
    found = []
    for suite in payload["suites"]:
        rows = {r["hot_iterations"]: r for r in suite["rows"]}
        if params.window not in rows or len(rows) <= params.window:
            continue
        row = rows[params.window]
        gap = row["gap"]
        if gap is None:
            continue
        queries = row["queries"]
        off = queries - row["within_tolerance"]
        enough = suite.get("k_for_target")
        severity: Severity = "problem" if abs(gap) > params.tolerance else "info"
        message = (
            f"{suite['suite']}: with {params.window} hot iterations the suite sum is "
            f"{gap:+.0%} off the reference ({fmt_seconds(row['suite_sum_s'])} vs "
            f"{fmt_seconds(row['reference_sum_s'])}); {off} of {queries} queries are "
            f"off by more than {params.tolerance:.0%}"
        )
        if enough is not None and enough > params.window:
            advice = (
                f"run at least {enough} hot iterations ({enough + 1} runs): the gap is then "
                f"{rows[enough]['gap']:+.0%}"
            )
        elif enough is None:
            advice = (
                f"run more than {len(rows)} hot iterations: none of these windows is within "
                f"{suite.get('target', params.tolerance / 2):.0%} of the reference"
            )
        else:
            advice = "the benchmark's own window is close enough to the reference"
            severity = "info"
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
                Cell(f"{r['within_tolerance']}/{r['queries']}", r["within_tolerance"]),
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
                Cell(f"{row['within_tolerance']}/{row['queries']}", row["within_tolerance"]),
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
                [{"name": s["suite"], "rows": s["rows"]} for s in shown],
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
    per_query = {
        (suite_id, q["query"]): q
        for suite_id, suite in gaps.items()
        for q in reversed(suite["per_query"])  # the first process wins
    }
    series: list[dict[str, Any]] = []
    for (suite_id, query), part in frame.group_by(["suite_id", "query"], maintain_order=True):
        suite = gaps.get(int(suite_id))
        info = per_query.get((int(suite_id), str(query)))
        if suite is None or info is None:
            continue
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
                "system": suite["system"],
                "query": query,
                "query_index": int(part["query_index"][0]),
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
        heading = f"{s['query']}" + (f" · {s['system'] or s['suite']}" if multi_suite else "")
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


#: Cache series drawn at most (all are in the tables and report-data).
MAX_CACHE_CHARTS = 12


def fitted_elapsed(fit: Any, runs: Sequence[int]) -> list[float | None]:
    """Values of the analyzer's best warm-up model at each run (toolkit/analyze/cache.py
    ``CurveFit``: step = t∞ + A at run 1 then t∞; geometric t∞ + A·q^(k−1); power
    t∞ + A·k^(−β))."""
    out: list[float | None] = []
    for k in runs:
        if fit.model == "step":
            out.append(fit.t_inf_s + (fit.amplitude_s if k == runs[0] else 0.0))
        elif fit.model == "geometric" and fit.q is not None:
            out.append(fit.t_inf_s + fit.amplitude_s * fit.q ** (k - 1))
        elif fit.model == "power" and fit.beta is not None:
            out.append(fit.t_inf_s + fit.amplitude_s * k ** (-fit.beta))
        else:
            out.append(None)
    return out


def cache_findings(payload: dict[str, Any]) -> list[Finding]:
    """Per series with a measured cache: warm-up length, speed-up and tier rates."""
    found = []
    for s in payload["series"]:
        if s["runs_to_warm"] is None or s["cold_s"] is None or s["warm_s"] is None:
            continue
        if s["runs_to_warm"] <= 1:
            continue
        rates = ""
        if s["remote_rate"] and s["local_rate"]:
            rates = (
                f"; remote reads run at {fmt_rate(s['remote_rate'])}, local at "
                f"{fmt_rate(s['local_rate'])} ({s['local_rate'] / s['remote_rate']:.0f}x)"
            )
        found.append(
            Finding(
                rule="cache-warmup",
                severity="warning",
                subject=s["series"],
                message=(
                    f"{s['series']}: the cache is warm from run {s['runs_to_warm']} "
                    f"({fmt_seconds(s['cold_s'])} cold, {fmt_seconds(s['warm_s'])} warm, "
                    f"{s['speedup']:.1f}x){rates}"
                    if s["speedup"]
                    else f"{s['series']}: the cache is warm from run {s['runs_to_warm']}{rates}"
                ),
                advice=(
                    f"report cold and warm separately, or discard the first "
                    f"{s['runs_to_warm'] - 1} runs before measuring"
                ),
                numbers={
                    "runs_to_warm": s["runs_to_warm"],
                    "cold_s": s["cold_s"],
                    "warm_s": s["warm_s"],
                    "remote_rate": s["remote_rate"],
                    "local_rate": s["local_rate"],
                },
            )
        )
    return found


def cache_section(ctx: ReportContext) -> Section | None:
    """Cache warm-up from query profiles: stacked remote/local bytes and time per run,
    the fitted curve, and the rates table (pipeline/cache.py)."""
    from toolkit.pipeline.cache import analyse_cache, cache_payload

    results = analyse_cache(ctx.store)
    if not results:
        return None
    payload = cache_payload(results)
    blocks: list[Block] = []
    for n, (result, s) in enumerate(
        zip(results[:MAX_CACHE_CHARTS], payload["series"], strict=False)
    ):
        runs = [r["run"] for r in s["runs"]]
        fit = result.fit
        blocks.append(
            Chart(
                f"fig-cache-{n}",
                figures.cache_chart(
                    title=figures.plot_text(s["series"]),
                    runs=runs,
                    remote_bytes=[r["bytes_remote"] for r in s["runs"]],
                    local_bytes=[r["bytes_local"] for r in s["runs"]],
                    elapsed_s=[r["elapsed_s"] for r in s["runs"]],
                    fitted_s=fitted_elapsed(fit, runs) if fit is not None else None,
                    fit_label=f"fitted {fit.model} curve" if fit is not None else "",
                ),
            )
        )
    blocks.append(
        Table(
            "table-cache",
            "Transfer rates, warm-up and cache size per series",
            (
                Column("series"),
                Column("nodes", True),
                Column("runs", True),
                Column("remote rate", True, "bulk rate: the run moving the most remote bytes"),
                Column("local rate", True, "median of the per-run local rates"),
                Column("local/remote", True),
                Column("1 TB remote", True, "time to read 10^12 bytes at the remote rate"),
                Column("warm from run", True),
                Column("cold → warm", True),
                Column("cached working set", True, "plateau of local bytes: a lower bound"),
                Column("best fit"),
            ),
            tuple(
                (
                    Cell(s["series"]),
                    num(s["nodes"], lambda v: f"{v:.0f}"),
                    num(len(s["runs"]), lambda v: f"{v:.0f}"),
                    num(s["remote_rate"], fmt_rate),
                    num(s["local_rate"], fmt_rate),
                    num(s["local_remote_ratio"], lambda v: f"{v:.0f}x"),
                    num(s["remote_time_per_tb_s"], lambda v: f"{v / 60:.0f} min"),
                    num(s["runs_to_warm"], lambda v: f"{v:.0f}"),
                    Cell(
                        f"{fmt_seconds(s['cold_s'])} → {fmt_seconds(s['warm_s'])}",
                        s["speedup"],
                    ),
                    num(s["capacity_bytes"], fmt_bytes),
                    Cell("–" if s["fit"] is None else s["fit"]["model"]),
                )
                for s in payload["series"]
            ),
        )
    )
    return Section(
        "cache",
        "Cache warm-up",
        (
            "Per run: bytes read from remote storage (orange) and from the local cache (blue), "
            "and the elapsed time (black, right axis, log) with the best-fitting warm-up curve."
        ),
        tuple(blocks),
        payload,
        tuple(cache_findings(payload)),
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
    cache_section,
)
