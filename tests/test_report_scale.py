"""The report at scale (issue 19 §7): every series in compact columns that decode to the
stored runs exactly, and report-data that grows by a few KB per ClickBench result."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import toolkit
from toolkit.report.render import build_report, report_data
from toolkit.report.sections.series_columns import decode_series
from toolkit.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))


def stored_runs(store: Store) -> dict[tuple[int, str], dict[int, list[tuple[int, float | None]]]]:
    """The truth, straight from the store: (suite_id, query) → process → (iteration, s)."""
    out: dict[tuple[int, str], dict[int, list[tuple[int, float | None]]]] = {}
    rows = store.con.execute(
        "SELECT suite_id, query, process, iteration, seconds FROM iterations "
        "ORDER BY suite_id, query_index, query, process, iteration"
    ).fetchall()
    for suite_id, query, process, iteration, seconds in rows:
        value = None if seconds is None or seconds != seconds else float(seconds)
        out.setdefault((suite_id, query), {}).setdefault(process, []).append((iteration, value))
    return out


def trajectories_of(store: Store) -> dict[str, Any]:
    data = report_data(build_report(store))
    series: dict[str, Any] = data["sections"]["trajectories"]["series"]
    return series


def check_decodes_to_store(store: Store) -> int:
    truth = stored_runs(store)
    decoded = decode_series(trajectories_of(store))
    assert len(decoded) == len(truth)  # every series, not the 48 drawn before
    names = dict(store.con.execute("SELECT suite_id, name FROM suites").fetchall())
    for s in decoded:
        runs = truth[(s["suite_id"], s["query"])]
        assert s["suite"] == names[s["suite_id"]]
        assert {
            r["process"]: list(zip(r["iterations"], r["seconds"], strict=True)) for r in s["runs"]
        } == runs
    return len(decoded)


def test_every_real_clickbench_series_decodes_to_its_runs(
    real_dir: Path, need: Callable[[bool, str], None]
) -> None:
    folder = real_dir / "clickbench"
    need(folder.is_dir(), f"{folder} not present")
    with toolkit.open_store() as store:
        for path in sorted(folder.glob("*.json")):
            try:
                toolkit.ingest_file(store, path)
            except toolkit.ToolkitError:
                continue  # the error-only entry
        n = check_decodes_to_store(store)
        series = store.con.execute(
            "SELECT count(*) FROM (SELECT DISTINCT suite_id, query FROM iterations)"
        ).fetchone()
    assert series is not None and n == series[0] > 1_500


def test_jvm_seed_series_keep_their_verdict_in_the_columns(tmp_path: Path) -> None:
    # 10 runs, a warm-up and a spike: the sparse steady/spike columns land on the right series
    runs = [[2.0, 1.07, 1.0, 1.0, 1.0, 5.0, 1.0, 1.0, 1.0, 1.0], [0.5] * 10]
    path = tmp_path / "s.json"
    doc = {"system": "S", "date": "2026-01-01", "machine": "m", "result": runs}
    path.write_text(json.dumps(doc), encoding="utf-8")
    with toolkit.open_store() as store:
        toolkit.ingest_file(store, path)
        check_decodes_to_store(store)
        q0, q1 = decode_series(trajectories_of(store))
    assert q0["query"] == "Q0" and [it for it, _ in q0["spikes"]] == [5]
    assert q0["steady_s"] == pytest.approx(1.0) and q1["steady_s"] == pytest.approx(0.5)
    assert q1["spikes"] == [] and q1["changepoints"] == []


def write_results(folder: Path, count: int, seed: int = 19) -> None:
    """``count`` ClickBench-shaped results: 43 queries × 3 runs (ms resolution), a few nulls."""
    rng = random.Random(seed)
    folder.mkdir()
    for n in range(count):
        result = []
        for _ in range(43):
            hot = round(rng.uniform(0.001, 3.0), 3)
            row: list[float | None] = [round(hot * rng.uniform(1, 4), 3), hot, round(hot * 1.05, 3)]
            if rng.random() < 0.02:
                row = [None, None, None]
            result.append(row)
        doc = {
            "system": f"System {n}",
            "date": "2026-01-01",
            "machine": "c6a.4xlarge",
            "result": result,
        }
        (folder / f"r{n:04d}.json").write_text(json.dumps(doc), encoding="utf-8")


def test_report_data_per_result_is_a_few_kilobytes(tmp_path: Path) -> None:
    """200 results: the old per-point objects (runs, detection and gap details per series)
    took ~47 KB of report-data per result (9.5 MB for 200 copies of the real files); the
    columns take under 4 KB, and every series is there."""
    write_results(tmp_path / "cb", 200)
    with toolkit.open_store() as store:
        for path in sorted((tmp_path / "cb").glob("*.json")):
            toolkit.ingest_file(store, path)
        data = report_data(build_report(store))
        n = check_decodes_to_store(store)
    assert n == 200 * 43
    size = len(json.dumps(data, separators=(",", ":")))
    assert size / 200 < 4_000, f"{size / 200:.0f} bytes of report-data per result"
    # the columns: a run is its digits and a comma, a series a few indexes (the old
    # objects repeated suite, system and keys per series: > 100 bytes per run)
    runs = len(json.dumps(data["sections"]["trajectories"]["series"], separators=(",", ":")))
    assert runs / (200 * 43 * 3) < 12


def test_gaps_prints_one_summary_table_for_many_suites(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from toolkit.cli import app

    write_results(tmp_path / "cb", 12)
    runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})
    summary = runner.invoke(app, ["gaps", str(tmp_path / "cb")])
    assert summary.exit_code == 0, summary.output
    assert "12 suites: the window (k = 2)" in summary.output
    # one row per suite, each 3-run suite 0 % at its own window (min-all = min(run 2, 3))
    rows = [line for line in summary.output.splitlines() if "System " in line]
    assert len(rows) == 12 and all("+0.0 %" in row for row in rows)
    assert summary.output.count("Hot iters") == 0
    every = runner.invoke(app, ["gaps", str(tmp_path / "cb"), "--per-suite"])
    assert every.exit_code == 0 and every.output.count("Hot iters") == 12
