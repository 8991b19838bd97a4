"""``warmup cache``: the table, the derived figures, --json against its schema, errors."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
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


def test_forced_wrong_format_is_one_line_and_store_unchanged(
    runner: CliRunner, tmp_path: Path, fixtures_dir: Path
) -> None:
    db = tmp_path / "s.duckdb"
    fixture = fixtures_dir / "profiles" / "warehouse_warmup.csv"
    first = tmp_path / "first.csv"
    first.write_text("series,run,elapsed_s\nA,1,10\nA,2,1\nB,1,5\nB,2,1\n")
    assert runner.invoke(app, ["ingest", "--db", str(db), str(first)]).exit_code == 0
    result = runner.invoke(
        app, ["ingest", "--db", str(db), "--format", "snowflake-history", str(fixture)]
    )
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1
    assert "Snowflake QUERY_HISTORY" in errors[0] and "field 'QUERY_ID'" in errors[0]
    listed = runner.invoke(app, ["cache", "--db", str(db), "--json"])
    series = [s["series"] for s in json.loads(listed.stdout)["series"]]
    assert series == ["A", "B"]  # only the first file is stored


def _profile_truth(path: Path) -> tuple[int, float, float]:
    """(start ms, elapsed s, local share) read straight from a Databricks profile JSON."""
    query = json.loads(path.read_text(encoding="utf-8"))["query"]
    metrics = query["metrics"]
    local, remote = metrics["readCacheBytes"], metrics["readRemoteBytes"]
    return query["queryStartTimeMs"], metrics["totalTimeMs"] / 1000, local / (local + remote)


@pytest.mark.slow
def test_cache_json_on_real_databricks_pair(runner: CliRunner, real_dir: Path) -> None:
    """Issue 16 item 5: the warm run ran first, the cold one 72 min later. Read in time
    order, run 2 is a cold (evicted) run: no "warm from", no capacity, no fit; whatever
    order the files are given in."""
    folder = real_dir / "profiles"
    cold = folder / "MitsuhiroItagaki__query_profiler_analysis__sample.json"
    warm = next(folder.glob("MitsuhiroItagaki__*query-profile_01f078dc*.json"))
    truth = sorted([_profile_truth(cold), _profile_truth(warm)])  # by start time
    (start1, t1, share1), (start2, t2, share2) = truth
    assert share2 < share1 - 0.1 and t2 > t1  # the later run is slower and less local
    gap_min = (start2 - start1) / 60_000
    schema = json.loads((resource_dir("schemas") / "cache.schema.json").read_text())
    payloads = []
    for order in ([cold, warm], [warm, cold]):
        result = runner.invoke(app, ["cache", *map(str, order), "--json"])
        assert result.exit_code == 0, result.output
        payload = json.loads(result.stdout)
        jsonschema.validate(payload, schema)
        payloads.append(payload)
    assert payloads[0] == payloads[1]
    (series,) = payloads[0]["series"]
    assert series["ordered_by"] == "start_time"
    assert [r["elapsed_s"] for r in series["runs"]] == [t1, t2]
    assert [r["local_share"] for r in series["runs"]] == pytest.approx([share1, share2])
    assert series["verdict"] == "evicted"
    (evicted,) = series["evicted_runs"]
    assert evicted["run"] == 2
    assert evicted["since_previous_s"] == pytest.approx((start2 - start1) / 1000, abs=1e-3)
    assert round(gap_min) == 72
    assert series["runs_to_warm"] is None
    assert series["capacity_bytes"] is None and "run 2 was a cold" in series["capacity_note"]
    assert series["fit"] is None and "run 2 was a cold" in series["fit_note"]
    (finding,) = series["findings"]
    assert finding["rule"] == "cache.evicted" and finding["severity"] == "warning"
    assert finding["numbers"]["effect"] == pytest.approx(t2 - t1)
    assert "run 2 read 0 % locally (run 1: 98 %)" in finding["message"]
    assert "the cache was cold again 72 min after run 1 started" in finding["message"]
    assert round(series["speedup"], 1) == 13.2  # the cold run against the warm one
    text = runner.invoke(app, ["cache", str(cold), str(warm)]).stdout
    assert "cold-to-warm speed-up 13.2x (4m 14s -> 19.3s)" in text
    assert "the cache was cold again 72 min after run 1 started" in text.replace("\n", "")
    for wrong in ("warm from", "discard the first", "cache capacity at least", "best fit"):
        assert wrong not in text


PROFILE_SUFFIXES = (".json", ".csv")


@pytest.mark.slow
def test_every_real_profile_gives_verdicts_that_follow_the_data(
    runner: CliRunner, real_dir: Path
) -> None:
    """Every real file in ``real/profiles`` (each alone and all together): exit 0, JSON valid,
    and a "warm from run k" only where, in start-time order, the runs from k on are faster
    than run 1 and read at least as much locally; capacity and fits only with 3+ runs. A
    file with no profile (a ClickBench result kept beside the profiles) exits 1 with one
    line naming the commands that read it, as every command does with nothing to analyse."""
    folder = real_dir / "profiles"
    files = sorted(p for p in folder.iterdir() if p.suffix in PROFILE_SUFFIXES)
    assert len(files) >= 12
    schema = json.loads((resource_dir("schemas") / "cache.schema.json").read_text())
    checked = 0
    for args in [[str(p)] for p in files] + [[str(folder)]]:
        table = runner.invoke(app, ["cache", *args])
        if table.exit_code == 1 and "no profiled query series" in table.output:
            assert "(warmup gaps, detect, score)" in table.output, table.output
            assert "Traceback" not in table.output
            continue
        assert table.exit_code == 0, (args, table.output)
        result = runner.invoke(app, ["cache", *args, "--json"])
        assert result.exit_code == 0, (args, result.output)
        payload = json.loads(result.stdout)
        jsonschema.validate(payload, schema)
        for s in payload["series"]:
            runs = s["runs"]
            starts = [r["start_time"] for r in runs]
            if s["ordered_by"] == "start_time":
                assert None not in starts and starts == sorted(starts)
            warm_said = [f for f in s["findings"] if "warm from" in f["message"]]
            warm_said += [f for f in s["findings"] if f["rule"] == "cache-warmup"]
            if s["runs_to_warm"] is not None and s["runs_to_warm"] > 1:
                k = s["runs_to_warm"]
                assert all(r["elapsed_s"] < runs[0]["elapsed_s"] for r in runs[k - 1 :]), s
                if runs[0]["local_share"] is not None:
                    assert all(r["local_share"] > runs[0]["local_share"] for r in runs[k - 1 :])
                checked += 1
            else:
                assert not warm_said, s
            if s["capacity_bytes"] is not None or s["fit"] is not None:
                assert len(runs) >= 3 and s["verdict"] == "warming"
            for f in s["findings"]:
                assert f["subject"] == s["series"] and "effect" in f["numbers"]
    # the real files hold no 3-run warm-up: nothing claims one
    assert checked == 0


@pytest.mark.slow
def test_report_cache_section_carries_the_cli_findings(runner: CliRunner, real_dir: Path) -> None:
    """One cache rule set: on the real Databricks pair the report's findings, its cache
    section's JSON and ``warmup cache --json`` agree; no fitted curve is drawn."""
    from report_checks import report_of

    folder = real_dir / "profiles"
    cold = folder / "MitsuhiroItagaki__query_profiler_analysis__sample.json"
    warm = next(folder.glob("MitsuhiroItagaki__*query-profile_01f078dc*.json"))
    html, data = report_of(cold, warm)
    cli = json.loads(runner.invoke(app, ["cache", str(cold), str(warm), "--json"]).stdout)
    section = data["sections"]["cache"]
    assert section["series"][0]["findings"] == cli["series"][0]["findings"]
    shown = [f for f in data["findings"] if f["rule"].startswith("cache")]
    (finding,) = cli["series"][0]["findings"]
    assert [f["rule"] for f in shown] == ["cache.evicted"]
    # the report's findings list leads each message with its subject
    assert shown[0] == {**finding, "message": f"{finding['subject']}: {finding['message']}"}
    assert "fitted step curve" not in html  # the chart draws no curve
    assert not any("warm from" in f["message"] for f in data["findings"])
    assert section["series"][0]["fit"] is None
    assert "<td>evicted</td>" in html.replace(" ", "")
