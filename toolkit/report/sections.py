"""Report sections: one small function per section, each returning None when its data is
absent. They read the store only through pipeline-shaped payloads (the ``--json`` contract
in DESIGN.md) and turn them into blocks and findings.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.analyze.compare import ratio_text
from toolkit.analyze.gaps import DEFAULT_TARGET
from toolkit.analyze.jmeter_errors import TOP_ERRORS
from toolkit.analyze.timeseries import ApdexThresholds
from toolkit.config import Settings
from toolkit.numbers import (
    error_pct_above,
    error_pct_text,
    fmt_error_pct,
    fmt_interval,
    fmt_num,
    plural,
)
from toolkit.report import figures
from toolkit.report.model import (
    Badge,
    Block,
    Cell,
    Chart,
    Column,
    Grid,
    Panel,
    Section,
    Table,
    Text,
    Tone,
)
from toolkit.store import Store

if TYPE_CHECKING:
    from toolkit.pipeline.findings import Analyses

#: Small multiples drawn at most (the rest stay in report-data); enough for one 43-query suite.
MAX_PANELS = 48


@dataclass(frozen=True)
class ReportParams:
    """Analyzer parameters shown in the provenance section and embedded in report-data.

    ``tolerance``: a hot value within ±10 % of the reference counts as steady (the seed's
    table; research/warmup-science.md §8). ``window``: hot iterations in the benchmark's
    own hot value (ClickBench: min(run 2, run 3) = 2; research/clickbench.md §1).
    ``load_window_s``: seconds per window of the load-test analysis (throughput series,
    MSER-5 warm-up end, batch means; pipeline/load.py), as ``warmup load --window``.
    ``load_apdex``: the load-test APDEX thresholds, as ``warmup load --apdex`` and
    ``--apdex-per-label`` set them. ``load_steady_from_s``/``load_steady_to_s``: the
    steady window set by ``--steady-from``/``--steady-to`` (s from each suite's first
    sample), None for the detected one. ``settings``: the thresholds of the findings rules
    (:mod:`toolkit.config`), with the file they came from for the provenance.
    """

    tolerance: float = 0.10
    window: int = 2
    reference: str = "min-all"
    compare: tuple[tuple[str, str], ...] = ()
    load_window_s: float = 1.0
    load_apdex: ApdexThresholds = field(default_factory=ApdexThresholds)
    load_steady_from_s: float | None = None
    load_steady_to_s: float | None = None
    settings: Settings = field(default_factory=Settings)


@dataclass
class ReportContext:
    """The store and parameters, with per-pipeline results computed once: the analyses
    the findings engine reads (:class:`~toolkit.pipeline.findings.Analyses`) are the ones
    the sections draw, so the report shows what ``warmup findings`` says."""

    store: Store
    params: ReportParams
    _cache: dict[str, Any] = field(default_factory=dict)

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    @property
    def analyses(self) -> Analyses:
        """The store's analyses with the report's parameters (made once)."""
        from toolkit.pipeline.findings import Analyses

        value: Analyses = self.cached(
            "analyses",
            lambda: Analyses(
                self.store,
                self.params.settings,
                hot_window=self.params.window,
                compare=self.params.compare,
                load_window_s=self.params.load_window_s,
                load_apdex=self.params.load_apdex,
                steady_from_s=self.params.load_steady_from_s,
                steady_to_s=self.params.load_steady_to_s,
            ),
        )
        return value


# -- formatting ---------------------------------------------------------------------------


def fmt_seconds(value: float | None) -> str:
    """Seconds with 3 significant digits and a unit that keeps them readable."""
    if value is None or not math.isfinite(value):
        return "–"
    if value < 0:
        return "−" + fmt_seconds(-value)
    if value == 0:
        return "0 s"
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


def num(value: float | None, fmt: Callable[[float], str] | str) -> Cell:
    """A numeric cell: formatted text, sorting by the raw number; missing shows "–".
    ``fmt`` is a function or a format spec (``".3f"``)."""
    if value is None or not math.isfinite(value):
        return Cell("–", None)
    return Cell(format(value, fmt) if isinstance(fmt, str) else fmt(value), value)


def tone_of(gap: float | None, target: float, tolerance: float | None = None) -> Tone:
    """good within ±target, warn up to ±tolerance (when given and wider), bad beyond,
    neutral when unknown: a gap above the target is never green."""
    if gap is None:
        return ""
    if abs(gap) <= target + 1e-12:
        return "good"
    return "warn" if tolerance is not None and abs(gap) <= tolerance + 1e-12 else "bad"


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

        results = gap_tables(
            ctx.store,
            tolerance=ctx.params.tolerance,
            window=ctx.params.window,
            detections=detections(ctx)[0],
        )
        payload = payload_of(results)
        for item, suite in zip(results, payload["suites"], strict=True):
            suite["suite_id"] = item.suite_id
        return payload

    payload: dict[str, Any] = ctx.cached("gaps", compute)
    return payload


# -- sections -----------------------------------------------------------------------------


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
        tone = tone_of(r["gap"], suite["target"], tol)
        rows.append(
            (
                Cell(label, r["hot_iterations"]),
                num(r["total_runs"], ".0f"),
                num(r["suite_sum_s"], ".3f"),
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
        tone = tone_of(gap, suite["target"], params.tolerance)
        rows.append(
            (
                Cell(suite["suite"]),
                Cell(suite["system"] or ""),
                num(suite["queries"], ".0f"),
                num(suite["rows"][-1]["hot_iterations"], ".0f"),
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


def _chart_order(suite: dict[str, Any], window: int) -> tuple[float, float, str]:
    """ "The N largest" order: the window's |gap| first, ties broken by the first hot run's
    |gap| (how much warm-up the suite shows at all), then the name."""
    row = _window_row(suite, window)
    first = suite["rows"][0]["gap"] if suite["rows"] else None
    gap = row["gap"] if row is not None else None
    return (-abs(gap or 0.0), -abs(first or 0.0), suite["suite"])


def _hot_pair_order(suite: dict[str, Any]) -> tuple[float, float, str]:
    # the largest run 2 vs run 3 spread first; ties by the cold/hot ratio, then the name
    pair = suite["hot_pair"]
    return (-(pair["spread_share"] or 0.0), -(pair["cold_hot_ratio"] or 0.0), suite["suite"])


#: 3-run suites given a per-query table of run 2 vs run 3 (all are in report-data).
MAX_PAIR_SUITES = 3


def _hot_pair_summary_table(suites: Sequence[dict[str, Any]]) -> Table:
    """One row per 3-run suite: cold/hot ratio, run 2 vs run 3 spread summed and its share
    of the window sum, and the query with the largest spread."""
    rows = []
    for suite in suites:
        pair = suite["hot_pair"]
        spreads = [p for p in pair["per_query"] if p["spread_s"] is not None]
        top = max(spreads, key=lambda p: p["spread_s"], default=None)
        rows.append(
            (
                Cell(suite["suite"]),
                Cell(suite["system"] or ""),
                num(pair["queries"], ".0f"),
                num(pair["cold_hot_ratio"], lambda v: f"{v:.2f}x"),
                Cell(fmt_pct(suite["rows"][0]["gap"]), suite["rows"][0]["gap"]),
                num(pair["spread_sum_s"], fmt_seconds),
                num(pair["spread_share"], lambda v: f"{v:.1%}"),
                Cell(
                    "–" if top is None else f"{top['query']} {fmt_seconds(top['spread_s'])}",
                    None if top is None else top["spread_s"],
                ),
            )
        )
    return Table(
        "table-hot-pair",
        "3-run suites: what cold + 2 hot runs show (largest run 2 vs run 3 spread first)",
        (
            Column("suite"),
            Column("system"),
            Column("queries", True, "queries with both hot runs"),
            Column("cold / hot", True, "sum of cold runs / sum of min(run 2, run 3)"),
            Column("run 2 vs window", True, "suite sum of run 2 against min(run 2, run 3)"),
            Column("|run 2 − run 3| summed", True, "how far apart the two hot runs are"),
            Column("of the window sum", True, "the summed spread / sum of min(run 2, run 3)"),
            Column("largest spread", True),
        ),
        tuple(rows),
    )


def _hot_pair_query_table(n: int, suite: dict[str, Any]) -> Table:
    """One suite's queries: cold, run 2, run 3, their spread and the cold/hot ratio,
    largest spread first."""
    per_query = sorted(
        suite["hot_pair"]["per_query"],
        key=lambda p: (-(p["spread_s"] if p["spread_s"] is not None else -1.0), p["query"]),
    )
    rows = tuple(
        (
            Cell(p["query"]),
            num(p["cold_s"], fmt_seconds),
            num(p["first_hot_s"], fmt_seconds),
            num(p["second_hot_s"], fmt_seconds),
            num(p["spread_s"], fmt_seconds),
            num(p["cold_hot_ratio"], lambda v: f"{v:.2f}x"),
        )
        for p in per_query
    )
    return Table(
        f"table-hot-pair-{n}",
        f"{suite['suite']}: run 2 vs run 3 per query",
        (
            Column("query"),
            Column("cold (run 1)", True),
            Column("run 2", True),
            Column("run 3", True),
            Column("|run 2 − run 3|", True, "bounds the noise of min(run 2, run 3)"),
            Column("cold / hot", True),
        ),
        rows,
    )


def gaps_section(ctx: ReportContext) -> Section | None:
    """Iteration gaps: the seed's table per suite, and gap / within-tolerance against k;
    for 3-run suites (where the min of all hot runs is the window itself) the cold/hot
    ratios and the run 2 vs run 3 spread instead. Carries the iteration findings."""
    payload = gaps_payload(ctx)
    suites = [s for s in payload["suites"] if len(s["rows"]) >= 2]
    if not suites:
        return None
    params = ctx.params
    # suites with more hot runs than the benchmark's window say how far the window is off
    telling = [s for s in suites if len(s["rows"]) > params.window]
    short = [s for s in suites if len(s["rows"]) <= params.window]
    blocks: list[Block] = []
    if telling:
        shown = sorted(telling, key=lambda s: _chart_order(s, params.window))[:MAX_GAP_SUITES]
        blocks.append(
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
                        f" The {len(shown)} of {len(telling)} suites with the largest gap at "
                        f"k = {params.window} (ties: the largest gap at k = 1)."
                        if len(telling) > len(shown)
                        else ""
                    )
                ),
            )
        )
        if len(telling) > 1:
            blocks.append(_gap_summary_table(telling, params))
        blocks.extend(_gap_rows_table(n, suite, params) for n, suite in enumerate(shown))
    if short:
        runs = params.window + 1
        blocks.append(
            Text(
                f"{plural(len(short), 'suite')} {'has' if len(short) == 1 else 'have'} "
                f"{runs} runs (cold + {params.window} hot): there the reference, the min of "
                f"all hot runs, is ClickBench's own window min(run 2, run 3), so the gap table "
                "has nothing beyond it (0 at the window by definition). What these runs do "
                "show: the cold/hot ratio, and how far apart the two hot runs are, which "
                "bounds the window's noise."
            )
        )
        ordered = sorted(short, key=_hot_pair_order)
        blocks.append(_hot_pair_summary_table(ordered))
        blocks.extend(
            _hot_pair_query_table(n, suite) for n, suite in enumerate(ordered[:MAX_PAIR_SUITES])
        )
    return Section(
        "gaps",
        "Iteration gaps",
        (
            "For each number of hot iterations k, the hot value of a query is the minimum of "
            "its first k hot runs; the table compares the suite sum with the reference. "
            "The findings measure the window against the warm-up engine's steady state."
        ),
        tuple(blocks),
        {"suites": suites},
    )


# -- warm-up detection and trajectories ----------------------------------------------------


def detections(ctx: ReportContext) -> tuple[list[Any], dict[str, Any]]:
    """The warm-up engine's results for every iteration series (pipeline/detect.py) and
    their ``warmup detect --json`` payload, each series with ``suite_id`` and
    ``query_index`` added for joins."""

    def compute() -> tuple[list[Any], dict[str, Any]]:
        from toolkit.pipeline.detect import detect_payload

        results = ctx.analyses.detections()
        payload = detect_payload(results)
        for entry, det in zip(payload["series"], results, strict=True):
            entry["suite_id"] = det.suite_id
            entry["query_index"] = det.query_index
        return results, payload

    value: tuple[list[Any], dict[str, Any]] = ctx.cached("detect", compute)
    return value


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


#: Suites given their own finding of one kind; above this, one finding for all of them.
MAX_SUITE_FINDINGS = 4


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


def trajectories_section(ctx: ReportContext) -> Section | None:
    """Per-query trajectories as small multiples with the warm-up engine's results (steady
    value and CI band, warm-up shaded, change points, spikes, class badge), worst gap
    first; the class summary and the per-series table below."""
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
                **_combined_detection(detected.get((int(suite_id), str(query)), []), groups),
                "_runs": runs,
            }
        )
    if not any(len(pts) > 1 for s in series for _, pts in s["_runs"]):
        return None
    series.sort(key=lambda s: (-(s["window_gap"] or 0.0), s["suite_id"], s["query_index"]))
    panels = []
    for n, s in enumerate(series[:MAX_PANELS]):
        gap = s["window_gap"]
        heading = f"{s['query']}" + (f" · {s['system'] or s['suite']}" if multi_suite else "")
        ci = s["steady_ci"]
        fig = figures.trajectory_chart(
            title="",
            runs=s["_runs"],
            steady=s["steady_s"],
            steady_ci=(ci[0], ci[1]) if ci is not None else None,
            steady_iteration=s["steady_iteration"],
            change_points=s["changepoints"],
            spikes=[(int(i), float(v)) for i, v in s["spikes"]],
            reference=s["reference_s"],
        )
        badges = []
        if s["class"] is not None:
            badges.append(class_badge(s["class"]))
        badges.append(
            Badge(
                f"k={ctx.params.window} {fmt_pct(gap)}" if gap is not None else "no hot runs",
                tone_of(gap, DEFAULT_TARGET, ctx.params.tolerance),
                f"the benchmark window (min of the first {ctx.params.window} hot runs) "
                "against the reference (min of all hot runs)",
            )
        )
        panels.append(
            Panel(
                Chart(f"fig-traj-{n}", fig),
                heading,
                tuple(badges),
                {
                    "gap": -gap if gap is not None else 1e9,
                    "query": float(s["suite_id"] * 100000 + s["query_index"]),
                    "cold": -(s["cold_s"] / s["reference_s"])
                    if s["cold_s"] and s["reference_s"]
                    else 0.0,
                    "warmup": -float(s["steady_iteration"] or 0),
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
            "dashed green = steady value with its 95 % CI band, grey area = warm-up before "
            "the steady state, dotted = change points, red × = spikes, grey dash-dot = the "
            "gap table's reference (min of all hot runs). Badges: the series class and the "
            "benchmark window's gap."
        ),
        tuple(panels),
        (
            ("gap", "largest gap first"),
            ("query", "query order"),
            ("cold", "cold/hot ratio"),
            ("warmup", "longest warm-up first"),
        ),
        note,
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
            "gap first); all are in the embedded report data."
        )
        blocks.append(Text(rows_note))
    blocks.append(_detection_rows_table(ordered[:MAX_DETECT_ROWS], multi_suite))
    return Section(
        "trajectories",
        "Per-query trajectories and warm-up detection",
        (
            "Each panel is one query's run times with the warm-up engine's verdict (PELT "
            "change points, Barrett et al. 2017 classes, bootstrap CI of the steady value); "
            "the worst warm-up comes first."
        ),
        tuple(blocks),
        {"series": series, "detection": detect},
        # the iteration findings go with the gaps section; here only when it is absent
    )


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


# -- load tests --------------------------------------------------------------------------

#: Windows per chart trace at most: the chart window grows (1-2-5 steps) to stay below.
MAX_LOAD_WINDOWS = 2000
#: Label charts at most over all suites (ALL of each suite first; every label is in the tables).
MAX_LOAD_CHARTS = 8


def chart_window_s(duration_s: float | None, window_s: float) -> float:
    """The window of a load chart: the analysis window, or the smallest 1-2-5 x 10^n
    seconds that keeps a run of ``duration_s`` below ``MAX_LOAD_WINDOWS`` windows."""
    if not duration_s or duration_s / window_s < MAX_LOAD_WINDOWS - 1:
        return window_s
    need = duration_s / (MAX_LOAD_WINDOWS - 2)
    exp = math.floor(math.log10(need))
    for mant in (1, 2, 5, 10):
        value = float(f"{mant * 10.0**exp:.6g}")
        if value >= need:
            return value
    return need  # pragma: no cover - the loop always returns


def load_result(ctx: ReportContext) -> tuple[list[int], dict[str, Any]] | None:
    """Load suite ids and the ``warmup load --json`` payload (pipeline/load.py), or None
    (:meth:`~toolkit.pipeline.findings.Analyses.load`)."""
    return ctx.analyses.load()


def _load_series(
    store: Store, suite_id: int, suite: dict[str, Any], label: str, window_s: float
) -> dict[str, Any]:
    """The plotted series of one label: per-window throughput and latency percentiles
    (already aggregated in SQL, pipeline/load.py ``window_series``), or for a summariser
    log its own windows (throughput and mean latency)."""
    if suite["source"] == "summariser":
        from toolkit.pipeline.summariser import summariser_windows

        entry = next(x for x in suite["labels"] if x["label"] == label)
        frame = summariser_windows(store, suite_id, entry["summariser"], timed_only=True)
        ends = frame["seconds"].cum_sum().to_list()
        starts = [0.0, *ends[:-1]]
        rates = (frame["count"] / frame["seconds"]).to_list()
        return {
            "label": label,
            "window_s": None,
            "t_s": starts,
            "throughput": rates,
            "latency_ms": {"mean": frame["avg_ms"].to_list()},
            # Active: at each line (null on pre-3.0 lines)
            "threads": frame["active_threads"].cast(pl.Float64).to_list(),
            "errors": (frame["errors"] / frame["seconds"]).to_list(),
        }
    from toolkit.pipeline.load import window_series

    # every window of the suite, empty ones as 0; the last one is the test's final,
    # partial window (the test stops inside it): dropped, as in the analysis
    frame = window_series(store, suite_id, window_s=window_s, label=label).head(-1)
    if frame.is_empty():
        return {"label": label, "window_s": window_s, "t_s": [], "throughput": [], "latency_ms": {}}
    return {
        "label": label,
        "window_s": window_s,
        "t_s": frame["t_s"].to_list(),
        "throughput": frame["throughput"].to_list(),
        "latency_ms": {p: frame[p].to_list() for p in ("p50", "p95", "p99")},
        "threads": frame["threads"].to_list(),
        "errors": (frame["errors"] / window_s).to_list(),
    }


def _ms(value: float | None) -> str:
    """Milliseconds: whole with thousands separators from 100 ms, 3 significant digits
    below (never ``2.178e+04``)."""
    return fmt_num(value)


def _at_s(value: float) -> str:
    """A time into the run in seconds, plain digits (``1,200 s``, ``12.5 s``)."""
    return f"{value:,.10g} s"


#: Error rate (percent, as shown) above which an errors cell is red.
ERROR_PCT_BAD = 1.0


def _labels_table(n: int, suite: dict[str, Any]) -> Table:
    """Per label: samples, errors, warm-up end, steady and whole-run throughput and
    percentiles, APDEX."""

    def pcts(lat: dict[str, Any] | None) -> Cell:
        if not lat or lat.get("p50") is None:
            mean = (lat or {}).get("mean")
            return Cell(f"mean {_ms(mean)}" if mean is not None else "–", mean)
        return Cell(" / ".join(_ms(lat.get(p)) for p in ("p50", "p95", "p99")), lat.get("p99"))

    rows = []
    for lab in suite["labels"]:
        tp = lab["throughput"]
        steady = "–"
        if tp["steady"] is not None:
            ci = tp["steady_ci"]
            steady = (
                fmt_interval(tp["steady"], ci[0], ci[1])
                if ci is not None
                else fmt_num(tp["steady"])
            )
        status = lab["warmup_status"]
        window = lab.get("steady_window")
        # the class names of --json and the table (README, Load tests), verbatim
        end = (
            Cell(_at_s(lab["warmup_end_s"]), lab["warmup_end_s"])
            if status in ("warmup", "flat") and lab["warmup_end_s"] is not None
            else Cell(status, None, "bad" if status in ("no-steady-state", "inconclusive") else "")
        )
        if window is not None and window["source"] == "user":
            end = Cell(
                f"{status}; steady set {_at_s(window['from_s'])}–{_at_s(window['to_s'])}",
                window["from_s"],
            )
        cool = lab.get("cooldown_start_s")
        cooldown = (
            Cell(_at_s(cool), cool)
            if cool is not None and status in ("warmup", "flat")
            else Cell("", None)
        )
        rows.append(
            (
                Cell(lab["label"]),
                num(lab["samples"], ",.0f"),
                Cell(
                    f"{lab['errors']:,} ({fmt_error_pct(lab['error_rate'])})"
                    if lab["error_rate"] is not None
                    else f"{lab['errors']:,}",
                    lab["errors"],
                    "bad" if error_pct_above(lab["error_rate"], ERROR_PCT_BAD) else "",
                ),
                end,
                cooldown,
                Cell(steady, tp["steady"]),
                num(tp["overall"], fmt_num),
                pcts(lab["latency_ms"]["steady"]),
                pcts(lab["latency_ms"]["overall"]),
                num(lab["apdex"], ".3f"),
            )
        )
    return Table(
        f"table-load-{n}",
        f"{suite['suite']}: warm-up, steady state and latency per label (ALL = every "
        "sample but transaction controllers)",
        (
            Column("label"),
            Column("samples", True),
            Column("errors", True),
            Column("warm-up ends", True, "MSER-5 on per-window throughput (White 1997)"),
            Column(
                "cool-down from",
                True,
                "MSER-5 run backwards from the end: where throughput falls as threads finish "
                "(blank: no cool-down)",
            ),
            Column(
                "steady throughput /s (95 % CI)",
                True,
                "batch means between the warm-up end and the cool-down start; the interval "
                "as lower–upper when it is not symmetric (clamped at 0)",
            ),
            Column("whole-run throughput /s", True),
            Column(
                "steady p50 / p95 / p99 ms",
                True,
                "exact, between the warm-up end and the cool-down start",
            ),
            Column("whole-run p50 / p95 / p99 ms", True, "exact, every sample"),
            Column("APDEX", True, apdex_thresholds_text(suite.get("apdex_thresholds"))),
        ),
        tuple(rows),
    )


def apdex_thresholds_text(limits: dict[str, Any] | None) -> str:
    """``T = 500 ms, F = 1500 ms`` and each per-label override (``login: 1000/3000 ms``)."""
    limits = limits or ApdexThresholds().as_json()
    text = f"T = {limits['satisfied_ms']} ms, F = {limits['tolerated_ms']} ms"
    for entry in limits["per_label"]:
        text += f"; {entry['pattern']}: {entry['satisfied_ms']}/{entry['tolerated_ms']} ms"
    return text


def _dashboard_table(n: int, suite: dict[str, Any]) -> Table:
    """JMeter's dashboard Statistics table with APDEX, as JMeter computes it."""
    rows = []
    for row in suite["dashboard"]:
        rows.append(
            (
                Cell(row["transaction"]),
                num(row["sampleCount"], ",.0f"),
                num(row["errorCount"], ",.0f"),
                num(row["errorPct"], error_pct_text),
                *(
                    num(row[key], _ms)
                    for key in (
                        "meanResTime",
                        "minResTime",
                        "maxResTime",
                        "medianResTime",
                        "pct1ResTime",
                        "pct2ResTime",
                        "pct3ResTime",
                    )
                ),
                num(row["throughput"], fmt_num),
                num(row["receivedKBytesPerSec"], fmt_num),
                num(row["sentKBytesPerSec"], fmt_num),
                num(row["apdex"], ".3f"),
            )
        )
    return Table(
        f"table-jmeter-{n}",
        f"{suite['suite']}: JMeter dashboard Statistics and APDEX "
        f"({apdex_thresholds_text(suite.get('apdex_thresholds'))}), "
        "over all samples with JMeter's LEGACY percentile estimator",
        (
            Column("Label"),
            Column("#Samples", True),
            Column("FAIL", True),
            Column("Error %", True),
            Column("Average ms", True),
            Column("Min ms", True),
            Column("Max ms", True),
            Column("Median ms", True),
            Column("90th pct ms", True),
            Column("95th pct ms", True),
            Column("99th pct ms", True),
            Column("Transactions/s", True),
            Column("Received KB/s", True),
            Column("Sent KB/s", True),
            Column("APDEX", True),
        ),
        tuple(rows),
    )


def _errors_tables(n: int, suite: dict[str, Any]) -> list[Table]:
    """JMeter's dashboard Errors table and Top 5 Errors by sampler table (types and labels
    are untrusted text: Cell text is escaped by the template)."""
    types = suite.get("dashboard_errors") or []
    if not types:
        return []
    by_type = Table(
        f"table-jmeter-errors-{n}",
        f"{suite['suite']}: errors by type, as JMeter's dashboard groups them "
        "(response code/message, or the assertion's failure message), over all samples "
        "but transaction-controller ones",
        (
            Column("Type of error"),
            Column("Number of errors", True),
            Column("% in errors", True),
            Column("% in all samples", True),
        ),
        tuple(
            (
                Cell(row["type"]),
                num(row["errorCount"], ",.0f"),
                num(row["pctInErrors"], error_pct_text),
                num(row["pctInAllSamples"], error_pct_text),
            )
            for row in types
        ),
    )
    samplers = suite.get("dashboard_top_errors") or []
    # as many error columns as the most varied sampler needs (JMeter always shows five)
    width = min(TOP_ERRORS, max(len(row["errors"]) for row in samplers))
    rows = []
    for row in samplers:
        slots: list[Cell] = []
        for i in range(width):
            if i < len(row["errors"]):
                error = row["errors"][i]
                slots += [Cell(error["type"]), num(error["errorCount"], ",.0f")]
            else:
                slots += [Cell(""), Cell("", None)]
        rows.append(
            (
                Cell(row["sample"]),
                num(row["sampleCount"], ",.0f"),
                num(row["errorCount"], ",.0f"),
                *slots,
            )
        )
    top = Table(
        f"table-jmeter-top-errors-{n}",
        f"{suite['suite']}: top {TOP_ERRORS} errors by sampler (JMeter's table; labels "
        "without errors left out)",
        (
            Column("Sample"),
            Column("#Samples", True),
            Column("#Errors", True),
            *(
                column
                for i in range(1, width + 1)
                for column in (Column(f"Error {i}"), Column(f"#Errors {i}", True))
            ),
        ),
        tuple(rows),
    )
    return [by_type, top]


def _no_littles_law(suite: dict[str, Any]) -> str:
    """Why a load suite has no Little's-law check (pipeline/load.py sets it None)."""
    all_label = next((x for x in suite["labels"] if x["label"] == "ALL"), None)
    if all_label is None or all_label["warmup_status"] not in ("warmup", "flat"):
        status = all_label["warmup_status"] if all_label else "no samples"
        return f"no steady state to check it on: ALL is {status}"
    if all_label["threads_steady"] is None and suite.get("source") == "summariser":
        return (
            "a summariser log whose lines have no Active: thread counts (an old JMeter); "
            "a JTL of the run gives the check"
        )
    if all_label["threads_steady"] is None:
        return "the file has no thread counts: no grpThreads or allThreads column"
    return "no steady throughput or latency"


def _littles_law_table(n: int, suite: dict[str, Any]) -> Table | Text:
    """Little's law on the steady part: N = X·(R + Z) (Little 1961)."""
    law = suite["littles_law"]
    if law is None:
        return Text(f"{suite['suite']}: Little's law not checked ({_no_littles_law(suite)}).")
    busy = law["busy_fraction"]
    tone: Tone
    if law.get("verdict") == "inconsistent":
        verdict, tone = (
            "inconsistent data: more requests in flight than threads (thread counts miss "
            "load generators, or a stall)",
            "bad",
        )
    elif busy >= 0.9:
        verdict, tone = (
            "saturated closed loop: threads never pause, throughput is set by latency "
            "(coordinated omission)",
            "bad",
        )
    else:
        verdict, tone = (
            f"threads wait {fmt_seconds(law['think_s'])} between requests: latency does not "
            "set the throughput",
            "good",
        )
    return Table(
        f"table-little-{n}",
        f"{suite['suite']}: Little's law on the steady part (threads N = throughput X × "
        "(latency R + think time Z))",
        (
            Column("threads N", True),
            Column("throughput X /s", True),
            Column("mean latency R", True),
            Column("busy threads X·R", True),
            Column("busy fraction X·R/N", True),
            Column("implied think time Z", True),
            Column("verdict"),
        ),
        (
            (
                num(law["threads"], fmt_num),
                num(law["throughput"], fmt_num),
                num(law["latency_s"], fmt_seconds),
                num(law["throughput"] * law["latency_s"], fmt_num),
                Cell(fmt_pct(busy, signed=False), busy, tone),
                num(law["think_s"], fmt_seconds),
                Cell(verdict, None, tone),
            ),
        ),
    )


#: Labels a load suite's tables show (ALL and the busiest others, by samples); the rest are
#: summarised in one line with their count and are all in ``warmup load --json``: a JTL
#: of 100,000 distinct labels made a 205 MB report in 159 s
MAX_LOAD_TABLE_LABELS = 100


def _shown_labels(suite: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """``suite`` with its per-label lists (labels, JMeter's Statistics rows, error types,
    top errors by sampler) cut to :data:`MAX_LOAD_TABLE_LABELS` entries, ALL and the
    busiest labels kept in their order; and how many labels were left out."""
    labels = suite["labels"]
    if len(labels) <= MAX_LOAD_TABLE_LABELS:
        return suite, 0
    busiest = sorted(labels, key=lambda lab: (lab["label"] != "ALL", -lab["samples"]))
    keep = {lab["label"] for lab in busiest[:MAX_LOAD_TABLE_LABELS]}
    rows_kept = keep | {"Total"}
    shown = {
        **suite,
        "labels": [lab for lab in labels if lab["label"] in keep],
        # JMeter's Statistics table: the shown labels and its Total row
        "dashboard": [row for row in suite["dashboard"] if row["transaction"] in rows_kept],
        "dashboard_errors": (suite.get("dashboard_errors") or [])[:MAX_LOAD_TABLE_LABELS],
        "dashboard_top_errors": [
            row for row in suite.get("dashboard_top_errors") or [] if row["sample"] in keep
        ],
        "labels_not_shown": len(labels) - len(keep),
    }
    return shown, len(labels) - len(keep)


def load_section(ctx: ReportContext) -> Section | None:
    """Load tests (pipeline/load.py): throughput and p50/p95/p99 over time per label with
    the warm-up cut shaded and the steady band, the per-label table, JMeter's Statistics
    and APDEX table, and the Little's-law verdict."""
    result = load_result(ctx)
    if result is None:
        return None
    ids, payload = result
    blocks: list[Block] = []
    plotted: list[dict[str, Any]] = []
    budget = MAX_LOAD_CHARTS
    n_charts = 0
    shown_suites = []
    for n, (suite_id, full_suite) in enumerate(zip(ids, payload["suites"], strict=True)):
        suite, not_shown = _shown_labels(full_suite)
        shown_suites.append(suite)
        labels = suite["labels"]
        all_label = next(lab for lab in labels if lab["label"] == "ALL")
        window = chart_window_s(all_label["duration_s"], float(suite["window_s"] or 1.0))
        # ALL first, then the busiest labels while the chart budget lasts
        others = sorted(
            (lab for lab in labels if lab["label"] != "ALL"),
            key=lambda lab: (-lab["samples"], lab["label"]),
        )
        # an even share of the budget per suite left, ALL first; none once it is spent
        left = len(ids) - n
        remaining = max(budget // left, 1) if budget > 0 else 0
        chosen = [all_label, *others][:remaining]
        budget -= len(chosen)
        suite_threads: list[float | None] | None = None
        for lab in chosen:
            series = _load_series(ctx.store, suite_id, suite, lab["label"], window)
            if lab is all_label:
                suite_threads = series.get("threads")
            series["suite"] = suite["suite"]
            plotted.append(series)
            tp = lab["throughput"]
            ci = tp["steady_ci"]
            steady_ok = lab["warmup_status"] in ("warmup", "flat")
            title = f"{suite['suite']} · {lab['label']}" if len(ids) > 1 else lab["label"]
            blocks.append(
                Chart(
                    f"fig-load-{n_charts}",
                    figures.load_chart(
                        title=figures.plot_text(title),
                        t_s=series["t_s"],
                        throughput=series["throughput"],
                        percentiles=series["latency_ms"],
                        warmup_end_s=lab["warmup_end_s"] if steady_ok else None,
                        steady_throughput=tp["steady"],
                        steady_ci=(ci[0], ci[1]) if ci is not None else None,
                        cooldown_start_s=lab.get("cooldown_start_s") if steady_ok else None,
                        # the suite's threads (ALL's series, drawn first): a label's own
                        # windows know them only where it completed a sample
                        threads=suite_threads,
                        errors=series.get("errors"),
                    ),
                    caption=(
                        f"Per {series['window_s']:g} s window"
                        if series["window_s"]
                        else "Per summariser line"
                    )
                    + ": throughput (top) and latency (bottom, log); grey = warm-up (and, at the "
                    "end, a cool-down), dashed green = steady throughput with its 95 % CI band"
                    + (
                        ", grey line = active threads (right axis)"
                        if any(v is not None for v in suite_threads or ())
                        else ""
                    )
                    + (
                        ", dotted red = failed samples/s"
                        if any(v is not None and v > 0 for v in series.get("errors") or ())
                        else ""
                    )
                    + ".",
                )
            )
            n_charts += 1
        skipped = len(labels) - len(chosen)
        if skipped:
            blocks.append(
                Text(
                    f"{suite['suite']}: {plural(skipped, 'label')} in the tables below, not "
                    f"drawn (at most {MAX_LOAD_CHARTS} load charts per report)."
                )
            )
        if not_shown:
            blocks.append(
                Text(
                    f"{suite['suite']}: {plural(not_shown, 'more label')} with fewer samples "
                    f"not in the tables (at most {MAX_LOAD_TABLE_LABELS} per suite); "
                    "`warmup load --json` gives every label."
                )
            )
        blocks.append(_labels_table(n, suite))
        if suite["dashboard"]:
            blocks.append(_dashboard_table(n, suite))
        blocks.extend(_errors_tables(n, suite))
        blocks.append(_littles_law_table(n, suite))
    data = {**payload, "suites": shown_suites, "series": plotted, "max_windows": MAX_LOAD_WINDOWS}
    return Section(
        "load",
        "Load test",
        (
            "Throughput and latency percentiles over the run, aggregated per window in the "
            f"store (at most {MAX_LOAD_WINDOWS:,} windows per line, whatever the number of "
            "samples); warm-up end by MSER-5, steady throughput with a batch-means CI."
        ),
        tuple(blocks),
        data,
    )


# -- A/B comparison ----------------------------------------------------------------------


def compare_pairs(ctx: ReportContext) -> list[tuple[str, str]]:
    """The A/B pairs of the report (:meth:`~toolkit.pipeline.findings.Analyses.pairs`)."""
    return ctx.analyses.pairs()


def _ratio_tone(part: dict[str, Any], higher_is_better: bool) -> Tone:
    ci = part.get("ci")
    if not ci:
        return ""
    if ci[0] > 1:
        return "good" if higher_is_better else "bad"
    if ci[1] < 1:
        return "bad" if higher_is_better else "good"
    return ""


def _compare_basis(result: dict[str, Any]) -> str:
    """What one A/B pair's ratios compare: ``steady state``, ``steady part set by
    --steady-from/--steady-to``, ``every full window (no steady state)`` or a mix."""
    rows = result["labels"]
    overall = sum(r.get("basis") == "overall" for r in rows)
    if result.get("steady_from_s") is not None or result.get("steady_to_s") is not None:
        steady = "steady part set by --steady-from/--steady-to"
    else:
        steady = "steady state"
    if not overall:
        return steady
    if overall == len(rows):
        return "every full window, warm-up included (no steady state)"
    return f"{steady}; every full window for {plural(overall, 'label')} without one"


#: Labels drawn in a comparison chart (all are in the table).
MAX_COMPARE_LABELS = 30


def compare_section(ctx: ReportContext) -> Section | None:
    """A/B comparison of load suites (pipeline/load.py ``compare_report``): per label the
    steady throughput and latency of A and B and their ratios B/A with Fieller CIs."""
    pairs = compare_pairs(ctx)
    if not pairs:
        return None
    blocks: list[Block] = []
    results = ctx.analyses.comparisons()
    for n, ((a, b), result) in enumerate(zip(pairs, results, strict=True)):
        basis = _compare_basis(result)
        rows = result["labels"]
        drawn = rows[:MAX_COMPARE_LABELS]
        blocks.append(
            Chart(
                f"fig-compare-{n}",
                figures.ratio_chart(
                    [r["label"] for r in drawn],
                    {
                        "throughput": (
                            [r["throughput"]["ratio"] for r in drawn],
                            [
                                None
                                if r["throughput"]["ci"] is None
                                else tuple(r["throughput"]["ci"])
                                for r in drawn
                            ],
                        ),
                        "mean latency": (
                            [r["latency_mean_ms"]["ratio"] for r in drawn],
                            [
                                None
                                if r["latency_mean_ms"]["ci"] is None
                                else tuple(r["latency_mean_ms"]["ci"])
                                for r in drawn
                            ],
                        ),
                    },
                ),
                caption=(
                    f"B = {b} against A = {a}: {basis} ratios B/A with "
                    f"{result['level']:.0%} Fieller intervals over batch means."
                    + (
                        f" The first {len(drawn)} of {len(rows)} labels."
                        if len(rows) > len(drawn)
                        else ""
                    )
                ),
            )
        )
        blocks.append(
            Table(
                f"table-compare-{n}",
                f"B = {b} vs A = {a} ({basis} of each run)",
                (
                    Column("label"),
                    Column("throughput A /s", True),
                    Column("throughput B /s", True),
                    Column(f"throughput B/A ({result['level']:.0%} CI)", True),
                    Column("mean latency A ms", True),
                    Column("mean latency B ms", True),
                    Column(f"latency B/A ({result['level']:.0%} CI)", True),
                    Column("p50 B/A", True),
                    Column("p99 B/A", True),
                    Column("errors A", True, "failed samples, whole run"),
                    Column("errors B", True, "failed samples, whole run"),
                ),
                tuple(
                    (
                        Cell(r["label"]),
                        num(r["throughput"]["a"], fmt_num),
                        num(r["throughput"]["b"], fmt_num),
                        Cell(
                            ratio_text(r["throughput"]),
                            r["throughput"]["ratio"],
                            _ratio_tone(r["throughput"], True),
                        ),
                        num(r["latency_mean_ms"]["a"], _ms),
                        num(r["latency_mean_ms"]["b"], _ms),
                        Cell(
                            ratio_text(r["latency_mean_ms"]),
                            r["latency_mean_ms"]["ratio"],
                            _ratio_tone(r["latency_mean_ms"], False),
                        ),
                        num(r["latency_p50_ms"]["ratio"], ".3f"),
                        num(r["latency_p99_ms"]["ratio"], ".3f"),
                        num(r["error_rate"]["a"], fmt_error_pct),
                        num(r["error_rate"]["b"], fmt_error_pct),
                    )
                    for r in rows
                ),
            )
        )
    how = (
        "the pairs asked for with --compare"
        if ctx.params.compare
        else "the two load tests in the input (A = the one read first)"
    )
    return Section(
        "compare",
        "A/B comparison",
        (
            f"Steady-state throughput and latency of {how}; a ratio whose interval excludes "
            "1 is a difference beyond run-to-run noise (Kalibera & Jones 2013)."
        ),
        tuple(blocks),
        {"pairs": results},
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


def cache_section(ctx: ReportContext) -> Section | None:
    """Cache warm-up from query profiles: stacked remote/local bytes and time per run,
    the fitted curve, and the rates table (pipeline/cache.py)."""
    from toolkit.pipeline.cache import cache_payload

    results = ctx.analyses.cache()
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
                Column("runs show", help="warming, steady, evicted (a cold run), no-warm-up, ..."),
                Column("warm from run", True),
                Column("cold → warm", True),
                Column("cached working set", True, "plateau of local bytes: a lower bound"),
                Column("best fit"),
            ),
            tuple(
                (
                    Cell(s["series"]),
                    num(s["nodes"], ".0f"),
                    num(len(s["runs"]), ".0f"),
                    num(s["remote_rate"], fmt_rate),
                    num(s["local_rate"], fmt_rate),
                    num(s["local_remote_ratio"], lambda v: f"{v:.0f}x"),
                    num(s["remote_time_per_tb_s"], lambda v: f"{v / 60:.0f} min"),
                    Cell(s["verdict"]),
                    num(s["runs_to_warm"], ".0f"),
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
            "and the elapsed time (black, right axis, log) with the best-fitting warm-up curve "
            "where at least 3 runs warm in time order (runs are numbered by start time)."
        ),
        tuple(blocks),
        payload,
    )


#: Parameters of the report and the sections they shape: only those of sections present
#: are listed (a load-only report has no hot-iteration window). Key → (sections, label).
PARAMETERS: dict[str, tuple[tuple[str, ...], str]] = {
    "tolerance": (("gaps", "trajectories"), "tolerance (fraction)"),
    "window": (("gaps", "trajectories"), "window (hot iterations)"),
    "reference": (("gaps", "trajectories"), "reference"),
    "load_window_s": (("load", "compare"), "load window (s)"),
    "load_apdex": (("load",), "load APDEX thresholds"),
    "compare": (("compare",), "compare"),
    "load_steady_window": (("load", "compare"), "load steady window (s)"),
}


def provenance_section(
    ctx: ReportContext,
    *,
    toolkit_version: str,
    generated_at: str,
    present: Sequence[str] | None = None,
) -> Section:
    """Inputs with SHA-256, versions, the analyzer parameters of the sections ``present``
    (section ids; None: every parameter) and generation time."""
    sources = ctx.store.frame(
        "SELECT source_id, path, sha256, format, bytes, rows, tool_version FROM sources "
        "ORDER BY source_id"
    ).to_dicts()
    for source in sources:
        source["name"] = PurePath(source["path"]).name
    every: dict[str, Any] = {
        "tolerance": ctx.params.tolerance,
        "window": ctx.params.window,
        "reference": ctx.params.reference,
        "load_window_s": ctx.params.load_window_s,
        "load_apdex": apdex_thresholds_text(ctx.params.load_apdex.as_json()),
    }
    lo, hi = ctx.params.load_steady_from_s, ctx.params.load_steady_to_s
    if lo is not None or hi is not None:
        # --steady-from/--steady-to: the steady figures are the user's window, not detected
        every["load_steady_window"] = f"{fmt_num(lo or 0)}–{'end' if hi is None else fmt_num(hi)}"
    if ctx.params.compare:
        # as resolved to suite names (the option also takes input files)
        every["compare"] = [list(pair) for pair in compare_pairs(ctx)]
    params = {
        k: v
        for k, v in every.items()
        if present is None or any(s in present for s in PARAMETERS[k][0])
    }
    config = ctx.params.settings.provenance()
    config_rows = (
        (
            ("config file", config["file"]),
            *((f"config: {k}", _config_value(v)) for k, v in config["values"].items()),
        )
        if config["file"] is not None
        else ()
    )
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
                num(s["bytes"], ",.0f"),
                num(s["rows"], ",.0f"),
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
                *(
                    (
                        f"parameter: {PARAMETERS[k][1]}",
                        "; ".join(f"B = {b} vs A = {a}" for a, b in v)
                        if k == "compare"
                        else f"{v:g}"
                        if isinstance(v, float)
                        else v,
                    )
                    for k, v in params.items()
                ),
                *config_rows,
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
            **({"config": config} if config["file"] is not None else {}),
        },
    )


def _config_value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


#: Data sections in report order (findings first and provenance last are added by render).
SECTIONS: tuple[Callable[[ReportContext], Section | None], ...] = (
    gaps_section,
    trajectories_section,
    score_section,
    load_section,
    compare_section,
    cache_section,
)
