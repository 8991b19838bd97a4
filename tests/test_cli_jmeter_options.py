"""The JTL input options on every command that reads files, their checks and messages, and
the exit codes the README promises (1: input, store or an option's value; 2: a command line
that is incomplete or cannot be parsed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolkit import IngestOptions, Store, UsageError, ingest_path, open_store, resource_dir
from toolkit.cli import app
from toolkit.ingest import check_options, known_formats
from toolkit.synthetic import write_jtl

#: a header-less CSV JTL that no sniffer recognises (it starts with a label, not a time)
HEADERLESS = "".join(f"req{i % 3},200,true,{10 + i % 7}\n" for i in range(50))
HEADERLESS_COLUMNS = "label,responseCode,success,elapsed"


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("Error:")]


def _latin_jtl(path: Path) -> Path:
    """A CSV JTL in cp1252 (JMeter on Windows), 300 samples over 30 s."""
    lines = ["timeStamp,elapsed,label,responseCode,success,allThreads"]
    for i in range(300):
        lines.append(f"{1_700_000_000_000 + i * 100},{20 + i % 5},Requête {i % 2},200,true,2")
    path.write_bytes(("\n".join(lines) + "\n").encode("cp1252"))
    return path


# -- 1. --columns (and the other CSV JTL options) name the format ---------------------------


def test_columns_imply_the_csv_jtl_format(tmp_path: Path, runner: CliRunner) -> None:
    path = tmp_path / "noheader.csv"
    path.write_text(HEADERLESS)
    res = runner.invoke(app, ["ingest", str(path)])
    assert res.exit_code == 1
    # the message says how to read a header-less CSV JTL
    assert "--columns" in _errors(res.stderr)[0] and str(path) in res.stderr
    res = runner.invoke(app, ["ingest", str(path), "--columns", HEADERLESS_COLUMNS])
    assert res.exit_code == 0, res.output
    assert "jtl-csv, 50 rows" in res.stderr
    res = runner.invoke(app, ["load", str(path), "--columns", HEADERLESS_COLUMNS, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["suites"][0]["labels"][0]["samples"] == 50


def test_columns_in_a_folder_read_csv_files_and_skip_the_rest(tmp_path: Path, store: Store) -> None:
    (tmp_path / "gen1.csv").write_text(HEADERLESS)
    (tmp_path / "notes.json").write_text('{"not": "a result"}\n')
    options = IngestOptions(columns=tuple(HEADERLESS_COLUMNS.split(",")))
    report = ingest_path(store, tmp_path, options=options)
    assert report.errors == []
    by_name = {r.path.name: r for r in report.results}
    assert by_name["gen1.csv"].format == "jtl-csv" and by_name["gen1.csv"].rows == 50
    assert by_name["notes.json"].status == "skipped"


def test_delimiter_implies_the_csv_jtl_format_and_takes_tab_by_name(
    tmp_path: Path, store: Store
) -> None:
    path = tmp_path / "tabs.txt"
    path.write_text(HEADERLESS.replace(",", "\t"))
    options = IngestOptions(delimiter="tab", columns=tuple(HEADERLESS_COLUMNS.split(",")))
    report = ingest_path(store, path, options=options)
    assert report.errors == [] and report.results[0].rows == 50
    assert check_options(IngestOptions(delimiter="tab")).delimiter == "\t"
    assert check_options(IngestOptions(delimiter="\\t")).delimiter == "\t"
    assert check_options(IngestOptions(delimiter=";")).delimiter == ";"


# -- 2. the input options exist where the advice names them ------------------------------


@pytest.mark.slow
def test_load_compare_report_take_the_input_options(tmp_path: Path, runner: CliRunner) -> None:
    latin = _latin_jtl(tmp_path / "latin.csv")
    other = _latin_jtl(tmp_path / "other.csv")
    other.write_bytes(other.read_bytes().replace(b",20,", b",40,"))
    res = runner.invoke(app, ["load", str(latin)])
    assert res.exit_code == 1 and "pass --encoding" in res.stderr
    res = runner.invoke(app, ["load", str(latin), "--encoding", "cp1252", "--json"])
    assert res.exit_code == 0, res.output
    labels = [x["label"] for x in json.loads(res.stdout)["suites"][0]["labels"]]
    assert "Requête 1" in labels
    res = runner.invoke(app, ["compare", str(latin), str(other), "--encoding", "cp1252"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "r.html"
    res = runner.invoke(
        app,
        ["report", str(latin), "--encoding", "cp1252", "-o", str(out), "--plotlyjs", "cdn"],
    )
    assert res.exit_code == 0, res.output
    assert "Requête 1" in out.read_text(encoding="utf-8")
    for command in ("load", "compare", "report", "ingest"):
        text = runner.invoke(app, [command, "--help"]).stdout
        for option in ("--format", "--encoding", "--delimiter", "--columns", "--time-format"):
            assert option in text, (command, option)
        assert "--timezone" in text


# -- 3. exit codes ---------------------------------------------------------------------


def test_exit_codes_follow_the_readme(tmp_path: Path, runner: CliRunner) -> None:
    jtl = tmp_path / "on.jtl"
    write_jtl(jtl, 3000, seed=1, duration_s=30, warmup_s=0)
    one_line_exit_1 = {
        ("load", str(jtl), "--window", "0"): "--window '0'",
        ("compare", str(tmp_path / "nonexist.jtl"), str(jtl)): (
            f"{tmp_path / 'nonexist.jtl'}: no such file or folder"
        ),
        ("compare", "nonexist.jtl", str(jtl), "--db", str(tmp_path / "s.duckdb")): (
            "nonexist.jtl: no such file or folder"
        ),
        ("load", "--db", str(tmp_path / "missing.duckdb")): "missing.duckdb: no such store",
        ("load", str(jtl), "--delimiter", ";;"): "--delimiter ';;'",
        ("load", str(jtl), "--encoding", "foo"): "unknown --encoding 'foo'",
        ("ingest", str(jtl), "--format", "nope"): "unknown --format 'nope'",
        ("load", str(jtl), "--timezone", "Mars/Olympus"): "--timezone 'Mars/Olympus'",
    }
    for argv, expected in one_line_exit_1.items():
        res = runner.invoke(app, list(argv))
        assert res.exit_code == 1, (argv, res.output)
        errors = _errors(res.stderr)
        assert len(errors) == 1 and expected in errors[0], (argv, res.stderr)
    for argv in (["load"], ["load", str(jtl), "--no-such-option"], ["compare", str(jtl)]):
        assert runner.invoke(app, argv).exit_code == 2, argv


# -- 4. compare re-run on a store -------------------------------------------------------


@pytest.mark.slow
def test_compare_files_twice_on_one_store_reuses_their_suites(
    tmp_path: Path, runner: CliRunner
) -> None:
    off, on = tmp_path / "off.jtl", tmp_path / "on.jtl"
    write_jtl(off, 6000, seed=1, duration_s=60, warmup_s=10)
    write_jtl(on, 12000, seed=2, duration_s=60, warmup_s=10)
    db = tmp_path / "c.duckdb"
    first = runner.invoke(app, ["compare", str(off), str(on), "--db", str(db), "--json"])
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["compare", str(off), str(on), "--db", str(db), "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout) == json.loads(first.stdout)
    assert "already stored" not in again.stderr
    # WARMUP_DB set: the same on every run
    env_runner = CliRunner(env={"COLUMNS": "200", "WARMUP_DB": str(db)})
    res = env_runner.invoke(app, ["compare", str(off), str(on), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == json.loads(first.stdout)
    # a suite name against a file in the store, and a file against itself
    res = runner.invoke(app, ["compare", "off", str(on), "--db", str(db), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["b"] == "on"
    res = runner.invoke(app, ["compare", str(on), str(on), "--db", str(db)])
    assert res.exit_code == 1 and "A and B are the same file" in res.stderr


def test_load_with_db_and_files_shows_only_those_files(tmp_path: Path, runner: CliRunner) -> None:
    a, b = tmp_path / "a.jtl", tmp_path / "b.jtl"
    write_jtl(a, 3000, seed=1, duration_s=30, warmup_s=0)
    write_jtl(b, 3000, seed=2, duration_s=30, warmup_s=0)
    db = tmp_path / "s.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), str(a)]).exit_code == 0
    res = runner.invoke(app, ["load", str(b), "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output
    assert [s["suite"] for s in json.loads(res.stdout)["suites"]] == ["b"]
    res = runner.invoke(app, ["load", "--db", str(db), "--json"])
    assert [s["suite"] for s in json.loads(res.stdout)["suites"]] == ["a", "b"]


def test_a_duplicate_file_reports_its_stored_suites(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "run.jtl"
    write_jtl(path, 500, seed=1, duration_s=10, warmup_s=0)
    assert ingest_path(store, path).results[0].suites == ("run",)
    again = ingest_path(store, path).results[0]
    assert again.status == "duplicate" and again.suites == ("run",)


# -- 5. warnings name their file ---------------------------------------------------------


def test_warnings_name_their_file(tmp_path: Path, runner: CliRunner) -> None:
    path = tmp_path / "dates.csv"
    lines = ["timeStamp,elapsed,label,success"]
    lines += [f"2026-01-01 10:00:{i % 60:02d},{5 + i % 3},a,true" for i in range(60)]
    path.write_text("\n".join(lines) + "\n")
    for argv in (["load", str(path)], ["ingest", str(path)]):
        res = runner.invoke(app, argv)
        assert res.exit_code == 0, res.output
        warnings = [ln for ln in res.stderr.splitlines() if ln.startswith("warning:")]
        assert warnings and all(ln.startswith(f"warning: {path}: ") for ln in warnings), warnings


# -- 6. help texts -------------------------------------------------------------------------


def test_help_texts_say_what_the_options_take(runner: CliRunner) -> None:
    ingest = " ".join(runner.invoke(app, ["ingest", "--help"]).stdout.split())
    assert "JMeter JTLs" in ingest
    # the help wraps lines after a hyphen
    names = ingest.split("--format NAME", 1)[1].split(" --", 1)[0].replace("- ", "-")
    for name in known_formats():
        assert name in names, name
    assert "tab" in ingest and "strptime" in ingest and "%f reads milliseconds" in ingest
    assert "strftime" not in ingest
    load = " ".join(runner.invoke(app, ["load", "--help"]).stdout.split())
    assert "each file is its own suite" in load and "--suite NAME" in load
    assert "{paths}" not in load and "(created if missing). Default" not in load
    compare = runner.invoke(app, ["compare", "--help"]).stdout
    assert "{a}" not in compare and "{b}" not in compare


# -- 7. --time-format advice --------------------------------------------------------------


def _dated(path: Path, stamp: str) -> Path:
    lines = ["timeStamp,elapsed,label,success"] + [f"{stamp},5,a,true"] * 3
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_wrong_time_format_gets_one_that_fits(tmp_path: Path, runner: CliRunner) -> None:
    path = _dated(tmp_path / "ms.csv", "22.11.2026 03:01:47.125")
    res = runner.invoke(app, ["ingest", str(path), "--time-format", "%d.%m.%Y %H:%M:%S"])
    assert res.exit_code == 1
    (error,) = _errors(res.stderr)
    assert f"{path}:2:" in error
    assert "does not match --time-format '%d.%m.%Y %H:%M:%S'" in error
    assert "try --time-format '%d.%m.%Y %H:%M:%S.%f'" in error
    # without --time-format: the format that reads it, not a fixed example
    (error,) = _errors(runner.invoke(app, ["ingest", str(path)]).stderr)
    assert "pass --time-format '%d.%m.%Y %H:%M:%S.%f'" in error
    fixed = runner.invoke(app, ["ingest", str(path), "--time-format", "%d.%m.%Y %H:%M:%S.%f"])
    assert fixed.exit_code == 0, fixed.output


def test_time_format_on_epoch_ms_says_drop_it(tmp_path: Path, runner: CliRunner) -> None:
    path = tmp_path / "epoch.jtl"
    write_jtl(path, 100, seed=1, duration_s=10, warmup_s=0)
    res = runner.invoke(app, ["ingest", str(path), "--time-format", "%d.%m.%Y %H:%M:%S"])
    assert res.exit_code == 1
    (error,) = _errors(res.stderr)
    assert "is epoch milliseconds" in error and "leave --time-format out" in error


# -- 8. --timezone and --encoding checked up front --------------------------------------


def test_timezone_and_encoding_checked_before_reading(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "epoch.jtl"
    write_jtl(path, 100, seed=1, duration_s=10, warmup_s=0)
    with pytest.raises(UsageError, match="--timezone 'Mars/Olympus': unknown time zone"):
        ingest_path(store, path, options=IngestOptions(timezone="Mars/Olympus"))
    with pytest.raises(UsageError, match=r"unknown --encoding 'foo'; .*cp1252"):
        ingest_path(store, path, options=IngestOptions(encoding="foo"))
    assert store.con.execute("SELECT count(*) FROM sources").fetchone() == (0,)
    assert check_options(IngestOptions(timezone="Europe/Paris")).timezone == "Europe/Paris"


# -- 9. an HTML page given as a JTL --------------------------------------------------------


def test_an_html_page_is_named_as_such(tmp_path: Path, runner: CliRunner) -> None:
    page = tmp_path / "index.jtl"
    page.write_text(
        "<!DOCTYPE html>\n<html><head><title>Apache JMeter Dashboard</title></head></html>\n"
    )
    for extra in ([], ["--format", "jtl-xml"], ["--format", "jtl-csv"]):
        res = runner.invoke(app, ["ingest", str(page), *extra])
        assert res.exit_code == 1
        (error,) = _errors(res.stderr)
        assert f"{page}: an HTML page" in error and "JMeter wrote with -l" in error, extra
        assert "DOCTYPE" not in error and "choose one with --format" not in error


def test_timestamps_option_takes_start_or_end(tmp_path: Path, runner: CliRunner) -> None:
    """``--timestamps``: start or end, else one line and exit 1 before any file is read;
    ``end`` makes every start its timeStamp less its elapsed time."""
    path = tmp_path / "ends.csv"
    path.write_text(
        "timeStamp,elapsed,label,success\n"
        + "".join(f"{1_700_000_001_000 + 100 * i},{50 + i},a,true\n" for i in range(20))
    )
    bad = runner.invoke(app, ["load", str(path), "--timestamps", "middle"])
    assert bad.exit_code == 1
    assert bad.stderr.strip().splitlines() == [
        "Error: --timestamps 'middle': use start (JMeter's default) or end (a run with "
        "sampleresult.timestamp.start=false)"
    ]
    db = tmp_path / "s.duckdb"
    done = runner.invoke(app, ["ingest", str(path), "--db", str(db), "--timestamps", "end"])
    assert done.exit_code == 0, done.output
    assert "END time (--timestamps end)" in done.output
    with open_store(db, read_only=True) as store:
        starts = [
            r[0]
            for r in store.con.execute("SELECT start_ms FROM samples ORDER BY rowid").fetchall()
        ]
    assert starts == [1_700_000_001_000 + 100 * i - (50 + i) for i in range(20)]


def test_timestamps_start_overrides_the_old_xml_guess(tmp_path: Path) -> None:
    """An XML JTL sorted by ``ts`` without JMeter 3 attributes is read as end times (JMeter
    before 2.2); ``--timestamps start`` says they are starts, ``end`` says so outright."""
    path = tmp_path / "old.jtl"
    samples = "".join(
        f'<sample t="{40 + i}" ts="{1_100_000_000_000 + 100 * i}" lb="a" s="true"/>\n'
        for i in range(30)
    )
    path.write_text(
        f'<?xml version="1.0"?>\n<testResults version="1.1">\n{samples}</testResults>\n'
    )
    starts = {}
    for timestamps in (None, "start", "end"):
        with open_store() as store:
            result = ingest_path(store, path, options=IngestOptions(timestamps=timestamps))
            assert not result.errors
            rows = store.con.execute("SELECT start_ms FROM samples ORDER BY rowid").fetchall()
            starts[timestamps] = [r[0] for r in rows]
    ts = [1_100_000_000_000 + 100 * i for i in range(30)]
    assert starts["start"] == ts
    assert starts[None] == starts["end"] == [t - (40 + i) for i, t in enumerate(ts)]


# -- APDEX thresholds -------------------------------------------------------------------------


def _apdex_jtl(path: Path) -> Path:
    """Two labels, 100 samples each, elapsed 1..100 ms; every 10th ``slow`` sample fails."""
    lines = ["timeStamp,elapsed,label,responseCode,success"]
    for i in range(200):
        label = "fast" if i % 2 == 0 else "slow call"
        ok = "false" if label == "slow call" and i % 20 == 1 else "true"
        lines.append(f"{1_700_000_000_000 + i * 50},{1 + i // 2},{label},200,{ok}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
def test_apdex_options_set_the_thresholds(tmp_path: Path, runner: CliRunner) -> None:
    """``--apdex 20,60`` and ``--apdex-per-label 'slow.*:40|80'`` change every APDEX the
    way JMeter's properties do, counted here from the samples: ``fast`` (elapsed 1..100,
    all successful) and ``slow call`` (its own 40/80 ms; its 5 failures are frustrated);
    ALL and the dashboard's Total keep 20/60 ms."""
    path = _apdex_jtl(tmp_path / "apdex.jtl")
    ms = list(range(1, 101))

    def score(t: int, f: int, failed: set[int] | None = None) -> float:
        ok = [m for m in ms if m not in (failed or set())]
        return (sum(m <= t for m in ok) + sum(t < m <= f for m in ok) / 2) / len(ms)

    failed = {1 + i // 2 for i in range(200) if i % 2 == 1 and i % 20 == 1}
    res = runner.invoke(
        app, ["load", str(path), "--apdex", "20,60", "--apdex-per-label", "slow.*:40|80", "--json"]
    )
    assert res.exit_code == 0, res.output
    suite = json.loads(res.stdout)["suites"][0]
    labels = {lab["label"]: lab for lab in suite["labels"]}
    assert labels["fast"]["apdex"] == pytest.approx(score(20, 60))
    assert labels["slow call"]["apdex"] == pytest.approx(score(40, 80, failed))
    assert labels["slow call"]["apdex_thresholds_ms"] == [40, 80]
    assert labels["ALL"]["apdex_thresholds_ms"] == [20, 60]
    every = (sum(m <= 20 for m in ms) * 2 - sum(m <= 20 for m in failed)) + (
        sum(20 < m <= 60 for m in ms) * 2 - sum(20 < m <= 60 for m in failed)
    ) / 2
    assert labels["ALL"]["apdex"] == pytest.approx(every / 200)
    total = next(r for r in suite["dashboard"] if r["transaction"] == "Total")
    assert total["apdex"] == pytest.approx(every / 200)
    assert suite["apdex_thresholds"] == {
        "satisfied_ms": 20,
        "tolerated_ms": 60,
        "per_label": [{"pattern": "slow.*", "satisfied_ms": 40, "tolerated_ms": 80}],
    }
    # the table says which thresholds it used; JMeter's defaults say nothing
    res = runner.invoke(app, ["load", str(path), "--apdex", "20,60"])
    assert "APDEX T 20 ms, F 60 ms" in res.stdout
    assert "APDEX T" not in runner.invoke(app, ["load", str(path)]).stdout
    # the report's tables and provenance, and its embedded data
    out = tmp_path / "r.html"
    res = runner.invoke(
        app,
        ["report", str(path), "-o", str(out), "--load-apdex", "20,60",
         "--load-apdex-per-label", "slow.*:40|80"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert "APDEX (T = 20 ms, F = 60 ms; slow.*: 40/80 ms)" in html
    assert "T = 20 ms, F = 60 ms; slow.*: 40/80 ms</td>" in html  # provenance


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--apdex", "500"], "--apdex '500': expected the satisfied and tolerated"),
        (["--apdex", "2000,1000"], "T must be at least 0 and at most"),
        (["--apdex-per-label", "login"], "'login' is not PATTERN:T|F"),
        (["--apdex-per-label", "a(b:1|2"], "'a(b' is not a regular expression"),
        (["--apdex-per-label", "a:x|2"], "--apdex-per-label 'a': 'x|2': expected"),
        (["--apdex-per-label", ";"], "no PATTERN:T|F entry"),
    ],
)
def test_bad_apdex_options_say_what_is_wrong(
    tmp_path: Path, runner: CliRunner, args: list[str], message: str
) -> None:
    path = _apdex_jtl(tmp_path / "apdex.jtl")
    res = runner.invoke(app, ["load", str(path), *args])
    assert res.exit_code == 1
    (line,) = _errors(res.stderr)
    assert message in line, line


# -- the iteration and profile commands take --format and --encoding --------------------------


def _cp1252_inputs(tmp_path: Path) -> dict[str, Path]:
    """A ClickBench result and a generic profile CSV with non-ASCII names, in cp1252."""
    result = [[9.83, 0.256, 0.15], [0.972, 0.461, 0.116], [0.5, 0.3, 0.29]]
    doc = {"system": "Système", "date": "2025-01-01", "machine": "c6a", "result": result}
    bench = tmp_path / "bench.json"
    bench.write_bytes(json.dumps(doc, ensure_ascii=False).encode("cp1252"))
    profiles = resource_dir("fixtures") / "profiles" / "warehouse_warmup.csv"
    text = profiles.read_text(encoding="utf-8").replace("X-Large", "Entrepôt XL")
    profile = tmp_path / "warehouse.csv"
    profile.write_bytes(text.encode("cp1252"))
    return {"gaps": bench, "detect": bench, "score": bench, "cache": profile}


@pytest.mark.parametrize("command", ["gaps", "detect", "score", "cache"])
def test_iteration_and_profile_commands_take_format_and_encoding(
    tmp_path: Path, runner: CliRunner, command: str
) -> None:
    """A file in cp1252: without ``--encoding`` one line that says to pass it (which these
    commands did not take: the advice could not be followed), with it the analysis names
    the non-ASCII suite or series; ``--format`` reads the file as that format."""
    path = _cp1252_inputs(tmp_path)[command]
    res = runner.invoke(app, [command, str(path)])
    assert res.exit_code == 1
    (line,) = _errors(res.stderr)
    assert "not valid UTF-8" in line and "--encoding" in line
    res = runner.invoke(app, [command, str(path), "--encoding", "cp1252", "--json"])
    assert res.exit_code == 0, res.output
    assert ("Entrepôt XL" if command == "cache" else "Système") in res.stdout
    res = runner.invoke(app, [command, str(path), "--encoding", "cp1252", "--format", "jtl-xml"])
    assert res.exit_code == 1
    (line,) = _errors(res.stderr)
    assert str(path) in line and "xml" in line.lower(), line
    res = runner.invoke(app, [command, str(path), "--format", "nope"])
    assert res.exit_code == 1 and "nope" in _errors(res.stderr)[0]
