"""The A/B section: steady (or overall) throughput and latency ratios B/A with their intervals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkit.analyze.compare import ratio_text
from toolkit.numbers import (
    fmt_error_pct,
    fmt_num,
    plural,
)
from toolkit.report import figures
from toolkit.report.model import (
    Block,
    Cell,
    Chart,
    Column,
    Section,
    Table,
    Tone,
)
from toolkit.report.sections.context import ReportContext
from toolkit.report.sections.formatting import num
from toolkit.report.sections.load import _ms

if TYPE_CHECKING:
    pass


# -- A/B comparison ----------------------------------------------------------------------


def compare_pairs(ctx: ReportContext) -> list[tuple[str, str]]:
    """The A/B pairs of the report (:meth:`~toolkit.pipeline.findings.Analyses.pairs`)."""
    return ctx.analyses.pairs()


def _ratio_tone(part: dict[str, Any], higher_is_better: bool) -> Tone:
    ci = part.get("ci")
    if not ci:
        return ""
    if ci[0] > 1:
        return "good" if higher_is_better else "bad"
    if ci[1] < 1:
        return "bad" if higher_is_better else "good"
    return ""


def _compare_basis(result: dict[str, Any]) -> str:
    """What one A/B pair's ratios compare: ``steady state``, ``steady part set by
    --steady-from/--steady-to``, ``every full window (no steady state)`` or a mix."""
    rows = result["labels"]
    overall = sum(r.get("basis") == "overall" for r in rows)
    if result.get("steady_from_s") is not None or result.get("steady_to_s") is not None:
        steady = "steady part set by --steady-from/--steady-to"
    else:
        steady = "steady state"
    if not overall:
        return steady
    if overall == len(rows):
        return "every full window, warm-up included (no steady state)"
    return f"{steady}; every full window for {plural(overall, 'label')} without one"


#: Labels drawn in a comparison chart (all are in the table).
MAX_COMPARE_LABELS = 30


def compare_section(ctx: ReportContext) -> Section | None:
    """A/B comparison of load suites (pipeline/load.py ``compare_report``): per label the
    steady throughput and latency of A and B and their ratios B/A with Fieller CIs."""
    pairs = compare_pairs(ctx)
    if not pairs:
        return None
    blocks: list[Block] = []
    results = ctx.analyses.comparisons()
    for n, ((a, b), result) in enumerate(zip(pairs, results, strict=True)):
        basis = _compare_basis(result)
        rows = result["labels"]
        drawn = rows[:MAX_COMPARE_LABELS]
        blocks.append(
            Chart(
                f"fig-compare-{n}",
                figures.ratio_chart(
                    [r["label"] for r in drawn],
                    {
                        "throughput": (
                            [r["throughput"]["ratio"] for r in drawn],
                            [
                                None
                                if r["throughput"]["ci"] is None
                                else tuple(r["throughput"]["ci"])
                                for r in drawn
                            ],
                        ),
                        "mean latency": (
                            [r["latency_mean_ms"]["ratio"] for r in drawn],
                            [
                                None
                                if r["latency_mean_ms"]["ci"] is None
                                else tuple(r["latency_mean_ms"]["ci"])
                                for r in drawn
                            ],
                        ),
                    },
                ),
                caption=(
                    f"B = {b} against A = {a}: {basis} ratios B/A with "
                    f"{result['level']:.0%} Fieller intervals over batch means."
                    + (
                        f" The first {len(drawn)} of {len(rows)} labels."
                        if len(rows) > len(drawn)
                        else ""
                    )
                ),
            )
        )
        blocks.append(
            Table(
                f"table-compare-{n}",
                f"B = {b} vs A = {a} ({basis} of each run)",
                (
                    Column("label"),
                    Column("throughput A /s", True),
                    Column("throughput B /s", True),
                    Column(f"throughput B/A ({result['level']:.0%} CI)", True),
                    Column("mean latency A ms", True),
                    Column("mean latency B ms", True),
                    Column(f"latency B/A ({result['level']:.0%} CI)", True),
                    Column("p50 B/A", True),
                    Column("p99 B/A", True),
                    Column("errors A", True, "failed samples, whole run"),
                    Column("errors B", True, "failed samples, whole run"),
                ),
                tuple(
                    (
                        Cell(r["label"]),
                        num(r["throughput"]["a"], fmt_num),
                        num(r["throughput"]["b"], fmt_num),
                        Cell(
                            ratio_text(r["throughput"]),
                            r["throughput"]["ratio"],
                            _ratio_tone(r["throughput"], True),
                        ),
                        num(r["latency_mean_ms"]["a"], _ms),
                        num(r["latency_mean_ms"]["b"], _ms),
                        Cell(
                            ratio_text(r["latency_mean_ms"]),
                            r["latency_mean_ms"]["ratio"],
                            _ratio_tone(r["latency_mean_ms"], False),
                        ),
                        num(r["latency_p50_ms"]["ratio"], ".3f"),
                        num(r["latency_p99_ms"]["ratio"], ".3f"),
                        num(r["error_rate"]["a"], fmt_error_pct),
                        num(r["error_rate"]["b"], fmt_error_pct),
                    )
                    for r in rows
                ),
            )
        )
    how = (
        "the pairs asked for with --compare"
        if ctx.params.compare
        else "the two load tests in the input (A = the one read first)"
    )
    return Section(
        "compare",
        "A/B comparison",
        (
            f"Steady-state throughput and latency of {how}; a ratio whose interval excludes "
            "1 is a difference beyond run-to-run noise (Kalibera & Jones 2013)."
        ),
        tuple(blocks),
        {"pairs": results},
    )
