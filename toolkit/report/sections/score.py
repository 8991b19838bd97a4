"""The ClickBench score section: hot, cold and combined scores and how ranks move with k."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolkit.analyze.gaps import CLICKBENCH_HOT_RUNS, shown_hot_iterations
from toolkit.analyze.iteration_findings import MAX_SERIES_RUNS
from toolkit.analyze.score import MAX_SCORE_K_COLUMNS, ScoreEntry, query_ratios
from toolkit.pipeline.score import score_entries
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

# -- ClickBench score -----------------------------------------------------------------------

#: Systems drawn in the rank chart (all are in the table and report-data).
MAX_RANK_LINES = 10
#: Systems drawn in the score bars and the heat map at most, best hot score first (every
#: system is in the table and the picker; a heat map of 2,000 columns reads as noise).
MAX_VIEW_SYSTEMS = 60

#: Values of k whose hot score the page carries (the rank chart's points) at most
MAX_CHARTED_K = 100


def score_result(ctx: ReportContext) -> dict[str, Any] | None:
    """The ``warmup score --json`` payload of the ClickBench suites in the store, or None
    with fewer than two scored entries (:meth:`~toolkit.pipeline.findings.Analyses.score`)."""
    return ctx.analyses.score()


def entry_labels(entries: Sequence[dict[str, Any]]) -> list[str]:
    """A unique label per scored entry: the system, with the machine when several machines
    are scored, the suite name where that still repeats (a heat map column per label)."""
    machines = {e["machine"] for e in entries}
    labels = [
        f"{e['system']} · {e['machine']}" if len(machines) > 1 else str(e["system"])
        for e in entries
    ]
    seen: dict[str, int] = {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
    return [
        label if seen[label] == 1 else str(e["suite"])
        for label, e in zip(labels, entries, strict=True)
    ]


#: Layout of the score section's ``runs`` (:func:`score_runs`).
RUNS_LAYOUT = "columns-2"

#: A ClickBench result row as :func:`~toolkit.pipeline.score.score_entries` gives it: per
#: query the runs in s (None: a failed run), None for a null row.
Result = tuple[tuple[float | None, ...] | None, ...]


def _one_or_list(values: Sequence[Any]) -> Any:
    """One value when every value is equal (and there is one), else the list."""
    if values and all(v == values[0] and type(v) is type(values[0]) for v in values):
        return values[0]
    return list(values)


def _expand(value: int | list[int], n: int) -> list[int]:
    return [value] * n if isinstance(value, int) else list(value)


def series_results(series: dict[str, Any], max_runs: int = MAX_SERIES_RUNS) -> list[Result]:
    """Per suite of a trajectories ``series`` payload (:mod:`.series_columns`, in its
    order) the ClickBench result its runs give, built as
    :func:`~toolkit.pipeline.score.score_entries` builds it: row ``query_index`` holds the
    first process's runs of the iterations below ``max_runs`` at their iteration (None
    where none), a row with no run or only failed runs is None."""
    lists, suites = series["query_lists"], series["suites"]
    n_series = sum(len(lists["query_index"][k]) for k in suites["queries"])
    blocks = _expand(series["blocks"], n_series)
    n_blocks = sum(blocks)
    runs = _expand(series["runs"], n_blocks)
    seconds, iteration = series["seconds"], series.get("iteration")
    out: list[Result] = []
    n = b = pos = 0
    for k in suites["queries"]:
        rows: list[list[float | None]] = []
        for q in lists["query_index"][k]:
            for first in range(blocks[n]):
                if first == 0:
                    rows.extend([] for _ in range(q + 1 - len(rows)))
                    row = rows[q]
                    for j in range(pos, pos + runs[b]):
                        it = iteration[j] if iteration is not None else j - pos
                        if it < max_runs:
                            row.extend([None] * (it + 1 - len(row)))
                            row[it] = seconds[j]
                pos += runs[b]
                b += 1
            n += 1
        out.append(
            tuple(None if not row or all(v is None for v in row) else tuple(row) for row in rows)
        )
    return out


#: Runs per row the page's picker reads: the cold run and ClickBench's hot pair (k = 2).
PICKER_RUNS = CLICKBENCH_HOT_RUNS + 1


def _picked(result: Result) -> Result:
    """``result`` with each row cut to its first :data:`PICKER_RUNS` runs: all the picker
    reads (a 10,000-run row sent whole was 5.9 MB of a 2-system report)."""
    return tuple(None if row is None else row[:PICKER_RUNS] for row in result)


def score_runs(
    entries: Sequence[ScoreEntry],
    labels: Sequence[str],
    series: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The runs the page's system picker rescores (``report.js``, the same formulas as
    :func:`toolkit.analyze.score.clickbench_scores`), in the order of the payload's
    entries, as columns (issue 19 §7): per entry its ``label``, ``in_memory``,
    ``load_time_s``, ``data_size_bytes`` and ``suite``: the position of its suite in the
    trajectories' ``series`` payload when that suite's runs give its result
    (:func:`series_results`: the run times are sent once, issue 19 §7: a second copy was
    1.3 MB of a 2,000-result report), else -1; rows are compared and sent on their first
    :data:`PICKER_RUNS` runs, the ones the picker scores. For the entries at -1 only, their
    own runs: ``rows`` (query rows per entry), per row ``runs`` (0 for a null row; one
    integer when all are equal) and ``seconds`` (those runs in s, row after row; null: a
    failed run). ``max_runs``: the iterations a row holds; ``max_drawn``: systems drawn
    at most (:data:`MAX_VIEW_SYSTEMS`). :func:`decode_score_runs` gives the entries back."""
    n_queries = max((len(e.result) for e in entries), default=0)
    position: dict[str, int] = {}
    shared: list[Result] = []
    if series is not None:
        names = [series["strings"][i] for i in series["suites"]["name"]]
        shared = series_results(series)
        counts: dict[str, int] = {}
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        position = {name: s for s, name in enumerate(names) if counts[name] == 1}
    suite = [
        s
        if (s := position.get(e.name, -1)) >= 0 and _picked(shared[s]) == _picked(e.result)
        else -1
        for e in entries
    ]
    own = [e for e, s in zip(entries, suite, strict=True) if s < 0]
    rows = [row for e in own for row in _picked(e.result)]
    return {
        "layout": RUNS_LAYOUT,
        "max_drawn": MAX_VIEW_SYSTEMS,
        "max_runs": MAX_SERIES_RUNS,
        "queries": [f"Q{q}" for q in range(n_queries)],
        "label": list(labels),
        "in_memory": [e.in_memory for e in entries],
        "load_time_s": [e.load_time_s for e in entries],
        "data_size_bytes": [e.data_size_bytes for e in entries],
        "suite": suite,
        "rows": _one_or_list([len(e.result) for e in own]),
        "runs": _one_or_list([0 if row is None else len(row) for row in rows]),
        "seconds": [v for row in rows if row is not None for v in row],
    }


def decode_score_runs(
    runs: dict[str, Any], series: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The entries of a ``columns-2`` score ``runs`` payload, one dict each: ``label``,
    ``result`` (per query the runs in s, None for a null row), ``in_memory``,
    ``load_time_s``, ``data_size_bytes``: what the page decodes (``report.js``); the
    entries that point at a suite read their runs from the trajectories' ``series``
    payload (:func:`series_results`)."""
    if runs.get("layout") != RUNS_LAYOUT:
        raise ValueError(f"not a {RUNS_LAYOUT} runs payload: {runs.get('layout')!r}")
    n = len(runs["label"])
    suite = runs["suite"]
    if series is None and any(s >= 0 for s in suite):
        raise ValueError("these score runs point at the trajectories' series: pass them")
    shared = series_results(series, runs["max_runs"]) if series is not None else []
    n_own = sum(1 for s in suite if s < 0)
    counts = _expand(runs["rows"], n_own) if n_own else []
    lengths = _expand(runs["runs"], sum(counts))
    seconds = runs["seconds"]
    out = []
    own = row = pos = 0
    for i in range(n):
        result: list[list[float | None] | None] = []
        if suite[i] >= 0:
            result = [None if r is None else list(r) for r in shared[suite[i]]]
        else:
            for _ in range(counts[own]):
                length = lengths[row]
                result.append(None if length == 0 else list(seconds[pos : pos + length]))
                pos += length
                row += 1
            own += 1
        out.append(
            {
                "label": runs["label"][i],
                "result": result,
                "in_memory": runs["in_memory"][i],
                "load_time_s": runs["load_time_s"][i],
                "data_size_bytes": runs["data_size_bytes"][i],
            }
        )
    return out


def clickbench_views(
    payload: dict[str, Any], runs: dict[str, Any], series: dict[str, Any] | None = None
) -> list[Block]:
    """The ClickBench website's views: score bars (hot, cold, combined) and the relative-time
    heat map (query × system), systems ordered by hot score; the page's system picker
    (``report.js``) redraws both from ``runs`` (and the trajectories' ``series`` they
    point at) for the systems ticked."""
    entries = payload["entries"]
    order = sorted(range(len(entries)), key=lambda i: (entries[i]["hot_rank"] or 10**9, i))
    order = order[:MAX_VIEW_SYSTEMS]
    labels = [runs["label"][i] for i in order]
    bars = figures.score_bars(
        labels, {key: [entries[i][key] for i in order] for key in ("hot", "cold", "combined")}
    )
    score_entries_ = [
        ScoreEntry(
            name=e["label"],
            system=e["label"],
            machine=None,
            result=tuple(None if row is None else tuple(row) for row in e["result"]),
            tags=("in-memory",) if e["in_memory"] else (),
        )
        for e in decode_score_runs(runs, series)
    ]
    ratios = query_ratios(score_entries_)
    heat = figures.relative_time_heatmap(labels, runs["queries"], [ratios[i] for i in order])
    return [
        Chart(
            "fig-score-bars",
            bars,
            caption=(
                "ClickBench scores per system (lower is better, 1 = fastest on every query; "
                "log axis): hot = min(run 2, run 3), cold = run 1, combined also weighs load "
                "time and data size. In-memory systems have no cold or combined score."
                + (
                    f" The {MAX_VIEW_SYSTEMS} best hot scores of {len(entries)} systems (all "
                    "in the table below)."
                    if len(entries) > MAX_VIEW_SYSTEMS
                    else ""
                )
            ),
        ),
        Chart(
            "fig-score-heatmap",
            heat,
            caption=(
                "Hot time of each query relative to the fastest system's, (0.01 s + t) / "
                "(0.01 s + best) as on the ClickBench website, coloured on a log scale; blank "
                "= no hot time. Tick systems above to rescore a subset: the best, and so "
                "every ratio and score, is relative to the systems compared."
            ),
        ),
    ]


def score_section(ctx: ReportContext) -> Section | None:
    """ClickBench's hot, cold and combined scores and ranks (the website's formula), the
    hot score and rank for every k, and a chart of how ranks move with k."""
    payload = score_result(ctx)
    if payload is None:
        return None
    every_k = payload["hot_iterations"]
    # a column per k up to MAX_SCORE_K_COLUMNS; the rank chart draws up to MAX_CHARTED_K
    shown = shown_hot_iterations(every_k, MAX_SCORE_K_COLUMNS, keep=[CLICKBENCH_HOT_RUNS])
    if len(every_k) > MAX_CHARTED_K:
        # the page carries the hot score of MAX_CHARTED_K values of k (the table's among
        # them); --json every k
        charted = set(shown_hot_iterations(every_k, MAX_CHARTED_K, keep=shown))
        payload = {
            **payload,
            "hot_iterations": [k for k in every_k if k in charted],
            "hot_iterations_total": len(every_k),
            "entries": [
                {**e, "hot_by_k": [x for x in e["hot_by_k"] if x["hot_iterations"] in charted]}
                for e in payload["entries"]
            ],
        }
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
        "every query)"
        + (
            f"; hot score for {len(shown)} of the {len(every_k):,} values of k (every k in --json)"
            if len(shown) < len(every_k)
            else ""
        ),
        (
            Column("system"),
            *((Column("machine"),) if len(machines) > 1 else ()),
            Column("date"),
            Column("runs", True),
            Column("hot (rank)", True, "hot = min(run 2, run 3)"),
            Column("cold (rank)", True, "cold = run 1; in-memory systems are left out"),
            Column("combined (rank)", True, "load time, data size, cold and hot"),
            *(Column(f"hot k={k}", True, f"hot = min of the first {k} hot runs") for k in shown),
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
                *(
                    score_cell(x["score"], x["rank"])
                    for x in e["hot_by_k"]
                    if x["hot_iterations"] in shown
                ),
            )
            for e in sorted(entries, key=lambda e: (e["hot_rank"] or 10**9, e["system"]))
        ),
    )
    labels = entry_labels(entries)
    # the trajectories section (built first) sends the run times; the picker reads them there
    series = ctx.computed("trajectories_series")
    runs = score_runs(score_entries(ctx.store, [e["suite"] for e in entries]), labels, series)
    blocks: list[Block] = clickbench_views(payload, runs, series)
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
        {**payload, "runs": runs},
    )
