"""MSER-5 truncation point for the initial transient (research/warmup-science.md §8.8).

White 1997 (Simulation 69(6)); White, Cobb & Spratt 2000 (WSC); Franklin & White 2008 (WSC).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: Relative size (to Σ z²) below which a retained part's sum of squares is taken as 0.
REL_NOISE = 1e-12


@dataclass(frozen=True)
class MserResult:
    """Where MSER puts the end of the warm-up.

    ``truncation`` is d* in original observations (a multiple of ``batch``): the first
    ``truncation`` points are the transient. ``curve[j]`` is MSER(j·batch) over batch
    means. ``inconclusive`` is True when d* is the largest truncation tried
    ((⌊max_frac·m⌋ − 1)·batch for m batches: MSER is pinned at its cap, so the transient
    may go on past it), or when there are fewer than 2 batches.
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
    # centred first: S2 − S1²/k cancels catastrophically when the batch means are
    # (nearly) equal, and the rounding residue (~1e-18 on a constant series) then decided
    # the argmin, at random, often at the n/2 cap ("inconclusive" on a flat series)
    zc = z - float(z.mean())
    # suffix sums: S1[d] = Σ_{j>=d} zc_j, S2[d] = Σ_{j>=d} zc_j²
    s1 = np.cumsum(zc[::-1])[::-1]
    s2 = np.cumsum((zc * zc)[::-1])[::-1]
    scale = np.cumsum((z * z)[::-1])[::-1]
    max_d = max(1, int(np.floor(max_frac * m)))
    d = np.arange(max_d)
    k = (m - d).astype(np.float64)
    sse = s2[d] - s1[d] * s1[d] / k
    # a sum of squares below REL_NOISE of Σz² (batch means equal to ~6 significant
    # digits) is rounding, not variance: it counts as 0, so such truncations tie and the
    # earliest wins
    sse = np.where(sse <= REL_NOISE * scale[d], 0.0, sse)
    curve = sse / (k * k)
    best = int(np.argmin(curve))  # first of equal minima
    truncation = best * batch
    # pinned at the cap: the minimum is at the last truncation tried, so a later one
    # (not tried) may be lower still. Compared with the cap in observations
    # (d* ≥ max_frac·n − batch) this missed every run whose m is odd or whose n is no
    # multiple of the batch (a pure ramp of 101 points was a "transient" ending at 45)
    inconclusive = best == max_d - 1
    return MserResult(truncation, batch, curve, inconclusive, n)
