"""``warmup cache``: the table, the derived figures, --json against its schema, errors."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from typer.testing import CliRunner

from toolkit.cli import app
from toolkit.pipeline.cache import human_bytes, human_elapsed, human_minutes, human_rate
from toolkit.resources import resource_dir


def test_units_print_like_the_seed() -> None:
    assert human_rate(264.67e6) == "264.7 MB/s"
    assert human_rate(5.18e9) == "5.2 GB/s"
    assert human_bytes(121.7e9) == "121.7 GB"
    assert human_bytes(269.9e6) == "269.9 MB"
    assert human_elapsed(468) == "7m 48s"
    assert human_elapsed(33.5) == "33.5s"
    assert human_elapsed(1860) == "31m"
    assert human_minutes(1e12 / 264.67e6) == "63 min"
    # 1 TB at 66.5 MB/s = 250.6 min: the seed truncates to "4 hours 10 minutes"
    assert human_minutes(1e12 / 66.5e6) in ("4 h 10 min", "4 h 11 min")


def test_cache_table_and_derived_figures(runner: CliRunner, fixtures_dir: Path) -> None:
    fixture = fixtures_dir / "profiles" / "warehouse_warmup.csv"
    result = runner.invoke(app, ["cache", str(fixture)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "X-Large, 16 nodes" in out and "Medium, 4 nodes" in out
    assert "264.7 MB/s" in out and "1 TB in 63 min" in out
    assert "66.5 MB/s" in out and "1 TB in 4 h 11 min" in out
    assert "121.7 GB -> 55.4 GB" in out
    assert "74x faster" in out
    assert "3.0 GB per node" in out and "12.8 GB per node" in out
    assert "5.2 GB/s" in out


def test_cache_json_matches_schema_and_contract(runner: CliRunner, fixtures_dir: Path) -> None:
    fixture = fixtures_dir / "profiles" / "warehouse_warmup.csv"
    result = runner.invoke(app, ["cache", str(fixture), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    schema = json.loads((resource_dir("schemas") / "cache.schema.json").read_text())
    jsonschema.validate(payload, schema)
    xl = next(s for s in payload["series"] if s["series"] == "X-Large")
    assert xl["nodes"] == 16
    assert round(xl["remote_rate"] / 1e6, 1) == 264.7  # bytes/s
    assert xl["runs"][0]["elapsed_s"] == 468.0
    assert xl["runs"][0]["bytes_remote"] == 121_400_000_000
    assert xl["capacity_bytes"] == 48_500_000_000
    assert xl["runs_to_warm"] == 5


def test_cache_without_input_is_a_usage_error(runner: CliRunner) -> None:
    result = runner.invoke(app, ["cache"])
    assert result.exit_code == 2
    assert "no input" in result.stderr


def test_cache_db_round_trip(runner: CliRunner, fixtures_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    fixture = fixtures_dir / "profiles" / "warehouse_warmup.csv"
    assert runner.invoke(app, ["ingest", "--db", str(db), str(fixture)]).exit_code == 0
    result = runner.invoke(app, ["cache", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    assert [s["series"] for s in json.loads(result.stdout)["series"]] == ["X-Large", "Medium"]
