"""Real third-party profile exports in ../shared/real/profiles (read in place)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit import Store, ingest_file
from toolkit.pipeline.cache import analyze_cache

pytestmark = pytest.mark.real

SNOWFLAKE_CSV = "matyssxdxd__snowflake_task__query_history.csv"


def test_snowflake_info_schema_csv_with_result_cache_rerun(real_dir: Path, store: Store) -> None:
    result = ingest_file(store, real_dir / "profiles" / SNOWFLAKE_CSV)
    assert result.format == "snowflake-history"
    assert result.rows == 51
    rows = store.con.execute(
        """SELECT run, elapsed_ms, bytes_scanned, result_cache_hit, warehouse_size, nodes,
                  split_method, cache_fraction, json_extract_string(attributes, '$.column_set')
           FROM query_runs WHERE query_id IN ('01b1e7cc-0001-9d98-0005-179e0001e19a',
                                             '01b1e7cc-0001-9d95-0005-179e0001d142')
           ORDER BY run"""
    ).fetchall()
    # the same SELECT: 396 ms and 49,893,888 bytes on Large, then 71 ms, 0 bytes, no warehouse
    assert rows == [
        (1, 396.0, 49_893_888, False, "Large", 8, "unavailable", None, "information_schema"),
        (2, 71.0, 0, True, None, None, "unavailable", None, "information_schema"),
    ]
    series = {s.series: s for s in analyze_cache(store)}
    rerun = next(s for name, s in series.items() if name.startswith("d996e40c4992"))
    assert rerun.excluded_runs == (2,)
    assert [r.run for r in rerun.runs] == [1]
    # the COPY on Small (202.7 s) and on Large (51.4 s) are two series, not one warm-up
    copies = store.con.execute(
        "SELECT series, elapsed_ms FROM query_runs WHERE series LIKE 'df8e37dc%' ORDER BY 2"
    ).fetchall()
    assert [c[1] for c in copies] == [51392.0, 202706.0]
    assert copies[0][0] != copies[1][0]
    # DDL / USE statements (0 bytes in every run) are not cache series
    assert all(not name.startswith("26a86745") for name in series)


DBX_COLD = "MitsuhiroItagaki__query_profiler_analysis__sample.json"
DBX_WARM = "MitsuhiroItagaki__query_profiler_analysis__query-profile_01f078dc-e054-132c-9ea0-325160b677c7.json"


def test_databricks_cold_warm_pair(real_dir: Path, store: Store) -> None:
    cold = ingest_file(store, real_dir / "profiles" / DBX_COLD)
    warm = ingest_file(store, real_dir / "profiles" / DBX_WARM)
    assert (cold.format, warm.format) == ("databricks-profile", "databricks-profile")
    # the warm download started 72 min before the cold one: said, not hidden
    assert any("before the run numbered ahead" in w for w in warm.warnings)
    rows = store.con.execute(
        "SELECT run, bytes_scanned, bytes_remote, bytes_local, split_method, elapsed_ms, "
        "json_extract(attributes, '$.bytes_read_from_cache_percent')::INTEGER "
        "FROM query_runs ORDER BY run"
    ).fetchall()
    assert [r[4] for r in rows] == ["reported", "reported"]
    for _, read, remote, local, *_ in rows:
        assert remote + local == read  # exactly, as reported
    assert rows[0][1:4] == (170_808_259_448, 170_801_025_574, 7_233_874)
    assert rows[1][1:4] == (171_072_235_345, 2_858_822_237, 168_213_413_108)
    assert [r[6] for r in rows] == [0, 98]
    (series,) = analyze_cache(store)
    # the analysis reads the runs in time order: the warm run (stored as run 2) ran first
    assert series.ordered_by == "start_time"
    assert [round(100 * r.local_share) for r in series.runs] == [98, 0]
    assert series.speedup is not None and round(series.speedup, 1) == 13.2
    assert series.cold_s == 253.607 and series.warm_s == 19.261
    # no I/O breakdown in the profile: rates fall back to whole elapsed time (lower bounds)
    assert [r.rate_basis for r in series.runs] == ["elapsed", "elapsed"]
    assert series.remote_rate == pytest.approx(170_801_025_574 / 248.051)  # execution time
    # counter method, per request stream (profiles.md §4.3: 15.9 MB/s cold, 22.4 MB/s warm)
    streams = [r.remote_stream_rate for r in series.runs]
    assert streams[1] is not None and round(streams[1] / 1e6, 1) == 15.9
    assert streams[0] is not None and round(streams[0] / 1e6, 1) == 22.4
    # scan operators keep the cache metrics by label
    hits = store.con.execute(
        "SELECT run, json_extract(io, '$.\"Cache hits size\"')::BIGINT FROM operator_runs "
        "WHERE operator_type LIKE 'Scan %catalog_sales_demo' ORDER BY run"
    ).fetchall()
    assert hits == [(1, 5_767_168), (2, 168_210_308_248)]


def test_duckdb_profiles_ingest(real_dir: Path, store: Store) -> None:
    files = sorted((real_dir / "profiles").glob("jetpham__calhacks25__*.json"))
    assert len(files) == 3
    for f in files:
        assert ingest_file(store, f).format == "duckdb-profile"
    rows = store.con.execute(
        "SELECT series, run, elapsed_ms, split_method FROM query_runs ORDER BY elapsed_ms"
    ).fetchall()
    assert [round(r[2]) for r in rows] == [318, 518, 11334]  # latency 0.318 / 0.518 / 11.3 s
    assert {r[3] for r in rows} == {"unavailable"}
    # same text; the first two read table events, the third READ_CSV: two series
    assert rows[0][0] == rows[1][0] and rows[0][0] != rows[2][0]
    assert "events" in rows[0][0] and "READ_CSV" in rows[2][0]
    scan = store.con.execute(
        "SELECT operator_id, parent_id, time_ms FROM operator_runs "
        "WHERE operator_type = 'TABLE_SCAN' ORDER BY time_ms LIMIT 1"
    ).fetchone()
    assert scan is not None and scan[0] == "0.0.0.0" and scan[1] == "0.0.0"
    assert analyze_cache(store)  # timing-only series still analysed


def test_profile_sniffers_leave_clickbench_and_iterations_alone(
    real_dir: Path, tmp_path: Path
) -> None:
    from toolkit import detect_format

    clickbench = sorted((real_dir / "profiles").glob("ClickHouse__ClickBench__*.json"))
    assert len(clickbench) == 6
    for f in clickbench:
        assert detect_format(f) == "clickbench", f.name
    it = tmp_path / "it.csv"
    it.write_text("suite,query,iteration,seconds\nS,Q0,0,1.5\n")
    assert detect_format(it) == "iterations"
    expected = {
        SNOWFLAKE_CSV: "snowflake-history",
        DBX_COLD: "databricks-profile",
        DBX_WARM: "databricks-profile",
    }
    for name, fmt in expected.items():
        assert detect_format(real_dir / "profiles" / name) == fmt
