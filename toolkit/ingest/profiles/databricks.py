"""Databricks SQL: the query-profile JSON (Query Profile UI "Download") and the query
history REST API JSON (``GET /api/2.0/sql/history/queries?include_metrics=true``).

``research/profiles.md`` §4.2–4.3: times in ms; ``readRemoteBytes``/``readCacheBytes``
(``read_remote_bytes``/``read_cache_bytes``) are reported bytes (split ``reported``) and add
up to ``readBytes``; ``bytesReadFromCachePercentage`` is an integer percent (kept in
attributes; the cache fraction is computed from the bytes). Metric values may be numbers
or numeric strings (``planMetadatas``), and node metrics may have no ``value``.

A profile's series is the set of tables its scan nodes read on one warehouse
(``endpointId``): Databricks gives no literal-insensitive fingerprint, and the disk cache
holds table data, so runs that scan the same tables warm the same cache (the two real
downloads differ in one date predicate). The text hash is kept in attributes. The history
API has no plan: its series is the whitespace-normalized query text on one warehouse. The profile download holds one run; runs are numbered in the order the
files are ingested (a warning says when a later-numbered run started earlier).
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
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

PROFILE = "databricks-profile"
HISTORY = "databricks-history"
PROFILE_EXPECTED = "a Databricks query-profile JSON (query.metrics, graphs)"
HISTORY_EXPECTED = "a Databricks query-history API JSON (res[].query_id, metrics)"
_CLUSTER = re.compile(r"/sparkui/([^/]+)/")


def _sniff_profile(path: Path, head: bytes) -> bool:
    text = head.lstrip()
    return text.startswith(b"{") and (
        b'"LakehouseQueryMetrics"' in head
        or (b'"query"' in head and b'"readRemoteBytes"' in head)
        or (b'"planMetadatas"' in head and b'"graphs"' in head)
    )


def _sniff_history(path: Path, head: bytes) -> bool:
    text = head.lstrip()
    return (
        text.startswith((b"{", b"["))
        and b'"query_id"' in head
        and (b'"query_start_time_ms"' in head or b'"read_remote_bytes"' in head)
    )


def _series(text: str, warehouse: str | None) -> str:
    digest = hashlib.sha256(" ".join(text.split()).encode()).hexdigest()
    return f"{digest[:12]} on {warehouse or 'unknown warehouse'}"


def _epoch_ms(value: Any) -> datetime | None:
    ms = number(value)
    if ms is None:
        return None
    try:
        return datetime.fromtimestamp(ms / 1000.0, UTC)
    except (OverflowError, ValueError, OSError):
        # not a plausible epoch: keep the run, report the start time as unknown
        return None


def _split(
    read: int | None, remote: int | None, cache: int | None, percent: float | None
) -> tuple[int | None, int | None, float | None, str]:
    """(remote, local, fraction, method) from reported bytes, else the integer percent."""
    if remote is not None and cache is not None:
        total = read if read is not None else remote + cache
        return remote, cache, (cache / total if total else None), "reported"
    if read is not None and percent is not None:
        local = round(read * percent / 100.0)
        return read - local, local, percent / 100.0, "from_fraction"
    return None, None, None, "unavailable"


def _load_profile(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    doc = read_json(path, options.encoding, PROFILE_EXPECTED)
    if not isinstance(doc, dict) or not isinstance(doc.get("query"), dict):
        raise missing(path, PROFILE_EXPECTED, "query")
    query = doc["query"]
    metrics = query.get("metrics")
    if not isinstance(metrics, dict):
        raise missing(path, PROFILE_EXPECTED, "query.metrics")
    elapsed = number(metrics.get("totalTimeMs"))
    if elapsed is None:
        raise missing(path, PROFILE_EXPECTED, "query.metrics.totalTimeMs")
    read = integer(metrics.get("readBytes"))
    if read is None:
        for plan in doc.get("planMetadatas") or []:
            if isinstance(plan, dict) and isinstance(plan.get("metrics"), dict):
                read = integer(plan["metrics"].get("readBytes"))
                if read is not None:
                    break
    percent = number(metrics.get("bytesReadFromCachePercentage"))
    remote, local, fraction, method = _split(
        read,
        integer(metrics.get("readRemoteBytes")),
        integer(metrics.get("readCacheBytes")),
        percent,
    )
    warehouse = query.get("endpointId")
    cluster = _CLUSTER.search(str(query.get("sparkUiUrl") or ""))
    operators, remote_read_ms = _operators(doc)
    text_series = _series(str(query.get("queryText") or ""), warehouse)
    tables = sorted({op.operator_type[len("Scan ") :] for op in operators if op.io})
    series = f"scan of {', '.join(tables)} on {warehouse}" if tables else text_series
    run = ProfileRun(
        series=series,
        elapsed_ms=elapsed,
        split_method=method,  # type: ignore[arg-type]
        system="databricks",
        query_id=query.get("id"),
        query_text=query.get("queryText"),
        start_time=_epoch_ms(query.get("queryStartTimeMs")),
        compile_ms=number(metrics.get("compilationTimeMs")),
        exec_ms=number(metrics.get("executionTimeMs")),
        bytes_scanned=read,
        bytes_remote=remote,
        bytes_local=local,
        cache_fraction=fraction,
        remote_read_ms=remote_read_ms,
        result_cache_hit=metrics.get("resultFromCache") is True,
        attributes={
            "profile_version": doc.get("version"),
            "bytes_read_from_cache_percent": percent,
            "warehouse_id": warehouse,
            "cluster_id": cluster.group(1) if cluster else None,
            "dbsql_version": (query.get("channelUsed") or {}).get("dbsqlVersion"),
            "task_total_ms": number(metrics.get("taskTotalTimeMs")),
            "result_cache_hit_method": "reported",
            "text_series": text_series,
        },
        operators=operators,
    )
    suite_id = suite_for(writer, options, f"databricks / {path.name.split('.')[0]}", "databricks")
    write_runs(writer, suite_id, PROFILE, [run])


def _operators(doc: dict[str, Any]) -> tuple[list[ProfileOperator], float | None]:
    """Graph nodes as operators; scan nodes keep every metric that has a value (by label,
    the real identifier: keys are mostly UNKNOWN_KEY). Returns the summed cloud-storage
    request duration of the scans (ms) too."""
    graphs = doc.get("graphs") or []
    if not graphs or not isinstance(graphs[0], dict):
        return [], None
    graph = graphs[0]
    parents: dict[str, str] = {}
    for edge in graph.get("edges") or []:
        if isinstance(edge, dict) and edge.get("fromId") is not None:
            parents.setdefault(str(edge["fromId"]), str(edge.get("toId")))
    ops: list[ProfileOperator] = []
    request_ms = 0.0
    has_requests = False
    for node in graph.get("nodes") or []:
        if not isinstance(node, dict) or node.get("hidden"):
            continue
        name = str(node.get("name") or "")
        key_metrics = node.get("keyMetrics") or {}
        io: dict[str, Any] = {}
        if name.startswith("Scan "):
            for metric in node.get("metrics") or []:
                value = number(metric.get("value")) if isinstance(metric, dict) else None
                if value is not None:
                    io[str(metric.get("label"))] = value
            if "Cloud storage request duration" in io:
                request_ms += float(io["Cloud storage request duration"])
                has_requests = True
        ops.append(
            ProfileOperator(
                operator_id=str(node.get("id")),
                operator_type=name or str(node.get("tag") or "?"),
                parent_id=parents.get(str(node.get("id"))),
                time_ms=number(key_metrics.get("durationMs")),
                io=io,
            )
        )
    total = sum(op.time_ms or 0.0 for op in ops)
    for op in ops:
        op.time_share = (op.time_ms / total) if total and op.time_ms is not None else None
    return ops, (request_ms if has_requests else None)


def _load_history(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    doc = read_json(path, options.encoding, HISTORY_EXPECTED)
    items = doc.get("res") if isinstance(doc, dict) else doc
    if isinstance(doc, dict) and items is None and "query_id" in doc:
        items = [doc]
    if not isinstance(items, list):
        raise missing(path, HISTORY_EXPECTED, "res")
    rows = [r for r in items if isinstance(r, dict)]
    if not rows or "query_id" not in rows[0]:
        raise missing(path, HISTORY_EXPECTED, "res[0].query_id")
    rows.sort(key=lambda r: number(r.get("query_start_time_ms")) or 0.0)
    runs: list[ProfileRun] = []
    skipped = 0
    for i, row in enumerate(rows):
        status = str(row.get("status") or "FINISHED").upper()
        metrics = row.get("metrics")
        if status != "FINISHED" or not isinstance(metrics, dict):
            skipped += 1
            continue
        elapsed = number(metrics.get("total_time_ms"))
        if elapsed is None:
            elapsed = number(row.get("duration"))
        if elapsed is None:
            raise InputFormatError(
                path, f"not {HISTORY_EXPECTED}: no time", field=f"res[{i}].metrics.total_time_ms"
            )
        read = integer(metrics.get("read_bytes"))
        remote, local, fraction, method = _split(
            read,
            integer(metrics.get("read_remote_bytes")),
            integer(metrics.get("read_cache_bytes")),
            None,
        )
        warehouse = row.get("warehouse_id") or row.get("endpoint_id")
        runs.append(
            ProfileRun(
                series=_series(str(row.get("query_text") or ""), warehouse),
                elapsed_ms=elapsed,
                split_method=method,  # type: ignore[arg-type]
                system="databricks",
                query_id=row.get("query_id"),
                query_text=row.get("query_text"),
                start_time=_epoch_ms(row.get("query_start_time_ms")),
                compile_ms=number(metrics.get("compilation_time_ms")),
                exec_ms=number(metrics.get("execution_time_ms")),
                bytes_scanned=read,
                bytes_remote=remote,
                bytes_local=local,
                cache_fraction=fraction,
                result_cache_hit=metrics.get("result_from_cache") is True,
                attributes={"warehouse_id": warehouse, "result_cache_hit_method": "reported"},
            )
        )
    if skipped:
        writer.warn(f"{path}: {skipped} query(ies) not FINISHED or without metrics left out")
    if not runs:
        raise InputFormatError(
            path, f"no finished queries with metrics; expected {HISTORY_EXPECTED}"
        )
    suite_id = suite_for(writer, options, f"databricks / {path.name.split('.')[0]}", "databricks")
    write_runs(writer, suite_id, HISTORY, runs)


register(
    Ingester(
        name=PROFILE,
        description="Databricks SQL query-profile JSON (Query Profile UI download)",
        sniff=_sniff_profile,
        load=_load_profile,
        priority=30,
    )
)
register(
    Ingester(
        name=HISTORY,
        description="Databricks SQL query-history API JSON (include_metrics=true)",
        sniff=_sniff_history,
        load=_load_history,
        priority=31,
    )
)
