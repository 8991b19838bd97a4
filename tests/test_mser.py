"""MSER-5 (White 1997): truncation on series with and without a transient."""

from __future__ import annotations

import numpy as np

from toolkit.analyze.mser import mser


def _brute_force(z: np.ndarray, max_d: int) -> int:
    scores = [np.sum((z[d:] - z[d:].mean()) ** 2) / (len(z) - d) ** 2 for d in range(max_d)]
    return int(np.argmin(scores))


def test_matches_the_definition_on_random_series() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(20, 400))
        x = rng.normal(10, 1, n) + np.where(np.arange(n) < rng.integers(0, n // 2), 5.0, 0.0)
        result = mser(x)
        m = n // 5
        z = x[: m * 5].reshape(m, 5).mean(axis=1)
        assert result.truncation == 5 * _brute_force(z, max(1, m // 2))


def test_finds_a_known_transient_and_says_flat_runs_have_none() -> None:
    rng = np.random.default_rng(1)
    warm = np.concatenate([np.linspace(30, 10, 100), np.full(900, 10.0)]) + rng.normal(0, 0.5, 1000)
    result = mser(warm)
    assert 80 <= result.truncation <= 120
    assert not result.inconclusive
    flat = rng.normal(10, 0.5, 1000)
    assert mser(flat).truncation < 100
