"""Snowflake ``GET_QUERY_OPERATOR_STATS(<query_id>)`` output, exported as CSV (VARIANT
columns as JSON text) or JSON (nested objects), one or many queries per file
(``research/profiles.md`` §2.3).

Each row is an operator: ``OPERATOR_STATISTICS`` (``io.bytes_scanned``,
``io.percentage_scanned_from_cache`` as a 0–1 fraction, …) and ``EXECUTION_TIME_BREAKDOWN``
(``overall_percentage``, a 0–1 fraction of the query's time, and the categories
``processing, local_disk_io, remote_disk_io, network_communication, synchronization,
initialization``; keys whose value is 0 are omitted). The breakdown is stored normalized
to shares *within the operator* (category / Σ categories), which is right whether the
categories are shares of the query or of the operator (§0 item 4). Values above 1 are read
as percent.

The stats carry no elapsed time: ``warmup cache`` joins them by ``QUERY_ID`` to the runs
of a QUERY_HISTORY export and takes the scan share and the scan's remote/local I/O shares
from the TableScan operators (the seed's method). Only ``operator_runs`` rows are written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import csv_dicts, parse_json, parse_json_records, upper_keys
from toolkit.ingest.profiles.common import (
    ProfileOperator,
    missing,
    number,
    read_text,
    suite_for,
    write_operators,
)
from toolkit.ingest.registry import Ingester, IngestOptions, register
from toolkit.store import SourceWriter

NAME = "snowflake-operator-stats"
EXPECTED = (
    "a Snowflake GET_QUERY_OPERATOR_STATS export (QUERY_ID, OPERATOR_ID, OPERATOR_TYPE, "
    "OPERATOR_STATISTICS, EXECUTION_TIME_BREAKDOWN)"
)
REQUIRED = ("QUERY_ID", "OPERATOR_ID", "OPERATOR_TYPE", "EXECUTION_TIME_BREAKDOWN")
CATEGORIES = (
    "processing",
    "local_disk_io",
    "remote_disk_io",
    "network_communication",
    "synchronization",
    "initialization",
)


def _sniff(path: Path, head: bytes) -> bool:
    upper = head[:8192].upper()
    return b"EXECUTION_TIME_BREAKDOWN" in upper and b"OPERATOR_TYPE" in upper


def _variant(value: Any, *, path: Path, line: int, column: str) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        return parse_json(text, path=path, line=line, field=column)
    return value


def _share(value: Any) -> float | None:
    parsed = number(value)
    if parsed is None:
        return None
    return parsed / 100.0 if parsed > 1 else parsed


def _records(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    names: dict[Any, str] = {}
    if text.lstrip().startswith(("[", "{")):
        return [
            (number, upper_keys(r, names, strip=False))
            for number, r in parse_json_records(text, path=path, expected=EXPECTED)
            if isinstance(r, dict)
        ]
    return [(line, upper_keys(r, names, strip=True)) for line, r in csv_dicts(text, path=path)]


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    text = read_text(path, options.encoding, EXPECTED)
    records = _records(path, text)
    if not records:
        raise InputFormatError(path, f"no rows; expected {EXPECTED}")
    for col in REQUIRED:
        if col not in records[0][1]:
            raise missing(path, EXPECTED, col)
    by_query: dict[str, list[ProfileOperator]] = {}
    for line, row in records:
        query_id = str(row.get("QUERY_ID") or "").strip()
        if not query_id:
            raise InputFormatError(path, "QUERY_ID is empty", line=line)
        stats = (
            _variant(
                row.get("OPERATOR_STATISTICS"), path=path, line=line, column="OPERATOR_STATISTICS"
            )
            or {}
        )
        breakdown_raw = (
            _variant(
                row.get("EXECUTION_TIME_BREAKDOWN"),
                path=path,
                line=line,
                column="EXECUTION_TIME_BREAKDOWN",
            )
            or {}
        )
        attributes = (
            _variant(
                row.get("OPERATOR_ATTRIBUTES"), path=path, line=line, column="OPERATOR_ATTRIBUTES"
            )
            or {}
        )
        parents = _variant(
            row.get("PARENT_OPERATORS"), path=path, line=line, column="PARENT_OPERATORS"
        )
        if isinstance(parents, list):
            parent = str(parents[0]) if parents else None
        else:
            parent = None if parents in (None, "") else str(parents)
        if not isinstance(breakdown_raw, dict) or not isinstance(stats, dict):
            raise InputFormatError(
                path, "expected a JSON object", line=line, field="EXECUTION_TIME_BREAKDOWN"
            )
        categories = {
            str(k): float(v)
            for k, v in ((k, number(v)) for k, v in breakdown_raw.items())
            if k != "overall_percentage" and v is not None
        }
        total = sum(categories.values())
        breakdown = {k: v / total for k, v in categories.items()} if total > 0 else {}
        raw_io = stats.get("io")
        io_stats: dict[str, Any] = raw_io if isinstance(raw_io, dict) else {}
        fraction = _share(io_stats.get("percentage_scanned_from_cache"))
        step = str(row.get("STEP_ID") or "1")
        by_query.setdefault(query_id, []).append(
            ProfileOperator(
                operator_id=f"{step}.{row.get('OPERATOR_ID')}",
                operator_type=str(row.get("OPERATOR_TYPE") or "?"),
                parent_id=None if parent is None else f"{step}.{parent}",
                time_share=_share(breakdown_raw.get("overall_percentage")),
                breakdown=breakdown,
                io={
                    "bytes_scanned": number(io_stats.get("bytes_scanned")),
                    "cache_fraction": fraction,
                    "statistics": stats,
                    "breakdown_raw": breakdown_raw,
                    "attributes": attributes,
                },
            )
        )
    suite_id = suite_for(
        writer, options, f"snowflake operators / {path.name.split('.')[0]}", "snowflake"
    )
    for query_id, ops in by_query.items():
        write_operators(writer, suite_id, f"operators of {query_id}", 1, query_id, ops)


register(
    Ingester(
        name=NAME,
        description="Snowflake GET_QUERY_OPERATOR_STATS export (CSV or JSON)",
        sniff=_sniff,
        load=_load,
        priority=29,
    )
)
