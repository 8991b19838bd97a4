"""The warm-up curve of a windowed series: least-squares fits of a step, a linear ramp and an
exponential decay into a level, and where the fitted curve enters a band around the level
the run ends at. Pure: arrays in, a dataclass out.

Models (research/warmup-science.md §8.13, the cache model's step and geometric curves, with
a linear ramp for a JIT's slow approach): for a knot τ on a grid, ``y(t) = b + a·g(t)``
with ``g`` = 1 before τ (step), ``max(0, 1 − t/τ)`` (a ramp that ends at τ) or
``exp(−3t/τ)`` (a decay); ``a`` and ``b`` by least squares for each τ in closed form, on
the values and on their reciprocals. The fits are compared by the squared log residuals
(a series and its reciprocal weigh alike there), and the earliest band entry among those
within 2 of the best by Akaike's criterion is taken (:func:`fit_warmup_curve`). A local
test sees the last part of a slow approach only where a few windows alone stand out of
the noise; the fitted curve carries the slope of the whole approach to its end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

#: the models :func:`fit_warmup_curve` tries
CurveModel = Literal["step", "ramp", "exponential"]

#: at most this many points are fitted: longer series are fitted on batch means
MAX_POINTS = 400


@dataclass(frozen=True)
class WarmupCurve:
    """A fitted warm-up curve of a series of ``n`` values.

    ``model`` and its knot ``tau`` (values); ``reciprocal``: fitted to the values'
    reciprocals; ``start`` and ``level``: the fitted curve's first and last value, in the
    values' unit; ``t_ratio``: the amplitude over its standard error, widened by
    √((1 + r)/(1 − r)) for the lag-1 autocorrelation ``lag1`` of the residuals;
    ``band_entry``: the first index from which the fitted curve stays within the band of
    ``level``; ``rss``: the sum of squared log residuals of the batch means (the fit's
    curve against the values' own batch means, for a reciprocal fit too)."""

    model: CurveModel
    reciprocal: bool
    tau: float
    start: float
    level: float
    t_ratio: float
    lag1: float
    band_entry: int
    rss: float
    n: int


def fit_warmup_curve(
    values: npt.ArrayLike, *, band: float = 0.05, max_points: int = MAX_POINTS
) -> WarmupCurve | None:
    """The warm-up curve of ``values`` (finite, positive, in order: mean latencies), or
    None for fewer than 8 values, a value ≤ 0, a constant series or one whose curves all
    fail.

    Each model is fitted to the values and to their reciprocals:
    a closed loop's throughput is threads ÷ latency, so a service time that falls linearly
    is a hyperbola in throughput and a throughput that rises linearly is one in latency,
    and an exponential's long tail fits a hyperbola with an end 10–30 % late (a 60 s ramp
    of generated JTLs read 79 s). Every fit is scored by its squared log residuals over
    the ``max_points`` batch means of the values (in the values' unit, a hyperbola's big
    first values decided, for the exponential); the fits the data cannot
    tell from the best (Akaike's criterion within 2, over the effective number of points
    m·(1 − r)/(1 + r) of AR(1) residuals; Burnham & Anderson 2002) answer alike, and the
    earliest band entry among them is taken: a slow exponential fits a noisy ramp nearly
    as well and put its end 10 s late on ramps ending at 18 s of 60 s."""
    y_all = np.asarray(values, dtype=np.float64)
    n = int(y_all.size)
    if n < 8:
        return None
    size = max(1, math.ceil(n / max_points))
    m = n // size
    y = y_all[: m * size].reshape(m, size).mean(axis=1)
    if m < 8 or float(np.ptp(y)) <= 0.0:
        return None
    if not bool(np.all(y_all > 0)):
        return None  # latencies and counts of non-empty windows are positive
    fits = _fits(y, size, n, band, reciprocal=False)
    inverse = (1.0 / y_all)[: m * size].reshape(m, size).mean(axis=1)
    fits += _fits(inverse, size, n, band, reciprocal=True, original=y)
    if not fits:
        return None
    lowest = max(min(f.rss for f in fits), 1e-300)
    close = [
        f
        for f in fits
        if m * (1.0 - f.lag1) / (1.0 + f.lag1) * math.log(max(f.rss, 1e-300) / lowest) < 2.0
    ]
    return min(close, key=lambda f: f.band_entry)


def _fits(
    y: npt.NDArray[np.float64],
    size: int,
    n: int,
    band: float,
    *,
    reciprocal: bool,
    original: npt.NDArray[np.float64] | None = None,
) -> list[WarmupCurve]:
    """The least-squares fit of each model to the batch means ``y`` (batches of ``size``
    of ``n`` values; ``original``: the values' own batch means when ``y`` are those of
    their reciprocals). Knots τ run over the batch ends up to 90 % of the series
    (exponential: time constant τ/3, so the decay can end inside it); the band entry is
    computed on the fitted curve at every value's index."""
    m = y.size
    t = (np.arange(m, dtype=np.float64) + 0.5) * size
    yc = y - float(y.mean())
    syy = float((yc * yc).sum())
    if syy <= 0.0:
        return []
    knots = np.arange(1, max(2, int(0.9 * m)), dtype=np.float64) * size
    ti = np.arange(n, dtype=np.float64) + 0.5
    found: list[WarmupCurve] = []
    for model in ("step", "ramp", "exponential"):
        g = _shape(model, t[None, :], knots[:, None])
        gc = g - g.mean(axis=1, keepdims=True)
        sgg = (gc * gc).sum(axis=1)
        sgy = gc @ yc
        ok = sgg > 1e-12 * m
        rss = np.where(ok, syy - sgy * sgy / np.where(ok, sgg, 1.0), np.inf)
        j = int(np.argmin(rss))
        if not ok[j] or not math.isfinite(float(rss[j])):
            continue
        a = float(sgy[j] / sgg[j])
        b = float(y.mean()) - a * float(g[j].mean())
        fitted = b + a * g[j]
        resid = y - fitted
        rr = float((resid * resid).sum())
        r = 0.0
        if rr > 0.0:
            r = min(0.9, max(0.0, float((resid[:-1] * resid[1:]).sum()) / rr))
        se = math.sqrt(max(float(rss[j]), 0.0) / (m - 2) / float(sgg[j]))
        se *= math.sqrt((1.0 + r) / (1.0 - r))
        curve = b + a * _shape(model, ti, float(knots[j]))
        if float(fitted.min()) <= 0.0 or float(curve.min()) <= 0.0:
            continue  # a curve through 0 has no reciprocal, nor a log
        if reciprocal:
            fitted, curve = 1.0 / fitted, 1.0 / curve
        # scored on logs, where a series and its reciprocal weigh their errors alike
        # (in the values' unit, the big first values of a hyperbola decided: an
        # exponential fitted them best and put a linear throughput ramp's end 25 % late)
        own = original if original is not None else y
        rr = float(((np.log(own) - np.log(fitted)) ** 2).sum())
        level = float(curve[-1])
        off = np.abs(curve - level) > band * abs(level)
        found.append(
            WarmupCurve(
                model=model,
                reciprocal=reciprocal,
                tau=float(knots[j]),
                start=float(curve[0]),
                level=level,
                t_ratio=abs(a) / se if se > 0 else math.inf,
                lag1=r,
                band_entry=int(np.flatnonzero(off)[-1] + 1) if off.any() else 0,
                rss=rr,
                n=n,
            )
        )
    return found


def _shape(
    model: CurveModel, t: npt.NDArray[np.float64], tau: npt.NDArray[np.float64] | float
) -> npt.NDArray[np.float64]:
    """The model's warm-up shape g(t) for knot ``tau``: 1 at the start, 0 once over."""
    if model == "step":
        return (t < tau).astype(np.float64)
    if model == "ramp":
        return np.maximum(0.0, 1.0 - t / tau)
    return np.exp(-t / (np.asarray(tau) / 3.0))
