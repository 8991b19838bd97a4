"""Generated per-window load-test series with a known truth, for the warm-up rules of
``toolkit.analyze.timeseries`` (issue 17 item 1: long and noisy warm-ups).

A closed loop of ``threads`` threads with no think time, in 1 s windows: the server's
service time falls from ``start_factor`` times its steady value ``service_ms`` to it, and
each window completes about threads ÷ latency samples (Little's law). Shapes:

- ``flat``: the steady service time throughout;
- ``step``: ``start_factor`` × steady until ``end_s``, then steady (a cache filled at once);
- ``linear``: falling linearly to steady at ``end_s`` (a slow JIT ramp);
- ``exponential``: ``service_ms·(1 + (F − 1)·exp(−t/τ))``, τ set so the level enters
  ±``BAND`` of steady at ``end_s`` (a cache warming by misses);

  in half of the runs the ramp (linear or exponential) is the throughput's instead, from
  1/F of steady, and the latency its reciprocal;
- ``half-run``: a linear or exponential warm-up ending at 50–70 % of the run;
- ``never-ending``: a linear or exponential warm-up whose end lies at 1.5–3× the run's
  length: still falling at the run's end.

Noise: each window's rate is multiplied by a mean-one lognormal AR(1) factor (SD 2–10 %,
lag-1 correlation 0–0.6: a shared machine's slow wobble), the count is Poisson around that
rate, and the window's mean latency is threads ÷ rate times the noise of a mean over its
samples (each sample's latency CV 0.5).

Truth, from the noise-free level relative to its value in the run's last window (what
the run ends up at: a slow exponential never reaches its asymptote inside the run, and no
rule can see a level the run never shows): the warm-up is over once the level stays
within ±``BAND`` = 5 % of it (the rules' smallest effect) — ``truth_s``, the first whole
window from there — and at the latest once it stays within ±1 %, ``truth_late_s`` (the end
of a linear ramp; the same window for a step). A found end is right when it lies within
``max(1 window, 10 % of truth_s)`` of ``[truth_s, truth_late_s]``. The steady rate is the
noise-free mean rate over the full windows from ``truth_s`` on (each window's count has
that mean: the noise factors are mean-one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

#: the shapes of :func:`generate`, in the order the accuracy tests cycle through them
SHAPES = ("flat", "step", "linear", "exponential", "half-run", "never-ending")

#: the class each shape must get (``WarmupEnd.status``)
EXPECTED = {
    "flat": "flat",
    "step": "warmup",
    "linear": "warmup",
    "exponential": "warmup",
    "half-run": "warmup",
    "never-ending": "no-steady-state",
}

#: the level band of the truth: within ±5 % of the steady service time
BAND = 0.05
#: the late end of the truth: within ±1 %
LATE_BAND = 0.01


@dataclass(frozen=True)
class LoadSeries:
    """One generated run: its windows (``w``, ``n``, ``mean_ms``, ``threads``) and truth."""

    shape: str
    seed: int
    duration_s: int
    threads: int
    #: the noise-free mean rate (samples per s) over the full windows after ``truth_s``
    steady_rate: float
    noise: float
    windows: pl.DataFrame
    #: the warm-up end (s): the first window from which the level stays within BAND of
    #: its last value; None for flat and never-ending runs
    truth_s: float | None
    #: the first window from which it stays within LATE_BAND (≥ truth_s)
    truth_late_s: float | None
    describe: str

    @property
    def expected(self) -> str:
        return EXPECTED[self.shape]

    def end_is_right(self, found_s: float | None) -> bool:
        """``found_s`` within max(1 window, 10 % of ``truth_s``) of [truth_s, truth_late_s]."""
        if self.truth_s is None or found_s is None or self.truth_late_s is None:
            return False
        tol = max(1.0, 0.1 * self.truth_s)
        return self.truth_s - tol <= found_s <= self.truth_late_s + tol


def _first_within(level: np.ndarray, band: float) -> int:
    """The first index from which ``level`` (relative to steady, 1 = steady) stays within
    ±``band``."""
    off = np.abs(level - 1.0) > band + 1e-12
    return int(np.flatnonzero(off)[-1] + 1) if off.any() else 0


def generate(shape: str, seed: int) -> LoadSeries:
    """One run of ``shape`` from ``seed`` (a run's every draw comes from its own seed)."""
    rng = np.random.default_rng([17, SHAPES.index(shape), seed])
    duration = int(rng.choice([40, 60, 120, 300]))
    threads = int(rng.choice([4, 10, 50]))
    service_ms = float(rng.choice([5.0, 40.0, 200.0]))
    factor = float(rng.uniform(1.5, 5.0))
    noise = float(rng.uniform(0.02, 0.10))
    phi = float(rng.uniform(0.0, 0.6))
    # the level at each window's start (it falls, so a window is steady when its start is)
    t = np.arange(duration, dtype=np.float64)
    kind = shape
    if shape in ("half-run", "never-ending"):
        kind = str(rng.choice(["linear", "exponential"]))
    if shape == "flat":
        end = 0.0
    elif shape == "half-run":
        end = float(rng.uniform(0.5, 0.7)) * duration
    elif shape == "never-ending":
        end = float(rng.uniform(1.5, 3.0)) * duration
    else:
        end = float(rng.uniform(0.15, 0.45)) * duration
    # the warm-up's shape u: 1 at the start, 0 once it is over
    if shape == "flat":
        u = np.zeros(duration)
    elif kind == "step":
        end = float(round(end))
        u = (t < end).astype(np.float64)
    elif kind == "linear":
        u = np.clip(1.0 - t / end, 0.0, None)
    else:
        tau = end / math.log((factor - 1.0) / BAND)
        u = np.exp(-t / tau)
    # the service time ramps (a JIT: latency linear or exponential, throughput its
    # reciprocal) or the throughput does (latency its reciprocal), half the runs each
    domain = str(rng.choice(["latency", "throughput"]))
    if domain == "latency":
        level = 1.0 + (factor - 1.0) * u
    else:
        level = 1.0 / (1.0 - (1.0 - 1.0 / factor) * u)
    rate = threads * 1000.0 / (service_ms * level)  # samples per s, noise-free
    # a mean-one lognormal AR(1) factor on each window's rate
    innovations = rng.standard_normal(duration) * math.sqrt(1.0 - phi * phi)
    eta = np.empty(duration)
    eta[0] = rng.standard_normal()
    for i in range(1, duration):
        eta[i] = phi * eta[i - 1] + innovations[i]
    factor_w = np.exp(noise * eta - noise * noise / 2.0)
    counts = rng.poisson(rate * factor_w).astype(np.float64)
    latency = threads * 1000.0 / (rate * factor_w)
    latency *= np.exp(rng.standard_normal(duration) * 0.5 / np.sqrt(np.maximum(counts, 1.0)))
    frame = pl.DataFrame(
        {
            "w": np.arange(duration),
            "n": counts,
            "mean_ms": np.where(counts > 0, latency, np.nan),
            "threads": np.full(duration, float(threads)),
        }
    )
    truth = late = None
    steady_from = 0
    if EXPECTED[shape] == "warmup":
        relative = level / level[-1]
        steady_from = _first_within(relative, BAND)
        truth = float(steady_from)
        late = float(max(_first_within(relative, LATE_BAND), steady_from))
    # the analysis leaves out the first and the last (partial) window
    full = rate[max(steady_from, 1) : duration - 1]
    describe = (
        f"{shape}{'/' + kind if kind != shape else ''} ({domain}) seed={seed} {duration} s "
        f"x{factor:.2f} end={end:.1f} s noise={noise:.0%} phi={phi:.2f} "
        f"{threads} threads {threads * 1000.0 / service_ms:g}/s"
    )
    return LoadSeries(
        shape, seed, duration, threads, float(full.mean()), noise, frame,
        truth, late, describe,
    )  # fmt: skip
