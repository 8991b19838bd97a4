"""The ten most likely mistakes (issue 7 §6), each through the CLI: the exact one-line
message (file, line or field, what is wrong, what to do), exit code 1, and the store
exactly as it was."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolkit import ingest_file, open_store
from toolkit.cli import app

ROOT = Path(__file__).resolve().parent.parent
CLICKBENCH = ROOT / "fixtures" / "fuzz" / "minisys__results__20260101__c6a.test.json"
JTL = ROOT / "tests" / "data" / "stores" / "inputs" / "shop.jtl"
KNOWN_FORMATS = (
    "clickbench, clickhouse-query-log, databricks-history, databricks-profile, duckdb-profile, "
    "iterations, jmeter-log, jtl-csv, jtl-xml, profile-csv, snowflake-history, "
    "snowflake-operator-stats"
)
SUITE = "MiniSys (hand-made) / c6a.test / 2026-01-01"


def contents(db: Path) -> dict[str, list[dict[str, object]]]:
    """Every row of every table of ``db``, sorted (what "unchanged" compares)."""
    with open_store(db, read_only=True) as store:
        tables = [r[0] for r in store.con.execute("SHOW TABLES").fetchall()]
        return {t: sorted(store.frame(f"SELECT * FROM {t}").to_dicts(), key=repr) for t in tables}


@dataclass(frozen=True)
class Mistake:
    """A command line with a mistake in it and what the user must see.

    ``make(tmp, db)`` writes what the mistake needs under ``tmp`` and returns the
    arguments and the expected stderr lines (``db`` holds one ClickBench file)."""

    name: str
    make: Callable[[Path, Path], tuple[list[str], list[str]]]


def wrong_format_flag(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    return ["ingest", "--db", str(db), "--format", "clickbench", str(JTL)], [
        f"Error: {JTL}:1: invalid JSON: Expecting value (column 1); the file looks like "
        "jtl-csv: pass --format jtl-csv or leave --format out"
    ]


def unknown_format_name(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    return ["ingest", "--db", str(db), "--format", "jtl", str(JTL)], [
        f"Error: unknown --format 'jtl'; known formats: {KNOWN_FORMATS}"
    ]


def jtl_without_header(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    path = tmp / "noheader.jtl"
    path.write_text("1767225600000,12,home,200\n1767225600100,15,home,200\n")
    return ["ingest", "--db", str(db), str(path)], [
        f"Error: {path}:1: no header line, and the first record has 4 fields where JMeter's "
        "default 17-column set has 17; pass --columns NAME,NAME,... (the writer's "
        "jmeter.save.saveservice.* columns in order) or --delimiter"
    ]


def jtl_unknown_columns(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    path = tmp / "noheader.jtl"
    path.write_text("1767225600000,12,home,200\n1767225600100,15,home,200\n")
    args = ["ingest", "--db", str(db), "--columns", "timeStamp,elapsed,lable,responseCode"]
    return [*args, str(path)], [
        "Error: --columns: unknown JMeter column 'lable'; known: timeStamp, elapsed, label, "
        "responseCode, responseMessage, threadName, dataType, success, failureMessage, bytes, "
        "sentBytes, grpThreads, allThreads, URL, Filename, Latency, Encoding, SampleCount, "
        'ErrorCount, Hostname, IdleTime, Connect and "quoted" sample variables'
    ]


def folder_without_results(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    folder = tmp / "results"
    folder.mkdir()
    (folder / "README.md").write_text("the results are elsewhere\n")
    return ["ingest", "--db", str(db), str(folder)], [
        f"Error: {folder}: folder holds no result files (none named *.json, *.jsonl, *.jtl, "
        "*.csv, *.tsv, *.xml, *.log, *.txt, *.gz, *.parquet, *.ndjson); give the folder that "
        "holds the results, or the files"
    ]


def empty_file(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    path = tmp / "run.jtl"
    path.write_bytes(b"")
    return ["ingest", "--db", str(db), str(path)], [
        f"Error: {path}: file is empty; nothing to ingest"
    ]


def locked_store(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    # the holder is started by the test (see HOLDER below); its PID is filled in there
    return ["ingest", "--db", str(db), str(JTL)], [
        f"{db}: store is in use by another warmup process (PID {{pid}}); "
        "waiting up to 0.2 s (WARMUP_LOCK_TIMEOUT)",
        f"Error: {db}: store is locked by another warmup process (PID {{pid}}); waited 0.2 s. "
        "Retry when it finishes, or set WARMUP_LOCK_TIMEOUT to wait longer",
    ]


def unknown_suite(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    return ["gaps", "--db", str(db), "--suite", "MiniSys"], [
        f"Error: unknown suite 'MiniSys'; known suites: {SUITE} (list them with `warmup suites`)"
    ]


def non_numeric_run_json(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    path = tmp / "c6a.4xlarge.json"
    path.write_text(json.dumps({"system": "S", "machine": "m", "result": [[1.0, "fast", 0.3]]}))
    return ["ingest", "--db", str(db), str(path)], [
        f"Error: {path}: field 'result[0][1]': expected seconds (a number) or null, got \"fast\""
    ]


def non_numeric_run_csv(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    path = tmp / "iterations.csv"
    path.write_text("suite,query,iteration,seconds\ns,q1,0,0.5\ns,q1,1,fast\n")
    return ["ingest", "--db", str(db), str(path)], [
        f"Error: {path}:3: column 'seconds': 'fast' is not a number of seconds from 0 to 1e+09, "
        "or empty for a failed run"
    ]


def unknown_reference(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    return ["gaps", "--db", str(db), "--reference", "median"], [
        "Error: unknown --reference 'median'; use one of: min-all, steady"
    ]


def missing_output_folder(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    out = tmp / "reports" / "nightly.html"
    return ["report", "--db", str(db), "-o", str(out)], [
        f"Error: {out}: folder {out.parent} does not exist; create it first"
    ]


def output_is_a_folder(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    return ["report", "--db", str(db), "-o", str(tmp)], [
        f"Error: {tmp}: is a folder; give a file name such as {tmp / 'report.html'}"
    ]


def unwritable_output(tmp: Path, db: Path) -> tuple[list[str], list[str]]:
    # a full disk: /dev/full refuses every write with ENOSPC, also for root (CI runs as root,
    # so a read-only folder would not stop it)
    return ["report", "--db", str(db), "-o", "/dev/full"], [
        "Error: /dev/full: cannot write (No space left on device); choose another --output"
    ]


MISTAKES = [
    Mistake("wrong format flag", wrong_format_flag),
    Mistake("wrong format flag: unknown name", unknown_format_name),
    Mistake("JTL without header", jtl_without_header),
    Mistake("JTL without header: unknown column in --columns", jtl_unknown_columns),
    Mistake("folder with no results", folder_without_results),
    Mistake("empty file", empty_file),
    Mistake("locked store", locked_store),
    Mistake("unknown suite name", unknown_suite),
    Mistake("non-numeric run: ClickBench JSON", non_numeric_run_json),
    Mistake("non-numeric run: iterations CSV", non_numeric_run_csv),
    Mistake("unknown --reference", unknown_reference),
    Mistake("missing output folder", missing_output_folder),
    Mistake("unwritable output: a folder", output_is_a_folder),
    Mistake("unwritable output: disk full", unwritable_output),
]

# Holds the store's lock (a real toolkit connection) until stdin closes.
HOLDER = """
import sys
from toolkit import open_store

with open_store(sys.argv[1]):
    print("holding", flush=True)
    sys.stdin.read()
"""


@contextlib.contextmanager
def lock_held(db: Path) -> Iterator[int]:
    """Another process holding ``db`` open for writing; yields its PID."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "holding\n"
        yield proc.pid
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=60)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store holding one ClickBench file."""
    path = tmp_path / "bench.duckdb"
    with open_store(path) as store:
        ingest_file(store, CLICKBENCH)
    return path


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.name)
@pytest.mark.slow
def test_mistake_gets_one_clear_line_exit_1_and_store_unchanged(
    mistake: Mistake, tmp_path: Path, db: Path, runner: CliRunner
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    args, expected = mistake.make(work, db)
    before = contents(db)
    if mistake.make is locked_store:
        with lock_held(db) as pid:
            result = runner.invoke(app, args, env={"WARMUP_LOCK_TIMEOUT": "0.2"})
        expected = [line.format(pid=pid) for line in expected]
    else:
        result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert (result.exit_code, result.stderr.splitlines()) == (1, expected)
    assert result.stdout == ""
    assert contents(db) == before
