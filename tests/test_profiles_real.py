"""Real third-party profile exports in ../shared/real/profiles (read in place)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit import Store, ingest_file
from toolkit.pipeline.cache import analyse_cache

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
    series = {s.series: s for s in analyse_cache(store)}
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
