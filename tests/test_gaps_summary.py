"""``warmup gaps DIR`` at scale (issue 19 item 7: <= 5 s on 2,000 ClickBench results): the
summary table of several suites shows no findings, so the warm-up engine runs only when
something reads its findings (one suite's table, --per-suite, --json, a fail level); the
gap tables of all suites come from one pass per run count, equal to each suite's alone."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import toolkit.pipeline.detect
from toolkit.analyze.gaps import iteration_gaps, iteration_gaps_by_suite
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


#: run times that stress the equality: repeats, 0 s, 1 ms steps, failures
_RUNS = st.one_of(
    st.none(),
    st.sampled_from([0.0, 0.001, 0.002, 0.01, 0.042, 0.043, 1.0, 1.1]),
    st.floats(0.0, 50.0, allow_nan=False),
)


def _suite_frame(suite_id: int, series: list[list[float | None]], processes: int) -> pl.DataFrame:
    rows = [
        {
            "suite_id": suite_id,
            "query": f"Q{q}",
            "query_index": q,
            "process": p,
            "iteration": i,
            "seconds": v,
        }
        for q, runs in enumerate(series)
        for p in range(processes)
        for i, v in enumerate(runs)
    ]
    schema = {
        "suite_id": pl.Int64,
        "query": pl.String,
        "query_index": pl.Int64,
        "process": pl.Int64,
        "iteration": pl.Int64,
        "seconds": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema)


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(
    suites=st.lists(
        st.tuples(
            st.lists(st.lists(_RUNS, min_size=1, max_size=6), min_size=1, max_size=5),
            st.integers(1, 2),
        ),
        min_size=1,
        max_size=6,
    ),
    steady=st.booleans(),
    tolerance=st.sampled_from([0.0, 0.10]),
)
@pytest.mark.slow
def test_tables_of_all_suites_equal_each_suite_alone(
    suites: list[tuple[list[list[float | None]], int]], steady: bool, tolerance: float
) -> None:
    """Suites of different run counts (so several matrices), processes and failed runs,
    computed in one pass, equal :func:`iteration_gaps` of each suite's frame alone, with
    the min-all reference or supplied ones (some missing)."""
    frames = [_suite_frame(10 + i, series, p) for i, (series, p) in enumerate(suites)]
    references = {
        10 + i: {f"Q{q}": 0.01 * q if q % 3 else None for q in range(len(series))}
        for i, (series, _) in enumerate(suites)
    }
    by_suite = iteration_gaps_by_suite(
        pl.concat(frames).sample(fraction=1.0, shuffle=True, seed=1),
        tolerance=tolerance,
        reference="steady" if steady else "min-all",
        reference_s=references if steady else None,
    )
    assert list(by_suite) == [10 + i for i in range(len(suites))]
    for i, frame in enumerate(frames):
        alone = iteration_gaps(
            frame.drop("suite_id"),
            tolerance=tolerance,
            reference="steady" if steady else "min-all",
            reference_s=references[10 + i] if steady else None,
        )
        assert by_suite[10 + i] == alone
