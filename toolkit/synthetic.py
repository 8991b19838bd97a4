"""Synthetic JMeter CSV JTLs with a known warm-up, for tests, benchmarks and demos.

A closed-loop run (``threads`` threads, no think time): throughput rises linearly from
``start_ratio``·rate to the steady rate over ``warmup_s`` seconds and stays flat; latency is
lognormal with its median following Little's law (threads ÷ current rate). Completion
times are an inhomogeneous Poisson process with that rate profile; rows are written in
completion order with ``timeStamp`` = start time, as JMeter 5.x does (research/jmeter.md
§1.3), in JMeter's default 17-column layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from toolkit.ingest.jmeter import DEFAULT_COLUMNS

__all__ = ["JtlTruth", "write_jtl"]

_LABELS = ("login", "search", "view_item", "add_to_cart", "checkout", "logout")
_WEIGHTS = (0.05, 0.35, 0.3, 0.15, 0.1, 0.05)


@dataclass(frozen=True)
class JtlTruth:
    """What the generator put into the file (the ground truth for tests)."""

    rows: int
    duration_s: float
    warmup_s: float
    steady_rate: float  #: samples per second after the warm-up (all labels)
    start_ms: int  #: epoch ms of the first possible completion
    error_rate: float


def write_jtl(
    path: Path | str,
    rows: int,
    *,
    seed: int = 0,
    duration_s: float = 600.0,
    warmup_s: float = 60.0,
    start_ratio: float = 0.2,
    threads: int = 50,
    error_rate: float = 0.01,
    labels: tuple[str, ...] = _LABELS,
    weights: tuple[float, ...] | None = _WEIGHTS,
    chunk_rows: int = 2_000_000,
    start_ms: int = 1_795_300_000_000,
) -> JtlTruth:
    """Write a JMeter-5.x-style CSV JTL of ``rows`` samples to ``path``; return the truth.

    ``warmup_s`` = 0 gives a flat run. Memory is bounded by ``chunk_rows`` (the file is
    written in time-ordered chunks), so 10M+ rows are fine.
    """
    rng = np.random.default_rng(seed)
    path = Path(path)
    # area under the rate profile (in units of steady-rate seconds)
    w = min(warmup_s, duration_s)
    area = (duration_s - w) + w * (1 + start_ratio) / 2
    steady = rows / area
    probs = np.asarray(weights if weights is not None else [1.0] * len(labels), dtype=float)
    probs = probs[: len(labels)] / probs[: len(labels)].sum()
    label_arr = np.asarray(labels, dtype=object)

    def inverse_cumulative(a: np.ndarray) -> np.ndarray:
        # cumulative area A(t) = start_ratio·t + (1-start_ratio)·t²/(2w) for t ≤ w
        t = np.empty_like(a)
        warm_area = w * (1 + start_ratio) / 2
        in_warm = a <= warm_area
        if w > 0:
            k = (1 - start_ratio) / (2 * w)
            aa = a[in_warm]
            t[in_warm] = (
                (-start_ratio + np.sqrt(start_ratio**2 + 4 * k * aa)) / (2 * k) if k else aa
            )
        t[~in_warm] = w + (a[~in_warm] - warm_area)
        return t

    done = 0
    first = True
    with path.open("wb") as handle:
        while done < rows:
            n = min(chunk_rows, rows - done)
            # order statistics of uniforms over this chunk's slice of the total area
            lo, hi = done / rows * area, (done + n) / rows * area
            a = np.sort(rng.uniform(lo, hi, n))
            end_s = inverse_cumulative(a)
            ratio = np.where(end_s < w, start_ratio + (1 - start_ratio) * end_s / max(w, 1e-9), 1.0)
            median_ms = threads / (steady * ratio) * 1000.0
            elapsed = np.maximum(1, np.round(median_ms * rng.lognormal(0.0, 0.35, n))).astype(
                np.int64
            )
            end_ms = start_ms + np.round(end_s * 1000).astype(np.int64)
            fail = rng.random(n) < error_rate
            label = label_arr[rng.choice(len(labels), size=n, p=probs)]
            thread = rng.integers(1, threads + 1, n)
            frame = pl.DataFrame(
                {
                    "timeStamp": end_ms - elapsed,
                    "elapsed": elapsed,
                    "label": pl.Series(label.astype(str)),
                    "responseCode": np.where(fail, "500", "200"),
                    "responseMessage": np.where(fail, "Internal Server Error", "OK"),
                    "threadName": thread,
                    "dataType": "text",
                    "success": ~fail,
                    "failureMessage": "",
                    "bytes": rng.integers(200, 4000, n),
                    "sentBytes": rng.integers(100, 300, n),
                    "grpThreads": threads,
                    "allThreads": threads,
                    "URL": "null",
                    "Latency": np.maximum(0, elapsed - rng.integers(0, 3, n)),
                    "IdleTime": 0,
                    "Connect": rng.integers(0, 2, n),
                }
            ).with_columns(pl.format("Thread Group 1-{}", pl.col("threadName")).alias("threadName"))
            frame = frame.select(list(DEFAULT_COLUMNS))
            frame.write_csv(handle, include_header=first)
            first = False
            done += n
    return JtlTruth(rows, duration_s, w, steady, start_ms, error_rate)
