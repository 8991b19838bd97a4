"""``warmup load`` on real JMeter 5.5 runs against a server with a known warm-up
(recorded by ``fixtures/record_jmeter_warmup.py``, whose docstring gives each scenario's
truth; ``fixtures/jmeter/recorded_warmup/truth.json`` holds the plans). No java needed.

Tolerances: a JTL's warm-up end within 10 % of the truth or one 1 s window, whichever is
wider (10 % of 17.5 s is 1.75 s); a summariser log's within one summariser window
(JMeter 5.5 prints every ~6 s with ``summariser.interval=5``, wider than 10 % of 30 s);
the ramp-up end within one window of the last thread's start; the steady throughput CI
contains the steady rate counted here from the JTL's rows after the true warm-up end;
Little's law's threads within 1 % of the plan and its think time within 5 ms of the
Constant Timer's."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolkit import ingest_file, open_store
from toolkit.cli import app
from toolkit.pipeline.load import load_report

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "fixtures" / "jmeter" / "recorded_warmup"
TRUTH: dict[str, Any] = json.loads((DIR / "truth.json").read_text())
#: scenarios whose truth is known by construction (e-client-warmup is JMeter's own JVM)
KNOWN = ["a-server-warmup", "b-thread-ramp", "c-ramp-think", "d-flat"]
LOGS = ["console.txt", "jmeter.log"]


def _suite(path: Path) -> dict[str, Any]:
    """``warmup load --json``'s suite of one file, in a store of its own."""
    with open_store() as store:
        ingest_file(store, path)
        suites = load_report(store)["suites"]
    assert len(suites) == 1
    suite: dict[str, Any] = suites[0]
    return suite


def _independent_rate(name: str, warmup_s: float | None) -> float:
    """Samples per s completing from the true warm-up end (s after the first sample's
    start) to the last whole second before the last sample's end, from the JTL's rows."""
    with gzip.open(DIR / f"{name}.jtl.gz", "rt", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    t0 = min(int(r["timeStamp"]) for r in rows)
    ends = [int(r["timeStamp"]) + int(r["elapsed"]) - t0 for r in rows]
    stop = max(ends) // 1000 * 1000
    start = int((warmup_s or 0.0) * 1000)
    return sum(start <= e < stop for e in ends) / ((stop - start) / 1000)


@pytest.mark.parametrize("name", KNOWN)
@pytest.mark.parametrize("kind", ["jtl.gz", *LOGS])
def test_recorded_runs_match_their_truth(name: str, kind: str) -> None:
    scenario = TRUTH["scenarios"][name]
    truth, plan = scenario["truth"], scenario["plan"]
    suite = _suite(DIR / f"{name}.{kind}")
    all_ = suite["labels"][0]
    assert suite["source"] == ("samples" if kind == "jtl.gz" else "summariser")
    resolution = 1.0 if kind == "jtl.gz" else 6.5
    # warm-up end
    assert all_["warmup_status"] == truth["warmup_status"], all_
    if truth["warmup_end_s"] is None:
        assert all_["warmup_end_s"] == 0.0
    else:
        tol = max(0.1 * truth["warmup_end_s"], resolution)
        assert abs(all_["warmup_end_s"] - truth["warmup_end_s"]) <= tol, all_["warmup_end_s"]
    # thread ramp-up: its end holds the last thread's start (JTL: the window's start;
    # summariser: the end of the first window whose line shows every thread)
    if truth["rampup_end_s"] is None:
        assert all_["rampup_end_s"] is None
    else:
        assert abs(all_["rampup_end_s"] - truth["rampup_end_s"]) <= resolution, all_
    assert all_["cooldown_start_s"] is None  # the scheduler stops every thread at once
    # steady throughput: its CI holds the rate counted from the rows after the truth's end
    rate = _independent_rate(name, truth["warmup_end_s"])
    lo, hi = all_["throughput"]["steady_ci"]
    assert lo <= rate <= hi, (rate, lo, hi)
    # Little's law: the plan's threads and think time
    little = suite["littles_law"]
    assert abs(little["threads"] - plan["threads"]) <= 0.01 * plan["threads"], little
    assert abs(little["think_s"] - truth["think_s"]) <= 0.005, little
    saturated = truth["think_s"] == 0
    assert little["verdict"] == ("saturated" if saturated else "thinking"), little
    rules = {f["rule"] for f in suite["findings"]}
    assert "littles-law-inconsistent" not in rules and "load-no-steady-state" not in rules
    assert ("load-warmup" in rules) == (truth["warmup_status"] == "warmup")


@pytest.mark.parametrize("name", KNOWN)
def test_summariser_logs_agree_with_the_jtl(name: str) -> None:
    """The console and jmeter.log give one result, and it agrees with the JTL's: the same
    status, warm-up end within a summariser window, steady rate within 1 %, the same
    Little's-law verdict."""
    jtl = _suite(DIR / f"{name}.jtl.gz")
    for kind in LOGS:
        log = _suite(DIR / f"{name}.{kind}")
        a, b = jtl["labels"][0], log["labels"][0]
        assert b["warmup_status"] == a["warmup_status"], (kind, b)
        assert abs(b["warmup_end_s"] - a["warmup_end_s"]) <= 6.5 + 1.0, (kind, a, b)
        steady_a, steady_b = a["throughput"]["steady"], b["throughput"]["steady"]
        assert abs(steady_b / steady_a - 1) <= 0.01, (kind, steady_a, steady_b)
        assert log["littles_law"]["verdict"] == jtl["littles_law"]["verdict"]
        assert abs(b["threads_steady"] - a["threads_steady"]) <= 0.01 * a["threads_steady"]


def test_the_last_summariser_line_is_no_thread_count() -> None:
    """Every run's last summariser line is printed after its threads finished (``Active:
    0 ... Finished: 4``) though 408 samples completed in its 4 s: its threads are unknown,
    not 0. Read as 0, the steady part held 3.77 of 4 threads and Little's law called a
    consistent run "inconsistent" (105 % of the threads busy)."""
    tail = (DIR / "a-server-warmup.console.txt").read_text().splitlines()
    last = [line for line in tail if line.startswith("summary +")][-1]
    assert "408 in 00:00:04" in last and "Active: 0 Started: 4 Finished: 4" in last
    suite = _suite(DIR / "a-server-warmup.console.txt")
    assert suite["labels"][0]["threads_steady"] == pytest.approx(4.0)
    assert suite["littles_law"]["verdict"] == "saturated"


def test_a_flat_summariser_log_is_steady_from_its_first_full_window() -> None:
    """d-flat's log: a first line of one sample (``1 in 00:00:01 = 1.8/s``, printed at
    the first sample's end) and 15 windows at 39.4–40.1/s. The first line is cut by the
    start and left out of the rate rules (was: MSER at its n/2 cap on the flat tail's
    noise, "throughput still trends", no steady state); status none, steady from the
    first full window."""
    suite = _suite(DIR / "d-flat.console.txt")
    all_ = suite["labels"][0]
    assert all_["warmup_status"] == "flat"
    assert all_["warmup_end_s"] == 0.0
    lo, hi = all_["throughput"]["steady_ci"]
    assert lo >= 39.4 and hi <= 40.1, (lo, hi)


def test_jmeter_own_jvm_warms_up_on_a_warm_server() -> None:
    """e-client-warmup: a warm 40 ms server, 4 threads at once; JMeter's JVM itself warms
    up (its mean latency ~45–47 ms over the first 8 s, ~43 ms to 13 s, ~41.5 ms after),
    which both the JTL and the logs report as a short warm-up (within the first 20 s)."""
    for kind in ["jtl.gz", *LOGS]:
        all_ = _suite(DIR / f"e-client-warmup.{kind}")["labels"][0]
        assert all_["warmup_status"] == "warmup"
        assert 5.0 <= all_["warmup_end_s"] <= 20.0, (kind, all_["warmup_end_s"])


def test_recordings_are_small() -> None:
    total = sum(p.stat().st_size for p in DIR.iterdir())
    assert total < 1_500_000, total


def test_the_load_table_shows_a_summariser_logs_steady_span_to_the_ms(runner: CliRunner) -> None:
    """A summariser log's warm-up end is a sum of count ÷ rate: the table printed
    ``29.68317587–end``; to the ms, as a JTL's, it is ``29.683–end``."""
    result = runner.invoke(app, ["load", str(DIR / "c-ramp-think.console.txt")])
    assert result.exit_code == 0, result.output
    assert "29.683–end" in result.output and "29.6831" not in result.output, result.output
