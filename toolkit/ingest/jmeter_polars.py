"""A CSV JTL read by Polars into presummed samples, for ``warmup load FILE``'s one read.

DuckDB's CSV reader is the reader of record: it stores rows, says which line is bad, and
its reading of every damaged file is tested. For the one-command job (issue 20 item 3)
Polars' reader makes the command 1.25-1.8x cheaper in CPU on JMeter output
(benchmarks/RESULTS.md), so a well-formed file is read by Polars first: its samples
summed by every raw value the sample groups derive a key from (label, completion window, elapsed time, success,
response code and message, failure message, host name), the groups then derived by
the same SQL as from stored rows (:func:`toolkit.pipeline.load.presummed_rows_sql`).

Where the two readers could read the same bytes differently, Polars' reading is not
used and DuckDB reads the file as before (:func:`presummed_samples` returns None): any
error of Polars' reader (it is stricter than DuckDB's in every case we found: ``1_0``,
``0x10``, ``5.0`` as an integer, ``t``/``1``/``yes`` as a boolean, a quote inside an
unquoted field), and each case where Polars reads without error what DuckDB refuses or
reads otherwise, found by a differential test (tests/test_jtl_polars.py):

- a short record (Polars pads it with nulls, DuckDB refuses it): a null in the last
  column, which JMeter always writes;
- a blank line (Polars reads a row of nulls, DuckDB skips it): a null timeStamp;
- a quoted empty field ``""`` (Polars reads '', DuckDB NULL): an empty string anywhere;
- a carriage return anywhere in the file (Polars reads a CRLF line among LF lines,
  DuckDB refuses it): found by one scan of the bytes before the read;
- a negative elapsed time (the completion window's integer division rounds toward zero
  in DuckDB, down in Polars);
- a sum that could pass 64 bits (Polars' integer sums wrap; DuckDB's are 128-bit), and
  a start or elapsed time whose completion window could (it wraps in Polars and is an
  error in DuckDB);
- a line longer than DuckDB's limit is refused before either reads
  (:func:`toolkit.ingest.guarded.long_line`).
"""

from __future__ import annotations

import mmap
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

#: the environment variable that, set to ``duckdb``, leaves every file to DuckDB's reader
#: (to compare the two readers: benchmarks/jtl_ingest.py, tests/test_jtl_polars.py)
READER_VARIABLE = "WARMUP_JTL_READER"

#: the DuckDB types of the reader's columns, as Polars reads them (an INTEGER is read as
#: a 32-bit integer, so a value past it is an error in both readers)
_POLARS_TYPES = {"BIGINT": "Int64", "INTEGER": "Int32", "BOOLEAN": "Boolean", "VARCHAR": "String"}
#: the summed columns' largest magnitude times the samples must stay below this for
#: Polars' 64-bit sums to be exact
_SUM_LIMIT = 1 << 62
#: the start times, elapsed times and first start must stay below this in magnitude for
#: a completion window's arithmetic to fit in 64 bits (three terms)
_TIME_LIMIT = 1 << 61


@dataclass(frozen=True)
class PresummedRead:
    """A CSV JTL read by :func:`presummed_samples`: ``frame``, one row per distinct
    (raw group key values), with ``n`` samples, their first and last start (epoch ms,
    ``start_min``/``start_max``), the sums and counts of the summed columns; ``first``,
    the least sample start (epoch ms), None without samples."""

    frame: pl.DataFrame
    first: int | None


def _unvouched_bytes(path: Path) -> bool:
    """Whether the file's bytes hold a carriage return or two quotes in a row (a quoted
    empty field, or a quote inside a quoted one): one memchr scan each."""
    if path.stat().st_size == 0:
        return False
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        # a file without any quote (JMeter quotes only a field that needs it) is not
        # searched for two: memchr is ~10x faster than a two-byte search
        return data.find(b"\r") != -1 or (data.find(b'"') != -1 and data.find(b'""') != -1)


def _collected(query: pl.LazyFrame) -> pl.DataFrame:
    """``query`` collected in a worker thread while this one waits in short joins, so that
    a signal (Ctrl-C) is taken at once: a collect in the main thread would hold it until
    the whole file is read. The worker is left to end by itself after a signal (Polars
    cannot stop a collect; ``warmup`` exits at once). (Polars' own background collect
    takes 3x the memory and 1.5x the CPU of this one on a 3.2M-sample JTL: 1.3 GB.)"""
    done: list[pl.DataFrame] = []
    failed: list[BaseException] = []

    def collect() -> None:
        try:
            done.append(query.collect())
        except BaseException as exc:  # handed to the waiting thread
            failed.append(exc)

    worker = threading.Thread(target=collect, name="polars-read", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.01)
    if failed:
        raise failed[0]
    return done[0]


def presummed_samples(
    source: Path,
    *,
    delimiter: str,
    has_header: bool,
    types: dict[str, str],
    t0: int,
    window_ms: int,
    charts: bool,
    progress: Callable[[float], None] | None = None,
) -> PresummedRead | None:
    """The samples of the CSV JTL ``source`` (UTF-8, uncompressed, ending with a line
    end) summed by the raw values the sample groups are keyed on, read by Polars; None
    where Polars' reading could differ from DuckDB's (module docstring), and DuckDB
    must read the file. ``types``: the reader's columns in file order with their DuckDB
    types (epoch-ms ``timeStamp`` only); ``w`` is the completion window, ``(timeStamp +
    elapsed - t0) // window_ms``; ``charts``: keyed by the thread count too, with the
    latency and connect sums (the report's charts). ``progress``: told 0 as the read
    starts and 1 once it is used (Polars' reader does not say how far it is)."""
    import polars as pl

    names = list(types)
    if (
        os.environ.get(READER_VARIABLE, "").lower() == "duckdb"
        or len(delimiter) != 1
        or delimiter in '"\r\n'
        or types.get("timeStamp") != "BIGINT"
        or "elapsed" not in types
        or _unvouched_bytes(source)
    ):
        return None
    schema = {name: getattr(pl, _POLARS_TYPES[kind]) for name, kind in types.items()}
    col = pl.col
    have = set(names)
    threads = [c for c in ("allThreads", "grpThreads") if c in have]
    thread_count = pl.coalesce([col(c) for c in threads]) if threads else pl.lit(None, pl.Int32)
    keys: list[str] = [c for c in ("label", "elapsed", "success", "responseCode", "responseMessage",
                        "failureMessage", "Hostname") if c in have]  # fmt: skip
    frame = pl.scan_csv(
        source,
        # the header skipped, not read: Polars would match its names with the schema's
        # (a sample variable's is any text; the reader numbers those columns)
        has_header=False,
        skip_rows=1 if has_header else 0,
        separator=delimiter,
        quote_char='"',
        schema=schema,
        encoding="utf8",
        infer_schema=False,
    ).with_columns(
        ((col("timeStamp") + col("elapsed") - t0) // window_ms).alias("w"),
        thread_count.cast(pl.Int32).alias("threads"),
    )
    summed = {"bytes": "bytes", "sent_bytes": "sentBytes", "threads_sum": "threads"}
    if charts:
        keys.append("threads")
        summed |= {"latency_sum": "Latency", "connect_sum": "Connect"}

    def null_sum(name: str) -> pl.Expr:
        # DuckDB's sum of no value is NULL, Polars' 0
        value = col(name).cast(pl.Int64)
        return pl.when(value.count() > 0).then(value.sum())

    aggregates = [
        pl.len().cast(pl.Int64).alias("n"),
        col("timeStamp").min().alias("start_min"),
        col("timeStamp").max().alias("start_max"),
        col("timeStamp").null_count().alias("_null_starts"),
        col(names[-1]).null_count().alias("_null_last"),
    ]
    for out, name in summed.items():
        if name in have or name == "threads":
            aggregates.append(null_sum(name).alias(out))
        else:
            aggregates.append(pl.lit(None, pl.Int64).alias(out))
    # a presummed read checks every column (Polars parses and checks all of a record's
    # fields, UTF-8 above all): no column is counted to make it do so
    counted = {"threads_n": "threads"}
    if charts:
        counted |= {"latency_n": "Latency", "connect_n": "Connect"}
    for out, name in counted.items():
        present = name in have or name == "threads"
        aggregates.append(
            (col(name).count() if present else pl.lit(0, pl.UInt32)).cast(pl.Int64).alias(out)
        )
    # the largest magnitude summed, as a float (-2^63 has no Int64 magnitude); a thread
    # count is a 32-bit integer, whose sum over fewer than 2^31 samples fits
    magnitudes = [col(name).cast(pl.Float64).abs() for name in summed.values() if name in have]
    aggregates.append(
        (pl.max_horizontal(magnitudes).max() if magnitudes else pl.lit(0.0)).alias("_magnitude")
    )
    if progress is not None:
        progress(0.0)
    try:
        grouped = _collected(frame.group_by([*keys, "w"]).agg(aggregates))
    except (pl.exceptions.PolarsError, OSError):
        return None  # DuckDB reads it: its error names the line
    checks = grouped.select(
        col("_null_starts").sum(),
        col("_null_last").sum(),
        col("_magnitude").max(),
        col("n").sum(),
        col("elapsed").min(),
        col("start_min").min(),
        pl.max_horizontal(
            col("start_min").cast(pl.Float64).abs().max(),
            col("start_max").cast(pl.Float64).abs().max(),
        ).alias("_widest"),
        col("elapsed").max().alias("_longest"),
    ).row(0)
    null_starts, null_last, magnitude, samples, least_elapsed, first, widest, longest = checks
    if (
        # timeStamp + elapsed - t0 in 64 bits: wraps in Polars, an error in DuckDB
        max(abs(t0), widest or 0, longest or 0) >= _TIME_LIMIT
        or null_starts
        or null_last
        or int(samples or 0) >= 1 << 31
        or (least_elapsed is not None and least_elapsed < 0)
        or (magnitude or 0) * max(int(samples or 0), 1) >= _SUM_LIMIT
    ):
        return None
    kept = [c for c in grouped.columns if not c.startswith("_")]
    if progress is not None:
        progress(1.0)
    return PresummedRead(
        grouped.select(kept).with_columns(
            pl.lit(None, pl.Int64).alias("thread_names"), pl.lit(None, pl.Int64).alias("data_types")
        ),
        None if first is None else int(first),
    )
