"""The ClickBench website's cold, hot and combined scores, exactly as ``index.html`` computes them.

research/clickbench.md §2 (ClickBench ``index.html``, snapshot faa7e582, functions
``selectRun``, ``relativeQueryTime`` and ``renderSummary``):

- per query, cold = run 1; hot = min(run 2, run 3) only if both succeeded, else missing;
- baseline per query and per run position: the min over the scored entries of that run
  (``B_q[j]``); the hot baseline is min(B_q[1], B_q[2]) (even if it mixes systems);
  a query no entry completed is skipped;
- ratio = (0.01 s + time) / (0.01 s + baseline); a missing time is replaced by
  2 x max(300 s, the entry's worst successful time for this metric);
- score = geometric mean of the ratios (lower is better; 1 = best on every query);
- combined = exp(0.1 ln L + 0.1 ln S + 0.2 ln cold + 0.6 ln hot), L = load_time / min
  load_time (min over entries with load_time > 5; L = 1 when load_time < 5), S =
  data_size / min data_size (min over entries with data_size > 1e9; S = 2 when data_size
  < 1e9 or missing);
- entries tagged ``in-memory`` are left out of cold and combined (and of their baselines),
  kept in hot (PR #660).

Which entries to score (machine, latest date, historical, tuned …) is the caller's choice:
the baseline is relative to the entries given. Beyond the website: ``hot_by_k`` rescored with
hot = min of hot runs 1..k for k = 2 … N−1 (ClickBench's rule for k = 2, generalised: every
run in 1..k must have succeeded; an entry with fewer runs uses all it has), with the
baseline min(B_q[1..k]).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolkit.analyze.findings import Finding
from toolkit.numbers import name_list

__all__ = [
    "COLD_SHARE",
    "CONSTANT_TIME_ADD_S",
    "DATA_SIZE_SHARE",
    "HOT_SHARE",
    "LOAD_TIME_SHARE",
    "MAX_SCORE_K_COLUMNS",
    "MISSING_RESULT_PENALTY",
    "MISSING_RESULT_TIME_S",
    "EntryScore",
    "ScoreEntry",
    "ScoreTable",
    "clickbench_scores",
    "query_ratios",
    "relative_time",
    "score_findings",
]

#: index.html constants (research/clickbench.md §2.1)
CONSTANT_TIME_ADD_S = 0.01
MISSING_RESULT_PENALTY = 2.0
MISSING_RESULT_TIME_S = 300.0
LOAD_TIME_SHARE = 0.1
DATA_SIZE_SHARE = 0.1
COLD_SHARE = 0.2
HOT_SHARE = 0.6

Row = tuple[float | None, ...] | None
Selector = Callable[[Row], float | None]

#: Hot-score columns a score table shows (k = 2 and up to 11 more, spaced on a log scale;
#: :func:`toolkit.analyze.gaps.shown_hot_iterations`); ``--json`` has every k.
MAX_SCORE_K_COLUMNS = 12


@dataclass(frozen=True)
class ScoreEntry:
    """One result file to score: ``result[q]`` = runs of query q (None = a null row)."""

    name: str
    system: str
    machine: str | None
    result: tuple[Row, ...]
    tags: tuple[str, ...] = ()
    load_time_s: float | None = None
    data_size_bytes: float | None = None

    @property
    def in_memory(self) -> bool:
        """Tagged ``in-memory``: left out of cold and combined (ClickBench PR #660)."""
        return "in-memory" in self.tags

    @property
    def runs(self) -> int:
        """Most runs per query in this entry (3 in ClickBench)."""
        return max((len(r) for r in self.result if r is not None), default=0)


@dataclass(frozen=True)
class EntryScore:
    """Scores of one entry (lower is better) and their ranks (1 = best)."""

    name: str
    system: str
    machine: str | None
    in_memory: bool
    hot: float | None
    cold: float | None
    combined: float | None
    hot_rank: int | None
    cold_rank: int | None
    combined_rank: int | None
    #: hot score with k hot runs, k = 2 .. (``ScoreTable.hot_iterations``)
    hot_by_k: tuple[float | None, ...]
    hot_rank_by_k: tuple[int | None, ...]


@dataclass(frozen=True)
class ScoreTable:
    """Scores of a selection of entries, in input order."""

    entries: tuple[EntryScore, ...]
    #: the k values of ``EntryScore.hot_by_k`` (2 .. N−1; just (2,) for 3-run inputs)
    hot_iterations: tuple[int, ...]


def _run(row: Row, j: int) -> float | None:
    if row is None or j >= len(row):
        return None
    return row[j]


def _cold(row: Row) -> float | None:
    return _run(row, 0)


def _hot_minima(row: Row) -> list[float | None]:
    """``m[k]`` = min of hot runs 1 … k of ``row`` (k capped at the row's last run), None
    when one of them is missing; ``m[0]`` unused. One pass, so scoring every k = 2 … N−1
    costs O(N) per row, not O(N²)."""
    if row is None:
        return []
    out: list[float | None] = [None]
    best: float | None = math.inf
    for value in row[1:]:
        best = None if best is None or value is None else min(best, value)
        out.append(best)
    return out


def _hot_selector(k: int, minima: dict[int, list[float | None]] | None = None) -> Selector:
    """Hot = min of hot runs 1 … k (capped at the row's last run), None when one is missing;
    ``minima``: a cache of :func:`_hot_minima` by row identity, shared across k."""
    cache: dict[int, list[float | None]] = {} if minima is None else minima

    def select(row: Row) -> float | None:
        if row is None or len(row) < 2:
            return None
        found = cache.get(id(row))
        if found is None:
            found = cache[id(row)] = _hot_minima(row)
        return found[min(k, len(row) - 1)]

    return select


def _baseline_rows(entries: Sequence[ScoreEntry], n_queries: int, n_runs: int) -> list[Row]:
    """``B_q[j]``: per query and run position, the min over entries (+inf when none)."""
    rows: list[Row] = []
    for q in range(n_queries):
        best = []
        for j in range(n_runs):
            values = [
                v for e in entries if q < len(e.result) and (v := _run(e.result[q], j)) is not None
            ]
            best.append(min(values) if values else math.inf)
        rows.append(tuple(best))
    return rows


def relative_time(
    entry: ScoreEntry, baseline: Sequence[Row], select: Selector, n_queries: int
) -> float | None:
    """``relativeQueryTime``: geometric mean over queries of (0.01 + t) / (0.01 + base).

    Missing times get 2 x max(300 s, worst successful time); queries whose baseline is
    not finite (no entry completed them) are skipped; None when no query is used.
    """
    times = [select(entry.result[q]) if q < len(entry.result) else None for q in range(n_queries)]
    worst = max([MISSING_RESULT_TIME_S, *(t for t in times if t is not None)])
    fallback = MISSING_RESULT_PENALTY * worst
    total, used = 0.0, 0
    for q in range(n_queries):
        base = select(baseline[q])
        if base is None or not math.isfinite(base):
            continue
        t = times[q]
        current = fallback if t is None else t
        total += math.log((CONSTANT_TIME_ADD_S + current) / (CONSTANT_TIME_ADD_S + base))
        used += 1
    return math.exp(total / used) if used else None


def _ln(value: float) -> float:
    # JS Math.log(0) is -Infinity; Python raises
    return math.log(value) if value > 0 else -math.inf


def _ranks(scores: Sequence[float | None]) -> list[int | None]:
    order = sorted((s, i) for i, s in enumerate(scores) if s is not None)
    ranks: list[int | None] = [None] * len(scores)
    for rank, (_score, i) in enumerate(order, start=1):
        ranks[i] = rank
    return ranks


def _scores(
    entries: Sequence[ScoreEntry],
    select: Selector,
    n_runs: int,
    baseline: list[Row] | None = None,
) -> list[float | None]:
    n_queries = max((len(e.result) for e in entries), default=0)
    if baseline is None:
        baseline = _baseline_rows(entries, n_queries, n_runs)
    return [relative_time(e, baseline, select, n_queries) for e in entries]


def clickbench_scores(entries: Sequence[ScoreEntry]) -> ScoreTable:
    """Hot, cold and combined scores of ``entries`` as the ClickBench website computes
    them (research/clickbench.md §2.3), plus hot scores and ranks for k = 2 … N−1 hot runs.
    """
    n_runs = max((e.runs for e in entries), default=0)
    hot_ks = tuple(range(2, max(n_runs - 1, 2) + 1))
    # the baseline rows and each row's running minima are the same for every k
    n_queries = max((len(e.result) for e in entries), default=0)
    baseline = _baseline_rows(entries, n_queries, n_runs)
    minima: dict[int, list[float | None]] = {}
    by_k = {k: _scores(entries, _hot_selector(k, minima), n_runs, baseline) for k in hot_ks}
    hot = by_k[2]
    # cold and combined: in-memory entries are filtered out before the baseline
    disk = [e for e in entries if not e.in_memory]
    disk_cold = dict(zip((id(e) for e in disk), _scores(disk, _cold, n_runs), strict=True))
    disk_hot = dict(
        zip((id(e) for e in disk), _scores(disk, _hot_selector(2, minima), n_runs), strict=True)
    )
    loads = [e.load_time_s for e in disk if e.load_time_s and e.load_time_s > 5]
    sizes = [e.data_size_bytes for e in disk if e.data_size_bytes and e.data_size_bytes > 1e9]
    min_load = min(loads) if loads else math.inf
    min_size = min(sizes) if sizes else math.inf
    cold: list[float | None] = []
    combined: list[float | None] = []
    for e in entries:
        if e.in_memory:
            cold.append(None)
            combined.append(None)
            continue
        c, h = disk_cold[id(e)], disk_hot[id(e)]
        cold.append(c)
        if c is None or h is None:
            combined.append(None)
            continue
        load = e.load_time_s
        size = e.data_size_bytes
        ratio_load = load / min_load if load is not None and load >= 5 else 1.0
        ratio_size = size / min_size if size is not None and size >= 1e9 else 2.0
        combined.append(
            math.exp(
                LOAD_TIME_SHARE * _ln(ratio_load)
                + DATA_SIZE_SHARE * _ln(ratio_size)
                + COLD_SHARE * _ln(c)
                + HOT_SHARE * _ln(h)
            )
        )
    hot_rank, cold_rank, combined_rank = _ranks(hot), _ranks(cold), _ranks(combined)
    rank_by_k = {k: _ranks(v) for k, v in by_k.items()}
    return ScoreTable(
        entries=tuple(
            EntryScore(
                name=e.name,
                system=e.system,
                machine=e.machine,
                in_memory=e.in_memory,
                hot=hot[i],
                cold=cold[i],
                combined=combined[i],
                hot_rank=hot_rank[i],
                cold_rank=cold_rank[i],
                combined_rank=combined_rank[i],
                hot_by_k=tuple(by_k[k][i] for k in hot_ks),
                hot_rank_by_k=tuple(rank_by_k[k][i] for k in hot_ks),
            )
            for i, e in enumerate(entries)
        ),
        hot_iterations=hot_ks,
    )


def query_ratios(entries: Sequence[ScoreEntry]) -> list[list[float | None]]:
    """Per entry and query, the hot time relative to the fastest entry's:
    ``(0.01 + t) / (0.01 + best)`` with hot = min(run 2, run 3) and best = the hot baseline
    min(B_q[1], B_q[2]), the cells of the ClickBench website's table (index.html
    ``relativeQueryTime`` per query; research/clickbench.md §2). None where the entry has
    no hot time (the website's missing cell) or no entry completed the query."""
    n_runs = max((e.runs for e in entries), default=0)
    n_queries = max((len(e.result) for e in entries), default=0)
    baseline = _baseline_rows(entries, n_queries, n_runs)
    select = _hot_selector(2)
    out: list[list[float | None]] = []
    for e in entries:
        row: list[float | None] = []
        for q in range(n_queries):
            base = select(baseline[q])
            t = select(e.result[q]) if q < len(e.result) else None
            if t is None or base is None or not math.isfinite(base):
                row.append(None)
            else:
                row.append((CONSTANT_TIME_ADD_S + t) / (CONSTANT_TIME_ADD_S + base))
        out.append(row)
    return out


def score_findings(payload: dict[str, Any]) -> list[Finding]:
    """Findings of a ``warmup score --json`` payload: whether the hot ranks move when hot
    uses k = 2 … N−1 hot runs instead of ClickBench's 2 (``hot_by_k``). None with fewer than
    two scored entries: a rank is relative to the other entries."""
    ks = payload["hot_iterations"]
    if len(ks) < 2 or sum(1 for e in payload["entries"] if e["hot"] is not None) < 2:
        return []
    moved = []
    for e in payload["entries"]:
        ranks = [(x["hot_iterations"], x["rank"]) for x in e["hot_by_k"] if x["rank"] is not None]
        if len({r for _, r in ranks}) > 1:
            first = ranks[0]
            other = next(kr for kr in ranks if kr[1] != first[1])
            moved.append((e["system"], first, other))
    n = len(payload["entries"])
    if not moved:
        return [
            Finding(
                rule="score-ranks-stable",
                severity="info",
                subject="ClickBench score",
                message=(
                    f"ClickBench score: the hot ranks of all {n} entries are the same for "
                    f"every k = {ks[0]} … {ks[-1]} hot runs"
                ),
                advice="the benchmark's hot window does not change the order here",
                numbers={"entries": n, "max_k": ks[-1]},
            )
        ]
    examples = [f"{sys} rank {a[1]} at k = {a[0]}, {b[1]} at k = {b[0]}" for sys, a, b in moved]
    return [
        Finding(
            rule="score-ranks-move",
            severity="warning",
            subject="ClickBench score",
            message=(
                f"ClickBench score: {len(moved)} of {n} entries change hot rank when hot uses "
                f"k = {ks[0]} … {ks[-1]} hot runs instead of ClickBench's 2 "
                f"({name_list(examples, 2)})"
            ),
            advice=(
                "rank systems on enough hot runs to reach steady state (see the gap table), "
                "and state k with every ranking"
            ),
            numbers={"entries": n, "moved": len(moved), "max_k": ks[-1]},
        )
    ]
