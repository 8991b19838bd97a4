"""Synthetic JMeter CSV JTLs with a known warm-up, for tests, benchmarks and demos.

A closed-loop run (``threads`` threads, no think time): throughput rises linearly from
``start_ratio``·rate to the steady rate over ``warmup_s`` seconds and stays flat; latency is
lognormal with its mean following Little's law (threads ÷ current rate). Completion
times are an inhomogeneous Poisson process with that rate profile; rows are written in
completion order with ``timeStamp`` = start time, as JMeter 5.x does (research/jmeter.md
§1.3), in JMeter's default 17-column layout (plus ``Hostname`` when ``hostname`` is given,
as with ``jmeter.save.saveservice.hostname=true``). Failed samples carry an HTTP 500 or 503
or a socket timeout, with JMeter's response and failure messages; URLs are per label.

Vectorised (NumPy + Polars' CSV writer, no Python row loop): 10M rows (≈ 1.1 GB) take about
20 s on one core, and memory is bounded by ``chunk_rows`` whatever ``rows`` is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl

from toolkit.ingest.jmeter import DEFAULT_COLUMNS

__all__ = ["JtlTruth", "write_jtl"]

_LABELS = ("login", "search", "view_item", "add_to_cart", "checkout", "logout")
_WEIGHTS = (0.05, 0.35, 0.3, 0.15, 0.1, 0.05)
#: (responseCode, responseMessage, failureMessage) of failed samples, drawn uniformly
_FAILURES = (
    ("500", "Internal Server Error", "Test failed: code expected to equal /200/"),
    ("503", "Service Unavailable", "Test failed: code expected to equal /200/"),
    (
        "Non HTTP response code: java.net.SocketTimeoutException",
        "Non HTTP response message: Read timed out",
        "",
    ),
)
#: lognormal shape of the latency (σ of the log)
_SIGMA = 0.35


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
    chunk_rows: int = 1_000_000,
    start_ms: int = 1_795_300_000_000,
    hostname: str | None = None,
) -> JtlTruth:
    """Write a JMeter-5.x-style CSV JTL of ``rows`` samples to ``path``; return the truth.

    ``warmup_s`` = 0 gives a flat run. Memory is bounded by ``chunk_rows`` (the file is
    written in time-ordered chunks), so 10M+ rows are fine. ``hostname`` adds JMeter's
    ``Hostname`` column (one load generator of a distributed test).
    """
    rng = np.random.default_rng(seed)
    path = Path(path)
    # area under the rate profile (in units of steady-rate seconds)
    w = min(warmup_s, duration_s)
    area = (duration_s - w) + w * (1 + start_ratio) / 2
    steady = rows / area
    probs = np.asarray(weights if weights is not None else [1.0] * len(labels), dtype=float)
    probs = probs[: len(labels)] / probs[: len(labels)].sum()
    label_s = pl.Series(labels, dtype=pl.String)
    url_s = pl.Series([f"https://shop.example.test/{lab}" for lab in labels], dtype=pl.String)
    # outcome 0 = success, 1.. = the failures of _FAILURES
    code_s = pl.Series(["200", *(f[0] for f in _FAILURES)], dtype=pl.String)
    message_s = pl.Series(["OK", *(f[1] for f in _FAILURES)], dtype=pl.String)
    failure_s = pl.Series([None, *(f[2] or None for f in _FAILURES)], dtype=pl.String)
    columns = [*DEFAULT_COLUMNS]
    if hostname is not None:
        columns.insert(columns.index("IdleTime"), "Hostname")

    def inverse_cumulative(a: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
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
            # Little's law with no think time: mean latency = threads / rate
            mean_ms = threads / (steady * ratio) * 1000.0
            median_ms = mean_ms * np.exp(-(_SIGMA**2) / 2)
            elapsed = np.maximum(1, np.round(median_ms * rng.lognormal(0.0, _SIGMA, n))).astype(
                np.int64
            )
            end_ms = start_ms + np.round(end_s * 1000).astype(np.int64)
            fail = rng.random(n) < error_rate
            outcome = np.where(fail, rng.integers(1, len(_FAILURES) + 1, n), 0)
            which = rng.choice(len(labels), size=n, p=probs)
            thread = rng.integers(1, threads + 1, n)
            data: dict[str, object] = {
                "timeStamp": end_ms - elapsed,
                "elapsed": elapsed,
                "label": label_s.gather(which),
                "responseCode": code_s.gather(outcome),
                "responseMessage": message_s.gather(outcome),
                "threadName": thread,
                "dataType": "text",
                "success": ~fail,
                "failureMessage": failure_s.gather(outcome),
                "bytes": np.where(fail, rng.integers(0, 400, n), rng.integers(900, 16_000, n)),
                "sentBytes": rng.integers(120, 700, n),
                "grpThreads": threads,
                "allThreads": threads,
                "URL": url_s.gather(which),
                "Latency": np.maximum(0, elapsed - rng.integers(0, 3, n)),
                "IdleTime": 0,
                "Connect": rng.integers(0, 2, n),
            }
            if hostname is not None:
                data["Hostname"] = hostname
            frame = pl.DataFrame(data).with_columns(
                pl.format("Thread Group 1-{}", pl.col("threadName")).alias("threadName")
            )
            frame.select(columns).write_csv(handle, include_header=first, null_value="")
            first = False
            done += n
    return JtlTruth(rows, duration_s, w, steady, start_ms, error_rate)
