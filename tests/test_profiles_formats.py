"""Project-made inputs for every profile format: parsing, units, split methods, rejection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit import Store, ingest_file
from toolkit.errors import InputFormatError
from toolkit.pipeline.cache import analyze_cache


def _counts(store: Store) -> tuple[int, ...]:
    return tuple(
        int(store.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0])  # type: ignore[index]
        for t in ("sources", "suites", "query_runs", "operator_runs")
    )


def test_snowflake_account_usage_json_split_from_fraction(tmp_path: Path, store: Store) -> None:
    base = {
        "QUERY_PARAMETERIZED_HASH": "abc123",
        "WAREHOUSE_NAME": "BENCH_WH",
        "WAREHOUSE_SIZE": "X-Large",
        "EXECUTION_STATUS": "SUCCESS",
        "QUERY_TYPE": "SELECT",
        "QUEUED_PROVISIONING_TIME": 0,
    }
    rows = [
        {
            **base,
            "QUERY_ID": "q1",
            "START_TIME": "2024-05-01 10:00:00.000 -0700",
            "TOTAL_ELAPSED_TIME": 468400,
            "BYTES_SCANNED": 121700000000,
            "PERCENTAGE_SCANNED_FROM_CACHE": 2.2e-03,
        },
        {
            **base,
            "QUERY_ID": "q2",
            "START_TIME": "2024-05-01 10:09:00.000 -0700",
            "TOTAL_ELAPSED_TIME": 209000,
            "BYTES_SCANNED": 81500000000,
            "PERCENTAGE_SCANNED_FROM_CACHE": 0.3595,
        },
        # resumed warehouse: provisioning time > 0 starts a new cache epoch
        {
            **base,
            "QUERY_ID": "q3",
            "START_TIME": "2024-05-02 10:00:00.000 -0700",
            "TOTAL_ELAPSED_TIME": 470000,
            "BYTES_SCANNED": 121700000000,
            "PERCENTAGE_SCANNED_FROM_CACHE": 0.0,
            "QUEUED_PROVISIONING_TIME": 1500,
        },
    ]
    path = tmp_path / "account_usage.json"
    path.write_text(json.dumps(rows))
    assert ingest_file(store, path).format == "snowflake-history"
    got = store.con.execute(
        "SELECT run, cache_epoch, bytes_remote, bytes_local, split_method, nodes, epoch(start_time) "
        "FROM query_runs ORDER BY run"
    ).fetchall()
    assert got[0][:6] == (1, 1, 121_432_260_000, 267_740_000, "from_fraction", 16)
    # 10:00 at -07:00 is 17:00 UTC
    assert got[0][6] == 1714582800.0
    assert got[1][2] + got[1][3] == 81_500_000_000
    assert got[2][1] == 2
    names = [s.series for s in analyze_cache(store)]
    assert any("cache epoch 2" in n for n in names)


@pytest.mark.parametrize(
    ("fmt", "field", "expected"),
    [
        ("snowflake-history", "QUERY_ID", "Snowflake QUERY_HISTORY"),
        ("profile-csv", "series", "generic profile CSV"),
        ("clickhouse-query-log", "query_id", "ClickHouse system.query_log"),
        ("databricks-profile", "query", "Databricks query-profile JSON"),
        ("databricks-history", "res", "Databricks query-history API JSON"),
        ("duckdb-profile", "latency", "DuckDB JSON profile"),
        ("snowflake-operator-stats", "QUERY_ID", "GET_QUERY_OPERATOR_STATS"),
    ],
)
def test_forced_format_rejects_other_file(
    fmt: str, field: str, expected: str, tmp_path: Path, store: Store
) -> None:
    """One line naming the format expected (and, for a file of the same syntax, the field
    missed); the store unchanged."""
    iterations = tmp_path / "iterations.csv"
    iterations.write_text("suite,query,iteration,seconds\nS,Q0,0,1.5\n")
    clickbench = tmp_path / "clickbench.json"
    clickbench.write_text(json.dumps({"system": "S", "machine": "m", "result": [[1.0, 0.5]]}))
    csv_formats = ("snowflake-history", "profile-csv", "snowflake-operator-stats")
    same_syntax = iterations if fmt in csv_formats else clickbench
    if fmt == "clickhouse-query-log":
        same_syntax = iterations
    before = _counts(store)
    for other in (iterations, clickbench):
        with pytest.raises(InputFormatError) as info:
            ingest_file(store, other, format=fmt)
        message = str(info.value)
        assert "\n" not in message
        assert expected in message, message
        if other is same_syntax:
            assert f"field {field!r}" in message, message
        assert _counts(store) == before


def test_generic_csv_bad_value_names_line_and_column(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "p.csv"
    path.write_text("series,run,elapsed_s,bytes_remote\nA,1,10,5 GB\nA,2,fast,1 GB\n")
    with pytest.raises(InputFormatError, match=r"p.csv:3: column 'elapsed_s': 'fast'"):
        ingest_file(store, path)
    assert _counts(store) == (0, 0, 0, 0)


def test_generic_csv_minimal_columns_time_only(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "t.csv"
    path.write_text("series,run,elapsed_s\nq,1,10\nq,2,2\nq,3,1.0\nq,4,1.0\nq,5,1.01\n")
    ingest_file(store, path)
    (s,) = analyze_cache(store)
    assert s.warm_metric == "elapsed" and s.runs_to_warm == 3
    assert s.speedup == pytest.approx(10.0)
    assert s.remote_rate is None and s.capacity_bytes is None


def _ch_row(qid: str, start: str, ms: int, events: dict[str, int], **extra: object) -> str:
    row = {
        "query_id": qid,
        "initial_query_id": qid,
        "is_initial_query": 1,
        "hostname": "ch-1",
        "type": "QueryFinish",
        "query_start_time_microseconds": start,
        "query_duration_ms": str(ms),
        "normalized_query_hash": "11822389211538021339",
        "query_cache_usage": "None",
        "read_bytes": "6453034043",
        "ProfileEvents": {k: str(v) for k, v in events.items()},  # UInt64 quoted
        "query": "SELECT count() FROM t",
        **extra,
    }
    return json.dumps(row)


def test_clickhouse_query_log_json_each_row(tmp_path: Path, store: Store) -> None:
    # Altinity KB worked example: cold 707,763,327 B from S3 in 20.77 s of S3 reads;
    # warm 705,258,980 B from the filesystem cache and 13,979 B from S3
    lines = [
        json.dumps({"query_id": "a", "type": "QueryStart", "query_duration_ms": "0"}),
        _ch_row(
            "a",
            "2026-07-16 09:40:00.000001",
            21000,
            {"ReadBufferFromS3Bytes": 707763327, "ReadBufferFromS3Microseconds": 20766862},
        ),
        _ch_row(
            "b",
            "2026-07-16 09:41:12.503114",
            9421,
            {"CachedReadBufferReadFromCacheBytes": 705258980, "ReadBufferFromS3Bytes": 13979},
        ),
        _ch_row("c", "2026-07-16 09:42:00.000000", 3, {}, query_cache_usage="Read"),
    ]
    path = tmp_path / "query_log.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = ingest_file(store, path)
    assert (result.format, result.rows) == ("clickhouse-query-log", 3)
    rows = store.con.execute(
        "SELECT run, bytes_remote, bytes_local, split_method, remote_read_ms, result_cache_hit "
        "FROM query_runs ORDER BY run"
    ).fetchall()
    assert rows[0] == (1, 707_763_327, 0, "from_counters", 20766.862, False)
    assert rows[1][:4] == (2, 13_979, 705_258_980, "from_counters")
    assert rows[2][5] is True
    (series,) = analyze_cache(store)
    assert series.excluded_runs == (3,)
    # Altinity KB: 707.8 MB in 20.77 s of S3 reads = 34 MB/s per reading thread
    assert series.runs[0].remote_stream_rate / 1e6 == pytest.approx(34.08, abs=0.01)
    assert series.speedup == pytest.approx(21000 / 9421)
    assert series.runs[1].local_share == pytest.approx(705258980 / (705258980 + 13979))


def test_clickhouse_csv_with_names_map_text(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "query_log.csv"
    path.write_text(
        "query_id,type,query_duration_ms,normalized_query_hash,read_bytes,ProfileEvents\n"
        "x,QueryFinish,1500,42,1000,\"{'ReadBufferFromS3Bytes':900,'SelectedBytes':1000}\"\n"
        "y,QueryFinish,300,42,1000,\"{'CachedReadBufferReadFromCacheBytes':880,"
        "'CachedReadBufferReadFromSourceBytes':20}\"\n"
    )
    assert ingest_file(store, path).format == "clickhouse-query-log"
    rows = store.con.execute(
        "SELECT bytes_remote, bytes_local FROM query_runs ORDER BY run"
    ).fetchall()
    # no S3 counter in run 2: the cache misses (from source) are the remote bytes
    assert rows == [(900, 0), (20, 880)]


def test_snowflake_operator_stats_join_history_gives_seed_rate(
    tmp_path: Path, store: Store
) -> None:
    """QUERY_HISTORY (times, bytes, cache fraction) + GET_QUERY_OPERATOR_STATS (TableScan
    share and its remote-I/O share) = the seed's method, from real export shapes."""
    import csv

    history = [
        {
            "QUERY_ID": qid,
            "QUERY_PARAMETERIZED_HASH": "h",
            "WAREHOUSE_NAME": "WH",
            "WAREHOUSE_SIZE": "X-Large",
            "EXECUTION_STATUS": "SUCCESS",
            "QUERY_TYPE": "SELECT",
            "START_TIME": start,
            "TOTAL_ELAPSED_TIME": ms + 400,
            "EXECUTION_TIME": ms,
            "BYTES_SCANNED": scanned,
            "PERCENTAGE_SCANNED_FROM_CACHE": local / scanned,
        }
        for qid, start, ms, scanned, local in (
            ("q1", "2024-05-01T10:00:00-07:00", 468000, 121_700_000_000, 269_900_000),
            ("q2", "2024-05-01T10:09:00-07:00", 209000, 81_500_000_000, 29_300_000_000),
        )
    ]
    (tmp_path / "history.json").write_text(json.dumps(history))
    ops = tmp_path / "operators.csv"
    with ops.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(
            [
                "QUERY_ID",
                "STEP_ID",
                "OPERATOR_ID",
                "PARENT_OPERATORS",
                "OPERATOR_TYPE",
                "OPERATOR_STATISTICS",
                "EXECUTION_TIME_BREAKDOWN",
                "OPERATOR_ATTRIBUTES",
            ]
        )
        for qid, scan, remote, processing in (("q1", 0.99, 0.99, 0.01), ("q2", 0.978, 0.99, 0.01)):
            out.writerow(
                [qid, 1, 0, "", "Result", "{}", json.dumps({"overall_percentage": 0.0}), "{}"]
            )
            # zero keys (local_disk_io) omitted, as Snowflake does; shares of the query
            out.writerow(
                [
                    qid,
                    1,
                    1,
                    "[0]",
                    "TableScan",
                    json.dumps({"io": {"bytes_scanned": 1, "scan_progress": 1}}),
                    json.dumps(
                        {
                            "overall_percentage": scan,
                            "remote_disk_io": scan * remote,
                            "processing": scan * processing,
                        }
                    ),
                    json.dumps({"table_name": "DB.PUBLIC.EVENTS"}),
                ]
            )
    assert ingest_file(store, ops).format == "snowflake-operator-stats"
    assert ingest_file(store, tmp_path / "history.json").format == "snowflake-history"
    (series,) = analyze_cache(store)
    assert series.nodes == 16
    rates = [r.remote_rate for r in series.runs]
    # 121.43 GB / (468 s × 0.99 × 0.99) = 264.8 MB/s; 52.2 GB / (209 × 0.978 × 0.99) = 258.0
    assert rates[0] / 1e6 == pytest.approx(264.7, rel=0.002)
    assert rates[1] / 1e6 == pytest.approx(258.0, rel=0.002)
    parent = store.con.execute(
        "SELECT parent_id FROM operator_runs WHERE operator_type = 'TableScan' LIMIT 1"
    ).fetchone()
    assert parent == ("1.0",)
