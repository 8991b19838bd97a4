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

import json
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from toolkit.ingest.jmeter import DEFAULT_COLUMNS

__all__ = ["JtlTruth", "RunShape", "write_clickbench_runs", "write_jtl", "write_jtl_xml"]

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


@dataclass(frozen=True)
class RunShape:
    """The load profile of a synthetic run (see the module docstring); the defaults are
    the benchmarks' 10-minute shop test with a 60 s warm-up."""

    seed: int = 0
    duration_s: float = 600.0
    warmup_s: float = 60.0  #: 0 gives a flat run
    start_ratio: float = 0.2  #: throughput at t = 0 as a share of the steady rate
    threads: int = 50
    error_rate: float = 0.01
    labels: tuple[str, ...] = _LABELS
    weights: tuple[float, ...] | None = _WEIGHTS
    start_ms: int = 1_795_300_000_000
    hostname: str | None = None  #: adds JMeter's ``Hostname`` column / ``hn`` attribute

    def truth(self, rows: int) -> JtlTruth:
        """What a run of ``rows`` samples of this shape puts into the file."""
        w = min(self.warmup_s, self.duration_s)
        # area under the rate profile (in units of steady-rate seconds)
        area = (self.duration_s - w) + w * (1 + self.start_ratio) / 2
        return JtlTruth(rows, self.duration_s, w, rows / area, self.start_ms, self.error_rate)


def _sample_frames(rows: int, shape: RunShape, chunk_rows: int) -> Iterator[pl.DataFrame]:
    """The run's samples in completion order, ``chunk_rows`` at a time, as frames in
    JMeter's CSV column order (default 17 columns, + ``Hostname``)."""
    rng = np.random.default_rng(shape.seed)
    truth = shape.truth(rows)
    w, steady, start_ratio = truth.warmup_s, truth.steady_rate, shape.start_ratio
    area = rows / steady
    labels = shape.labels
    weights = shape.weights
    probs = np.asarray(weights if weights is not None else [1.0] * len(labels), dtype=float)
    probs = probs[: len(labels)] / probs[: len(labels)].sum()
    label_s = pl.Series(labels, dtype=pl.String)
    url_s = pl.Series([f"https://shop.example.test/{lab}" for lab in labels], dtype=pl.String)
    # outcome 0 = success, 1.. = the failures of _FAILURES
    code_s = pl.Series(["200", *(f[0] for f in _FAILURES)], dtype=pl.String)
    message_s = pl.Series(["OK", *(f[1] for f in _FAILURES)], dtype=pl.String)
    failure_s = pl.Series([None, *(f[2] or None for f in _FAILURES)], dtype=pl.String)
    columns = [*DEFAULT_COLUMNS]
    if shape.hostname is not None:
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
    while done < rows:
        n = min(chunk_rows, rows - done)
        # order statistics of uniforms over this chunk's slice of the total area
        lo, hi = done / rows * area, (done + n) / rows * area
        a = np.sort(rng.uniform(lo, hi, n))
        end_s = inverse_cumulative(a)
        ratio = np.where(end_s < w, start_ratio + (1 - start_ratio) * end_s / max(w, 1e-9), 1.0)
        # Little's law with no think time: mean latency = threads / rate
        mean_ms = shape.threads / (steady * ratio) * 1000.0
        median_ms = mean_ms * np.exp(-(_SIGMA**2) / 2)
        elapsed = np.maximum(1, np.round(median_ms * rng.lognormal(0.0, _SIGMA, n))).astype(
            np.int64
        )
        end_ms = shape.start_ms + np.round(end_s * 1000).astype(np.int64)
        # no sample starts before the run: with few rows per second Little's law gives
        # samples longer than the time since the start (one row: a 7-hour sample)
        elapsed = np.minimum(elapsed, np.maximum(end_ms - shape.start_ms, 1))
        fail = rng.random(n) < shape.error_rate
        outcome = np.where(fail, rng.integers(1, len(_FAILURES) + 1, n), 0)
        which = rng.choice(len(labels), size=n, p=probs)
        thread = rng.integers(1, shape.threads + 1, n)
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
            "grpThreads": shape.threads,
            "allThreads": shape.threads,
            "URL": url_s.gather(which),
            "Latency": np.maximum(0, elapsed - rng.integers(0, 3, n)),
            "IdleTime": 0,
            "Connect": rng.integers(0, 2, n),
        }
        if shape.hostname is not None:
            data["Hostname"] = shape.hostname
        frame = pl.DataFrame(data).with_columns(
            pl.format("Thread Group 1-{}", pl.col("threadName")).alias("threadName")
        )
        yield frame.select(columns)
        done += n


def write_jtl(
    path: Path | str,
    rows: int,
    *,
    chunk_rows: int = 1_000_000,
    **shape: Any,
) -> JtlTruth:
    """Write a JMeter-5.x-style CSV JTL of ``rows`` samples to ``path``; return the truth.

    ``shape`` takes the fields of :class:`RunShape` (``seed``, ``warmup_s`` = 0 for a flat
    run, ``hostname`` for one load generator of a distributed test, ...). Memory is bounded
    by ``chunk_rows`` (the file is written in time-ordered chunks), so 10M+ rows are fine.
    """
    run = RunShape(**shape)
    first = True
    with Path(path).open("wb") as handle:
        for frame in _sample_frames(rows, run, chunk_rows):
            frame.write_csv(handle, include_header=first, null_value="")
            first = False
    return run.truth(rows)


def _xml_escaped(column: str) -> pl.Expr:
    """An attribute or text value as JMeter's XStream writes it (``& < > "`` escaped)."""
    return (
        pl.col(column)
        .cast(pl.String)
        .str.replace_all("&", "&amp;", literal=True)
        .str.replace_all("<", "&lt;", literal=True)
        .str.replace_all(">", "&gt;", literal=True)
        .str.replace_all('"', "&quot;", literal=True)
    )


#: JMeter 5's default XML attributes, in the order it writes them, and their CSV columns
_XML_ATTRS = (
    ("t", "elapsed"), ("it", "IdleTime"), ("lt", "Latency"), ("ct", "Connect"),
    ("ts", "timeStamp"), ("s", "success"), ("lb", "label"), ("rc", "responseCode"),
    ("rm", "responseMessage"), ("tn", "threadName"), ("dt", "dataType"), ("by", "bytes"),
    ("sby", "sentBytes"), ("ng", "grpThreads"), ("na", "allThreads"), ("hn", "Hostname"),
)  # fmt: skip
_ASSERTION = (
    "  <assertionResult>\n    <name>Response Assertion</name>\n"
    "    <failure>true</failure>\n    <error>false</error>\n"
    "    <failureMessage>{}</failureMessage>\n  </assertionResult>\n"
)
_SUBSAMPLE = (
    '  <httpSample t="{}" it="0" lt="{}" ct="0" ts="{}" s="true" lb="{}-{}" rc="200" '
    'rm="OK" tn="{}" dt="bin" by="2048" sby="100" ng="{}" na="{}">\n'
    "    <java.net.URL>{}/r{}.png</java.net.URL>\n  </httpSample>\n"
)


def _subsample(index: int) -> pl.Expr:
    """Embedded resource ``index`` of a sample: half its time, starting after the
    previous one."""
    half = pl.col("elapsed") // 2
    return pl.format(
        _SUBSAMPLE,
        half,
        half,
        pl.col("timeStamp") + index * half,
        pl.col("label"),
        pl.lit(str(index)),
        pl.col("threadName"),
        pl.col("grpThreads"),
        pl.col("allThreads"),
        pl.col("URL"),
        pl.lit(str(index)),
    )


def _xml_samples(frame: pl.DataFrame, first: int, subsample_every: int) -> list[str]:
    """One ``httpSample`` element per row of ``frame`` (samples ``first``, ``first`` + 1,
    ... of the run)."""
    attrs = [(name, col) for name, col in _XML_ATTRS if col in frame.columns]
    opening = "<httpSample " + " ".join(f'{name}="{{}}"' for name, _ in attrs) + ">\n"
    text = [c for c, kind in frame.schema.items() if kind == pl.String]
    escaped = frame.with_columns(
        pl.when(pl.col("success")).then(pl.lit("true")).otherwise(pl.lit("false")),
        *map(_xml_escaped, text),
    )
    has_children = pl.lit(subsample_every > 0) & (
        (pl.int_range(pl.len()) + first) % max(subsample_every, 1) == 0
    )
    element = pl.concat_str(
        pl.format(opening, *(pl.col(col) for _, col in attrs)),
        pl.when(pl.col("failureMessage").is_not_null())
        .then(pl.format(_ASSERTION, pl.col("failureMessage")))
        .otherwise(pl.lit("")),
        pl.when(has_children)
        .then(pl.concat_str(_subsample(0), _subsample(1)))
        .otherwise(pl.lit("")),
        pl.format("  <java.net.URL>{}</java.net.URL>\n</httpSample>\n", pl.col("URL")),
    )
    return escaped.select(element.alias("xml"))["xml"].to_list()


def write_jtl_xml(
    path: Path | str,
    rows: int,
    *,
    subsample_every: int = 0,
    chunk_rows: int = 1_000_000,
    **shape: Any,
) -> JtlTruth:
    """Write the same samples as :func:`write_jtl` (same ``shape`` and ``chunk_rows``, same
    values) as a JMeter XML JTL (research/jmeter.md §2: ``testResults version="1.2"``, one
    ``httpSample`` per sample with JMeter 5's default attributes in its order, an
    ``assertionResult`` child carrying each failure message, the URL as ``java.net.URL``).

    With ``subsample_every`` = k > 0, every k-th sample also carries two nested
    sub-samples ``<label>-0`` and ``<label>-1`` (embedded resources, each half the
    parent's time), which JMeter writes as child ``httpSample`` elements: the file then
    holds ``rows`` + 2·⌈rows / k⌉ samples, ``rows`` of them top level. Vectorised per
    slice of 100,000 samples (Polars string expressions); memory is bounded by
    ``chunk_rows``, which must equal the CSV's for the same samples (the random draws are
    made per chunk).
    """
    run = RunShape(**shape)
    done = 0
    with Path(path).open("wb") as handle:
        handle.write(b'<?xml version="1.0" encoding="UTF-8"?>\n<testResults version="1.2">\n')
        for chunk in _sample_frames(rows, run, chunk_rows):
            for frame in chunk.iter_slices(100_000):
                handle.write("".join(_xml_samples(frame, done, subsample_every)).encode())
                done += frame.height
        handle.write(b"\n</testResults>\n")
    return run.truth(rows)


def write_clickbench_runs(
    folder: Path, systems: Sequence[str], runs: int, seed: int = 7, queries: int = 43
) -> Path:
    """ClickBench result files in ``folder`` (created), one per system: ``queries``
    queries × ``runs`` runs each (s), a warm-up decaying over ~50 runs (×4 at run 0) on top
    of ±20 % noise, so the hot score moves with k. For suites far longer than ClickBench's
    3 runs (tests/test_many_runs.py, benchmarks/hostile_inputs.py)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    for system in systems:
        rows = [
            [
                round((0.05 + 0.02 * q) * (1 + 3 * math.exp(-i / 50)) * rng.uniform(0.9, 1.3), 4)
                for i in range(runs)
            ]
            for q in range(queries)
        ]
        doc = {"system": system, "date": "2026-01-01", "machine": "m", "result": rows}
        (folder / f"{system}.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder
