"""Robust time bounds of a load suite's samples: which rows a window series may hold.

A JTL row with a timeStamp of 0, 10¹³ or ±10¹⁵ ms, a timeStamp in seconds among
milliseconds, or an elapsed time of 10¹⁸ ms is a damaged or foreign row: windows sized
from the suite's minimum and maximum would span centuries (10¹⁰ one-second windows, 13 GiB
to 7 PiB of counts). The bounds come from the quartiles of the sample start times instead,
widened by Tukey's far-out fences (Q1 − 3·IQR, Q3 + 3·IQR; Tukey 1977, *Exploratory Data
Analysis*, §2), and never narrower than a day on each side, so a run's sparse tail (a
trickle after the main load, two runs joined into one suite) stays inside. A row whose
start or end (start + elapsed) lies outside is out of range: the store keeps it, the load
analysis leaves it out and says so (:func:`out_of_range_finding`).

Pure: numbers in, numbers and findings out.
"""

from __future__ import annotations

from toolkit.analyze.findings import Finding
from toolkit.numbers import plural

#: the fences' distance beyond the quartiles, in inter-quartile ranges (Tukey's "far out")
FENCE_IQR = 3.0
#: the fences' least distance beyond the quartiles (ms): one day
MIN_FENCE_MS = 86_400_000.0
#: most windows one suite's series may have (about 58 days of 1 s windows, 24 bytes of
#: counts, latency and threads each): beyond it the analysis asks for a wider --window
MAX_WINDOWS = 5_000_000


def time_fences(q1_ms: float, q3_ms: float) -> tuple[float, float]:
    """The bounds (epoch ms, inclusive) a sample's start and end must lie within, from
    the quartiles ``q1_ms``, ``q3_ms`` of the suite's sample start times (ms): Tukey's
    far-out fences, at least :data:`MIN_FENCE_MS` beyond each quartile."""
    reach = max(FENCE_IQR * (q3_ms - q1_ms), MIN_FENCE_MS)
    return q1_ms - reach, q3_ms + reach


def out_of_range_finding(subject: str, excluded: int, samples: int) -> Finding:
    """``load-samples-out-of-range`` (warning): ``excluded`` of the suite's ``samples``
    rows start or end outside :func:`time_fences` and are left out of every load figure;
    effect: their share of the rows."""
    return Finding(
        rule="load-samples-out-of-range",
        severity="warning",
        subject=subject,
        message=(
            f"{plural(excluded, 'sample')} of {samples} start or end far outside the run "
            "(a timeStamp of 0, in seconds, or decades away, or an absurd elapsed time): "
            "left out of every figure, kept in the store"
        ),
        advice="check the load generator's clock and the JTL's timeStamp column",
        numbers={"samples": excluded, "effect": excluded / samples if samples else 0.0},
    )
