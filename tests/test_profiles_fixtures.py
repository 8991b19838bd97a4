"""The project-made profile fixtures: up to date with their generator, and the seed's
figures reproduced from the Snowflake export shapes (QUERY_HISTORY + operator stats)."""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path

import pytest

from toolkit import Store, ingest_path
from toolkit.pipeline.cache import analyze_cache


def test_fixtures_match_their_generator(fixtures_dir: Path, tmp_path: Path) -> None:
    folder = fixtures_dir / "profiles"
    copy = tmp_path / "profiles"
    shutil.copytree(folder, copy)
    runpy.run_path(str(copy / "make_fixtures.py"), run_name="__main__")
    for name in (
        "snowflake_query_history.json",
        "snowflake_operator_stats.csv",
        "clickhouse_query_log.jsonl",
        "databricks_query_history.json",
    ):
        assert (copy / name).read_bytes() == (folder / name).read_bytes(), name


def test_fixture_folder_ingests_every_format(fixtures_dir: Path, store: Store) -> None:
    report = ingest_path(store, fixtures_dir / "profiles")
    assert not report.errors
    formats = {r.path.name: r.format for r in report.results}
    assert formats == {
        "clickhouse_query_log.jsonl": "clickhouse-query-log",
        "databricks_query_history.json": "databricks-history",
        "snowflake_operator_stats.csv": "snowflake-operator-stats",
        "snowflake_query_history.json": "snowflake-history",
        "warehouse_warmup.csv": "profile-csv",
    }
    series = {s.series: s for s in analyze_cache(store)}
    xl = next(s for n, s in series.items() if n.endswith("X-Large"))
    medium = next(s for n, s in series.items() if n.endswith("BENCH_WH Medium"))
    # the seed's figures through the Snowflake export shapes (split from the fraction,
    # shares from the TableScan operator): within 0.5 % of the generic-CSV figures
    assert xl.nodes == 16 and medium.nodes == 4
    assert xl.remote_rate / 1e6 == pytest.approx(264.7, rel=0.005)
    assert medium.remote_rate / 1e6 == pytest.approx(66.5, rel=0.005)
    assert medium.local_remote_ratio == pytest.approx(73.6, rel=0.01)
    assert xl.capacity_per_node_bytes / 1e9 == pytest.approx(3.03, rel=0.01)
