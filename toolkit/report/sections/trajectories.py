"""Per-query trajectories with the warm-up engine's detection: small multiples and the class tables."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolkit.analyze.gaps import DEFAULT_TARGET
from toolkit.report.model import (
    Badge,
    Block,
    Cell,
    Column,
    PanelGrid,
    Section,
    Table,
    Text,
    Tone,
)
from toolkit.report.sections.context import ReportContext, detections
from toolkit.report.sections.formatting import fmt_seconds, num
from toolkit.report.sections.gaps import gaps_payload, iteration_frame
from toolkit.report.sections.series_columns import (
    MAX_PAGE_RUNS,
    compact_series,
    first_runs,
    series_columns,
    suite_resolutions,
)

if TYPE_CHECKING:
    pass


#: Small multiples drawn per page (the reader asks for the next page; filters reach every
#: series): about two screens of panels, drawn in well under a second.
PANELS_PER_PAGE = 24


# -- warm-up detection and trajectories ----------------------------------------------------


#: Series classes (Barrett et al. 2017; the short-series detector, research §8.6) → tone.
CLASS_TONES: dict[str, Tone] = {
    "flat": "good",
    "warmup": "warn",
    "slowdown": "bad",
    "no-steady-state": "bad",
    "good inconsistent": "warn",
    "bad inconsistent": "bad",
    "short": "",
    "no-cache-effect": "good",
    "step": "warn",
    "still-warming": "bad",
    "noisy": "warn",
    "single-run": "",
}
CLASS_HELP = {
    "flat": "steady from the first hot run: no warm-up",
    "warmup": "faster after a warm-up, then steady",
    "slowdown": "slower after the start, then steady",
    "no-steady-state": "the last quarter of the runs still changes level",
    "good inconsistent": "processes disagree, but each is flat or warms up",
    "bad inconsistent": "processes disagree, one of them slows down or never settles",
    "short": "too few runs for change points (at most 5)",
    "no-cache-effect": "cold and hot runs agree",
    "step": "a slow cold run, then steady hot runs",
    "still-warming": "the last hot run is a new minimum: still getting faster",
    "noisy": "hot runs disagree without a trend",
    "single-run": "only a cold run",
}


def class_name(entry: dict[str, Any]) -> str:
    """The class a series shows: ``short: step`` for short series, else its class."""
    if entry["class"] == "short" and entry["short"] is not None:
        return f"short: {entry['short']['class']}"
    return str(entry["class"])


def class_badge(name: str) -> Badge:
    key = name.removeprefix("short: ")
    return Badge(name, CLASS_TONES.get(key, ""), CLASS_HELP.get(key, ""))


def _combined_detection(
    entries: Sequence[dict[str, Any]], groups: dict[tuple[str, str], str]
) -> dict[str, Any]:
    """What one panel shows of the processes of a query: one process as detected; several:
    the median steady value, the envelope of their CIs, the latest steady iteration, every
    change point and spike, and the process-group class (Barrett et al. 2017 §4.4)."""
    if not entries:
        return {
            "class": None,
            "steady_s": None,
            "steady_ci": None,
            "steady_iteration": None,
            "changepoints": [],
            "spikes": [],
        }
    if len(entries) == 1:
        e = entries[0]
        return {
            "class": class_name(e),
            "steady_s": e["steady_s"],
            "steady_ci": e["steady_ci"],
            "steady_iteration": e["steady_iteration"],
            "changepoints": list(e["changepoints"]),
            "spikes": [[s["iteration"], s["seconds"]] for s in e["spikes"]],
        }
    steady = [e["steady_s"] for e in entries]
    cis = [e["steady_ci"] for e in entries]
    iters = [e["steady_iteration"] for e in entries]
    ok = all(v is not None for v in steady)
    return {
        "class": groups.get((entries[0]["suite"], entries[0]["query"]), "inconsistent"),
        "steady_s": sorted(steady)[len(steady) // 2] if ok else None,
        "steady_ci": (
            [min(c[0] for c in cis), max(c[1] for c in cis)]
            if all(c is not None and None not in c for c in cis)
            else None
        ),
        "steady_iteration": max(iters) if all(i is not None for i in iters) else None,
        "changepoints": sorted({c for e in entries for c in e["changepoints"]}),
        "spikes": [[s["iteration"], s["seconds"]] for e in entries for s in e["spikes"]],
    }


#: Rows of the per-series detection table (all are in report-data).
MAX_DETECT_ROWS = 200


def _detection_summary_table(payload: dict[str, Any], results: Sequence[Any]) -> Table:
    """One row per suite: the class counts, still-warming short series (as the
    still-warming finding counts them) and spikes."""
    from toolkit.analyze.iteration_findings import still_warming

    per_suite: dict[str, list[dict[str, Any]]] = {}
    for e in payload["series"]:
        per_suite.setdefault(e["suite"], []).append(e)
    warming_in = Counter(d.suite for d in still_warming(results))
    rows = []
    for suite, entries in per_suite.items():
        classes = [e["class"] for e in entries]
        warming = warming_in[suite]
        iters = sorted(e["steady_iteration"] for e in entries if e["steady_iteration"] is not None)
        median = statistics.median(iters) if iters else None
        rows.append(
            (
                Cell(suite),
                num(len(entries), ".0f"),
                *(
                    num(classes.count(c), ".0f")
                    for c in ("flat", "warmup", "slowdown", "no-steady-state", "short")
                ),
                num(warming, ".0f"),
                num(sum(len(e["spikes"]) for e in entries), ".0f"),
                num(median, "g"),
                num(iters[-1] if iters else None, ".0f"),
            )
        )
    return Table(
        "table-detect-summary",
        "Warm-up classes per suite (one series = one query in one process)",
        (
            Column("suite"),
            Column("series", True),
            Column("flat", True, CLASS_HELP["flat"]),
            Column("warm-up", True, CLASS_HELP["warmup"]),
            Column("slowdown", True, CLASS_HELP["slowdown"]),
            Column("no steady state", True, CLASS_HELP["no-steady-state"]),
            Column("short", True, CLASS_HELP["short"]),
            Column("still warming", True, CLASS_HELP["still-warming"]),
            Column("spikes", True, "single iterations far above their neighbours"),
            Column("steady from (median)", True, "iteration of the steady state's first run"),
            Column("steady from (latest)", True),
        ),
        tuple(rows),
    )


def _detection_rows_table(entries: Sequence[dict[str, Any]], multi_suite: bool) -> Table:
    """One row per series: class, steady iteration and value with its CI, change points,
    spikes, cold/hot ratio."""

    def ci_text(e: dict[str, Any]) -> Cell:
        if e["steady_s"] is None:
            return Cell("–", None)
        text = fmt_seconds(e["steady_s"])
        if e["steady_ci"] is not None and None not in e["steady_ci"]:
            text += f" ({fmt_seconds(e['steady_ci'][0])} – {fmt_seconds(e['steady_ci'][1])})"
        return Cell(text, e["steady_s"])

    rows = []
    for e in entries:
        name = class_name(e)
        rows.append(
            (
                Cell(f"{e['query']} · {e['suite']}" if multi_suite else e["query"]),
                num(e["process"], ".0f"),
                Cell(name, None, class_badge(name).tone),
                num(e["runs"], ".0f"),
                num(e["steady_iteration"], ".0f"),
                num(e["time_to_steady_s"], fmt_seconds),
                ci_text(e),
                Cell(", ".join(str(c) for c in e["changepoints"]) or "–"),
                Cell(
                    ", ".join(f"{s['iteration']}: {fmt_seconds(s['seconds'])}" for s in e["spikes"])
                    or "–",
                    float(len(e["spikes"])),
                ),
                num(e["cold_ratio"], lambda v: f"{v:.2f}x"),
            )
        )
    return Table(
        "table-detect",
        "Warm-up per series",
        (
            Column("query"),
            Column("process", True),
            Column("class"),
            Column("runs", True),
            Column("steady from iteration", True, "0 = the cold run"),
            Column("time to steady", True, "wall-clock time of the runs before it"),
            Column("steady value (95 % CI)", True, "median of the steady runs, bootstrap CI"),
            Column("change points", False, "first iteration of each new segment (PELT)"),
            Column("spikes (iteration: time)", True),
            Column("cold / fastest hot", True),
        ),
        tuple(rows),
    )


def _cold_ratio(series: dict[str, Any]) -> float:
    """Cold run over the reference (min of the hot runs) of a series, 0.0 when unknown."""
    cold, reference = series["cold_s"], series["reference_s"]
    return float(cold / reference) if cold is not None and reference else 0.0


def trajectories_section(ctx: ReportContext) -> Section | None:
    """Per-query trajectories as small multiples with the warm-up engine's results (steady
    value and CI band, warm-up shaded, change points, spikes, class badge), worst gap
    first, every series reachable through the panel grid's filters (drawn in the page
    from the compact series); the class summary and the per-series table below."""
    frame = iteration_frame(ctx.store)
    if frame.is_empty():
        return None
    gaps = {s["suite_id"]: s for s in gaps_payload(ctx)["suites"]}
    results, detect = detections(ctx)
    multi_suite = len(gaps) > 1
    per_query = {
        (suite_id, q["query"]): q
        for suite_id, suite in gaps.items()
        for q in reversed(suite["per_query"])  # the first process wins
    }
    detected: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for entry in detect["series"]:
        detected.setdefault((entry["suite_id"], entry["query"]), []).append(entry)
    groups = {(g["suite"], g["query"]): g["class"] for g in detect["groups"]}
    columns = series_columns(frame)
    declared_resolution = {d.suite_id: d.resolution_s for d in results}
    series: list[dict[str, Any]] = []
    for n, (suite_id, query) in enumerate(columns.keys):
        suite = gaps.get(suite_id)
        info = per_query.get((suite_id, query))
        if suite is None or info is None:
            continue
        ref = info["reference_s"]
        k = min(ctx.params.window, len(info["hot_s_by_k"]))
        window_s = info["hot_s_by_k"][k - 1] if k >= 1 else None
        gap = window_s / ref - 1 if window_s is not None and ref else None
        series.append(
            {
                "n": n,
                "suite": suite["suite"],
                "suite_id": suite_id,
                "system": suite["system"],
                "query": query,
                "query_index": columns.query_index[n],
                "reference_s": ref,
                "window_gap": gap,
                "cold_s": info["cold_s"],
                **_combined_detection(detected.get((suite_id, query), []), groups),
            }
        )
    if not columns.block_runs or max(columns.block_runs) < 2:
        return None
    # largest gap first, then the largest cold/hot ratio (ClickBench's window of 2 of its 2
    # hot runs has no gap: the cache effect orders it), as the panels' default sort
    series.sort(
        key=lambda s: (-(s["window_gap"] or 0.0), -_cold_ratio(s), s["suite_id"], s["query_index"])
    )
    grid = PanelGrid(
        "grid-trajectories",
        (
            "Run time per iteration (log scale): hollow circle = cold run, line = hot runs, "
            "dashed green = steady value with its 95 % CI band, grey area = warm-up before "
            "the steady state, dotted = change points, red × = spikes, grey dash-dot = the "
            "gap table's reference (min of all hot runs); a run of 0 s is drawn as a "
            "triangle on the dotted floor line at the timer's resolution. Badges: the series "
            "class and the benchmark window's gap. Hover a title for the full name."
        ),
        "series",
        (
            ("gap", "largest gap, then cold/hot ratio"),
            ("warmup", "longest warm-up first"),
            ("cold", "cold/hot ratio"),
            ("query", "query order"),
            ("name", "name"),
        ),
        PANELS_PER_PAGE,
        f"Every one of the {len(series)} series has a panel: filter by suite, system, "
        "class or query; panels are drawn a page at a time.",
    )
    order = {(s["suite_id"], s["query"]): n for n, s in enumerate(series)}
    ordered = sorted(
        detect["series"],
        key=lambda e: (order.get((e["suite_id"], e["query"]), len(order)), e["process"]),
    )
    blocks: list[Block] = [_detection_summary_table(detect, results), grid]
    rows_note = ""
    if len(ordered) > MAX_DETECT_ROWS:
        rows_note = (
            f"The table lists the first {MAX_DETECT_ROWS} of {len(ordered)} series (largest "
            "gap first, then cold/hot ratio); all are in the embedded report data."
        )
        blocks.append(Text(rows_note))
    blocks.append(_detection_rows_table(ordered[:MAX_DETECT_ROWS], multi_suite))
    resolutions = suite_resolutions(columns, declared_resolution)
    page_columns, cap = first_runs(columns)
    if cap:
        blocks.insert(
            2,
            Text(
                f"The panels draw the first {cap:,} runs of each process: the "
                f"{len(columns.seconds):,} run times of these series are more than the page "
                f"carries ({MAX_PAGE_RUNS:,}). Every figure above and in the tables is "
                "computed over the runs analysed, which --json and the store hold."
            ),
        )
    payload = compact_series(page_columns, series, resolutions, ctx.params.window)
    # the score section's system picker reads its run times from these columns
    ctx.cached("trajectories_series", lambda: payload)
    return Section(
        "trajectories",
        "Per-query trajectories and warm-up detection",
        (
            "Each panel is one query's run times with the warm-up engine's verdict (PELT "
            "change points, Barrett et al. 2017 classes, bootstrap CI of the steady value); "
            "the worst warm-up comes first."
        ),
        tuple(blocks),
        {
            "series": payload,
            "panels": {
                "window": ctx.params.window,
                "target": DEFAULT_TARGET,
                "tolerance": ctx.params.tolerance,
                "classes": {
                    name: [CLASS_TONES.get(name, ""), CLASS_HELP.get(name, "")]
                    for name in sorted(
                        {str(s["class"]).removeprefix("short: ") for s in series if s["class"]}
                    )
                },
            },
            "detection": {k: v for k, v in detect.items() if k != "series"},
        },
        # the iteration findings go with the gaps section; here only when it is absent
    )
