"""ClickBench result JSON (``research/clickbench.md`` §1).

One file per (system, machine, date): ``result`` holds one row per query (43 in ClickBench)
of N runs (3 in ClickBench; any N here), the first run cold, ``null`` for a failed run.
Both repository layouts name the file: ``<system>/results/<YYYYMMDD>/<machine>.json`` and
the older ``<system>/results/<machine>.json``. ``{"error": ...}`` files and the system
folders' ``template.json`` are skipped, so a whole repository checkout can be ingested.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import MAX_RUN_SECONDS, file_bytes, parse_json
from toolkit.ingest.registry import Ingester, IngestOptions, SkipFile, register
from toolkit.store import SourceWriter

EXPECTED_QUERIES = 43
_DATE_DIR = re.compile(r"^\d{8}$")


def _sniff(path: Path, head: bytes) -> bool:
    text = head.lstrip()
    if not text.startswith(b"{"):
        return False
    if path.name == "template.json" and b'"system"' in head:
        return True  # a system folder's metadata template in the ClickBench repository
    return b'"result"' in head or (b'"error"' in head and len(head) < 4096)


def _parse(path: Path, encoding: str | None) -> Any:
    raw = file_bytes(path)
    try:
        text = raw.decode(encoding or "utf-8")
    except (UnicodeDecodeError, LookupError) as exc:
        raise InputFormatError(
            path,
            f"not valid {encoding or 'UTF-8'} text ({exc.reason if hasattr(exc, 'reason') else exc}); "
            "pass --encoding (e.g. --encoding latin-1)",
        ) from None
    return parse_json(text, path=path, finite=True)


def layout_from_path(path: Path) -> dict[str, str]:
    """System directory, date directory and machine file from either repository layout.

    Also reads the flattened form ``<system>__results__<YYYYMMDD>__<machine>.json``.
    Returns only the parts it found.
    """
    parts: dict[str, str] = {}
    name = path.name.removesuffix(".gz")  # a gzipped result keeps its machine name
    stem = name[: -len(".json")] if name.endswith(".json") else Path(name).stem
    flat = stem.split("__")
    if len(flat) >= 3 and flat[1] == "results":
        parts["system_dir"] = flat[0]
        if len(flat) >= 4 and _DATE_DIR.match(flat[2]):
            parts["date_dir"] = flat[2]
            parts["machine_file"] = "__".join(flat[3:])
        else:
            parts["machine_file"] = "__".join(flat[2:])
        return parts
    parents = path.parts[:-1]
    parts["machine_file"] = stem
    if len(parents) >= 2 and _DATE_DIR.match(parents[-1]) and parents[-2] == "results":
        parts["date_dir"] = parents[-1]
        if len(parents) >= 3:
            parts["system_dir"] = parents[-3]
    elif parents and parents[-1] == "results" and len(parents) >= 2:
        parts["system_dir"] = parents[-2]
    return parts


def _optional_str(path: Path, doc: dict[str, Any], key: str) -> str | None:
    value = doc.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputFormatError(path, f"expected a string, got {json.dumps(value)[:60]}", field=key)
    return value


def _as_float(value: Any) -> float | None:
    """``value`` as a finite float, or None when it is not a JSON number or is too big."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)  # an int of 400 digits overflows here
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _optional_number(path: Path, doc: dict[str, Any], key: str) -> float | None:
    value = doc.get(key)
    if value is None:
        return None
    number = _as_float(value)
    if number is None:
        raise InputFormatError(
            path, f"expected a number or null, got {json.dumps(value)[:60]}", field=key
        )
    return number


def parse_result_rows(path: Path, result: Any) -> list[list[float | None]]:
    """Validate ``result``: a list of rows, each a non-empty list of seconds >= 0 or null."""
    if not isinstance(result, list):
        raise InputFormatError(path, "expected an array of per-query arrays", field="result")
    rows: list[list[float | None]] = []
    for q, row in enumerate(result):
        # fast path for the usual row of finite floats in range (NaN and inf fail it)
        if (
            type(row) is list
            and row
            and all(type(v) is float and 0.0 <= v <= MAX_RUN_SECONDS for v in row)
        ):
            rows.append(row)
            continue
        if row is None:
            rows.append([None])
            continue
        if not isinstance(row, list) or not row:
            raise InputFormatError(
                path,
                f"expected a non-empty array of run times, got {json.dumps(row)[:60]}",
                field=f"result[{q}]",
            )
        values: list[float | None] = []
        for r, value in enumerate(row):
            if value is None:
                values.append(None)
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputFormatError(
                    path,
                    f"expected seconds (a number) or null, got {json.dumps(value)[:60]}",
                    field=f"result[{q}][{r}]",
                )
            seconds = _as_float(value)
            if seconds is None or not 0 <= seconds <= MAX_RUN_SECONDS:
                raise InputFormatError(
                    path,
                    f"run time {json.dumps(value)[:60]} is not a number of seconds from 0 to "
                    f"{MAX_RUN_SECONDS:g} (32 years)",
                    field=f"result[{q}][{r}]",
                )
            values.append(seconds)
        rows.append(values)
    return rows


def _run_date(path: Path, doc: dict[str, Any], layout: dict[str, str]) -> date | None:
    text = _optional_str(path, doc, "date")
    if text:
        try:
            return date.fromisoformat(text)
        except ValueError:
            raise InputFormatError(
                path, f"expected a date YYYY-MM-DD, got {text[:40]!r}", field="date"
            ) from None
    if "date_dir" in layout:
        return datetime.strptime(layout["date_dir"], "%Y%m%d").date()
    return None


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    doc = _parse(path, options.encoding)
    if not isinstance(doc, dict):
        raise InputFormatError(path, "expected a JSON object with a 'result' array")
    if "result" not in doc:
        if path.name == "template.json":
            raise SkipFile(f"{path}: skipped: ClickBench system template, not a result")
        if "error" in doc:
            raise SkipFile(
                f"{path}: skipped: error-only ClickBench entry ({str(doc['error'])[:120]})"
            )
        raise InputFormatError(
            path, "missing; this is not a ClickBench result file", field="result"
        )
    rows = parse_result_rows(path, doc["result"])
    layout = layout_from_path(path)
    system = _optional_str(path, doc, "system") or layout.get("system_dir")
    machine = _optional_str(path, doc, "machine") or layout.get("machine_file")
    if not system:
        raise InputFormatError(path, 'missing and not in the path; add "system"', field="system")
    if not machine:
        raise InputFormatError(path, 'missing; add "machine"', field="machine")
    run_date = _run_date(path, doc, layout)
    tags_raw = doc.get("tags", [])
    if not isinstance(tags_raw, list) or not all(isinstance(t, str) for t in tags_raw):
        raise InputFormatError(path, "expected an array of strings", field="tags")
    cluster = doc.get("cluster_size")
    if cluster is not None and (
        isinstance(cluster, bool) or not isinstance(cluster, int | float | str)
    ):
        raise InputFormatError(path, "expected a number or a string", field="cluster_size")
    data_size = _optional_number(path, doc, "data_size")
    if data_size is not None and not 0 <= data_size < 2**63:
        raise InputFormatError(
            path, f"expected a size in bytes >= 0, got {doc['data_size']!r}", field="data_size"
        )
    extra_tags = [t for t in options.tags if "=" not in t]
    attributes = dict(t.split("=", 1) for t in options.tags if "=" in t)
    for key in ("system_dir", "date_dir", "machine_file"):
        if key in layout:
            attributes[key] = layout[key]
    if doc.get("hide") is True:
        attributes["hide"] = "true"
    name = (
        options.suite or f"{system} / {machine} / {run_date.isoformat() if run_date else 'undated'}"
    )
    if len(rows) != EXPECTED_QUERIES:
        writer.warn(f"{path}: {len(rows)} query rows (ClickBench has {EXPECTED_QUERIES})")
    suite_id = writer.suite(
        name,
        kind="iterations",
        join=False,
        system=system,
        machine=machine,
        run_date=run_date,
        cluster_size=None if cluster is None else str(cluster),
        proprietary=_optional_str(path, doc, "proprietary"),
        hardware=_optional_str(path, doc, "hardware"),
        tuned=_optional_str(path, doc, "tuned"),
        tags=[*tags_raw, *extra_tags],
        attributes=attributes,
        comment=_optional_str(path, doc, "comment"),
        load_time_s=_optional_number(path, doc, "load_time"),
        data_size_bytes=None if data_size is None else round(data_size),
        concurrent_qps=_optional_number(path, doc, "concurrent_qps"),
        concurrent_error_ratio=_optional_number(path, doc, "concurrent_error_ratio"),
    )
    indexes = [q for q, row in enumerate(rows) for _ in row]
    its = [i for row in rows for i in range(len(row))]
    seconds = [value for row in rows for value in row]
    queries = [f"Q{q}" for q in indexes]
    n = len(its)
    # pyarrow straight into one INSERT: no DataFrame, no registered view (each view is a
    # catalog change), since a ClickBench tree is tens of thousands of such small files
    table = pa.table(
        [
            pa.array([suite_id] * n, pa.int64()),
            pa.array([writer.source_id] * n, pa.int64()),
            pa.array(queries, pa.string()),
            pa.array(indexes, pa.int32()),
            pa.array([0] * n, pa.int32()),
            pa.array(its, pa.int32()),
            pa.array(seconds, pa.float64()),
        ],
        schema=_ITERATIONS_ARROW,
    )
    writer.append("iterations", table)


_ITERATIONS_ARROW = pa.schema(
    [
        ("suite_id", pa.int64()),
        ("source_id", pa.int64()),
        ("query", pa.string()),
        ("query_index", pa.int32()),
        ("process", pa.int32()),
        ("iteration", pa.int32()),
        ("seconds", pa.float64()),
    ]
)


register(
    Ingester(
        name="clickbench",
        description="ClickBench result JSON (<system>/results/[<YYYYMMDD>/]<machine>.json)",
        sniff=_sniff,
        load=_load,
        priority=20,
        staged=True,
    )
)
