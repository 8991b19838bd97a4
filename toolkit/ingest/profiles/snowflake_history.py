"""Snowflake query history: ``SNOWFLAKE.ACCOUNT_USAGE.QUERY_HISTORY`` and
``INFORMATION_SCHEMA.QUERY_HISTORY()`` exports, CSV (Snowsight "Download results") or JSON
(an array, or one object per line, e.g. ``TO_JSON(OBJECT_CONSTRUCT(*))``).

``research/profiles.md`` §2.1–2.2, §2.6: durations in ms, sizes in bytes;
``PERCENTAGE_SCANNED_FROM_CACHE`` (a 0–1 fraction, ACCOUNT_USAGE only) gives the split
(remote = B × (1 − f), local = B × f: ``from_fraction``); the table function has no such
column (``unavailable``). A series is one ``QUERY_PARAMETERIZED_HASH`` (else
``QUERY_HASH``, else the text) on one warehouse size and cluster; runs ordered by start
time; a run with ``QUEUED_PROVISIONING_TIME`` > 0 (warehouse resumed: cache dropped) starts
a new cache epoch. A result-cache hit (0 bytes scanned, no warehouse size, after a run
of the same hash) is kept in the series but marked and left out of the warm-up.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import csv_dicts, parse_json_records, upper_keys
from toolkit.ingest.profiles.common import (
    ProfileRun,
    integer,
    missing,
    number,
    read_text,
    split_from_fraction,
    suite_for,
    write_runs,
)
from toolkit.ingest.registry import Ingester, IngestOptions, register
from toolkit.store import SourceWriter

NAME = "snowflake-history"
EXPECTED = "a Snowflake QUERY_HISTORY export (CSV or JSON with QUERY_ID, TOTAL_ELAPSED_TIME, ...)"
REQUIRED = ("QUERY_ID", "TOTAL_ELAPSED_TIME", "BYTES_SCANNED")
#: Gen1 standard warehouse nodes per size (profiles.md §2.1; the seed: X-Large = 16)
NODES = {
    "X-SMALL": 1,
    "XSMALL": 1,
    "SMALL": 2,
    "MEDIUM": 4,
    "LARGE": 8,
    "X-LARGE": 16,
    "XLARGE": 16,
    "2X-LARGE": 32,
    "XXLARGE": 32,
    "3X-LARGE": 64,
    "XXXLARGE": 64,
    "4X-LARGE": 128,
    "X4LARGE": 128,
    "5X-LARGE": 256,
    "6X-LARGE": 512,
}
# (?<!\s): start only where a run of blanks starts (linear on a long run of blanks)
_OFFSET = re.compile(r"(?<!\s)\s*([+-]\d{2}):?(\d{2})$")


def _sniff(path: Path, head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    upper = text[:4096].upper()
    if text.startswith((b"[", b"{")):
        return b'"QUERY_ID"' in upper and b'"TOTAL_ELAPSED_TIME"' in upper
    first = upper.split(b"\n", 1)[0]
    names = [c.strip().strip(b'"') for c in first.split(b",")]
    return b"QUERY_ID" in names and b"TOTAL_ELAPSED_TIME" in names


def parse_time(value: Any) -> datetime | None:
    """``2024-01-25T04:01:37.002-08:00`` or ``2023-11-21 23:09:26.604 -0800`` → UTC."""
    if value is None or not str(value).strip():
        return None
    text = _OFFSET.sub(lambda m: f"{m.group(1)}:{m.group(2)}", str(value).strip())
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _records(path: Path, text: str) -> list[dict[str, Any]]:
    if text.lstrip().startswith(("[", "{")):
        rows = [r for _, r in parse_json_records(text, path=path, expected=EXPECTED)]
        if not all(isinstance(r, dict) for r in rows):
            raise InputFormatError(path, f"expected JSON objects; expected {EXPECTED}")
        names: dict[Any, str] = {}
        return [upper_keys(r, names, strip=False) for r in rows]
    names = {}
    return [upper_keys(r, names, strip=True) for _, r in csv_dicts(text, path=path)]


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    text = read_text(path, options.encoding, EXPECTED)
    rows = _records(path, text)
    if not rows:
        raise InputFormatError(path, f"no rows; expected {EXPECTED}")
    for col in REQUIRED:
        if col not in rows[0]:
            raise missing(path, EXPECTED, col)
    column_set = (
        "account_usage" if "PERCENTAGE_SCANNED_FROM_CACHE" in rows[0] else "information_schema"
    )
    failed = 0
    parsed: list[tuple[datetime | None, int, dict[str, Any]]] = []
    for i, row in enumerate(rows):
        status = str(row.get("EXECUTION_STATUS") or "SUCCESS").upper()
        if status != "SUCCESS":
            failed += 1
            continue
        parsed.append((parse_time(row.get("START_TIME")), i, row))
    # run order = start time (rows without one keep file order at the end)
    parsed.sort(key=lambda t: (t[0] is None, t[0] or datetime.min.replace(tzinfo=UTC), t[1]))
    last_series: dict[str, str] = {}  # fingerprint -> series of its latest warehouse run
    epochs: dict[str, int] = {}
    runs: list[ProfileRun] = []
    for start, i, row in parsed:
        line = i + 2
        fingerprint, kind = _fingerprint(row)
        size = str(row.get("WAREHOUSE_SIZE") or "").strip()
        warehouse = str(row.get("WAREHOUSE_NAME") or "").strip()
        cluster = integer(row.get("CLUSTER_NUMBER"))
        elapsed = number(row.get("TOTAL_ELAPSED_TIME"))
        if elapsed is None:
            raise InputFormatError(
                path, "not a number of milliseconds", line=line, field="TOTAL_ELAPSED_TIME"
            )
        scanned = integer(row.get("BYTES_SCANNED"))
        hit = (
            not size
            and scanned == 0
            and fingerprint in last_series
            and str(row.get("QUERY_TYPE") or "SELECT").upper() == "SELECT"
        )
        if hit:
            series = last_series[fingerprint]
        else:
            where = f"{warehouse or 'no warehouse'}" + (f" {size}" if size else "")
            if cluster is not None and cluster > 1:
                where += f" cluster {cluster}"
            series = f"{fingerprint[:12]} on {where}"
            if size:
                last_series[fingerprint] = series
        provisioning = number(row.get("QUEUED_PROVISIONING_TIME"))
        if series not in epochs:
            epochs[series] = 1
        elif provisioning and provisioning > 0 and not hit:
            epochs[series] += 1
        fraction = None
        if column_set == "account_usage":
            raw = number(row.get("PERCENTAGE_SCANNED_FROM_CACHE"))
            if raw is not None:
                fraction = raw / 100.0 if raw > 1 else raw
        remote, local = split_from_fraction(scanned, fraction)
        runs.append(
            ProfileRun(
                series=series,
                elapsed_ms=elapsed,
                split_method="from_fraction" if fraction is not None else "unavailable",
                system="snowflake",
                query_id=str(row.get("QUERY_ID") or "") or None,
                query_text=row.get("QUERY_TEXT"),
                warehouse_size=size or None,
                nodes=NODES.get(size.upper().replace(" ", "")),
                start_time=start,
                compile_ms=number(row.get("COMPILATION_TIME")),
                exec_ms=number(row.get("EXECUTION_TIME")),
                bytes_scanned=scanned,
                bytes_remote=remote,
                bytes_local=local,
                cache_fraction=fraction,
                result_cache_hit=hit,
                cache_epoch=epochs[series],
                attributes={
                    "column_set": column_set,
                    "fingerprint_kind": kind,
                    "query_type": row.get("QUERY_TYPE"),
                    "warehouse_name": warehouse or None,
                    "cluster_number": cluster,
                    "queued_provisioning_ms": provisioning,
                    "result_cache_hit_method": "inferred" if hit else None,
                    "record": line if not text.lstrip().startswith(("[", "{")) else i + 1,
                },
            )
        )
    if failed:
        writer.warn(f"{path}: {failed} statement(s) not SUCCESS left out")
    suite_id = suite_for(writer, options, f"snowflake / {path.name.split('.')[0]}", "snowflake")
    write_runs(writer, suite_id, NAME, runs)


def _fingerprint(row: dict[str, Any]) -> tuple[str, str]:
    for col, kind in (
        ("QUERY_PARAMETERIZED_HASH", "sf_param_hash"),
        ("QUERY_HASH", "sf_query_hash"),
    ):
        value = str(row.get(col) or "").strip()
        if value:
            return value, kind
    text = " ".join(str(row.get("QUERY_TEXT") or "").split())
    return hashlib.sha256(text.encode()).hexdigest(), "text_sha256"


register(
    Ingester(
        name=NAME,
        description="Snowflake ACCOUNT_USAGE / INFORMATION_SCHEMA QUERY_HISTORY export (CSV, JSON)",
        sniff=_sniff,
        load=_load,
        priority=30,
    )
)
