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
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import GZIP_ERRORS, arrow_table, file_bytes, open_decompressed
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
#: timestamp prefixes a line may carry before the summariser's name, JMeter's own first
#: (research/jmeter.md §3): log4j2 since 3.2 (``2026-11-22 03:00:30,650 INFO
#: o.a.j.r.Summariser: ``), logkit up to 3.1 (``2014/06/11 10:22:11 INFO  -
#: jmeter.reporters.Summariser: ``); then a CI runner's ISO-8601 stamp
#: (``2026-11-22T03:00:30.0000000Z ``), which may itself precede a jmeter.log line.
_LOG_PREFIX = re.compile(
    r"^(?P<date>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:[,.](?P<ms>\d{1,3}))? +\w+ +\S+: (?P<rest>.*)$"
)
_OLD_LOG_PREFIX = re.compile(
    r"^(?P<date>\d{4}/\d\d/\d\d \d\d:\d\d:\d\d)(?:[,.](?P<ms>\d{1,3}))? +\w+ +- +\S+: "
    r"(?P<rest>.*)$"
)
_ISO_PREFIX = re.compile(
    r"^(?P<date>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(?P<frac>\d+))?"
    r"(?P<zone>Z|[+-]\d\d:?\d\d)? (?P<rest>.*)$"
)
#: the Summariser's logger when a line carries it after a prefix this module does not know
_LOGGER = re.compile(r"(?:^|\s)\S*Summariser: ")
_START = re.compile(r"Starting (?:the |standalone )?test @ .*\((?P<epoch>\d{10,})\)")
#: jmeter.log's start of a test (no epoch: its lines carry their own time)
_RUN = "StandardJMeterEngine: Running the test!"


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


def _prefix(text: str) -> tuple[re.Match[str] | None, str]:
    """The timestamp prefix of a line (JMeter's own before a CI runner's) and the rest."""
    stamp = _ISO_PREFIX.match(text)
    if stamp:
        text = stamp.group("rest")
    for pattern in (_LOG_PREFIX, _OLD_LOG_PREFIX):
        log = pattern.match(text)
        if log:
            return log, log.group("rest")
    return stamp, text


def _prefix_time(stamp: re.Match[str]) -> datetime:
    """The time of a prefix from :func:`_prefix`, UTC; jmeter.log's local times are kept
    as printed (the log does not say its zone). Raises ``ValueError`` for a date like
    2024-13-45."""
    groups = stamp.groupdict()
    date = groups["date"]
    if "frac" in groups:  # ISO 8601: up to 7 fraction digits (.NET), an optional zone
        when = datetime.strptime(date, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
        when += timedelta(microseconds=int((groups["frac"] or "0")[:6].ljust(6, "0")))
        zone = (groups["zone"] or "Z").replace(":", "")
        if zone != "Z":
            offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5]))
            when = when - offset if zone[0] == "+" else when + offset
        return when
    fmt = "%Y-%m-%d %H:%M:%S" if "-" in date else "%Y/%m/%d %H:%M:%S"
    return datetime.strptime(date, fmt).replace(tzinfo=UTC) + timedelta(
        milliseconds=int((groups["ms"] or "0").ljust(3, "0"))
    )


def window_duration(count: int, seconds: float, rate: float | None) -> float:
    """A ``summary +`` window's length in seconds: count ÷ printed rate where that is the
    more precise of the two, else the printed duration.

    JMeter prints the duration rounded to whole seconds since 3.0 (``(elapsed + 500) /
    1000``; a non-integer value is the one-decimal ``6.1s`` of 2.13 and earlier) and the
    rate, to one decimal, as count ÷ the elapsed milliseconds. count ÷ rate is uncertain by
    about duration × 0.05 / rate; where that is below half the duration's last printed
    step, it is used, kept within that step (real 5.6.3: ``354 in 00:00:06 = 60.9/s`` is
    5.81 s, ``9 in 00:00:00 = 72.0/s`` 0.125 s; ``234 in 30.1s = 7,8/s`` stays 30.1 s).
    """
    if rate is None or rate <= 0.05 or count <= 0:
        return seconds
    half = 0.5 if seconds == math.floor(seconds) else 0.05
    estimate = count / rate
    if estimate * 0.05 / (rate - 0.05) >= half:
        return seconds
    return min(max(estimate, seconds - half, 0.0), seconds + half)


def _parse(line: str) -> tuple[SummaryLine | None, re.Match[str] | None]:
    stamp, text = _prefix(line.rstrip("\r\n"))
    if " Avg: " not in text:  # fast path: most lines of a log are not summariser lines
        return None, stamp
    match = SUMMARY_LINE.search(text)
    while match is not None and not text[: match.start()].strip():
        match = SUMMARY_LINE.search(text, match.start() + 1)  # the name must not be blank
    if match is None:
        return None, stamp
    g = match.groupdict()
    name = text[: match.start()]
    loggers = list(_LOGGER.finditer(name))  # an unknown prefix before the logger's name
    if loggers and name[loggers[-1].end() :].strip():
        name = name[loggers[-1].end() :]
    if g["secs"] is not None:
        seconds = _number(g["secs"])
    else:
        seconds = _number(g["h"]) * 3600 + _int(g["m"]) * 60 + _int(g["s"])
        if not math.isfinite(seconds):
            raise ValueError(f"{g['h'][:30]} hours is not a finite duration")
    parsed = SummaryLine(
        name=name.strip(),
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
    return parsed, stamp


def parse_summary_line(line: str) -> SummaryLine | None:
    """Parse one summariser line, or None.

    A jmeter.log prefix (log4j2 or, up to JMeter 3.1, logkit's ``2014/06/11 10:22:11 INFO
    - jmeter.reporters.Summariser: ``) and a CI runner's ISO timestamp are not part of the
    name; the name is the rest of the text before `` + `` / `` = `` (it may contain
    ``: ``). Raises ``ValueError`` for a line of the summariser's shape whose numbers do not
    parse (``1.2.3/s``, a duration beyond any float, an integer of more than 20 digits).

    >>> parse_summary_line("summary +      1 in 00:00:00 =    4.1/s Avg:    62 Min:    62 "
    ...                    "Max:    62 Err:     0 (0.00%) Active: 1 Started: 1 Finished: 0").rate
    4.1
    """
    return _parse(line)[0]


def _has_summary(lines: Iterable[str]) -> bool:
    for line in lines:
        try:
            if parse_summary_line(line) is not None:
                return True
        except ValueError:
            return True  # the summariser's shape with a bad number: _load names the line
    return False


#: signs in a file's first bytes that it is a jmeter.log or a JMeter console: a log4j2 or
#: logkit line of a JMeter logger, or the console's frame lines (research/jmeter.md §3)
_JMETER_HINT = re.compile(
    rb"(?m)^\d{4}[-/]\d\d[-/]\d\d \d\d:\d\d:\d\d\S* +\w+ +(?:- +)?"
    rb"(?:o\.a\.j|org\.apache\.jmeter|jmeter)\.|Creating summariser <"
    rb"|Starting (?:the |standalone )?test @ |Created the tree successfully"
)
#: how far past the first bytes a file with those signs is searched for its first
#: summariser line (a jmeter.log logs its plan's set-up before the first report)
SNIFF_SCAN_BYTES = 64 * 1024 * 1024


def _sniff(path: Path, head: bytes) -> bool:
    if _has_summary(head.decode("utf-8", "replace").split("\n")):
        return True
    if not _JMETER_HINT.search(head):
        return False
    try:
        with open_decompressed(path) as handle:
            read = 0
            # pieces of at most 1 MiB: a line without an end does not fill the memory
            for raw in iter(lambda: handle.readline(1 << 20), b""):
                read += len(raw)
                if read > SNIFF_SCAN_BYTES:
                    return False
                if b" Avg: " in raw and _has_summary([raw.decode("utf-8", "replace")]):
                    return True
    except GZIP_ERRORS:
        return False
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
    #: one list of rows per run: a start line after summariser lines begins another run
    runs: list[dict[str, list[object]]] = [{k: [] for k in keys}]
    start: datetime | None = None
    elapsed: dict[str, float] = {}
    # lines end at \n (and \r\n) only: str.splitlines() also splits at \x0c, \x1c, \x85,
    # \u2028 ..., which a log may hold inside a message, and would shift every line number
    for number, line_text in enumerate(text.split("\n"), start=1):
        anchor = _START.search(line_text)
        if anchor or _RUN in line_text:
            if runs[-1]["name"]:
                runs.append({k: [] for k in keys})
            elapsed = {}  # the summariser's windows count again from this start
            start = _epoch_ms(anchor.group("epoch"), path=path, line=number) if anchor else None
        try:
            parsed, stamp = _parse(line_text)
        except ValueError as exc:
            raise InputFormatError(path, f"summariser line: {exc}", line=number) from None
        if parsed is None:
            continue
        seconds = window_duration(parsed.count, parsed.seconds, parsed.rate)
        end: datetime | None = None
        try:
            if stamp is not None:
                end = _prefix_time(stamp)
            elif start is not None:
                key = parsed.name
                if parsed.kind == "+":
                    elapsed[key] = elapsed.get(key, 0.0) + seconds
                    end = start + timedelta(seconds=elapsed[key])
                else:
                    end = start + timedelta(seconds=seconds)
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
        for key, value in zip(runs[-1], values, strict=True):
            runs[-1][key].append(value)
    if not runs[0]["name"]:
        raise InputFormatError(
            path, "no summariser lines ('summary + N in HH:MM:SS = R/s Avg: ...') found"
        )
    if not runs[-1]["name"]:
        runs.pop()  # a start line after the last run's reports, with none of its own
    base = options.suite or suite_name(path)
    con = writer.store.con
    for index, rows in enumerate(runs, start=1):
        suite_id = writer.suite(
            base if index == 1 else f"{base} run {index}",
            kind="load",
            join=options.suite is not None,
            tags=[t for t in options.tags if "=" not in t],
            attributes=dict(t.split("=", 1) for t in options.tags if "=" in t),
        )
        table = arrow_table(rows, _ARROW_TYPES, path=path, lines=rows["line"])
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
