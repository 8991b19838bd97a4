"""Every iteration series of the store as compact columns: the trajectories' report-data.

One flat array of run times with per-series and per-process counts instead of an object per
point, and every string (suite, system, query, class) once in a shared table, so the
report grows by a few bytes per run (issue 19 §7: 2,000 ClickBench results ≤ 8 MB).
``report.js`` draws the small multiples from these arrays; :func:`decode_series` is the
same decoding in Python (tests, tools).

Layout (``layout: "columns-2"``), ``S`` series in suite/query order, ``B`` process blocks:

- ``strings``: the shared strings; ``-1`` where a string index means "none";
- ``query_lists``: the distinct lists of a suite's queries, each once (``query``: string
  indexes, ``query_index``: ints; ClickBench: every suite has the same 43);
- ``suites``: ``suite_id``, ``name``, ``system`` (string indexes), ``queries`` (the index
  of the suite's query list: its series are that list's queries, consecutive) and
  ``resolution`` (the timer's resolution in s: the format's, e.g. ClickBench 1 ms, else
  the smallest step between the suite's run times; 0 = unknown), one entry per suite; the
  panels draw a 0 s run at the resolution;
- ``classes`` (string indexes: the class names, each once) and ``class``: per series its
  class code, an index into ``classes`` (``-1``: none);
- ``window`` (the benchmark window k) and ``reference``/``gap``: the gap table's reference
  (s) and the window's gap against it (a fraction) are what :func:`derived_gap` computes
  from a series' first process (min of its hot runs; min of hot runs 1..k over it, − 1);
  ``reference`` (``series``, ``seconds``) and ``gap`` (``series``, ``gap``) list only the
  series where the gap table says otherwise (a reference other than min-all, fewer hot
  runs than k), to 4 and 3 significant digits (null: none);
- ``blocks`` (processes per series), ``process`` and ``runs`` (runs per process): a list,
  or one integer when every entry is equal (ClickBench: 1 process of 3 runs);
- ``iteration``: present only when a process's iterations are not 0, 1, 2, …;
- ``seconds``: every run time in s, block after block (null: a failed run);
- ``steady`` (``series``, ``seconds``, ``lo``, ``hi``, ``iteration``), ``changepoints``
  (``series``, ``iteration``), ``spikes`` (``series``, ``iteration``, ``seconds``): sparse,
  one entry per series that has one.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

LAYOUT = "columns-2"


@dataclass(frozen=True)
class SeriesColumns:
    """The runs of every (suite, query) series in one pass over the iteration frame."""

    keys: list[tuple[int, str]]  # (suite_id, query) per series
    suite: list[str]
    system: list[str | None]
    query_index: list[int]
    block_series: list[int]  # series index of each process block
    block_process: list[int]
    block_start: list[int]  # offset of the block's first run in ``seconds``
    block_runs: list[int]
    iteration: list[int]
    seconds: list[float | None]

    def runs_of(self, n: int) -> list[tuple[int, list[tuple[int, float]]]]:
        """Series ``n`` as (process, [(iteration, seconds)]) blocks (failed runs left out)."""
        out = []
        first = bisect.bisect_left(self.block_series, n)  # blocks are in series order
        last = bisect.bisect_right(self.block_series, n)
        for b in range(first, last):
            lo, hi = self.block_start[b], self.block_start[b] + self.block_runs[b]
            pts = [
                (self.iteration[i], v) for i in range(lo, hi) if (v := self.seconds[i]) is not None
            ]
            out.append((self.block_process[b], pts))
        return out


def series_columns(frame: pl.DataFrame) -> SeriesColumns:
    """Columns of ``frame`` (``iteration_frame``: sorted by suite, query, process,
    iteration), found with run-length ids instead of a Python loop over groups."""
    f = frame.with_columns(
        pl.struct("suite_id", "query_index", "query").rle_id().alias("_series"),
        pl.struct("suite_id", "query_index", "query", "process").rle_id().alias("_block"),
        # JSON has no NaN: a failed run is null from here on
        pl.when(pl.col("seconds").is_nan())
        .then(None)
        .otherwise(pl.col("seconds"))
        .alias("seconds"),
    ).with_row_index("_row")
    firsts = f.group_by("_series", maintain_order=True).first().sort("_series")
    blocks = (
        f.group_by("_block", maintain_order=True)
        .agg(
            pl.col("_series").first(),
            pl.col("process").first(),
            pl.col("_row").first().alias("start"),
            pl.len().alias("runs"),
        )
        .sort("_block")
    )
    return SeriesColumns(
        keys=list(
            zip(
                (int(v) for v in firsts["suite_id"].to_list()),
                (str(v) for v in firsts["query"].to_list()),
                strict=True,
            )
        ),
        suite=[str(v) for v in firsts["suite"].to_list()],
        system=firsts["system"].to_list(),
        query_index=[int(v) for v in firsts["query_index"].to_list()],
        block_series=blocks["_series"].to_list(),
        block_process=[int(v) for v in blocks["process"].to_list()],
        block_start=blocks["start"].to_list(),
        block_runs=blocks["runs"].to_list(),
        iteration=[int(v) for v in f["iteration"].to_list()],
        seconds=f["seconds"].to_list(),
    )


#: Run times the page receives at most (~1.3 MB of report data): beyond it each process
#: block sends its first runs only (issue 21 item 3: the report's size is bounded whatever
#: the runs per series; 2,000 ClickBench results send 258,000 runs of 3 per block, whole).
MAX_PAGE_RUNS = 200_000
#: Runs a block always sends: the cold run and ClickBench's hot pair, with room to spare
#: (the score picker and the panels' warm-up start read them).
MIN_PAGE_BLOCK_RUNS = 10


def first_runs(columns: SeriesColumns, max_runs: int = MAX_PAGE_RUNS) -> tuple[SeriesColumns, int]:
    """``columns`` with each process block cut to its first ``max(MIN_PAGE_BLOCK_RUNS,
    max_runs // blocks)`` runs when it holds more than ``max_runs`` in all (else
    ``columns`` itself), and that cap (0 when nothing was cut)."""
    blocks = len(columns.block_runs)
    if len(columns.seconds) <= max_runs or not blocks:
        return columns, 0
    cap = max(MIN_PAGE_BLOCK_RUNS, max_runs // blocks)
    starts: list[int] = []
    runs: list[int] = []
    iteration: list[int] = []
    seconds: list[float | None] = []
    for start, count in zip(columns.block_start, columns.block_runs, strict=True):
        kept = min(count, cap)
        starts.append(len(seconds))
        runs.append(kept)
        iteration.extend(columns.iteration[start : start + kept])
        seconds.extend(columns.seconds[start : start + kept])
    cut = dataclasses.replace(
        columns, block_start=starts, block_runs=runs, iteration=iteration, seconds=seconds
    )
    return cut, cap


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _ints(values: Sequence[int]) -> int | list[int]:
    """One integer when every value is equal (and there is one), else the list."""
    if values and all(v == values[0] for v in values):
        return int(values[0])
    return [int(v) for v in values]


def _significant(value: float | None, digits: int) -> float | None:
    """``value`` to ``digits`` significant digits (what a panel shows), None when not
    finite; a whole number as an int (``0``, not ``0.0``)."""
    if value is None or not math.isfinite(value):
        return None
    rounded = float(f"{value:.{digits}g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded


def derived_gap(runs: dict[int, float | None], window: int) -> tuple[float | None, float | None]:
    """(reference s, gap) of one process's ``runs`` (iteration → seconds, None = failed) as
    the page derives them (``report.js``): the reference is the min of the hot runs
    (iteration ≥ 1; min-all, :func:`toolkit.analyze.gaps.series_gaps`), the gap the min of
    hot runs 1..``window`` over it, − 1 (None when one of them failed or the reference is
    0 s or unknown)."""
    hot = [v for i, v in runs.items() if i >= 1 and v is not None]
    reference = min(hot) if hot else None
    first = [runs.get(i) for i in range(1, window + 1)]
    window_s = None if None in first or not first else min(v for v in first if v is not None)
    gap = window_s / reference - 1 if window_s is not None and reference else None
    return reference, gap


def suite_resolutions(
    columns: SeriesColumns, declared: dict[int, float] | None = None
) -> dict[int, float]:
    """The timer resolution of each suite of ``columns``, seconds: ``declared[suite_id]``
    (its format's, :data:`toolkit.analyze.resolution.FORMAT_RESOLUTION_S`) when above 0,
    else the smallest step between the suite's distinct run times
    (:func:`toolkit.analyze.resolution.series_resolution`); 0.0 when neither is known."""
    from toolkit.analyze.resolution import series_resolution

    values: dict[int, list[float]] = {}
    for b, n in enumerate(columns.block_series):
        lo = columns.block_start[b]
        runs = columns.seconds[lo : lo + columns.block_runs[b]]
        values.setdefault(columns.keys[n][0], []).extend(v for v in runs if v is not None)
    declared = declared or {}
    return {
        suite_id: declared[suite_id] if declared.get(suite_id, 0.0) > 0 else series_resolution(runs)
        for suite_id, runs in values.items()
    }


def _first_process_runs(columns: SeriesColumns, n: int) -> dict[int, float | None]:
    """Series ``n``'s first process as iteration → seconds (None: a failed run)."""
    b = bisect.bisect_left(columns.block_series, n)
    if b >= len(columns.block_series) or columns.block_series[b] != n:
        return {}
    lo = columns.block_start[b]
    hi = lo + columns.block_runs[b]
    return {columns.iteration[i]: columns.seconds[i] for i in range(lo, hi)}


def compact_series(
    columns: SeriesColumns,
    detected: Sequence[dict[str, Any]],
    resolution: dict[int, float] | None = None,
    window: int = 2,
) -> dict[str, Any]:
    """The report-data of every series: ``columns``' runs and, for the series in
    ``detected`` (dicts with ``n``, ``class``, ``steady_s``, ``steady_ci``,
    ``steady_iteration``, ``changepoints``, ``spikes``, ``reference_s``, ``window_gap``),
    the warm-up engine's verdict and the gap table's reference and gap of the benchmark
    window of ``window`` hot runs (where :func:`derived_gap` does not give them);
    ``resolution``: seconds per suite id (:func:`suite_resolutions`; missing = 0)."""
    strings: list[str] = []
    index: dict[str, int] = {}

    def ref(text: str | None) -> int:
        if text is None:
            return -1
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    suite_ids: list[int] = []
    names: list[int] = []
    systems: list[int] = []
    resolutions: list[float] = []
    # each suite's (query, query_index) list, the distinct lists once (issue 19 §7: a name
    # and index per series were ~1 MB of a 2,000-result report)
    suite_queries: list[list[tuple[str, int]]] = []
    for (suite_id, query), suite, system, query_index in zip(
        columns.keys, columns.suite, columns.system, columns.query_index, strict=True
    ):
        if suite_ids and suite_ids[-1] == suite_id:
            suite_queries[-1].append((query, query_index))
            continue
        suite_ids.append(suite_id)
        resolutions.append((resolution or {}).get(suite_id, 0.0))
        names.append(ref(suite))
        systems.append(ref(system))
        suite_queries.append([(query, query_index)])
    list_of: dict[tuple[tuple[str, int], ...], int] = {}
    query_list: list[int] = []
    for queries in suite_queries:
        query_list.append(list_of.setdefault(tuple(queries), len(list_of)))
    query_lists: dict[str, list[list[int]]] = {
        "query": [[ref(q) for q, _ in queries] for queries in list_of],
        "query_index": [[i for _, i in queries] for queries in list_of],
    }
    class_codes = [-1] * len(columns.keys)
    class_names: list[int] = []  # string indexes, in order of first use
    references: dict[str, list[Any]] = {"series": [], "seconds": []}
    gaps: dict[str, list[Any]] = {"series": [], "gap": []}
    steady: dict[str, list[Any]] = {k: [] for k in ("series", "seconds", "lo", "hi", "iteration")}
    changepoints: dict[str, list[int]] = {"series": [], "iteration": []}
    spikes: dict[str, list[Any]] = {"series": [], "iteration": [], "seconds": []}
    for d in sorted(detected, key=lambda d: int(d["n"])):
        n = int(d["n"])
        if d["class"] is not None:
            name = ref(d["class"])
            if name not in class_names:
                class_names.append(name)
            class_codes[n] = class_names.index(name)
        if d["steady_s"] is not None or d["steady_iteration"] is not None:
            ci = d["steady_ci"] or (None, None)
            steady["series"].append(n)
            steady["seconds"].append(_finite(d["steady_s"]))
            steady["lo"].append(_finite(ci[0]))
            steady["hi"].append(_finite(ci[1]))
            steady["iteration"].append(d["steady_iteration"])
        for c in d["changepoints"]:
            changepoints["series"].append(n)
            changepoints["iteration"].append(int(c))
        for it, v in d["spikes"]:
            spikes["series"].append(n)
            spikes["iteration"].append(int(it))
            spikes["seconds"].append(_finite(float(v)))
    # the page derives reference and gap from the runs; only where the gap table says
    # otherwise (or has no row) are they sent
    told_by_series = {int(d["n"]): d for d in detected}
    for n in range(len(columns.keys)):
        told = told_by_series.get(n, {})
        reference, gap = derived_gap(_first_process_runs(columns, n), window)
        if _significant(reference, 4) != (value := _significant(told.get("reference_s"), 4)):
            references["series"].append(n)
            references["seconds"].append(value)
        if _significant(gap, 3) != (value := _significant(told.get("window_gap"), 3)):
            gaps["series"].append(n)
            gaps["gap"].append(value)
    blocks_per_series = [0] * len(columns.keys)
    for s in columns.block_series:
        blocks_per_series[s] += 1
    payload: dict[str, Any] = {
        "layout": LAYOUT,
        "strings": strings,
        "query_lists": query_lists,
        "suites": {
            "suite_id": suite_ids,
            "name": names,
            "system": systems,
            "queries": query_list,
            "resolution": resolutions,
        },
        "classes": class_names,
        "class": class_codes,
        "window": window,
        "reference": references,
        "gap": gaps,
        "blocks": _ints(blocks_per_series),
        "process": _ints(columns.block_process),
        "runs": _ints(columns.block_runs),
        "seconds": columns.seconds,
        "steady": steady,
        "changepoints": changepoints,
        "spikes": spikes,
    }
    consecutive = all(
        columns.iteration[start + i] == i
        for start, runs in zip(columns.block_start, columns.block_runs, strict=True)
        for i in range(runs)
    )
    if not consecutive:
        payload["iteration"] = columns.iteration
    return payload


def _expand(value: int | list[int], n: int) -> list[int]:
    return [value] * n if isinstance(value, int) else list(value)


def decode_series(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The series of a ``columns-2`` payload as one dict each: ``suite``, ``system``,
    ``suite_id``, ``query``, ``query_index``, ``class``, ``runs`` ([{process, iterations,
    seconds}]), ``resolution_s``, ``reference_s``, ``window_gap``, ``steady_s``,
    ``steady_ci``, ``steady_iteration``, ``changepoints``, ``spikes`` ([[iteration,
    seconds]]) — what the page decodes (``report.js``)."""
    if payload.get("layout") != LAYOUT:
        raise ValueError(f"not a {LAYOUT} series payload: {payload.get('layout')!r}")
    strings = payload["strings"]

    def text(i: int) -> str | None:
        return None if i < 0 else str(strings[i])

    suites = payload["suites"]
    lists = payload["query_lists"]
    suite_of: list[int] = []
    query: list[int] = []
    query_index: list[int] = []
    for s, k in enumerate(suites["queries"]):
        suite_of.extend([s] * len(lists["query"][k]))
        query.extend(lists["query"][k])
        query_index.extend(lists["query_index"][k])
    classes = payload["classes"]
    n_series = len(query)
    blocks = _expand(payload["blocks"], n_series)
    n_blocks = sum(blocks)
    process = _expand(payload["process"], n_blocks)
    runs = _expand(payload["runs"], n_blocks)
    seconds = payload["seconds"]
    iteration = payload.get("iteration")
    out: list[dict[str, Any]] = []
    b = pos = 0
    ref, gaps = payload["reference"], payload["gap"]
    told_reference = dict(zip(ref["series"], ref["seconds"], strict=True))
    told_gap = dict(zip(gaps["series"], gaps["gap"], strict=True))
    for n in range(n_series):
        s = suite_of[n]
        series_runs = []
        for _ in range(blocks[n]):
            values = seconds[pos : pos + runs[b]]
            its = iteration[pos : pos + runs[b]] if iteration is not None else list(range(runs[b]))
            series_runs.append({"process": process[b], "iterations": its, "seconds": values})
            pos += runs[b]
            b += 1
        first = series_runs[0] if series_runs else {"iterations": [], "seconds": []}
        reference, gap = derived_gap(
            dict(zip(first["iterations"], first["seconds"], strict=True)), payload["window"]
        )
        reference = _significant(reference, 4)
        gap = _significant(gap, 3)
        out.append(
            {
                "suite": text(suites["name"][s]),
                "system": text(suites["system"][s]),
                "suite_id": suites["suite_id"][s],
                "query": text(query[n]),
                "query_index": query_index[n],
                "class": None if (c := payload["class"][n]) < 0 else text(classes[c]),
                "runs": series_runs,
                "resolution_s": suites["resolution"][s],
                "reference_s": told_reference.get(n, reference),
                "window_gap": told_gap.get(n, gap),
                "steady_s": None,
                "steady_ci": None,
                "steady_iteration": None,
                "changepoints": [],
                "spikes": [],
            }
        )
    st = payload["steady"]
    for i, n in enumerate(st["series"]):
        e = out[n]
        e["steady_s"], e["steady_iteration"] = st["seconds"][i], st["iteration"][i]
        if st["lo"][i] is not None or st["hi"][i] is not None:
            e["steady_ci"] = [st["lo"][i], st["hi"][i]]
    cp = payload["changepoints"]
    for n, it in zip(cp["series"], cp["iteration"], strict=True):
        out[n]["changepoints"].append(it)
    sp = payload["spikes"]
    for n, it, v in zip(sp["series"], sp["iteration"], sp["seconds"], strict=True):
        out[n]["spikes"].append([it, v])
    return out
