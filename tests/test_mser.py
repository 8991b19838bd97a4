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


def test_a_minimum_at_the_last_truncation_tried_is_inconclusive_for_every_length() -> None:
    """A pure ramp has its MSER minimum at the largest truncation tried, whatever n is.
    The cap was checked as d* ≥ n/2 − batch in observations, but the truncations tried
    stop at (⌊m/2⌋ − 1)·batch: for n = 101, 104, 105, 478 the pinned d* (45, 45, 45, 230)
    fell below that, and a ramp read as a transient ending there."""
    for n in range(10, 600):
        result = mser(np.arange(n, dtype=float))
        m = n // 5
        assert result.truncation == 5 * (max(1, m // 2) - 1), n
        assert result.inconclusive, n


def test_a_minimum_before_the_cap_is_conclusive() -> None:
    rng = np.random.default_rng(3)
    for n in (101, 104, 105, 478, 500):
        x = rng.normal(10, 1, n) + np.where(np.arange(n) < n // 5, 8.0, 0.0)
        assert not mser(x).inconclusive, n
