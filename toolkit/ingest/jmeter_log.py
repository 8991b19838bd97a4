"""JMeter summariser lines (``summary +`` / ``summary =``) from a console or ``jmeter.log``.

Format from ``research/jmeter.md`` §3 (``Summariser.format``): ``<name> <+|=> <count> in
<HH:MM:SS> = <rate>/s Avg: <ms> Min: <ms> Max: <ms> Err: <n> (<pct>%)`` and, on ``+``
lines, `` Active: <n> Started: <n> Finished: <n>``. JMeter ≤ 2.13 printed the duration as
seconds (``in 6.1s``); the JVM locale may print decimal commas (``4920,5/s``, ``(0,00%)``);
``******`` stands for a rate over zero time. ``jmeter.log`` prefixes a timestamp and logger.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa

from toolkit.errors import InputFormatError
from toolkit.ingest.jmeter import suite_name
from toolkit.ingest.registry import Ingester, IngestOptions, register
from toolkit.store import SourceWriter

#: research/jmeter.md §3, widened for the log prefix and both duration shapes.
SUMMARY_LINE = re.compile(
    r"(?:^|\s)(?P<name>[^\s].*?) (?P<kind>[+=]) +(?P<count>\d+) in +"
    r"(?:(?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d)|(?P<secs>[\d.,]+)s) = +"
    r"(?P<rate>[\d.,]+|\*+)/s Avg: +(?P<avg>-?\d+) Min: +(?P<min>-?\d+) Max: +(?P<max>-?\d+) "
    r"Err: +(?P<err>\d+) \((?P<errpct>[\d.,]+)%\)"
    r"(?: Active: (?P<active>\d+) Started: (?P<started>\d+) Finished: (?P<finished>\d+))?\s*$"
)
_LOG_PREFIX = re.compile(
    r"^(?P<date>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:[,.](?P<ms>\d{1,3}))? +\w+ +\S+: (?P<rest>.*)$"
)
_START = re.compile(r"Starting (?:the |standalone )?test @ .*\((?P<epoch>\d{10,})\)")


@dataclass(frozen=True)
class SummaryLine:
    """One parsed summariser line; ``seconds`` is the window (``+``) or total (``=``) time."""

    name: str
    kind: str
    count: int
    seconds: float
    rate: float | None
    avg_ms: int
    min_ms: int
    max_ms: int
    errors: int
    error_pct: float
    active: int | None
    started: int | None
    finished: int | None


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def parse_summary_line(line: str) -> SummaryLine | None:
    """Parse one summariser line (any prefix before the name is ignored), or None.

    >>> parse_summary_line("summary +      1 in 00:00:00 =    4.1/s Avg:    62 Min:    62 "
    ...                    "Max:    62 Err:     0 (0.00%) Active: 1 Started: 1 Finished: 0").rate
    4.1
    """
    prefix = _LOG_PREFIX.match(line.rstrip("\r\n"))
    text = prefix.group("rest") if prefix else line.rstrip("\r\n")
    match = SUMMARY_LINE.search(text)
    if match is None:
        return None
    g = match.groupdict()
    if g["secs"] is not None:
        seconds = _number(g["secs"])
    else:
        seconds = int(g["h"]) * 3600 + int(g["m"]) * 60 + int(g["s"])
    return SummaryLine(
        name=g["name"].strip().split(": ")[-1],
        kind=g["kind"],
        count=int(g["count"]),
        seconds=float(seconds),
        rate=None if g["rate"].startswith("*") else _number(g["rate"]),
        avg_ms=int(g["avg"]),
        min_ms=int(g["min"]),
        max_ms=int(g["max"]),
        errors=int(g["err"]),
        error_pct=_number(g["errpct"]),
        active=int(g["active"]) if g["active"] else None,
        started=int(g["started"]) if g["started"] else None,
        finished=int(g["finished"]) if g["finished"] else None,
    )


def _sniff(path: Path, head: bytes) -> bool:
    text = head.decode("utf-8", "replace")
    return any(parse_summary_line(line) is not None for line in text.splitlines()[:400])


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    from toolkit.ingest.detect import read_head

    raw = read_head(path, size=1 << 62) if path.suffix == ".gz" else path.read_bytes()
    try:
        text = raw.decode(options.encoding or "utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputFormatError(
            path, "text is not valid UTF-8; pass --encoding (e.g. latin-1)", line=line
        ) from None
    keys = (
        "name",
        "kind",
        "window_end",
        "seconds",
        "count",
        "rate",
        "avg_ms",
        "min_ms",
        "max_ms",
        "errors",
        "active_threads",
        "started",
        "finished",
        "line",
    )
    rows: dict[str, list[object]] = {k: [] for k in keys}
    start: datetime | None = None
    elapsed: dict[str, float] = {}
    for number, line_text in enumerate(text.splitlines(), start=1):
        anchor = _START.search(line_text)
        if anchor:
            start = datetime.fromtimestamp(int(anchor.group("epoch")) / 1000, UTC)
        parsed = parse_summary_line(line_text)
        if parsed is None:
            continue
        prefix = _LOG_PREFIX.match(line_text)
        end: datetime | None = None
        if prefix:
            end = datetime.strptime(prefix.group("date"), "%Y-%m-%d %H:%M:%S").replace(
                tzinfo=UTC
            ) + timedelta(milliseconds=int((prefix.group("ms") or "0").ljust(3, "0")))
        elif start is not None:
            key = parsed.name
            if parsed.kind == "+":
                elapsed[key] = elapsed.get(key, 0.0) + parsed.seconds
                end = start + timedelta(seconds=elapsed[key])
            else:
                end = start + timedelta(seconds=parsed.seconds)
        values: tuple[object, ...] = (
            parsed.name,
            parsed.kind,
            end,
            parsed.seconds,
            parsed.count,
            parsed.rate,
            float(parsed.avg_ms),
            parsed.min_ms,
            parsed.max_ms,
            parsed.errors,
            parsed.active,
            parsed.started,
            parsed.finished,
            number,
        )
        for key, value in zip(rows, values, strict=True):
            rows[key].append(value)
    if not rows["name"]:
        raise InputFormatError(
            path, "no summariser lines ('summary + N in HH:MM:SS = R/s Avg: ...') found"
        )
    suite_id = writer.suite(
        options.suite or suite_name(path),
        kind="load",
        join=options.suite is not None,
        tags=[t for t in options.tags if "=" not in t],
        attributes=dict(t.split("=", 1) for t in options.tags if "=" in t),
    )
    types = {
        "window_end": pa.timestamp("us", tz="UTC"),
        "seconds": pa.float64(),
        "rate": pa.float64(),
        "avg_ms": pa.float64(),
    }
    table = pa.table({k: pa.array(v, type=types.get(k)) for k, v in rows.items()})
    con = writer.store.con
    con.register("_summary_rows", table)
    try:
        cols = ", ".join(rows)
        con.execute(
            f"INSERT INTO load_windows (suite_id, source_id, {cols}) "
            f"SELECT {suite_id}, {writer.source_id}, {cols} FROM _summary_rows"
        )
    finally:
        con.unregister("_summary_rows")
    writer.rows += len(rows["name"])


register(
    Ingester(
        name="jmeter-log",
        description="JMeter console / jmeter.log summariser lines (summary + / summary =)",
        sniff=_sniff,
        load=_load,
        priority=70,
    )
)
