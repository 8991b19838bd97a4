"""DuckDB ``PRAGMA enable_profiling = 'json'`` output (``research/profiles.md`` §8).

The root node holds the query metrics (``latency`` in seconds, ``cpu_time``,
``total_bytes_read`` when enabled, ``query_name``), ``children`` the operator tree
(``operator_type``, ``operator_timing`` in seconds summed over threads,
``operator_cardinality``, ``operator_rows_scanned``, ``extra_info``). DuckDB 2.0's
``group.metric`` names (``query.total_time``, ``operator.timing``, …) are read too, and so
is the nested layout DuckDB 2.0.1 writes: groups as objects (``query.total_time`` in
seconds, ``query.cpu_time``, ``query.sql``, ``io.total_bytes_read``,
``system.peak_buffer_memory``) and the plan under ``operator`` (a list of root operators,
each with ``name``, ``type``, ``timing`` in seconds, ``intermediate_rows`` out,
``rows_scanned``, ``extra_info``, ``children``).

There is no remote/local split in the JSON (split ``unavailable``). A series is one query
text reading one set of sources (the scans' ``Table`` or ``Function``); the scan share is
the scans' share of summed operator time.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from toolkit.errors import InputFormatError
from toolkit.ingest.profiles.common import (
    ProfileOperator,
    ProfileRun,
    integer,
    missing,
    number,
    read_json,
    suite_for,
    write_runs,
)
from toolkit.ingest.registry import Ingester, IngestOptions, register
from toolkit.store import SourceWriter

NAME = "duckdb-profile"
EXPECTED = "a DuckDB JSON profile (enable_profiling='json': latency, children)"


#: DuckDB 2.0.1's nested layout: the plan is a list under "operator" whose nodes time
#: themselves in "timing" (the groups come in key order: "io" first, "query" last)
_NESTED_PLAN = re.compile(rb'"operator"\s*:\s*\[')


def _sniff(path: Path, head: bytes) -> bool:
    text = head.lstrip()
    if not text.startswith(b"{"):
        return False
    return (
        (b'"query_name"' in head and (b'"latency"' in head or b'"children"' in head))
        or (b'"query.total_time"' in head and b'"children"' in head)
        or (_NESTED_PLAN.search(head) is not None and b'"timing"' in head)
    )


def _flattened(doc: dict[str, Any]) -> dict[str, Any]:
    """A DuckDB 2.0.1 profile (metric groups as objects, the plan under ``operator``) as
    the 1.x root node the rest of this module reads; other profiles unchanged."""
    query = doc.get("query")
    plan = doc.get("operator")
    if not isinstance(query, dict) or not isinstance(plan, list):
        return doc
    io: dict[str, Any] = doc["io"] if isinstance(doc.get("io"), dict) else {}
    system: dict[str, Any] = doc["system"] if isinstance(doc.get("system"), dict) else {}
    return {
        "query_name": query.get("sql"),
        "latency": query.get("total_time"),
        "cpu_time": query.get("cpu_time"),
        "cumulative_rows_scanned": query.get("total_rows_scanned"),
        "total_bytes_read": io.get("total_bytes_read"),
        "system_peak_buffer_memory": system.get("peak_buffer_memory"),
        "system_peak_temp_dir_size": system.get("peak_temp_dir_size"),
        "children": plan,
    }


def _get(node: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in node:
            return node[name]
    return None


#: Most operators read from one profile: DuckDB plans hold tens to hundreds. Each
#: operator is a Python object of about a kilobyte on its way to the store: 2.4 million
#: (a 106 MB file, under the JSON limits) took 2.1 GB and over 300 s.
MAX_PROFILE_OPERATORS = 10_000


def _walk(
    node: dict[str, Any], path: str, parent: str | None, out: list[ProfileOperator], file: Path
) -> None:
    for i, child in enumerate(node.get("children") or []):
        if not isinstance(child, dict):
            continue
        if len(out) >= MAX_PROFILE_OPERATORS:
            raise InputFormatError(
                file,
                f"plan has more than {MAX_PROFILE_OPERATORS:,} operators (DuckDB plans hold "
                "tens to hundreds): not a query profile this reads; split it",
            )
        op_id = f"{path}.{i}" if path else str(i)
        timing = number(_get(child, "operator_timing", "operator.timing", "timing"))
        extra = child.get("extra_info") if isinstance(child.get("extra_info"), dict) else {}
        out.append(
            ProfileOperator(
                operator_id=op_id,
                operator_type=str(_get(child, "operator_type", "operator.type", "type") or "?"),
                parent_id=parent,
                time_ms=None if timing is None else timing * 1000.0,
                io={
                    "operator_name": str(_get(child, "operator_name", "name") or "").strip()
                    or None,
                    "cardinality": integer(
                        _get(
                            child,
                            "operator_cardinality",
                            "operator.cardinality",
                            "intermediate_rows",
                        )
                    ),
                    "rows_scanned": integer(
                        _get(
                            child, "operator_rows_scanned", "operator.rows_scanned", "rows_scanned"
                        )
                    ),
                    "extra_info": extra,
                },
            )
        )
        _walk(child, op_id, op_id, out, file)


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    doc = read_json(path, options.encoding, EXPECTED)
    if not isinstance(doc, dict):
        raise missing(path, EXPECTED, "latency")
    doc = _flattened(doc)
    latency = number(_get(doc, "latency", "query.total_time", "total_time"))
    if latency is None:
        raise missing(path, EXPECTED, "latency")
    text = str(_get(doc, "query_name", "query.name") or "")
    ops: list[ProfileOperator] = []
    _walk(doc, "", None, ops, path)
    total = sum(op.time_ms or 0.0 for op in ops)
    scans = [op for op in ops if "SCAN" in op.operator_type.upper()]
    for op in ops:
        op.time_share = (op.time_ms / total) if total and op.time_ms is not None else None
    sources = sorted(
        {
            str(op.io["extra_info"].get("Table") or op.io["extra_info"].get("Function") or "?")
            for op in scans
        }
    )
    digest = hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:12]
    series = f"{digest} reading {', '.join(sources)}" if sources else digest
    scan_time = sum(op.time_ms or 0.0 for op in scans)
    run = ProfileRun(
        series=series,
        elapsed_ms=latency * 1000.0,
        system="duckdb",
        query_text=text or None,
        bytes_scanned=integer(_get(doc, "total_bytes_read", "io.total_bytes_read")),
        scan_share=(scan_time / total) if total and scans else None,
        attributes={
            "cpu_time_s": number(_get(doc, "cpu_time", "query.cpu_time")),
            "rows_scanned": integer(_get(doc, "cumulative_rows_scanned")),
            "peak_buffer_memory": integer(doc.get("system_peak_buffer_memory")),
            "peak_temp_dir_size": integer(doc.get("system_peak_temp_dir_size")),
        },
        operators=ops,
    )
    suite_id = suite_for(writer, options, f"duckdb / {path.name.split('.')[0]}", "duckdb")
    write_runs(writer, suite_id, NAME, [run])


register(
    Ingester(
        name=NAME,
        description="DuckDB JSON profile (PRAGMA enable_profiling='json')",
        sniff=_sniff,
        load=_load,
        priority=30,
    )
)
