"""A/B ratios of steady values with confidence intervals (research/warmup-science.md §4.2,
§8.14: Kalibera & Jones 2012/2013; Fieller's theorem for the ratio of two independent
means). Pure: arrays in, dataclasses out."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class RatioCI:
    """``ratio`` = mean(B)/mean(A) with a ``level`` CI; ``lo``/``hi`` None when unbounded
    (Fieller: the denominator mean is not significantly different from 0)."""

    ratio: float
    lo: float | None
    hi: float | None
    level: float
    method: str


def fieller_ratio(
    numerator: npt.ArrayLike, denominator: npt.ArrayLike, *, level: float = 0.95
) -> RatioCI | None:
    """Fieller CI of mean(numerator)/mean(denominator) for independent samples.

    The inputs are batch means (so that they are nearly independent); with means ȳ, x̄ and
    variances of the means V_y, V_x and ``h = t²_{1−α/2, ν}`` (ν = Welch–Satterthwaite):
    ``[ȳx̄ ± sqrt((ȳx̄)² − (x̄² − hV_x)(ȳ² − hV_y))] / (x̄² − hV_x)``, valid when
    x̄² > hV_x (research/warmup-science.md §4.2). None when a side has < 2 values.
    """
    y = np.asarray(numerator, dtype=np.float64)
    x = np.asarray(denominator, dtype=np.float64)
    y, x = y[np.isfinite(y)], x[np.isfinite(x)]
    if y.size < 2 or x.size < 2 or float(x.mean()) == 0.0:
        return None
    my, mx = float(y.mean()), float(x.mean())
    vy, vx = float(y.var(ddof=1)) / y.size, float(x.var(ddof=1)) / x.size
    if vx + vy > 0:
        nu = (vx + vy) ** 2 / (
            (vx**2 / (x.size - 1) if vx else 0.0) + (vy**2 / (y.size - 1) if vy else 0.0)
        )
    else:
        nu = float(x.size + y.size - 2)
    from scipy import stats  # a second to import: only when a ratio is computed

    h = float(stats.t.ppf(0.5 + level / 2, nu)) ** 2
    ratio = my / mx
    denom = mx * mx - h * vx
    disc = (my * mx) ** 2 - denom * (my * my - h * vy)
    if denom <= 0 or disc < 0:
        return RatioCI(ratio, None, None, level, "fieller")
    root = math.sqrt(disc)
    lo, hi = sorted(((my * mx - root) / denom, (my * mx + root) / denom))
    return RatioCI(ratio, lo, hi, level, "fieller")
