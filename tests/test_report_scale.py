"""The report at scale (issue 19 §7): every series in compact columns that decode to the
stored runs exactly, and report-data that grows by a few KB per ClickBench result."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Iterator
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


def check_decodes_to_store(store: Store, data: dict[str, Any] | None = None) -> int:
    """The report's series (of ``data``, else of a report built now) decode to the runs
    ``store`` holds; returns their number."""
    truth = stored_runs(store)
    series = data["sections"]["trajectories"]["series"] if data else trajectories_of(store)
    decoded = decode_series(series)
    assert len(decoded) == len(truth)  # every series, not the 48 drawn before
    names = dict(store.con.execute("SELECT suite_id, name FROM suites").fetchall())
    for s in decoded:
        runs = truth[(s["suite_id"], s["query"])]
        assert s["suite"] == names[s["suite_id"]]
        assert {
            r["process"]: list(zip(r["iterations"], r["seconds"], strict=True)) for r in s["runs"]
        } == runs
    return len(decoded)


def ingest_result_files(store: Store, folder: Path) -> None:
    """Every ``*.json`` of ``folder`` into ``store``, but the files it refuses (the real
    folder's error-only entry)."""
    for path in sorted(folder.glob("*.json")):
        try:
            toolkit.ingest_file(store, path)
        except toolkit.ToolkitError:
            continue


@pytest.mark.slow
def test_every_real_clickbench_series_decodes_to_its_runs(
    real_dir: Path, need: Callable[[bool, str], None]
) -> None:
    folder = real_dir / "clickbench"
    need(folder.is_dir(), f"{folder} not present")
    with toolkit.open_store() as store:
        ingest_result_files(store, folder)
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


@pytest.fixture(scope="module")
def two_hundred_results(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Store, dict[str, Any]]]:
    """200 results (:func:`write_results`) in a store and its report-data, built once for
    the module's tests, which only read them (each built its own: ~2.5 s apiece). The
    folder is read as ``warmup report FOLDER`` reads it: its small files committed in
    groups (0.1 s; 1.3 s as 200 ingests of one file each)."""
    folder = tmp_path_factory.mktemp("scale") / "cb"
    write_results(folder, 200)
    with toolkit.open_store() as store:
        report = toolkit.ingest_path(store, folder)
        assert not report.errors and len(report.results) == 200
        yield store, report_data(build_report(store))


@pytest.mark.slow
def test_report_data_per_result_is_a_few_kilobytes(
    two_hundred_results: tuple[Store, dict[str, Any]],
) -> None:
    """200 results: the old per-point objects (runs, detection and gap details per series)
    took ~47 KB of report-data per result (9.5 MB for 200 copies of the real files); the
    columns take under 4 KB, and every series is there."""
    store, data = two_hundred_results
    n = check_decodes_to_store(store, data)
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


def test_panel_columns_carry_resolution_and_the_gap_tables_values(tmp_path: Path) -> None:
    """The panels' floor and badges: each suite's timer resolution (ClickBench declares
    1 ms; a harness CSV has the smallest step between its run times), and the gap table's
    reference and window gap, sent only where the page cannot derive them from the runs."""
    steps = tmp_path / "steps.csv"
    # distinct values 0, 10, 10.5, 12.5 ms: the smallest step is 0.5 ms
    steps.write_text(
        "suite,query,iteration,seconds\n"
        "steps,a,0,0.010\nsteps,a,1,0.0\nsteps,a,2,0.0125\nsteps,a,3,0.0105\n"
        "steps,b,0,0.040\nsteps,b,1,0.030\nsteps,b,2,0.025\nsteps,b,3,0.020\n",
        encoding="utf-8",
    )
    # one hot run per query: the gap table's window is k = min(2, 1) = 1, not derivable
    short = tmp_path / "short.csv"
    short.write_text(
        "suite,query,iteration,seconds\nshort,c,0,0.9\nshort,c,1,0.3\n", encoding="utf-8"
    )
    clickbench = tmp_path / "cb.json"
    doc = {"system": "S", "date": "2026-01-01", "machine": "m", "result": [[0.5, 0.2, 0.1]]}
    clickbench.write_text(json.dumps(doc), encoding="utf-8")
    with toolkit.open_store() as store:
        for path in (steps, short, clickbench):
            toolkit.ingest_file(store, path)
        payload = trajectories_of(store)
    series = {(s["suite"], s["query"]): s for s in decode_series(payload)}
    a, b, c = series[("steps", "a")], series[("steps", "b")], series[("short", "c")]
    (q0,) = (s for s in series.values() if s["system"] == "S")
    assert a["resolution_s"] == pytest.approx(0.0005) and q0["resolution_s"] == 0.001
    # by hand: reference = min of hot runs, gap = min(hot runs 1..2) / reference - 1
    assert a["reference_s"] == 0 and a["window_gap"] is None  # a 0 s reference: no ratio
    assert b["reference_s"] == pytest.approx(0.020)
    assert b["window_gap"] == pytest.approx(0.025 / 0.020 - 1)
    assert q0["reference_s"] == pytest.approx(0.1)
    assert q0["window_gap"] == pytest.approx(0.1 / 0.1 - 1)
    assert c["reference_s"] == pytest.approx(0.3) and c["window_gap"] == 0  # k = 1
    # only the short suite's gap is sent; the rest the page derives
    assert payload["gap"]["series"] == [list(series).index(("short", "c"))]
    assert payload["gap"]["gap"] == [0] and payload["reference"]["series"] == []


def raw_gap_rows(store: Store) -> dict[str, list[tuple[float, int]]]:
    """The truth for the gap rows, from the stored runs: per suite and k, the sum over the
    queries with every hot run of min(hot runs 1..k), and how many of them are within ±10 %
    of their min of all hot runs."""
    names = dict(store.con.execute("SELECT suite_id, name FROM suites").fetchall())
    runs = stored_runs(store)
    longest: dict[int, int] = {}
    for (suite_id, _), processes in runs.items():
        for points in processes.values():
            longest[suite_id] = max(longest.get(suite_id, 0), max(it for it, _ in points) + 1)
    out: dict[str, list[tuple[float, int]]] = {}
    for suite_id, n_runs in longest.items():
        hot_series = []
        for (sid, _), processes in runs.items():
            for points in processes.values():
                if sid != suite_id:
                    continue
                by_it = dict(points)
                hot = [by_it.get(i) for i in range(1, n_runs)]
                if all(v is not None for v in hot):
                    hot_series.append([float(v) for v in hot if v is not None])
        rows = []
        for k in range(1, n_runs):
            firsts = [min(h[:k]) for h in hot_series]
            within = sum(
                abs(f - min(h)) <= 0.10 * min(h) + 1e-9
                for f, h in zip(firsts, hot_series, strict=True)
            )
            rows.append((sum(firsts), within))
        out[names[suite_id]] = rows
    return out


@pytest.mark.slow
def test_real_clickbench_gap_columns_hold_every_suite(
    real_dir: Path, need: Callable[[bool, str], None]
) -> None:
    """The gaps section's columns (issue 19 §7: 1.5 MB of objects at 2,000 results, 0.5 MB
    as columns) decode to the ``warmup gaps --json`` suites without their per-query lists,
    and their rows are the sums and counts computed here from the stored runs."""
    from toolkit.pipeline.gaps import gap_tables, gaps_payload
    from toolkit.report.sections.gaps import decode_gaps, suite_summary

    folder = real_dir / "clickbench"
    need(folder.is_dir(), f"{folder} not present")
    with toolkit.open_store() as store:
        ingest_result_files(store, folder)
        data = report_data(build_report(store))
        payload = gaps_payload(gap_tables(store, suite_findings=False))
        truth = raw_gap_rows(store)
    decoded = decode_gaps(data["sections"]["gaps"])
    expected = [suite_summary(s) for s in payload["suites"] if len(s["rows"]) >= 2]
    assert len(decoded) == len(expected) > 40
    for got, want in zip(decoded, expected, strict=True):
        assert got == {**want, "suite_id": got["suite_id"]}
        assert [(r["suite_sum_s"], r["within_tolerance"]) for r in got["rows"]] == [
            (pytest.approx(s, rel=1e-12), n) for s, n in truth[got["suite"]]
        ]


def test_gap_columns_per_suite_are_a_few_hundred_bytes(
    two_hundred_results: tuple[Store, dict[str, Any]],
) -> None:
    """200 results of 3 runs: the gaps section took ~750 bytes per suite as objects (keys
    repeated per suite and per row); as columns, under 250."""
    _, data = two_hundred_results
    gaps = data["sections"]["gaps"]
    size = len(json.dumps(gaps, separators=(",", ":")))
    assert len(gaps["suites"]["suite"]) == 200
    assert size / 200 < 250, f"{size / 200:.0f} bytes of gaps data per suite"


def test_score_runs_are_columns_of_the_stored_runs(
    two_hundred_results: tuple[Store, dict[str, Any]],
) -> None:
    """The system picker's runs (issue 19 §7) are read from the trajectories' columns: they
    decode to each scored suite's runs as stored (first process, null rows kept), send no
    run time of their own and cost ~70 bytes per system (label, flags, suite position);
    their own copy of the runs cost the digits of every run and a comma on top."""
    from toolkit.report.sections.score import decode_score_runs

    store, data = two_hundred_results
    truth = stored_runs(store)
    names = dict(store.con.execute("SELECT name, suite_id FROM suites").fetchall())
    score = data["sections"]["score"]
    decoded = decode_score_runs(score["runs"], data["sections"]["trajectories"]["series"])
    assert len(decoded) == len(score["entries"]) == 200
    for entry, got in zip(score["entries"], decoded, strict=True):
        suite_id = names[entry["suite"]]
        want = []
        for q in range(43):
            (points,) = truth[(suite_id, f"Q{q}")].values()
            values = [v for _, v in points]
            want.append(None if all(v is None for v in values) else values)
        assert got["result"] == want
    assert score["runs"]["seconds"] == [] and min(score["runs"]["suite"]) >= 0
    runs = json.dumps(score["runs"], separators=(",", ":"))
    assert len(runs) < 200 * 80, f"{len(runs) / 200:.0f} bytes per system"


def test_score_runs_keep_their_own_runs_where_the_series_differ(tmp_path: Path) -> None:
    """An entry whose result its suite's trajectory columns do not give (here one run
    changed after the fact) keeps its own runs and decodes to them; the others still point
    at their suites; without the series every entry sends its own runs."""
    from dataclasses import replace

    from toolkit.pipeline.score import score_entries
    from toolkit.report.sections.score import decode_score_runs, score_runs

    write_results(tmp_path / "cb", 5)
    with toolkit.open_store() as store:
        for path in sorted((tmp_path / "cb").glob("*.json")):
            toolkit.ingest_file(store, path)
        data = report_data(build_report(store))
        names = data["sections"]["score"]["entries"]
        entries = score_entries(store, [e["suite"] for e in names])
    series = data["sections"]["trajectories"]["series"]
    first_row = entries[2].result[0]
    assert first_row is not None
    changed = ((*first_row[:-1], 99.0), *entries[2].result[1:])
    entries[2] = replace(entries[2], result=changed)
    labels = [f"S{i}" for i in range(5)]
    runs = score_runs(entries, labels, series)
    assert [s >= 0 for s in runs["suite"]] == [True, True, False, True, True]
    assert len(runs["seconds"]) == sum(len(r) for r in changed if r is not None)
    want = [[None if r is None else list(r) for r in e.result] for e in entries]
    assert [e["result"] for e in decode_score_runs(runs, series)] == want
    alone = score_runs(entries, labels)
    assert min(alone["suite"]) == -1 == max(alone["suite"])
    assert [e["result"] for e in decode_score_runs(alone)] == want


def test_provenance_sources_are_columns_of_the_sources_table(
    two_hundred_results: tuple[Store, dict[str, Any]],
) -> None:
    """The input files in report-data (issue 19 §7) decode to the store's sources table,
    name = the path's last part, and cost ~80 bytes per file beyond its path and digest;
    an object per file with its name cost ~250."""
    from toolkit.report.sections.provenance import decode_sources

    store, data = two_hundred_results
    truth = store.frame(
        "SELECT source_id, path, sha256, format, bytes, rows, tool_version FROM sources "
        "ORDER BY source_id"
    ).to_dicts()
    sources = data["sections"]["provenance"]["sources"]
    decoded = decode_sources(sources)
    assert len(decoded) == len(truth) == 200
    for got, want in zip(decoded, truth, strict=True):
        assert got == {**want, "name": Path(want["path"]).name}
    assert sources["format"] == "clickbench"  # one value for all 200
    size = len(json.dumps(sources, separators=(",", ":")))
    own = sum(len(s["path"]) + len(s["sha256"]) for s in truth)
    assert (size - own) / 200 < 80, f"{(size - own) / 200:.0f} bytes per file"
