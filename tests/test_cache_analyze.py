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
