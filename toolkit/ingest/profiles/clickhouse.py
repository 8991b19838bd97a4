"""ClickHouse ``system.query_log`` exported as JSONEachRow or CSVWithNames
(``research/profiles.md`` §3).

Only finished rows are runs (``type`` = QueryFinish / 2); ``QueryStart`` rows are skipped and
exceptions are left out with a warning. Rows of one distributed query (same
``initial_query_id``) are summed. ``ProfileEvents`` is a map (JSON object, or ClickHouse's
CSV map text ``{'Name':1,...}``) or the old ``ProfileEvents.Names``/``.Values`` arrays;
UInt64 values may be quoted strings. Zero counters are omitted by ClickHouse, so once a
tier counter is present an absent one means 0.

Split ``from_counters``: remote = ``ReadBufferFromS3Bytes`` + ``ReadBufferFromAzureBytes``
(+ ``ReadBufferFromWebServerBytes``), or the cache misses
``CachedReadBufferReadFromSourceBytes`` when no S3/Azure counter is present; local =
``CachedReadBufferReadFromCacheBytes``. ``read_bytes`` is uncompressed (a different kind
of byte than the compressed tier bytes, §0 item 6) and is kept as bytes scanned. A series
is one ``normalized_query_hash`` (else the text); ``query_cache_usage = 'Read'`` marks a
result-cache hit.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import csv_dicts, parse_json, parse_json_records
from toolkit.ingest.profiles.common import (
    ProfileRun,
    integer,
    missing,
    number,
    read_text,
    suite_for,
    write_runs,
)
from toolkit.ingest.registry import Ingester, IngestOptions, register
from toolkit.store import SourceWriter

NAME = "clickhouse-query-log"
EXPECTED = "a ClickHouse system.query_log export (JSONEachRow or CSVWithNames)"
REMOTE_EVENTS = (
    "ReadBufferFromS3Bytes",
    "ReadBufferFromAzureBytes",
    "ReadBufferFromWebServerBytes",
)
_MAP_ITEM = re.compile(r"'((?:[^'\\]|\\.)*)'\s*:\s*'?(-?[0-9.eE+]+)'?")


def _sniff(path: Path, head: bytes) -> bool:
    text = head.lstrip()
    if text.startswith(b"{"):
        first = text.split(b"\n", 1)[0]
        return b'"query_duration_ms"' in first and b'"query_id"' in first
    names = [c.strip().strip(b'"') for c in text.split(b"\n", 1)[0].split(b",")]
    return b"query_duration_ms" in names and b"query_id" in names


def _events(row: dict[str, Any], path: Path) -> dict[str, float]:
    raw = row.get("ProfileEvents")
    line = row["_line"]
    if isinstance(raw, dict):
        return {str(k): v for k, v in ((k, number(v)) for k, v in raw.items()) if v is not None}
    if isinstance(raw, str) and raw.strip().startswith("{"):
        text = raw.strip()
        if "'" in text:  # ClickHouse's CSV map text {'Name':1,...}
            return {
                m.group(1): v
                for m in _MAP_ITEM.finditer(text)
                if (v := number(m.group(2))) is not None
            }
        parsed = parse_json(text, path=path, line=line, field="ProfileEvents")
        if not isinstance(parsed, dict):
            raise InputFormatError(
                path, "expected a map of counters", line=line, field="ProfileEvents"
            )
        return _events({"ProfileEvents": parsed, "_line": line}, path)
    names = row.get("ProfileEvents.Names")
    values = row.get("ProfileEvents.Values")
    if isinstance(names, str):
        names, values = (
            parse_json(
                str(text).replace("'", '"'), path=path, line=line, field=f"ProfileEvents.{field}"
            )
            for text, field in ((names, "Names"), (values, "Values"))
        )
    if isinstance(names, list) and isinstance(values, list):
        return {
            str(k): v
            for k, v in ((k, number(v)) for k, v in zip(names, values, strict=False))
            if v is not None
        }
    return {}


def _rows(path: Path, text: str) -> list[dict[str, Any]]:
    if text.lstrip().startswith("{"):
        rows = []
        for line_no, row in parse_json_records(text, path=path, expected=EXPECTED):
            if not isinstance(row, dict):
                raise InputFormatError(path, f"expected {EXPECTED}", line=line_no)
            row["_line"] = line_no
            rows.append(row)
        return rows
    return [{**r, "_line": line} for line, r in csv_dicts(text, path=path)]


def _start(row: dict[str, Any]) -> datetime | None:
    for key in (
        "query_start_time_microseconds",
        "query_start_time",
        "event_time_microseconds",
        "event_time",
    ):
        value = row.get(key)
        if value:
            try:
                parsed = datetime.fromisoformat(str(value).replace("T", " "))
            except ValueError:
                continue
            # query_log times are in the server's zone; without it, read them as UTC
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    text = read_text(path, options.encoding, EXPECTED)
    rows = _rows(path, text)
    if not rows:
        raise InputFormatError(path, f"no rows; expected {EXPECTED}")
    for col in ("query_id", "query_duration_ms"):
        if col not in rows[0]:
            raise missing(path, EXPECTED, col)
    groups: dict[str, list[dict[str, Any]]] = {}
    failed = 0
    for row in rows:
        kind = str(row.get("type", "QueryFinish"))
        if kind in ("QueryStart", "1"):
            continue
        if kind not in ("QueryFinish", "2"):
            failed += 1
            continue
        key = str(row.get("initial_query_id") or row.get("query_id"))
        groups.setdefault(key, []).append(row)
    runs: list[ProfileRun] = []
    for key, parts in groups.items():
        initial = next(
            (p for p in parts if str(p.get("is_initial_query", "1")) in ("1", "true", "True")),
            parts[0],
        )
        elapsed = number(initial.get("query_duration_ms"))
        if elapsed is None:
            raise InputFormatError(
                path,
                "not a number of milliseconds",
                line=initial["_line"],
                field="query_duration_ms",
            )
        events: dict[str, float] = {}
        for p in parts:
            for name, value in _events(p, path).items():
                events[name] = events.get(name, 0.0) + value
        read_bytes = (
            sum(integer(p.get("read_bytes")) or 0 for p in parts)
            if any(p.get("read_bytes") not in (None, "") for p in parts)
            else None
        )
        remote_present = [e for e in REMOTE_EVENTS if e in events]
        source = events.get("CachedReadBufferReadFromSourceBytes")
        cache = events.get("CachedReadBufferReadFromCacheBytes")
        if remote_present or source is not None or cache is not None:
            method = "from_counters"
            remote = (
                round(sum(events[e] for e in remote_present))
                if remote_present
                else round(source or 0.0)
            )
            local = round(cache or 0.0)
        else:
            method, remote, local = "unavailable", None, None
        fingerprint = (
            str(initial.get("normalized_query_hash") or "")
            or hashlib.sha256(
                " ".join(str(initial.get("query") or "").split()).encode()
            ).hexdigest()[:16]
        )
        host = str(initial.get("hostname") or "").strip()
        s3_us = events.get("ReadBufferFromS3Microseconds")
        runs.append(
            ProfileRun(
                series=f"{fingerprint} on {host or 'server'}",
                elapsed_ms=elapsed,
                split_method=method,  # type: ignore[arg-type]
                system="clickhouse",
                query_id=key,
                query_text=initial.get("query"),
                start_time=_start(initial),
                bytes_scanned=read_bytes,
                bytes_remote=remote,
                bytes_local=local,
                bytes_memory=integer(events.get("PageCacheReadBytes")),
                cache_fraction=(local / (remote + local))
                if remote is not None and local is not None and remote + local > 0
                else None,
                remote_read_ms=None if s3_us is None else s3_us / 1000.0,
                result_cache_hit=str(initial.get("query_cache_usage") or "") == "Read",
                attributes={
                    "bytes_scanned_kind": "uncompressed",
                    "log_comment": initial.get("log_comment") or None,
                    "servers": len(parts),
                    "line": initial["_line"],
                    "profile_events": events,
                    "result_cache_hit_method": "reported",
                },
            )
        )
    if failed:
        writer.warn(f"{path}: {failed} failed query row(s) left out")
    if not runs:
        raise InputFormatError(path, f"no finished queries (type QueryFinish); expected {EXPECTED}")
    runs.sort(
        key=lambda r: (r.start_time is None, r.start_time or datetime.min.replace(tzinfo=UTC))
    )
    suite_id = suite_for(writer, options, f"clickhouse / {path.name.split('.')[0]}", "clickhouse")
    write_runs(writer, suite_id, NAME, runs)


register(
    Ingester(
        name=NAME,
        description="ClickHouse system.query_log (JSONEachRow, CSVWithNames) with ProfileEvents",
        sniff=_sniff,
        load=_load,
        priority=30,
    )
)
