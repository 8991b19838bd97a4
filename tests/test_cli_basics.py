"""CLI basics: help and examples on every command, python -m toolkit, warmup demo."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.cli import app


def _command_names() -> list[str]:
    import typer.main

    group = typer.main.get_command(app)
    return sorted(group.commands)  # type: ignore[attr-defined]


def test_every_command_has_help_with_an_example(runner) -> None:  # type: ignore[no-untyped-def]
    top = runner.invoke(app, ["--help"])
    assert top.exit_code == 0
    assert "Example:" in top.stdout
    names = _command_names()
    assert {"ingest", "suites", "gaps", "demo"} <= set(names)
    for name in names:
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0, name
        assert "Example:" in result.stdout, name
        assert "Usage:" in result.stdout, name


def test_python_m_toolkit_help_runs_clean() -> None:
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "--help"],
        capture_output=True,
        text=True,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "COLUMNS": "120"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "gaps" in done.stdout and "Example:" in done.stdout


@pytest.mark.slow
def test_demo_writes_html_and_prints_tables(runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "demo.html"
    result = runner.invoke(app, ["demo", "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert f"wrote {out}" in result.stderr
    assert "JVMEngine (synthetic)" in result.stdout and "+80.0 %" in result.stdout
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert ">+50%</td>" in html and ">37/41</td>" in html
    # offline: plotly.js inlined, nothing loaded from elsewhere
    assert "<script src=" not in html and "<link " not in html


def test_demo_unwritable_output_is_one_line(runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["demo", "-o", str(tmp_path / "missing" / "d.html")])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("Error: ") and "does not exist" in lines[-1]


def test_analysis_without_input_is_usage_error(runner) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["gaps"])
    assert result.exit_code == 2
    assert "no input" in result.stderr


def test_a_command_with_nothing_to_analyse_names_what_the_input_holds(runner) -> None:  # type: ignore[no-untyped-def]
    """A JTL given to an iteration command (or results to `load`) was read into suites of
    another kind: the message says which, and the command that analyses them; every
    command exits 1 for it (issue 18: gaps, detect and cache exited 0, load and score 1)."""
    fixtures = Path(__file__).resolve().parent.parent / "fixtures"
    jtl = str(fixtures / "jmeter" / "baseline.jtl.gz")
    results = str(fixtures / "clickbench" / "jvm-engine")
    profiles = str(fixtures / "profiles" / "warehouse_warmup.csv")
    load_hint = "1 load-test suite (warmup load, compare)"
    cases = [
        (
            ["detect", jtl],
            1,
            f"no iteration suites to analyze in the input; the input holds {load_hint}",
        ),
        (["gaps", jtl, profiles], 1, f"{load_hint} and 1 profile suite (warmup cache)"),
        (["score", jtl], 1, f"no iteration suites to score; the input holds {load_hint}"),
        (["cache", results], 1, "the input holds 1 iteration suite (warmup gaps, detect, score)"),
        (["load", results], 1, "in the input; the input holds 1 iteration suite (warmup gaps"),
    ]
    for argv, code, message in cases:
        result = runner.invoke(app, argv)
        assert result.exit_code == code, (argv, result.output)
        assert message in result.stderr, (argv, result.stderr)


def test_control_characters_print_as_escapes_in_every_table(runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Suite and query names are untrusted: an ESC sequence in one could drive the terminal
    and a TAB shifts the columns, so every command's tables print them escaped."""
    path = tmp_path / "ctl.csv"
    rows = ["suite,query,iteration,seconds"]
    for q in range(3):
        rows += [f'"s\tuite","q\x1b[2J{q}",{i},{2.0 if i == 0 else 1.0 + 0.01 * (i % 3)}'
                 for i in range(12)]  # fmt: skip
    path.write_text("\n".join(rows) + "\n")
    for command in ("gaps", "detect", "ingest"):
        result = runner.invoke(app, [command, str(path)] if command != "ingest" else
                               [command, str(path), "--db", str(tmp_path / "s.duckdb")])  # fmt: skip
        assert result.exit_code == 0, (command, result.output)
        assert "\x1b" not in result.output and "\t" not in result.output, command
        assert "s\\tuite" in result.output, command
