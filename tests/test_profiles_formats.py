"""Project-made inputs for every profile format: parsing, units, split methods, rejection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit import Store, ingest_file
from toolkit.errors import InputFormatError
from toolkit.pipeline.cache import analyse_cache


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
    names = [s.series for s in analyse_cache(store)]
    assert any("cache epoch 2" in n for n in names)


@pytest.mark.parametrize(
    ("fmt", "field"),
    [
        ("snowflake-history", "QUERY_ID"),
        ("profile-csv", "series"),
    ],
)
def test_forced_format_rejects_other_file(
    fmt: str, field: str, tmp_path: Path, store: Store
) -> None:
    other = tmp_path / "iterations.csv"
    other.write_text("suite,query,iteration,seconds\nS,Q0,0,1.5\n")
    before = _counts(store)
    with pytest.raises(InputFormatError) as info:
        ingest_file(store, other, format=fmt)
    message = str(info.value)
    assert "\n" not in message
    assert f"field {field!r}" in message
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
    (s,) = analyse_cache(store)
    assert s.warm_metric == "elapsed" and s.runs_to_warm == 3
    assert s.speedup == pytest.approx(10.0)
    assert s.remote_rate is None and s.capacity_bytes is None
