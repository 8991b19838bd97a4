"""Accuracy of the load-test warm-up rules on generated per-window series with a known
truth (issue 17 item 1: change points among the rules, slow noisy ramps).
``tests/load_series.py`` generates the runs and computes each truth from its noise-free
level; ``timeseries.analyze_windows`` (what ``warmup load`` runs per label) is measured
against it, and the test prints the table (``-s``)."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from load_series import EXPECTED, SHAPES, LoadSeries, generate

from toolkit.analyze.timeseries import LabelLoad, analyze_windows

SEEDS = range(1, 31)
WARMUP_SHAPES = [s for s in SHAPES if EXPECTED[s] == "warmup"]

#: measured at f794ffc (main before change points and the warm-up curve), same generator:
#: per shape (class right, end right, early, late, steady CI holds the true rate)
BEFORE = {
    "flat": (27, 27, 0, 0, 29),
    "step": (29, 27, 0, 2, 24),
    "linear": (29, 20, 5, 4, 26),
    "exponential": (27, 11, 15, 1, 24),
    "half-run": (24, 13, 10, 1, 20),
    "never-ending": (21, 21, 0, 0, 0),
}


def _analyze(run: LoadSeries) -> tuple[str, float | None, tuple[float, float] | None, str]:
    res = analyze_windows(
        "ALL", run.windows, window_s=1.0, samples=int(run.windows["n"].sum()), errors=0,
        duration_s=float(run.duration_s),
    )  # fmt: skip
    ci = res.throughput_steady
    return (
        res.warmup.status,
        res.warmup.end_s,
        None if ci is None else (ci.lo, ci.hi),
        str(res.warmup.decided_by),
    )


def measure() -> tuple[dict[str, collections.Counter[str]], list[str]]:
    """Per shape: ``class`` (status right), ``end`` (warm-up: the end within max(1 window,
    10 %) of the truth; flat and never-ending: the class), ``early``/``late`` (a warm-up
    end outside that, before or after), ``ci`` (flat and warm-up runs: the steady
    throughput CI holds the true rate), ``runs``; and a line per miss."""
    table: dict[str, collections.Counter[str]] = {}
    misses = []
    for shape in SHAPES:
        row: collections.Counter[str] = collections.Counter()
        for seed in SEEDS:
            run = generate(shape, seed)
            status, end_s, ci, rule = _analyze(run)
            row["runs"] += 1
            row["class"] += status == run.expected
            if run.expected == "warmup":
                right = status == "warmup" and run.end_is_right(end_s)
                if status == "warmup" and not right:
                    assert end_s is not None and run.truth_s is not None
                    row["early" if end_s < run.truth_s else "late"] += 1
            else:
                right = status == run.expected
            row["end"] += right
            holds = True
            if run.expected != "no-steady-state":
                holds = ci is not None and ci[0] <= run.steady_rate <= ci[1]
                row["ci"] += holds
            if not right or not holds:
                misses.append(
                    f"{run.describe}: {status} {end_s} ({rule}), truth "
                    f"{run.truth_s}-{run.truth_late_s}, CI {ci} vs {run.steady_rate:.4g}/s"
                )
        table[shape] = row
    return table, misses


@pytest.mark.slow
def test_warmup_ends_on_generated_runs_within_a_window_or_ten_percent() -> None:
    """30 seeds of each shape (step, linear and exponential warm-ups ending at 15–45 % of
    the run, half-run warm-ups ending at 50–70 %, never-ending and flat runs; 40–300 s,
    2–10 % AR(1) noise on the rate over Poisson counts; tests/load_series.py). Before:
    71 of 120 warm-up ends right, 30 early (25 of them on exponential and half-run ramps:
    MSER weighs a slow approach's last part against its variance and cuts before it),
    5 read too late with MSER's cap lifted (steps at 29 and 53 s read 81 and 76 s; 3 of
    them are right now, a 12 s linear ramp in 40 s still reads 21 s), 2 inconclusive with
    MSER pinned at its cap even lifted (a 53 s step and a 50 s ramp in 120 s; now 56 and
    49 s). The change points end those where MSER cannot, and the latency's fitted
    warm-up curve carries a slow approach to where it comes within 5 % of its level.
    Thresholds: ≥ 90 warm-up ends right (was 71), ≤ 15 early (was 30), ≤ 10 late (was
    8), classes no worse on any shape, steady CIs holding the true rate no fewer."""
    table, misses = measure()
    print("\nshape          class    end  early  late   CI   (before: class end early late CI)")
    for shape, row in table.items():
        before = BEFORE[shape]
        print(
            f"{shape:13s} {row['class']:3d}/30 {row['end']:4d} {row['early']:6d} {row['late']:5d} "
            f"{row['ci']:4d}   ({' '.join(str(b) for b in before)})"
        )
    print("\n".join(misses))
    right = sum(table[s]["end"] for s in WARMUP_SHAPES)
    early = sum(table[s]["early"] for s in WARMUP_SHAPES)
    late = sum(table[s]["late"] for s in WARMUP_SHAPES)
    print(f"warm-up ends right {right}/120 (was 71), early {early} (was 30), late {late} (was 8)")
    assert right >= 90
    assert early <= 15
    assert late <= 10
    for shape, row in table.items():
        assert row["class"] >= BEFORE[shape][0], shape
        # a 95 % interval misses by chance: two more misses on a shape are noise
        assert row["ci"] >= BEFORE[shape][4] - 2, shape
    assert sum(row["ci"] for row in table.values()) >= sum(b[4] for b in BEFORE.values())
    # the flat runs' false warm-ups are MSER's (a 9 % AR(1) wobble): no rule added any
    assert table["flat"]["end"] >= 27


def test_steps_that_mser_read_late_or_not_at_all_end_at_the_step() -> None:
    """Three generated step warm-ups where MSER alone failed: a 29 s step (x2.5) in 120 s
    with a 3 % AR(1) wobble read as a warm-up ending at 81 s with MSER's cap lifted; a
    53 s step (x4.2) in 120 s that pinned MSER at its cap even lifted ("inconclusive",
    no steady figures); a 53 s step (x4.0) read 76 s. Now each ends within 10 % of its
    step (the last two by change points) and its steady CI holds the true rate."""
    for seed, truth, rule in (
        (3, 29.0, None),
        (14, 53.0, "changepoint"),
        (19, 53.0, "changepoint"),
    ):
        run = generate("step", seed)
        assert run.truth_s == truth
        status, end_s, ci, decided_by = _analyze(run)
        assert status == "warmup" and run.end_is_right(end_s), (seed, status, end_s)
        assert rule is None or decided_by == rule, (seed, decided_by)
        assert ci is not None and ci[0] <= run.steady_rate <= ci[1], (seed, ci)


def test_change_points_need_a_faster_steady_part_and_leave_a_fifth_of_the_run() -> None:
    """The change-point rule's own guards, on plain arrays: a step up in latency at 30 %
    (a slowdown) and a step down at 90 % (a cool-down's last part) are no warm-up end;
    a step down at 30 % is, at the step."""
    from toolkit.analyze.timeseries import _changepoint_end

    rng = np.random.default_rng(4)
    noise = 1 + 0.03 * rng.standard_normal(200)
    down = np.where(np.arange(200) < 60, 300.0, 100.0) * noise
    up = np.where(np.arange(200) < 60, 100.0, 300.0) * noise
    late = np.where(np.arange(200) < 180, 300.0, 100.0) * noise
    assert _changepoint_end(down, 5, 3.0, 0.05, 10) == 60
    assert _changepoint_end(up, 5, 3.0, 0.05, 10) is None
    assert _changepoint_end(late, 5, 3.0, 0.05, 10) is None


@pytest.mark.parametrize("kind", ["latency", "throughput"])
def test_the_warmup_curve_finds_a_linear_ramp_end_in_either_domain(kind: str) -> None:
    """A ramp that ends at 40 of 120 windows, linear in latency (a JIT: throughput its
    reciprocal) or in throughput (latency its reciprocal), 5 % noise: the fitted curve
    enters ±5 % of its level within 10 % of where the noise-free series does."""
    from toolkit.analyze.warmup_curve import fit_warmup_curve

    rng = np.random.default_rng(9)
    t = np.arange(120, dtype=np.float64)
    u = np.clip(1 - t / 40, 0, None)
    latency = 1 + 2 * u if kind == "latency" else 1 / (1 - 2 / 3 * u)
    truth = int(np.flatnonzero(np.abs(latency / latency[-1] - 1) > 0.05)[-1] + 1)
    curve = fit_warmup_curve(50 * latency * (1 + 0.05 * rng.standard_normal(120)))
    assert curve is not None and curve.start > curve.level
    assert abs(curve.band_entry - truth) <= 0.1 * truth, (curve, truth)


def _windows_verdict(
    counts: np.ndarray, latency: np.ndarray, threads: float | None = None
) -> LabelLoad:
    """``analyze_windows`` on per-second ``counts`` and mean ``latency`` (ms), with a
    constant thread count where given."""
    import polars as pl

    columns = {"w": np.arange(counts.size), "n": counts, "mean_ms": latency}
    if threads is not None:
        columns["threads"] = np.full(counts.size, threads)
    return analyze_windows(
        "ALL", pl.DataFrame(columns), window_s=1.0, samples=int(counts.sum()), errors=0,
        duration_s=float(counts.size),
    )  # fmt: skip


def _poisson_verdict(counts: np.ndarray, seed: int) -> tuple[str, float | None, float | None]:
    """``analyze_windows`` on per-second ``counts`` with a flat, noisy mean latency."""
    rng = np.random.default_rng(10_000 + seed)
    latency = 20 + 10 * rng.standard_normal(counts.size) / np.sqrt(np.maximum(counts, 1))
    res = _windows_verdict(counts, latency, threads=10.0)
    return res.warmup.status, res.warmup.end_s, res.cooldown_s


@pytest.mark.slow
def test_flat_poisson_runs_rarely_read_as_a_warmup_or_cooldown() -> None:
    """200 flat 600 s runs, Poisson counts at 30 and 100/s: MSER's transient is the most
    different start of all it tried, and tested at z = 3 as if it were the only one it
    read 6 of them as a warm-up ending at 6–51 s. Against the largest of those
    differences (``selection_z``) at most 2 of 200 (1 measured: a warm-up ending at 21 s
    at 30/s)."""
    wrong = []
    for rate in (30.0, 100.0):
        for seed in range(100):
            counts = np.random.default_rng(seed).poisson(rate, 602).astype(np.float64)
            status, end_s, cooldown_s = _poisson_verdict(counts, seed + int(rate))
            if status != "flat" or cooldown_s is not None:
                wrong.append((rate, seed, status, end_s, cooldown_s))
    assert len(wrong) <= 2, wrong


def test_selection_z_is_the_largest_of_its_splits_at_one_percent() -> None:
    """``selection_z`` on iid normal series: the largest difference between a start of
    1..m/2 of 60 batches and the rest, in standard errors of the start's mean (what
    MSER's choice is drawn from), exceeds z = 3 in over 10 % of 2,000 series and
    ``selection_z`` in 4.1 %: more than the 1 % it is set for, because this statistic
    leaves out the rest's own error and the bridge approximation is for a continuum of
    splits; MSER's choice and the 5 % effect floor make the verdicts' rate lower (the
    test above)."""
    from toolkit.analyze.timeseries import selection_z

    rng = np.random.default_rng(5)
    batches = 60
    critical = selection_z(3.0, batches, 0.5)
    assert 3.3 < critical < 3.9
    x = rng.standard_normal((2000, batches))
    largest = np.zeros(2000)
    for d in range(1, batches // 2 + 1):
        pre, post = x[:, :d].mean(axis=1), x[:, d:]
        se = post.std(axis=1, ddof=1) / np.sqrt(d)
        largest = np.maximum(largest, np.abs(pre - post.mean(axis=1)) / se)
    assert float((largest > 3.0).mean()) > 0.10
    assert float((largest > critical).mean()) < 0.06
    # the approximation itself, on the statistic it is for (the difference in its own
    # standard errors, σ known): 0.55 % beyond the 1 % point (a continuum of splits
    # crosses more often than 30 of them)
    sums = x.cumsum(axis=1)
    total = sums[:, -1]
    bridge = np.zeros(2000)
    for d in range(1, batches // 2 + 1):
        diff = sums[:, d - 1] / d - (total - sums[:, d - 1]) / (batches - d)
        bridge = np.maximum(bridge, np.abs(diff) / np.sqrt(1 / d + 1 / (batches - d)))
    assert 0.002 <= float((bridge > critical).mean()) <= 0.015


def test_rare_huge_samples_make_no_warmup() -> None:
    """Flat 600 s runs at 20 and 50/s of ~20 ms samples, 0.1 % of them ~30 s (timeouts,
    GC pauses): a window holding one has a mean latency of ~1,500 ms, and MSER cut the
    latency series after a stretch where they fell more densely, "warm-up ends 36 s",
    "181 s", "206 s" (3 of 30). A warm-up is a run of batches off the level: the start's
    median batch must differ from the rest's (``_transient_is_sustained``): none now."""
    warmups = []
    for rate in (20, 50):
        for seed in range(15):
            rng = np.random.default_rng(seed)
            starts = np.sort(rng.uniform(0, 600, rng.poisson(rate * 600)))
            huge = rng.random(starts.size) < 0.001
            elapsed = np.where(
                huge, 30000 * np.exp(rng.normal(0, 0.3, starts.size)),
                20 * np.exp(rng.normal(0, 0.2, starts.size)),
            )  # fmt: skip
            second = np.floor(starts + elapsed / 1000).astype(int)
            counts = np.bincount(second).astype(np.float64)
            latency = np.bincount(second, weights=elapsed) / np.where(counts > 0, counts, np.nan)
            res = _windows_verdict(counts, latency)
            if res.warmup.status == "warmup":
                warmups.append((rate, seed, res.warmup.end_s, res.warmup.decided_by))
    assert warmups == []
