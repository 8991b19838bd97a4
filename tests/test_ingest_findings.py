"""Warnings of the ingest are findings (issue 19 item 5): a file skipped, rows rejected, a
reading guessed — kept in the store, listed by ``warmup findings --json`` and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolkit
from toolkit.analyze.ingest_findings import rejected_rows
from toolkit.cli import app
from toolkit.pipeline.findings import store_findings


def _findings(db: Path) -> list[dict[str, object]]:
    result = CliRunner().invoke(app, ["findings", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    found: list[dict[str, object]] = json.loads(result.stdout)["findings"]
    return [f for f in found if str(f["rule"]).startswith("ingest-")]


@pytest.mark.slow
def test_real_clickbench_skips_and_warnings_are_findings(real_dir: Path, tmp_path: Path) -> None:
    folder = real_dir / "clickbench"
    # the truth from the files: error-only entries (no "result", an "error") and files
    # with fewer than ClickBench's 43 query rows
    error_only, short = set(), {}
    for path in folder.glob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if "result" not in doc and "error" in doc:
            error_only.add(path.name)
        elif "result" in doc and len(doc["result"]) != 43:
            short[path.name] = len(doc["result"])
    assert error_only and short  # the real folder has both (cedardb, clickhouse-cloud gcp)
    db = tmp_path / "s.duckdb"
    done = CliRunner().invoke(app, ["ingest", "--db", str(db), str(folder)])
    assert done.exit_code == 0, done.output
    found = _findings(db)
    skipped = {f["subject"] for f in found if f["rule"] == "ingest-file-skipped"}
    assert skipped == error_only
    assert all(
        f["severity"] == "warning" and "error-only" in str(f["message"])
        for f in found
        if f["rule"] == "ingest-file-skipped"
    )
    warned = {f["subject"]: f["message"] for f in found if f["rule"] == "ingest-warning"}
    assert set(warned) == set(short)
    for name, rows in short.items():
        assert f"{rows} query rows (ClickBench has 43)" in str(warned[name])
        assert str(folder) not in str(warned[name])  # the subject names the file once
    # a report of the same store lists them among its findings
    with toolkit.open_store(db) as store:
        report = toolkit.render_report(store, plotlyjs="cdn")
    for name in error_only | set(short):
        assert name in report[: report.index('id="report-data"')]


def test_rejected_rows_are_counted_against_the_file(tmp_path: Path) -> None:
    """A JTL cut mid-record: the last record is dropped (1 row), the rest kept."""
    path = tmp_path / "cut.jtl"
    lines = ["timeStamp,elapsed,label,responseCode,success,allThreads"]
    lines += [f"{1_700_000_000_000 + i * 100},{20 + i % 5},home,200,true,2" for i in range(300)]
    text = "\n".join(lines) + "\n" + "1700000030000,2"  # cut inside the last record
    path.write_text(text, encoding="utf-8")
    with toolkit.open_store() as store:
        result = toolkit.ingest_file(store, path)
        found = [f for f in store_findings(store) if f.rule == "ingest-rows-rejected"]
    assert result.rows == 300
    assert len(found) == 1 and found[0].numbers["rows_rejected"] == 1
    assert found[0].numbers["effect"] == 1 / 301
    assert found[0].severity == "warning" and found[0].subject == "cut.jtl"


def test_a_guessed_reading_is_a_finding(tmp_path: Path) -> None:
    """A JTL without a header: its columns are guessed (JMeter's default order)."""
    path = tmp_path / "noheader.jtl"
    rows = [
        f"{1_700_000_000_000 + i * 100},{20 + i % 5},home,200,OK,t 1-1,text,true,,512,128,2,2,http://x/,19,0,3"
        for i in range(200)
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with toolkit.open_store() as store:
        toolkit.ingest_file(store, path)
        found = [f for f in store_findings(store) if f.rule == "ingest-format-guessed"]
    assert len(found) == 1 and "columns taken as" in found[0].message


def test_rejected_rows_reads_the_count() -> None:
    assert rejected_rows("x.json: 3 failed query row(s) left out") == 3
    assert rejected_rows("x.jtl:12: last record is incomplete (...); dropped it, every") == 1
    assert rejected_rows("x.json: 28 query rows (ClickBench has 43)") is None
