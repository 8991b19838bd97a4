"""JMeter dashboard's Errors and Top 5 Errors by sampler tables, exactly, over all samples.

Pure: a frame of error counts in, dataclasses out. The error type and the scope are
JMeter's (research/jmeter.md §4.2, §4.4; ``ErrorsSummaryConsumer.getErrorKey`` and
``Top5ErrorsBySamplerConsumer`` of JMeter 5.5): the type of a failed sample is
``responseCode/responseMessage`` (the code alone when the message is empty), or, when the
code is a success code (a number in 200–399) or empty with a failure message, the
assertion's failure message (``Assertion failed`` without one). Transaction-controller
samples are left out of both tables; sub-result rows count as samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

#: Errors listed per sampler in JMeter's "Top 5 Errors by sampler" table.
TOP_ERRORS = 5
#: JMeter's type of a failed sample whose failure message is empty.
ASSERTION_FAILED = "Assertion failed"
#: The label of the overall row of the Top 5 table (JMeter's ``reportgenerator_top5_total``).
TOTAL = "Total"


@dataclass(frozen=True)
class ErrorType:
    """One row of the Errors table: a type, its failed samples, and their share (%) of all
    failed samples and of all samples."""

    type: str
    error_count: int
    pct_in_errors: float
    pct_in_all_samples: float

    def as_json(self) -> dict[str, object]:
        """The ``dashboard_errors`` entry of ``warmup load --json``."""
        return {
            "type": self.type,
            "errorCount": self.error_count,
            "pctInErrors": self.pct_in_errors,
            "pctInAllSamples": self.pct_in_all_samples,
        }


@dataclass(frozen=True)
class SamplerErrors:
    """One row of the Top 5 Errors by sampler table: a label (or ``Total``), its samples,
    its failed samples, and its most frequent error types with their counts (most first;
    ties by type, where JMeter's order is its hash map's)."""

    sample: str
    sample_count: int
    error_count: int
    top: tuple[tuple[str, int], ...]

    def as_json(self) -> dict[str, object]:
        """The ``dashboard_top_errors`` entry of ``warmup load --json``."""
        return {
            "sample": self.sample,
            "sampleCount": self.sample_count,
            "errorCount": self.error_count,
            "errors": [{"type": t, "errorCount": n} for t, n in self.top],
        }


def error_tables(
    counts: pl.DataFrame, *, top: int = TOP_ERRORS
) -> tuple[list[ErrorType], list[SamplerErrors]]:
    """JMeter's Errors table and Top-``top`` Errors by sampler table.

    ``counts``: one row per (``label``, ``type``) with ``n`` samples, ``type`` null for
    successful samples, over the samples JMeter's tables count (no transaction-controller
    samples). The Errors table has a row per type (most errors first, then by type);
    the Top table a ``Total`` row first (also without errors, as JMeter's), then every label
    with a failed sample (most errors first, then by label), as JMeter leaves the others'
    rows empty.
    """
    if counts.height == 0:
        return [], []
    samples = int(counts["n"].sum())
    failed = counts.filter(pl.col("type").is_not_null())
    errors = int(failed["n"].sum()) if failed.height else 0
    by_type = _ranked(failed)
    types = [
        ErrorType(str(t), int(n), 100.0 * n / errors, 100.0 * n / samples)
        for t, n in by_type.iter_rows()
    ]
    per_label = counts.group_by("label").agg(
        pl.col("n").sum().alias("samples"),
        pl.col("n").filter(pl.col("type").is_not_null()).sum().alias("errors"),
    )

    def top_types(ranked: pl.DataFrame) -> tuple[tuple[str, int], ...]:
        return tuple((str(t), int(n)) for t, n in ranked.head(top).iter_rows())

    rows = [SamplerErrors(TOTAL, samples, errors, top_types(by_type))]
    for label, n, e in (
        per_label.filter(pl.col("errors") > 0)
        .sort(["errors", "label"], descending=[True, False])
        .iter_rows()
    ):
        mine = _ranked(failed.filter(pl.col("label") == label))
        rows.append(SamplerErrors(str(label), int(n), int(e), top_types(mine)))
    return types, rows


def _ranked(failed: pl.DataFrame) -> pl.DataFrame:
    """``type, n`` summed over the failed samples' rows, most first, then by type."""
    return (
        failed.group_by("type").agg(pl.col("n").sum()).sort(["n", "type"], descending=[True, False])
    )
