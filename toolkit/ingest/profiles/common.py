"""Shared by the query-profile ingesters: the normalized run record and how it is written.

Units follow ``research/profiles.md`` §11.1: bytes as integers, times in milliseconds,
shares and fractions in [0, 1], ``None`` = not reported (never 0).
"""

from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import check_int, file_bytes, parse_json
from toolkit.ingest.registry import IngestOptions
from toolkit.store import SourceWriter

SplitMethod = Literal["reported", "from_fraction", "from_counters", "unavailable"]


@dataclass
class ProfileRun:
    """One profiled execution, normalized (one ``query_runs`` row)."""

    series: str
    elapsed_ms: float | None
    split_method: SplitMethod = "unavailable"
    system: str | None = None
    query_id: str | None = None
    query_text: str | None = None
    warehouse_size: str | None = None
    nodes: int | None = None
    start_time: datetime | None = None
    compile_ms: float | None = None
    exec_ms: float | None = None
    bytes_scanned: int | None = None
    bytes_remote: int | None = None
    bytes_local: int | None = None
    bytes_memory: int | None = None
    cache_fraction: float | None = None
    scan_share: float | None = None
    remote_io_share: float | None = None
    local_io_share: float | None = None
    processing_share: float | None = None
    remote_read_ms: float | None = None
    result_cache_hit: bool = False
    cache_epoch: int = 1
    run: int | None = None  #: given by the source (generic CSV); else numbered on write
    attributes: dict[str, Any] = field(default_factory=dict)
    operators: list[ProfileOperator] = field(default_factory=list)


@dataclass
class ProfileOperator:
    """One operator of a profiled execution (one ``operator_runs`` row)."""

    operator_id: str
    operator_type: str
    parent_id: str | None = None
    time_share: float | None = None
    time_ms: float | None = None
    breakdown: dict[str, float] = field(default_factory=dict)
    io: dict[str, Any] = field(default_factory=dict)


def fraction(value: float | None, *, path: Path, field_name: str) -> float | None:
    """A share as a 0–1 fraction: values in (1, 100] are read as percent (profiles.md §11.7)."""
    if value is None:
        return None
    if not math.isfinite(value) or value < 0 or value > 100:
        raise InputFormatError(
            path, f"{value!r} is not a share (0..1 or 0..100 %)", field=field_name
        )
    return value / 100.0 if value > 1 else value


def split_from_fraction(
    bytes_scanned: int | None, cache_fraction: float | None
) -> tuple[int | None, int | None]:
    """Remote and local bytes from bytes scanned and the cache fraction f:
    ``round(B × (1 − f))`` and ``round(B × f)`` (profiles.md §0 item 1, §11.2)."""
    if bytes_scanned is None or cache_fraction is None:
        return None, None
    local = round(bytes_scanned * cache_fraction)
    return bytes_scanned - local, local


def number(value: Any) -> float | None:
    """A JSON/CSV value as a float: numbers, numeric strings ("170808259448"); else None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            parsed = float(value)
        except OverflowError:  # an int of more than ~308 digits
            return None
        return parsed if math.isfinite(parsed) else None
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            parsed = float(text)
        except ValueError:
            return None
        return parsed if math.isfinite(parsed) else None
    return None


def integer(value: Any) -> int | None:
    """A JSON/CSV value as an int (bytes, counts), or None. Integers and integer strings
    are kept exact (a float would round a 20-digit byte count)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        with contextlib.suppress(ValueError):  # "1.5e9", or more than 4300 digits
            return int(value.strip())
    parsed = number(value)
    return None if parsed is None else round(parsed)


def suite_for(writer: SourceWriter, options: IngestOptions, default_name: str, system: str) -> int:
    """The suite of one profile file (``--suite`` joins files into one suite)."""
    tags = [t for t in options.tags if "=" not in t]
    attrs = dict(t.split("=", 1) for t in options.tags if "=" in t)
    return writer.suite(
        options.suite or default_name,
        kind="profile",
        join=options.suite is not None,
        system=system,
        tags=tags,
        attributes=attrs,
    )


#: integer fields of a run and the width of their ``query_runs`` column (schemas/003)
_INTEGER_FIELDS = {
    "run": 32,
    "cache_epoch": 32,
    "nodes": 32,
    "bytes_scanned": 64,
    "bytes_remote": 64,
    "bytes_local": 64,
    "bytes_memory": 64,
}


_FLOAT_FIELDS = (
    "elapsed_ms",
    "compile_ms",
    "exec_ms",
    "cache_fraction",
    "scan_share",
    "remote_io_share",
    "local_io_share",
    "processing_share",
    "remote_read_ms",
)


def _check_values(writer: SourceWriter, run: ProfileRun) -> None:
    """Every integer of ``run`` must fit its store column and every float be finite (found
    by fuzzing: a 20-digit ``read_bytes`` reached DuckDB as a conversion error; ``1e306``
    seconds became an infinite number of milliseconds)."""
    where = f"run {run.run} of series {run.series[:60]!r}"
    for name, bits in _INTEGER_FIELDS.items():
        check_int(getattr(run, name), bits=bits, path=writer.path, what=f"{where}: {name}")
    for name in _FLOAT_FIELDS:
        value = getattr(run, name)
        if value is not None and not math.isfinite(value):
            raise InputFormatError(
                writer.path, f"{where}: {name} is {value}, not a finite number; fix the file"
            )
    for op in run.operators:
        for name in ("time_ms", "time_share"):
            value = getattr(op, name)
            if value is not None and not math.isfinite(value):
                raise InputFormatError(
                    writer.path,
                    f"{where}: operator {op.operator_id[:40]!r} {name} is {value}, "
                    "not a finite number; fix the file",
                )


def write_runs(
    writer: SourceWriter, suite_id: int, source_format: str, runs: list[ProfileRun]
) -> None:
    """Insert ``runs`` (and their operators) for this source.

    Runs without a source-given number are numbered after the runs of the same series
    already in the store, in the order given (ingest order; within a file, start time).
    A run that started before the previous run of its series gets a warning: the stored
    numbering follows the order of the files (``warmup cache`` renumbers by start time).
    """
    con = writer.store.con
    next_run: dict[str, int] = {}
    last_start: dict[str, datetime] = {}
    for run in runs:
        if run.series not in next_run:
            row = con.execute(
                # epoch seconds: fetching TIMESTAMPTZ into Python would need pytz
                "SELECT coalesce(max(run), 0), epoch(max(start_time)) FROM query_runs "
                "WHERE series = ?",
                [run.series],
            ).fetchone()
            next_run[run.series] = int(row[0]) + 1 if row else 1
            if row and row[1] is not None:
                last_start[run.series] = datetime.fromtimestamp(float(row[1]), UTC)
        if run.run is None:
            run.run = next_run[run.series]
        next_run[run.series] = max(next_run[run.series], run.run + 1)
        previous = last_start.get(run.series)
        if run.start_time is not None:
            if previous is not None and _before(run.start_time, previous):
                writer.warn(
                    f"{writer.path}: series {run.series[:60]!r} run {run.run} started "
                    f"{run.start_time.isoformat()}, before the run numbered ahead of it; the store "
                    "numbers runs in ingest order, warmup cache reads them by start time"
                )
            last_start[run.series] = run.start_time
        _check_values(writer, run)
        con.execute(
            """INSERT INTO query_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                                              ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [
                suite_id,
                writer.source_id,
                source_format,
                run.series,
                run.run,
                run.cache_epoch,
                run.system,
                run.query_id,
                run.query_text,
                run.warehouse_size,
                run.nodes,
                run.start_time,
                run.elapsed_ms,
                run.compile_ms,
                run.exec_ms,
                run.bytes_scanned,
                run.bytes_remote,
                run.bytes_local,
                run.bytes_memory,
                run.cache_fraction,
                run.scan_share,
                run.remote_io_share,
                run.local_io_share,
                run.processing_share,
                run.remote_read_ms,
                run.split_method,
                run.result_cache_hit,
                json.dumps(run.attributes, sort_keys=True, default=str),
            ],
        )
        write_operators(writer, suite_id, run.series, run.run, run.query_id, run.operators)


def write_operators(
    writer: SourceWriter,
    suite_id: int,
    series: str,
    run: int,
    query_id: str | None,
    operators: list[ProfileOperator],
) -> None:
    """Insert ``operator_runs`` rows of one execution, in one statement from an Arrow
    table (one INSERT per row took ~1 ms: 10 s for a plan of 10,000 operators)."""
    if not operators:
        return
    n = len(operators)
    rows = pa.table(
        {
            "suite_id": pa.array([suite_id] * n, pa.int64()),
            "source_id": pa.array([writer.source_id] * n, pa.int64()),
            "series": pa.array([series] * n, pa.string()),
            "run": pa.array([run] * n, pa.int32()),
            "query_id": pa.array([query_id] * n, pa.string()),
            "operator_id": pa.array([str(op.operator_id) for op in operators], pa.string()),
            "parent_id": pa.array(
                [None if op.parent_id is None else str(op.parent_id) for op in operators],
                pa.string(),
            ),
            "operator_type": pa.array([op.operator_type for op in operators], pa.string()),
            "time_share": pa.array([op.time_share for op in operators], pa.float64()),
            "time_ms": pa.array([op.time_ms for op in operators], pa.float64()),
            "breakdown": pa.array(
                [json.dumps(op.breakdown, sort_keys=True) for op in operators], pa.string()
            ),
            "io": pa.array(
                [json.dumps(op.io, sort_keys=True, default=str) for op in operators], pa.string()
            ),
        }
    )
    con = writer.store.con
    con.register("operator_rows", rows)
    try:
        con.execute("INSERT INTO operator_runs BY NAME SELECT * FROM operator_rows")
    finally:
        con.unregister("operator_rows")


def _before(a: datetime, b: datetime) -> bool:
    try:
        return a < b
    except TypeError:  # naive vs aware: compare as UTC wall times
        return a.replace(tzinfo=None) < b.replace(tzinfo=None)


def read_text(path: Path, encoding: str | None, expected: str) -> str:
    """The text of ``path`` (gunzipped when gzip); errors name the format expected."""
    raw = file_bytes(path)
    try:
        return raw.decode(encoding or "utf-8-sig")
    except (UnicodeDecodeError, LookupError):
        raise InputFormatError(
            path, f"not valid {encoding or 'UTF-8'} text; expected {expected}; pass --encoding"
        ) from None


def read_json(path: Path, encoding: str | None, expected: str) -> Any:
    """Parse a whole JSON file; errors name the file, line and the format expected."""
    return parse_json(read_text(path, encoding, expected), path=path, expected=expected)


def missing(path: Path, expected: str, field_name: str) -> InputFormatError:
    """The one-line rejection: the format expected and the field it missed."""
    return InputFormatError(
        path,
        f"not {expected}: required field missing; pass the right --format or fix the export",
        field=field_name,
    )
