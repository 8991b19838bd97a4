"""The iteration-gap section: how far the benchmark's hot window is from the reference, per suite."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.analyze.gaps import shown_hot_iterations
from toolkit.numbers import (
    plural,
)
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
from toolkit.report.sections.context import ReportContext, ReportParams, detections
from toolkit.report.sections.formatting import fmt_pct, fmt_seconds, num, tone_of
from toolkit.store import Store

if TYPE_CHECKING:
    pass


# -- iterations ---------------------------------------------------------------------------


def iteration_frame(store: Store) -> pl.DataFrame:
    """Every timed run analysed (the first :data:`MAX_SERIES_RUNS` of each series) with its
    suite's name and system, in suite/query/process/iteration order."""
    from toolkit.analyze.iteration_findings import MAX_SERIES_RUNS

    return store.frame(
        """
        SELECT s.suite_id, s.name AS suite, s.system, i.query, i.query_index, i.process,
               i.iteration, i.seconds
        FROM iterations i JOIN suites s USING (suite_id)
        WHERE i.iteration < ?
        ORDER BY s.suite_id, i.query_index, i.query, i.process, i.iteration
        """,
        [MAX_SERIES_RUNS],
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
            # the report shows the findings engine's list, not each suite's
            suite_findings=False,
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
    ks = [r["hot_iterations"] for r in suite["rows"]]
    shown = set(shown_hot_iterations(ks, keep=[params.window, suite["k_for_target"] or 0]))
    rows = []
    for r in suite["rows"]:
        if r["hot_iterations"] not in shown:
            continue
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
    caption = f"{suite['suite']} ({suite['system'] or 'system not given'})"
    if len(shown) < len(ks):
        caption += f"; {len(shown)} of the {len(ks):,} values of k shown (every k in --json)"
    return Table(
        f"table-gaps-{n}",
        caption,
        (
            Column("hot iterations k", True),
            Column("total runs", True),
            Column("suite sum (s)", True),
            Column("gap vs reference", True),
            Column(f"queries within ±{tol:.0%}", True),
        ),
        tuple(rows),
    )


#: Values of k the gap chart draws at most (spread on a log scale beyond it).
MAX_CHARTED_K = 100


def _charted_rows(suite: dict[str, Any], params: ReportParams) -> list[dict[str, Any]]:
    """The rows of ``suite`` the gap chart draws: every k up to :data:`MAX_CHARTED_K`
    values, else that many spread on a log scale (the window and the k for the target
    among them)."""
    ks = [r["hot_iterations"] for r in suite["rows"]]
    keep = [params.window, suite["k_for_target"] or 0]
    drawn = set(shown_hot_iterations(ks, MAX_CHARTED_K, keep=keep))
    return [r for r in suite["rows"] if r["hot_iterations"] in drawn]


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
                    [{"name": s["suite"], "rows": _charted_rows(s, params)} for s in shown],
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
        gap_columns([suite_summary(s) for s in suites]),
    )


#: Per-query lists of ``warmup gaps --json`` left out of the report's data: the runs are in
#: the trajectories' columns and the findings in the report's list (issue 19 §7: they were
#: 18 MB of a 2,000-result report).
PER_QUERY_KEYS = ("per_query", "findings")


def suite_summary(suite: dict[str, Any]) -> dict[str, Any]:
    """A suite of the gaps payload without its per-query lists (``PER_QUERY_KEYS``; the
    3-run summary ``hot_pair`` keeps its totals)."""
    out = {k: v for k, v in suite.items() if k not in PER_QUERY_KEYS}
    if isinstance(out.get("hot_pair"), dict):
        out["hot_pair"] = {k: v for k, v in out["hot_pair"].items() if k != "per_query"}
    return out


#: Layout of the gaps section's report-data (:func:`gap_columns`).
GAPS_LAYOUT = "columns-1"
#: Per-suite fields of :func:`gap_columns`, as the gaps payload names them.
SUITE_KEYS = (
    "suite",
    "suite_id",
    "system",
    "machine",
    "date",
    "queries",
    "included",
    "runs",
    "k_for_target",
    "runs_for_target",
)
#: Fields of the 3-run summary ``hot_pair``, one entry per suite.
HOT_PAIR_KEYS = (
    "queries",
    "spread_sum_s",
    "window_sum_s",
    "spread_share",
    "cold_sum_s",
    "cold_hot_ratio",
)
#: Fields of a gap table row that change with k (the rest are the suite's).
ROW_KEYS = ("suite_sum_s", "gap", "within_tolerance")
#: The report's parameters, the same for every suite of one report.
SHARED_KEYS = ("reference", "tolerance", "target")


def _one_or_list(values: Sequence[Any]) -> Any:
    """One value when every value is equal (and there is one), else the list."""
    if values and all(v == values[0] and type(v) is type(values[0]) for v in values):
        return values[0]
    return list(values)


def gap_columns(suites: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The gaps section's report-data: every suite's table (:func:`suite_summary` dicts) as
    columns, one array per field instead of an object per suite and per row (issue 19 §7:
    1.5 MB -> 0.6 MB at 2,000 ClickBench results). :func:`decode_gaps` gives the dicts back.

    Layout ``columns-1``: ``reference``, ``tolerance``, ``target`` once; ``suites``: one
    entry per suite for each of :data:`SUITE_KEYS`, ``reference_sum_s`` and ``rows`` (the
    number of rows: k = 1…rows; one integer when all are equal); ``rows``: the rows of
    every suite, suite after suite, for each of :data:`ROW_KEYS` (a row's other fields
    are its suite's: total runs k + 1, queries = included, excluded = queries − included);
    ``hot_pair``: one entry per suite for each of :data:`HOT_PAIR_KEYS`."""
    for suite in suites:
        for key in SHARED_KEYS:
            if suite[key] != suites[0][key]:
                raise ValueError(f"suites of one report differ in {key}")
    rows = [r for s in suites for r in s["rows"]]
    return {
        "layout": GAPS_LAYOUT,
        **{key: suites[0][key] if suites else None for key in SHARED_KEYS},
        "suites": {
            **{key: [s[key] for s in suites] for key in SUITE_KEYS},
            "reference_sum_s": [
                s["rows"][0]["reference_sum_s"] if s["rows"] else None for s in suites
            ],
            "rows": _one_or_list([len(s["rows"]) for s in suites]),
        },
        "rows": {key: [r[key] for r in rows] for key in ROW_KEYS},
        "hot_pair": {key: [s["hot_pair"][key] for s in suites] for key in HOT_PAIR_KEYS},
    }


def decode_gaps(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The suites of a ``columns-1`` gaps payload as :func:`suite_summary` dicts (the
    ``warmup gaps --json`` suites without their per-query lists): what the page holds."""
    if data.get("layout") != GAPS_LAYOUT:
        raise ValueError(f"not a {GAPS_LAYOUT} gaps payload: {data.get('layout')!r}")
    columns = data["suites"]
    n_suites = len(columns["suite"])
    counts = columns["rows"]
    counts = [counts] * n_suites if isinstance(counts, int) else counts
    out = []
    pos = 0
    for n in range(n_suites):
        suite = {key: columns[key][n] for key in SUITE_KEYS}
        suite.update({key: data[key] for key in SHARED_KEYS})
        included = suite["included"]
        suite["rows"] = [
            {
                "hot_iterations": k,
                "total_runs": k + 1,
                **{key: data["rows"][key][pos + k - 1] for key in ROW_KEYS},
                "reference_sum_s": columns["reference_sum_s"][n],
                "queries": included,
                "excluded": suite["queries"] - included,
            }
            for k in range(1, counts[n] + 1)
        ]
        pos += counts[n]
        suite["hot_pair"] = {key: data["hot_pair"][key][n] for key in HOT_PAIR_KEYS}
        out.append(suite)
    return out
