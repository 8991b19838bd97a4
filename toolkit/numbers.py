"""Numbers as people read them, shared by the HTML report and the CLI tables.

No plotly or polars here: ``warmup load`` and ``warmup compare`` import it at print time.
Never scientific notation (``2.178e+04`` hides digits a reader compares against JMeter's
own dashboard): plain digits with thousands separators.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

__all__ = [
    "error_pct_above",
    "error_pct_text",
    "fmt_error_pct",
    "fmt_interval",
    "fmt_num",
    "fmt_ratio",
]


def fmt_num(value: float | None, *, sig: int = 3, integer_from: float = 100.0) -> str:
    """A latency (ms) or a rate (/s, KB/s) as plain digits: whole numbers with thousands
    separators from ``integer_from`` up (``21,782``), at most ``sig`` significant digits
    below, trailing zeros dropped (``12.3``, ``0.027``, ``28`` for 28.0 ms); ``–`` when
    missing or not finite."""
    if value is None or not math.isfinite(value):
        return "–"
    if value == 0:
        return "0"
    if abs(value) < integer_from:
        # round to sig digits first: 99.96 becomes 100, shown as a whole number
        value = float(f"{value:.{sig}g}")
    if abs(value) >= integer_from:
        return f"{value:,.0f}"
    decimals = max(0, sig - 1 - math.floor(math.log10(abs(value))))
    return _trimmed(f"{value:,.{decimals}f}")


def _trimmed(text: str) -> str:
    """``28.0`` → ``28``, ``0.0270`` → ``0.027``: zeros after the point say nothing."""
    return text.rstrip("0").rstrip(".") if "." in text else text


def fmt_ratio(value: float | None) -> str:
    """A ratio B/A with three decimals (``0.996``, ``1.004``): ratios near 1 are told apart
    by their decimals, so no significant-digit rounding (``.3g`` printed 1.004 as ``1``)."""
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:,.3f}"


def fmt_interval(
    value: float,
    lo: float,
    hi: float,
    *,
    number: Callable[[float], str] = fmt_num,
) -> str:
    """A point estimate with its confidence interval: ``1,234 ± 12`` when the interval is
    symmetric as shown (both half-widths print alike), else ``0.027 (0–0.0818)`` — a
    batch-means interval clamped at 0 is not symmetric, and ``±`` would claim it reaches
    below 0."""
    fmt = number
    below, above = value - lo, hi - value
    if math.isfinite(below) and math.isfinite(above) and below >= 0 and above >= 0:
        half = (hi - lo) / 2
        if fmt_num(below, sig=2, integer_from=1e4) == fmt_num(above, sig=2, integer_from=1e4):
            return f"{fmt(value)} ± {fmt_num(half, sig=2, integer_from=100)}"
    return f"{fmt(value)} ({fmt(lo)}–{fmt(hi)})"


def _pct_number(pct: float) -> float:
    """An error percentage rounded as shown: 2 significant digits below 10 %, whole above."""
    if pct == 0:
        return 0.0
    if pct >= 10:
        return float(round(pct))
    return float(f"{pct:.2g}")


def fmt_error_pct(rate: float | None) -> str:
    """An error rate (fraction) as a percentage a reader can compare with a threshold, 2
    significant digits below 10 %, whole above:
    ``0.01%`` for 1 in 10,000 (never ``0%`` for a non-zero rate), ``1.2%``, ``35%``."""
    if rate is None or not math.isfinite(rate):
        return "–"
    return error_pct_text(rate * 100)


def error_pct_text(pct: float) -> str:
    """An error percentage (0–100) as :func:`fmt_error_pct` shows it."""
    shown = _pct_number(pct)
    if shown == 0 or shown >= 10:
        return f"{shown:.0f}%"
    decimals = max(0, 1 - math.floor(math.log10(shown)))
    return _trimmed(f"{shown:.{decimals}f}") + "%"


def error_pct_above(rate: float | None, threshold_pct: float) -> bool:
    """Whether the error rate *as shown* is above ``threshold_pct`` (1.2 % is above 1 %,
    0.90 % and 1.0 % are not): the colour agrees with the text."""
    if rate is None or not math.isfinite(rate):
        return False
    return _pct_number(rate * 100) > threshold_pct


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 spike``, ``3 spikes``; ``many`` for irregular plurals."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def name_list(names: Sequence[str], limit: int = 3) -> str:
    """``Q1, Q2, Q3 and 4 more``."""
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
