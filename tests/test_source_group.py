"""Small files committed in groups (toolkit.store.SourceGroup): every file whole or not at
all, results in input order, duplicates and name clashes as with one transaction per file,
a failed commit stores none of the group and says so, a kill loses only the open group."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from store_checks import run_warmup, store_state, subprocess_env, warmup_cmd

from toolkit import ingest_path, open_store
from toolkit.errors import StoreError
from toolkit.ingest import clickbench
from toolkit.store import _SOURCES_ARROW, _SUITES_ARROW, SourceGroup


def clickbench_doc(system: str, runs: int = 3, queries: int = 43) -> dict[str, Any]:
    return {
        "system": system,
        "date": "2026-01-01",
        "machine": "c6a.4xlarge",
        "tags": ["Java"],
        "result": [[0.5 + q / 100 + i / 1000 for i in range(runs)] for q in range(queries)],
    }


def write_tree(root: Path, systems: list[str]) -> list[Path]:
    """One ClickBench file per system: ``<root>/<system>/results/c6a.4xlarge.json``."""
    paths = []
    for system in systems:
        path = root / system / "results" / "c6a.4xlarge.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(clickbench_doc(system)), encoding="utf-8")
        paths.append(path)
    return paths


def test_arrow_schemas_match_the_tables() -> None:
    """The group inserts sources and suites by position: its Arrow columns must be the
    tables' columns in DDL order."""
    with open_store() as store:
        for table, schema in (("sources", _SOURCES_ARROW), ("suites", _SUITES_ARROW)):
            columns = [r[0] for r in store.con.execute(f"DESCRIBE {table}").fetchall()]
            assert columns == schema.names, table


@pytest.mark.slow
def test_folder_is_committed_in_groups_with_every_file_whole(tmp_path: Path) -> None:
    systems = [f"sys{i:03d}" for i in range(120)]
    write_tree(tmp_path / "tree", systems)
    db = tmp_path / "store.duckdb"
    commits = 0
    original = SourceGroup.commit

    def counting(self: SourceGroup) -> None:
        nonlocal commits
        commits += bool(self.staged_paths)
        original(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SourceGroup, "commit", counting)
        mp.setattr(SourceGroup, "__init__", _small_groups(SourceGroup.__init__, max_files=50))
        with open_store(db) as store:
            report = ingest_path(store, tmp_path / "tree")
    assert report.errors == []
    assert [r.status for r in report.results] == ["stored"] * 120
    assert [r.path.parts[-3] for r in report.results] == systems  # input order
    assert all(r.rows == 129 and r.staged for r in report.results)
    assert commits == 3  # 50 + 50 + 20 files, not 120 transactions
    state = store_state(db)  # sources.rows equals the rows stored for each source
    assert sorted(state.values()) == [("clickbench", 129)] * 120
    with open_store(db) as store:
        names = [r[0] for r in store.con.execute("SELECT name FROM suites ORDER BY 1").fetchall()]
        assert names == [f"{s} / c6a.4xlarge / 2026-01-01" for s in systems]
        # the same folder again: every file a duplicate, nothing added
        again = ingest_path(store, tmp_path / "tree")
        assert {r.status for r in again.results} == {"duplicate"}
    assert store_state(db) == state


def _small_groups(init: Any, **limits: Any) -> Any:
    def patched(self: SourceGroup, store: Any, **kwargs: Any) -> None:
        init(self, store, **{**kwargs, **limits})

    return patched


def test_duplicates_name_clashes_and_direct_files_in_one_folder(tmp_path: Path) -> None:
    """Within one group: a byte-identical copy is a duplicate, a second file with the same
    system/machine/date gets a ``#2`` suite, and a file written directly (an iterations
    CSV) between them sees every staged file and keeps its place in the results."""
    root = tmp_path / "mixed"
    doc = clickbench_doc("Same")
    for name in ("a.json", "b.json"):
        (root / "same" / "results").mkdir(parents=True, exist_ok=True)
        (root / "same" / "results" / name).write_text(json.dumps(doc), encoding="utf-8")
    other = {**doc, "result": doc["result"][:5]}
    (root / "same" / "results" / "c.json").write_text(json.dumps(other), encoding="utf-8")
    (root / "same" / "results" / "d.csv").write_text(
        "suite,query,iteration,seconds\nSame / c6a.4xlarge / 2026-01-01,q,0,1.0\n",
        encoding="utf-8",
    )
    with open_store() as store:
        report = ingest_path(store, root)
        assert report.errors == []
        got = [(r.path.name, r.status, r.suites, r.staged) for r in report.results]
        assert got == [
            ("a.json", "stored", ("Same / c6a.4xlarge / 2026-01-01",), True),
            ("b.json", "duplicate", (), False),
            ("c.json", "stored", ("Same / c6a.4xlarge / 2026-01-01 #2",), True),
            ("d.csv", "stored", ("Same / c6a.4xlarge / 2026-01-01 #3",), False),
        ]
        rows = store.con.execute(
            "SELECT s.name, count(*) FROM iterations i JOIN suites s USING (suite_id) "
            "GROUP BY 1 ORDER BY 1"
        ).fetchall()
        assert rows == [
            ("Same / c6a.4xlarge / 2026-01-01", 129),
            ("Same / c6a.4xlarge / 2026-01-01 #2", 15),
            ("Same / c6a.4xlarge / 2026-01-01 #3", 1),
        ]


def test_a_failed_commit_stores_none_of_the_group_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Injected failure: the staged iterations have a column too many, so the group's
    insert fails inside its transaction. One StoreError names the files; none of them is
    stored (no sources, suites or rows) and their results are dropped."""
    write_tree(tmp_path / "tree", ["one", "two", "three"])
    import pyarrow as pa

    broken = pa.schema([*clickbench._ITERATIONS_ARROW, ("extra", pa.int32())])
    original = clickbench.pa.table

    def with_extra(columns: Any, schema: Any = None) -> Any:
        if schema is clickbench._ITERATIONS_ARROW:
            return original([*columns, pa.array([0] * len(columns[0]), pa.int32())], schema=broken)
        return original(columns, schema=schema)

    monkeypatch.setattr(clickbench.pa, "table", with_extra)
    db = tmp_path / "store.duckdb"
    with open_store(db) as store:
        report = ingest_path(store, tmp_path / "tree")
    assert report.results == []
    (error,) = report.errors
    assert isinstance(error, StoreError)
    text = str(error)
    assert text.startswith(
        f"3 files ({tmp_path / 'tree' / 'one' / 'results' / 'c6a.4xlarge.json'} … "
    )
    assert text.endswith("none of them was stored")
    with open_store(db) as store:
        for table in ("sources", "suites", "suite_sources", "iterations"):
            assert store.con.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)


@pytest.mark.ci_only
def test_sigkill_during_a_folder_ingest_keeps_whole_files_only(tmp_path: Path) -> None:
    """`warmup ingest --db` of 3,000 small files, killed as soon as the WAL shows a
    committed group (the test checks the process was still running): the store opens,
    every stored source has all its rows, and ingesting again stores exactly the rest."""
    systems = [f"s{i:04d}" for i in range(3000)]
    write_tree(tmp_path / "tree", systems)
    db = tmp_path / "store.duckdb"
    open_store(db).close()  # schema created (and checkpointed) before: the WAL starts empty
    proc = subprocess.Popen(
        warmup_cmd("ingest", "--db", db, tmp_path / "tree"),
        env=subprocess_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        wal = db.with_name(db.name + ".wal")
        # kill between two commits of groups: DuckDB writes a transaction's WAL at COMMIT,
        # so a WAL that grew past the few bytes of a sequence reservation (a group of
        # files is megabytes) and then stayed the same for 50 ms holds whole commits
        size, since = 0, time.monotonic()
        while proc.poll() is None and time.monotonic() < deadline:
            now = wal.stat().st_size if wal.exists() else 0
            if now != size:
                size, since = now, time.monotonic()
            elif size > 100_000 and time.monotonic() - since > 0.05:
                break
            time.sleep(0.002)
        assert proc.poll() is None, "the ingest finished before the test could kill it"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    state = store_state(db)
    assert 0 < len(state) < 3000
    assert set(state.values()) == {("clickbench", 129)}
    done = run_warmup("ingest", "--db", db, tmp_path / "tree")
    assert done.returncode == 0, done.stderr
    after = store_state(db)
    assert len(after) == 3000 and set(state) <= set(after)
