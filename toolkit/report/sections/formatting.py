"""Number formatting of the report's tables: seconds, percentages, bytes, rates, cells and tones."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from toolkit.report.model import (
    Cell,
    Tone,
)

if TYPE_CHECKING:
    pass


# -- formatting ---------------------------------------------------------------------------


def fmt_seconds(value: float | None) -> str:
    """Seconds with 3 significant digits and a unit that keeps them readable."""
    if value is None or not math.isfinite(value):
        return "–"
    if value < 0:
        return "−" + fmt_seconds(-value)
    if value == 0:
        return "0 s"
    if value < 1e-3:
        return f"{value * 1e6:.3g} µs"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    if value < 60:
        return f"{value:.3g} s"
    minutes, seconds = divmod(round(value), 60)
    return f"{minutes}m {seconds}s" if minutes < 60 else f"{minutes // 60}h {minutes % 60}m"


def fmt_pct(value: float | None, *, signed: bool = True) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:+.0%}" if signed else f"{value:.0%}"


def fmt_bytes(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} B"


def fmt_rate(value: float | None) -> str:
    return "–" if value is None else f"{fmt_bytes(value)}/s"


def num(value: float | None, fmt: Callable[[float], str] | str) -> Cell:
    """A numeric cell: formatted text, sorting by the raw number; missing shows "–".
    ``fmt`` is a function or a format spec (``".3f"``)."""
    if value is None or not math.isfinite(value):
        return Cell("–", None)
    return Cell(format(value, fmt) if isinstance(fmt, str) else fmt(value), value)


def tone_of(gap: float | None, target: float, tolerance: float | None = None) -> Tone:
    """good within ±target, warn up to ±tolerance (when given and wider), bad beyond,
    neutral when unknown: a gap above the target is never green."""
    if gap is None:
        return ""
    if abs(gap) <= target + 1e-12:
        return "good"
    return "warn" if tolerance is not None and abs(gap) <= tolerance + 1e-12 else "bad"


def slug(*parts: object) -> str:
    """An ASCII id part from indexes (never from untrusted names)."""
    return "-".join(str(p) for p in parts)
