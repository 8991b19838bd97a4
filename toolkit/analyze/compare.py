"""A/B ratios of steady values with confidence intervals (research/warmup-science.md §4.2,
§8.14: Kalibera & Jones 2012/2013; Fieller's theorem for the ratio of two independent
means). Pure: arrays in, dataclasses out."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from toolkit.analyze.distributions import t_quantile
from toolkit.analyze.findings import Finding
from toolkit.numbers import fmt_ratio


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
    h = t_quantile(0.5 + level / 2, nu) ** 2
    ratio = my / mx
    denom = mx * mx - h * vx
    disc = (my * mx) ** 2 - denom * (my * my - h * vy)
    if denom <= 0 or disc < 0:
        return RatioCI(ratio, None, None, level, "fieller")
    root = math.sqrt(disc)
    lo, hi = sorted(((my * mx - root) / denom, (my * mx + root) / denom))
    return RatioCI(ratio, lo, hi, level, "fieller")


def ratio_text(part: dict[str, Any]) -> str:
    """``1.234 (1.100–1.380)``: a ratio with its interval, ``–`` without a ratio."""
    if part["ratio"] is None:
        return "–"
    ci = part.get("ci")
    return fmt_ratio(part["ratio"]) + (f" ({fmt_ratio(ci[0])}–{fmt_ratio(ci[1])})" if ci else "")


def compare_findings(result: dict[str, Any]) -> list[Finding]:
    """The whole-suite (ALL) verdict of one A/B pair (``compare_report``'s payload): the
    throughput and mean latency ratios B/A with their Fieller CIs (Kalibera & Jones 2013).
    ``compare-throughput`` (info) over the steady windows; ``compare-overall`` (warning)
    where A or B has no steady state and the ratios are of every full window, the warm-up
    included; ``compare-not-steady`` (warning) where no interval could be computed at all.
    ``effect``: the ratio's distance from 1."""
    row = next((r for r in result["labels"] if r["label"] == "ALL"), None)
    if row is None:
        return []
    a, b = result["a"], result["b"]
    tp, lat = row["throughput"], row["latency_mean_ms"]
    level = f"{result['level']:.0%}"
    subject = f"{b} vs {a}"
    effect = abs(float(tp["ratio"]) - 1) if tp["ratio"] is not None else 0.0
    if tp["ratio"] is None or tp["ci"] is None:
        return [
            Finding(
                rule="compare-not-steady",
                severity="warning",
                subject=subject,
                message=(
                    f"{b} vs {a}: too few windows for an interval on the throughput ratio"
                    + (f" (point ratio {tp['ratio']:.3f})" if tp["ratio"] is not None else "")
                ),
                advice="run both tests longer before comparing them",
                numbers={"throughput_ratio": tp["ratio"], "effect": effect},
            )
        ]
    lat_text = f", mean latency {ratio_text(lat)}" if lat["ratio"] is not None else ""
    if row.get("basis") == "overall":
        # no steady state in A or B: an answer, with the caveat that it mixes the warm-up
        return [
            Finding(
                rule="compare-overall",
                severity="warning",
                subject=subject,
                message=(
                    f"{b} vs {a}: no steady state in at least one run, so the ratios compare "
                    f"every full window, warm-up included: throughput B/A = {ratio_text(tp)} "
                    f"at {level}{lat_text}"
                ),
                advice=(
                    "read it as a whole-run comparison; for a steady-state one, set the "
                    "steady part (--steady-from, --steady-to) or run both tests longer"
                ),
                numbers={
                    "throughput_ratio": tp["ratio"],
                    "ci_lo": tp["ci"][0],
                    "ci_hi": tp["ci"][1],
                    "latency_ratio": lat["ratio"],
                    "effect": effect,
                },
            )
        ]
    ci = tp["ci"]
    differs = ci[0] > 1 or ci[1] < 1
    user = any((w or {}).get("source") == "user" for w in row["steady_window"].values())
    steady = "steady (--steady-from/--steady-to)" if user else "steady"
    message = f"{b} vs {a}: {steady} throughput B/A = {ratio_text(tp)} at {level}{lat_text}"
    if differs:
        change = tp["ratio"] - 1
        advice = (
            f"{b} is {'faster' if change > 0 else 'slower'} beyond noise "
            f"({min(abs(ci[0] - 1), abs(ci[1] - 1)):.0%} to "
            f"{max(abs(ci[0] - 1), abs(ci[1] - 1)):.0%}): report the ratio with its interval"
        )
    else:
        advice = (
            "the interval includes 1, so there is no difference at this level: do not report "
            "a winner (longer runs narrow the interval)"
        )
    return [
        Finding(
            rule="compare-throughput",
            severity="info",
            subject=subject,
            message=message,
            advice=advice,
            numbers={
                "throughput_ratio": tp["ratio"],
                "ci_lo": ci[0],
                "ci_hi": ci[1],
                "latency_ratio": lat["ratio"],
                "effect": effect,
            },
        )
    ]
