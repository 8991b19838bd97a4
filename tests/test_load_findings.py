"""Load findings beyond the warm-up end (toolkit/analyze/load_findings.py): summariser
suites, too-short runs, stepped thread counts, gaps, errors, latency-only warm-ups."""

from __future__ import annotations

import contextlib
import inspect
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import summariser_logs

import toolkit
from toolkit import Store, ingest_file
from toolkit.analyze.load_findings import (
    FAIL_PULL_MIN,
    MIN_WINDOWS,
    WindowSeries,
    full_windows,
    load_steps,
    warmup_findings,
)
from toolkit.analyze.timeseries import MIN_VERDICT_SAMPLES, warmup_end
from toolkit.errors import UnrecognisedFormatError
from toolkit.numbers import fmt_num
from toolkit.pipeline.load import load_report
from toolkit.synthetic import write_jtl

T0 = 1_795_300_000_000
HEADER = (
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
    "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n"
)


def write_csv_jtl(
    path: Path,
    start_s: np.ndarray,
    elapsed_ms: np.ndarray,
    *,
    labels: np.ndarray | None = None,
    ok: np.ndarray | None = None,
    codes: np.ndarray | None = None,
    threads: np.ndarray | None = None,
) -> Path:
    """A JMeter 5 default-column CSV JTL of the given samples, in completion order."""
    n = start_s.size
    labels = labels if labels is not None else np.full(n, "req")
    ok = ok if ok is not None else np.ones(n, bool)
    codes = codes if codes is not None else np.where(ok, "200", "500")
    threads = threads if threads is not None else np.ones(n, int)
    start = (T0 + start_s * 1000).astype(np.int64)
    el = np.maximum(1, elapsed_ms).astype(np.int64)
    order = np.argsort(start + el, kind="stable")
    with path.open("w") as out:
        out.write(HEADER)
        for i in order:
            good = bool(ok[i])
            out.write(
                f"{start[i]},{el[i]},{labels[i]},{codes[i]},{'OK' if good else 'Error'},"
                f"TG 1-1,text,{'true' if good else 'false'},,100,10,{threads[i]},"
                f"{threads[i]},http://x.test/,{el[i]},0,1\n"
            )
    return path


def open_loop(
    rng: np.random.Generator, duration_s: float, rate: Any, latency_ms: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Poisson arrivals at ``rate(t)`` (/s, thinned from its maximum) with lognormal
    latency around ``latency_ms(t)``."""
    top = max(rate(t) for t in np.arange(0, duration_s, 1.0))
    starts = np.cumsum(rng.exponential(1 / top, int(top * duration_s * 1.2)))
    starts = starts[starts < duration_s]
    keep = rng.random(starts.size) < np.array([rate(t) for t in starts]) / top
    starts = starts[keep]
    mean = np.array([latency_ms(t) for t in starts])
    return starts, mean * np.exp(rng.normal(-0.03, 0.25, starts.size))


def suite_of(store: Store, path: Path, **kwargs: Any) -> dict[str, Any]:
    ingest_file(store, path)
    (suite,) = load_report(store, **kwargs)["suites"]
    return suite


def rules(suite: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["rule"]: f for f in suite["findings"]}


# --- 1. summariser suites ----------------------------------------------------------------


def _summary_log(path: Path, rates: list[float]) -> Path:
    lines = []
    for rate in rates:
        count = round(rate * 30)
        lines.append(
            f"summary + {count:6d} in 00:00:30 = {count / 30:6.1f}/s Avg:    50 Min:     7 "
            "Max:  1535 Err:     0 (0.00%) Active: 20 Started: 20 Finished: 0"
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def test_summariser_log_warmup_is_a_finding(tmp_path: Path, store: Store) -> None:
    rng = np.random.default_rng(3)
    rates = [min(100.0, 20 + 10 * i) + float(rng.normal(0, 1)) for i in range(40)]
    suite = suite_of(store, _summary_log(tmp_path / "jmeter.log", rates))
    assert suite["source"] == "summariser"
    warm = rules(suite)["load-warmup"]
    assert 200 <= warm["numbers"]["warmup_end_s"] <= 270
    assert warm["message"].startswith(f"warm-up ends {warm['numbers']['warmup_end_s']:.3g} s")


def test_summariser_warmup_finding_names_the_thread_ramp(tmp_path: Path, store: Store) -> None:
    """Active: 2 → 10 over 5 windows of 30 s, then 25 at 10: the load-warmup finding says
    where the threads reach their plateau and how many there are."""
    ws = summariser_logs.closed_loop([2, 4, 6, 8, 10] + [10] * 25, seed=4, think_ms=50)
    path = tmp_path / "ramp.log"
    path.write_text("\n".join(summariser_logs.jmeter_log({"summary": ws})) + "\n")
    suite = suite_of(store, path)
    ramp_s = suite["labels"][0]["rampup_end_s"]
    assert ramp_s == pytest.approx(sum(w.seconds for w in ws[:5]), rel=1e-3)
    warm = rules(suite)["load-warmup"]
    assert f"; threads ramp up until {fmt_num(ramp_s)} s (10 threads);" in warm["message"]
    assert warm["numbers"]["rampup_end_s"] == ramp_s


def test_summariser_log_without_steady_state_is_a_finding(tmp_path: Path, store: Store) -> None:
    rates = [20.0 + 5 * i for i in range(20)]  # still climbing at the end
    suite = suite_of(store, _summary_log(tmp_path / "jmeter.log", rates))
    assert suite["labels"][0]["warmup_status"] == "no-steady-state"
    found = rules(suite)["load-no-steady-state"]
    assert "20 summariser windows" in found["message"]


def test_short_summariser_log_says_why(tmp_path: Path, store: Store) -> None:
    suite = suite_of(store, _summary_log(tmp_path / "jmeter.log", [50.0, 60.0, 55.0]))
    found = rules(suite)["load-too-short"]
    assert found["message"].startswith("3 summariser windows over 90 s; the warm-up rule needs ≥ 4")
    assert "summariser.interval" in found["advice"]


@pytest.mark.real
def test_real_summariser_console_gets_its_finding(real_dir: Path, store: Store) -> None:
    """A 12 s run's windows of 0.244, 5.81, 6 and 0.125 s: too short (a warning naming the
    2 full-length windows), not "throughput still trends" at problem severity."""
    suite = suite_of(store, real_dir / "jmeter" / "generated__jmeter-5.6.3__default.stdout.txt")
    all_ = suite["labels"][0]
    # the status agrees with the finding (it read "inconclusive" under a too-short finding)
    assert all_["warmup_status"] == "too-short"
    assert all_["warmup_end_s"] is None and all_["throughput"]["steady"] is None
    found = rules(suite)
    assert "load-no-steady-state" not in found
    short = found["load-too-short"]
    assert short["severity"] == "warning"
    assert short["numbers"]["full_windows"] == 2
    assert short["message"].startswith("4 summariser windows over 12.2 s (0.244, 5.81, 6, 0.125 s)")
    assert "-Jsummariser.interval=2" in short["advice"]


def test_summariser_log_with_partial_windows_is_too_short() -> None:
    """Two cut windows around three full ones: 3 full-length windows < 4 is too short
    (a warning), not a trend; 4 full-length windows that trend stay "still trends"."""
    label = {"label": "ALL", "samples": 900, "warmup_status": "no-steady-state", "duration_s": 93.0}
    (short,) = warmup_findings(
        "log", label, windows=5, window_s=None, summariser=True, summary_seconds=[2, 30, 30, 30, 1]
    )
    assert short.rule == "load-too-short" and short.severity == "warning"
    assert short.numbers["full_windows"] == 3
    assert short.message.startswith("5 summariser windows over 93 s (2, 30, 30, 30, 1 s), 3 of")
    assert "-Jsummariser.interval=15" in short.advice
    (trend,) = warmup_findings(
        "log", label, windows=4, window_s=None, summariser=True, summary_seconds=[30, 30, 30, 30]
    )
    assert trend.rule == "load-no-steady-state"


def test_summariser_log_with_three_full_windows_is_too_short(tmp_path: Path, store: Store) -> None:
    """A flat log of 3 full 30 s windows between two cut ones (2 s, 1 s): 5 windows let
    MSER run and call it steady ("none", steady figures over 63 s) while the finding said
    too short. Status, steady figures and finding now agree: too-short, none, too short."""
    ws = summariser_logs.closed_loop([10] * 5, seed=1, latency_ms=50)
    ws = [replace(ws[0], count=ws[0].count // 15, seconds=2.0), *ws[1:4],
          replace(ws[4], count=ws[4].count // 30, seconds=1.0)]  # fmt: skip
    path = tmp_path / "short.log"
    path.write_text("\n".join(summariser_logs.jmeter_log({"summary": ws})) + "\n")
    suite = suite_of(store, path)
    all_ = suite["labels"][0]
    assert all_["warmup_status"] == "too-short"
    assert all_["throughput"]["steady"] is None and all_["latency_ms"]["steady"] is None
    assert rules(suite)["load-too-short"]["numbers"]["full_windows"] == 3


def _log_suite(
    tmp_path: Path, ws: list[summariser_logs.Window], name: str, shape: str = "log"
) -> dict[str, Any]:
    """The ``warmup load --json`` suite of generated windows ``ws`` written as a jmeter.log
    (``log``) or a console (``console``), in a store of its own."""
    write = summariser_logs.jmeter_log if shape == "log" else summariser_logs.console
    path = tmp_path / f"{name}.log"
    path.write_text("\n".join(write({"summary": ws})) + "\n")
    with toolkit.open_store() as store:
        return suite_of(store, path)


@pytest.mark.parametrize("shape", ["log", "console"])
def test_summariser_stepped_threads_are_load_steps(tmp_path: Path, shape: str) -> None:
    """Active: 10 → 20 → 40 every 8 windows of 30 s, the last step 20 windows long: no
    load-steps finding before, and the 40-thread plateau read as the end of a ramp-up, a
    warm-up until 480 s. Now load-steps names the changes and each step's rate, and there
    is no ramp-up and no load-warmup."""
    for seed in range(3):
        ws = summariser_logs.closed_loop([10] * 8 + [20] * 8 + [40] * 20, seed=seed, think_ms=50)
        suite = _log_suite(tmp_path, ws, f"steps{seed}", shape)
        found = rules(suite)
        step = found["load-steps"]
        assert step["message"].startswith("thread count changes at "), step["message"]
        assert "(10→20→40): stepped load; steady state is per step" in step["message"]
        rates = [float(x) for x in str(step["numbers"]["throughput"]).split(",")]
        assert rates == pytest.approx([100, 200, 400], rel=0.05), (seed, rates)
        assert suite["labels"][0]["rampup_end_s"] is None
        assert "load-warmup" not in found and "load-no-steady-state" not in found, found


@pytest.mark.parametrize(
    ("kind", "shape"), [("long", "log"), ("long", "console"), ("hole", "log"), ("zero", "log")]
)
def test_summariser_stall_is_a_gap(tmp_path: Path, kind: str, shape: str) -> None:
    """A stall among 24 windows of 30 s at 100/s: a 90 s window with 30 s of samples (what
    JMeter prints: a line only when a sample completes), 60 s missing between two lines'
    times of a jmeter.log, or a window of count 0. No load-gap before (and the 90 s window
    made the log "too short": its other windows were under 90 % of the longest); now a
    load-gap of the stall's length, and the log is not too short."""
    ws = summariser_logs.closed_loop([10] * 24, seed=3, think_ms=50)
    length = 60.0
    if kind == "long":
        ws[12] = replace(ws[12], seconds=90.0)
    elif kind == "hole":
        ws[12] = replace(ws[12], pause_s=60.0)
    else:
        ws[12] = replace(ws[12], count=0, errors=0)
        length = 30.0
    suite = _log_suite(tmp_path, ws, kind, shape)
    assert suite["labels"][0]["warmup_status"] != "too-short"
    gap = rules(suite)["load-gap"]
    assert gap["message"].startswith("no samples completed from ")
    assert gap["numbers"]["length_s"] == pytest.approx(length, abs=1)
    start = sum(w.seconds for w in ws[:12])
    assert start - 1 <= gap["numbers"]["start_s"] <= start + 31, gap


def test_summariser_error_burst_is_an_error_change(tmp_path: Path) -> None:
    """30 % of the samples fail from window 14 of 24 (420 s): load-errors only before,
    now load-error-change at 420 s (± a window)."""
    ws = summariser_logs.closed_loop(
        [10] * 24, seed=5, think_ms=50, error_rate=[0.0] * 14 + [0.3] * 10
    )
    change = rules(_log_suite(tmp_path, ws, "errors"))["load-error-change"]
    assert change["message"].startswith("error rate 30% from ")
    assert change["message"].endswith("(0% before): the error rate is not steady")
    assert change["numbers"]["at_s"] == pytest.approx(420, abs=31)


def test_flat_summariser_logs_have_no_steps_gaps_or_error_changes(tmp_path: Path) -> None:
    for seed in range(5):
        ws = summariser_logs.closed_loop([10] * 24, seed=seed, think_ms=50, error_rate=[0.01] * 24)
        found = rules(_log_suite(tmp_path, ws, f"flat{seed}"))
        assert not {"load-steps", "load-gap", "load-error-change"} & set(found), (seed, found)


# --- 2. too short, no samples -------------------------------------------------------------


def test_min_windows_is_the_warmup_rules() -> None:
    assert inspect.signature(warmup_end).parameters["min_windows"].default == MIN_WINDOWS


def test_too_short_run_says_why_and_what_to_do(tmp_path: Path, store: Store) -> None:
    rng = np.random.default_rng(8)
    starts, el = open_loop(rng, 8, lambda t: 100, lambda t: 20)
    path = write_csv_jtl(tmp_path / "short8.jtl", starts, el)
    suite = suite_of(store, path)
    found = rules(suite)["load-too-short"]
    assert found["message"].startswith("6 full windows of 1 s over 7.99 s")
    assert "needs ≥ 10" in found["message"]
    assert "--load-window 500ms" in found["advice"]
    # the advice works: at 500 ms the rule has its windows
    with toolkit.open_store() as again:
        half = suite_of(again, path, window_s=0.5)
    assert half["labels"][0]["warmup_status"] != "too-short"
    assert "load-too-short" not in rules(half)


def test_header_only_jtl_says_it_holds_no_samples(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "empty.jtl"
    path.write_text(HEADER)
    found = rules(suite_of(store, path))
    assert found["load-no-samples"]["message"].startswith("the file holds no samples")


@pytest.mark.real
@pytest.mark.parametrize(
    ("name", "rule", "start"),
    [
        (
            "Blazemeter+taurus__tests__resources__jmeter__jtl__slow-stdev.jtl",
            "load-too-short",
            "5 full windows of 1 s",
        ),
        ("bin__testfiles__Bug47165.csv", "load-no-samples", "the file holds no samples"),
        ("bin__testfiles__BatchTestLocal.csv", "load-too-short", "none of the 132 samples"),
    ],
)
def test_real_short_files_say_why(
    real_dir: Path, store: Store, name: str, rule: str, start: str
) -> None:
    found = rules(suite_of(store, real_dir / "jmeter" / name))
    assert found[rule]["message"].startswith(start)


_TAURUS = "Blazemeter+taurus__tests__resources__jmeter__jtl__"


@pytest.mark.real
@pytest.mark.parametrize(
    "name",
    [
        f"{_TAURUS}doublequoting.jtl",
        f"{_TAURUS}quote-guessing-crash.jtl",
        f"{_TAURUS}embedded_resources__kpi_ed.jtl",
        f"{_TAURUS}slow-stdev.jtl",
    ],
)
def test_real_too_short_advice_works(real_dir: Path, name: str) -> None:
    """The suggested --window, run, is no longer too short; with fewer samples than the
    rule's windows, or than MIN_VERDICT_SAMPLES (16), no window is suggested (was: 200 ms →
    9 full windows on doublequoting, 500 ms → 8 on quote-guessing-crash, 50 ms → 0 on the
    1-sample kpi_ed)."""
    path = real_dir / "jmeter" / name
    with toolkit.open_store() as store:
        suite = suite_of(store, path)
    found = rules(suite)["load-too-short"]
    samples = suite["labels"][0]["samples"]
    window = found["numbers"].get("suggested_window_s")
    if samples < max(MIN_WINDOWS, MIN_VERDICT_SAMPLES):
        assert window is None and "--load-window" not in found["advice"]
        assert found["message"].startswith(f"only {samples} sample")
        assert "too few" in found["message"]
        return
    assert window is not None
    assert f"--load-window {window * 1000:g}ms" in found["advice"]
    with toolkit.open_store() as again:
        smaller = suite_of(again, path, window_s=window)
    assert smaller["labels"][0]["warmup_status"] != "too-short"
    assert "load-too-short" not in rules(smaller)


def test_too_short_advice_counts_full_windows_from_the_completions() -> None:
    """12 s between the first sample start and the last completion, but the first
    completion 6.5 s in: 1 s windows would be 12 by duration, yet only 5 are full."""
    label = {"label": "ALL", "samples": 50, "warmup_status": "too-short", "duration_s": 12.0}
    (found,) = warmup_findings("s", label, windows=4, window_s=2.0, completion_ms=(6_500, 12_000))
    assert full_windows(6_500, 12_000, 1000) == 5
    assert full_windows(6_500, 12_000, 500) == MIN_WINDOWS
    assert found.numbers["suggested_window_s"] == 0.5
    assert "--load-window 500ms" in found.advice


#: samples completed per second (thousands) and mean active threads in each second of a
#: JMeter 5.5 run recorded here (benchmarks/java_request_plan.jmx, 3.2M samples, 14.3 s on
#: 2 cores): threads ramp up to 10 by 5 s and finish from 11 s; the throughput levels off
#: mid-ramp (the 2 cores are saturated from 7 threads on)
_RECORDED_SHAPE = (
    (82, 1.73), (92, 3.52), (122, 5.64), (229, 7.63), (249, 9.5), (255, 10.0), (254, 10.0),
    (256, 10.0), (233, 10.0), (262, 10.0), (240, 10.0), (301, 9.16), (267, 8.0), (257, 6.99),
    (94, 2.38),
)  # fmt: skip


def _window_threads(path: Path) -> list[float]:
    """The mean allThreads of each completion window of 1 s from the first sample start,
    read from the JTL itself. A window at the plateau of 10 threads has a mean of 9.5 or
    more (timeseries.thread_ramp_end's tolerance: 2 %, at least half a thread)."""
    rows = np.genfromtxt(path, delimiter=",", skip_header=1, usecols=(0, 1, 12), dtype=np.int64)
    window = (rows[:, 0] + rows[:, 1] - rows[:, 0].min()) // 1000
    return [float(rows[window == w, 2].mean()) for w in range(int(window.max()) + 1)]


def _ramped_short_run(tmp_path: Path, seed: int) -> Path:
    """That recorded run at 1/1000 of its samples: each second's count, starts uniform in
    it, each sample's thread count drawn so that the second's mean is the recorded one.
    It read "13 full windows of 1 s over 14.3 s; the warm-up rule needs ≥ 10"."""
    rng = np.random.default_rng(seed)
    starts, threads = [], []
    for second, (count, mean) in enumerate(_RECORDED_SHAPE):
        starts.append(second + rng.random(count))
        low = np.floor(mean)
        threads.append((low + (rng.random(count) < mean - low)).astype(int))
    start = np.concatenate(starts)
    return write_csv_jtl(
        tmp_path / f"ramped{seed}.jtl", start, np.zeros(start.size), threads=np.concatenate(threads)
    )


@pytest.mark.parametrize("seed", [1, 2])
def test_too_short_names_the_windows_with_every_thread_running(tmp_path: Path, seed: int) -> None:
    """A run with enough full windows whose threads ramp up and down: the warm-up rule looks
    only at the windows with every thread running (timeseries._after_ramp, the ramp-down
    limit), so the finding counts those, with the ramp's ends, instead of saying "13 full
    windows … needs ≥ 10". The count is checked against the file: the full 1 s completion
    windows whose samples ran with all 10 threads (a mean within half a thread of 10); the
    advised window, run, gives a verdict."""
    path = _ramped_short_run(tmp_path, seed)
    with toolkit.open_store() as store:
        suite = suite_of(store, path)
    all_ = suite["labels"][0]
    assert all_["warmup_status"] == "too-short"
    found = rules(suite)["load-too-short"]
    numbers = found["numbers"]
    # truth from the samples themselves
    means = _window_threads(path)
    full = np.arange(1, len(means) - 1)  # the first and last windows are partial
    at_ten = [w for w in full if means[w] >= 9.5]
    assert numbers["windows"] == full.size == 13
    assert numbers["reason"] == "few-plateau-windows"
    assert numbers["plateau_windows"] == len(at_ten) < MIN_WINDOWS <= numbers["windows"]
    assert found["message"] == (
        f"13 full windows of 1 s over {fmt_num(all_['duration_s'])} s, {len(at_ten)} of them "
        f"with every thread running (the threads ramp up until {fmt_num(all_['rampup_end_s'])} "
        f"s and down from {at_ten[-1] + 1} s); the warm-up rule needs ≥ {MIN_WINDOWS} of "
        "those: no warm-up end or steady figures"
    )
    assert all_["rampup_end_s"] == at_ten[0]
    window_s = numbers["suggested_window_s"]
    assert f"--load-window {window_s * 1000:g}ms" in found["advice"]
    with toolkit.open_store() as again:
        smaller = suite_of(again, path, window_s=window_s)
    assert smaller["labels"][0]["warmup_status"] != "too-short"
    assert "load-too-short" not in rules(smaller)


def test_short_steady_part_ended_by_a_cool_down_is_not_the_last(tmp_path: Path) -> None:
    """Threads ramp up to 10 over 4.5 s, hold until 11 s and finish by 15 s (closed loop:
    throughput follows the threads): steady 4–11 s. The short-steady finding read "steady
    for the last 7 s of 15 s only: the warm-up takes 27% of the run" — neither the last 7 s
    nor short because of the warm-up alone. Now it names the span and the cool-down, whose
    start is checked against the file: the first full window after the plateau whose mean
    thread count is more than half a thread below 10."""

    def threads(t: float) -> int:
        return min(10, 1 + int(2 * t)) if t < 11 else 8 if t < 13 else 4

    rng = np.random.default_rng(1)
    starts, el = open_loop(rng, 15.0, lambda t: 40.0 * threads(t), lambda t: 5)
    th = np.array([threads(t) for t in starts])
    path = write_csv_jtl(tmp_path / "cooling.jtl", starts, el, threads=th)
    means = _window_threads(path)
    plateau = [w for w, m in enumerate(means) if m >= 9.5]
    drop = next(w for w in range(plateau[0], len(means)) if means[w] < 9.5)
    with toolkit.open_store() as store:
        suite = suite_of(store, path)
    all_ = suite["labels"][0]
    assert all_["cooldown_start_s"] == drop == 11
    assert all_["steady_window"]["from_s"] == all_["warmup_end_s"] == plateau[0] == 4
    found = rules(suite)["load-short-steady"]
    duration = all_["duration_s"]
    assert found["message"] == (
        f"steady for 7 s of 15 s only (4–11 s): the warm-up takes {4 / duration:.0%} of the "
        f"run and the cool-down from 11 s the last {(duration - 11) / duration:.0%}, so the "
        "steady figures rest on a short part"
    )
    assert found["numbers"]["cooldown_start_s"] == 11
    assert found["advice"] == "run at least 2x longer to confirm the steady figures"


def test_too_short_without_a_thread_ramp_keeps_the_run_windows() -> None:
    """Without a ramp (or with the plateau windows enough) the message is the run's."""
    label = {"label": "ALL", "samples": 500, "warmup_status": "too-short", "duration_s": 9.5}
    (plain,) = warmup_findings("s", label, windows=8, window_s=1.0, plateau_windows=None)
    assert plain.message.startswith("8 full windows of 1 s over 9.5 s; the warm-up rule")
    assert plain.numbers["reason"] == "few-windows"
    (ramped,) = warmup_findings(
        "s", {**label, "rampup_end_s": 3.0}, windows=12, window_s=1.0, plateau_windows=4
    )
    assert "4 of them with every thread running (the threads ramp up until 3 s)" in ramped.message
    assert ramped.numbers["suggested_window_s"] == 0.2  # 4 s / 0.2 s = 20 ≥ 11; 0.5 s: 8


# --- 3. stepped load -----------------------------------------------------------------------


def _stepped(tmp_path: Path, last_s: float, seed: int) -> Path:
    def threads(t: float) -> int:
        return 10 if t < 120 else 20 if t < 240 else 40

    rng = np.random.default_rng(seed)
    starts, el = open_loop(rng, 240 + last_s, lambda t: 2.0 * threads(t), lambda t: 50)
    th = np.array([threads(t) for t in starts])
    return write_csv_jtl(tmp_path / f"stepped{seed}.jtl", starts, el, threads=th)


def test_stepped_load_is_named_with_per_step_throughput(tmp_path: Path, store: Store) -> None:
    suite = suite_of(store, _stepped(tmp_path, 120, seed=1))
    found = rules(suite)
    step = found["load-steps"]
    assert step["message"].startswith(
        "thread count changes at 120 s and 240 s (10→20→40): stepped load; steady state is per step"
    )
    rates = [float(x) for x in str(step["numbers"]["throughput"]).split(",")]
    assert rates == pytest.approx([20, 40, 80], rel=0.1)
    # no "run longer": the trend is the steps
    assert "load-no-steady-state" not in found


def test_long_last_step_cut_as_warmup_still_names_the_steps(tmp_path: Path, store: Store) -> None:
    suite = suite_of(store, _stepped(tmp_path, 600, seed=4))
    found = rules(suite)
    assert suite["labels"][0]["warmup_status"] == "warmup"
    assert (
        "cut as warm-up, hold the load steps at 10 and 20 threads"
        in (found["load-steps"]["message"])
    )
    assert "earlier load steps, not a warm-up" in found["load-warmup"]["message"]


def _series(threads: np.ndarray, seed: int = 0) -> WindowSeries:
    rng = np.random.default_rng(seed)
    n = rng.poisson(np.maximum(threads, 0.1) * 2).astype(float)
    lat = 50 + rng.normal(0, 1, threads.size)
    return WindowSeries(np.arange(threads.size) * 1.0, n, lat, threads.astype(float), None, 1.0)


@pytest.mark.parametrize(
    "threads",
    [
        np.full(600, 50),
        np.concatenate([np.round(np.linspace(1, 50, 60)), np.full(540, 50)]),  # ramp-up
        np.concatenate([np.round(np.linspace(1, 1000, 1800)), np.full(600, 1000)]),  # slow
        np.concatenate([np.full(200, 50), np.full(20, 30), np.full(200, 50)]),  # a dip
        np.concatenate(
            [np.round(np.linspace(1, 50, 60)), np.full(500, 50), np.round(np.linspace(50, 1, 30))]
        ),
    ],
    ids=["flat", "ramp-up", "slow-ramp", "dip", "ramp-up-and-down"],
)
def test_ramps_and_flat_runs_are_not_steps(threads: np.ndarray) -> None:
    assert load_steps(_series(threads)) == []


def test_steps_with_a_ramp_each_are_steps() -> None:
    threads = np.concatenate(
        [np.linspace(0, 10, 30), np.full(90, 10), np.linspace(10, 20, 30), np.full(90, 20)]
    )
    steps = load_steps(_series(threads))
    assert [s.threads for s in steps] == [10, 20]


# --- 4. gaps --------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_pause_is_a_gap_finding(tmp_path: Path, store: Store) -> None:
    rng = np.random.default_rng(41)
    starts, el = open_loop(rng, 300, lambda t: 100, lambda t: 20)
    keep = (starts < 120) | (starts >= 180)
    path = write_csv_jtl(tmp_path / "pause.jtl", starts[keep], el[keep])
    gap = rules(suite_of(store, path))["load-gap"]
    # windows start at the first sample (t0 + k s): the pause is found to a window
    assert gap["numbers"]["start_s"] == pytest.approx(120, abs=1.01)
    assert gap["numbers"]["end_s"] == pytest.approx(180, abs=1.01)
    start, end, length = (int(gap["numbers"][k]) for k in ("start_s", "end_s", "length_s"))
    assert gap["message"].startswith(f"no samples completed from {start} s to {end} s ({length} s;")
    # a 60 s stall is a fifth of the run: its "steady" throughput would be 80/s for a
    # server that ran at 100/s, beyond the rules' 5 % effect: no steady state
    assert gap["message"].endswith("the run is not stationary")
    keep = (starts < 120) | (starts >= 130)  # a 10 s stall: 3 % of the steady part
    with toolkit.open_store(tmp_path / "short.duckdb") as other:
        short = suite_of(other, write_csv_jtl(tmp_path / "short.jtl", starts[keep], el[keep]))
    assert short["labels"][0]["warmup_status"] in ("flat", "warmup")
    assert "the steady figures include" in rules(short)["load-gap"]["message"]


# --- 5. errors ------------------------------------------------------------------------------


def test_a_label_that_always_fails_fast_is_named(tmp_path: Path, store: Store) -> None:
    rng = np.random.default_rng(63)
    starts, el = open_loop(rng, 120, lambda t: 60, lambda t: 40)
    labels = np.array(["home", "search", "broken"])[np.arange(starts.size) % 3]
    broken = labels == "broken"
    el = np.where(broken, 3, el)
    codes = np.where(broken, "404", "200")
    path = write_csv_jtl(tmp_path / "b.jtl", starts, el, labels=labels, ok=~broken, codes=codes)
    found = rules(suite_of(store, path))
    fails = found["load-label-fails"]
    assert fails["message"].startswith("label broken (")
    assert "fast failures pull ALL's mean latency down to" in fails["message"]
    assert found["load-errors"]["numbers"]["error_rate"] == pytest.approx(1 / 3, abs=0.01)


def test_a_rare_fast_failing_label_is_not_said_to_pull_all_down(tmp_path: Path) -> None:
    """1 % of the samples in a label failing in 1 ms against 40 ms: ALL's mean moves by
    about 1 %, which the finding called "pull ALL's mean latency down" (a real JMeter run
    recorded here: 0.0000475 ms against 0.0000476 ms). The label is still named; the pull
    only from FAIL_PULL_MIN (5 %) on, checked against the means computed from the file."""
    rng = np.random.default_rng(5)
    starts, el = open_loop(rng, 120, lambda t: 100, lambda t: 40)
    broken = np.arange(starts.size) % 100 == 0
    labels = np.where(broken, "checkout", "lookup")
    el = np.where(broken, 1, el)
    path = write_csv_jtl(
        tmp_path / "rare.jtl", starts, el, labels=labels, ok=~broken,
        codes=np.where(broken, "500", "200"),
    )  # fmt: skip
    elapsed = np.genfromtxt(path, delimiter=",", skip_header=1, usecols=(1,))
    ok = np.genfromtxt(path, delimiter=",", skip_header=1, usecols=(7,), dtype=str) == "true"
    pull = 1 - elapsed.mean() / elapsed[ok].mean()
    assert 0 < pull < FAIL_PULL_MIN
    with toolkit.open_store() as store:
        fails = rules(suite_of(store, path))["load-label-fails"]
    assert fails["message"].startswith("label checkout (")
    assert fails["message"].endswith(": every sample failed")
    assert "ok_mean_ms_all" not in fails["numbers"]


def test_an_error_rate_jump_is_dated(tmp_path: Path, store: Store) -> None:
    rng = np.random.default_rng(61)
    starts, el = open_loop(rng, 300, lambda t: 100, lambda t: 20)
    ok = rng.random(starts.size) >= np.where(starts >= 240, 0.5, 0.01)
    path = write_csv_jtl(tmp_path / "jump.jtl", starts, el, ok=ok)
    change = rules(suite_of(store, path))["load-error-change"]
    assert change["numbers"]["at_s"] == pytest.approx(240, abs=2)
    assert change["message"].startswith("error rate 5")  # 50 % ± noise
    assert "% from 24" in change["message"]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_generated_runs_with_one_percent_errors_stay_quiet(
    tmp_path: Path, store: Store, seed: int
) -> None:
    path = tmp_path / f"gen{seed}.jtl"
    write_jtl(path, 30_000, seed=seed, duration_s=300, warmup_s=60.0 * (seed % 2))
    found = set(rules(suite_of(store, path)))
    assert not found & {
        "load-errors",
        "load-error-change",
        "load-label-fails",
        "load-gap",
        "load-steps",
        "load-too-short",
    }


@pytest.mark.real
@pytest.mark.parametrize(
    "name",
    [
        "bin__testfiles__sample_log2.jtl",  # 1 error in 10,000
        "bin__testfiles__HTMLReportTestFile.csv",  # 3 in 255
        "generated__jmeter-5.6.3__default.csv",  # 35 in 1567
    ],
)
def test_real_files_with_a_few_errors_get_no_error_finding(
    real_dir: Path, store: Store, name: str
) -> None:
    found = set(rules(suite_of(store, real_dir / "jmeter" / name)))
    assert not found & {"load-errors", "load-error-change", "load-label-fails"}


# --- 6. latency-only warm-up ----------------------------------------------------------------


def test_a_latency_only_warmup_says_what_changed(tmp_path: Path, store: Store) -> None:
    rng = np.random.default_rng(46)
    starts, el = open_loop(rng, 300, lambda t: 100, lambda t: 200 - 3 * t if t < 60 else 20)
    warm = rules(suite_of(store, write_csv_jtl(tmp_path / "lat.jtl", starts, el)))["load-warmup"]
    steady, overall = (
        warm["numbers"]["latency_mean_steady_ms"],
        warm["numbers"]["latency_mean_overall_ms"],
    )
    assert steady == pytest.approx(20, rel=0.1)
    assert overall > 1.5 * steady
    assert (
        f"mean latency {steady:.3g} ms steady vs {overall:.3g} ms over the whole run"
        in (warm["message"])
    )


# --- 7. Little's law text; escaping -----------------------------------------------------


def test_summariser_littles_law_text_gives_the_real_reason(tmp_path: Path, store: Store) -> None:
    from toolkit.report.sections.load import _littles_law_table

    ws = summariser_logs.closed_loop([20] * 20, seed=1, think_ms=150)
    path = tmp_path / "old.log"
    bare = [replace(w, active=None) for w in ws]
    path.write_text("\n".join(summariser_logs.jmeter_log({"summary": bare})) + "\n")
    suite = suite_of(store, path)
    assert suite["littles_law"] is None
    text = _littles_law_table(0, suite)
    body = str(getattr(text, "text", text))
    assert "summariser log" in body and "Active:" in body
    assert "no thread counts" not in body


@pytest.mark.parametrize(
    ("think_ms", "verdict"), [(50.0, "thinking"), (0.0, "saturated"), (150.0, "thinking")]
)
def test_summariser_suites_get_littles_law(
    tmp_path: Path, store: Store, think_ms: float, verdict: str
) -> None:
    """A summariser log had no Little's-law check ("not checked": its Active: counts were
    not read). 10 threads, 50 ms responses and ``think_ms`` think time: N = 10 (mean
    Active: of the steady windows), X = 10 ÷ (R + Z) and R = 50 ms give busy fractions
    0.5, 1 and 0.25, the JTL verdicts and think times, the closed-loop-saturated finding
    for the loop without think time, and the report's Little's-law table."""
    from toolkit.report.model import Table
    from toolkit.report.sections.load import _littles_law_table

    ws = summariser_logs.closed_loop([10] * 20, seed=7, think_ms=think_ms)
    path = tmp_path / "loop.log"
    path.write_text("\n".join(summariser_logs.jmeter_log({"summary": ws})) + "\n")
    suite = suite_of(store, path)
    law = suite["littles_law"]
    assert law is not None and law["verdict"] == verdict
    assert law["threads"] == pytest.approx(10)
    assert law["throughput"] == pytest.approx(10 / ((50 + think_ms) / 1000), rel=0.02)
    assert law["latency_s"] == pytest.approx(0.05, rel=0.02)
    assert law["busy_fraction"] == pytest.approx(50 / (50 + think_ms), rel=0.03)
    assert law["think_s"] == pytest.approx(think_ms / 1000, abs=0.003)
    assert suite["labels"][0]["threads_steady"] == pytest.approx(10)
    assert ("closed-loop-saturated" in rules(suite)) == (verdict == "saturated")
    assert isinstance(_littles_law_table(0, suite), Table)


XSS = "<script>alert(1)</script>"


def test_finding_labels_are_escaped_in_the_report(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    starts, el = open_loop(rng, 60, lambda t: 30, lambda t: 40)
    labels = np.array(["ok", XSS])[np.arange(starts.size) % 2]
    bad = labels == XSS
    path = write_csv_jtl(tmp_path / "x.jtl", starts, el, labels=labels, ok=~bad)
    with toolkit.open_store() as store:
        ingest_file(store, path)
        html = toolkit.render_report(
            store, generated_at=datetime(2026, 5, 19, tzinfo=UTC), plotlyjs="cdn"
        )
    assert "label &lt;script&gt;alert(1)&lt;/script&gt; (" in html
    assert XSS not in html


def test_load_findings_fold_above_four_suites() -> None:
    """A kind found in more than 4 suites is one finding naming the worst suite and
    listing the others with their figure; 4 suites keep their own findings."""
    from toolkit.analyze.findings import Finding
    from toolkit.analyze.load_findings import FOLD_ABOVE as MAX_SUITE_FINDINGS
    from toolkit.analyze.load_findings import fold_load_findings

    def errors(suite: str, rate: float) -> Finding:
        return Finding(
            "load-errors",
            "warning",
            suite,
            f"{suite}: {rate:.0%} failed",
            "fix",
            {"error_rate": rate},
        )

    few = [errors(f"s{i}", 0.1 * (i + 1)) for i in range(MAX_SUITE_FINDINGS)]
    assert fold_load_findings(few, 10) == few
    many = [errors(f"s{i}", 0.1 * (i + 1)) for i in range(7)]
    gap = Finding("load-gap", "warning", "s0", "s0: gap", "look", {"length_s": 6.0})
    (folded, kept) = fold_load_findings([*many, gap], 9)
    assert kept == gap
    assert folded.rule == "load-errors" and folded.subject == "7 of 9 load suites"
    assert folded.message.startswith(
        "7 of 9 load suites have 5% or more failed samples; the worst: s6: 70% failed; also "
        "s5 60%, s4 50%"
    )
    assert folded.advice == "s6: fix"
    assert folded.numbers["suites"] == 7


@pytest.mark.real
@pytest.mark.slow
def test_real_folder_report_folds_load_findings(real_dir: Path) -> None:
    """`warmup report` on the real JMeter folder: 54 load findings before (16
    load-too-short, 12 load-errors, 13 without timestamps), now no kind in more than 4
    findings of its own. Read from the findings engine, whose list the report shows as it
    is (``build_report``; tests/test_one_voice.py), without drawing the report's charts."""
    from collections import Counter

    from toolkit.analyze.load_findings import FOLD_ABOVE as MAX_SUITE_FINDINGS
    from toolkit.pipeline.findings import store_findings

    with toolkit.open_store() as store:
        for path in sorted((real_dir / "jmeter").iterdir()):
            with contextlib.suppress(UnrecognisedFormatError):  # skipped by the CLI too
                ingest_file(store, path)
        findings = store_findings(store)
    load = [f for f in findings if f.rule.startswith("load-")]
    kinds = Counter(
        (f.rule, f.numbers.get("reason")) for f in load if " load suites" not in f.subject
    )
    assert max(kinds.values()) <= MAX_SUITE_FINDINGS
    folded = {f.rule for f in load if " load suites" in f.subject}
    assert {"load-errors", "load-too-short"} <= folded
    errors = next(f for f in load if f.rule == "load-errors")
    assert "load suites have 5% or more failed samples; the worst: " in errors.message
    assert len(load) < 20


def test_no_steady_state_from_a_pause_names_the_gap(tmp_path: Path, store: Store) -> None:
    """A 60 s pause in the middle of a flat 600 s run: no steady state because of the gap
    (as load-gap says), not "still trends at the end … run longer" (audit s4a_pause60).
    The status was "inconclusive" (MSER at its cap); with the gap filled the rules find
    the run flat, and a gap of 10 % of it leaves no steady state (rule ``gap``), as the
    summariser log of such a run says."""
    rng = np.random.default_rng(41)
    starts, el = open_loop(rng, 600, lambda t: 30, lambda t: 20)
    keep = (starts < 240) | (starts >= 300)
    suite = suite_of(store, write_csv_jtl(tmp_path / "pause60.jtl", starts[keep], el[keep]))
    found = rules(suite)
    assert suite["labels"][0]["warmup_status"] == "no-steady-state"
    assert suite["labels"][0]["warmup_rule"] == "gap"
    gap = found["load-gap"]["numbers"]
    none = found["load-no-steady-state"]
    assert none["message"] == (
        "no steady state: the run is not stationary because of the "
        f"{gap['length_s']:g} s with no completed sample from {gap['start_s']:g} s to "
        f"{gap['end_s']:g} s (load-gap), not a trend at its end"
    )
    assert "run longer" not in none["advice"]
    assert none["numbers"]["cause"] == "load-gap"


@pytest.mark.parametrize(("run_s", "rate", "hours"), [(30, 100, 1), (45, 50, 6), (20, 100, 2)])
def test_two_runs_appended_to_one_file_are_no_warmup(
    tmp_path: Path, store: Store, run_s: int, rate: int, hours: int
) -> None:
    """JMeter appends to an existing -l file: two flat short runs, hours apart, in one
    JTL. MSER cut the first run as a "warm-up" ending where the gap starts (31, 45 and
    21 s here) and called the hours of nothing a steady state of under 1/s; now no steady
    state because of the gap, and no warm-up claim (longer runs already got no steady
    state, by the trend test). The truth is counted from the samples: the seconds with
    no completion."""
    rng = np.random.default_rng(7)
    first, el1 = open_loop(rng, run_s, lambda t: rate, lambda t: 20)
    second, el2 = open_loop(rng, run_s, lambda t: rate, lambda t: 20)
    starts = np.concatenate([first, second + run_s + 3600 * hours])
    elapsed = np.concatenate([el1, el2])
    suite = suite_of(store, write_csv_jtl(tmp_path / "appended.jtl", starts, elapsed))
    # the truth from the samples: the share of whole seconds with no completion
    ends = np.floor(starts + np.maximum(1, elapsed.astype(np.int64)) / 1000).astype(int)
    seconds = np.bincount(ends - ends.min())
    assert np.mean(seconds == 0) > 0.9
    all_label = suite["labels"][0]
    assert (all_label["warmup_status"], all_label["warmup_rule"]) == ("no-steady-state", "gap")
    assert all_label["warmup_end_s"] is None and all_label["steady_window"] is None
    assert all_label["throughput"]["steady"] is None
    found = rules(suite)
    assert "load-warmup" not in found
    none = found["load-no-steady-state"]
    assert none["numbers"]["cause"] == "load-gap"
    assert "the run is not stationary because of the" in none["message"]
    gap = found["load-gap"]["numbers"]
    assert gap["length_s"] == pytest.approx(3600 * hours, abs=2)


@pytest.mark.parametrize("stall_s", [5, 10, 20])
@pytest.mark.parametrize("at_s", [60, 120, 200, 250])
def test_a_stall_in_a_flat_run_is_no_warmup_and_no_cooldown(
    tmp_path: Path, store: Store, stall_s: int, at_s: int
) -> None:
    """A flat 300 s run (the rate and latency constant by construction) with one stall.
    Of 120 such runs (5-20 s stalls at 60/120/200/250/270 s, 30 and 100/s, 4 seeds), 31
    got "warm-up ends 131 s" (MSER cut at the stall's end) and 64 a cool-down where the
    stall began (the backward rule), though the run came back. Then no warm-up, and a
    cool-down in 3 (5 s stalls 30 s from the end: "cool-down from 229 s", "285 s"), which
    the rule no longer finds once the gap is filled at the level beside it: now none. A
    stall of at most 5 % of the run is inside a flat steady state to the end (load-gap
    says the steady figures include it); a longer one leaves no steady state."""
    rng = np.random.default_rng(stall_s * 1000 + at_s)
    starts, el = open_loop(rng, 300, lambda t: 100, lambda t: 20)
    keep = (starts < at_s) | (starts >= at_s + stall_s)
    suite = suite_of(store, write_csv_jtl(tmp_path / "stall.jtl", starts[keep], el[keep]))
    status = suite["labels"][0]["warmup_status"]
    gap = rules(suite)["load-gap"]
    assert "load-warmup" not in rules(suite)
    share = gap["numbers"]["length_s"] / 298  # the full windows of the run
    if share <= 0.05:
        assert status == "flat"
        assert "the steady figures include" in gap["message"]
        assert suite["labels"][0]["cooldown_start_s"] is None
    else:
        assert status in ("no-steady-state", "inconclusive")
        assert gap["message"].endswith("the run is not stationary")


def _without_and_with_stall(
    tmp_path: Path, seed: int, starts: np.ndarray, el: np.ndarray, keep: np.ndarray
) -> tuple[dict[str, Any], dict[str, Any]]:
    """ALL's load figures of a run's samples, each in its own store: all of them, and
    those ``keep`` leaves (the run with its stall)."""
    with toolkit.open_store() as one, toolkit.open_store() as two:
        control = suite_of(one, write_csv_jtl(tmp_path / f"c{seed}.jtl", starts, el))
        stalled = write_csv_jtl(tmp_path / f"s{seed}.jtl", starts[keep], el[keep])
        stalled = suite_of(two, stalled)
    return control["labels"][0], stalled["labels"][0]


@pytest.mark.parametrize(
    ("stall_s", "at_s"),
    [
        (10, 250),
        pytest.param(5, 150, marks=pytest.mark.ci_only),
        pytest.param(20, 250, marks=pytest.mark.ci_only),
    ],
)
@pytest.mark.slow
def test_a_stall_after_a_real_warmup_keeps_its_end(tmp_path: Path, stall_s: int, at_s: int) -> None:
    """A 600 s run at 100/s whose rate climbs from 40 % and whose latency falls from 3x
    with time constant 20 s (latency within 5 % of its level at 3.7 τ ≈ 74 s), with a
    stall after the warm-up. MSER cut at the stall's end ("warm-up ends 156 s", "261 s",
    "271 s" against 76-81 s without the stall: 9 of these 9 runs; 48 of 60 with 30/s
    and τ = 40 s and other stalls too); with the gap filled at the level beside it the rules end the
    warm-up before it, where the same run without the stall ends (± 2 s)."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        starts, el = open_loop(
            rng, 600, lambda t: 100 * (1 - 0.6 * np.exp(-t / 20)),
            lambda t: 20 * (1 + 2 * np.exp(-t / 20)),
        )  # fmt: skip
        keep = (starts < at_s) | (starts >= at_s + stall_s)
        a, b = _without_and_with_stall(tmp_path, seed, starts, el, keep)
        assert a["warmup_status"] == b["warmup_status"] == "warmup", (seed, b)
        assert 60 <= a["warmup_end_s"] <= 90
        assert abs(b["warmup_end_s"] - a["warmup_end_s"]) <= 2, (seed, a, b)


@pytest.mark.slow
def test_a_stall_does_not_hide_a_warmup(tmp_path: Path) -> None:
    """600 s at 30/s whose rate climbs from 40 % (time constant 60 s: within 5 % of its
    level at 150 s), with a 30 s stall at 300 s. The stall's empty windows widened the
    spread MSER's transient is weighed against, and the run read "flat" in seeds 4 and 5,
    though the same run without the stall has a warm-up. With the gap filled the rules
    see it; the stall then takes over 5 % of the steady part: no steady state, as the
    summariser log of the same run says. (Seed 1, whose run without the stall reads "no
    steady state" by its trend, still reads "flat".)"""
    for seed in (4, 5):
        rng = np.random.default_rng(seed)
        starts, el = open_loop(rng, 600, lambda t: 30 * (1 - 0.6 * np.exp(-t / 60)), lambda t: 20.0)
        keep = (starts < 300) | (starts >= 330)
        a, b = _without_and_with_stall(tmp_path, seed, starts, el, keep)
        assert a["warmup_status"] in ("warmup", "no-steady-state"), (seed, a)
        assert b["warmup_status"] == "no-steady-state", (seed, b)


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_a_stall_near_the_end_is_no_cooldown(tmp_path: Path, store: Store, seed: int) -> None:
    """The 3 runs of the 120 above that kept a false cool-down: a 5 s stall at 270 s of a
    flat 300 s run at 100/s, found as "cool-down from 229 s" or "285 s" (the stall's empty
    windows lower the tail the backward rule weighs), and none in the same runs without
    the stall. With the gap filled at the level beside it the rule finds none: flat to
    the end, the gap inside the steady figures."""
    rng = np.random.default_rng(seed * 100 + 275)
    starts, el = open_loop(rng, 300, lambda t: 100, lambda t: 20)
    keep = (starts < 270) | (starts >= 275)
    suite = suite_of(store, write_csv_jtl(tmp_path / "stall.jtl", starts[keep], el[keep]))
    label = suite["labels"][0]
    assert label["warmup_status"] == "flat"
    assert label["cooldown_start_s"] is None
    assert "the steady figures include" in rules(suite)["load-gap"]["message"]


@pytest.mark.parametrize("seed", range(3))
def test_a_stall_before_a_cooldown_is_no_warmup(tmp_path: Path, store: Store, seed: int) -> None:
    """A flat 600 s run at 30/s whose rate falls to 0 over its last 60 s (threads finishing
    one by one), with a 10 s stall at 90 s. The cool-down was found, the warm-up rule ran
    again without it and cut at the stall's end ("warm-up ends 101 s") past the gap rule,
    which saw only the first pass; now that second pass meets the gap rule too: flat, with
    the cool-down kept."""
    rng = np.random.default_rng(seed)
    starts, el = open_loop(rng, 600, lambda t: 30 * min(1.0, (600 - t) / 60), lambda t: 20)
    keep = (starts < 90) | (starts >= 100)
    suite = suite_of(store, write_csv_jtl(tmp_path / "stall.jtl", starts[keep], el[keep]))
    label = suite["labels"][0]
    assert label["warmup_status"] == "flat", label["warmup_end_s"]
    assert label["cooldown_start_s"] is not None and 520 <= label["cooldown_start_s"] <= 570
    assert "load-warmup" not in rules(suite)


def _bursts(rng: np.random.Generator, period_s: float, burst: int, duration_s: float) -> np.ndarray:
    """Sample starts of a run of bursts: ``burst`` samples within 0.8 s every ``period_s``
    (one thread, a long timer between its iterations)."""
    starts: list[float] = []
    t = 0.0
    while t < duration_s:
        starts += list(t + np.sort(rng.uniform(0, 0.8, burst)))
        t += period_s
    return np.array(starts)


@pytest.mark.parametrize(("period_s", "burst"), [(31, 50), (10, 30), (5, 20)])
def test_a_run_of_bursts_is_steady_and_has_no_gap(
    tmp_path: Path, store: Store, period_s: int, burst: int
) -> None:
    """A burst every ``period_s`` leaves most 1 s windows empty: that is the run's
    rhythm, steady at the scale of its period, not "no samples completed in 29 stretches
    ... look for a pause of the load generator" (and not "no steady state" by gaps). The
    truth from the samples: most whole seconds hold no completion, in many stretches of
    the same length, and the rate is burst / period."""
    rng = np.random.default_rng(1)
    starts = _bursts(rng, period_s, burst, 600)
    elapsed = np.full(starts.size, 15.0)
    suite = suite_of(store, write_csv_jtl(tmp_path / "bursts.jtl", starts, elapsed))
    ends = np.floor(starts + elapsed / 1000).astype(int)
    per_second = np.bincount(ends - ends.min())
    assert np.mean(per_second == 0) > 0.5
    all_label = suite["labels"][0]
    assert all_label["warmup_status"] == "flat"
    low, high = all_label["throughput"]["steady_ci"]
    assert low <= burst / period_s <= high
    assert "load-gap" not in rules(suite)


@pytest.mark.slow
def test_a_stall_among_bursts_and_periodic_stalls_of_a_busy_run_are_gaps(
    tmp_path: Path, store: Store
) -> None:
    """The rhythm of bursts does not hide a stall 3 times its empty stretches or longer
    (an hour between two runs of bursts appended to one file); a busy run whose windows
    are rarely empty keeps every stall a gap, periodic or not (a 5 s GC pause a minute)."""
    rng = np.random.default_rng(2)
    bursts = _bursts(rng, 31, 50, 600)
    starts = np.concatenate([bursts, bursts + 600 + 3600])
    suite = suite_of(store, write_csv_jtl(tmp_path / "a.jtl", starts, np.full(starts.size, 15.0)))
    gap = rules(suite)["load-gap"]["numbers"]
    assert gap["gaps"] == 1 and gap["length_s"] == pytest.approx(3610, abs=31)
    busy, elapsed = open_loop(rng, 600, lambda t: 50, lambda t: 20)
    keep = busy % 60 < 55
    with toolkit.open_store(tmp_path / "gc.duckdb") as other:
        suite = suite_of(other, write_csv_jtl(tmp_path / "gc.jtl", busy[keep], elapsed[keep]))
    gap = rules(suite)["load-gap"]["numbers"]
    assert gap["gaps"] >= 8 and suite["labels"][0]["warmup_status"] == "flat"


def test_empty_stretches_of_a_rhythm_and_of_a_stall() -> None:
    from toolkit.analyze.timeseries import RHYTHM_GAP_FACTOR, empty_stretches

    busy = np.full(100, 50.0)
    busy[40:45] = 0
    assert [(i, j) for i, j, _ in empty_stretches(busy)] == [(40, 45)]
    rhythm = np.zeros(100)
    rhythm[::10] = 100.0  # a burst every 10 windows: stretches of 9
    assert empty_stretches(rhythm) == []
    rhythm[60] = 0  # a burst missing: 19 windows in a row, under 3 x 9, still the rhythm
    assert empty_stretches(rhythm) == []
    rhythm[51:90] = 0  # 39 windows: a stall among the bursts
    assert [(i, j) for i, j, _ in empty_stretches(rhythm)] == [(51, 90)]
    assert RHYTHM_GAP_FACTOR * 9 <= 39 and RHYTHM_GAP_FACTOR * 9 > 19


def test_a_short_stall_in_a_long_run_keeps_its_steady_state(tmp_path: Path, store: Store) -> None:
    """The gap rule of the verdict takes a steady part only when gaps are most of it: a
    20 s stall in a flat 600 s run stays a gap inside a steady state."""
    rng = np.random.default_rng(8)
    starts, el = open_loop(rng, 600, lambda t: 50, lambda t: 20)
    keep = (starts < 300) | (starts >= 320)
    suite = suite_of(store, write_csv_jtl(tmp_path / "stall.jtl", starts[keep], el[keep]))
    assert suite["labels"][0]["warmup_status"] in ("flat", "warmup")
    assert suite["labels"][0]["warmup_rule"] != "gap"
    assert "the steady figures include" in rules(suite)["load-gap"]["message"]


@pytest.mark.real
@pytest.mark.parametrize(
    "name",
    [
        "bin__testfiles__BatchTestLocal.csv",
        "bin__testfiles__Bug52968.xml",
        "bin__testfiles__Bug56811.xml",
        "bin__testfiles__TestResultStatusAction.csv",
    ],
)
def test_errors_without_timings_do_not_mention_missing_figures(
    real_dir: Path, store: Store, name: str
) -> None:
    """Files with no timestamps have no throughput or latency: load-errors says the share
    is the only figure, not that failures "count in the throughput and latency figures …
    can set the p95"."""
    found = rules(suite_of(store, real_dir / "jmeter" / name))["load-errors"]
    assert found["message"].endswith("so that share is its only figure")
    assert "p95" not in found["message"] and "throughput" not in found["advice"]


def test_summariser_errors_name_its_figures() -> None:
    from toolkit.analyze.load_findings import error_findings

    label = {
        "label": "ALL",
        "samples": 100,
        "errors": 20,
        "throughput": {"overall": 3.3},
        "latency_ms": {"overall": {"mean": 50.0, "p95": None}},
    }
    (found,) = error_findings("log", [label], failed_mean_ms={}, ok_mean_ms_all=None, series=None)
    assert found.message == (
        "20% of the samples failed (20 of 100); failed samples count in the throughput and "
        "mean latency, as in JMeter's summariser"
    )


def test_singular_in_messages(tmp_path: Path, store: Store) -> None:
    """ "the one sample has no start time", not "none of the 1 samples"; "1 thread" in a
    step's figures."""
    from toolkit.analyze.load_findings import LoadStep, step_finding

    path = tmp_path / "one.csv"
    path.write_text("label,responseCode,responseMessage,success\nreq,200,OK,true\n")
    found = rules(suite_of(store, path))["load-too-short"]
    assert found["message"].startswith("the one sample has no start time and elapsed time (")
    steps = [
        LoadStep(1.0, 0.0, 60.0, 0.0, 5.0, 200.0),
        LoadStep(2.0, 60.0, 120.0, 0.0, 10.0, 200.0),
    ]
    message = step_finding("s", steps, warmup_end_s=None).message
    assert "(1 thread 5/s at 200 ms, 2 threads 10/s at 200 ms," in message


@pytest.mark.real
def test_window_seconds_have_no_binary_noise(real_dir: Path, store: Store) -> None:
    """Window 6 of 50 ms is 0.3 s (was 0.30000000000000004 in --json). kpi-pair1.jtl at
    50 ms windows read "warm-up ends at 0.3 s" from its 6 samples; fewer than
    MIN_VERDICT_SAMPLES give no verdict now."""
    from toolkit.analyze.timeseries import _window_seconds

    assert repr(_window_seconds(6, 0.05)) == "0.3" and 6 * 0.05 != 0.3
    path = real_dir / "jmeter" / f"{_TAURUS}kpi-pair1.jtl"
    suite = suite_of(store, path, window_s=0.05)
    all_ = suite["labels"][0]
    assert all_["samples"] == 6 and all_["warmup_status"] == "too-short"
    assert all_["warmup_end_s"] is None


def test_no_steady_state_from_an_error_change_names_it() -> None:
    from toolkit.analyze.findings import Finding

    label = {"label": "ALL", "samples": 9000, "warmup_status": "inconclusive", "duration_s": 300}
    change = Finding(
        "load-error-change", "warning", "s", "…", "…", {"at_s": 150.0, "before": 0.0, "after": 0.5}
    )
    (found,) = warmup_findings("s", label, windows=298, window_s=1.0, causes=[change])
    assert found.message == (
        "no steady state: the run is not stationary because of the error rate's change at "
        "150 s (load-error-change), not a trend at its end"
    )
    assert "run longer" not in found.advice


# --- a slowdown at the end -------------------------------------------------------------


def _late_run(
    rng: np.random.Generator, *, slow_latency: float, threads_after: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A flat 600 s run at 100/s and 20 ms with 10 threads; from 500 s the rate falls to
    60/s, the latency is ``slow_latency`` ms and ``threads_after`` threads run."""
    starts, el = open_loop(
        rng, 600, lambda t: 100 if t < 500 else 60, lambda t: 20 if t < 500 else slow_latency
    )
    threads = np.where(starts < 500, 10, threads_after)
    return starts, el, threads


@pytest.mark.parametrize("seed", range(2))
def test_a_server_slowing_down_at_the_end_is_no_cooldown(
    tmp_path: Path, store: Store, seed: int
) -> None:
    """From 500 s of a flat 600 s run the throughput falls 40 % and the latency doubles
    while all 10 threads run. The cool-down rule cuts it (the steady figures end at
    500 s), and the table called it a cool-down; threads finishing lower the throughput,
    not raise the latency, so a load-slowdown warning says what it is."""
    starts, el, threads = _late_run(np.random.default_rng(seed), slow_latency=40, threads_after=10)
    path = write_csv_jtl(tmp_path / "slow.jtl", starts, el, threads=threads)
    suite = suite_of(store, path)
    label = suite["labels"][0]
    assert label["warmup_status"] == "flat"
    assert label["cooldown_start_s"] == pytest.approx(500, abs=5)
    slow = rules(suite)["load-slowdown"]
    assert slow["severity"] == "warning"
    numbers = slow["numbers"]
    assert numbers["latency_after_ms"] / numbers["latency_steady_ms"] == pytest.approx(2, rel=0.1)
    assert numbers["throughput_after"] == pytest.approx(60, rel=0.1)
    assert numbers["throughput_steady"] == pytest.approx(100, rel=0.05)
    assert "while the threads held at 10" in slow["message"]


@pytest.mark.parametrize(("slow_latency", "threads_after"), [(20, 10), (15, 6), (40, 6)])
@pytest.mark.slow
def test_a_cooldown_is_no_slowdown(
    tmp_path: Path, store: Store, slow_latency: float, threads_after: int
) -> None:
    """The same fall in throughput at the same latency, at a lower latency with 6 of 10
    threads left, or at a higher one with 6 left (what still runs may be the slower
    requests): a cool-down, no load-slowdown."""
    starts, el, threads = _late_run(
        np.random.default_rng(3), slow_latency=slow_latency, threads_after=threads_after
    )
    suite = suite_of(store, write_csv_jtl(tmp_path / "cool.jtl", starts, el, threads=threads))
    assert suite["labels"][0]["cooldown_start_s"] is not None
    assert "load-slowdown" not in rules(suite)


def test_a_log_of_a_server_slowing_down_has_the_finding(tmp_path: Path) -> None:
    """A summariser log: 20 windows of 30 s at 100/s and 50 ms, then 4 at 60/s and 90 ms,
    Active: 10 throughout: load-slowdown from 600 s."""
    ws = summariser_logs.closed_loop([10] * 20, seed=2, latency_ms=50, think_ms=50)
    ws += summariser_logs.closed_loop([10] * 4, seed=3, latency_ms=117, think_ms=50)
    suite = _log_suite(tmp_path, ws, "slow")
    assert suite["labels"][0]["cooldown_start_s"] == pytest.approx(600, abs=31)
    slow = rules(suite)["load-slowdown"]
    assert slow["numbers"]["latency_after_ms"] > 1.5 * slow["numbers"]["latency_steady_ms"]


# --- a fast start ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rate", "latency"),
    [
        (lambda t: 100 if t < 300 else 50, lambda t: 20),  # the throughput halves at 300 s
        (lambda t: 100, lambda t: 20 if t < 300 else 30),  # the latency rises 50 % at 300 s
        (lambda t: 100 * (1 - 0.3 * t / 600), lambda t: 20),  # falls 30 % over the run
        (lambda t: 200 if t < 30 else 100, lambda t: 20),  # twice the rate for 30 s
        (lambda t: 100, lambda t: 10 if t < 30 else 20),  # half the latency for 30 s
    ],
)
def test_a_run_that_slows_after_its_start_is_a_fast_start(
    tmp_path: Path, store: Store, rate: Any, latency: Any
) -> None:
    """A run faster before the transient's end than after it: the rules cut it ("warm-up
    ends 301 s", or 456 s for a steady decline whose last part passes the plateau test),
    and the finding called that a warm-up with the steady throughput half the whole
    run's. A warm-up makes a server faster; this one got slower (a cache, buffer or heap
    filling up), so load-fast-start says so and that a shorter run overstates the steady
    figures. A short fast start (30 s of 600 s) is judged on its own figures, not the
    whole run's, which it moves by 5 % at most ("steady throughput 100/s vs 105/s over
    the whole run" was a warm-up)."""
    starts, el = open_loop(np.random.default_rng(2), 600, rate, latency)
    suite = suite_of(store, write_csv_jtl(tmp_path / "fast.jtl", starts, el))
    found = rules(suite)
    assert suite["labels"][0]["warmup_status"] == "warmup"
    assert "load-warmup" not in found
    fast = found["load-fast-start"]
    assert fast["message"].startswith("the run starts faster than it goes on")
    assert "overstates the steady figures" in fast["advice"]


@pytest.mark.parametrize("until_s", [30, 300])
def test_a_warmup_stays_a_warmup(tmp_path: Path, store: Store, until_s: int) -> None:
    """The mirror: the throughput doubles at 30 or 300 s (the server got faster):
    load-warmup."""
    starts, el = open_loop(np.random.default_rng(0), 600, lambda t: 50 if t < until_s else 100,
                           lambda t: 20)  # fmt: skip
    found = rules(suite_of(store, write_csv_jtl(tmp_path / "warm.jtl", starts, el)))
    assert "load-warmup" in found and "load-fast-start" not in found


def test_a_log_that_slows_after_its_start_is_a_fast_start(tmp_path: Path) -> None:
    """A summariser log: 10 windows of 30 s at 100/s, then 20 at 70/s (Active: 10 and a
    longer latency throughout the second part): load-fast-start from ~300 s."""
    ws = summariser_logs.closed_loop([10] * 10, seed=4, latency_ms=50, think_ms=50)
    ws += summariser_logs.closed_loop([10] * 20, seed=5, latency_ms=93, think_ms=50)
    suite = _log_suite(tmp_path, ws, "fast")
    assert suite["labels"][0]["warmup_status"] == "warmup"
    found = rules(suite)
    assert "load-warmup" not in found
    assert found["load-fast-start"]["numbers"]["warmup_end_s"] == pytest.approx(300, abs=31)


def test_a_stall_does_not_hide_a_cooldown(tmp_path: Path, store: Store) -> None:
    """A flat 300 s run at 100/s whose threads finish over its last 60 s, with a 10 s
    stall at 150 s: the stall kept the trend test failing ("no steady state") and the
    backward rule from the cool-down; with the gap filled both find theirs: flat, the
    cool-down near 240 s."""
    rng = np.random.default_rng(3 * 100 + 160)
    starts, el = open_loop(rng, 300, lambda t: 100 * min(1.0, (300 - t) / 60), lambda t: 20)
    keep = (starts < 150) | (starts >= 160)
    suite = suite_of(store, write_csv_jtl(tmp_path / "cool.jtl", starts[keep], el[keep]))
    label = suite["labels"][0]
    assert label["warmup_status"] == "flat"
    assert label["cooldown_start_s"] is not None and 230 <= label["cooldown_start_s"] <= 265


@pytest.mark.slow
def test_a_warmup_end_inside_a_stall_is_moved_before_it(tmp_path: Path, store: Store) -> None:
    """A 600 s run at 30/s climbing from 40 % (time constant 60 s) with a 10 s stall at
    300 s read "warm-up ends 311 s" (MSER with its cap lifted, just past the stall; a
    change-point end can also fall inside one, 326 s for a 30 s stall at 300 s). With the
    gap filled the rules end the warm-up where the same run without the stall ends, within two MSER batches
    (10 s: 83 s against 86 s)."""
    rng = np.random.default_rng(0)
    starts, el = open_loop(rng, 600, lambda t: 30 * (1 - 0.6 * np.exp(-t / 60)), lambda t: 20)
    keep = (starts < 300) | (starts >= 310)
    with toolkit.open_store() as other:
        control = suite_of(other, write_csv_jtl(tmp_path / "c.jtl", starts, el))["labels"][0]
    label = suite_of(store, write_csv_jtl(tmp_path / "s.jtl", starts[keep], el[keep]))["labels"][0]
    assert control["warmup_status"] == label["warmup_status"] == "warmup"
    assert abs(label["warmup_end_s"] - control["warmup_end_s"]) <= 10, (control, label)
