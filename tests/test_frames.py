"""Issue 18: results the library returns as dataclasses give a frame (``to_polars``) —
gap tables, detections, cache runs, and the load payload's labels — equal to the fields
they hold."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import toolkit
from toolkit.pipeline.cache import analyze_cache
from toolkit.pipeline.detect import detect_series, detections_frame
from toolkit.pipeline.gaps import gap_tables
from toolkit.pipeline.load import labels_frame, load_report


def test_gap_table_frame_is_its_rows(fixtures_dir: Path) -> None:
    with toolkit.open_store() as store:
        toolkit.ingest_path(store, fixtures_dir / "clickbench")
        (first, *_) = gap_tables(store)
    frame = first.table.to_polars()
    assert frame.height == len(first.table.rows)
    for row, record in zip(first.table.rows, frame.iter_rows(named=True), strict=True):
        assert record["hot_iterations"] == row.hot_iterations
        assert record["suite_sum_s"] == pytest.approx(row.suite_sum_s)
        assert record["gap"] == row.gap


def test_detections_frame_has_a_row_per_series(fixtures_dir: Path) -> None:
    with toolkit.open_store() as store:
        toolkit.ingest_path(store, fixtures_dir / "clickbench")
        results = detect_series(store)
    frame = detections_frame(results)
    assert frame.height == len(results) > 40
    d = results[5]
    row = d.to_polars().row(0, named=True)
    assert (row["suite"], row["query"], row["steady_iteration"]) == (
        d.suite,
        d.query,
        d.analysis.steady_iteration,
    )
    assert frame.filter(pl.col("class") == "warmup").height == sum(
        1 for r in results if r.analysis.series_class == "warmup" and r.analysis.short is None
    )


def test_cache_series_frame_is_its_runs(fixtures_dir: Path) -> None:
    with toolkit.open_store() as store:
        toolkit.ingest_path(store, fixtures_dir / "profiles")
        series = analyze_cache(store)
    s = series[0]
    frame = s.to_polars()
    assert frame.height == len(s.runs)
    assert frame["elapsed_s"].to_list() == [r.elapsed_s for r in s.runs]
    assert frame["local_share"].to_list() == [r.local_share for r in s.runs]


def test_load_labels_frame_is_the_payload(fixtures_dir: Path) -> None:
    with toolkit.open_store() as store:
        toolkit.ingest_path(store, fixtures_dir / "jmeter" / "baseline.jtl.gz")
        payload = load_report(store)
    frame = labels_frame(payload)
    labels = payload["suites"][0]["labels"]
    assert frame["label"].to_list() == [x["label"] for x in labels]
    assert frame["samples"].to_list() == [x["samples"] for x in labels]
    assert frame["throughput_steady"][0] == labels[0]["throughput"]["steady"]
    assert frame["latency_p99_ms"][0] == labels[0]["latency_ms"]["overall"]["p99"]
    assert frame["apdex"][0] == labels[0]["apdex"]
