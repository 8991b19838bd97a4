"""The documented generic profile CSV, for systems the toolkit does not know.

Columns (header required; only ``series, run, elapsed_s`` are required, any order):

``series, run, elapsed_s, bytes_scanned, bytes_remote, bytes_local, scan_share,
remote_io_share, local_io_share, processing_share, nodes``

They are the columns of the seed's two tables (``seeds/001``): elapsed seconds (or
``7m 48s``), bytes as integers or with a decimal/binary unit (``121.7 GB`` = 121.7e9 bytes,
``1 GiB`` = 2^30), shares as fractions 0–1 or percent (``99%``, or a number above 1).
``scan_share`` is the share of the query's time spent in the table scan, the three I/O and
processing shares are shares *of the scan* (the Snowflake profile's TableScan breakdown).
When only ``bytes_scanned`` and one tier is given, the other tier is the difference.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import csv_rows, quoted
from toolkit.ingest.profiles.common import (
    ProfileRun,
    SplitMethod,
    read_text,
    suite_for,
    write_runs,
)
from toolkit.ingest.registry import Ingester, IngestOptions, register
from toolkit.store import SourceWriter

NAME = "profile-csv"
EXPECTED = "a generic profile CSV (columns series, run, elapsed_s, ...)"
REQUIRED = ("series", "run", "elapsed_s")
OPTIONAL = (
    "bytes_scanned",
    "bytes_remote",
    "bytes_local",
    "scan_share",
    "remote_io_share",
    "local_io_share",
    "processing_share",
    "nodes",
)
_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "pb": 10**15,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
    "pib": 2**50,
}
# Unambiguous patterns (each character can be read one way only), matched on stripped or
# blank-free text: the earlier ones, with adjacent optional blanks and digit runs, took
# quadratic time on a long cell (found by fuzzing).
_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_BYTES = re.compile(rf"({_NUMBER}(?:[eE][+-]?\d+)?)\s*([a-zA-Z]*)")
_DURATION = re.compile(
    rf"(?:(?P<h>{_NUMBER})h)?(?:(?P<m>{_NUMBER})m(?:in)?)?(?:(?P<s>{_NUMBER})s)?"
)


def _header(head: bytes) -> list[str]:
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].decode("utf-8", "replace")
    return [c.strip().strip('"').strip().lower() for c in first.split(",")]


def _sniff(path: Path, head: bytes) -> bool:
    names = _header(head)
    return all(col in names for col in REQUIRED)


def parse_bytes(text: str, *, path: Path, line: int, column: str) -> int | None:
    """``121.7 GB`` → 121_700_000_000 (decimal units; ``GiB`` binary); empty → None."""
    if not text.strip():
        return None
    match = _BYTES.fullmatch(text.strip())
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _UNITS:
        raise InputFormatError(
            path,
            f"column {column!r}: {quoted(text)} is not a byte count (e.g. 121700000000 or 121.7 GB)",
            line=line,
        )
    value = float(match.group(1)) * _UNITS[unit]
    if not math.isfinite(value):
        raise InputFormatError(
            path, f"column {column!r}: {quoted(text)} is not a finite byte count", line=line
        )
    return round(value)


def parse_seconds(text: str, *, path: Path, line: int, column: str) -> float | None:
    """``29.2`` / ``33.5s`` / ``7m 48s`` / ``31m`` / ``1 h 2 min`` → seconds; empty → None."""
    if not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        match = _DURATION.fullmatch("".join(text.split()))
        if match is None or not any(match.groupdict().values()):
            raise InputFormatError(
                path,
                f"column {column!r}: {quoted(text)} is not a duration (seconds, or e.g. 7m 48s)",
                line=line,
            ) from None
        parts = match.groupdict()
        value = sum(
            float(parts[k]) * mult for k, mult in (("h", 3600), ("m", 60), ("s", 1)) if parts[k]
        )
    if not math.isfinite(value) or value < 0:
        raise InputFormatError(
            path, f"column {column!r}: {quoted(text)} is not a finite duration >= 0", line=line
        )
    return value


def parse_share(text: str, *, path: Path, line: int, column: str) -> float | None:
    """``0.99`` or ``99%`` or ``99`` (above 1 = percent) → 0.99; empty → None."""
    raw = text.strip()
    if not raw:
        return None
    percent = raw.endswith("%")
    try:
        value = float(raw.rstrip("%").strip())
    except ValueError:
        raise InputFormatError(
            path, f"column {column!r}: {quoted(text)} is not a share (0..1 or a percent)", line=line
        ) from None
    if percent or value > 1:
        value /= 100.0
    if not 0 <= value <= 1:
        raise InputFormatError(
            path, f"column {column!r}: {quoted(text)} is not a share between 0 and 100 %", line=line
        )
    return value


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    text = read_text(path, options.encoding, EXPECTED)
    records = csv_rows(text, path=path)
    if not records:
        raise InputFormatError(path, f"empty file; expected {EXPECTED}")
    header = [h.strip().lower() for h in records[0][1]]
    for col in REQUIRED:
        if col not in header:
            raise InputFormatError(
                path,
                f"not {EXPECTED}: required column missing (found: {', '.join(header)[:120]})",
                field=col,
            )
    index = {name: i for i, name in enumerate(header)}
    runs: list[ProfileRun] = []
    seen: set[tuple[str, int]] = set()
    for number, row in records[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputFormatError(
                path, f"{len(row)} fields, the header has {len(header)}", line=number
            )

        def cell(name: str, row: list[str] = row) -> str:
            return row[index[name]].strip() if name in index else ""

        series = cell("series")
        if not series:
            raise InputFormatError(path, "column 'series' is empty", line=number)
        try:
            run_no = int(cell("run"))
        except ValueError:
            raise InputFormatError(
                path, f"column 'run': {quoted(cell('run'))} is not a run number >= 1", line=number
            ) from None
        if run_no < 1:
            raise InputFormatError(path, f"column 'run': {run_no} is not >= 1", line=number)
        if (series, run_no) in seen:
            raise InputFormatError(
                path, f"series {quoted(series)} run {run_no} appears twice", line=number
            )
        seen.add((series, run_no))
        elapsed = parse_seconds(cell("elapsed_s"), path=path, line=number, column="elapsed_s")
        if elapsed is None:
            raise InputFormatError(path, "column 'elapsed_s' is empty", line=number)
        scanned, remote, local = (
            parse_bytes(cell(c), path=path, line=number, column=c)
            for c in ("bytes_scanned", "bytes_remote", "bytes_local")
        )
        method: SplitMethod = (
            "reported" if remote is not None or local is not None else "unavailable"
        )
        if scanned is not None and (remote is None) != (local is None):
            # one tier given: the other is the rest of bytes scanned
            if remote is None and local is not None:
                remote = max(scanned - local, 0)
            elif local is None and remote is not None:
                local = max(scanned - remote, 0)
        nodes_text = cell("nodes")
        try:
            nodes = int(nodes_text) if nodes_text else None
        except ValueError:
            raise InputFormatError(
                path, f"column 'nodes': {quoted(nodes_text)} is not a whole number", line=number
            ) from None
        shares = {
            c: parse_share(cell(c), path=path, line=number, column=c)
            for c in ("scan_share", "remote_io_share", "local_io_share", "processing_share")
        }
        fraction = None
        if remote is not None and local is not None and remote + local > 0:
            fraction = local / (remote + local)
        runs.append(
            ProfileRun(
                series=series,
                run=run_no,
                elapsed_ms=elapsed * 1000.0,
                split_method=method,
                system="generic",
                nodes=nodes,
                bytes_scanned=scanned,
                bytes_remote=remote,
                bytes_local=local,
                cache_fraction=fraction,
                attributes={"line": number},
                scan_share=shares["scan_share"],
                remote_io_share=shares["remote_io_share"],
                local_io_share=shares["local_io_share"],
                processing_share=shares["processing_share"],
            )
        )
    if not runs:
        raise InputFormatError(path, f"no data rows; expected {EXPECTED}")
    stem = path.name.split(".")[0]
    suite_id = suite_for(writer, options, f"profile / {stem}", "generic")
    write_runs(writer, suite_id, NAME, runs)


register(
    Ingester(
        name=NAME,
        description="generic profile CSV: series, run, elapsed_s[, bytes_*, *_share, nodes]",
        sniff=_sniff,
        load=_load,
        priority=40,
    )
)
