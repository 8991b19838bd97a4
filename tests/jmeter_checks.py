"""What the JMeter tests share: the fields of JMeter's dashboard Statistics table, and the
check of its Errors and Top 5 Errors by sampler tables against a recording."""

from __future__ import annotations

import html
from typing import Any

import pytest

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
