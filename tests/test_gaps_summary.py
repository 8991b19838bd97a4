"""``warmup gaps DIR`` at scale (issue 19 item 7: <= 5 s on 2,000 ClickBench results): the
summary table of several suites shows no findings, so the warm-up engine runs only when
something reads its findings (one suite's table, --per-suite, --json, a fail level)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolkit.pipeline.detect
from toolkit.cli import app


@pytest.fixture
def engine_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the calls of the warm-up engine over a store (``detect_series``)."""
    calls: list[int] = []
    real = toolkit.pipeline.detect.detect_series

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(toolkit.pipeline.detect, "detect_series", counted)
    return calls


def test_summary_skips_the_engine_and_prints_the_same(
    runner: CliRunner, fixtures_dir: Path, engine_calls: list[int]
) -> None:
    """Two suites: the summary without the engine; with --per-suite (which runs it) the
    same suites, and the findings the summary does not show."""
    folder = str(fixtures_dir / "clickbench")
    summary = runner.invoke(app, ["gaps", folder])
    assert summary.exit_code == 0, summary.output
    assert "2 suites: the window (k = 2)" in summary.stdout
    assert "Findings" not in summary.stdout
    assert engine_calls == []
    every = runner.invoke(app, ["gaps", folder, "--per-suite"])
    assert every.exit_code == 0 and engine_calls == [1]
    assert "Findings:" in every.stdout and "window-error" in every.stdout


@pytest.mark.parametrize(
    "extra",
    [["--json"], ["--per-query"], ["--reference", "steady"], ["--fail-on", "never"]],
)
def test_engine_runs_when_its_findings_are_read(
    runner: CliRunner, fixtures_dir: Path, engine_calls: list[int], extra: list[str]
) -> None:
    result = runner.invoke(app, ["gaps", str(fixtures_dir / "clickbench"), *extra])
    assert result.exit_code == 0, result.output
    assert engine_calls == [1]


def test_fail_level_of_the_summary_still_sees_the_findings(
    runner: CliRunner, fixtures_dir: Path, tmp_path: Path, engine_calls: list[int]
) -> None:
    """The JVM fixture's window error is a problem: --fail-on problem, or fail_on in a
    config file, exits 4 under the summary table, as before."""
    folder = str(fixtures_dir / "clickbench")
    flagged = runner.invoke(app, ["gaps", folder, "--fail-on", "problem"])
    assert flagged.exit_code == 4, flagged.output
    assert "2 suites: the window" in flagged.stdout
    assert "window-error" in flagged.stderr
    config = tmp_path / "warmup.toml"
    config.write_text('fail_on = "problem"\n', encoding="utf-8")
    from_file = runner.invoke(app, ["gaps", folder, "--config", str(config)])
    assert from_file.exit_code == 4, from_file.output
    assert engine_calls == [1, 1]


def test_one_suite_prints_its_table_and_findings(
    runner: CliRunner, fixtures_dir: Path, engine_calls: list[int]
) -> None:
    """A folder of one suite is no summary: its table, then the engine's findings."""
    folder = fixtures_dir / "clickbench" / "jvm-engine"
    result = runner.invoke(app, ["gaps", str(folder)])
    assert result.exit_code == 0, result.output
    assert "Hot iters" in result.stdout and "Findings:" in result.stdout
    assert engine_calls == [1]
