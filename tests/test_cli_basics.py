"""CLI basics: help and examples on every command, python -m toolkit, warmup demo."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_demo_writes_html_and_prints_tables(runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "demo.html"
    result = runner.invoke(app, ["demo", "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert f"wrote {out}" in result.stderr
    assert "JVMEngine (synthetic)" in result.stdout and "+80.0 %" in result.stdout
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert "<td>+50.0 %</td>" in html and "<td>37/41</td>" in html
    assert "http://" not in html and "https://" not in html


def test_demo_html_escapes_suite_names() -> None:
    from datetime import date

    import polars as pl

    from toolkit.analyze.gaps import iteration_gaps
    from toolkit.pipeline.demo import render_demo_html
    from toolkit.pipeline.gaps import SuiteGaps

    table = iteration_gaps(
        pl.DataFrame({"query": ["q"] * 3, "iteration": [0, 1, 2], "seconds": [1.0, 0.5, 0.4]})
    )
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    html = render_demo_html([SuiteGaps(1, evil, evil, None, date(2026, 1, 1), table)])
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;" in html


def test_demo_unwritable_output_is_one_line(runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["demo", "-o", str(tmp_path / "missing" / "d.html")])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("Error: ") and "cannot write the demo page" in lines[-1]


def test_analysis_without_input_is_usage_error(runner) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["gaps"])
    assert result.exit_code == 2
    assert "no input" in result.stderr
