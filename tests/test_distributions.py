"""The load analysis's t quantiles and Kendall trend test without scipy
(toolkit/analyze/distributions.py, issue 20 item 4): the same values as scipy.stats to
1e-12, the t quantile within 1e-12 of the exact one (mpmath, 40 digits) where scipy is not,
and ``warmup load`` never imports scipy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest
from scipy import stats

from toolkit.analyze.distributions import KENDALL_EXACT_MAX_N, kendall_trend_pvalue, t_quantile

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 7, 19, 20.25, 39, 99, 1000, 123456.7])
@pytest.mark.parametrize("p", [0.5, 0.9, 0.95, 0.975, 0.995, 0.9995, 0.025, 0.1])
def test_t_quantile_equals_scipy_stats(p: float, df: float) -> None:
    want = float(stats.t.ppf(p, df))
    assert t_quantile(p, df) == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    "df", [0.5, 1, 1.5, 2, 3, 4, 4.5, 7, 19, 20.25, 39, 99, 1000, 9999, 10001, 123456.7]
)
def test_t_quantile_is_exact_to_1e_12(df: float) -> None:
    """At the returned t, the exact CDF (the regularized incomplete beta function at 40
    digits) is p: the t of the exact quantile differs by (CDF(t) − p) / density(t), at
    most 1e-12 of t. Near the median ``scipy.special.stdtrit`` is off by up to 4e-4 (its
    t at p = 0.5000001, df = 4: 2.66560e-07 for the exact 2.66667e-07)."""
    with mpmath.workdps(40):
        nu = mpmath.mpf(df)
        for p in (0.5000001, 0.51, 0.6, 0.9, 0.975, 0.995, 0.9999, 1 - 1e-9):
            for prob in (p, 1 - p):
                t = mpmath.mpf(t_quantile(prob, df))
                tail = mpmath.betainc(nu / 2, 0.5, 0, nu / (nu + t * t), regularized=True) / 2
                cdf = 1 - tail if t > 0 else tail
                density = mpmath.gamma((nu + 1) / 2) / (
                    mpmath.sqrt(nu * mpmath.pi) * mpmath.gamma(nu / 2)
                )
                density *= (1 + t * t / nu) ** (-(nu + 1) / 2)
                off = abs((cdf - mpmath.mpf(prob)) / density)
                assert off <= 1e-12 * abs(t), (df, prob, float(t), float(off / abs(t)))
    if df == 4:  # what scipy gives there
        from scipy import special

        exact = t_quantile(0.5000001, 4)
        assert exact == pytest.approx(1e-7 / 0.375, rel=1e-6)
        assert abs(float(special.stdtrit(4, 0.5000001)) / exact - 1) > 1e-4


def _kendall_cases() -> list[np.ndarray]:
    rng = np.random.default_rng(20)
    cases: list[np.ndarray] = []
    for n in (2, 3, 4, 5, 6, 10, 20, KENDALL_EXACT_MAX_N, KENDALL_EXACT_MAX_N + 1, 60, 200):
        cases.append(rng.normal(size=n))  # no ties: exact up to 33, then normal
        cases.append(np.arange(n, dtype=float) + rng.normal(scale=0.3, size=n))  # a trend
        cases.append(np.round(rng.normal(size=n), 1))  # ties: normal with tie correction
        cases.append(np.arange(n, dtype=float)[::-1].copy())  # every pair discordant
    # one discordant pair among many (exact whatever n), a 5-window log with a tie
    cases.append(np.r_[np.arange(50.0), 48.5])
    cases.append(np.array([1200.0, 1210.0, 1210.0, 1190.0, 1250.0]))
    return cases


@pytest.mark.parametrize("values", _kendall_cases(), ids=lambda v: f"n{len(v)}")
def test_kendall_trend_pvalue_equals_scipy_stats(values: np.ndarray) -> None:
    want = float(stats.kendalltau(np.arange(values.size), values).pvalue)
    assert kendall_trend_pvalue(values) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_kendall_trend_pvalue_of_constant_values_is_nan() -> None:
    assert np.isnan(float(stats.kendalltau(np.arange(4), np.ones(4)).pvalue))
    assert np.isnan(kendall_trend_pvalue(np.ones(4)))


@pytest.mark.slow
def test_warmup_load_never_imports_scipy(tmp_path: Path) -> None:
    """A JTL and a summariser log analysed (t intervals, the trend test of the log's
    windows) in one process: no scipy module is among its modules (scipy.stats cost 0.7-1.1
    s of CPU to import, scipy.special 0.11 s)."""
    from toolkit.synthetic import write_jtl

    jtl = tmp_path / "run.jtl"
    write_jtl(jtl, 20_000, duration_s=120.0, warmup_s=20.0, seed=3)
    log = ROOT / "fixtures" / "jmeter" / "recorded_warmup" / "g-never-steady.console.txt"
    code = (
        "import sys, json\nfrom toolkit.cli import app\n"
        "try:\n    app(sys.argv[1:], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('scipy'))),"
        " file=sys.stderr)"
    )
    argv = [sys.executable, "-c", code, "load", str(jtl), str(log), "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert len(payload["suites"]) == 2
    jtl_all, log_all = (suite["labels"][0] for suite in payload["suites"])
    assert jtl_all["throughput"]["steady_ci"] is not None
    assert log_all["warmup_status"] == "no-steady-state"
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
