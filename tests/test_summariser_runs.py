"""Summariser logs read as what they are (issue 17, item 3), checked against the JTL of the
same run (../shared/real/jmeter-runs: each console log beside its CSV JTL) or against the
true windows a generated log was printed from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from report_checks import embedded_data
from typer.testing import CliRunner

from toolkit import Store, ingest_file, open_store
from toolkit.analyze.timeseries import summary_rate_ci
from toolkit.cli import app
from toolkit.ingest import ingest_paths
from toolkit.pipeline.load import load_report

RUNS = "jmeter-runs"


def _jtl_truth(path: Path) -> dict[str, float]:
    """From the JTL itself: the main group's mean elapsed, its threads at its first
    sample, and its completions per 10 s (from the first sample's start)."""
    con = duckdb.connect()
    # the file read once, its three columns kept (it was read three times: 1.5 s a run)
    con.execute(
        f"""CREATE TEMP TABLE s AS SELECT timeStamp, elapsed, label, allThreads
            FROM read_csv('{path}')"""
    )
    mean, first_threads = con.execute(
        """SELECT avg(elapsed), arg_min(allThreads, timeStamp) FROM s
            WHERE label NOT LIKE 'setup%'"""
    ).fetchone()  # type: ignore[misc]
    per10 = [
        int(r[0])
        for r in con.execute(
            """SELECT count(*) FROM s
                GROUP BY (timeStamp + elapsed - (SELECT min(timeStamp) FROM s)) // 10000
                ORDER BY 1"""
        ).fetchall()
    ]
    return {"mean_ms": float(mean), "first_threads": float(first_threads), "per10": per10}  # type: ignore[dict-item]


@pytest.mark.real
@pytest.mark.parametrize("run", ["h2_point_lookup_10t_60s", "pg_point_lookup_10t_60s"])
@pytest.mark.slow
def test_real_logs_claim_no_ramp_or_steady_state_their_jtl_contradicts(
    real_dir: Path, store: Store, run: str
) -> None:
    truth = _jtl_truth(real_dir / RUNS / f"{run}.csv.jtl.gz")
    # the plan starts its 10 threads at once (ramp-up 0): the JTL's first main sample
    # already sees all of them; the log's 1-thread first line is the setUp group's
    assert truth["first_threads"] == 10
    ingest_file(store, real_dir / RUNS / f"{run}.log")
    all_ = load_report(store)["suites"][0]["labels"][0]
    assert all_["rampup_end_s"] is None  # pg was "threads ramp up until 9.16 s"
    # the JTL climbs to its end: its last full 10 s hold over 1.5x its second's samples
    assert truth["per10"][-2] > 1.5 * truth["per10"][1]
    # so no steady rate (pg was "steady 7,320 ± 4,575/s" from 9.16 s)
    assert all_["throughput"]["steady"] is None
    # h2 still trends at its end (no-steady-state, as its JTL); pg has too few windows
    assert all_["warmup_status"] in ("no-steady-state", "too-short")
    # Avg: is whole ms, truncated: the JTL's mean lies within half a step of the estimate
    # (pg read 0.899 ms against the JTL's 1.418; h2 0.0522 ms against 0.399)
    mean = all_["latency_ms"]["overall"]["mean"]
    assert abs(mean - truth["mean_ms"]) <= 0.5
    assert all_["latency_ms"]["resolution_ms"] == 1


@pytest.mark.real
@pytest.mark.slow
def test_pg_log_says_too_few_windows(real_dir: Path) -> None:
    result = CliRunner().invoke(app, ["load", str(real_dir / RUNS / "pg_point_lookup_10t_60s.log")])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "too few windows: 5 summariser windows of full length" in text
    assert "ramp up" not in text and "warm-up ends" not in text


@pytest.mark.real
def test_sub_millisecond_log_mean_shows_below_one(real_dir: Path) -> None:
    result = CliRunner().invoke(app, ["load", str(real_dir / RUNS / "h2_point_lookup_10t_60s.log")])
    assert result.exit_code == 0, result.output
    assert "< 1" in result.output
    assert "0.0522" not in result.output  # 256 ms of setUp over 880,922 samples, was shown


def _console(lines: list[tuple[int, int, int]]) -> str:
    """A console log of 10 s windows: (count, active, started) per ``summary +`` line."""
    out = ["Starting standalone test @ 2026 Nov 22 03:00:30 UTC (1795316430507)"]
    for count, active, started in lines:
        seconds = 1 if count == 1 else 10
        out.append(
            f"summary + {count:6d} in 00:00:{seconds:02d} = {count / seconds:6.1f}/s Avg:     2 "
            f"Min:     0 Max:   99 Err:     0 (0.00%) Active: {active} Started: {started} "
            "Finished: 0"
        )
    return "\n".join(out) + "\n"


def test_one_thread_setup_window_is_no_ramp_but_a_real_ramp_stays(
    tmp_path: Path, store: Store
) -> None:
    flat = [(45000 + 37 * i, 10, 10) for i in range(12)]
    setup = tmp_path / "setup.log"
    setup.write_text(_console([(1, 1, 1), *flat]))
    ramp = tmp_path / "ramp.log"
    steps = [(4500 * a, a, a) for a in (1, 4, 7)]
    ramp.write_text(_console([*steps, *flat]))
    ingest_file(store, setup)
    ingest_file(store, ramp)
    by_suite = {s["suite"]: s["labels"][0] for s in load_report(store)["suites"]}
    assert by_suite["setup"]["rampup_end_s"] is None
    # 1 → 4 → 7 → 10 threads: the ramp ends with the first 10-thread line, 40 s in
    assert by_suite["ramp"]["rampup_end_s"] == pytest.approx(40.0, abs=0.1)


def test_steady_rate_ci_from_window_counts_covers_the_true_rate() -> None:
    rng = np.random.default_rng(7)
    rate, covered, trials = 4000.0, 0, 400
    for _ in range(trials):
        seconds = rng.uniform(9.5, 10.5, 8)
        counts = rng.poisson(rate * seconds * rng.normal(1, 0.02, 8))
        ci = summary_rate_ci(counts, seconds)
        covered += ci.lo <= rate <= ci.hi
    assert 0.90 <= covered / trials <= 0.99


def test_steady_rate_ci_is_not_clamped_at_zero() -> None:
    ci = summary_rate_ci([10, 5000], [10.0, 10.0])
    assert ci.mean == pytest.approx(250.5)
    assert ci.lo < 0  # was max(0, ...): a CI that said nothing looked like a rate


RECORDED = Path(__file__).resolve().parent.parent / "fixtures" / "jmeter" / "recorded_warmup"


# slow: analyses a real run of ../shared/real/jmeter-runs (406,000 or 880,000 samples);
# the quick run still reads those runs (test_real_runs_that_never_flatten_are_inconclusive)
@pytest.mark.ci_only
@pytest.mark.real
def test_real_jtl_and_its_log_are_one_suite(real_dir: Path) -> None:
    import json

    import jsonschema

    from toolkit.resources import resource_dir

    runner = CliRunner()
    # the log first: the suite keeps the run's name, not "h2_point_lookup_10t_60s #2"
    paths = [str(real_dir / RUNS / f"h2_point_lookup_10t_60s{x}") for x in (".log", ".csv.jtl.gz")]
    result = runner.invoke(app, ["load", *paths, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    jsonschema.validate(
        payload, json.loads((resource_dir("schemas") / "load.schema.json").read_text())
    )
    (suite,) = payload["suites"]
    assert suite["suite"] == "h2_point_lookup_10t_60s" and suite["source"] == "samples"
    jtl_rows = duckdb.connect().execute(f"SELECT count(*) FROM read_csv('{paths[1]}')").fetchone()
    assert suite["labels"][0]["samples"] == suite["logs"]["samples"] == jtl_rows[0]  # type: ignore[index]
    assert suite["logs"]["interval_s"] == pytest.approx(10.0)
    assert suite["logs"]["threads_started"] == 10
    assert "load-log-disagrees" not in {f["rule"] for f in suite["findings"]}
    table = runner.invoke(app, ["load", *paths])
    assert table.output.count("(samples)") == 1 and "(summariser)" not in table.output
    assert "log of the same run: 880,922 samples" in " ".join(table.output.split())


@pytest.mark.slow
def test_recorded_runs_are_one_suite_each(tmp_path: Path) -> None:
    import json

    import toolkit

    runner = CliRunner()
    db = tmp_path / "runs.duckdb"
    files = sorted(str(p) for p in RECORDED.iterdir() if p.name != "truth.json")
    assert runner.invoke(app, ["ingest", *files, "--db", str(db)]).exit_code == 0
    listed = json.loads(runner.invoke(app, ["suites", "--db", str(db), "--json"]).output)
    names = sorted(s["name"] for s in (listed["suites"] if isinstance(listed, dict) else listed))
    truth = json.loads((RECORDED / "truth.json").read_text())
    assert names == sorted(truth["scenarios"])  # was 15 suites: JTL, .console, .jmeter
    with toolkit.open_store(db, read_only=True) as store:
        html = toolkit.render_report(store)
    # the report's load section: load_report's suites (one analysis instead of two)
    suites = embedded_data(html)["sections"]["load"]["suites"]
    assert sorted(s["suite"] for s in suites) == names
    for suite in suites:
        # each log counts what the server saw and the JTL holds
        assert suite["logs"]["samples"] == truth["scenarios"][suite["suite"]]["server_requests"]
    # no suite of a log's own (the provenance table still lists the files)
    assert '"c-ramp-think.console"' not in html and '"c-ramp-think.jmeter"' not in html
    assert '"c-ramp-think"' in html


def test_a_log_that_disagrees_with_its_jtl_is_a_finding(tmp_path: Path, store: Store) -> None:
    import gzip

    jtl = tmp_path / "d-flat.jtl"
    jtl.write_bytes(gzip.decompress((RECORDED / "d-flat.jtl.gz").read_bytes()))
    lines = (RECORDED / "d-flat.console.txt").read_text().splitlines()
    # a log cut after its sixth window: the JTL holds the whole run
    plus = [i for i, line in enumerate(lines) if line.startswith("summary +")]
    log = tmp_path / "d-flat.log"
    log.write_text("\n".join(lines[: plus[6]]) + "\n")
    from toolkit import ingest_path

    ingest_path(store, jtl)
    ingest_path(store, log)
    (suite,) = load_report(store)["suites"]
    (found,) = [f for f in suite["findings"] if f["rule"] == "load-log-disagrees"]
    jtl_n = duckdb.connect().execute(f"SELECT count(*) FROM read_csv('{jtl}')").fetchone()[0]  # type: ignore[index]
    log_n = sum(int(line.split()[2]) for line in lines[: plus[6]] if line.startswith("summary +"))
    assert found["numbers"]["jtl_samples"] == jtl_n and found["numbers"]["log_samples"] == log_n
    assert found["numbers"]["effect"] == pytest.approx(abs(log_n - jtl_n) / jtl_n)


@pytest.mark.real
def test_summariser_count_of_a_jtl_with_transaction_children(real_dir: Path, store: Store) -> None:
    """The 5.6.3 CSV's rows, counted from the file: children of a parent-sample transaction
    follow its row in the same thread (JMeter writes sub-results as rows); the summariser of
    the same run printed 786 in its last 'summary =' line."""
    import csv

    from toolkit.pipeline.load import summariser_count, transaction_children

    path = real_dir / "jmeter" / "generated__jmeter-5.6.3__default.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    children = interrupted = 0
    pending: dict[str, int] = {}
    for row in rows:
        thread = row["threadName"]
        message = row["responseMessage"]
        if row["label"] in ("TC parent", "TC plain"):
            if not message.startswith("Number of samples in transaction"):
                interrupted += 1
            pending[thread] = 2 if row["label"] == "TC parent" else 0
        elif pending.get(thread, 0) > 0:
            children += 1
            pending[thread] -= 1
        else:
            pending[thread] = 0
    samples = sum(1 for r in rows if r["label"] not in ("TC parent", "TC plain"))
    assert (samples, children, interrupted) == (1564, 781, 3)
    ingest_file(store, path)
    assert transaction_children(store, 1) == children
    assert summariser_count(store, 1, samples) == samples - children + interrupted == 786


@pytest.mark.real
@pytest.mark.slow
def test_a_console_joins_its_run_among_jtls_of_one_name(real_dir: Path, store: Store) -> None:
    """The real jmeter folder holds default.csv and default.xml (two runs of one name) and
    default.stdout.txt, the console of the CSV's run: the console joins the CSV (its
    summariser counted 786, the CSV's samples as JMeter's summariser counts them), not the
    XML, and is no suite of its own (was: three suites, the console alone "too-short")."""
    from toolkit import ingest_path

    ingest_path(store, real_dir / "jmeter")
    names = [
        str(r[0])
        for r in store.con.execute(
            "SELECT name FROM suites WHERE name LIKE 'generated__jmeter-5.6.3__default%'"
            " ORDER BY name"
        ).fetchall()
    ]
    assert names == ["generated__jmeter-5.6.3__default", "generated__jmeter-5.6.3__default #2"]
    suites = {s["suite"]: s for s in load_report(store, names)["suites"]}
    csv_suite = suites["generated__jmeter-5.6.3__default"]
    assert csv_suite["labels"][0]["samples"] == 1564 and csv_suite["logs"]["samples"] == 786
    assert "load-log-disagrees" not in {f["rule"] for f in csv_suite["findings"]}
    assert suites["generated__jmeter-5.6.3__default #2"].get("logs") is None


def test_jtls_without_logs_read_no_sample_to_join_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ingest joins run logs to their JTLs; without a log among the store's suites it
    reads no sample (each JTL suite's count and start were a scan of the whole store, 0.08 s
    of CPU per 10M rows, at every ingest), and a log still joins its JTL."""
    import toolkit.ingest.runs as runs

    read: list[int] = []
    jtl_suites = runs._jtl_suites

    def counted(store: Store) -> Any:
        read.append(1)
        return jtl_suites(store)

    monkeypatch.setattr(runs, "_jtl_suites", counted)
    files = sorted(p for p in RECORDED.iterdir() if p.name.startswith("c-ramp-think"))
    jtl = [p for p in files if p.name.endswith(".jtl.gz")]
    assert len(jtl) == 1 and len(files) > 1
    with open_store() as store:
        ingest_paths(store, jtl)
        assert read == []
        ingest_paths(store, [p for p in files if p not in jtl])
        assert read == [1]
        assert store.con.execute("SELECT name FROM suites").fetchall() == [("c-ramp-think",)]
