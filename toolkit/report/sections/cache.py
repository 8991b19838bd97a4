"""The cache warm-up section: remote and local bytes and time per run, the fitted curve, the rates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolkit.report import figures
from toolkit.report.model import (
    Block,
    Cell,
    Chart,
    Column,
    Section,
    Table,
)
from toolkit.report.sections.context import ReportContext
from toolkit.report.sections.formatting import fmt_bytes, fmt_rate, fmt_seconds, num

if TYPE_CHECKING:
    pass


#: Cache series drawn at most (all are in the tables and report-data).
MAX_CACHE_CHARTS = 12


def fitted_elapsed(fit: Any, runs: Sequence[int]) -> list[float | None]:
    """Values of the analyzer's best warm-up model at each run (toolkit/analyze/cache.py
    ``CurveFit``: step = t∞ + A at run 1 then t∞; geometric t∞ + A·q^(k−1); power
    t∞ + A·k^(−β))."""
    out: list[float | None] = []
    for k in runs:
        if fit.model == "step":
            out.append(fit.t_inf_s + (fit.amplitude_s if k == runs[0] else 0.0))
        elif fit.model == "geometric" and fit.q is not None:
            out.append(fit.t_inf_s + fit.amplitude_s * fit.q ** (k - 1))
        elif fit.model == "power" and fit.beta is not None:
            out.append(fit.t_inf_s + fit.amplitude_s * k ** (-fit.beta))
        else:
            out.append(None)
    return out


def cache_section(ctx: ReportContext) -> Section | None:
    """Cache warm-up from query profiles: stacked remote/local bytes and time per run,
    the fitted curve, and the rates table (pipeline/cache.py)."""
    from toolkit.pipeline.cache import cache_payload

    results = ctx.analyses.cache()
    if not results:
        return None
    payload = cache_payload(results)
    blocks: list[Block] = []
    for n, (result, s) in enumerate(
        zip(results[:MAX_CACHE_CHARTS], payload["series"], strict=False)
    ):
        runs = [r["run"] for r in s["runs"]]
        fit = result.fit
        blocks.append(
            Chart(
                f"fig-cache-{n}",
                figures.cache_chart(
                    title=figures.plot_text(s["series"]),
                    runs=runs,
                    remote_bytes=[r["bytes_remote"] for r in s["runs"]],
                    local_bytes=[r["bytes_local"] for r in s["runs"]],
                    elapsed_s=[r["elapsed_s"] for r in s["runs"]],
                    fitted_s=fitted_elapsed(fit, runs) if fit is not None else None,
                    fit_label=f"fitted {fit.model} curve" if fit is not None else "",
                ),
            )
        )
    blocks.append(
        Table(
            "table-cache",
            "Transfer rates, warm-up and cache size per series",
            (
                Column("series"),
                Column("nodes", True),
                Column("runs", True),
                Column("remote rate", True, "bulk rate: the run moving the most remote bytes"),
                Column("local rate", True, "median of the per-run local rates"),
                Column("local/remote", True),
                Column("1 TB remote", True, "time to read 10^12 bytes at the remote rate"),
                Column("runs show", help="warming, steady, evicted (a cold run), no-warm-up, ..."),
                Column("warm from run", True),
                Column("cold → warm", True),
                Column("cached working set", True, "plateau of local bytes: a lower bound"),
                Column("best fit"),
            ),
            tuple(
                (
                    Cell(s["series"]),
                    num(s["nodes"], ".0f"),
                    num(len(s["runs"]), ".0f"),
                    num(s["remote_rate"], fmt_rate),
                    num(s["local_rate"], fmt_rate),
                    num(s["local_remote_ratio"], lambda v: f"{v:.0f}x"),
                    num(s["remote_time_per_tb_s"], lambda v: f"{v / 60:.0f} min"),
                    Cell(s["verdict"]),
                    num(s["runs_to_warm"], ".0f"),
                    Cell(
                        f"{fmt_seconds(s['cold_s'])} → {fmt_seconds(s['warm_s'])}",
                        s["speedup"],
                    ),
                    num(s["capacity_bytes"], fmt_bytes),
                    Cell("–" if s["fit"] is None else s["fit"]["model"]),
                )
                for s in payload["series"]
            ),
        )
    )
    return Section(
        "cache",
        "Cache warm-up",
        (
            "Per run: bytes read from remote storage (orange) and from the local cache (blue), "
            "and the elapsed time (black, right axis, log) with the best-fitting warm-up curve "
            "where at least 3 runs warm in time order (runs are numbered by start time)."
        ),
        tuple(blocks),
        payload,
    )


#: Parameters of the report and the sections they shape: only those of sections present
