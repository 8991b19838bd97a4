"""The store: schema, migrations, provenance, idempotence, transactions, locking."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from toolkit import IngestOptions, StoreVersionError, ingest_file, open_store
from toolkit.errors import InputFormatError
from toolkit.store import SCHEMA_VERSION, migrations


def _write_clickbench(path: Path, runs: list[list[float | None]]) -> Path:
    path.write_text(
        json.dumps(
            {"system": "S", "machine": "m", "date": "2026-01-02", "tags": [], "result": runs}
        )
    )
    return path


def test_new_store_has_latest_schema_and_tables() -> None:
    with open_store() as store:
        assert store.schema_version == SCHEMA_VERSION == migrations()[-1][0]
        tables = {r[0] for r in store.con.execute("SHOW TABLES").fetchall()}
    assert {
        "meta",
        "sources",
        "suites",
        "iterations",
        "samples",
        "load_windows",
        "query_runs",
        "operator_runs",
    } <= tables


def _catalog(con: duckdb.DuckDBPyConnection) -> dict[str, object]:
    """Everything a schema defines: tables (their DDL, with columns, types, constraints),
    sequences, indexes, views, and the rows of every table."""
    tables = con.execute("SELECT table_name, sql FROM duckdb_tables() ORDER BY 1").fetchall()
    return {
        "tables": tables,
        "sequences": con.execute("SELECT sql FROM duckdb_sequences() ORDER BY 1").fetchall(),
        "indexes": con.execute("SELECT sql FROM duckdb_indexes() ORDER BY 1").fetchall(),
        "views": con.execute(
            "SELECT sql FROM duckdb_views() WHERE NOT internal ORDER BY 1"
        ).fetchall(),
        "rows": {
            name: con.execute(f'SELECT * FROM "{name}" ORDER BY ALL').fetchall()
            for name, _ in tables
        },
    }


def test_new_store_schema_is_what_every_migration_gives() -> None:
    """A new store is created from schemas/current.sql in one step; replaying every
    numbered migration from an empty database gives the same catalog. A new migration
    must update current.sql: the message gives the file to write."""
    from toolkit.resources import resource_dir
    from toolkit.store import CURRENT_SCHEMA, _migrate

    replayed = duckdb.connect()
    _migrate(replayed, 0, replay=True)
    created = duckdb.connect()
    _migrate(created, 0)
    expected = _catalog(replayed)
    header = [
        line
        for line in (resource_dir("schemas") / CURRENT_SCHEMA).read_text().splitlines()
        if line.startswith("--")
    ]
    ddl = "\n".join(
        header
        + [str(sql) for (sql,) in expected["sequences"]]  # type: ignore[attr-defined]
        + [str(sql) for _, sql in expected["tables"]]  # type: ignore[attr-defined]
    )
    assert _catalog(created) == expected, f"write schemas/{CURRENT_SCHEMA} as:\n{ddl}"
    assert expected["rows"]["meta"] == [("schema_version", str(SCHEMA_VERSION))]  # type: ignore[index]


def test_newer_store_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    open_store(db).close()
    con = duckdb.connect(str(db))
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(
        StoreVersionError, match=r"written by a newer warmup-toolkit \(schema 99\); upgrade"
    ):
        open_store(db)


def test_same_file_twice_is_a_noop_and_replace_reloads(tmp_path: Path) -> None:
    f = _write_clickbench(tmp_path / "a.json", [[1.0, 0.5, 0.4], [2.0, None, 1.0]])
    with open_store(tmp_path / "s.duckdb") as store:
        first = ingest_file(store, f)
        again = ingest_file(store, f)
        assert (first.status, first.rows) == ("stored", 6)
        assert again.status == "duplicate"
        assert store.con.execute("SELECT count(*) FROM iterations").fetchone() == (6,)
        replaced = ingest_file(store, f, options=IngestOptions(replace=True))
        assert replaced.status == "replaced"
        assert store.con.execute("SELECT count(*) FROM iterations").fetchone() == (6,)
        assert store.con.execute("SELECT count(*) FROM sources").fetchone() == (1,)
        assert store.con.execute("SELECT count(*) FROM suites").fetchone() == (1,)


def test_failure_before_commit_leaves_store_unchanged(tmp_path: Path) -> None:
    good = _write_clickbench(tmp_path / "good.json", [[1.0, 0.5, 0.4]])
    other = _write_clickbench(tmp_path / "other.json", [[3.0, 0.5, 0.4], [1.0, 1.0, 1.0]])
    with open_store(tmp_path / "s.duckdb") as store:
        ingest_file(store, good)
        before = {
            t: store.con.execute(f"SELECT count(*) FROM {t}").fetchone()
            for t in ("sources", "suites", "suite_sources", "iterations")
        }

        def boom() -> None:
            raise RuntimeError("injected failure after all rows were written")

        with pytest.raises(RuntimeError, match="injected"):
            ingest_file(store, other, _fail_before_commit=boom)
        after = {t: store.con.execute(f"SELECT count(*) FROM {t}").fetchone() for t in before}
        assert after == before


def test_bad_field_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"system": "S", "machine": "m", "result": [[1.0, "fast", 0.3]]}')
    with open_store() as store, pytest.raises(InputFormatError) as info:
        ingest_file(store, bad)
    assert str(info.value) == (
        f"{bad}: field 'result[0][1]': expected seconds (a number) or null, got \"fast\""
    )
