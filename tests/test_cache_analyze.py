"""The pure cache analyzer on synthetic series with known answers."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from toolkit.analyze.cache import attribute_time, cache_series, fit_curves, run_io


def test_geometric_series_recovers_t_inf_and_tau() -> None:
    q = math.exp(-1 / 1.5)  # τ = 1.5 runs
    t = [10.0 + 90.0 * q ** (k - 1) for k in range(1, 9)]
    fits = fit_curves(t)
    best = fits[0]
    assert best.model == "geometric"
    assert best.t_inf_s == pytest.approx(10.0, rel=1e-3)
    assert best.tau_runs == pytest.approx(1.5, rel=1e-3)
    # k_ε: |t_k − t∞| ≤ 2 % of t∞ once 90·q^(k−1) ≤ 0.2 → k ≥ 1 + 1.5·ln(450) = 10.2
    assert best.k_eps == 11


def test_step_series_prefers_step_and_power_series_prefers_power() -> None:
    rng = np.random.default_rng(1)
    step = [100.0, *(10.0 + rng.normal(0, 0.2, 7))]
    assert fit_curves(step)[0].model == "step"
    power = [5.0 + 50.0 * k**-0.7 for k in range(1, 11)]
    best = fit_curves(power)[0]
    assert best.model == "power"
    assert best.beta == pytest.approx(0.7, rel=1e-2)


def test_fit_minimum_runs() -> None:
    assert {f.model for f in fit_curves([3.0, 1.0, 1.0])} == {"step"}
    assert {f.model for f in fit_curves([4.0, 2.0, 1.5, 1.2])} == {"step", "geometric"}


def test_attribution_recovers_per_byte_costs() -> None:
    remote = np.array([100e9, 60e9, 30e9, 10e9, 5e9, 5e9])
    local = np.array([0.0, 30e9, 50e9, 60e9, 62e9, 63e9])
    t = 2.0 + remote / 250e6 + local / 5e9
    att = attribute_time(t.tolist(), remote.tolist(), local.tolist())
    assert att is not None
    assert 1 / att.s_per_remote_byte == pytest.approx(250e6, rel=1e-6)
    assert 1 / att.s_per_local_byte == pytest.approx(5e9, rel=1e-6)
    assert att.intercept_s == pytest.approx(2.0, abs=1e-6)
    assert att.r_squared == pytest.approx(1.0)
    assert attribute_time(t[:4].tolist(), remote[:4].tolist(), local[:4].tolist()) is None


def test_jit_residual_trend_is_flagged() -> None:
    # time keeps falling by run while the bytes stay put: not the cache
    remote = [50e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9]
    local = [0.0, 49e9, 49e9, 49e9, 49e9, 49e9, 49e9]
    t = [200.0 + 30, 14.0 + 12, 14.0 + 9, 14.0 + 6, 14.0 + 4, 14.0 + 2, 14.0]
    att = attribute_time(t, remote, local)
    assert att is not None and att.residual_trend is not None and att.residual_trend < -0.7


def test_rate_fallbacks_and_one_second_rule() -> None:
    frame = pl.DataFrame(
        {
            "run": [1, 2, 3],
            "elapsed_s": [100.0, 10.0, 0.5],
            "bytes_remote": [100e9, 50e9, 0.0],
            "bytes_local": [0.0, 50e9, 1e9],
        }
    )
    runs = run_io(frame)
    # no shares: a run ≥ 90 % one tier gets bytes / elapsed, a lower bound
    assert runs[0].remote_rate == pytest.approx(1e9) and runs[0].rate_basis == "elapsed"
    assert runs[1].remote_rate is None and runs[1].local_rate is None  # 50/50: not assignable
    assert runs[2].local_rate is None  # 0.5 s of I/O: under the 1-s rule


def test_result_cache_hits_are_excluded() -> None:
    frame = pl.DataFrame(
        {
            "run": [1, 2, 3, 4],
            "elapsed_s": [10.0, 0.07, 2.0, 2.0],
            "result_cache_hit": [False, True, False, False],
        }
    )
    s = cache_series(frame, series="q")
    assert s.excluded_runs == (2,)
    assert [r.run for r in s.runs] == [1, 3, 4]
    assert s.speedup == pytest.approx(5.0)


def test_findings() -> None:
    from toolkit.analyze.cache import cache_findings

    frame = pl.DataFrame(
        {
            "run": [1, 2, 3, 4, 5, 6],
            "elapsed_s": [100.0, 0.07, 40.0, 20.0, 10.0, 5.0],
            "result_cache_hit": [False, True, False, False, False, False],
        }
    )
    rules = {f.rule: f for f in cache_findings(cache_series(frame, series="q"))}
    assert "USE_CACHED_RESULT = FALSE" in rules["cache.result-cache"].advice
    assert "not settled within 5 runs" in rules["cache.not-warm"].message


# -- verdicts that follow the data (issue 16 item 5) -------------------------------------


def _series(
    elapsed: list[float],
    remote_gb: list[float] | None = None,
    local_gb: list[float] | None = None,
    *,
    start_s: list[float] | None = None,
    run: list[int] | None = None,
):  # type: ignore[no-untyped-def]
    cols: dict[str, list[float] | list[int]] = {
        "run": run or list(range(1, len(elapsed) + 1)),
        "elapsed_s": elapsed,
    }
    if remote_gb is not None and local_gb is not None:
        cols["bytes_remote"] = [v * 1e9 for v in remote_gb]
        cols["bytes_local"] = [v * 1e9 for v in local_gb]
    if start_s is not None:
        cols["start_epoch_s"] = start_s
    return cache_series(pl.DataFrame(cols), series="q")


def test_warming_series_gets_warm_from_run_k_capacity_and_fit() -> None:
    """A geometric warm-up over 6 runs; the truth: the local share (local / (remote +
    local)) stays within 2 % of its final level from run 4, every run from 4 on is faster
    than run 1 and reads more locally, and the local bytes plateau at 60 GB."""
    from toolkit.analyze.cache import cache_findings

    local = [1.0, 40.0, 55.0, 60.0, 60.0, 60.0]
    remote = [79.0, 40.0, 25.0, 20.0, 20.0, 20.0]
    elapsed = [2.0 + r * 4 + v * 0.2 for r, v in zip(remote, local, strict=True)]
    shares = [v / (v + r) for r, v in zip(remote, local, strict=True)]
    final = float(np.median(shares[-3:]))
    k = next(i + 1 for i in range(6) if all(abs(s - final) <= 0.02 * final for s in shares[i:]))
    assert k == 4
    s = _series(elapsed, remote, local)
    assert (s.verdict, s.runs_to_warm, s.settled_from) == ("warming", k, k)
    assert s.verdict_note.startswith(f"warm from run {k}: runs {k}–6 are faster")
    assert s.capacity_bytes == 60_000_000_000
    assert s.fit is not None and s.fit_note == ""
    assert s.fit.t_inf_s == pytest.approx(elapsed[-1], rel=0.1)
    (warm,) = [f for f in cache_findings(s) if f.rule == "cache-warmup"]
    assert warm.severity == "warning" and f"warm from run {k}" in warm.message
    assert "discard the first 3 runs" in warm.advice
    # effect: the seconds runs 1..k-1 took beyond the warm level
    warm_s = float(np.median(elapsed[-3:]))
    assert warm.numbers["effect"] == pytest.approx(sum(t - warm_s for t in elapsed[: k - 1]))


def test_evicted_run_is_a_cold_run_not_a_warm_up() -> None:
    """Warm, warm, then after an 80-min pause a run at 5 % local that takes 6x longer:
    cold (evicted); no warm-from, no capacity, no fit, and the JSON-facing notes say why."""
    from toolkit.analyze.cache import cache_findings

    start = [0.0, 60.0, 120.0, 120.0 + 80 * 60]
    s = _series([10.0, 9.8, 9.9, 60.0], [5, 4, 4, 95], [95, 96, 96, 5], start_s=start)
    assert s.verdict == "evicted" and s.runs_to_warm is None
    (e,) = s.evicted
    assert (e.run, e.previous_run, e.since_previous_s) == (4, 3, 80 * 60)
    assert (e.local_share, e.previous_local_share) == (0.05, 0.96)
    assert s.capacity_bytes is None and s.capacity_note.endswith("run 4 was a cold (evicted) run")
    assert s.fit is None and s.fits == () and "run 4 was a cold" in s.fit_note
    (f,) = cache_findings(s)
    assert f.rule == "cache.evicted" and f.numbers["effect"] == pytest.approx(50.1)
    assert f.message == (
        "run 4 read 5 % locally (run 3: 96 %) and took 1m (run 3: 9.9s): "
        "the cache was cold again 80 min after run 3 started"
    )
    # without start times the same runs are still a cold run, with no time given
    s = _series([10.0, 9.8, 9.9, 60.0], [5, 4, 4, 95], [95, 96, 96, 5])
    assert s.verdict == "evicted"
    assert cache_findings(s)[0].message.endswith("the cache was cold again since the run before")


def test_runs_are_read_in_start_time_order() -> None:
    """Stored (ingest) order warm-then-cold, start times cold-then-warm: renumbered by
    start time, the series warms; any missing start time keeps the stored order."""
    from toolkit.analyze.cache import cache_findings

    args = ([19.3, 253.6], [2.9, 170.8], [168.2, 0.007])
    s = _series(*args, start_s=[5000.0, 0.0])
    assert s.ordered_by == "start_time"
    assert [r.elapsed_s for r in s.runs] == [253.6, 19.3] and [r.run for r in s.runs] == [1, 2]
    assert [r.start_epoch_s for r in s.runs] == [0.0, 5000.0]
    assert s.verdict == "warming" and s.runs_to_warm == 2
    (warm,) = cache_findings(s)
    assert warm.rule == "cache-warmup" and "discard run 1 before" in warm.advice
    # two runs: warm from run 2, but no capacity and no curve from a 2-run "trend"
    assert s.capacity_bytes is None and "at least 3 runs" in s.capacity_note
    assert s.fit is None and "at least 3 runs" in s.fit_note
    s = _series(*args)
    assert s.ordered_by == "run" and s.verdict == "evicted"


def test_no_warm_up_when_later_runs_are_slower_or_not_more_local() -> None:
    from toolkit.analyze.cache import cache_findings

    # a time-only series getting slower (the real Snowflake 217a094fef29: 0.1 s, 0.5 s)
    s = _series([0.1, 0.5])
    assert s.verdict == "no-warm-up" and s.runs_to_warm is None and s.fit is None
    assert s.verdict_note.startswith("run 2 is slower than run 1 (0.1s → 0.5s)")
    (f,) = cache_findings(s)
    assert f.rule == "cache.no-warm-up" and f.numbers["effect"] == pytest.approx(4.0)
    # faster, but every run reads 50 % locally: not the cache
    s = _series([30.0, 10.0, 10.0, 10.0], [50, 50, 50, 50], [50, 50, 50, 50])
    assert s.verdict == "steady"  # the local share is at its level from run 1
    s = _series([30.0, 10.0, 10.0, 10.0], [50, 55, 55, 55], [50, 45, 45, 45])
    assert s.verdict == "no-warm-up" and "not the cache" in s.verdict_note
    assert "JIT" in cache_findings(s)[0].advice
    # more local but not faster: no warm-up to discard
    s = _series([5.0, 6.0, 6.0, 6.0], [90, 30, 1, 1], [1, 60, 90, 90])
    assert s.verdict == "no-warm-up" and s.runs_to_warm is None and s.capacity_bytes is None
