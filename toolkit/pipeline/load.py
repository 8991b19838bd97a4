"""``warmup load``: aggregate JMeter samples in SQL, analyse them with
:mod:`toolkit.analyze.timeseries`, and build the ``--json`` payload (DESIGN.md contract).

All heavy work is DuckDB aggregation: one grouping of a suite's samples by label,
completion window, elapsed time, success and load generator (:func:`sample_groups_sql`,
made by ``warmup load FILE``'s reader as it reads a CSV JTL, or from ``samples``), and the
figures as sums over those groups (windows, value histograms of ``elapsed_ms``); the
analyzers receive small frames, so memory does not grow with the number of samples.
"""

from __future__ import annotations

import contextlib
import functools
import math
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Concatenate, ParamSpec, TypeVar

import numpy as np
import polars as pl

from toolkit.analyze.compare import compare_findings
from toolkit.analyze.findings import Finding, named, rank_findings
from toolkit.analyze.jmeter_errors import ASSERTION_FAILED, error_tables
from toolkit.analyze.load_findings import (
    JMETER_STATISTIC_WINDOW,
    label_percentile_window_finding,
    load_family_findings,
    log_disagreement_findings,
    several_summarisers_finding,
)
from toolkit.analyze.time_bounds import MAX_WINDOWS, out_of_range_finding
from toolkit.analyze.timeseries import (
    ALL_SHARE_FOR_VERDICT,
    PERCENTILES,
    STEADY_STATUSES,
    ApdexThresholds,
    DashboardRow,
    LabelLoad,
    LittlesLaw,
    MeanCI,
    analyze_summary_windows,
    analyze_windows,
    apdex_score,
    dashboard_statistics,
    latency_summary,
    littles_law,
    percentile_key,
    summary_interval,
)
from toolkit.errors import UsageError
from toolkit.ingest.jmeter import (
    EMPTY_TC_PREFIX,
    IN_FENCES,
    TC_PREFIX,
    TIME_FENCES,
    within_a_day,
)
from toolkit.native import duckdb
from toolkit.options import DEFAULT_APDEX, check_steady_bounds, check_window_s
from toolkit.pipeline.load_checks import sample_suite_findings, summary_suite_findings
from toolkit.pipeline.summariser import (
    DEFAULT_SUMMARISER,
    summariser_windows,
    summarisers,
    summary_steps,
    summary_window_series,
)
from toolkit.store import Store

#: Label of the whole-suite aggregate in ``warmup load`` (DESIGN.md CLI contract).
ALL = "ALL"


def _apdex_counts(t_ms: int | str, f_ms: int | str) -> str:
    """The APDEX counts of a set of samples, given T and F in ms (or SQL for them, one
    per label: :func:`_label_apdex_counts`): successful ones
    ≤ T, and in (T, F], out of ``apdex_n``, the samples with an elapsed time and a success
    flag: a file that records neither (NULL: not reported) has no APDEX, not 0
    (Bug56811.xml: 51 samples, no times)."""
    return f"""{_weighted("success AND elapsed_ms <= " + str(t_ms))} AS satisfied,
    {_weighted(f"success AND elapsed_ms > {t_ms} AND elapsed_ms <= {f_ms}")} AS tolerated,
    {_weighted("success IS NOT NULL AND elapsed_ms IS NOT NULL")} AS apdex_n"""


def _weighted(test: str) -> str:
    """SQL of the samples of a set of :func:`sample_groups` rows that pass ``test``: the
    ``count(*) FILTER`` of the samples themselves (0, not NULL, when none do)."""
    return f"coalesce(sum(n) FILTER ({test}), 0)::BIGINT"


def _label_apdex_counts(store: Store, groups: str, apdex: ApdexThresholds) -> str:
    """:func:`_apdex_counts` with each label's own T and F (``apdex.per_label``): a CASE
    over the labels of the suite's :func:`sample_groups` table ``groups`` whose thresholds
    differ from the default ones."""
    if not apdex.per_label:
        return _apdex_counts(*apdex.overall_ms)
    labels = store.con.execute(f"SELECT DISTINCT label FROM {groups}").fetchall()
    limits_of = {str(label): apdex.for_label(str(label)) for (label,) in labels}
    own = {k: v for k, v in limits_of.items() if v != apdex.overall_ms}
    if not own:
        return _apdex_counts(*apdex.overall_ms)

    def case(pick: int) -> str:
        whens = " ".join(
            f"WHEN {_sql_literal(label)} THEN {limits[pick]}" for label, limits in own.items()
        )
        return f"(CASE label {whens} ELSE {apdex.overall_ms[pick]} END)"

    return _apdex_counts(case(0), case(1))


def _sql_literal(text: str) -> str:
    """A SQL string literal of untrusted text (a label): quotes doubled."""
    return "'" + text.replace("'", "''") + "'"


_ALL_FILTER = "NOT is_transaction AND NOT is_subresult"
#: JMeter's own test for a transaction-controller sample (its message), which the
#: dashboard uses: a transaction the test stopped inside (no message) counts there as a
#: sample, while ``is_transaction`` also flags it (ingest.jmeter.mark_interrupted_transactions)
_JMETER_TC = f"coalesce(starts_with(response_message, '{TC_PREFIX}'), false)"
#: Appended to a JMeter label literally named ALL: ``ALL`` is the whole suite in the
#: results (DESIGN.md CLI contract), so the file's own ALL becomes ``ALL (label)`` (and
#: ``ALL (label)`` becomes ``ALL (label) (label)``: the renaming stays one-to-one).
USER_ALL_SUFFIX = " (label)"
_LABEL = (
    f"CASE WHEN starts_with(label, '{ALL}') AND regexp_full_match(label, "
    f"'{ALL}( \\(label\\))*') THEN label || '{USER_ALL_SUFFIX}' ELSE label END"
)
_NOT_EMPTY_TC = f"NOT coalesce(starts_with(s.response_message, '{EMPTY_TC_PREFIX}'), false)"


def _samples(store: Store) -> str:
    """SQL of the samples the load analysis reads in ``store``: all but empty
    transaction-controller samples ("Number of samples in transaction : 0, ..."), which
    JMeter's dashboard drops everywhere, APDEX Total included (research/jmeter.md §4.4),
    and rows out of their suite's time range (:mod:`toolkit.analyze.time_bounds`: one
    such row made the windows span centuries). They stay in the store. Labels are renamed
    by :data:`USER_ALL_SUFFIX` here, so every table, series and comparison of ``warmup
    load`` names a label the same way. Inside :func:`fences_once` the fences are read from
    the table it computed once, and a test that no row can fail is left out."""
    known = _KNOWN.get(store)
    tests = [] if known and not known.empty_tc else [_NOT_EMPTY_TC]
    fences = ""
    if not (known and known.within_a_day):
        fences = f"JOIN {_fences(store)} f ON f.suite_id = s.suite_id "
        tests.append(IN_FENCES)
    where = f"WHERE {' AND '.join(tests)}" if tests else ""
    return f"(SELECT s.* REPLACE ({_LABEL} AS label) FROM samples s {fences}{where})"


def _jmeter_tc(store: Store) -> str:
    """SQL of :data:`_JMETER_TC` in ``store``: ``false`` inside a :func:`fences_once`
    that found no transaction-controller sample."""
    known = _KNOWN.get(store)
    return "false" if known and not known.jmeter_tc else _JMETER_TC


def _fences(store: Store) -> str:
    """SQL of the suites' time fences: the table :func:`fences_once` computed, inside it;
    else the query that computes them."""
    return _FENCES_TABLE if _FENCED.get(store) else TIME_FENCES


_P = ParamSpec("_P")
_R = TypeVar("_R")
#: the name :func:`fences_once` registers the suites' time fences under
_FENCES_TABLE = "_load_fences"
#: stores inside :func:`fences_once`, with its nesting depth
_FENCED: weakref.WeakKeyDictionary[Store, int] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class _Known:
    """What :func:`fences_once` found in a store's samples, so that no query of the block
    computes or tests what cannot change its rows: ``within_a_day``, every suite starts
    and ends within a day (:func:`~toolkit.ingest.jmeter.within_a_day`: no fences
    joined); ``jmeter_tc`` and ``empty_tc``, a transaction-controller sample by JMeter's
    test and an empty one exist (else no row's message is tested for one: a string column
    read per query, 0.7 of the 2.4 s of CPU of a ``warmup load`` of 10M rows)."""

    within_a_day: bool
    jmeter_tc: bool
    empty_tc: bool


#: the :class:`_Known` of each store inside :func:`fences_once`
_KNOWN: weakref.WeakKeyDictionary[Store, _Known] = weakref.WeakKeyDictionary()
#: whether any sample is a transaction-controller sample by JMeter's test, and an empty
#: one (one read of a dictionary-compressed column: ~0.03 s of CPU per 10M rows)
_ANY_TC = f"""SELECT coalesce(bool_or({_JMETER_TC}), false),
    coalesce(bool_or(starts_with(response_message, '{EMPTY_TC_PREFIX}')), false) FROM samples"""


@contextlib.contextmanager
def fences_once(store: Store) -> Iterator[None]:
    """Every suite's time fences (:data:`~toolkit.ingest.jmeter.TIME_FENCES`, epoch ms)
    computed once for the load analysis's queries inside the block, which recomputed them
    each otherwise (quartiles of every start time: ~0.2 s of CPU per 10M rows, 15 times
    in a ``warmup load``; issue 17). Nothing may write samples inside the block."""
    depth = _FENCED.get(store, 0)
    if depth == 0:
        # fetchall: fetchone leaves DuckDB 2.0's result open, refusing the next statement
        ((any_tc, empty_tc),) = store.con.execute(_ANY_TC).fetchall()
        known = _Known(within_a_day(store.con), bool(any_tc), bool(empty_tc))
        if not known.within_a_day:
            fences = store.frame(f"SELECT suite_id, lo_ms, hi_ms FROM {TIME_FENCES}")
            store.con.register(_FENCES_TABLE, fences.to_arrow())
        _KNOWN[store] = known
    _FENCED[store] = depth + 1
    try:
        yield
    finally:
        if depth == 0:
            del _FENCED[store]
            known = _KNOWN.pop(store)
            # an error inside may leave a result unfinished, which blocks unregister (a
            # name left registered is replaced by the next block's)
            with contextlib.suppress(duckdb.Error):
                store.con.complete()
                if not known.within_a_day:
                    store.con.unregister(_FENCES_TABLE)
        else:
            _FENCED[store] = depth


def _fenced(func: Callable[Concatenate[Store, _P], _R]) -> Callable[Concatenate[Store, _P], _R]:
    """``func(store, ...)`` run inside :func:`fences_once`."""

    @functools.wraps(func)
    def wrapper(store: Store, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with fences_once(store):
            return func(store, *args, **kwargs)

    return wrapper


def _ci(ci: MeanCI | None) -> list[float] | None:
    return [ci.lo, ci.hi] if ci is not None else None


@dataclass(frozen=True)
class _Scope:
    label: str
    where: str  # SQL condition on samples beyond suite_id
    params: list[Any]


#: The load generator (JMeter engine) a sample comes from: its ``Hostname``, else its
#: file. JMeter's allThreads/grpThreads count one engine's threads only.
_ENGINE = "coalesce(hostname, 'source ' || source_id::VARCHAR)"


def _thread_activity(
    store: Store, suite_id: int, t0: int, window_ms: int, groups: str | None = None
) -> pl.DataFrame | None:
    """Active threads per window ``w`` from the thread names, for a suite whose samples
    carry no thread counts (no ``allThreads``/``grpThreads``: JMeter before 2.4, or a
    listener saving fewer fields): a thread (a ``threadName`` of one load generator) is
    active from one think time before its first sample's start (JMeter runs a timer
    before its sampler; the think time is the thread's mean gap between samples) to its
    last sample's end, as JMeter's threads run from their start to their end. A window's
    count is the time-weighted mean over it (each thread counts the share of the window it
    is active in), as allThreads is a mean over the window's samples: a thread that ends
    where its replacement starts (Concurrency Thread Group) is one thread in that window,
    not two. None when the suite has thread counts, or no thread names."""
    # a JTL with thread counts (the usual case) stops the scan at its first sample
    counted = store.con.execute(
        f"SELECT 1 FROM {groups} WHERE threads_n > 0 LIMIT 1"
        if groups is not None
        else f"""SELECT 1 FROM {_samples(store)} WHERE suite_id = ?
                 AND (all_threads IS NOT NULL OR grp_threads IS NOT NULL) LIMIT 1""",
        [] if groups is not None else [suite_id],
    ).fetchall()
    if counted:
        return None
    # JMeter runs a timer before its sampler, so a thread's first sample starts a think
    # time after the thread: moved back by the thread's mean gap between samples, (span −
    # time in samples) / (samples − 1) over its own samples (transaction-controller and
    # sub-result rows overlap them), one aggregate, no sort (research/jmeter.md §1.6)
    spans = store.frame(
        f"""SELECT (min(start_ms) - ?)::BIGINT AS first_ms,
                   (max(start_ms + elapsed_ms) - ?)::BIGINT AS last_ms,
                   count(*) FILTER ({_ALL_FILTER}) AS n,
                   (max(start_ms + elapsed_ms) FILTER ({_ALL_FILTER})
                    - min(start_ms) FILTER ({_ALL_FILTER})
                    - sum(elapsed_ms) FILTER ({_ALL_FILTER}))::DOUBLE AS idle_ms
            FROM {_samples(store)}
            WHERE suite_id = ? AND nullif(thread_name, '') IS NOT NULL
              AND start_ms IS NOT NULL AND elapsed_ms IS NOT NULL
            GROUP BY {_ENGINE}, thread_name""",
        [t0, t0, suite_id],
    )
    if spans.height == 0:
        return None
    n = spans["n"].to_numpy().astype(np.float64)
    idle = spans["idle_ms"].fill_null(0.0).to_numpy()
    # overlapping samples (a Parallel Controller) leave no gap: never later than the first
    gap = np.where(n > 1, np.maximum(idle, 0.0) / np.maximum(n - 1, 1.0), 0.0)
    # windows count from the first sample start: no thread starts before it
    starts = np.sort(np.maximum(spans["first_ms"].to_numpy().astype(np.float64) - gap, 0.0))
    ends = np.sort(spans["last_ms"].to_numpy().astype(np.float64))
    lo = int(starts[0] // window_ms)
    hi = int(ends[-1] // window_ms) + 1
    edges = np.arange(lo, hi + 1, dtype=np.float64) * window_ms

    def thread_ms(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        # the thread-milliseconds before each time x: sum over threads of
        # clamp(x - start, 0, end - start) = Σ_{start<x}(x - start) − Σ_{end<x}(x - end)
        total = np.zeros_like(x)
        for times, sign in ((starts, 1.0), (ends, -1.0)):
            k = np.searchsorted(times, x, side="left")
            before = np.concatenate([[0.0], np.cumsum(times)])[k]
            total += sign * (k * x - before)
        return total

    # rounded: fractional starts leave float noise (10.000000000000233 threads)
    active = np.round(np.diff(thread_ms(edges)) / window_ms, 9)
    return pl.DataFrame({"w": np.arange(lo, hi, dtype=np.int64), "threads": active})


def _with_thread_activity(frame: pl.DataFrame, activity: pl.DataFrame | None) -> pl.DataFrame:
    """``frame`` with its ``threads`` column from :func:`_thread_activity` where that has
    one (windows missing from ``frame`` stay missing)."""
    if activity is None or frame.height == 0:
        return frame
    joined = frame.drop("threads").join(
        activity.rename({"threads": "_active"}),
        left_on=pl.col("w").cast(pl.Int64),
        right_on="w",
        how="left",
    )
    return joined.rename({"_active": "threads"}).select(frame.columns)


def _windows(store: Store, suite_id: int, t0: int, window_ms: int, by_label: bool) -> pl.DataFrame:
    """Per window ``w`` (and label): ``n``, ``errors`` (failed samples), ``mean_ms`` and
    ``threads``, the active threads summed over the load generators (each one's mean
    allThreads, else grpThreads, in the window; a distributed test's engines each count
    their own threads only); a suite without thread counts gets them from its thread names
    by :func:`_with_thread_activity`. From the suite's :func:`sample_groups`."""
    with sample_groups(store, suite_id, t0, window_ms) as groups:
        return _group_windows(store, groups, by_label)


def sample_rows_sql(
    rows: str,
    t0: int | None,
    window_ms: int,
    jmeter_tc: str,
    *,
    charts: bool = False,
    engine: str = _ENGINE,
) -> str:
    """SQL of a relation ``rows`` of one suite's samples (the columns of ``samples``) as
    one group of :func:`sample_groups_sql` each (``n`` = 1): ``w`` the completion window
    (``(start + elapsed − t0) // window_ms``, NULL without both times), the load
    generator, JMeter's transaction test and the error type (:data:`_ERROR_TYPE`, NULL
    unless failed) computed. For a suite whose samples are about as many groups as rows,
    the view every query aggregates itself, instead of a table as large as the rows: the
    figures are the same, each an integer sum, a count, a minimum or a maximum.
    ``charts``: with the columns of the report's charts too (:data:`_CHART_COLUMNS`).
    ``engine``: the SQL of the load generator, by default the row's hostname, else its
    source (a reader that knows it for every row passes it as a literal)."""
    origin = "NULL" if t0 is None else str(int(t0))
    extra = f",\n                  {_CHART_COLUMNS}" if charts else ""
    return f"""SELECT label, ((start_ms + elapsed_ms - {origin}) // {int(window_ms)})::BIGINT AS w,
                  elapsed_ms, success, {engine} AS engine, is_transaction, is_subresult,
                  {jmeter_tc} AS jmeter_tc, {_ERROR_TYPE} AS type, 1::BIGINT AS n,
                  start_ms AS start_min, start_ms AS start_max,
                  start_ms + elapsed_ms AS end_min, start_ms + elapsed_ms AS end_max,
                  bytes, sent_bytes, coalesce(all_threads, grp_threads) AS threads_sum,
                  (coalesce(all_threads, grp_threads) IS NOT NULL)::BIGINT AS threads_n,
                  thread_name, data_type{extra}
           FROM {rows}"""


#: the columns :func:`sample_rows_sql` adds for the report's charts (:func:`chart_groups`):
#: two more group keys, the response code (Response Codes Per Second) and the thread count
#: (Time Vs Threads), and the sums and counts of the latency and connect times (their
#: means over time)
_CHART_COLUMNS = """coalesce(response_code, '') AS code,
                  coalesce(all_threads, grp_threads) AS threads,
                  latency_ms AS latency_sum, (latency_ms IS NOT NULL)::BIGINT AS latency_n,
                  connect_ms AS connect_sum, (connect_ms IS NOT NULL)::BIGINT AS connect_n"""
_CHART_SUMS = """,
                  sum(latency_sum) AS latency_sum, sum(latency_n) AS latency_n,
                  sum(connect_sum) AS connect_sum, sum(connect_n) AS connect_n"""


#: the keys of :func:`sample_groups_sql` (named, not GROUP BY ALL: the completion range is
#: computed from a key)
_GROUP_KEYS = "label, w, elapsed_ms, success, engine, is_transaction, is_subresult, jmeter_tc, type"


def presummed_rows_sql(rows: str, jmeter_tc: str, *, charts: bool = False, engine: str) -> str:
    """SQL of presummed samples ``rows`` (:mod:`toolkit.ingest.jmeter_polars`: the columns
    of ``samples`` a group key is derived from, ``w``, ``n`` samples, their first and last
    start, the sums and counts :func:`sample_rows_sql` has per sample) as the rows of
    :func:`sample_groups_sql` with ``presummed=True``: the same keys, derived by the same
    SQL, so the groups are those of the samples themselves."""
    extra = (
        """,
                  coalesce(response_code, '') AS code, threads, latency_sum, latency_n,
                  connect_sum, connect_n"""
        if charts
        else ""
    )
    return f"""SELECT label, w::BIGINT AS w, elapsed_ms, success, {engine} AS engine,
                  is_transaction, is_subresult, {jmeter_tc} AS jmeter_tc, {_ERROR_TYPE} AS type,
                  n, start_min, start_max, bytes, sent_bytes, threads_sum, threads_n,
                  thread_names, data_types{extra}
           FROM {rows}"""


def sample_groups_sql(sample_rows: str, *, charts: bool = False, presummed: bool = False) -> str:
    """SQL of the sample groups of one suite's samples, from ``sample_rows``, the SQL of
    their one-sample groups (:func:`sample_rows_sql`, with the same ``charts``): one row
    per label, completion window, elapsed time, success, load generator, row kind and
    error type, with ``n`` samples, their first and last start and completion (epoch ms),
    byte sums and the sum and count of their thread counts (allThreads, else grpThreads).

    Every figure of :func:`analyze_load_suite` is an aggregate of these: counts, sums,
    minima and maxima add up over groups, and exact percentiles need only each window's
    value histogram, which the groups are. So the analysis reads ~10^4–10^5 groups, not
    the samples, and ``warmup load FILE`` can aggregate the file as it reads it, never
    storing a row (issue 20 item 3); ``--db`` groups the stored rows the same way.
    ``thread_names`` and ``data_types`` count the samples with one: they make a reader
    of the file parse (and check, UTF-8 above all) every column a store would hold.
    ``charts``: grouped by response code and thread count too, with the latency and
    connect sums, for the report's charts (:func:`chart_groups`); every figure of the
    analysis is the same over these finer groups. ``presummed``: ``sample_rows`` are
    :func:`presummed_rows_sql`, each row many samples.

    The elapsed time is a key, so a group's first and last completion are its first and
    last start plus it: two aggregates fewer per row."""
    keys = _GROUP_KEYS + (", code, threads" if charts else "")
    sums = _CHART_SUMS if charts else ""
    # presummed rows carry their samples' counts; a sample's row is one sample
    n, threads_n, names, types = (
        ("sum(n)::BIGINT", "sum(threads_n)::BIGINT", "sum(thread_names)::BIGINT",
         "sum(data_types)::BIGINT")
        if presummed
        else ("count(*)", "count(threads_sum)", "count(thread_name)", "count(data_type)")
    )  # fmt: skip
    return f"""SELECT {keys}, {n} AS n,
                  min(start_min) AS start_min, max(start_max) AS start_max,
                  min(start_min) + elapsed_ms AS end_min, max(start_max) + elapsed_ms AS end_max,
                  sum(bytes) AS bytes, sum(sent_bytes) AS sent_bytes,
                  sum(threads_sum) AS threads_sum, {threads_n} AS threads_n,
                  {names} AS thread_names, {types} AS data_types{sums}
           FROM ({sample_rows})
           GROUP BY {keys}"""


#: most groups per row, among a file's first :data:`JUDGED_ROWS` rows, for which the
#: samples are grouped: beyond it (latencies spread over as many milliseconds as there
#: are samples in a window) the groups are about as many as the rows and each is larger
#: than a row (5M samples of 0-60 s: 1.7 GB against 0.8 GB, and 2.4x the CPU of a
#: ``warmup load --db``); generated and real runs have 0.007-0.035
GROUPS_PER_ROW_MAX = 0.25
#: the rows the share of groups is judged on, and the fewest that it is judged on (a
#: smaller suite is grouped whatever its share)
JUDGED_ROWS = 65_536
JUDGED_MIN = 10_000


def head_groups_sql(rows: str, window_ms: int) -> str:
    """SQL of the first start, the rows and the groups (by label, completion window,
    elapsed time and success) among the first :data:`JUDGED_ROWS` rows of ``rows``."""
    return f"""SELECT min(start_ms), count(*),
                      count(DISTINCT (label, (start_ms + elapsed_ms) // {int(window_ms)},
                                      elapsed_ms, success))
               FROM (SELECT label, start_ms, elapsed_ms, success FROM {rows}
                     LIMIT {JUDGED_ROWS})"""


def too_many_groups(rows: int, groups: int) -> bool:
    """Whether ``groups`` among ``rows`` first rows (:func:`head_groups_sql`) say the
    samples are not worth grouping (:data:`GROUPS_PER_ROW_MAX`)."""
    return rows >= JUDGED_MIN and groups > GROUPS_PER_ROW_MAX * rows


@dataclass(frozen=True)
class Grouped:
    """A :func:`sample_groups` table made before the analysis (by the reader of ``warmup
    load FILE``, which keeps no rows): ``table``, grouped by windows of ``window_ms`` from
    ``t0``, the suite's first sample start; ``charts``: with the columns of the report's
    charts (:func:`sample_groups_sql`)."""

    table: str
    t0: int | None
    window_ms: int
    charts: bool = False


#: the tables a reader grouped, per store and suite (:func:`sample_groups` uses them)
GROUPED: weakref.WeakKeyDictionary[Store, dict[int, Grouped]] = weakref.WeakKeyDictionary()
#: the name of the table :func:`sample_groups` makes (its view of rows as groups: + _rows)
_GROUPS_TABLE = "_load_groups"


def _grouped_table(store: Store, suite_id: int, t0: int | None, window_ms: int) -> str | None:
    """The reader's :func:`sample_groups_sql` table of the suite (:data:`GROUPED`), None
    when its rows were stored; a :class:`UsageError` when its windows are not those
    asked for (there are no rows to group again)."""
    grouped = GROUPED.get(store, {}).get(suite_id)
    if grouped is None:
        return None
    if (grouped.t0, grouped.window_ms) != (t0, window_ms):
        raise UsageError(
            f"suite #{suite_id} was read into windows of {grouped.window_ms} ms "
            f"(IngestOptions.group_window_ms), not {window_ms} ms: analyse it with "
            f"window_s={grouped.window_ms / 1000:g}, or read it without group_window_ms"
        )
    return grouped.table


def grouped_suites(store: Store) -> list[tuple[int, int, int | None]]:
    """The suites a reader grouped with no row stored (:data:`GROUPED`), as stored rows
    would tell them: ``(suite_id, samples that are neither transaction nor sub-result,
    first start ms)``."""
    found = []
    for suite_id, grouped in sorted(GROUPED.get(store, {}).items()):
        ((samples, start),) = store.con.execute(
            f"""SELECT coalesce(sum(n) FILTER (NOT is_transaction AND NOT is_subresult), 0),
                       min(start_min) FROM {grouped.table}"""
        ).fetchall()
        found.append((suite_id, int(samples), None if start is None else int(start)))
    return found


@contextlib.contextmanager
def sample_groups(store: Store, suite_id: int, t0: int | None, window_ms: int) -> Iterator[str]:
    """The name of a table of the suite's :func:`sample_groups_sql` (windows of
    ``window_ms`` from ``t0``): the reader's, when it grouped the file (:data:`GROUPED`),
    else made from the stored samples for the block and dropped after it."""
    table = _grouped_table(store, suite_id, t0, window_ms)
    if table is not None:
        yield table
        return
    with _stored_groups(store, suite_id, t0, window_ms, _GROUPS_TABLE) as name:
        yield name


@contextlib.contextmanager
def _stored_groups(
    store: Store, suite_id: int, t0: int | None, window_ms: int, table: str, *, charts: bool = False
) -> Iterator[str]:
    """The suite's stored samples as :func:`sample_groups_sql` (``charts``: with the chart
    columns) in a temporary ``table`` for the block, dropped after it; a view of
    one-sample groups (:func:`sample_rows_sql`) instead for samples about as many groups
    as rows (:func:`too_many_groups`). Yields the name to read."""
    rows = f"(SELECT * FROM {_samples(store)} WHERE suite_id = {int(suite_id)})"
    store.con.complete()
    ((_, head, head_groups),) = store.con.execute(head_groups_sql(rows, window_ms)).fetchall()
    wide = too_many_groups(int(head), int(head_groups))
    kind, name = ("VIEW", f"{table}_rows") if wide else ("TABLE", table)
    sample_rows = sample_rows_sql(rows, t0, window_ms, _jmeter_tc(store), charts=charts)
    store.con.execute(
        f"CREATE OR REPLACE TEMP {kind} {name} AS "
        + (sample_rows if wide else sample_groups_sql(sample_rows, charts=charts))
    )
    try:
        yield name
    finally:
        with contextlib.suppress(duckdb.Error):
            store.con.complete()
            store.con.execute(f"DROP {kind} IF EXISTS {name}")


#: the name of the table :func:`chart_groups` makes from stored rows
_CHART_GROUPS_TABLE = "_chart_groups"


@dataclass(frozen=True)
class ChartGroups:
    """A suite's :func:`sample_groups_sql` with the chart columns (``charts=True``) for
    the report's charts: ``table``, its windows counted from ``t0`` (the suite's first
    sample start); a chart window is ``per_window`` of the table's windows (``w //
    per_window``: a whole multiple, so a window's samples are whole groups)."""

    table: str
    t0: int
    per_window: int

    def window(self) -> str:
        """SQL of a group's chart window."""
        return "w" if self.per_window == 1 else f"(w // {int(self.per_window)})"

    def series(self, labels: Sequence[str]) -> tuple[str, list[Any]]:
        """SQL (and its parameters) of the timed groups of each series in ``labels``, named
        in a column ``series``, ``w`` their chart window: ALL's (neither TC nor sub-result
        rows) and each other label's own (renamed so that none is ALL)."""

        def part(series: str, test: str) -> str:
            return f"""SELECT {series} AS series, * REPLACE ({self.window()} AS w)
                       FROM {self.table} WHERE w IS NOT NULL AND {test}"""

        parts = [part(_sql_literal(ALL), _ALL_FILTER)] if ALL in labels else []
        own = [label for label in labels if label != ALL]
        if own or not parts:
            parts.append(part("label", "list_contains(?::VARCHAR[], label)"))
            return f"({' UNION ALL '.join(parts)})", [own]
        return f"({parts[0]})", []


@contextlib.contextmanager
def chart_groups(store: Store, suite_id: int, window_ms: int) -> Iterator[ChartGroups | None]:
    """The suite's samples as :class:`ChartGroups` for charts of windows of ``window_ms``:
    the reader's groups when it read the file with the chart columns
    (:attr:`IngestOptions.group_charts`; windows of a divisor of ``window_ms``), else the
    stored rows grouped at ``window_ms`` for the block (a table dropped after it; a view
    of one-sample groups for samples about as many groups as rows). None for a suite
    with no sample start. The charts read ~10^4 groups where they read every row four
    times, and ``report FILE`` stores no row (issue 20 item 3)."""
    grouped = GROUPED.get(store, {}).get(suite_id)
    if grouped is not None:
        if not grouped.charts:
            raise UsageError(
                f"suite #{suite_id} was read into the load analysis's groups without the "
                "chart columns, no row stored: read it with IngestOptions.group_charts, or "
                "without group_window_ms"
            )
        if window_ms % grouped.window_ms:
            raise UsageError(
                f"suite #{suite_id} was read into groups of {grouped.window_ms} ms windows: "
                f"charts of {window_ms} ms windows are not whole groups; draw whole "
                "multiples of it, or read it without group_window_ms"
            )
        yield (
            None
            if grouped.t0 is None
            else ChartGroups(grouped.table, grouped.t0, window_ms // grouped.window_ms)
        )
        return
    ((t0,),) = store.con.execute(
        f"SELECT min(start_ms) FROM {_samples(store)} WHERE suite_id = ?", [suite_id]
    ).fetchall()
    if t0 is None:
        yield None
        return
    with _stored_groups(
        store, suite_id, int(t0), window_ms, _CHART_GROUPS_TABLE, charts=True
    ) as name:
        yield ChartGroups(name, int(t0), 1)


def _group_windows(store: Store, groups: str, by_label: bool) -> pl.DataFrame:
    """:func:`_windows` from a :func:`sample_groups` table: the same columns, each
    engine's thread count the mean of its samples' (sum ÷ count)."""
    key = "label, " if by_label else ""
    where = "" if by_label else f"AND {_ALL_FILTER}"
    return store.frame(
        f"""SELECT {key}w, sum(n)::BIGINT AS n, sum(errors)::BIGINT AS errors,
                   sum(sum_ms) / sum(n) AS mean_ms, sum(threads) AS threads
            FROM (SELECT {key}w, engine, sum(n) AS n,
                         {_weighted("success = false")} AS errors,
                         sum(elapsed_ms::HUGEINT * n)::DOUBLE AS sum_ms,
                         sum(threads_sum)::DOUBLE / sum(threads_n) AS threads
                  FROM {groups}
                  WHERE w IS NOT NULL {where}
                  GROUP BY ALL)
            GROUP BY ALL ORDER BY ALL"""
    )


def _out_of_range_count(store: Store, suite_id: int) -> int:
    """The suite's rows that :func:`_samples` leaves out as outside its time fences."""
    known = _KNOWN.get(store)
    if known and known.within_a_day:
        return 0
    row = store.con.execute(
        f"""SELECT count(*) FROM samples s JOIN {_fences(store)} f ON f.suite_id = s.suite_id
            WHERE s.suite_id = ? AND NOT {IN_FENCES}
              AND {_NOT_EMPTY_TC if not known or known.empty_tc else "true"}""",
        [suite_id],
    ).fetchone()
    return int(row[0]) if row else 0


def _check_window_count(name: str, span_ms: int, window_ms: int) -> None:
    """Refuse a series of more than :data:`MAX_WINDOWS` windows (its arrays would not fit
    in memory) with the --load-window that fits."""
    windows = span_ms // window_ms + 1
    if windows > MAX_WINDOWS:
        fits = math.ceil(span_ms / MAX_WINDOWS / 1000)
        raise UsageError(
            f"suite {name}: its samples span {span_ms / 86_400_000:.0f} days, "
            f"{windows} windows of {window_ms / 1000:g} s (at most {MAX_WINDOWS}); pass "
            f"--load-window {fits}s or more, or ingest its runs as separate suites"
        )


@_fenced
def window_series(
    store: Store, suite_id: int, *, window_s: float = 1.0, label: str | None = None
) -> pl.DataFrame:
    """Per-window series of one label (or ALL): ``w`` and ``t_s`` (window index and start
    in s from the suite's first sample start), ``n``, ``throughput`` (/s, by completion
    time), ``errors``, ``mean_ms``, exact ``p50 p90 p95 p99 p99_9`` (ms) and ``threads``
    (summed over load generators, as in :func:`_windows`). For plots and reports.

    Every window of the suite is a row, from its first to the one holding its last
    completion: a window where the label completed nothing has ``n``, ``throughput`` and
    ``errors`` 0 and null latencies and threads (a stall is a drop to 0, as the analysis
    counts it). The last row is the test's final, partial window (the test stops inside
    it); a plot drops that one only.

    The percentiles use the estimator of every other percentile here, commons-math LEGACY
    (:func:`~toolkit.analyze.timeseries.legacy_percentile`; research/jmeter.md §4.3, §7):
    1-based position ``p/100·(n+1)``, the minimum below 1, the maximum at n or above,
    else linear interpolation between the order statistics around it. Computed in SQL
    from each window's value histogram, so no window's samples reach Python.
    """
    name = ALL if label is None else label
    return window_series_by_label(store, suite_id, [name], window_s=window_s)[name]


@_fenced
def window_series_by_label(
    store: Store, suite_id: int, labels: Sequence[str], *, window_s: float = 1.0
) -> dict[str, pl.DataFrame]:
    """:func:`window_series` of each of ``labels`` (``ALL``: the whole suite), from one
    read of the suite's samples (a report draws up to eight: eight reads before)."""
    if not labels:
        return {}
    window_ms = max(1, round(window_s * 1000))
    with chart_groups(store, suite_id, window_ms) as groups:
        if groups is None:
            return {label: pl.DataFrame() for label in labels}
        return _window_series_of_groups(store, suite_id, labels, groups, window_s)


def _window_series_of_groups(
    store: Store, suite_id: int, labels: Sequence[str], groups: ChartGroups, window_s: float
) -> dict[str, pl.DataFrame]:
    """:func:`window_series_by_label` from the suite's :func:`chart_groups`."""
    window_ms = max(1, round(window_s * 1000))
    w = groups.window()
    span = store.con.execute(
        f"SELECT min({w})::BIGINT, max({w})::BIGINT FROM {groups.table} WHERE w IS NOT NULL"
    ).fetchone()
    if span is None or span[0] is None:
        return {label: pl.DataFrame() for label in labels}
    t0, first_w, last_w = groups.t0, min(0, int(span[0])), int(span[1])
    _check_window_count(f"#{suite_id}", (last_w - first_w) * window_ms, window_ms)

    kept, params = groups.series(labels)
    levels = ", ".join(f"{p:g}" for p in PERCENTILES)
    pivot = ", ".join(f"max(value) FILTER (p = {p:g}) AS {percentile_key(p)}" for p in PERCENTILES)
    names = ", ".join(percentile_key(p) for p in PERCENTILES)
    frame = store.frame(
        f"""WITH kept AS {kept},
            per_window AS (
                SELECT series, w, sum(n)::BIGINT AS n, {_weighted("success = false")} AS errors,
                       sum(elapsed_ms::HUGEINT * n)::DOUBLE / sum(n) AS mean_ms,
                       min(elapsed_ms) AS min_ms, max(elapsed_ms) AS max_ms
                FROM kept GROUP BY series, w),
            -- JMeter's thread counts are per engine: each one's mean, added up
            engines AS (
                SELECT series, w, sum(threads) AS threads
                FROM (SELECT series, w, engine,
                             sum(threads_sum)::DOUBLE / sum(threads_n) AS threads
                      FROM kept GROUP BY series, w, engine)
                GROUP BY series, w),
            -- value histogram per window with cumulative counts: order statistic k is
            -- the smallest value whose cumulative count reaches k
            hist AS (
                SELECT series, w, elapsed_ms AS v,
                       sum(sum(n)) OVER (PARTITION BY series, w ORDER BY elapsed_ms) AS cum
                FROM kept GROUP BY series, w, elapsed_ms),
            positions AS (
                SELECT series, w, n, min_ms, max_ms, p, p / 100.0 * (n + 1) AS pos
                FROM per_window, unnest([{levels}]::DOUBLE[]) AS levels(p)),
            legacy AS (
                SELECT q.series, q.w, q.p,
                       CASE WHEN q.pos < 1 THEN any_value(q.min_ms)
                            WHEN q.pos >= q.n THEN any_value(q.max_ms)
                            ELSE min(h.v) FILTER (h.cum >= floor(q.pos))
                                 + (q.pos - floor(q.pos))
                                 * (min(h.v) FILTER (h.cum >= floor(q.pos) + 1)
                                    - min(h.v) FILTER (h.cum >= floor(q.pos)))
                       END::DOUBLE AS value
                FROM positions q JOIN hist h ON h.series = q.series AND h.w = q.w
                GROUP BY q.series, q.w, q.p, q.pos, q.n)
        SELECT series AS label, w, n, errors, mean_ms, {names},
               engines.threads::DOUBLE AS threads
        FROM per_window JOIN (SELECT series, w, {pivot} FROM legacy GROUP BY series, w)
             USING (series, w)
             JOIN engines USING (series, w)
        ORDER BY series, w""",
        params,
    )
    activity = _thread_activity(store, suite_id, t0, window_ms, groups.table)
    every = pl.DataFrame({"w": pl.int_range(first_w, last_w + 1, dtype=pl.Int64, eager=True)})
    by_label = _label_parts(frame)
    result = {}
    for label in labels:
        part = by_label.get(label, frame.clear()).drop("label")
        part = _with_thread_activity(part, activity)
        full = every.join(part.with_columns(pl.col("w").cast(pl.Int64)), on="w", how="left")
        result[label] = full.select(
            "w",
            (pl.col("w") * window_ms / 1000.0).alias("t_s"),
            pl.col("n").fill_null(0),
            (pl.col("n").fill_null(0) / window_s).alias("throughput"),
            pl.col("errors").fill_null(0),
            "mean_ms",
            *(pl.col(percentile_key(p)) for p in PERCENTILES),
            "threads",
        )
    return result


def _histograms(store: Store, groups: str, *, cutoffs: pl.DataFrame | None = None) -> pl.DataFrame:
    """``label, is_transaction, is_subresult, jmeter_tc, elapsed_ms, n`` over all samples
    of a :func:`sample_groups` table, or over the steady part (completion window in
    [lo_w, hi_w) per label) when ``cutoffs`` is given."""
    if cutoffs is None:
        return store.frame(
            f"""SELECT label, is_transaction, is_subresult, jmeter_tc, elapsed_ms,
                      sum(n)::BIGINT AS n
               FROM {groups} WHERE elapsed_ms IS NOT NULL
               GROUP BY ALL"""
        )
    store.con.register("_load_cutoffs", cutoffs.to_arrow())
    try:
        return store.frame(
            f"""SELECT s.label, s.is_transaction, s.is_subresult, s.jmeter_tc, s.elapsed_ms,
                      sum(s.n)::BIGINT AS n
               FROM {groups} s JOIN _load_cutoffs c ON s.label = c.label
               WHERE s.elapsed_ms IS NOT NULL AND s.w >= c.lo_w AND s.w < c.hi_w
               GROUP BY ALL"""
        )
    finally:
        store.con.unregister("_load_cutoffs")


def _all_steady_histogram(
    store: Store, groups: str, lo_w: int, hi_w: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Value histogram (``elapsed_ms`` ascending, counts) of ALL's samples (no TC, no
    sub-result) completed in windows [lo_w, hi_w) of a :func:`sample_groups` table: ALL's
    steady part, cut at ALL's own warm-up end. Kept apart from the per-label steady rows,
    which have other cuts and would count ALL's samples twice if pooled with them."""
    frame = store.frame(
        f"""SELECT elapsed_ms, sum(n)::BIGINT AS n
            FROM {groups} WHERE elapsed_ms IS NOT NULL AND {_ALL_FILTER}
              AND w >= ? AND w < ?
            GROUP BY ALL ORDER BY elapsed_ms""",
        [lo_w, hi_w],
    )
    return frame["elapsed_ms"].to_numpy(), frame["n"].to_numpy()


def _label_parts(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """A frame with a ``label`` column (:func:`_histograms`, :func:`_windows`) split by
    label, once (a filter per label read every label's rows: 100,000 labels took
    minutes), each part in the frame's order."""
    # zero-copy slices of one sorted frame: partition_by copied 100,000 small frames
    ordered = frame.sort("label", maintain_order=True)
    runs = ordered.group_by("label", maintain_order=True).agg(pl.len().alias("rows"))
    parts: dict[str, pl.DataFrame] = {}
    start = 0
    for label, rows in runs.iter_rows():
        parts[label] = ordered.slice(start, rows)
        start += rows
    return parts


def _hist(
    frame: pl.DataFrame, label: str, parts: dict[str, pl.DataFrame] | None = None
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Value histogram of one label in a :func:`_histograms` frame (``parts``: the frame
    by :func:`_label_parts`); ALL = the rows that are neither TC nor sub-result (right for
    the whole-run frame only, where every row is uncut)."""
    if label == ALL:
        part = frame.filter(~pl.col("is_transaction") & ~pl.col("is_subresult"))
    elif parts is not None:
        part = parts.get(label, frame.clear())
    else:
        part = frame.filter(pl.col("label") == label)
    grouped = part.group_by("elapsed_ms").agg(pl.col("n").sum()).sort("elapsed_ms")
    return grouped["elapsed_ms"].to_numpy(), grouped["n"].to_numpy()


#: JMeter's Statistics figures of a set of :func:`sample_groups` rows (with
#: :func:`_apdex_counts`, a row of its dashboard)
_STATISTICS = f"""coalesce(sum(n), 0)::BIGINT AS samples, {_weighted("success = false")} AS errors,
    sum(elapsed_ms::HUGEINT * n)::DOUBLE AS sum_ms, min(elapsed_ms) AS min_ms,
    max(elapsed_ms) AS max_ms, min(start_min) AS first_start_ms, max(end_max) AS last_end_ms,
    sum(bytes)::DOUBLE AS bytes, sum(sent_bytes)::DOUBLE AS sent_bytes"""


def _dashboard(
    store: Store, groups: str, hist: pl.DataFrame, per_label: pl.DataFrame, total_apdex: str
) -> list[DashboardRow]:
    """JMeter's Statistics/APDEX rows; ``per_label``: each label's :data:`_STATISTICS`
    and APDEX counts (by its own thresholds), in label order; ``total_apdex``: the APDEX
    counts SQL of Total (the overall thresholds)."""
    # Total: statistics exclude transaction-controller samples (by JMeter's own test),
    # APDEX includes them (§4.2)
    total = store.frame(
        f"""SELECT 'Total' AS label, * FROM
              (SELECT {_STATISTICS} FROM {groups} WHERE NOT jmeter_tc),
              (SELECT {total_apdex} FROM {groups})"""
    )
    totals = pl.concat([total, per_label.select(total.columns)], how="vertical_relaxed")
    hist_total = (
        hist.filter(~pl.col("jmeter_tc"))
        .group_by("elapsed_ms")
        .agg(pl.col("n").sum())
        .with_columns(pl.lit("Total").alias("label"))
    )
    hist_labels = hist.group_by("label", "elapsed_ms").agg(pl.col("n").sum())
    histograms = pl.concat(
        [
            hist_total.select("label", "elapsed_ms", "n"),
            hist_labels.select("label", "elapsed_ms", "n"),
        ]
    )
    return dashboard_statistics(totals, histograms)


def _steady_window_json(result: LabelLoad, window_s: float) -> dict[str, Any] | None:
    """``{"from_s", "to_s", "source"}``: the seconds (from the first sample start) the
    steady figures are computed over, and why (``detected``: after the warm-up end, before
    a cool-down; ``user``: ``--steady-from``/``--steady-to``); None without steady figures."""
    if result.steady_from_window is None or result.steady_to_window is None:
        return None
    return {
        "from_s": round(result.steady_from_window * window_s, 6),
        "to_s": round(result.steady_to_window * window_s, 6),
        "source": result.steady_source,
    }


def _label_json(
    result: LabelLoad,
    overall: dict[str, Any],
    steady: dict[str, Any] | None,
    apdex: float | None,
    is_transaction: bool,
    window_s: float,
) -> dict[str, Any]:
    warm = result.warmup
    return {
        "label": result.label,
        "samples": result.samples,
        "errors": result.errors,
        "error_rate": result.errors / result.samples if result.samples else None,
        "duration_s": result.duration_s,
        "warmup_end_s": warm.end_s,
        "warmup_status": warm.status,
        "warmup_rule": warm.decided_by,
        "steady_window": _steady_window_json(result, window_s),
        "cooldown_start_s": result.cooldown_s,
        "rampup_end_s": result.rampup_s,
        "is_transaction": is_transaction,
        "throughput": {
            "overall": result.throughput_overall,
            "steady": result.throughput_steady.mean if result.throughput_steady else None,
            "steady_ci": _ci(result.throughput_steady),
        },
        "latency_ms": {
            "overall": overall,
            "steady": steady,
            "steady_mean_ci": _ci(result.latency_steady_mean),
        },
        "apdex": apdex,
        "threads_steady": result.threads_steady,
    }


def _littles_tolerance(res: LabelLoad, floor: float = 0.02) -> float:
    """Relative uncertainty of X·R on the steady part: the 95 % CIs' relative half-widths
    of throughput and mean latency, added in quadrature; at least ``floor``. A busy
    fraction above 1 by more than this is inconsistent data, not noise (generated
    8-thread closed loops of 2,000 samples read 0.98–1.03 over six seeds)."""
    parts = [
        (ci.hi - ci.lo) / 2 / abs(ci.mean)
        for ci in (res.throughput_steady, res.latency_steady_mean)
        if ci is not None and ci.mean
    ]
    return max(floor, float(np.sqrt(sum(p * p for p in parts))))


def _empty_latency() -> dict[str, Any]:
    return {
        **{percentile_key(p): None for p in PERCENTILES},
        "mean": None,
        "min": None,
        "max": None,
    }


def analyze_load_suite(
    store: Store,
    suite_id: int,
    name: str,
    *,
    window_s: float = 1.0,
    apdex: ApdexThresholds = DEFAULT_APDEX,
    steady_from_s: float | None = None,
    steady_to_s: float | None = None,
) -> dict[str, Any]:
    """The ``warmup load`` result of one suite (one entry of ``suites`` in ``--json``);
    ``apdex``: the APDEX thresholds (JMeter's defaults, or as ``--apdex`` and
    ``--apdex-per-label`` set them). ``steady_from_s``/``steady_to_s`` (seconds from the
    first sample start; ``--steady-from``/``--steady-to``): every label's steady figures
    over the whole windows inside them instead of after the detected warm-up end."""
    grouped = GROUPED.get(store, {}).get(suite_id)
    # fetchall: fetchone leaves DuckDB 2.0's result open, refusing the next statement
    ((sample_count, first_start, last_end),) = store.con.execute(
        f"SELECT coalesce(sum(n), 0), min(start_min), max(end_max) FROM {grouped.table}"
        if grouped is not None
        else f"""SELECT count(*), min(start_ms), max(start_ms + elapsed_ms)
                 FROM {_samples(store)} WHERE suite_id = ?""",
        [] if grouped is not None else [suite_id],
    ).fetchall()
    windows_only = store.con.execute(
        "SELECT count(*) > 0 FROM load_windows WHERE suite_id = ?", [suite_id]
    ).fetchone()
    if sample_count == 0 and windows_only == (True,):
        return _summary_suite(store, suite_id, name)
    window_ms = max(1, round(window_s * 1000))
    t0 = int(first_start) if first_start is not None else None
    if t0 is not None and last_end is not None:
        _check_window_count(name, int(last_end) - t0, window_ms)
    with sample_groups(store, suite_id, t0, window_ms) as groups:
        return _analyze_groups(
            store, suite_id, name, groups, int(sample_count), t0, window_s=window_s,
            apdex=apdex, steady_from_s=steady_from_s, steady_to_s=steady_to_s,
        )  # fmt: skip


def _analyze_groups(
    store: Store,
    suite_id: int,
    name: str,
    groups: str,
    sample_count: int,
    t0: int | None,
    *,
    window_s: float,
    apdex: ApdexThresholds,
    steady_from_s: float | None,
    steady_to_s: float | None,
) -> dict[str, Any]:
    """:func:`analyze_load_suite` of a suite with samples, from its :func:`sample_groups`
    table ``groups`` (windows from ``t0``)."""
    window_ms = max(1, round(window_s * 1000))
    label_apdex = _label_apdex_counts(store, groups, apdex)
    # ALL is the whole suite, as the dashboard's Total: the default thresholds
    all_apdex = _apdex_counts(*apdex.overall_ms)
    # one read for each label's counts, its dashboard statistics and its failed mean
    per_label = store.frame(
        f"""SELECT label, {_STATISTICS}, {label_apdex},
                   bool_and(is_transaction) AS is_transaction,
                   (max(end_max) - min(start_min)) / 1000.0 AS duration_s,
                   (sum(elapsed_ms::HUGEINT * n) FILTER (success = false))::DOUBLE
                   / sum(n) FILTER (success = false AND elapsed_ms IS NOT NULL) AS failed_ms
            FROM {groups} GROUP BY label ORDER BY label"""
    )
    all_counts = store.frame(
        f"""SELECT '{ALL}' AS label, coalesce(sum(n), 0)::BIGINT AS samples,
                   {_weighted("success = false")} AS errors, false AS is_transaction,
                   (max(end_max) - min(start_min)) / 1000.0 AS duration_s,
                   {all_apdex}
            FROM {groups} WHERE {_ALL_FILTER}"""
    )
    counts = pl.concat([per_label.select(all_counts.columns), all_counts], how="vertical_relaxed")
    hist = _histograms(store, groups)
    dashboard = _dashboard(store, groups, hist, per_label, all_apdex)
    # ALL's APDEX over ALL's own samples (no TC, no sub-result rows), like its counts and
    # percentiles; the dashboard's Total keeps JMeter's scope (TCs and sub-results included)
    apdex_by_label = {
        rec["label"]: apdex_score(rec["satisfied"], rec["tolerated"], rec["apdex_n"])
        for rec in counts.iter_rows(named=True)
    }
    results: dict[str, LabelLoad] = {}
    if t0 is not None:
        # a suite without thread counts: active threads from its thread names, once
        activity = _thread_activity(store, suite_id, t0, window_ms, groups)
        windows = _with_thread_activity(_group_windows(store, groups, by_label=True), activity)
        windows_all = _with_thread_activity(_group_windows(store, groups, by_label=False), activity)
    user_from = user_to = None
    if steady_from_s is not None:
        user_from = math.ceil(steady_from_s / window_s - 1e-9)
    if steady_to_s is not None:
        user_to = math.floor(steady_to_s / window_s + 1e-9)
    all_samples = int(counts.filter(pl.col("label") == ALL)["samples"].sum())
    # each label's windows, split once (a filter per label read every label's windows:
    # 100,000 labels took minutes)
    by_label = _label_parts(windows) if t0 is not None else {}
    empty = pl.DataFrame({"w": [], "n": [], "mean_ms": []})
    # ALL first: every label shares its thread ramp-up (analyze_windows' ramp_from)
    for rec in counts.sort(pl.col("label") != ALL).iter_rows(named=True):
        label = rec["label"]
        if t0 is None:
            frame = empty
        elif label == ALL:
            frame = windows_all
        else:
            frame = by_label.get(label, windows.clear())
        results[label] = analyze_windows(
            label,
            frame,
            window_s=window_s,
            samples=int(rec["samples"]),
            errors=int(rec["errors"]),
            duration_s=rec["duration_s"],
            ramp_from=results[ALL] if label != ALL else None,
            # a label that is nearly all of ALL has ALL's series: one verdict for both
            verdict_from=results[ALL]
            if label != ALL and int(rec["samples"]) >= ALL_SHARE_FOR_VERDICT * all_samples > 0
            else None,
            steady_from=user_from,
            steady_to=user_to,
        )
    # steady histograms: completion window in [warm-up end, cool-down or last full window)
    steady_hist = None
    all_cut: tuple[int, int] | None = None
    if t0 is not None:
        cut_rows = []
        for label, res in results.items():
            if res.steady_from_window is None or res.steady_to_window is None:
                continue
            lo_w, hi_w = res.steady_from_window, res.steady_to_window
            if label == ALL:
                all_cut = (lo_w, hi_w)
            else:
                cut_rows.append((label, lo_w, hi_w))
        cutoffs = pl.DataFrame(
            cut_rows,
            schema={"label": pl.String, "lo_w": pl.Int64, "hi_w": pl.Int64},
            orient="row",
        )
        steady_hist = _histograms(store, groups, cutoffs=cutoffs)
    labels_json = []
    hist_parts = _label_parts(hist)
    steady_parts = _label_parts(steady_hist) if steady_hist is not None else None
    findings: list[Finding] = []
    for rec in counts.sort(pl.col("label") != ALL, "label").iter_rows(named=True):
        label = rec["label"]
        res = results[label]
        overall = latency_summary(*_hist(hist, label, hist_parts)).as_dict()
        steady = None
        if label == ALL and all_cut is not None:
            steady = latency_summary(*_all_steady_histogram(store, groups, *all_cut)).as_dict()
        elif label != ALL and steady_hist is not None and res.steady_from_window is not None:
            steady = latency_summary(*_hist(steady_hist, label, steady_parts)).as_dict()
        entry = _label_json(
            res, overall, steady, apdex_by_label.get(label), bool(rec["is_transaction"]),
            window_s,
        )  # fmt: skip
        limits = apdex.overall_ms if label == ALL else apdex.for_label(label)
        entry["apdex_thresholds_ms"] = list(limits)
        labels_json.append(entry)
        if res.samples > JMETER_STATISTIC_WINDOW and label != ALL:
            findings.append(label_percentile_window_finding(label, res.samples))
    findings += sample_suite_findings(
        store, groups, name, labels_json, windows_all if t0 is not None else None,
        t0=t0, window_s=window_s,
        failed_mean_ms=dict(zip(per_label["label"], per_label["failed_ms"], strict=True)),
        all_result=results[ALL],
    )  # fmt: skip
    all_res = results[ALL]
    all_steady = next(x for x in labels_json if x["label"] == ALL)["latency_ms"]["steady"]
    little = littles_law(
        name,
        threads=all_res.threads_steady,
        throughput=all_res.throughput_steady.mean if all_res.throughput_steady else None,
        latency_ms=all_steady["mean"] if all_steady else None,
        tolerance=_littles_tolerance(all_res),
    )
    if little is not None and little.finding is not None:
        findings.append(little.finding)
    excluded = _out_of_range_count(store, suite_id)
    if excluded:
        findings.append(out_of_range_finding(name, excluded, excluded + int(sample_count)))
    logs = _run_logs(store, suite_id, name, results[ALL].samples, findings)
    return {
        "suite": name,
        "source": "samples",
        "logs": logs,
        "window_s": window_s,
        "start_ms": t0,
        "labels": labels_json,
        "dashboard": [row.as_json() for row in dashboard],
        "apdex_thresholds": apdex.as_json(),
        **dashboard_errors(store, groups),
        "littles_law": _littles_json(little),
        "findings": [f.as_json() for f in findings],
    }


def summariser_count(store: Store, suite_id: int, jtl_samples: int) -> int:
    """The samples of a JTL suite that JMeter's summariser counts: ``jtl_samples`` (ALL:
    transaction samples out) less the rows of :func:`transaction_children`, plus the
    transaction rows without JMeter's "Number of samples in transaction" message (an
    interrupted transaction, which the summariser's test cannot tell from a sample)."""
    controllers, unrecognised = store.con.execute(
        """SELECT count(*), count(*) FILTER (NOT starts_with(coalesce(response_message, ''), ?))
           FROM samples WHERE suite_id = ? AND is_transaction""",
        [TC_PREFIX, suite_id],
    ).fetchone() or (0, 0)
    # no controller row, no child: the window pass of transaction_children is skipped
    # (1.2 s on a 0.9M-sample real run)
    children = transaction_children(store, suite_id) if controllers else 0
    return jtl_samples - children + int(unrecognised)


def transaction_children(store: Store, suite_id: int) -> int:
    """Samples of a suite written as children of a transaction controller's parent sample
    ("Generate parent sample"): the rows that follow the controller's row in the file,
    from its thread (file order: the line, else the order rows were stored in), up to its
    "Number of samples in transaction : N", that started within it (its elapsed is the sum
    of its children's, so a child may end after it). JMeter writes them as rows (``jmeter.save.saveservice.subresults``)
    but its summariser counts only the parent (and ignores transaction samples), so a
    console log counts fewer samples than the JTL by exactly these rows."""
    row = store.con.execute(
        r"""
        WITH s AS (
            SELECT source_id, coalesce(line, rowid) AS line, thread_name, start_ms, elapsed_ms,
                   is_transaction,
                   is_subresult,
                   CASE WHEN is_transaction THEN TRY_CAST(regexp_extract(response_message,
                        'Number of samples in transaction : (\d+)', 1) AS BIGINT) END AS n
            FROM samples WHERE suite_id = ?
        ), t AS (
            SELECT *,
                   last_value(CASE WHEN is_transaction THEN line END IGNORE NULLS) OVER w
                       AS tc_line,
                   last_value(CASE WHEN is_transaction THEN n END IGNORE NULLS) OVER w AS tc_n,
                   last_value(CASE WHEN is_transaction THEN start_ms END IGNORE NULLS) OVER w
                       AS tc_start,
                   last_value(CASE WHEN is_transaction THEN start_ms + elapsed_ms END
                       IGNORE NULLS) OVER w AS tc_end
            FROM s
            WINDOW w AS (PARTITION BY source_id, thread_name ORDER BY line
                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
        )
        SELECT count(*) FROM t
        WHERE NOT is_transaction AND NOT is_subresult AND tc_n > 0
          AND line - tc_line <= tc_n AND start_ms BETWEEN tc_start AND tc_end
        """,
        [suite_id],
    ).fetchone()
    return int(row[0]) if row else 0


def _run_logs(
    store: Store, suite_id: int, name: str, jtl_samples: int, findings: list[Finding]
) -> dict[str, Any] | None:
    """The ``logs`` object of a JTL suite joined with its run's console log / jmeter.log
    (:mod:`toolkit.ingest.runs`): what the log adds (summariser interval, threads started,
    its ramp-up end) and its count; a count that differs from the JTL's adds a
    ``load-log-disagrees`` finding. None without a log."""
    names = summarisers(store, suite_id)
    if not names:
        return None
    # a console and a jmeter.log of one run print the same lines: each log is read alone
    # (the first holds the figures shown), and each must agree with the JTL
    sources = [
        int(r[0])
        for r in store.con.execute(
            "SELECT DISTINCT source_id FROM load_windows WHERE suite_id = ? ORDER BY 1",
            [suite_id],
        ).fetchall()
    ]
    label: dict[str, Any] = {}
    seen_by_summariser = summariser_count(store, suite_id, jtl_samples)
    for source in reversed(sources):
        label = _summariser_label(store, suite_id, names[0], ALL, source)
        log_samples = int(label["samples"])
        # JMeter's summariser never sees the children of a transaction controller that
        # generates a parent sample (they are its sub-results), while the JTL writes them
        # as rows (saveservice.subresults): the log agrees with either count
        closer = min((jtl_samples, seen_by_summariser), key=lambda n: abs(n - log_samples))
        findings += log_disagreement_findings(
            name, jtl_samples=closer, log_samples=log_samples, summariser=names[0]
        )
    frame = summariser_windows(store, suite_id, names[0], timed_only=True, source_id=sources[0])
    started = store.con.execute(
        "SELECT max(started) FROM load_windows WHERE suite_id = ? AND name = ? AND source_id = ?",
        [suite_id, names[0], sources[0]],
    ).fetchone()
    return {
        "summariser": names[0],
        "samples": label["samples"],
        "interval_s": summary_interval(frame["seconds"].to_numpy()) if frame.height else None,
        "threads_started": None if started is None or started[0] is None else int(started[0]),
        "rampup_end_s": label["rampup_end_s"],
    }


def _littles_json(little: LittlesLaw | None) -> dict[str, Any] | None:
    """The ``littles_law`` object of ``--json``."""
    if little is None:
        return None
    return {
        "threads": little.threads,
        "throughput": little.throughput,
        "latency_s": little.latency_s,
        "busy_fraction": little.busy_fraction,
        "think_s": little.think_s,
        "verdict": little.verdict,
    }


def _summary_suite(store: Store, suite_id: int, name: str) -> dict[str, Any]:
    """A summariser-log suite: ALL from its main summariser, a label per other summariser
    (pipeline/summariser.py: summarisers overlap, so they are never added up)."""
    names = summarisers(store, suite_id)
    labels = [
        _summariser_label(
            store, suite_id, s, ALL if i == 0 else s if s != ALL else f"{s} (summariser)"
        )
        for i, s in enumerate(names or [DEFAULT_SUMMARISER])
    ]
    findings = []
    if len(names) > 1:
        findings.append(several_summarisers_finding(name, names).as_json())
    findings += summary_suite_findings(
        store, suite_id, name, names[0] if names else None, labels[0]
    )
    # Little's law on ALL's steady windows: N their mean Active:, X the steady rate, R
    # their count-weighted mean Avg; the tolerance is the steady rate CI's (the mean of
    # thousands of samples per window barely varies), at least 2 %
    all_ = labels[0]
    tp = all_["throughput"]
    ci = tp["steady_ci"]
    rel = (ci[1] - ci[0]) / 2 / tp["steady"] if ci is not None and tp["steady"] else 0.0
    little = littles_law(
        name,
        threads=all_["threads_steady"],
        throughput=tp["steady"],
        latency_ms=(all_["latency_ms"]["steady"] or {}).get("mean"),
        tolerance=max(0.02, rel),
    )
    if little is not None and little.finding is not None:
        findings.append(little.finding.as_json())
    return {
        "suite": name,
        "source": "summariser",
        "window_s": None,
        "start_ms": None,
        "labels": labels,
        "dashboard": [],
        "dashboard_errors": [],
        "dashboard_top_errors": [],
        "littles_law": _littles_json(little),
        "findings": findings,
    }


#: the summariser's Avg:/Min:/Max: step (whole ms): a mean below it is shown as "< 1"
SUMMARY_AVG_RESOLUTION_MS = 1.0


def _summariser_label(
    store: Store, suite_id: int, summariser: str, label: str, source_id: int | None = None
) -> dict[str, Any]:
    frame = summariser_windows(store, suite_id, summariser, source_id=source_id)
    counts = frame["count"].to_numpy() if frame.height else np.zeros(0)
    seconds = frame["seconds"].to_numpy() if frame.height else np.zeros(0)
    threads = frame["active_threads"].to_numpy() if frame.height else None
    # stepped thread counts (an Ultimate Thread Group's 10→20→40) are no ramp-up
    stepped = bool(summary_steps(summary_window_series(frame.filter(pl.col("seconds") > 0))))
    result = analyze_summary_windows(counts, seconds, threads=threads, stepped=stepped)
    total = int(counts.sum()) if counts.size else 0
    # Avg: is whole ms, truncated (a long sum ÷ count): each window's mean lies in [Avg,
    # Avg + 1), so the count-weighted mean + 0.5 ms is the estimate (real
    # pg_point_lookup_10t_60s: 0.899 ms read as printed, 1.399 so, 1.418 in its JTL)
    mean = float((frame["avg_ms"].to_numpy() * counts).sum() / total) + 0.5 if total else None
    max_ms = frame["max_ms"].cast(pl.Float64).max() if total else None
    min_ms = frame["min_ms"].cast(pl.Float64).min() if total else None
    overall = {**_empty_latency(), "mean": mean, "min": min_ms, "max": max_ms}
    steady = None
    w = result.warmup
    if w.status in STEADY_STATUSES and w.end_window is not None and total:
        kept = frame.filter(pl.col("seconds") > 0)
        stop = result.cooldown_window if result.cooldown_window is not None else kept.height
        keep = kept.slice(w.end_window, stop - w.end_window)
        n = int(keep["count"].sum())
        weighted = float((keep["avg_ms"] * keep["count"]).sum())
        steady = {
            **_empty_latency(),
            "mean": weighted / n + 0.5 if n else None,
            "min": keep["min_ms"].cast(pl.Float64).min() if n else None,
            "max": keep["max_ms"].cast(pl.Float64).max() if n else None,
        }
    return {
        "label": label,
        "summariser": summariser,
        "samples": total,
        "errors": int(frame["errors"].sum()) if frame.height else 0,
        "error_rate": (int(frame["errors"].sum()) / total) if total else None,
        "duration_s": float(seconds.sum()) if seconds.size else None,
        "warmup_end_s": w.end_s,
        "warmup_status": w.status,
        "warmup_rule": w.decided_by,
        "steady_window": (
            {
                "from_s": w.end_s or 0.0,
                "to_s": result.cooldown_s
                if result.cooldown_s is not None
                else float(seconds.sum()),
                "source": "detected",
            }
            if steady is not None
            else None
        ),
        "cooldown_start_s": result.cooldown_s,
        "rampup_end_s": result.rampup_s,
        "is_transaction": False,
        "throughput": {
            "overall": result.throughput_overall,
            "steady": result.throughput_steady.mean if result.throughput_steady else None,
            "steady_ci": _ci(result.throughput_steady),
        },
        "latency_ms": {
            "overall": overall,
            "steady": steady,
            "steady_mean_ci": None,
            "resolution_ms": SUMMARY_AVG_RESOLUTION_MS,
        },
        "apdex": None,
        "threads_steady": result.threads_steady,
    }


@_fenced
def load_report(
    store: Store,
    suites: list[str] | None = None,
    *,
    window_s: float = 1.0,
    apdex: ApdexThresholds = DEFAULT_APDEX,
    steady_from_s: float | None = None,
    steady_to_s: float | None = None,
) -> dict[str, Any]:
    """The ``warmup load --json`` payload: ``{"suites": [...]}`` for every load suite
    (or the named ones); ``apdex``: the APDEX thresholds (:class:`ApdexThresholds`).
    ``steady_from_s``/``steady_to_s`` (``--steady-from``/``--steady-to``, seconds from
    each suite's first sample start): every label's steady figures over the whole windows
    inside them, whatever the detected warm-up end (``steady_window.source`` ``user``)."""
    check_window_s(window_s)
    check_steady_bounds(steady_from_s, steady_to_s)
    ids = store.suite_ids(suites, kind="load")
    names = dict(
        store.con.execute("SELECT suite_id, name FROM suites WHERE kind = 'load'").fetchall()
    )
    if not ids:
        raise UsageError(
            "no load-test suites (JMeter JTL or summariser log) in the input"
            + store.suites_elsewhere("load")
        )
    analysed = [
        analyze_load_suite(
            store,
            i,
            names[i],
            window_s=window_s,
            apdex=apdex,
            steady_from_s=steady_from_s,
            steady_to_s=steady_to_s,
        )
        for i in ids
    ]
    # the findings engine's load family of these suites, ranked (schemas/load.schema.json)
    found = [named(f) for f in load_family_findings(analysed, JMETER_STATISTIC_WINDOW)]
    return {
        "window_s": window_s,
        "suites": analysed,
        "findings": [f.as_json() for f in rank_findings(found)],
    }


def _steady_series(
    store: Store, suite_id: int, suite: dict[str, Any], label: str, *, overall: bool = False
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None:
    """Per-window throughput (/s) and mean latency (ms) of ``label`` over its
    ``steady_window`` (after the warm-up end and before a cool-down, or the user's
    ``--steady-from``/``--steady-to``); with ``overall``, over every full window of the
    label instead (compare's fallback for a run without a steady state)."""
    entry = next((x for x in suite["labels"] if x["label"] == label), None)
    if entry is None or (entry.get("steady_window") is None and not overall):
        return None
    if suite["source"] == "summariser":
        frame = summariser_windows(store, suite_id, entry["summariser"], timed_only=True)
        if overall:
            part = frame
        else:
            # window boundaries in seconds: the warm-up end and cool-down start are sums of
            # whole windows' seconds (analyze_summary_windows)
            cum = np.cumsum(frame["seconds"].to_numpy())
            end, stop = 0, frame.height
            if entry["warmup_end_s"]:
                end = int(np.searchsorted(cum, entry["warmup_end_s"], side="left")) + 1
            if entry.get("cooldown_start_s") is not None:
                stop = int(np.searchsorted(cum, entry["cooldown_start_s"], side="left")) + 1
            part = frame.slice(end, stop - end)
        return (
            (part["count"] / part["seconds"]).to_numpy(),
            part["avg_ms"].to_numpy(),
        )
    window_s = float(suite["window_s"])
    window_ms = max(1, round(window_s * 1000))
    frame = _windows(store, suite_id, int(suite["start_ms"]), window_ms, by_label=label != ALL)
    if label != ALL:
        frame = frame.filter(pl.col("label") == label)
    if frame.height < 2:
        return None
    first, last = int(frame["w"].min()), int(frame["w"].max())  # type: ignore[arg-type]
    n = np.zeros(last - first + 1)
    mean_ms = np.full(last - first + 1, np.nan)
    idx = frame["w"].to_numpy().astype(np.int64) - first
    n[idx] = frame["n"].to_numpy()
    mean_ms[idx] = frame["mean_ms"].to_numpy()
    # the label's first and last windows are partial, as in analyze_windows
    start, stop = 1, n.size - 1
    if not overall:
        window = entry["steady_window"]
        start = max(1, round(window["from_s"] / window_s) - first)
        stop = min(stop, round(window["to_s"] / window_s) - first)
    return n[start:stop] / window_s, mean_ms[start:stop]


def _overall_window(
    store: Store, suite_id: int, suite: dict[str, Any], label: str
) -> dict[str, Any]:
    """``steady_window`` of compare's overall fallback: every full window of ``label``."""
    if suite["source"] == "summariser":
        entry = next(x for x in suite["labels"] if x["label"] == label)
        return {"from_s": 0.0, "to_s": entry["duration_s"], "source": "overall"}
    window_s = float(suite["window_s"])
    window_ms = max(1, round(window_s * 1000))
    frame = _windows(store, suite_id, int(suite["start_ms"]), window_ms, by_label=label != ALL)
    if label != ALL:
        frame = frame.filter(pl.col("label") == label)
    first, last = int(frame["w"].min()), int(frame["w"].max())  # type: ignore[arg-type]
    return {
        "from_s": round((first + 1) * window_s, 6),
        "to_s": round(last * window_s, 6),
        "source": "overall",
    }


@_fenced
def compare_report(
    store: Store,
    a: str,
    b: str,
    *,
    window_s: float = 1.0,
    level: float = 0.95,
    steady_from_s: float | None = None,
    steady_to_s: float | None = None,
    analysed: Mapping[int, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The ``warmup compare --json`` payload: throughput and mean-latency ratios B/A with
    Fieller CIs over batch means of the windows compared (research/warmup-science.md
    §4.2, §8.14), and the error rates (fractions of all samples) with their difference
    B − A, for ALL and every label present in both suites.

    The windows compared are each label's ``steady_window``: after its warm-up end
    (``detected``) or ``steady_from_s``–``steady_to_s`` (``--steady-from``/
    ``--steady-to``, ``user``). Where A or B has none (no steady state), both sides are
    compared over every full window (``overall``: the warm-up included), with a note
    that says so; each row's ``steady_window`` names the windows used and why.
    ``analysed``: suite id -> :func:`analyze_load_suite` of that suite with the same window
    and steady bounds (``load_report``'s suites), not computed again when given."""
    check_window_s(window_s)
    if a == b:
        raise UsageError(f"A and B are both suite {a!r}: compare two different suites")
    from toolkit.analyze.compare import fieller_ratio
    from toolkit.analyze.timeseries import batch_means

    ids = store.suite_ids([a, b], kind="load")
    suites = [
        (analysed or {}).get(i)
        or analyze_load_suite(
            store, i, n, window_s=window_s, steady_from_s=steady_from_s, steady_to_s=steady_to_s
        )
        for i, n in zip(ids, (a, b), strict=True)
    ]
    labels_a = {x["label"] for x in suites[0]["labels"]}
    common = [x["label"] for x in suites[1]["labels"] if x["label"] in labels_a]
    rows = []
    overall_labels = []
    for label in common:
        la = next(x for x in suites[0]["labels"] if x["label"] == label)
        lb = next(x for x in suites[1]["labels"] if x["label"] == label)
        sa = _steady_series(store, ids[0], suites[0], label)
        sb = _steady_series(store, ids[1], suites[1], label)
        steady = sa is not None and sb is not None
        windows = [la.get("steady_window"), lb.get("steady_window")]
        basis = "steady"
        if not steady:
            # no steady state on one side: the overall figures, both sides alike
            basis = "overall"
            overall_labels.append(label)
            sa = _steady_series(store, ids[0], suites[0], label, overall=True)
            sb = _steady_series(store, ids[1], suites[1], label, overall=True)
            windows = [
                _overall_window(store, i, suite, label)
                for i, suite in zip(ids, suites, strict=True)
            ]
        row: dict[str, Any] = {
            "label": label,
            "steady": steady,
            "basis": basis,
            "steady_window": {"a": windows[0], "b": windows[1]},
        }
        for key, pos in (("throughput", 0), ("latency_mean_ms", 1)):
            if basis == "steady":
                va = la["throughput"]["steady"] if pos == 0 else _mean_ms(la, "steady")
                vb = lb["throughput"]["steady"] if pos == 0 else _mean_ms(lb, "steady")
            else:
                va = la["throughput"]["overall"] if pos == 0 else _mean_ms(la, "overall")
                vb = lb["throughput"]["overall"] if pos == 0 else _mean_ms(lb, "overall")
            ci = None
            if sa is not None and sb is not None:
                ci = fieller_ratio(batch_means(sb[pos]), batch_means(sa[pos]), level=level)
            row[key] = {
                "a": va,
                "b": vb,
                "ratio": (vb / va) if va and vb is not None else None,
                "ci": [ci.lo, ci.hi] if ci is not None and ci.lo is not None else None,
            }
        # errors over every sample of each run, no interval: failures come in bursts (an
        # outage fails hundreds of samples at once), so a binomial CI would be too narrow
        ea, eb = la["error_rate"], lb["error_rate"]
        row["error_rate"] = {
            "a": ea,
            "b": eb,
            "difference": eb - ea if ea is not None and eb is not None else None,
        }
        part = "steady" if basis == "steady" else "overall"
        for p in ("p50", "p99"):
            pa_ = (la["latency_ms"][part] or {}).get(p)
            pb_ = (lb["latency_ms"][part] or {}).get(p)
            row[f"latency_{p}_ms"] = {
                "a": pa_,
                "b": pb_,
                "ratio": (pb_ / pa_) if pa_ and pb_ is not None else None,
            }
        rows.append(row)
    notes = []
    for name, suite in zip((a, b), suites, strict=True):
        all_ = suite["labels"][0]
        if all_.get("steady_window") is None:
            rule = all_.get("warmup_rule")
            notes.append(
                f"{name}: no steady state ({all_['warmup_status']}"
                + (f", by the {rule} rule" if rule else "")
                + "): the ratios compare the overall figures of every full window, warm-up "
                "included, so they mix warm-up and steady behaviour; set the steady part "
                "with --steady-from/--steady-to, or run longer"
            )
    if overall_labels and not notes:
        notes.append(
            "compared over every full window (no steady state in A or B): "
            + ", ".join(overall_labels)
        )
    labels_b = {x["label"] for x in suites[1]["labels"]}
    only = [
        f"only in {name}: {', '.join(sorted(labels - other - {ALL}))}"
        for name, labels, other in ((a, labels_a, labels_b), (b, labels_b, labels_a))
        if labels - other - {ALL}
    ]
    if only:
        notes.append("labels differ (" + "; ".join(only) + "); compared: " + ", ".join(common))
    payload: dict[str, Any] = {
        "a": a,
        "b": b,
        "level": level,
        "steady_from_s": steady_from_s,
        "steady_to_s": steady_to_s,
        "labels": rows,
        "notes": notes,
    }
    found = rank_findings([named(f) for f in compare_findings(payload)])
    payload["findings"] = [f.as_json() for f in found]
    return payload


def _mean_ms(entry: dict[str, Any], part: str) -> float | None:
    """A label's mean latency (ms) over its ``steady`` part or ``overall``."""
    value = (entry["latency_ms"][part] or {}).get("mean")
    return float(value) if value is not None else None


#: JMeter's error type of a failed sample (``ErrorsSummaryConsumer.getErrorKey``, JMeter
#: 5.5; analyze/jmeter_errors.py), null for a sample that did not fail
_ERROR_TYPE = f"""CASE
    WHEN success IS DISTINCT FROM false THEN NULL
    WHEN (regexp_full_match(coalesce(response_code, ''), '[0-9]+')
          AND coalesce(TRY_CAST(response_code AS BIGINT) BETWEEN 200 AND 399, false))
      OR (coalesce(response_code, '') = '' AND regexp_matches(coalesce(failure_message, ''), '\\S'))
    THEN CASE WHEN regexp_matches(coalesce(failure_message, ''), '\\S') THEN failure_message
              ELSE '{ASSERTION_FAILED}' END
    ELSE coalesce(response_code, '')
         || CASE WHEN coalesce(response_message, '') <> '' THEN '/' || response_message ELSE '' END
    END"""


def dashboard_errors(store: Store, groups: str) -> dict[str, list[dict[str, object]]]:
    """JMeter's dashboard Errors and Top 5 Errors by sampler tables of a sample suite's
    :func:`sample_groups` table, as the ``dashboard_errors`` and ``dashboard_top_errors``
    keys of ``--json`` (:func:`toolkit.analyze.jmeter_errors.error_tables`;
    transaction-controller samples left out by JMeter's own test, §4.4)."""
    counts = store.frame(
        f"""SELECT label, type, sum(n)::BIGINT AS n FROM {groups}
            WHERE NOT jmeter_tc GROUP BY ALL"""
    )
    types, samplers = error_tables(counts)
    return {
        "dashboard_errors": [t.as_json() for t in types],
        "dashboard_top_errors": [s.as_json() for s in samplers],
    }


def load_suite_name(store: Store, name: str) -> str:
    """A load suite's name from its name, or from the path or file name it was read from.

    Raises :class:`UsageError` listing the load suites when nothing matches."""
    rows = store.con.execute(
        """SELECT s.name, src.path FROM suites s
           LEFT JOIN suite_sources ss USING (suite_id) LEFT JOIN sources src USING (source_id)
           WHERE s.kind = 'load' ORDER BY s.suite_id"""
    ).fetchall()
    names = list(dict.fromkeys(str(r[0]) for r in rows))
    if name in names:
        return name
    wanted = PurePath(name)
    for suite, path in rows:
        if path is None:
            continue
        stored = PurePath(path)
        if str(stored) == name or (len(wanted.parts) == 1 and stored.name == name):
            return str(suite)
        try:
            if Path(name).resolve() == Path(path):
                return str(suite)
        except OSError:
            continue
    known = ", ".join(names) or "none"
    raise UsageError(f"--compare: no load suite or input file {name!r}; load suites: {known}")


def split_compare_pair(store: Store, text: str) -> tuple[str, str]:
    """``A,B`` → (A, B). With several commas, the split whose both halves name load
    suites (or their input files) wins, so names that hold commas work."""
    cuts = [i for i, c in enumerate(text) if c == ","]
    if not cuts:
        raise UsageError(f"--compare {text!r}: expected two load tests as A,B")
    if len(cuts) > 1:
        for i in cuts:
            try:
                load_suite_name(store, text[:i].strip())
                load_suite_name(store, text[i + 1 :].strip())
            except UsageError:
                continue
            return text[:i].strip(), text[i + 1 :].strip()
    return text[: cuts[0]].strip(), text[cuts[0] + 1 :].strip()


def compare_pairs(store: Store, requested: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """The load-suite pairs (A, B) to compare: ``requested`` (names or input files, as
    ``warmup report --compare``), else the two load tests read from JTLs when there are
    exactly two, else the two summariser logs when they are the only load suites and
    there are two (A = the one read first). A JTL and a JMeter log are never paired on
    their own: the log is most often the same run's console, not a second test."""
    if requested:
        return [(load_suite_name(store, a), load_suite_name(store, b)) for a, b in requested]
    # IN a DISTINCT: a correlated EXISTS joined every sample (0.7 s of CPU for 10M rows)
    rows = store.con.execute(
        """SELECT name, suite_id IN (SELECT DISTINCT suite_id FROM samples)
           FROM suites WHERE kind = 'load' ORDER BY suite_id"""
    ).fetchall()
    # a JMeter log beside each JTL makes a second suite of the same run: pair the JTLs
    with_samples = [str(name) for name, has in rows if has]
    logs = [str(name) for name, has in rows if not has]
    names = with_samples if with_samples else logs
    return [(names[0], names[1])] if len(names) == 2 else []


def labels_frame(payload: Mapping[str, Any]) -> pl.DataFrame:
    """The labels of a ``warmup load --json`` payload (:func:`load_report`) as a frame, one
    row per suite and label (ALL first in each suite): samples, errors, error rate,
    warm-up class and end (s), throughput overall and steady with its CI (samples/s),
    latency percentiles overall (ms) and APDEX."""
    schema = {
        "suite": pl.String,
        "label": pl.String,
        "samples": pl.Int64,
        "errors": pl.Int64,
        "error_rate": pl.Float64,
        "warmup_status": pl.String,
        "warmup_end_s": pl.Float64,
        "throughput_overall": pl.Float64,
        "throughput_steady": pl.Float64,
        "throughput_steady_ci_lo": pl.Float64,
        "throughput_steady_ci_hi": pl.Float64,
        "latency_mean_ms": pl.Float64,
        "latency_p50_ms": pl.Float64,
        "latency_p95_ms": pl.Float64,
        "latency_p99_ms": pl.Float64,
        "apdex": pl.Float64,
    }
    rows = []
    for suite in payload["suites"]:
        for label in suite["labels"]:
            qps = label["throughput"]
            ci = qps.get("steady_ci") or (None, None)
            overall = (label.get("latency_ms") or {}).get("overall") or {}
            apdex = label.get("apdex")
            rows.append(
                (
                    suite["suite"],
                    label["label"],
                    label["samples"],
                    label["errors"],
                    label["error_rate"],
                    label["warmup_status"],
                    label["warmup_end_s"],
                    qps.get("overall"),
                    qps.get("steady"),
                    ci[0],
                    ci[1],
                    overall.get("mean"),
                    overall.get("p50"),
                    overall.get("p95"),
                    overall.get("p99"),
                    apdex.get("score") if isinstance(apdex, Mapping) else apdex,
                )
            )
    return pl.DataFrame(rows, schema=schema, orient="row")


# -- JMeter dashboard charts (issue 19 item 4) --------------------------------------------

#: Percentiles of JMeter's "Response Time Percentiles" curve: 0 to 100 in steps of 1.
CURVE_PERCENTILES = tuple(float(p) for p in range(101))
#: Bars of a response-time distribution at most: the bar width grows in 1-2-5 steps of ms.
MAX_DISTRIBUTION_BARS = 100


def distribution_width_ms(max_ms: float) -> int:
    """Bar width (ms) of a response-time distribution up to ``max_ms``: the smallest 1, 2 or
    5 x 10^n ms (at least 1 ms, the JTL's resolution) that keeps at most
    :data:`MAX_DISTRIBUTION_BARS` bars (JMeter's own chart has a fixed 100 ms, which puts
    every sample of a 2 ms test in one bar)."""
    need = max(max_ms + 1, 1.0) / MAX_DISTRIBUTION_BARS
    exp = 0
    while True:
        for mant in (1, 2, 5):
            width = int(mant * 10**exp)
            if width >= need:
                return width
        exp += 1


@_fenced
def dashboard_charts(
    store: Store, suite_id: int, *, window_s: float, labels: Sequence[str]
) -> dict[str, Any]:
    """The aggregates of JMeter's dashboard charts for one JTL suite (research/jmeter.md §4):
    computed in SQL, so only per-window and per-value rows reach Python.

    Suite level, over ALL's samples (no transaction controller, no sub-result), per window
    ``w`` of ``window_s`` s by completion time from the first sample start (as
    :func:`window_series`): ``codes`` (samples per s by response code, "Response Codes Per
    Second"), ``received_bytes_per_s`` and ``sent_bytes_per_s`` ("Bytes Throughput Over
    Time"). Per label in ``labels`` (``ALL`` = ALL's samples): ``latency_ms`` and
    ``connect_ms`` per window (means; null where the label completed nothing: "Latencies
    Over Time", "Connect Time Over Time"), ``distribution`` (bars of ``width_ms`` from
    ``start_ms``, sample counts: "Response Time Distribution"), ``percentiles`` (elapsed ms
    at :data:`CURVE_PERCENTILES`, commons-math LEGACY as every percentile here: "Response
    Time Percentiles") and ``vs_threads`` (mean elapsed ms per active-thread count,
    allThreads else grpThreads: "Time Vs Threads"; empty without thread counts).
    ``t_s``: every window's start in s, from the first to the one holding the last
    completion (the last is partial)."""
    from toolkit.analyze.timeseries import legacy_percentile

    window_ms = max(1, round(window_s * 1000))
    empty: dict[str, Any] = {"window_s": window_s, "t_s": [], "codes": {}, "labels": {}}
    with chart_groups(store, suite_id, window_ms) as groups:
        if groups is None:
            return empty
        every, _ = groups.series([ALL])
        suite = store.frame(
            f"""SELECT w, code, sum(n)::BIGINT AS n,
                       coalesce(sum(bytes), 0)::DOUBLE AS received,
                       coalesce(sum(sent_bytes), 0)::DOUBLE AS sent
                FROM {every} GROUP BY w, code"""
        )
        if suite.height == 0:
            return empty
        # ALL's groups and each chosen label's, tagged with the name they are shown under
        tagged, params = groups.series(labels)
        over_time = store.frame(
            f"""SELECT series, w,
                       sum(latency_sum)::DOUBLE / sum(latency_n) AS latency_ms,
                       sum(connect_sum)::DOUBLE / sum(connect_n) AS connect_ms
                FROM {tagged} GROUP BY ALL ORDER BY ALL""",
            params,
        )
        values = store.frame(
            f"""SELECT series, elapsed_ms, sum(n)::BIGINT AS n FROM {tagged}
                GROUP BY ALL ORDER BY series, elapsed_ms""",
            params,
        )
        threads = store.frame(
            f"""SELECT series, threads,
                       sum(elapsed_ms::HUGEINT * n)::DOUBLE / sum(n) AS mean_ms,
                       sum(n)::BIGINT AS n
                FROM {tagged} WHERE threads IS NOT NULL
                GROUP BY ALL ORDER BY series, threads""",
            params,
        )
    # a chosen label outside ALL (a sub-result's) may complete after ALL's last window
    ws = pl.concat([suite["w"], over_time["w"]])
    first_w = min(0, int(ws.min()))  # type: ignore[arg-type]
    last_w = int(ws.max())  # type: ignore[arg-type]
    n_windows = last_w - first_w + 1

    def per_window(ws: pl.Series, values: pl.Series, fill: float | None) -> list[float | None]:
        out: list[float | None] = [fill] * n_windows
        for w, v in zip(ws.to_list(), values.to_list(), strict=True):
            out[w - first_w] = v
        return out

    totals = suite.group_by("w").agg(pl.col("received").sum(), pl.col("sent").sum())
    codes = {
        str(code): per_window(part["w"], part["n"] / window_s, 0.0)
        for (code,), part in suite.sort("code").group_by("code", maintain_order=True)
    }
    per_label: dict[str, Any] = {}
    for label in labels:
        times = over_time.filter(pl.col("series") == label)
        hist = values.filter(pl.col("series") == label)
        vt = threads.filter(pl.col("series") == label)
        v = hist["elapsed_ms"].to_numpy().astype(np.float64)
        c = hist["n"].to_numpy()
        if len(v):
            width = distribution_width_ms(float(v[-1]))
            start = int(v[0] // width) * width
            bars = np.bincount(((v - start) // width).astype(np.int64), weights=c)
            distribution = {
                "width_ms": width,
                "start_ms": [start + i * width for i in range(len(bars))],
                "count": [int(x) for x in bars],
            }
            curve = [legacy_percentile(v, c, p) for p in CURVE_PERCENTILES]
        else:
            distribution = {"width_ms": 1, "start_ms": [], "count": []}
            curve = []
        per_label[label] = {
            "latency_ms": per_window(times["w"], times["latency_ms"], None),
            "connect_ms": per_window(times["w"], times["connect_ms"], None),
            "distribution": distribution,
            "percentiles": {"p": list(CURVE_PERCENTILES), "ms": curve},
            "vs_threads": {
                "threads": vt["threads"].cast(pl.Float64).to_list(),
                "mean_ms": vt["mean_ms"].to_list(),
                "samples": vt["n"].to_list(),
            },
        }
    return {
        "window_s": window_s,
        "t_s": [(first_w + i) * window_ms / 1000.0 for i in range(n_windows)],
        "codes": codes,
        "received_bytes_per_s": [
            None if x is None else x / window_s
            for x in per_window(totals["w"], totals["received"], 0.0)
        ],
        "sent_bytes_per_s": [
            None if x is None else x / window_s
            for x in per_window(totals["w"], totals["sent"], 0.0)
        ],
        "labels": per_label,
    }
