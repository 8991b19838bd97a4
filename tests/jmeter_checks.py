"""What the JMeter tests share: the fields of JMeter's dashboard Statistics table, the
check of its Errors and Top 5 Errors by sampler tables against a recording, and what
ingesting a JTL stores."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest

from toolkit import open_store
from toolkit.ingest import IngestOptions, ingest_paths


def stored_jtl(path: Path, **extra: str) -> Any:
    """What ingesting ``path`` (with ``IngestOptions.extra``) stores: the rows in order,
    the source's row count and warnings, the statuses, and the one-line errors it gives.
    (Ids left out: a file read again takes the next ones, as sequences do not roll
    back.)"""
    with open_store() as store:
        report = ingest_paths(store, [path], options=IngestOptions(extra=extra))
        rows = store.con.execute(
            "SELECT * EXCLUDE (suite_id, source_id) FROM samples ORDER BY rowid"
        ).fetchall()
        sources = store.con.execute("SELECT format, bytes, rows, warnings FROM sources").fetchall()
        results = [(r.status, r.rows, r.warnings, r.message) for r in report.results]
        return rows, sources, results, [str(e) for e in report.errors]


#: The per-label fields of JMeter's ``statistics.json`` (HTMLReportExpect.json's keys but
#: ``transaction``), as ``warmup load``'s dashboard rows carry them.
STATISTICS_FIELDS = (
    "sampleCount",
    "errorCount",
    "errorPct",
    "meanResTime",
    "medianResTime",
    "minResTime",
    "maxResTime",
    "pct1ResTime",
    "pct2ResTime",
    "pct3ResTime",
    "throughput",
    "receivedKBytesPerSec",
    "sentKBytesPerSec",
)


def assert_error_tables_equal_jmeters(suite: dict[str, Any], recorded: dict[str, Any]) -> None:
    """``warmup load``'s ``dashboard_errors`` and ``dashboard_top_errors`` of ``suite`` equal
    the tables JMeter's ``jmeter -g`` wrote (``recorded["errors"]``, ``["top5_errors"]``,
    rows as in its ``dashboard.js``; error types HTML-escaped there, for its page). Ties in
    a top 5 may be ordered differently: JMeter orders them by its hash map."""
    want_errors = {html.unescape(t): (n, p_err, p_all) for t, n, p_err, p_all in recorded["errors"]}
    ours_errors = {
        r["type"]: (r["errorCount"], r["pctInErrors"], r["pctInAllSamples"])
        for r in suite["dashboard_errors"]
    }
    assert set(ours_errors) == set(want_errors)
    for key, (n, p_err, p_all) in want_errors.items():
        assert ours_errors[key][0] == n, key
        assert ours_errors[key][1:] == pytest.approx((p_err, p_all), rel=1e-12), key
    want_top = {}
    for sample, n, e, *pairs in recorded["top5_errors"]:
        slots = [(html.unescape(t), c) for t, c in zip(pairs[::2], pairs[1::2], strict=True) if t]
        want_top[sample] = (n, e, slots)
    ours_top = {
        r["sample"]: (
            r["sampleCount"],
            r["errorCount"],
            [(e["type"], e["errorCount"]) for e in r["errors"]],
        )
        for r in suite["dashboard_top_errors"]
    }
    assert next(iter(ours_top)) == "Total"
    assert set(ours_top) == set(want_top)
    for sample, (n, e, slots) in want_top.items():
        assert ours_top[sample][:2] == (n, e), sample
        assert [c for _, c in ours_top[sample][2]] == [c for _, c in slots], sample
        assert sorted(ours_top[sample][2]) == sorted(slots), sample
