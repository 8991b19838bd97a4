"""Student t quantiles and Kendall's trend test for the load analysis, without scipy.

``scipy.stats`` costs 0.7-1.1 s of CPU and 59-72 MiB to import (issue 20: 25-40 % of a
``warmup load --db`` on 3-4M rows), and ``scipy.special`` still ~0.11 s and 26 MiB (most of
it scipy's array-API layer): 8 % of a ``warmup load FILE`` of a 0.9M-sample real run. The
analysis needs two functions, computed here with the standard library and numpy:

- the t quantile of its confidence intervals: Newton's method on the t distribution's tail,
  ``½ I_x(ν/2, ½)``, the regularized incomplete beta function by its continued fraction
  (modified Lentz; Press et al., *Numerical Recipes*, 3rd ed., §6.4), started from and,
  for ν ≥ 10⁴, given by the Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5);
  closed forms for ν = 1 and 2. Within 1e-12 of the exact quantile (mpmath, 40 digits:
  tests/test_distributions.py), where ``scipy.special.stdtrit`` is off by up to 4e-4 near
  the median;
- the p-value of Kendall's tau in its trend test, as ``scipy.stats.kendalltau`` computes it
  (exact without ties, else the normal approximation with the tie correction).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

#: ``scipy.stats.kendalltau``'s ``method='auto'``: the exact p-value up to this many values
#: (without ties)
KENDALL_EXACT_MAX_N = 33


_NORMAL = NormalDist()
_LN_SQRT_PI = 0.5 * math.log(math.pi)
#: from this many degrees of freedom, the Cornish-Fisher expansion in 1/df to the fourth
#: power (Abramowitz & Stegun 26.7.5) is exact to double precision
_EXPANSION_DF = 1e4


def _half_gamma_ratio_log(a: float) -> float:
    """ln(Γ(a + ½) / Γ(a)), a > 0: by lgamma for small a, else by Stirling's series
    (whose terms cancel there without the rounding of two large lgamma values)."""
    if a < 20:
        return math.lgamma(a + 0.5) - math.lgamma(a)

    def series(z: float) -> float:
        z2 = z * z
        return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * z2)) / z2) / z2) / z2) / z

    return 0.5 * math.log(a) + (a * math.log1p(0.5 / a) - 0.5) + series(a + 0.5) - series(a)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified
    Lentz), which converges fast for x < (a + 1) / (a + b + 2)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return h


def _t_tails(t: float, df: float) -> tuple[float, float]:
    """(P(T > t), P(0 < T < t)) for t ≥ 0, each computed where it is accurate (the other
    as ½ minus it): ½ I_x(df/2, ½) with x = df / (df + t²), and ½ I_y(½, df/2), y = 1 - x."""
    a = 0.5 * df
    t2 = t * t
    x, y = df / (df + t2), t2 / (df + t2)
    if x == 0.0 or y == 0.0:
        return (0.0, 0.5) if x == 0.0 else (0.5, 0.0)
    log_x = math.log1p(-y) if y < 0.5 else math.log(x)
    # x^a y^½ / B(a, ½), with B(a, ½) = √π Γ(a) / Γ(a + ½)
    front = math.exp(a * log_x + 0.5 * math.log(y) - _LN_SQRT_PI + _half_gamma_ratio_log(a))
    if x < (a + 1.0) / (a + 2.5):
        tail = 0.5 * front * _beta_fraction(a, 0.5, x) / a
        return tail, 0.5 - tail
    center = front * _beta_fraction(0.5, a, y)  # ½ I_y(½, a) = ½ front · cf / ½
    return 0.5 - center, center


def _t_density(t: float, df: float) -> float:
    """The t distribution's density at ``t``."""
    a = 0.5 * df
    log = (
        _half_gamma_ratio_log(a)
        - _LN_SQRT_PI
        - 0.5 * math.log(df)
        - (a + 0.5) * math.log1p(t * t / df)
    )
    return math.exp(log)


def _expansion(z: float, df: float) -> float:
    """The t quantile of the normal quantile ``z`` to the fourth power of 1/df (A&S 26.7.5)."""
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``df`` > 0, not
    necessarily whole: Welch-Satterthwaite), as ``scipy.stats.t.ppf(p, df)``: ±inf at
    ``p`` 0 and 1, NaN outside [0, 1] or for ``df`` ≤ 0."""
    if math.isnan(p) or math.isnan(df) or not 0 <= p <= 1 or not df > 0:
        return math.nan
    if p in (0.0, 1.0):
        return math.copysign(math.inf, p - 0.5)
    if p == 0.5:
        return 0.0
    q = 1.0 - p if p > 0.5 else p  # the upper tail P(T > t) of t = |quantile|
    sign = 1.0 if p > 0.5 else -1.0
    half = abs(p - 0.5)  # exact, as q is: the two are computed where each is accurate
    if df == 1:  # Cauchy
        return sign * (math.tan(math.pi * half) if q > 0.25 else 1.0 / math.tan(math.pi * q))
    if df == 2:
        return sign * 2.0 * half / math.sqrt(2.0 * q * (1.0 - q))
    z = -_NORMAL.inv_cdf(q)
    start = _expansion(z, df)
    if df >= _EXPANSION_DF:
        return sign * start
    # Newton's method on the tail (far from the centre) or on P(0 < T < t) (near it, where
    # the tail is close to ½ and loses the digits of the difference), kept inside a bracket
    # [lo, hi]: a step out of it bisects (heavy tails at small df)
    center_side = q > 0.25
    target = half if center_side else -q  # of the value below, which increases with t
    lo, hi = 0.0, math.inf
    t = start if start > 0 else 1.0
    for _ in range(200):
        tail, center = _t_tails(t, df)
        value = center if center_side else -tail
        if value < target:
            lo = t
        elif value > target:
            hi = t
        else:
            break
        density = _t_density(t, df)
        nxt = t + (target - value) / density if density > 0 else math.nan
        if not lo < nxt < hi:  # NaN included
            nxt = 0.5 * (lo + hi) if math.isfinite(hi) else 2.0 * t
        done = abs(nxt - t) <= 4e-16 * t
        t = nxt
        if done:
            break
    return sign * t


def kendall_trend_pvalue(values: npt.ArrayLike) -> float:
    """Two-sided p-value of Kendall's tau between the position of each value (0, 1, …)
    and the value: the Mann-Kendall test for a monotonic trend (Kendall, *Rank
    Correlation Methods*, 4th ed., 1970), as ``scipy.stats.kendalltau(arange(n),
    values).pvalue``: exact (Kendall's recurrence for the number of permutations with
    ``c`` inversions) without ties and for at most :data:`KENDALL_EXACT_MAX_N` values or
    at most one discordant or concordant pair, else the normal approximation of
    ``S = concordant − discordant`` with the variance corrected for ties. NaN when every
    value is the same (or fewer than two values)."""
    y = np.asarray(values, dtype=np.float64).ravel()
    n = int(y.size)
    if n < 2:
        return math.nan
    total = n * (n - 1) // 2
    # positions never tie: a pair is concordant when the later value is larger
    upper = np.triu_indices(n, k=1)
    signs = np.sign(y[upper[1]] - y[upper[0]])
    discordant = int(np.count_nonzero(signs < 0))
    s = int(signs.sum())
    _, counts = np.unique(y, return_counts=True)
    counts = counts[counts > 1].astype(np.int64)
    tied_pairs = int((counts * (counts - 1) // 2).sum())
    if tied_pairs == total:
        return math.nan
    if tied_pairs == 0 and (n <= KENDALL_EXACT_MAX_N or min(discordant, total - discordant) <= 1):
        return _kendall_exact_p(n, total - discordant)
    m = n * (n - 1.0)
    tie_term = int((counts * (counts - 1.0) * (2 * counts + 5)).sum())
    variance = (m * (2 * n + 5) - tie_term) / 18
    z = s / math.sqrt(variance)
    # 2 Φ(-|z|) = erfc(|z| / √2)
    return math.erfc(abs(z) / math.sqrt(2.0))


def _kendall_exact_p(n: int, concordant: int) -> float:
    """Two-sided exact p-value of ``concordant`` concordant pairs among ``n`` untied
    values: twice the lower tail of the number of inversions of a random permutation,
    by Kendall's recurrence (as ``scipy.stats._mstats_basic._kendall_p_exact``)."""
    c = min(concordant, n * (n - 1) // 2 - concordant)
    if n <= 2:
        return 1.0
    if c == 0:
        return 2.0 / math.factorial(n) if n < 171 else 0.0
    if c == 1:
        return 2.0 / math.factorial(n - 1) if n < 172 else 0.0
    if 4 * c == n * (n - 1):
        return 1.0
    # counts[k]: permutations of j values with k inversions (k ≤ c), j = 2, 3, …, n;
    # divided by j each step for large n, where n! overflows a float
    counts = np.zeros(c + 1)
    counts[0:2] = 1.0
    for j in range(3, n + 1):
        counts = np.cumsum(counts) if n < 171 else np.cumsum(counts) / j
        if j <= c:
            counts[j:] -= counts[: c + 1 - j]
    prob = 2.0 * float(np.sum(counts)) / math.factorial(n) if n < 171 else float(np.sum(counts))
    return min(max(prob, 0.0), 1.0)
