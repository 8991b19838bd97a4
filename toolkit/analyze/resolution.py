"""Timer resolution of a series of run times, and the smallest effect worth a finding.

A difference below what the timer resolves is not a finding: ClickBench rounds run times to
1 ms (``research/clickbench.md``), so a 0.0005 s vs 0.0003 s pair is noise, not a 1.7x
warm-up. Every rule that compares run times takes the resolution of its series.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

#: Declared resolution of a format's run times, seconds (ClickBench prints seconds rounded to
#: the ms by its scripts; a result may still carry more digits, which are not trusted).
FORMAT_RESOLUTION_S: dict[str, float] = {"clickbench": 0.001}

#: Default minimum absolute effect of a per-query finding, seconds: 10 ms ...
MIN_EFFECT_S = 0.010
#: ... or this many resolution steps, whichever is larger.
MIN_EFFECT_STEPS = 10


def series_resolution(values: Iterable[float], declared: float | None = None) -> float:
    """The resolution of a series, seconds: the smallest step between distinct finite
    values, or ``declared`` (the format's) when that is coarser. 0.0 for a series with
    fewer than two distinct values and nothing declared (no step is seen)."""
    distinct = sorted({float(v) for v in values if math.isfinite(float(v))})
    steps = [b - a for a, b in itertools.pairwise(distinct) if b - a > 0]
    # a floating-point step such as 0.0010000000000000009 is the ms it prints as
    seen = round(min(steps), 12) if steps else 0.0
    return max(seen, declared or 0.0)


def min_effect_s(resolution: float, floor_s: float = MIN_EFFECT_S) -> float:
    """The smallest absolute difference (seconds) a per-query finding reports:
    ``max(floor_s, MIN_EFFECT_STEPS × resolution)``."""
    return max(floor_s, MIN_EFFECT_STEPS * max(resolution, 0.0))


def resolved(a: float, b: float, resolution: float) -> bool:
    """True when ``a`` and ``b`` differ by more than one resolution step, so their ratio
    or relative gap means something."""
    return abs(a - b) > resolution and max(abs(a), abs(b)) > resolution
