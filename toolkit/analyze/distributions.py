"""Student t quantiles and Kendall's trend test from ``scipy.special``, for the load analysis.

``scipy.stats`` costs 0.7-1.1 s of CPU and 59-72 MiB to import (issue 20: 25-40 % of a
``warmup load --db`` on 3-4M rows), for two functions the load analysis needs: the t
quantile of its confidence intervals and the p-value of Kendall's tau in its trend test.
Both are a few lines over ``scipy.special`` (0.16 s of CPU and 26 MiB after numpy, where
``scipy.stats`` took 0.69 s and 72 MiB in the same run), computed as ``scipy.stats``
computes them (scipy 1.17: ``t.ppf`` is ``special.stdtrit``; ``kendalltau``'s p-value is
Kendall's exact distribution without ties, else its normal approximation with the tie
correction), so every figure stays the same (tests/test_distributions.py: to 1e-12).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy import special

#: ``scipy.stats.kendalltau``'s ``method='auto'``: the exact p-value up to this many values
#: (without ties)
KENDALL_EXACT_MAX_N = 33


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``df`` > 0, not
    necessarily whole: Welch-Satterthwaite), as ``scipy.stats.t.ppf(p, df)``."""
    return float(special.stdtrit(df, p))


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
    return float(2 * special.ndtr(-abs(z)))


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
