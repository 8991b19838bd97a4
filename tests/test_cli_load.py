"""``warmup load`` / ``warmup compare`` / ``warmup ingest`` on JMeter files, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from toolkit import open_store, resource_dir
from toolkit.cli import app
from toolkit.synthetic import write_jtl


def _schema(name: str) -> dict[str, object]:
    return json.loads((resource_dir("schemas") / name).read_text())  # type: ignore[no-any-return]


def test_load_json_contract_and_script_label_verbatim(tmp_path: Path, runner: CliRunner) -> None:
    path = tmp_path / "xss.jtl"
    lines = ["timeStamp,elapsed,label,responseCode,success,allThreads"]
    for i in range(400):
        label = "<script>alert(1)</script>" if i % 2 else "home"
        lines.append(f"{1_700_000_000_000 + i * 100},{20 + i % 7},{label},200,true,4")
    path.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["load", str(path), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    jsonschema.validate(payload, _schema("load.schema.json"))
    suite = payload["suites"][0]
    labels = [x["label"] for x in suite["labels"]]
    assert labels[0] == "ALL" and "<script>alert(1)</script>" in labels
    all_ = suite["labels"][0]
    assert all_["samples"] == 400
    for key in ("samples", "errors", "duration_s", "warmup_end_s", "throughput", "latency_ms"):
        assert key in all_
    assert set(all_["throughput"]) >= {"overall", "steady", "steady_ci"}
    assert set(all_["latency_ms"]["overall"]) >= {"p50", "p90", "p95", "p99", "mean", "max"}
    # the table view shows it as text, unmangled
    table = runner.invoke(app, ["load", str(path)])
    assert table.exit_code == 0 and "<script>alert(1)</script>" in table.stdout


@pytest.mark.real
def test_short_real_console_reads_too_short_everywhere(real_dir: Path, runner: CliRunner) -> None:
    """JMeter 5.6.3's 12 s console (windows 0.244, 5.81, 6, 0.125 s: 2 of full length)
    printed "inconclusive" in the table under a "too short" finding; the table, the JSON
    and the finding now all say too-short."""
    path = real_dir / "jmeter" / "generated__jmeter-5.6.3__default.stdout.txt"
    table = runner.invoke(app, ["load", str(path)])
    assert table.exit_code == 0, table.output
    assert "too-short" in table.stdout and "inconclusive" not in table.stdout
    result = runner.invoke(app, ["load", str(path), "--json"])
    payload = json.loads(result.stdout)
    jsonschema.validate(payload, _schema("load.schema.json"))
    (suite,) = payload["suites"]
    assert suite["labels"][0]["warmup_status"] == "too-short"
    assert [f["rule"] for f in suite["findings"]].count("load-too-short") == 1


@pytest.mark.real
def test_load_real_files_table_and_json(real_dir: Path, runner: CliRunner) -> None:
    files = [
        real_dir / "jmeter" / "generated__jmeter-5.6.3__default.csv",
        real_dir / "jmeter" / "generated__jmeter-5.6.3__default.stdout.txt",
        real_dir / "jmeter" / "bin__testfiles__sample_log1.jtl",
    ]
    result = runner.invoke(app, ["load", *map(str, files), "--json", "--window", "2s"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    jsonschema.validate(payload, _schema("load.schema.json"))
    # the 5.6.3 CSV and its console (.stdout.txt) are one run: one suite, the log beside
    assert [s["source"] for s in payload["suites"]] == ["samples", "samples"]
    # ... whose counts agree once read as JMeter's summariser counts: 1,564 samples in the
    # CSV, of which 781 are children of "TC parent" (391 child A + 390 child B, sub-results
    # the summariser never sees) and 3 interrupted "TC parent" rows without JMeter's
    # transaction message (which the summariser counts as samples): 1,564 - 781 + 3 = 786
    first = payload["suites"][0]
    assert first["logs"]["samples"] == 786 and first["labels"][0]["samples"] == 1564
    assert "load-log-disagrees" not in {f["rule"] for f in first["findings"]}
    assert payload["window_s"] == 2.0


@pytest.mark.slow
def test_ingest_then_load_from_db_and_compare(tmp_path: Path, runner: CliRunner) -> None:
    db = tmp_path / "runs.duckdb"
    off, on = tmp_path / "off.jtl", tmp_path / "on.jtl"
    write_jtl(off, 60_000, seed=1, duration_s=120, warmup_s=20)
    write_jtl(on, 480_000, seed=2, duration_s=120, warmup_s=20)
    for path, name in ((off, "off"), (on, "on")):
        res = runner.invoke(app, ["ingest", "--db", str(db), "--suite", name, str(path)])
        assert res.exit_code == 0, res.output
        assert "jtl-csv" in res.output
    res = runner.invoke(app, ["load", "--db", str(db), "--suite", "on", "--json"])
    assert res.exit_code == 0, res.output
    assert [s["suite"] for s in json.loads(res.stdout)["suites"]] == ["on"]
    res = runner.invoke(app, ["compare", "off", "on", "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    jsonschema.validate(payload, _schema("compare.schema.json"))
    all_ = payload["labels"][0]
    assert all_["label"] == "ALL"
    lo, hi = all_["throughput"]["ci"]
    assert lo <= 8.0 <= hi and hi - lo < 0.5  # the seed's "up to 8x throughput"
    assert all_["latency_mean_ms"]["ratio"] == pytest.approx(1 / 8, rel=0.03)
    res = runner.invoke(app, ["compare", str(off), str(on)])
    assert res.exit_code == 0 and "ALL" in res.stdout
    # a suite against itself is no comparison (it gave a ratio of 1 with a CI): exit 1
    res = runner.invoke(app, ["compare", "on", "on", "--db", str(db)])
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.strip() == (
        "Error: A and B are both suite 'on' (on, on): compare two different suites or files"
    )
    # --window values it cannot use are an option's value: exit 1 (README), one line
    for bad in ("abc", "0s", "-1s"):
        for argv in (["load", "--db", str(db)], ["compare", "off", "on", "--db", str(db)]):
            res = runner.invoke(app, [*argv, "--window", bad])
            assert res.exit_code == 1, (argv, bad, res.output)
            assert len(res.stderr.strip().splitlines()) == 1 and "--window" in res.stderr


@pytest.mark.slow
def test_bad_inputs_one_line_exit_1_store_unchanged(tmp_path: Path, runner: CliRunner) -> None:
    db = tmp_path / "s.duckdb"
    good = tmp_path / "good.jtl"
    good.write_text("timeStamp,elapsed,label,success\n1000,5,a,true\n")
    assert runner.invoke(app, ["ingest", "--db", str(db), str(good)]).exit_code == 0
    cases = {
        "wrong.jtl": b"<html><body>not a result file</body></html>\n",
        "noheader.csv": b"1795316606501,52,a,200\n1795316606502,52,a,200\n",
        "latin.jtl": b"timeStamp,elapsed,label,success\n1000,5,Requ\xeate,true\n",
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        res = runner.invoke(app, ["ingest", "--db", str(db), str(path)])
        assert res.exit_code == 1, (name, res.output)
        errors = [ln for ln in res.stderr.splitlines() if ln.startswith("Error:")]
        assert len(errors) == 1 and str(path) in errors[0], (name, res.stderr)
    assert (
        "an HTML page"
        in runner.invoke(app, ["ingest", "--db", str(db), str(tmp_path / "wrong.jtl")]).stderr
    )
    res = runner.invoke(app, ["ingest", "--db", str(db), str(tmp_path / "noheader.csv")])
    assert "noheader.csv:1:" in res.stderr and "--columns" in res.stderr
    res = runner.invoke(app, ["ingest", "--db", str(db), str(tmp_path / "latin.jtl")])
    assert "latin.jtl:2:" in res.stderr and "--encoding" in res.stderr
    with open_store(db, read_only=True) as store:
        assert store.con.execute("SELECT count(*) FROM sources").fetchone() == (1,)
        assert store.con.execute("SELECT count(*) FROM samples").fetchone() == (1,)


def test_headerless_with_columns_flag(real_dir: Path, runner: CliRunner, tmp_path: Path) -> None:
    path = real_dir / "jmeter" / "bin__testfiles__TEST_HTTP_HttpClient4.csv"
    res = runner.invoke(
        app,
        [
            "ingest",
            "--db",
            str(tmp_path / "h.duckdb"),
            "--format",
            "jtl-csv",
            "--columns",
            "label,responseCode,threadName,dataType,success",
            str(path),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "22 rows" in res.stderr


@pytest.mark.slow
def test_distributed_files_into_one_suite_with_progress_bar(
    tmp_path: Path, runner: CliRunner
) -> None:
    db = tmp_path / "dist.duckdb"
    files = [tmp_path / "lg-1.jtl", tmp_path / "lg-2.jtl"]
    write_jtl(files[0], 50_000, seed=1, duration_s=100, warmup_s=0, hostname="lg-1")
    write_jtl(files[1], 10_000, seed=2, duration_s=100, warmup_s=0, hostname="lg-2")
    res = runner.invoke(app, ["ingest", "--db", str(db), "--suite", "dist", *map(str, files)])
    assert res.exit_code == 0, res.output
    # a file over PROGRESS_MIN_BYTES gets a progress bar on stderr, a small one none
    assert files[0].stat().st_size > 4 << 20 > files[1].stat().st_size
    bars = [ln for ln in res.stderr.splitlines() if ln.startswith("read ") and "100%" in ln]
    assert len(bars) == 1 and bars[0].endswith("lg-1.jtl")
    assert res.stderr.count("-> dist (stored)") == 2
    res = runner.invoke(app, ["load", "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output
    suites = json.loads(res.stdout)["suites"]
    assert [s["suite"] for s in suites] == ["dist"]
    assert suites[0]["labels"][0]["samples"] == 60_000
    # `warmup load FILE --json`: the bar goes to stderr, stdout stays one JSON document
    res = runner.invoke(app, ["load", str(files[0]), "--json"])
    assert res.exit_code == 0 and "100%" in res.stderr
    assert json.loads(res.stdout)["suites"][0]["labels"][0]["samples"] == 50_000


def test_large_inputs_without_db_use_a_temporary_store_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.cli import common

    path = tmp_path / "run.jtl"
    write_jtl(path, 2_000, seed=1, duration_s=20, warmup_s=0)
    with common.scratch_store([path]) as store:
        assert store.path is None  # small: in memory
    monkeypatch.setattr(common, "SCRATCH_FILE_BYTES", path.stat().st_size)
    with common.scratch_store([path, tmp_path]) as store:
        scratch = store.path
        assert scratch is not None and scratch.exists() and scratch.parent != tmp_path
    assert not scratch.exists() and not scratch.parent.exists()  # removed afterwards


def test_folder_of_results_counts_its_files_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder's size is its files' (it counted as 0, so a folder of large JTLs was read
    into memory: ~2.5 GB of RAM for a 10M-row JTL)."""
    from toolkit.cli import common

    folder = tmp_path / "results"
    folder.mkdir()
    path = folder / "run.jtl"
    write_jtl(path, 2_000, seed=1, duration_s=20, warmup_s=0)
    monkeypatch.setattr(common, "SCRATCH_FILE_BYTES", path.stat().st_size)
    with common.scratch_store([folder]) as store:
        assert store.path is not None


def test_folder_walk_skips_files_in_no_known_format(tmp_path: Path, runner: CliRunner) -> None:
    """A results folder also holds notes, configs and empty files: a folder walk skips
    them with one line each and analyses the rest (it stopped with exit 1 and no table);
    a file named on its own is still an error, and so is a folder with no result file."""
    folder = tmp_path / "results"
    folder.mkdir()
    write_jtl(folder / "run.jtl", 2_000, seed=1, duration_s=20, warmup_s=0)
    (folder / "expected.json").write_text('{"note": "not a result"}\n')
    (folder / "notes.txt").write_text("ran on the staging box\n")
    (folder / "killed.log").write_bytes(b"")
    res = runner.invoke(app, ["load", str(folder), "--json"])
    assert res.exit_code == 0, res.stderr
    assert len(json.loads(res.stdout)["suites"]) == 1
    skipped = [ln for ln in res.stderr.splitlines() if ": skipped: " in ln]
    assert len(skipped) == 3 and not any(ln.startswith("Error") for ln in res.stderr.splitlines())
    assert any(str(folder / "notes.txt") in ln and "--format NAME" in ln for ln in skipped), skipped
    assert any(str(folder / "killed.log") in ln and "file is empty" in ln for ln in skipped)
    named = runner.invoke(app, ["load", str(folder / "notes.txt")])
    assert named.exit_code == 1 and "Error: " in named.stderr
    (folder / "run.jtl").unlink()
    res = runner.invoke(app, ["load", str(folder)])
    assert res.exit_code == 1
    assert f"Error: {folder}: no file in this folder is in a known format (3 tried)" in res.stderr


@pytest.mark.slow
def test_load_the_real_jmeter_folder(real_dir: Path, runner: CliRunner) -> None:
    """``warmup load`` on the whole real folder: every JTL, XML and log is analysed; the
    header-less CSVs that need --columns and JMeter's expected-output JSON are skipped."""
    res = runner.invoke(app, ["load", str(real_dir / "jmeter"), "--json"])
    assert res.exit_code == 0, res.stderr
    skipped = sorted(
        Path(ln.split(": skipped: ")[0]).name
        for ln in res.stderr.splitlines()
        if ": skipped: " in ln
    )
    assert skipped == [
        "bin__testfiles__Bug52968.csv",
        "bin__testfiles__Bug62239.csv",
        "bin__testfiles__TEST_HTTP_HttpClient4.csv",
        "src__dist-check__src__test__resources__org__apache__jmeter__gui__report__HTMLReportExpect.json",
    ]
    suites = json.loads(res.stdout)["suites"]
    # every console in the folder joined the JTL of its run (the 5.6.3 stdout its CSV)
    assert {s["source"] for s in suites} == {"samples"}
    assert [s["suite"] for s in suites if s.get("logs")] == ["generated__jmeter-5.6.3__default"]


@pytest.mark.slow
def test_compare_says_why_ratios_are_missing(tmp_path: Path, runner: CliRunner) -> None:
    """Labels in one suite only, and a suite with no steady state, were compared silently
    (only an ALL row, or every ratio null with exit 0)."""
    shop, other, climb = tmp_path / "shop.jtl", tmp_path / "other.jtl", tmp_path / "climb.jtl"
    write_jtl(shop, 20_000, seed=1, duration_s=200, warmup_s=20)
    write_jtl(other, 20_000, seed=2, duration_s=200, warmup_s=20, labels=("x1", "x2"))
    # throughput rising over the whole run: never steady
    write_jtl(climb, 20_000, seed=3, duration_s=200, warmup_s=200)
    res = runner.invoke(app, ["compare", str(shop), str(other), "--json"])
    assert res.exit_code == 0, res.output
    notes = json.loads(res.stdout)["notes"]
    assert len(notes) == 1 and notes[0].startswith("labels differ (only in shop: ")
    assert "only in other: x1, x2); compared: ALL" in notes[0]
    assert f"note: {notes[0]}" in res.stderr
    res = runner.invoke(app, ["compare", str(shop), str(climb), "--json"])
    payload = json.loads(res.stdout)
    jsonschema.validate(payload, _schema("compare.schema.json"))
    # issue 17: compare always answers — without a steady state in B, both runs are
    # compared over every full window (the warm-up included), with a note that says so
    # (was: every ratio null, a table of dashes)
    row = payload["labels"][0]
    assert row["basis"] == "overall" and row["steady_window"]["b"]["source"] == "overall"
    lo, hi = row["throughput"]["ci"]
    assert lo < row["throughput"]["ratio"] < hi
    assert any(n.startswith("climb: no steady state") for n in payload["notes"])
    assert any("overall figures" in n for n in payload["notes"])


def test_control_characters_in_labels_are_shown_escaped(tmp_path: Path, runner: CliRunner) -> None:
    """A TAB in a JMeter label (JMeter writes it quoted) moved every column after it in the
    terminal tables, and an ESC could drive the terminal: both print as escapes; --json
    keeps the label verbatim."""
    path = tmp_path / "ctl.jtl"
    lines = ["timeStamp,elapsed,label,responseCode,success"]
    for i in range(400):
        label = '"tab\there"' if i % 2 else "\x1b[31mred"
        lines.append(f"{1_700_000_000_000 + 50 * i},{20 + i % 5},{label},200,true")
    path.write_text("\n".join(lines) + "\n")
    table = runner.invoke(app, ["load", str(path)])
    assert table.exit_code == 0, table.output
    assert "tab\\there" in table.stdout and "\\x1b[31mred" in table.stdout
    assert "\t" not in table.stdout and "\x1b" not in table.stdout
    as_json = runner.invoke(app, ["load", str(path), "--json"])
    labels = {lab["label"] for lab in json.loads(as_json.stdout)["suites"][0]["labels"]}
    assert {"tab\there", "\x1b[31mred"} <= labels
