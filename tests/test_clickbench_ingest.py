"""ClickBench and generic iterations ingest: layouts, runs, nulls, kept fields, errors,
idempotence, atomicity (issue 2 acceptance)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import polars as pl
import pytest

from toolkit import Store, ingest_file, ingest_iterations, ingest_path, open_store
from toolkit.cli import app
from toolkit.errors import InputFormatError
from toolkit.resources import resource_dir


def _doc(rows: list[Any], **fields: Any) -> dict[str, Any]:
    return {"tags": [], **fields, "result": rows}


def _write(path: Path, doc: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _count(store: Store, sql: str, params: list[object] | None = None) -> int:
    row = store.con.execute(sql, params or []).fetchone()
    assert row is not None
    return int(row[0])


def _clickbench_schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (resource_dir("schemas") / "clickbench.schema.json").read_text()
    )
    return loaded


@pytest.mark.real
def test_every_real_file_ingests_and_row_counts_match(real_dir: Path) -> None:
    """Every file of ../shared/real/clickbench: stored (or the error-only cedardb file
    skipped with a message); counts of rows, null runs and queries per suite equal an
    independent json.load count; every file validates against clickbench.schema.json."""
    folder = real_dir / "clickbench"
    files = sorted(folder.glob("*.json"))
    assert len(files) == 44
    schema = _clickbench_schema()
    with open_store() as store:
        report = ingest_path(store, folder)
        assert report.errors == []
        by_path = {r.path.name: r for r in report.results}
        assert set(by_path) == {f.name for f in files}
        skipped = [r for r in report.results if r.status == "skipped"]
        assert [r.path.name for r in skipped] == ["cedardb__results__20260509__c6a.metal.json"]
        assert "error-only ClickBench entry" in skipped[0].message
        for f in files:
            doc = json.loads(f.read_text(encoding="utf-8"))
            jsonschema.validate(doc, schema)
            result = by_path[f.name]
            if "result" not in doc:
                continue
            rows = doc["result"]
            cells = sum(1 if r is None else len(r) for r in rows)
            nulls = sum(1 if r is None else sum(v is None for v in r) for r in rows)
            assert (result.status, result.rows) == ("stored", cells), f.name
            (suite,) = result.suites
            sid = store.suite_ids([suite])[0]
            got = store.con.execute(
                "SELECT count(*), count(*) - count(seconds), count(DISTINCT query) "
                "FROM iterations WHERE suite_id = ?",
                [sid],
            ).fetchone()
            assert got == (cells, nulls, len(rows)), f.name
            if len(rows) != 43:
                assert any("query rows" in w for w in result.warnings)
        assert _count(store, "SELECT count(*) FROM sources") == 43


def test_both_layouts_runs_nulls_short_files_and_kept_fields(tmp_path: Path) -> None:
    root = tmp_path / "ClickBench"
    new = _write(
        root / "fastdb" / "results" / "20260511" / "c6a.4xlarge.json",
        _doc(
            [[1.0, 0.5, 0.4, 0.3, 0.3, 0.3], None, [None, None, None, None, None, None]],
            cluster_size="serverless",
            load_time=12.5,
            data_size=123456789012,
            concurrent_qps=3.25,
            concurrent_error_ratio=0.01,
            comment="restarted <every> query",
            tags=["Java", "lukewarm-cold-run"],
        ),
    )
    old = _write(
        root / "olddb" / "results" / "c5.4xlarge.json",
        _doc([[2.0, 1.0, 1.0]] * 5, cluster_size=4, date="2021-03-04"),
    )
    with open_store() as store:
        report = ingest_path(store, root)
        assert report.errors == []
        assert [r.status for r in report.results] == ["stored", "stored"]
        suites = {r["system"]: r for r in store.suites().to_dicts()}
        fast, older = suites["fastdb"], suites["olddb"]
        assert (fast["machine"], str(fast["run_date"])) == ("c6a.4xlarge", "2026-05-11")
        assert (older["machine"], str(older["run_date"])) == ("c5.4xlarge", "2021-03-04")
        assert (fast["cluster_size"], older["cluster_size"]) == ("serverless", "4")
        assert fast["load_time_s"] == 12.5 and fast["data_size_bytes"] == 123456789012
        assert (fast["concurrent_qps"], fast["concurrent_error_ratio"]) == (3.25, 0.01)
        assert fast["comment"] == "restarted <every> query"
        assert list(fast["tags"]) == ["Java", "lukewarm-cold-run"]
        assert json.loads(fast["attributes"])["date_dir"] == "20260511"
        # 6 runs per query kept; the null row and the all-null row are failed runs
        runs = store.frame(
            "SELECT query, max(iteration) + 1 AS runs, count(seconds) AS ok FROM iterations "
            "WHERE suite_id = ? GROUP BY query ORDER BY query",
            [fast["suite_id"]],
        ).rows()
        assert runs == [("Q0", 6, 6), ("Q1", 1, 0), ("Q2", 6, 0)]
        warnings = [w for r in report.results for w in r.warnings]
        assert any("3 query rows (ClickBench has 43)" in w for w in warnings)
        assert any("5 query rows" in w for w in warnings)
    assert new.exists() and old.exists()


def test_same_file_twice_adds_nothing(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.json", _doc([[1.0, 0.5, 0.5]], system="S", machine="m"))
    with open_store() as store:
        assert ingest_file(store, f).status == "stored"
        before = [_count(store, f"SELECT count(*) FROM {t}") for t in ("sources", "iterations")]
        assert ingest_file(store, f).status == "duplicate"
        report = ingest_path(store, tmp_path)
        assert [r.status for r in report.results] == ["duplicate"]
        after = [_count(store, f"SELECT count(*) FROM {t}") for t in ("sources", "iterations")]
        assert before == after == [1, 3]


def test_corrupt_file_among_good_ones_is_named_and_good_ones_stored(
    runner,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    folder = tmp_path / "in"
    _write(folder / "good1.json", _doc([[1.0, 0.5, 0.5]], system="A", machine="m"))
    _write(folder / "good2.json", _doc([[1.0, 0.5, 0.5]], system="B", machine="m"))
    (folder / "broken.json").write_text('{"system": "C", "result": [[1.0, "fast", 2]]}')
    db = tmp_path / "s.duckdb"
    result = runner.invoke(app, ["ingest", "--db", str(db), str(folder)])
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1
    assert "broken.json" in errors[0] and "result[0][1]" in errors[0]
    with open_store(db, read_only=True) as store:
        assert sorted(store.suites().get_column("system").to_list()) == ["A", "B"]
        assert _count(store, "SELECT count(*) FROM iterations") == 6


def test_failure_halfway_leaves_store_unchanged(tmp_path: Path) -> None:
    first = _write(tmp_path / "a.json", _doc([[1.0, 0.5, 0.5]], system="A", machine="m"))
    second = _write(tmp_path / "b.json", _doc([[2.0, 1.0, 1.0]] * 43, system="B", machine="m"))

    def boom() -> None:
        raise RuntimeError("injected failure after all rows were written")

    with open_store(tmp_path / "s.duckdb") as store:
        ingest_file(store, first)
        snapshot = [
            _count(store, f"SELECT count(*) FROM {t}")
            for t in ("sources", "suites", "suite_sources", "iterations")
        ]
        with pytest.raises(RuntimeError, match="injected"):
            ingest_file(store, second, _fail_before_commit=boom)
        assert [
            _count(store, f"SELECT count(*) FROM {t}")
            for t in ("sources", "suites", "suite_sources", "iterations")
        ] == snapshot
        # and the file can still be ingested afterwards
        assert ingest_file(store, second).rows == 129


def test_bad_fields_are_named(tmp_path: Path) -> None:
    cases = {
        "tags.json": (_doc([[1.0]], system="S", machine="m", tags="Java"), "'tags'"),
        "neg.json": (_doc([[1.0, -2.0]], system="S", machine="m"), "'result[0][1]'"),
        "size.json": (_doc([[1.0]], system="S", machine="m", data_size="big"), "'data_size'"),
        "cluster.json": (
            _doc([[1.0]], system="S", machine="m", cluster_size=[1]),
            "'cluster_size'",
        ),
    }
    with open_store() as store:
        for name, (doc, field) in cases.items():
            f = _write(tmp_path / name, doc)
            with pytest.raises(InputFormatError) as info:
                ingest_file(store, f)
            message = str(info.value)
            assert name in message and field in message, message
        assert _count(store, "SELECT count(*) FROM sources") == 0


def test_iterations_csv_parquet_and_frame(tmp_path: Path) -> None:
    csv = tmp_path / "runs.csv"
    csv.write_text(
        "suite,query,process,iteration,seconds,system\n"
        "jvm,q1,0,0,2.0,X\njvm,q1,0,1,1.0,X\njvm,q1,0,2,0.5,X\n"
        "jvm,q1,1,0,2.0,X\njvm,q1,1,1,0.75,X\njvm,q1,1,2,,X\n"
    )
    frame = pl.DataFrame(
        {
            "suite": ["pq"] * 3,
            "query": ["a"] * 3,
            "iteration": [0, 1, 2],
            "seconds": [3.0, 2.0, 1.0],
        }
    )
    parquet = tmp_path / "runs.parquet"
    frame.write_parquet(parquet)
    with open_store() as store:
        assert ingest_file(store, csv).rows == 6
        assert ingest_file(store, parquet).rows == 3
        lib = frame.with_columns(pl.lit("lib").alias("suite"))
        assert ingest_iterations(store, lib) == 3
        assert ingest_iterations(store, lib) == 0  # same frame twice: no-op
        rows = store.frame(
            "SELECT s.name, s.system, i.process, count(*) AS n, count(seconds) AS ok "
            "FROM iterations i JOIN suites s USING (suite_id) "
            "GROUP BY ALL ORDER BY s.name, i.process"
        ).rows()
        assert rows == [
            ("jvm", "X", 0, 3, 3),
            ("jvm", "X", 1, 3, 2),
            ("lib", None, 0, 3, 3),
            ("pq", None, 0, 3, 3),
        ]
        bad = tmp_path / "bad.csv"
        bad.write_text("suite,query,iteration,seconds\ns,q,0,1.0\ns,q,one,2.0\n")
        with pytest.raises(InputFormatError, match=r"bad.csv:3: column 'iteration'"):
            ingest_file(store, bad)


def test_fixtures_are_generated_by_their_script_and_match_the_schema(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    """fixtures/clickbench/* are exactly what fixtures/make_clickbench_fixture.py writes,
    and valid ClickBench input."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "make_clickbench_fixture", fixtures_dir / "make_clickbench_fixture.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.json"))
    committed = sorted(
        p.relative_to(fixtures_dir / "clickbench")
        for p in (fixtures_dir / "clickbench").rglob("*.json")
    )
    assert made == committed and len(made) == 2
    schema = _clickbench_schema()
    for rel in made:
        assert (tmp_path / rel).read_bytes() == (fixtures_dir / "clickbench" / rel).read_bytes()
        doc = json.loads((tmp_path / rel).read_text(encoding="utf-8"))
        jsonschema.validate(doc, schema)
        assert len(doc["result"]) == 43


@pytest.mark.real
def test_cli_reports_error_only_file_as_skipped(runner, real_dir: Path) -> None:  # type: ignore[no-untyped-def]
    f = real_dir / "clickbench" / "cedardb__results__20260509__c6a.metal.json"
    result = runner.invoke(app, ["ingest", str(f)])
    assert result.exit_code == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "cedardb" in line]
    assert len(lines) == 1
    assert "skipped: error-only ClickBench entry" in lines[0]


def test_repository_checkout_with_templates_ingests(tmp_path: Path, runner) -> None:  # type: ignore[no-untyped-def]
    """A ClickBench checkout: system folders hold template.json (metadata, no results) beside
    results in both layouts and an error-only file; the folder ingests with exit 0."""
    repo = tmp_path / "ClickBench"
    row = [[0.5, 0.2, 0.2]] * 43
    _write(repo / "duckdb" / "template.json", {"system": "DuckDB", "tags": ["C++"]})
    _write(repo / "duckdb/results/20260510/c6a.4xlarge.json", _doc(row, system="DuckDB"))
    _write(repo / "trino" / "template.json", {"system": "Trino", "tags": ["Java"]})
    _write(repo / "trino/results/c6a.metal.json", _doc(row, system="Trino", machine="c6a.metal"))
    _write(repo / "cedardb/results/20260509/c6a.metal.json", {"error": "issues/891"})
    db = tmp_path / "s.duckdb"
    result = runner.invoke(app, ["ingest", "--db", str(db), str(repo)])
    assert result.exit_code == 0, result.stderr
    skipped = [line for line in result.stderr.splitlines() if ": skipped: " in line]
    assert sorted(skipped) == sorted(
        [
            f"{repo / 'duckdb' / 'template.json'}: skipped: ClickBench system template, "
            "not a result",
            f"{repo / 'trino' / 'template.json'}: skipped: ClickBench system template, "
            "not a result",
            f"{repo / 'cedardb/results/20260509/c6a.metal.json'}: skipped: error-only "
            "ClickBench entry (issues/891)",
        ]
    )
    with open_store(db) as store:
        assert store.suites()["name"].to_list() == [
            "DuckDB / c6a.4xlarge / 2026-05-10",
            "Trino / c6a.metal / undated",
        ]
        assert _count(store, "SELECT count(*) FROM iterations") == 2 * 43 * 3


def test_same_suite_name_twice_gets_a_suffix_and_keeps_rows_apart(tmp_path: Path) -> None:
    first = _write(tmp_path / "a" / "m.json", _doc([[1.0, 0.5]], system="S", machine="m"))
    second = _write(tmp_path / "b" / "m.json", _doc([[2.0, 0.7, 0.6]], system="S", machine="m"))
    with open_store() as store:
        assert ingest_file(store, first).suites == ("S / m / undated",)
        assert ingest_file(store, second).suites == ("S / m / undated #2",)
        counts = store.frame(
            "SELECT s.name, count(*) AS n FROM iterations i JOIN suites s USING (suite_id) "
            "GROUP BY s.name ORDER BY s.name"
        )
    assert counts.rows() == [("S / m / undated", 2), ("S / m / undated #2", 3)]


def test_frame_source_records_its_name(tmp_path: Path) -> None:
    frame = pl.DataFrame({"suite": ["s"] * 2, "query": ["q"] * 2, "iteration": [0, 1]})
    frame = frame.with_columns(seconds=pl.Series([1.0, 0.5]))
    with open_store() as store:
        assert ingest_iterations(store, frame, name="nightly harness") == 2
        assert store.sources()[["path", "format", "rows"]].rows() == [
            ("nightly harness", "iterations-frame", 2)
        ]
