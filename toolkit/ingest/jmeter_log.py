"""JMeter summariser lines (``summary +`` / ``summary =``) from a console or ``jmeter.log``.

Format from ``research/jmeter.md`` §3 (``Summariser.format``): ``<name> <+|=> <count> in
<HH:MM:SS> = <rate>/s Avg: <ms> Min: <ms> Max: <ms> Err: <n> (<pct>%)`` and, on ``+``
lines, `` Active: <n> Started: <n> Finished: <n>``. JMeter ≤ 2.13 printed the duration as
seconds (``in 6.1s``); the JVM locale may print decimal commas (``4920,5/s``, ``(0,00%)``);
``******`` stands for a rate over zero time. ``jmeter.log`` prefixes a timestamp and logger.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import arrow_table, file_bytes
from toolkit.ingest.jmeter import suite_name
from toolkit.ingest.registry import Ingester, IngestOptions, register
from toolkit.store import SourceWriter

#: research/jmeter.md §3, widened for the log prefix and both duration shapes. The name is
#: the text before the match (a pattern for it, ``\S.*?`` searched from every blank, took
#: quadratic time on a long line: found by fuzzing).
SUMMARY_LINE = re.compile(
    r" (?P<kind>[+=]) +(?P<count>\d+) in +"
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
    try:
        value = float(text.replace(",", "."))
    except ValueError:  # "1.2.3"
        raise ValueError(f"{text[:30]!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{text[:30]} is not a finite number")
    return value


def _int(text: str) -> int:
    if len(text) > 20:  # int() refuses 4300+ digits with a message about sys settings
        raise ValueError(f"{text[:20]}... ({len(text)} digits) is not a count or milliseconds")
    return int(text)


def parse_summary_line(line: str) -> SummaryLine | None:
    """Parse one summariser line (any prefix before the name is ignored), or None.

    Raises ``ValueError`` for a line of the summariser's shape whose numbers do not parse
    (``1.2.3/s``, a duration beyond any float, an integer of more than 20 digits).

    >>> parse_summary_line("summary +      1 in 00:00:00 =    4.1/s Avg:    62 Min:    62 "
    ...                    "Max:    62 Err:     0 (0.00%) Active: 1 Started: 1 Finished: 0").rate
    4.1
    """
    prefix = _LOG_PREFIX.match(line.rstrip("\r\n"))
    text = prefix.group("rest") if prefix else line.rstrip("\r\n")
    if " Avg: " not in text:  # fast path: most lines of a log are not summariser lines
        return None
    match = SUMMARY_LINE.search(text)
    while match is not None and not text[: match.start()].strip():
        match = SUMMARY_LINE.search(text, match.start() + 1)  # the name must not be blank
    if match is None:
        return None
    g = match.groupdict()
    g["name"] = text[: match.start()]
    if g["secs"] is not None:
        seconds = _number(g["secs"])
    else:
        seconds = _number(g["h"]) * 3600 + _int(g["m"]) * 60 + _int(g["s"])
        if not math.isfinite(seconds):
            raise ValueError(f"{g['h'][:30]} hours is not a finite duration")
    return SummaryLine(
        name=g["name"].strip().split(": ")[-1],
        kind=g["kind"],
        count=_int(g["count"]),
        seconds=float(seconds),
        rate=None if g["rate"].startswith("*") else _number(g["rate"]),
        avg_ms=_int(g["avg"]),
        min_ms=_int(g["min"]),
        max_ms=_int(g["max"]),
        errors=_int(g["err"]),
        error_pct=_number(g["errpct"]),
        active=_int(g["active"]) if g["active"] else None,
        started=_int(g["started"]) if g["started"] else None,
        finished=_int(g["finished"]) if g["finished"] else None,
    )


def _sniff(path: Path, head: bytes) -> bool:
    text = head.decode("utf-8", "replace")
    for line in text.splitlines()[:400]:
        try:
            if parse_summary_line(line) is not None:
                return True
        except ValueError:
            return True  # the summariser's shape with a bad number: _load names the line
    return False


#: Arrow types of the ``load_windows`` columns (schemas/002_load.sql)
_ARROW_TYPES = {
    "name": pa.string(),
    "kind": pa.string(),
    "window_end": pa.timestamp("us", tz="UTC"),
    "seconds": pa.float64(),
    "count": pa.int64(),
    "rate": pa.float64(),
    "avg_ms": pa.float64(),
    "min_ms": pa.int64(),
    "max_ms": pa.int64(),
    "errors": pa.int64(),
    "active_threads": pa.int32(),
    "started": pa.int32(),
    "finished": pa.int32(),
    "line": pa.int64(),
}


def _epoch_ms(text: str, *, path: Path, line: int) -> datetime:
    """The test start ``(1795316506645)`` of a ``Starting ... test @`` line (epoch ms)."""
    try:
        return datetime.fromtimestamp(int(text) / 1000, UTC)
    except (ValueError, OverflowError, OSError):
        raise InputFormatError(
            path, f"test start {text[:30]} is not an epoch time in milliseconds", line=line
        ) from None


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    raw = file_bytes(path)
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
            start = _epoch_ms(anchor.group("epoch"), path=path, line=number)
        try:
            parsed = parse_summary_line(line_text)
        except ValueError as exc:
            raise InputFormatError(path, f"summariser line: {exc}", line=number) from None
        if parsed is None:
            continue
        prefix = _LOG_PREFIX.match(line_text)
        end: datetime | None = None
        try:
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
        except (ValueError, OverflowError):
            # a date like 2024-13-45, or a window that ends after the year 9999
            raise InputFormatError(
                path, "the window's end time is not a valid date", line=number
            ) from None
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
    table = arrow_table(rows, _ARROW_TYPES, path=path, lines=rows["line"])
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


register(
    Ingester(
        name="jmeter-log",
        description="JMeter console / jmeter.log summariser lines (summary + / summary =)",
        sniff=_sniff,
        load=_load,
        priority=70,
    )
)
