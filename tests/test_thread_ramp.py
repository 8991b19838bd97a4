"""The thread ramp-up rule on generated closed-loop JTLs with known thread schedules
(tests/thread_plans.py): JMeter thread groups, with and without allThreads/grpThreads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from thread_plans import Plan, Thread, ramp, write_plan

from toolkit import Store, ingest_file, open_store
from toolkit.pipeline.load import load_report


def _suite(tmp_path: Path, store: Store, plan: Plan, name: str = "plan.jtl") -> dict[str, Any]:
    path = tmp_path / name
    write_plan(path, plan)
    ingest_file(store, path)
    suite: dict[str, Any] = load_report(store)["suites"][0]
    return suite


def _label(suite: dict[str, Any], label: str = "ALL") -> dict[str, Any]:
    found: dict[str, Any] = next(x for x in suite["labels"] if x["label"] == label)
    return found


@pytest.mark.parametrize("counts", [True, False])
@pytest.mark.slow
def test_a_ramp_past_half_the_run_says_the_threads_were_still_starting(
    tmp_path: Path, store: Store, counts: bool
) -> None:
    """50 threads started over 400 s of a 600 s run (a saturated server: throughput flat
    from ~160 s, latency rising with every thread): no steady state, because the threads
    were still starting until ~392 s, not because of a trend a longer run would outlast.
    Was: 'throughput or latency still trends at the end of the run', 'run longer'."""
    plan = Plan(
        ramp("Thread Group", 50, ramp_s=400),
        duration_s=600,
        base_ms=200,
        capacity=20,
        thread_counts=counts,
    )
    suite = _suite(tmp_path, store, plan)
    all_ = _label(suite)
    assert all_["warmup_status"] == "no-steady-state"
    assert 380 <= all_["rampup_end_s"] <= 393, all_["rampup_end_s"]
    found = [f for f in suite["findings"] if f["rule"] == "load-no-steady-state"]
    assert len(found) == 1
    message, advice = found[0]["message"], found[0]["advice"]
    ramp_text = f"{all_['rampup_end_s']:g} s"
    assert f"threads ramp up until {ramp_text} (50 threads), past half of the" in message, message
    assert "trends" not in message and "run longer" not in advice, (message, advice)
    assert f"longer than the ramp-up ({ramp_text})" in advice
    assert found[0]["numbers"]["cause"] == "rampup"


def _concurrency_threads(slots: int = 20, seed: int = 1) -> list[Thread]:
    """Concurrency Thread Group style: ``slots`` threads started 2 s apart, each living
    30–90 s and replaced at once by a new thread (a new thread number) until 600 s."""
    rng = np.random.default_rng(seed)
    threads = []
    for slot in range(slots):
        t = slot * 2.0
        while t < 600:
            life = float(rng.uniform(30, 90))
            threads.append(
                Thread(
                    "bzm - Concurrency Thread Group-ThreadStarter", len(threads) + 1, t, t + life
                )
            )
            t += life
    return threads


@pytest.mark.slow
def test_thread_names_count_a_replaced_thread_once(tmp_path: Path, store: Store) -> None:
    """20 threads at a time, each replaced by a new one (new name) when it ends, the 20th
    started at 38 s. From the thread names, a window where one thread ends and its
    replacement starts counted both (any part of the window): 20.37 steady threads and
    counts flickering 20/21, so no plateau held and no ramp-up (None). Counted as the
    time-weighted mean over the window, as allThreads is a mean, the names give what
    allThreads gives: 20.05 threads, ramp-up end 38 s."""
    base = {"duration_s": 600, "base_ms": 200, "capacity": 15}
    threads = _concurrency_threads()
    counted = _label(_suite(tmp_path, store, Plan(threads, **base), "counts.jtl"))
    with open_store() as other:
        named = _label(
            _suite(tmp_path, other, Plan(threads, thread_counts=False, **base), "names.jtl")
        )
    assert counted["rampup_end_s"] is not None and 36 <= counted["rampup_end_s"] <= 39
    assert named["rampup_end_s"] == counted["rampup_end_s"]
    assert named["threads_steady"] == pytest.approx(counted["threads_steady"], abs=0.05)
    assert named["warmup_end_s"] == counted["warmup_end_s"]


@pytest.mark.parametrize("think_s", [5.0, 15.0, 30.0])
@pytest.mark.slow
def test_thread_names_start_a_thread_one_think_time_before_its_first_sample(
    tmp_path: Path, store: Store, think_s: float
) -> None:
    """50 threads started over 100 s (the last at 98 s), each with a timer of uniform 0 to
    2·``think_s`` before every sample, and no thread counts in the file. JMeter runs the
    timer before the sampler, so a thread's first sample comes a think time after the
    thread starts: taken as the thread's start, the names put the ramp-up end at 99, 109
    and 126 s. Moved back by the thread's mean gap between samples, the ramp-up ends
    within 10 % of 98 s, and the steady threads are allThreads' of the same run."""

    def plan(counts: bool) -> Plan:
        threads = ramp("Users", 50, ramp_s=100, think_s=think_s)
        return Plan(threads, duration_s=900, base_ms=200, thread_counts=counts, seed=1)

    named = _label(_suite(tmp_path, store, plan(False), "names.jtl"))
    with open_store() as other:
        counted = _label(_suite(tmp_path, other, plan(True), "counts.jtl"))
    assert named["rampup_end_s"] is not None
    assert abs(named["rampup_end_s"] - 98) <= 9.8, named["rampup_end_s"]
    assert named["warmup_end_s"] >= named["rampup_end_s"]
    assert named["threads_steady"] == pytest.approx(counted["threads_steady"], abs=0.1)


def _rare_then_cycle() -> Callable[[int, float], str]:
    """Labels of a thread that samples ``report`` once at 5 s, 45 s, 85 s, ... (its first
    sample from then) and ``home``/``search`` otherwise."""
    due = [5.0]

    def label(i: int, t: float) -> str:
        if t >= due[0]:
            due[0] += 40.0
            return "report"
        return ("home", "search")[i % 2]

    return label


@pytest.mark.parametrize("counts", [True, False])
@pytest.mark.slow
def test_every_label_shares_the_suites_ramp_up(tmp_path: Path, store: Store, counts: bool) -> None:
    """50 threads started over 60 s (the 50th at 58.8 s); thread 1 samples ``report``
    every 40 s (at ~5, 45, 85 s, ...), ``checkout`` is sampled only after 90 s. A label's
    own thread counts are known only where it completes: ``report``'s ramp-up ended at
    its 85 s sample (38 threads at 45 s), so its warm-up ended at 85 s while the threads
    ran from 58 s. Every label now has ALL's ramp-up (58 s), and a label first sampled
    after it has none."""
    threads = ramp("Thread Group", 50, ramp_s=60)
    threads[0] = Thread(threads[0].group, 1, 0.0, label=_rare_then_cycle())

    def later(i: int, t: float) -> str:
        return ("home", "search", "checkout")[i % 3] if t > 90 else ("home", "search")[i % 2]

    threads[1:] = [Thread(th.group, th.index, th.start_s, label=later) for th in threads[1:]]
    plan = Plan(threads, duration_s=660, base_ms=200, capacity=20, thread_counts=counts)
    suite = _suite(tmp_path, store, plan)
    all_ = _label(suite)
    assert 56 <= all_["rampup_end_s"] <= 59, all_["rampup_end_s"]
    report = _label(suite, "report")
    assert report["samples"] == 17
    assert report["rampup_end_s"] == all_["rampup_end_s"]
    assert report["warmup_end_s"] is not None and report["warmup_end_s"] < 80
    checkout = _label(suite, "checkout")
    assert checkout["rampup_end_s"] is None
    assert checkout["warmup_status"] in ("flat", "warmup")
    assert checkout["warmup_end_s"] is not None and checkout["warmup_end_s"] < 100


@pytest.mark.slow
def test_a_stepped_run_is_not_called_a_ramp_up(tmp_path: Path, store: Store) -> None:
    """10 → 20 → 40 threads at 0, 60 and 120 s (a stepping thread group), 40 held to
    600 s: the warm-up ends at the top step (121 s, as before the ramp-up rule), and
    ``load-steps`` describes the steps; ``load-warmup`` said 'the threads ramp up until
    120 s, the transient lasts beyond' beside 'the part before it holds earlier load
    steps, not a warm-up'."""
    threads = [Thread("Stepping Thread Group", i + 1, 0.0) for i in range(10)]
    threads += [Thread("Stepping Thread Group", i + 11, 60.0) for i in range(10)]
    threads += [Thread("Stepping Thread Group", i + 21, 120.0) for i in range(20)]
    suite = _suite(tmp_path, store, Plan(threads, duration_s=600, base_ms=200))
    all_ = _label(suite)
    assert all_["warmup_status"] == "warmup"
    assert 119 <= all_["warmup_end_s"] <= 125, all_["warmup_end_s"]
    rules = {f["rule"]: f for f in suite["findings"]}
    assert "load-steps" in rules
    message = rules["load-warmup"]["message"]
    assert "ramp up" not in message, message
    assert "holds earlier load steps" in message


def test_a_plateau_with_brief_dips_is_held() -> None:
    """A ramp to 20 threads over 38 windows, then a thread recreated now and then (a
    window mean of 19.3 in a third of the windows): the plateau is held, the ramp-up ends
    at window 38. The hold test used the first reach's 2 % (½ thread): None. Threads that
    alternate 2/3 (real sample_log1c) still hold no plateau."""
    from toolkit.analyze.timeseries import thread_ramp_end

    counts = np.concatenate([np.arange(1, 39) * 20 / 38, np.full(500, 20.0)])
    counts[40::3] = 19.3
    assert thread_ramp_end(counts) == 37
    assert thread_ramp_end(np.array([1.0] * 15 + [2.0, 3.0] * 60)) is None


@pytest.mark.slow
def test_recreated_threads_with_counts_still_ramp(tmp_path: Path, store: Store) -> None:
    """20 thread slots started 2 s apart (the 20th at 39 s), each thread recreated 1 s
    after it ends (allThreads 19 meanwhile): rampup_end_s ≈ 38 s (was None: the dips put a
    third of the windows below the 2 % plateau tolerance)."""
    rng = np.random.default_rng(1)
    threads = []
    for slot in range(20):
        t = slot * 2.0
        while t < 600:
            life = float(rng.uniform(30, 90))
            threads.append(Thread("Thread Group", slot + 1, t + 1.0, t + life))
            t += life
    plan = Plan(threads, duration_s=600, base_ms=200, capacity=15)
    all_ = _label(_suite(tmp_path, store, plan))
    assert all_["rampup_end_s"] is not None and 36 <= all_["rampup_end_s"] <= 40
    assert all_["warmup_end_s"] >= all_["rampup_end_s"]


def test_thread_rampdown_start_is_where_threads_finish_one_by_one() -> None:
    from toolkit.analyze.timeseries import thread_rampdown_start

    up = np.minimum(np.arange(600) // 13 + 1, 10).astype(float)
    # JMeter's scheduler stops every thread at once (the last, partial window): none
    assert thread_rampdown_start(up) is None
    # loop-count threads finish one by one over the last 90 windows
    down = up.copy()
    down[510:] = np.repeat(np.arange(9, -1, -1), 9)
    assert thread_rampdown_start(down) == 510
    # ... but not over the last 30 (5 %: the last think time before the scheduler's end)
    short = up.copy()
    short[570:] = np.repeat(np.arange(9, -1, -1), 3)
    assert thread_rampdown_start(short) is None
    # a group that finished early leaves the others at a lower plateau: a step, kept
    step = up.copy()
    step[300:] = 6.0
    assert thread_rampdown_start(step) is None


@pytest.mark.slow
def test_a_group_finishing_one_by_one_ends_the_steady_part(tmp_path: Path, store: Store) -> None:
    """Group A: 30 threads over 30 s to 600 s; group B: 20 threads over 90 s from 10 s,
    1,200 loops each, so B's threads finish one by one from ~470 s; a saturated server
    keeps throughput at 125/s while latency falls with the threads. The ramp-up floor put
    the warm-up rule on 91 s to the end, B's ramp-down included: a latency trend,
    'inconclusive' (before the ramp-up rule: warm-up 21 s, 45.9 steady threads, ramp-up
    and ramp-down mixed in). The ramp-down ends the steady part: 91 s to ~470 s, 50
    threads."""
    a = ramp("Users A", 30, ramp_s=30)
    b = ramp("Users B", 20, ramp_s=90, start_s=10, group_number=2, loops=1200)
    plan = Plan(a + b, duration_s=600, base_ms=200, capacity=25)
    suite = _suite(tmp_path, store, plan)
    all_ = _label(suite)
    assert all_["warmup_status"] == "warmup"
    assert 85 <= all_["rampup_end_s"] <= 96 and all_["warmup_end_s"] >= all_["rampup_end_s"]
    assert all_["cooldown_start_s"] is not None and 440 <= all_["cooldown_start_s"] <= 500
    assert all_["threads_steady"] == pytest.approx(50, abs=0.2)
    assert suite["littles_law"]["busy_fraction"] == pytest.approx(1.0, abs=0.02)


@pytest.mark.parametrize("counts", [True, False])
@pytest.mark.slow
def test_ramp_and_a_longer_transient_both_end_before_the_steady_part(
    tmp_path: Path, store: Store, counts: bool
) -> None:
    """50 threads over 60 s (the 50th at 58.8 s) against a saturated server, with a JIT-like
    latency factor 3 falling to 1 at 150 s; and three engines (Hostname) starting their own
    ramps 20 s apart. The warm-up ends after both the ramp and the transient; a ramp within
    the first (partial) window is no ramp-up."""
    jit = Plan(
        ramp("Thread Group", 50, ramp_s=60),
        duration_s=660,
        base_ms=200,
        capacity=20,
        jit_amp=2.0,
        jit_end_s=150,
        thread_counts=counts,
    )
    all_ = _label(_suite(tmp_path, store, jit, "jit.jtl"))
    assert 56 <= all_["rampup_end_s"] <= 59
    assert 140 <= all_["warmup_end_s"] <= 155, all_["warmup_end_s"]
    threads = [
        th
        for e in range(3)
        for th in ramp("Thread Group", 20, ramp_s=40, start_s=20 * e, host=f"engine-{e + 1}")
    ]
    dist = Plan(threads, duration_s=600, base_ms=200, capacity=30, hostname=True)
    dist = Plan(dist.threads, **{**_fields(dist), "thread_counts": counts})
    with open_store() as other:
        suite = _suite(tmp_path, other, dist, "dist.jtl")
    all_ = _label(suite)
    # the last engine's last thread starts at 40 + 38 = 78 s
    assert 75 <= all_["rampup_end_s"] <= 79 and all_["warmup_end_s"] >= all_["rampup_end_s"]
    assert all_["threads_steady"] == pytest.approx(60, abs=0.1)
    short = Plan(
        ramp("Thread Group", 50, ramp_s=0.5),
        duration_s=1200,
        base_ms=500,
        capacity=20,
        thread_counts=counts,
    )
    with open_store() as third:
        all_ = _label(_suite(tmp_path, third, short, "short.jtl"))
    assert all_["rampup_end_s"] is None and all_["warmup_status"] in ("flat", "warmup")


def _fields(plan: Plan) -> dict[str, Any]:
    from dataclasses import fields

    return {f.name: getattr(plan, f.name) for f in fields(plan) if f.name != "threads"}


@pytest.mark.real
def test_a_known_ramp_down_is_every_labels_cool_down_real(real_dir: Path, store: Store) -> None:
    """Real sample_log1.jtl: 10 threads hold their plateau to 560 s, then finish one by
    one to 672 s (counted from the file below). Its label jmeter_home has one slow window
    at 500 s (mean 805 ms against ~550): the backward warm-up rule on the plateau read it
    as a cool-down from 506 s, cutting 55 s of steady samples with all 10 threads busy.
    The threads' ramp-down is every label's cool-down."""
    ingest_file(store, real_dir / "jmeter" / "bin__testfiles__sample_log1.jtl")
    # each thread's last sample end, straight from the rows (ts read as end times)
    last_end_s = store.con.execute(
        "SELECT (max(start_ms + elapsed_ms) - (SELECT min(start_ms) FROM samples)) / 1000.0 "
        "FROM samples GROUP BY thread_name ORDER BY 1"
    ).fetchall()
    first_finish = last_end_s[0][0]
    assert len(last_end_s) == 10 and 555 <= first_finish <= 570
    suite = load_report(store)["suites"][0]
    for label in ("ALL", "jmeter_home", "jakarta_home"):
        found = _label(suite, label)
        assert found["cooldown_start_s"] is not None, label
        assert abs(found["cooldown_start_s"] - first_finish) <= 10, (label, found)
