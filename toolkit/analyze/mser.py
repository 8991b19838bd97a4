"""MSER-5 truncation point for the initial transient (research/warmup-science.md §8.8).

White 1997 (Simulation 69(6)); White, Cobb & Spratt 2000 (WSC); Franklin & White 2008 (WSC).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class MserResult:
    """Where MSER puts the end of the warm-up.

    ``truncation`` is d* in original observations (a multiple of ``batch``): the first
    ``truncation`` points are the transient. ``curve[j]`` is MSER(j·batch) over batch
    means. ``inconclusive`` is True when d* lies in the last part of the allowed range
    (d* ≥ max_frac·n − batch), i.e. there is no clear transient or the run is too short.
    """

    truncation: int
    batch: int
    curve: npt.NDArray[np.float64]
    inconclusive: bool
    n: int


def mser(
    values: npt.ArrayLike,
    *,
    batch: int = 5,
    max_frac: float = 0.5,
) -> MserResult:
    """MSER-``batch`` (MSER-5 by default) on a series of observations.

    Batch means ``Z_j`` of ``batch`` consecutive observations (a trailing partial batch is
    dropped); for each candidate truncation ``d`` (in batches, up to ``max_frac`` of the
    batches) ``MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (m − d)²``, computed in O(m) with suffix
    sums; ``d* = argmin``. Units of ``curve`` are the squared units of ``values``.
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = int(x.size)
    m = n // batch
    if m < 2:
        return MserResult(0, batch, np.zeros(0), True, n)
    z = x[: m * batch].reshape(m, batch).mean(axis=1)
    # suffix sums: S1[d] = Σ_{j>=d} z_j, S2[d] = Σ_{j>=d} z_j²
    s1 = np.cumsum(z[::-1])[::-1]
    s2 = np.cumsum((z * z)[::-1])[::-1]
    max_d = max(1, int(np.floor(max_frac * m)))
    d = np.arange(max_d)
    k = (m - d).astype(np.float64)
    sse = s2[d] - s1[d] * s1[d] / k
    curve = np.maximum(sse, 0.0) / (k * k)
    best = int(np.argmin(curve))
    truncation = best * batch
    inconclusive = truncation >= max_frac * n - batch
    return MserResult(truncation, batch, curve, bool(inconclusive), n)
