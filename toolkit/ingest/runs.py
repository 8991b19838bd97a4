"""One JMeter run is one suite: a JTL and the console log / jmeter.log of the same run.

Each file is read into a suite of its own; afterwards the summariser-log suites that belong
to a JTL suite are joined into it (issue 17 item 4): the JTL gives the figures, the log's
windows stay in ``load_windows`` under the JTL's suite to corroborate them. A log belongs
to a JTL when their names match (``X.jtl`` / ``X.log`` / ``X.jmeter.log`` /
``X.console.txt``), or when the log's summariser counted the JTL's sample count, or when
the log's test start is within a second of the JTL's first sample. A log that matches no
JTL, or several, stays its own suite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolkit.store import Store

#: what a log's name adds to its run's name (``X.jmeter.log`` → ``X.jmeter``)
_LOG_SUFFIX = re.compile(r"(?:[._-](?:jmeter|console|stdout|out|summary))+$", re.IGNORECASE)
#: what ``SourceWriter.suite`` adds to a taken name (a log's later runs, ``X run 2``, are
#: other runs: they keep their names)
_TAKEN = re.compile(r" #\d+$")
#: how far apart a log's test start and the JTL's first sample start may be (ms)
START_TOLERANCE_MS = 1000


@dataclass(frozen=True)
class _Suite:
    suite_id: int
    name: str
    samples: int
    start_ms: float | None


def run_name(suite: str) -> str:
    """The run a suite's name names: without a ``#2`` suffix and a log's
    ``.jmeter`` / ``.console`` part (``a-server-warmup.jmeter #2`` → ``a-server-warmup``)."""
    return _LOG_SUFFIX.sub("", _TAKEN.sub("", suite))


def _jtl_suites(store: Store) -> list[_Suite]:
    """The load suites with samples: stored rows, or the sample groups of ``warmup load
    FILE``'s reader, which stores none (:func:`toolkit.pipeline.load.grouped_suites`)."""
    from toolkit.pipeline.load import grouped_suites

    rows = store.con.execute(
        """SELECT s.suite_id, s.name, count(*) FILTER (NOT is_transaction AND NOT is_subresult),
                  min(start_ms)
           FROM suites s JOIN samples USING (suite_id) WHERE s.kind = 'load'
           GROUP BY s.suite_id, s.name ORDER BY s.suite_id"""
    ).fetchall()
    names = dict(store.con.execute("SELECT suite_id, name FROM suites").fetchall())
    rows += [(i, names[i], n, start) for i, n, start in grouped_suites(store) if i in names]
    rows.sort(key=lambda r: int(r[0]))
    return [_Suite(int(r[0]), str(r[1]), int(r[2]), r[3]) for r in rows]


def _log_suites(store: Store) -> list[_Suite]:
    """Summariser-only load suites: their main summariser's count (``summary`` if there,
    else the largest) and test start (the first window's end less its length, ms)."""
    # no summariser window at all (JTLs only): the query below would scan every sample
    # (0.7 s of CPU for 10M) to find no log
    # (fetchall: a fetchone() would leave the result open, and DuckDB 2.0 then refuses
    # con.sql() on this connection)
    if store.con.execute("SELECT EXISTS (SELECT 1 FROM load_windows)").fetchall() == [(False,)]:
        return []
    rows = store.con.execute(
        """WITH per AS (
               SELECT suite_id, name, sum(count) AS n,
                      arg_min(epoch_ms(window_end) - seconds * 1000, line) AS start
               FROM load_windows WHERE kind = '+' GROUP BY suite_id, name),
           main AS (
               SELECT suite_id, arg_max(n, (name = 'summary', n)) AS n,
                      arg_max(start, (name = 'summary', n)) AS start
               FROM per GROUP BY suite_id)
           SELECT s.suite_id, s.name, main.n, main.start FROM suites s JOIN main USING (suite_id)
           WHERE s.kind = 'load'
             AND s.suite_id NOT IN (SELECT DISTINCT suite_id FROM samples)
           ORDER BY s.suite_id"""
    ).fetchall()
    return [_Suite(int(r[0]), str(r[1]), int(r[2]), r[3]) for r in rows]


def _same_run(log: _Suite, jtl: _Suite) -> bool:
    if run_name(log.name) == run_name(jtl.name):
        return True
    return _same_count_or_start(log, jtl)


def _same_count_or_start(log: _Suite, jtl: _Suite, summariser_count: int | None = None) -> bool:
    """The log counted the JTL's samples (as read, or as JMeter's summariser counts them:
    ``summariser_count``), or started within :data:`START_TOLERANCE_MS` of it."""
    if log.samples > 0 and log.samples in (jtl.samples, summariser_count):
        return True
    return (
        log.start_ms is not None
        and jtl.start_ms is not None
        and abs(float(log.start_ms) - float(jtl.start_ms)) <= START_TOLERANCE_MS
    )


def join_run_logs(store: Store) -> dict[str, str]:
    """Join every summariser-log suite that belongs to exactly one JTL suite into it (its
    windows and sources move; the log's suite is dropped) and return {log suite: JTL
    suite}. A JTL suite named ``X #2`` (its log was read first and took ``X``) takes
    ``X`` back."""
    joined: dict[str, str] = {}
    # the logs first: without one, no sample is read (every JTL suite's count and start
    # are a scan of the whole store, 0.08 s of CPU per 10M rows, at every ingest)
    logs = _log_suites(store)
    jtls = _jtl_suites(store) if logs else []
    if not jtls:
        return joined
    con = store.con
    for log in logs:
        by_name = [j for j in jtls if run_name(j.name) == run_name(log.name)]
        if len(by_name) > 1:
            # several JTLs of one name (a CSV and an XML of two runs): the one the log
            # counted or started with
            from toolkit.pipeline.load import summariser_count

            by_name = [
                j
                for j in by_name
                if _same_count_or_start(log, j, summariser_count(store, j.suite_id, j.samples))
            ]
        found = by_name or [j for j in jtls if _same_run(log, j)]
        if len(found) != 1:
            continue
        jtl = found[0]
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(
                "UPDATE load_windows SET suite_id = ? WHERE suite_id = ?",
                [jtl.suite_id, log.suite_id],
            )
            con.execute(
                """INSERT INTO suite_sources SELECT ?, source_id FROM suite_sources
                   WHERE suite_id = ? ON CONFLICT DO NOTHING""",
                [jtl.suite_id, log.suite_id],
            )
            con.execute("DELETE FROM suite_sources WHERE suite_id = ?", [log.suite_id])
            con.execute("DELETE FROM suites WHERE suite_id = ?", [log.suite_id])
            name = jtl.name
            if _TAKEN.sub("", jtl.name) == log.name:  # the log had taken the run's name
                name = log.name
                con.execute("UPDATE suites SET name = ? WHERE suite_id = ?", [name, jtl.suite_id])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        joined[log.name] = name
        if name != jtl.name:
            joined[jtl.name] = name
        jtls = [j if j.suite_id != jtl.suite_id else _Suite(j.suite_id, name, j.samples, j.start_ms)
                for j in jtls]  # fmt: skip
    return joined
