"""Tables for files and pipes (issue 20.5): full width when stdout is not a terminal,
``--output-format csv|tsv|markdown`` on every table-printing command, ``warmup suites``
shows the ``--tag`` values."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolkit.cli import app

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def _raw_clickbench(folder: Path) -> tuple[set[str], set[str]]:
    """The system and machine names the ClickBench result files state, read directly."""
    systems, machines = set(), set()
    for path in folder.glob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and "system" in doc:
            systems.add(doc["system"])
            machines.add(doc.get("machine") or "")
    return systems, machines


def _piped(args: list[str], cwd: Path) -> str:
    """stdout of ``warmup ARGS`` written to a file (not a terminal), COLUMNS unset."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "WARMUP_DB")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    out = cwd / "stdout.txt"
    with out.open("w", encoding="utf-8") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "toolkit", *args],
            cwd=cwd,
            env=env,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    return out.read_text(encoding="utf-8")


@pytest.mark.slow
def test_score_piped_to_a_file_keeps_full_names(
    real_dir: Path, tmp_path: Path, need: Callable[[bool, str], None]
) -> None:
    """On the real ClickBench results a 80-column cut gave "c6a.4xlar…": every system and
    machine cell of the piped table is a name from the files themselves, none cut."""
    folder = real_dir / "clickbench"
    need(folder.is_dir(), f"{folder} not present")
    systems, machines = _raw_clickbench(folder)
    text = _piped(["score", str(folder)], tmp_path)
    rows = [line for line in text.splitlines() if line.startswith("│")]
    assert len(rows) >= 10
    assert "…" not in text
    for row in rows:
        cells = [c.strip() for c in row.strip("│").split("│")]
        assert cells[0] in systems, cells[0]
        assert cells[1] in machines, cells[1]
    # the same rows as csv: parsed by the csv module, every name whole (csv has no width:
    # run in this process, the piped process above is the point of the test)
    as_csv = CliRunner(env={"NO_COLOR": "1"}).invoke(
        app, ["score", str(folder), "--output-format", "csv"]
    )
    assert as_csv.exit_code == 0, as_csv.output
    parsed = list(csv.reader(io.StringIO(as_csv.stdout)))
    assert parsed[0] == ["system", "machine", "date", "runs", "combined", "hot", "cold"]
    assert len(parsed) - 1 == len(rows)
    assert {r[0] for r in parsed[1:]} <= systems
    assert {r[1] for r in parsed[1:]} <= machines


def _table_commands(tmp_path: Path) -> dict[str, list[str]]:
    clickbench = str(FIXTURES / "clickbench")
    baseline = str(FIXTURES / "jmeter" / "baseline.jtl.gz")
    candidate = str(FIXTURES / "jmeter" / "candidate.jtl.gz")
    db = tmp_path / "tagged.duckdb"
    return {
        "suites": ["suites", "--db", str(db)],
        "gaps": ["gaps", clickbench],
        "detect": ["detect", clickbench],
        "score": ["score", clickbench],
        "load": ["load", baseline],
        "compare": ["compare", baseline, candidate],
        "cache": ["cache", str(FIXTURES / "profiles" / "warehouse_warmup.csv")],
    }


@pytest.mark.parametrize("output_format", ["csv", "tsv", "markdown"])
@pytest.mark.slow
def test_every_table_command_prints_the_output_format(
    runner: CliRunner, tmp_path: Path, output_format: str
) -> None:
    """Each table-printing command takes --output-format; csv and tsv stdout parse as
    delimited rows of one width per table (findings and notes on stderr), markdown is
    pipe tables."""
    db = tmp_path / "tagged.duckdb"
    done = runner.invoke(
        app, ["ingest", "--db", str(db), str(FIXTURES / "jmeter" / "baseline.jtl.gz")]
    )
    assert done.exit_code == 0, done.output
    for name, args in _table_commands(tmp_path).items():
        done = runner.invoke(app, [*args, "--output-format", output_format])
        assert done.exit_code == 0, (name, done.output)
        out = done.stdout
        assert out.strip(), name
        if output_format == "markdown":
            lines = [line for line in out.splitlines() if line.startswith("|")]
            assert lines and lines[1].startswith("|---"), (name, out[:500])
            continue
        delimiter = "," if output_format == "csv" else "\t"
        for block in out.strip("\n").split("\n\n"):
            rows = list(csv.reader(io.StringIO(block), delimiter=delimiter))
            assert len(rows) >= 2, (name, block[:300])
            assert {len(r) for r in rows} == {len(rows[0])}, (name, block[:300])
        assert "Findings:" not in out and "warning:" not in out, name


def test_suites_shows_tags_and_the_tagged_machine(runner: CliRunner, tmp_path: Path) -> None:
    """``--tag machine=vm2 --tag nightly`` were stored but no command showed them, and a
    load suite's machine stayed empty."""
    db = tmp_path / "t.duckdb"
    jtl = FIXTURES / "jmeter" / "baseline.jtl.gz"
    args = ["ingest", "--db", str(db), str(jtl), "--tag", "machine=vm2", "--tag", "nightly"]
    assert runner.invoke(app, args).exit_code == 0
    done = runner.invoke(app, ["suites", "--db", str(db), "--output-format", "csv"])
    assert done.exit_code == 0, done.output
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [(r["suite"], r["machine"], r["tags"]) for r in rows] == [
        ("baseline", "vm2", "nightly, machine=vm2")
    ]
    payload = json.loads(runner.invoke(app, ["suites", "--db", str(db), "--json"]).stdout)
    (suite,) = payload["suites"]
    assert suite["machine"] == "vm2" and suite["tags"] == ["nightly"]
    assert suite["attributes"]["machine"] == "vm2"
