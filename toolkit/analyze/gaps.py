"""Iteration gaps: how far "hot = min of the first k hot runs" is from a reference.

The table of seed ``002_797e1e1bde521737.txt`` (ClickBench issue #934): a suite run with
N runs per query (run 0 cold, runs 1..N-1 hot) is cut after k hot runs, k = 1..N-1, and
each cut is compared with a per-query reference (research/warmup-science.md §8;
research/clickbench.md §2.1 for ClickBench's own hot = min(run 2, run 3), i.e. k = 2):

- ``hot(k)`` of a query = min of its hot runs 1..k (seconds);
- suite sum of row k = sum of ``hot(k)`` over the included queries; total runs = k + 1;
- gap of row k = (suite sum − reference sum) / reference sum (a fraction: 0.48 = +48 %);
- queries within tolerance = queries with ``|hot(k) / reference − 1| <= tolerance``;
- the smallest k whose gap is <= ``target`` (the number of hot runs a suite needs).

References: ``min-all`` (default) = the min of all hot runs of the query, exactly the
seed's "steady state"; or any per-query mapping passed as ``reference_s`` (the warm-up
engine's steady state plugs in there, named ``steady``).

Failed runs (``seconds`` NULL) and missing runs: a query with ANY failed or missing hot
run is excluded from every row (its sums would otherwise change the set of queries from
one row to the next, and a sum over a different set of queries is not comparable). It is
still listed per query (``excluded = "failed-run"``, ``failed_runs`` counted) and every
row reports how many queries it excluded. A failed cold run does not exclude the query
(the cold run is not part of any hot window); its ``cold_s`` is None. A query whose
supplied reference is missing or not a number >= 0 ("no steady state") is excluded
with ``excluded = "no-reference"``.

Several processes (forks/restarts, the ``process`` column): each (query, process) pair is
its own series with its own runs, reference (``min-all``) and row contributions, so a
suite of P processes sums P series per query. A supplied ``reference_s`` is keyed by
query name and applies to every process of that query.

A reference of 0 s (ClickBench rounds to 1 ms, so a 0 can appear) is kept: "within"
is tested as |hot(k) − reference| <= tolerance × reference, which needs no division (a
0 s reference is met only by 0 s), and the cold/reference ratio is then None.

Comparisons use a relative slack of 1e-9 so that values that are equal on paper (a gap of
exactly the target) are not lost to binary rounding.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from toolkit.analyze.warmup import revealed_resolution, revealed_resolutions

__all__ = [
    "DEFAULT_TARGET",
    "DEFAULT_TOLERANCE",
    "GapRow",
    "GapTable",
    "HotPairSpread",
    "PairSpread",
    "QueryGaps",
    "hot_pair_spread",
    "iteration_gaps",
    "iteration_gaps_by_suite",
    "series_gaps",
    "shown_hot_iterations",
]

#: ±10 % of the reference: the seed's "Queries within ±10 % of steady state".
DEFAULT_TOLERANCE = 0.10
#: 5 %: the seed's row "5 hot iterations, +5 %" is where it calls the gap closed enough.
DEFAULT_TARGET = 0.05
_SLACK = 1e-9
#: The most values of k a table shows (a row or a column each): a suite of 10,000 runs
#: per query would print 9,999 rows; every k stays in ``--json``.
MAX_SHOWN_K = 40


def shown_hot_iterations(
    ks: Sequence[int], limit: int = MAX_SHOWN_K, keep: Sequence[int] = ()
) -> list[int]:
    """The values of ``ks`` (ascending hot-iteration counts) a table shows: all of them
    when there are at most ``limit``; else ``limit`` of them spaced evenly on a log scale
    of their position (every small k, where a gap moves most, then ever sparser up to the
    last, the reference), plus each of ``keep`` found in ``ks`` (the benchmark window, the
    k that meets the target)."""
    if len(ks) <= limit:
        return list(ks)
    n = len(ks)
    # positions 1 .. n spaced evenly in log (1, 2, 3, ..., then ever wider steps)
    chosen = {ks[round(math.exp(math.log(n) * i / (limit - 1))) - 1] for i in range(limit)}
    # where rounding made positions coincide (the small ones), the next small k fills in
    for k in ks:
        if len(chosen) >= limit:
            break
        chosen.add(k)
    present = set(ks)
    return sorted(chosen | {k for k in keep if k in present})


Exclusion = Literal["failed-run", "no-reference"]


@dataclass(frozen=True)
class QueryGaps:
    """One query (one process of it) of a gap table. Times in seconds.

    ``hot_s_by_k[k - 1]`` is hot(k), the min of hot runs 1..k; None when one of those
    runs failed or is missing. ``cold_hot_ratio`` = cold / reference (how much slower the
    cold run is than the reference hot time; None when the reference is 0 s or below
    ``resolution_s``, the timer resolution of the series). ``first_k_within`` = the
    smallest k whose hot(k) is within tolerance of the reference (None: never).
    """

    query: str
    process: int
    cold_s: float | None
    hot_s_by_k: tuple[float | None, ...]
    reference_s: float | None
    cold_hot_ratio: float | None
    first_k_within: int | None
    failed_runs: int
    excluded: Exclusion | None
    #: the series' runs as given (cold first; None = failed or missing), seconds
    runs_s: tuple[float | None, ...] = ()
    resolution_s: float = 0.0


@dataclass(frozen=True)
class GapRow:
    """One row of the gap table: the suite cut after ``hot_iterations`` hot runs."""

    hot_iterations: int
    total_runs: int
    suite_sum_s: float
    reference_sum_s: float
    #: (suite_sum − reference_sum) / reference_sum; None when no query is included
    #: or the reference sum is 0 s
    gap: float | None
    within_tolerance: int
    queries: int
    excluded: int


@dataclass(frozen=True)
class GapTable:
    """The gap table of one suite (seed 002's table) with its per-query detail."""

    reference: str
    tolerance: float
    target: float
    #: runs per query (cold + hot) of the longest series
    runs: int
    rows: tuple[GapRow, ...]
    per_query: tuple[QueryGaps, ...]
    #: the smallest k whose gap is <= target (None: no row meets it)
    k_for_target: int | None

    @property
    def queries(self) -> int:
        """Number of series (queries × processes) in the suite."""
        return len(self.per_query)

    def to_polars(self) -> pl.DataFrame:
        """The table's rows as a frame (one row per hot-iteration count k: total runs, suite
        sum and reference sum in seconds, the gap as a fraction, queries within tolerance,
        queries and excluded), in the order of :attr:`rows`."""
        schema = {
            "hot_iterations": pl.Int64,
            "total_runs": pl.Int64,
            "suite_sum_s": pl.Float64,
            "reference_sum_s": pl.Float64,
            "gap": pl.Float64,
            "within_tolerance": pl.Int64,
            "queries": pl.Int64,
            "excluded": pl.Int64,
        }
        return pl.DataFrame([asdict(r) for r in self.rows], schema=schema, orient="row")

    @property
    def included(self) -> int:
        """Number of series that enter the row sums."""
        return sum(1 for q in self.per_query if q.excluded is None)

    @property
    def runs_for_target(self) -> int | None:
        """Total runs per query (k + 1) needed to meet the target."""
        return None if self.k_for_target is None else self.k_for_target + 1


def _within(value: float, reference: float, tolerance: float) -> bool:
    # |value/reference - 1| <= tolerance without dividing (reference may be 0 s)
    return abs(value - reference) <= (tolerance + _SLACK) * reference + _SLACK * 1e-3


def series_gaps(
    query: str,
    runs: Sequence[float | None],
    *,
    process: int = 0,
    hot_runs: int | None = None,
    reference_s: float | None = None,
    use_reference: bool = False,
    tolerance: float = DEFAULT_TOLERANCE,
    resolution: float | None = None,
) -> QueryGaps:
    """Per-query part of the gap table for one series ``runs`` = [cold, hot 1, hot 2, …].

    ``hot_runs`` is the number of hot runs of the suite (default: this series'); runs
    beyond the end of ``runs`` count as missing. With ``use_reference`` the given
    ``reference_s`` is the reference (None, NaN or < 0: excluded as "no-reference"); else the
    reference is ``min-all``, the min of the hot runs. ``resolution`` (seconds) is the
    timer's step, default :func:`toolkit.analyze.warmup.revealed_resolution` of the runs.
    """
    hot = list(runs[1:])
    n_hot = len(hot) if hot_runs is None else hot_runs
    hot += [None] * (n_hot - len(hot))
    cold = runs[0] if runs else None
    failed = sum(1 for v in [cold, *hot] if v is None or math.isnan(v))
    ok = [v for v in hot if v is not None and not math.isnan(v)]
    hot_by_k: list[float | None] = []
    current: float | None = math.inf
    for value in hot:
        if current is None or value is None or math.isnan(value):
            current = None
        else:
            current = min(current, value)
        hot_by_k.append(current)
    excluded: Exclusion | None = "failed-run" if len(ok) < n_hot else None
    reference: float | None
    if use_reference:
        good = reference_s is not None and math.isfinite(reference_s) and reference_s >= 0
        reference = reference_s if good else None
        if reference is None and excluded is None:
            excluded = "no-reference"
    else:
        reference = min(ok) if ok else None
    first_k = None
    if reference is not None:
        for k, value in enumerate(hot_by_k, start=1):
            if value is not None and _within(value, reference, tolerance):
                first_k = k
                break
    cold_s = None if cold is None or math.isnan(cold) else cold
    finite = [v for v in [cold, *hot] if v is not None and not math.isnan(v)]
    res = revealed_resolution(finite) if resolution is None else max(resolution, 0.0)
    # a ratio to a reference below the timer's resolution means nothing (0.1 ms: 37,356x)
    measurable = reference is not None and reference > 0 and reference >= res
    ratio = cold_s / reference if cold_s is not None and measurable and reference else None
    return QueryGaps(
        query=query,
        process=process,
        cold_s=cold_s,
        hot_s_by_k=tuple(hot_by_k),
        reference_s=reference,
        cold_hot_ratio=ratio,
        first_k_within=first_k,
        failed_runs=failed,
        excluded=excluded,
        runs_s=tuple(None if v is None or math.isnan(v) else float(v) for v in runs),
        resolution_s=res,
    )


def iteration_gaps(
    frame: pl.DataFrame,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    target: float = DEFAULT_TARGET,
    reference: str = "min-all",
    reference_s: Mapping[str, float | None] | None = None,
) -> GapTable:
    """The gap table of one suite (seed 002; research/warmup-science.md §8).

    ``frame`` has columns ``query``, ``iteration`` (0 = cold) and ``seconds`` (None =
    failed), optionally ``process`` and ``query_index`` (display order; default: first
    appearance). ``reference_s`` maps query name -> reference seconds and replaces the
    default ``min-all`` reference; ``reference`` is the name reported for it (e.g.
    ``"steady"``). ``tolerance`` and ``target`` are fractions (defaults ±10 % and 5 %,
    the seed's figures).

    >>> import polars as pl
    >>> t = iteration_gaps(pl.DataFrame({"query": ["Q0"] * 4, "iteration": [0, 1, 2, 3],
    ...                                  "seconds": [9.0, 2.0, 1.5, 1.0]}))
    >>> [(r.hot_iterations, r.suite_sum_s, r.gap) for r in t.rows]
    [(1, 2.0, 1.0), (2, 1.5, 0.5), (3, 1.0, 0.0)]
    """
    if tolerance < 0 or target < 0:
        raise ValueError("tolerance and target must be >= 0")
    tables = _SuiteRuns.of(frame).tables(
        tolerance=tolerance,
        target=target,
        reference=reference,
        reference_s=None if reference_s is None else {0: reference_s},
    )
    return tables[0] if tables else _table([], 0, 0, tolerance, target, reference)


def iteration_gaps_by_suite(
    frame: pl.DataFrame,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    target: float = DEFAULT_TARGET,
    reference: str = "min-all",
    reference_s: Mapping[int, Mapping[str, float | None]] | None = None,
) -> dict[int, GapTable]:
    """:func:`iteration_gaps` of every suite in ``frame`` (its columns plus ``suite_id``):
    suite id -> gap table, from one sort of the whole frame and one pass over the series
    of all suites of the same run count (issue 19: polars calls, then numpy calls, per
    suite were most of the gap tables of 2,000 ClickBench results). ``reference_s``: per
    suite id, the mapping :func:`iteration_gaps` takes (a suite left out gets ``{}``)."""
    if tolerance < 0 or target < 0:
        raise ValueError("tolerance and target must be >= 0")
    return _SuiteRuns.of(frame, by_suite=True).tables(
        tolerance=tolerance, target=target, reference=reference, reference_s=reference_s
    )


@dataclass(frozen=True)
class _SuiteRuns:
    """An iteration frame sorted by (suite,) query, process and iteration, as arrays."""

    suite_id: npt.NDArray[np.int64]
    query_index: npt.NDArray[np.int64]
    queries: list[str]
    process: npt.NDArray[np.int64]
    iteration: npt.NDArray[np.int64]
    seconds: npt.NDArray[np.float64]

    @classmethod
    def of(cls, frame: pl.DataFrame, *, by_suite: bool = False) -> _SuiteRuns:
        work = frame
        if "process" not in work.columns:
            work = work.with_columns(pl.lit(0, pl.Int64).alias("process"))
        if "query_index" not in work.columns:
            order = work.select("query").unique(maintain_order=True).with_row_index("query_index")
            work = work.join(order, on="query", how="left")
        if not by_suite:
            work = work.with_columns(pl.lit(0, pl.Int64).alias("suite_id"))
        work = work.select(
            pl.col("suite_id").cast(pl.Int64),
            pl.col("query").cast(pl.String),
            pl.col("query_index").cast(pl.Int64),
            pl.col("process").cast(pl.Int64),
            pl.col("iteration").cast(pl.Int64),
            pl.col("seconds").cast(pl.Float64).fill_null(np.nan),
        ).sort("suite_id", "query_index", "query", "process", "iteration")
        return cls(
            work.get_column("suite_id").to_numpy(),
            work.get_column("query_index").to_numpy(),
            [str(q) for q in work.get_column("query").to_list()],
            work.get_column("process").to_numpy(),
            work.get_column("iteration").to_numpy(),
            work.get_column("seconds").to_numpy(),
        )

    def tables(
        self,
        *,
        tolerance: float,
        target: float,
        reference: str,
        reference_s: Mapping[int, Mapping[str, float | None]] | None,
    ) -> dict[int, GapTable]:
        """The gap table of every suite, in suite order. A suite's series all have its run
        count (its longest series'; shorter ones padded as missing), and every per-series
        pass works row by row, so the series of all suites of one run count are laid out
        as one matrix and passed once (2,000 ClickBench results: 1,954 suites, one run
        count, one pass instead of 1,954)."""
        n = len(self.queries)
        if n == 0:
            return {}
        # each (suite, query, process) series is a run of consecutive rows
        new_suite = np.diff(self.suite_id) != 0
        names = np.array(self.queries, dtype=object)
        changed = (
            new_suite
            | (np.diff(self.query_index) != 0)
            | (np.diff(self.process) != 0)
            | (names[1:] != names[:-1])
        )
        starts = np.concatenate(([0], np.flatnonzero(changed) + 1)).astype(np.int64)
        suite_starts = np.concatenate(([0], np.flatnonzero(new_suite) + 1)).astype(np.int64)
        is_start = np.zeros(n, dtype=np.bool_)
        is_start[starts] = True
        series_of_row = np.cumsum(is_start) - 1
        # a suite's first row starts a series: its first series, and how many it has
        first_series = series_of_row[suite_starts]
        series_count = np.diff(np.append(first_series, len(starts)))
        runs_of_suite = np.maximum.reduceat(self.iteration, suite_starts) + 1
        runs_of_series = np.repeat(runs_of_suite, series_count)
        suite_ids = self.suite_id[starts].tolist()
        names_of = [self.queries[i] for i in starts.tolist()]
        processes = self.process[starts].tolist()
        series: list[QueryGaps | None] = [None] * len(starts)
        for width in np.unique(runs_of_suite).tolist():
            picked = np.flatnonzero(runs_of_series == width)
            position = np.full(len(starts), -1, dtype=np.int64)
            position[picked] = np.arange(len(picked))
            rows = np.flatnonzero(runs_of_series[series_of_row] == width)
            # one row of runs per series, cold first; NaN = failed or missing (a repeated
            # iteration: the last row wins, as a dict of iteration -> seconds kept it)
            runs = np.full((len(picked), width), np.nan)
            runs[position[series_of_row[rows]], self.iteration[rows]] = self.seconds[rows]
            chosen = picked.tolist()
            references = None
            if reference_s is not None:
                references = [reference_s.get(suite_ids[i], {}).get(names_of[i]) for i in chosen]
            done = _series_gaps_many(
                runs,
                [names_of[i] for i in chosen],
                [processes[i] for i in chosen],
                references,
                tolerance=tolerance,
            )
            for i, gaps in zip(chosen, done, strict=True):
                series[i] = gaps
        out: dict[int, GapTable] = {}
        for first, count, n_runs, row in zip(
            first_series.tolist(),
            series_count.tolist(),
            runs_of_suite.tolist(),
            suite_starts.tolist(),
            strict=True,
        ):
            mine = [q for q in series[first : first + count] if q is not None]
            out[int(self.suite_id[row])] = _table(
                mine, n_runs, max(n_runs - 1, 0), tolerance, target, reference
            )
        return out


def _table(
    series: list[QueryGaps],
    n_runs: int,
    n_hot: int,
    tolerance: float,
    target: float,
    reference: str,
) -> GapTable:
    """The rows of the gap table (suite sums per k) from its series."""
    included = [q for q in series if q.excluded is None]
    reference_sum = math.fsum(q.reference_s for q in included if q.reference_s is not None)
    rows = []
    k_for_target = None
    for k in range(1, n_hot + 1):
        suite_sum = math.fsum(q.hot_s_by_k[k - 1] or 0.0 for q in included)
        # None when nothing is included (or every reference is 0 s: no relative gap)
        gap = (suite_sum - reference_sum) / reference_sum if reference_sum > 0 else None
        within = 0
        for q in included:
            value, ref = q.hot_s_by_k[k - 1], q.reference_s
            if value is not None and ref is not None and _within(value, ref, tolerance):
                within += 1
        rows.append(
            GapRow(
                hot_iterations=k,
                total_runs=k + 1,
                suite_sum_s=suite_sum,
                reference_sum_s=reference_sum,
                gap=gap,
                within_tolerance=within,
                queries=len(included),
                excluded=len(series) - len(included),
            )
        )
        if k_for_target is None and gap is not None and gap <= target + _SLACK * (1 + target):
            k_for_target = k
    return GapTable(
        reference=reference,
        tolerance=tolerance,
        target=target,
        runs=n_runs,
        rows=tuple(rows),
        per_query=tuple(series),
        k_for_target=k_for_target,
    )


def _series_gaps_many(
    runs: npt.NDArray[np.float64],
    queries: Sequence[str],
    processes: Sequence[int],
    references: Sequence[float | None] | None,
    *,
    tolerance: float,
) -> list[QueryGaps]:
    """:func:`series_gaps` of every row of ``runs`` (one series per row, cold run first,
    NaN = failed or missing; every series has the suite's hot runs) in whole-array passes
    instead of a Python loop per series: 83,000 series for 2,000 ClickBench results.
    ``references``: per row the supplied reference (``use_reference``), None for min-all.
    Equal to :func:`series_gaps` value for value (tests/test_gaps.py checks it)."""
    n_series, n_runs = runs.shape
    if n_series == 0:
        return []
    n_hot = max(n_runs - 1, 0)
    missing = np.isnan(runs)
    hot = runs[:, 1:]
    hot_missing = missing[:, 1:]
    # hot(k) = min of hot runs 1..k; np.minimum carries a NaN on, as a failed run does
    hot_by_k = np.minimum.accumulate(hot, axis=1) if n_hot else hot
    failed_runs = missing.sum(axis=1)
    failed = np.asarray(hot_missing.any(axis=1), dtype=np.bool_)
    has_reference: npt.NDArray[np.bool_]
    if references is None:
        has_reference = np.asarray(~hot_missing.all(axis=1), dtype=np.bool_)
        reference = np.full(n_series, np.nan)
        if n_hot:
            fastest = np.where(hot_missing, np.inf, hot)[has_reference].min(axis=1)
            reference[has_reference] = fastest
    else:
        given = np.array([np.nan if r is None else float(r) for r in references], dtype=np.float64)
        has_reference = np.isfinite(given) & (given >= 0)
        reference = np.where(has_reference, given, np.nan)
    slack = (tolerance + _SLACK) * reference[:, None] + _SLACK * 1e-3
    with np.errstate(invalid="ignore"):
        within = (np.abs(hot_by_k - reference[:, None]) <= slack) & ~np.isnan(hot_by_k)
    first_k = np.zeros(n_series, dtype=np.int64)
    if n_hot:
        first_k = np.where(within.any(axis=1), within.argmax(axis=1) + 1, 0)
    resolution = revealed_resolutions(runs)
    cold = runs[:, 0]
    # over: a cold run of 1e300 s over a reference of 1e-300 s is inf, as series_gaps gives
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        measurable = has_reference & (reference > 0) & (reference >= resolution)
        ratio = np.where(measurable & ~missing[:, 0], cold / reference, np.nan)
    out = []
    for row in zip(
        queries,
        processes,
        _nullable(runs),
        _nullable(hot_by_k),
        _nullable(np.where(has_reference, reference, np.nan)),
        _nullable(ratio),
        np.where(has_reference, first_k, 0).tolist(),
        failed_runs.tolist(),
        failed.tolist(),
        has_reference.tolist(),
        resolution.tolist(),
        strict=True,
    ):
        query, process, runs_n, by_k, ref, ratio_n, k, n_failed, failed_n, has_ref, res = row
        excluded: Exclusion | None = None
        if failed_n:
            excluded = "failed-run"
        elif references is not None and not has_ref:
            excluded = "no-reference"
        out.append(
            QueryGaps(
                query=query,
                process=process,
                cold_s=runs_n[0],
                hot_s_by_k=tuple(by_k),
                reference_s=ref,
                cold_hot_ratio=ratio_n,
                first_k_within=k or None,
                failed_runs=n_failed,
                excluded=excluded,
                runs_s=tuple(runs_n),
                resolution_s=res,
            )
        )
    return out


def _nullable(values: npt.NDArray[np.float64]) -> list[Any]:
    """``values`` as (nested) lists, NaN as None (through an object array: a Python test
    per value was a third of the gap tables of 2,000 ClickBench results)."""
    out = values.astype(object)
    out[np.isnan(values)] = None
    return list(out.tolist())


#: the hot window ClickBench reports: min(run 2, run 3) = hot(2) (research/clickbench.md §2.1)
CLICKBENCH_HOT_RUNS = 2


@dataclass(frozen=True)
class PairSpread:
    """What 3 runs (cold + 2 hot) show of one query: ``spread_s`` = |run 2 − run 3|, the
    distance between the two hot runs (seconds; it bounds the window's noise: the window
    is the smaller of two draws ``spread_s`` apart); ``cold_hot_ratio`` = cold / min(run 2,
    run 3). None where a run failed."""

    query: str
    process: int
    cold_s: float | None
    first_hot_s: float | None
    second_hot_s: float | None
    spread_s: float | None
    cold_hot_ratio: float | None


@dataclass(frozen=True)
class HotPairSpread:
    """The run-2 vs run-3 spread of a suite: per query, and summed over the queries with
    both hot runs (``spread_sum_s``; ``window_sum_s`` = their summed min(run 2, run 3),
    ``spread_share`` = spread_sum / window_sum), and the suite's cold/hot ratio (sum of
    cold runs / sum of windows over the queries with all three runs)."""

    per_query: tuple[PairSpread, ...]
    queries: int
    spread_sum_s: float
    window_sum_s: float
    spread_share: float | None
    cold_sum_s: float
    cold_hot_ratio: float | None


def hot_pair_spread(table: GapTable) -> HotPairSpread:
    """Run 2 vs run 3 (the first two hot runs) of every query of ``table``, the figures
    3-run results do show (ClickBench's window is min(run 2, run 3); research/clickbench.md
    §2.1): the spread per query and summed, and cold/hot ratios."""
    rows = []
    spread_sum = window_sum = cold_sum = cold_window_sum = 0.0
    both = 0
    for q in table.per_query:
        runs = list(q.runs_s) + [None] * 3
        cold, first, second = runs[0], runs[1], runs[2]
        spread = None if first is None or second is None else abs(first - second)
        window = None if first is None or second is None else min(first, second)
        ratio = None if cold is None or not window else cold / window
        rows.append(PairSpread(q.query, q.process, cold, first, second, spread, ratio))
        if spread is not None and window is not None:
            both += 1
            spread_sum += spread
            window_sum += window
            if cold is not None:
                cold_sum += cold
                cold_window_sum += window
    return HotPairSpread(
        tuple(rows),
        both,
        spread_sum,
        window_sum,
        spread_sum / window_sum if window_sum > 0 else None,
        cold_sum,
        cold_sum / cold_window_sum if cold_window_sum > 0 else None,
    )
