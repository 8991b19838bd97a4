"""The load-test section: throughput and latency over the run, JMeter's tables, Little's law."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.analyze.jmeter_errors import TOP_ERRORS
from toolkit.analyze.timeseries import ApdexThresholds
from toolkit.numbers import (
    error_pct_above,
    error_pct_text,
    fmt_error_pct,
    fmt_interval,
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
    Text,
    Tone,
)
from toolkit.report.sections.context import ReportContext
from toolkit.report.sections.formatting import fmt_pct, fmt_seconds, num
from toolkit.store import Store

if TYPE_CHECKING:
    pass


# -- load tests --------------------------------------------------------------------------

#: Windows per chart trace at most: the chart window grows (1-2-5 steps) to stay below.
MAX_LOAD_WINDOWS = 2000
#: Label charts at most over all suites (ALL of each suite first; every label is in the tables).
MAX_LOAD_CHARTS = 8
#: Labels in a suite's dashboard-chart picker at most: ALL, then the busiest (every label is
#: in the tables); bounds the report whatever the number of labels.
MAX_PICKER_LABELS = 12


def chart_window_s(duration_s: float | None, window_s: float) -> float:
    """The window of a load chart: the analysis window, or the smallest 1-2-5 x 10^n
    seconds that keeps a run of ``duration_s`` below ``MAX_LOAD_WINDOWS`` windows and is
    a whole number of analysis windows (else the fewest analysis windows that do): a
    chart window is then whole analysis windows, which ``report FILE`` reads as groups
    (:func:`toolkit.pipeline.load.chart_groups`), and the warm-up cut falls on its edges."""
    if not duration_s or duration_s / window_s < MAX_LOAD_WINDOWS - 1:
        return window_s
    need = duration_s / (MAX_LOAD_WINDOWS - 2)
    window_ms = max(1, round(window_s * 1000))
    exp = math.floor(math.log10(need))
    for e in range(exp, exp + 3):
        for mant in (1, 2, 5):
            value = float(f"{mant * 10.0**e:.6g}")
            if value >= need and round(value * 1000) % window_ms == 0:
                return value
    return math.ceil(need * 1000 / window_ms) * window_ms / 1000


def load_result(ctx: ReportContext) -> tuple[list[int], dict[str, Any]] | None:
    """Load suite ids and the ``warmup load --json`` payload (pipeline/load.py), or None
    (:meth:`~toolkit.pipeline.findings.Analyses.load`)."""
    return ctx.analyses.load()


def _load_series(
    store: Store,
    suite_id: int,
    suite: dict[str, Any],
    label: str,
    window_s: float,
    windows: pl.DataFrame | None,
) -> dict[str, Any]:
    """The plotted series of one label: per-window throughput and latency percentiles
    (``windows``: already aggregated in SQL, pipeline/load.py ``window_series_by_label``),
    or for a summariser log (``windows`` None) its own windows (throughput and mean
    latency)."""
    if suite["source"] == "summariser":
        from toolkit.pipeline.summariser import summariser_windows

        entry = next(x for x in suite["labels"] if x["label"] == label)
        frame = summariser_windows(store, suite_id, entry["summariser"], timed_only=True)
        ends = frame["seconds"].cum_sum().to_list()
        starts = [0.0, *ends[:-1]]
        rates = (frame["count"] / frame["seconds"]).to_list()
        return {
            "label": label,
            "window_s": None,
            "t_s": starts,
            "throughput": rates,
            "latency_ms": {"mean": frame["avg_ms"].to_list()},
            # Active: at each line (null on pre-3.0 lines)
            "threads": frame["active_threads"].cast(pl.Float64).to_list(),
            "errors": (frame["errors"] / frame["seconds"]).to_list(),
        }
    assert windows is not None, "a JTL suite's series come from window_series_by_label"
    # every window of the suite, empty ones as 0; the last one is the test's final,
    # partial window (the test stops inside it): dropped, as in the analysis
    frame = windows.head(-1)
    if frame.is_empty():
        return {"label": label, "window_s": window_s, "t_s": [], "throughput": [], "latency_ms": {}}
    return {
        "label": label,
        "window_s": window_s,
        "t_s": frame["t_s"].to_list(),
        "throughput": frame["throughput"].to_list(),
        "latency_ms": {p: frame[p].to_list() for p in ("p50", "p95", "p99")},
        "threads": frame["threads"].to_list(),
        "errors": (frame["errors"] / window_s).to_list(),
    }


def jmeter_dashboard_charts(
    store: Store, n: int, suite_id: int, suite: dict[str, Any], window_s: float
) -> tuple[list[Block], dict[str, Any] | None]:
    """JMeter's dashboard charts of one JTL suite (pipeline/load.py ``dashboard_charts``):
    response codes per second, bytes throughput, latency and connect time over time, the
    response-time distribution, the percentiles curve (0–100) and response time vs active
    threads; the per-label charts hold ALL and the :data:`MAX_PICKER_LABELS` − 1 busiest
    labels, one shown at a time by the page's label picker (``report.js``). Also the
    picker's entry of report-data (suite, labels, figure ids). None for a summariser log
    (no samples)."""
    if suite["source"] == "summariser":
        return [], None
    from toolkit.pipeline.load import dashboard_charts

    others = sorted(
        (lab for lab in suite["labels"] if lab["label"] != "ALL"),
        key=lambda lab: (-lab["samples"], lab["label"]),
    )
    labels = ["ALL", *(lab["label"] for lab in others)][:MAX_PICKER_LABELS]
    charts = dashboard_charts(store, suite_id, window_s=window_s, labels=labels)
    if not charts["t_s"]:
        return [], None
    # the last window is the test's final, partial one: dropped, as in the other charts
    t_s = charts["t_s"][:-1]
    per = charts["labels"]
    prefix = f"fig-jm-{n}"
    figs = [
        Chart(
            f"{prefix}-codes",
            figures.codes_chart(t_s, {c: v[:-1] for c, v in charts["codes"].items()}),
            caption=f"Per {window_s:g} s window, ALL's samples by response code.",
        ),
        Chart(
            f"{prefix}-bytes",
            figures.bytes_chart(
                t_s, charts["received_bytes_per_s"][:-1], charts["sent_bytes_per_s"][:-1]
            ),
            caption=f"Per {window_s:g} s window, ALL's samples (JTL bytes and sentBytes).",
        ),
        Chart(
            f"{prefix}-latency",
            figures.label_time_chart(
                t_s,
                {lab: per[lab]["latency_ms"][:-1] for lab in labels},
                {lab: per[lab]["connect_ms"][:-1] for lab in labels},
                first="ALL",
            ),
            caption=(
                "Mean latency (time to first byte) and connect time per window of the label "
                "picked above (JMeter's Latencies and Connect Time Over Time)."
            ),
        ),
        Chart(
            f"{prefix}-distribution",
            figures.distribution_chart(
                {lab: per[lab]["distribution"] for lab in labels}, first="ALL"
            ),
            caption="Samples per response-time bar of the label picked (whole run).",
        ),
        Chart(
            f"{prefix}-percentiles",
            figures.percentile_curve_chart(
                {lab: per[lab]["percentiles"] for lab in labels}, first="ALL"
            ),
            caption=(
                "Response time at each percentile 0–100 of the label picked (whole run, "
                "LEGACY estimator as every percentile here); 0 ms is drawn on the dotted "
                f"line at {figures.ZERO_FLOOR_MS:g} ms, half the JTL's 1 ms resolution."
            ),
        ),
    ]
    if any(per[lab]["vs_threads"]["threads"] for lab in labels):
        figs.append(
            Chart(
                f"{prefix}-threads",
                figures.threads_chart({lab: per[lab]["vs_threads"] for lab in labels}, first="ALL"),
                caption=(
                    "Mean response time of the label picked per number of active threads "
                    "(allThreads, else grpThreads, of each sample)."
                ),
            )
        )
    blocks: list[Block] = list(figs)
    if len(suite["labels"]) > len(labels):
        blocks.append(
            Text(
                f"{suite['suite']}: the label picker holds ALL and the "
                f"{len(labels) - 1} busiest of {len(suite['labels']) - 1} labels; every "
                "label is in the tables below."
            )
        )
    picker = {
        "suite": suite["suite"],
        "labels": labels,
        "figures": [c.div_id for c in figs[2:]],
        "window_s": window_s,
    }
    return blocks, picker


def _ms(value: float | None) -> str:
    """Milliseconds: whole with thousands separators from 100 ms, 3 significant digits
    below (never ``2.178e+04``)."""
    return fmt_num(value)


def _at_s(value: float) -> str:
    """A time into the run in seconds, plain digits (``1,200 s``, ``12.5 s``)."""
    return f"{value:,.10g} s"


#: Error rate (percent, as shown) above which an errors cell is red.
ERROR_PCT_BAD = 1.0


def _labels_table(n: int, suite: dict[str, Any]) -> Table:
    """Per label: samples, errors, warm-up end, steady and whole-run throughput and
    percentiles, APDEX."""

    def pcts(lat: dict[str, Any] | None) -> Cell:
        if not lat or lat.get("p50") is None:
            mean = (lat or {}).get("mean")
            return Cell(f"mean {_ms(mean)}" if mean is not None else "–", mean)
        return Cell(" / ".join(_ms(lat.get(p)) for p in ("p50", "p95", "p99")), lat.get("p99"))

    rows = []
    for lab in suite["labels"]:
        tp = lab["throughput"]
        steady = "–"
        if tp["steady"] is not None:
            ci = tp["steady_ci"]
            steady = (
                fmt_interval(tp["steady"], ci[0], ci[1])
                if ci is not None
                else fmt_num(tp["steady"])
            )
        status = lab["warmup_status"]
        window = lab.get("steady_window")
        # the class names of --json and the table (README, Load tests), verbatim
        end = (
            Cell(_at_s(lab["warmup_end_s"]), lab["warmup_end_s"])
            if status in ("warmup", "flat") and lab["warmup_end_s"] is not None
            else Cell(status, None, "bad" if status in ("no-steady-state", "inconclusive") else "")
        )
        if window is not None and window["source"] == "user":
            end = Cell(
                f"{status}; steady set {_at_s(window['from_s'])}–{_at_s(window['to_s'])}",
                window["from_s"],
            )
        cool = lab.get("cooldown_start_s")
        cooldown = (
            Cell(_at_s(cool), cool)
            if cool is not None and status in ("warmup", "flat")
            else Cell("", None)
        )
        rows.append(
            (
                Cell(lab["label"]),
                num(lab["samples"], ",.0f"),
                Cell(
                    f"{lab['errors']:,} ({fmt_error_pct(lab['error_rate'])})"
                    if lab["error_rate"] is not None
                    else f"{lab['errors']:,}",
                    lab["errors"],
                    "bad" if error_pct_above(lab["error_rate"], ERROR_PCT_BAD) else "",
                ),
                end,
                cooldown,
                Cell(steady, tp["steady"]),
                num(tp["overall"], fmt_num),
                pcts(lab["latency_ms"]["steady"]),
                pcts(lab["latency_ms"]["overall"]),
                num(lab["apdex"], ".3f"),
            )
        )
    return Table(
        f"table-load-{n}",
        f"{suite['suite']}: warm-up, steady state and latency per label (ALL = every "
        "sample but transaction controllers)",
        (
            Column("label"),
            Column("samples", True),
            Column("errors", True),
            Column("warm-up ends", True, "MSER-5 on per-window throughput (White 1997)"),
            Column(
                "cool-down from",
                True,
                "MSER-5 run backwards from the end: where throughput falls as threads finish "
                "(blank: no cool-down)",
            ),
            Column(
                "steady throughput /s (95 % CI)",
                True,
                "batch means between the warm-up end and the cool-down start; the interval "
                "as lower–upper when it is not symmetric (clamped at 0)",
            ),
            Column("whole-run throughput /s", True),
            Column(
                "steady p50 / p95 / p99 ms",
                True,
                "exact, between the warm-up end and the cool-down start",
            ),
            Column("whole-run p50 / p95 / p99 ms", True, "exact, every sample"),
            Column("APDEX", True, apdex_thresholds_text(suite.get("apdex_thresholds"))),
        ),
        tuple(rows),
    )


def apdex_thresholds_text(limits: dict[str, Any] | None) -> str:
    """``T = 500 ms, F = 1500 ms`` and each per-label override (``login: 1000/3000 ms``)."""
    limits = limits or ApdexThresholds().as_json()
    text = f"T = {limits['satisfied_ms']} ms, F = {limits['tolerated_ms']} ms"
    for entry in limits["per_label"]:
        text += f"; {entry['pattern']}: {entry['satisfied_ms']}/{entry['tolerated_ms']} ms"
    return text


def _dashboard_table(n: int, suite: dict[str, Any]) -> Table:
    """JMeter's dashboard Statistics table with APDEX, as JMeter computes it."""
    rows = []
    for row in suite["dashboard"]:
        rows.append(
            (
                Cell(row["transaction"]),
                num(row["sampleCount"], ",.0f"),
                num(row["errorCount"], ",.0f"),
                num(row["errorPct"], error_pct_text),
                *(
                    num(row[key], _ms)
                    for key in (
                        "meanResTime",
                        "minResTime",
                        "maxResTime",
                        "medianResTime",
                        "pct1ResTime",
                        "pct2ResTime",
                        "pct3ResTime",
                    )
                ),
                num(row["throughput"], fmt_num),
                num(row["receivedKBytesPerSec"], fmt_num),
                num(row["sentKBytesPerSec"], fmt_num),
                num(row["apdex"], ".3f"),
            )
        )
    return Table(
        f"table-jmeter-{n}",
        f"{suite['suite']}: JMeter dashboard Statistics and APDEX "
        f"({apdex_thresholds_text(suite.get('apdex_thresholds'))}), "
        "over all samples with JMeter's LEGACY percentile estimator",
        (
            Column("Label"),
            Column("#Samples", True),
            Column("FAIL", True),
            Column("Error %", True),
            Column("Average ms", True),
            Column("Min ms", True),
            Column("Max ms", True),
            Column("Median ms", True),
            Column("90th pct ms", True),
            Column("95th pct ms", True),
            Column("99th pct ms", True),
            Column("Transactions/s", True),
            Column("Received KB/s", True),
            Column("Sent KB/s", True),
            Column("APDEX", True),
        ),
        tuple(rows),
    )


def _errors_tables(n: int, suite: dict[str, Any]) -> list[Table]:
    """JMeter's dashboard Errors table and Top 5 Errors by sampler table (types and labels
    are untrusted text: Cell text is escaped by the template)."""
    types = suite.get("dashboard_errors") or []
    if not types:
        return []
    by_type = Table(
        f"table-jmeter-errors-{n}",
        f"{suite['suite']}: errors by type, as JMeter's dashboard groups them "
        "(response code/message, or the assertion's failure message), over all samples "
        "but transaction-controller ones"
        + (
            f"; the {len(types)} most frequent of {len(types) + hidden:,} types (all in "
            "warmup load --json)"
            if (hidden := int(suite.get("error_types_not_shown") or 0))
            else ""
        ),
        (
            Column("Type of error"),
            Column("Number of errors", True),
            Column("% in errors", True),
            Column("% in all samples", True),
        ),
        tuple(
            (
                Cell(row["type"]),
                num(row["errorCount"], ",.0f"),
                num(row["pctInErrors"], error_pct_text),
                num(row["pctInAllSamples"], error_pct_text),
            )
            for row in types
        ),
    )
    samplers = suite.get("dashboard_top_errors") or []
    # as many error columns as the most varied sampler needs (JMeter always shows five)
    width = min(TOP_ERRORS, max(len(row["errors"]) for row in samplers))
    rows = []
    for row in samplers:
        slots: list[Cell] = []
        for i in range(width):
            if i < len(row["errors"]):
                error = row["errors"][i]
                slots += [Cell(error["type"]), num(error["errorCount"], ",.0f")]
            else:
                slots += [Cell(""), Cell("", None)]
        rows.append(
            (
                Cell(row["sample"]),
                num(row["sampleCount"], ",.0f"),
                num(row["errorCount"], ",.0f"),
                *slots,
            )
        )
    top = Table(
        f"table-jmeter-top-errors-{n}",
        f"{suite['suite']}: top {TOP_ERRORS} errors by sampler (JMeter's table; labels "
        "without errors left out)",
        (
            Column("Sample"),
            Column("#Samples", True),
            Column("#Errors", True),
            *(
                column
                for i in range(1, width + 1)
                for column in (Column(f"Error {i}"), Column(f"#Errors {i}", True))
            ),
        ),
        tuple(rows),
    )
    return [by_type, top]


def _no_littles_law(suite: dict[str, Any]) -> str:
    """Why a load suite has no Little's-law check (pipeline/load.py sets it None)."""
    all_label = next((x for x in suite["labels"] if x["label"] == "ALL"), None)
    if all_label is None or all_label["warmup_status"] not in ("warmup", "flat"):
        status = all_label["warmup_status"] if all_label else "no samples"
        return f"no steady state to check it on: ALL is {status}"
    if all_label["threads_steady"] is None and suite.get("source") == "summariser":
        return (
            "a summariser log whose lines have no Active: thread counts (an old JMeter); "
            "a JTL of the run gives the check"
        )
    if all_label["threads_steady"] is None:
        return "the file has no thread counts: no grpThreads or allThreads column"
    return "no steady throughput or latency"


def _littles_law_table(n: int, suite: dict[str, Any]) -> Table | Text:
    """Little's law on the steady part: N = X·(R + Z) (Little 1961)."""
    law = suite["littles_law"]
    if law is None:
        return Text(f"{suite['suite']}: Little's law not checked ({_no_littles_law(suite)}).")
    busy = law["busy_fraction"]
    tone: Tone
    if law.get("verdict") == "inconsistent":
        verdict, tone = (
            "inconsistent data: more requests in flight than threads (thread counts miss "
            "load generators, or a stall)",
            "bad",
        )
    elif busy >= 0.9:
        verdict, tone = (
            "saturated closed loop: threads never pause, throughput is set by latency "
            "(coordinated omission)",
            "bad",
        )
    else:
        verdict, tone = (
            f"threads wait {fmt_seconds(law['think_s'])} between requests: latency does not "
            "set the throughput",
            "good",
        )
    return Table(
        f"table-little-{n}",
        f"{suite['suite']}: Little's law on the steady part (threads N = throughput X × "
        "(latency R + think time Z))",
        (
            Column("threads N", True),
            Column("throughput X /s", True),
            Column("mean latency R", True),
            Column("busy threads X·R", True),
            Column("busy fraction X·R/N", True),
            Column("implied think time Z", True),
            Column("verdict"),
        ),
        (
            (
                num(law["threads"], fmt_num),
                num(law["throughput"], fmt_num),
                num(law["latency_s"], fmt_seconds),
                num(law["throughput"] * law["latency_s"], fmt_num),
                Cell(fmt_pct(busy, signed=False), busy, tone),
                num(law["think_s"], fmt_seconds),
                Cell(verdict, None, tone),
            ),
        ),
    )


#: Labels a load suite's tables show (ALL and the busiest others, by samples), and error
#: types (the most frequent); the rest are summarised with their count and are all in
#: ``warmup load --json``: a JTL of 100,000 distinct labels made a 205 MB report in 159 s
MAX_LOAD_TABLE_LABELS = 100


def _shown_labels(suite: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """``suite`` with its per-label lists (labels, JMeter's Statistics rows, top errors by
    sampler) cut to :data:`MAX_LOAD_TABLE_LABELS` entries, ALL and the busiest labels kept
    in their order, and its error types to the as many most frequent
    (``error_types_not_shown``: how many more); and how many labels were left out."""
    labels = suite["labels"]
    types = suite.get("dashboard_errors") or []
    if len(types) > MAX_LOAD_TABLE_LABELS:
        # the most frequent error types (the list comes most errors first): 100,000
        # distinct response messages made a 23 MB report
        suite = {
            **suite,
            "dashboard_errors": types[:MAX_LOAD_TABLE_LABELS],
            "error_types_not_shown": len(types) - MAX_LOAD_TABLE_LABELS,
        }
    if len(labels) <= MAX_LOAD_TABLE_LABELS:
        return suite, 0
    busiest = sorted(labels, key=lambda lab: (lab["label"] != "ALL", -lab["samples"]))
    keep = {lab["label"] for lab in busiest[:MAX_LOAD_TABLE_LABELS]}
    rows_kept = keep | {"Total"}
    shown = {
        **suite,
        "labels": [lab for lab in labels if lab["label"] in keep],
        # JMeter's Statistics table: the shown labels and its Total row
        "dashboard": [row for row in suite["dashboard"] if row["transaction"] in rows_kept],
        "dashboard_top_errors": [
            row for row in suite.get("dashboard_top_errors") or [] if row["sample"] in keep
        ],
        "labels_not_shown": len(labels) - len(keep),
    }
    return shown, len(labels) - len(keep)


def load_section(ctx: ReportContext) -> Section | None:
    """Load tests (pipeline/load.py): throughput and p50/p95/p99 over time per label with
    the warm-up cut shaded and the steady band, the per-label table, JMeter's Statistics
    and APDEX table, and the Little's-law verdict."""
    result = load_result(ctx)
    if result is None:
        return None
    from toolkit.pipeline.load import window_series_by_label

    ids, payload = result
    blocks: list[Block] = []
    plotted: list[dict[str, Any]] = []
    pickers: list[dict[str, Any]] = []
    budget = MAX_LOAD_CHARTS
    n_charts = 0
    shown_suites = []
    for n, (suite_id, full_suite) in enumerate(zip(ids, payload["suites"], strict=True)):
        suite, not_shown = _shown_labels(full_suite)
        shown_suites.append(suite)
        labels = suite["labels"]
        all_label = next(lab for lab in labels if lab["label"] == "ALL")
        window = chart_window_s(all_label["duration_s"], float(suite["window_s"] or 1.0))
        # ALL first, then the busiest labels while the chart budget lasts
        others = sorted(
            (lab for lab in labels if lab["label"] != "ALL"),
            key=lambda lab: (-lab["samples"], lab["label"]),
        )
        # an even share of the budget per suite left, ALL first; none once it is spent
        left = len(ids) - n
        remaining = max(budget // left, 1) if budget > 0 else 0
        chosen = [all_label, *others][:remaining]
        budget -= len(chosen)
        suite_threads: list[float | None] | None = None
        windows = (
            window_series_by_label(
                ctx.store, suite_id, [lab["label"] for lab in chosen], window_s=window
            )
            if suite["source"] != "summariser"
            else {}
        )
        for lab in chosen:
            series = _load_series(
                ctx.store, suite_id, suite, lab["label"], window, windows.get(lab["label"])
            )
            if lab is all_label:
                suite_threads = series.get("threads")
            series["suite"] = suite["suite"]
            plotted.append(series)
            tp = lab["throughput"]
            ci = tp["steady_ci"]
            steady_ok = lab["warmup_status"] in ("warmup", "flat")
            title = f"{suite['suite']} · {lab['label']}" if len(ids) > 1 else lab["label"]
            blocks.append(
                Chart(
                    f"fig-load-{n_charts}",
                    figures.load_chart(
                        title=figures.plot_text(title),
                        t_s=series["t_s"],
                        throughput=series["throughput"],
                        percentiles=series["latency_ms"],
                        warmup_end_s=lab["warmup_end_s"] if steady_ok else None,
                        steady_throughput=tp["steady"],
                        steady_ci=(ci[0], ci[1]) if ci is not None else None,
                        cooldown_start_s=lab.get("cooldown_start_s") if steady_ok else None,
                        # the suite's threads (ALL's series, drawn first): a label's own
                        # windows know them only where it completed a sample
                        threads=suite_threads,
                        errors=series.get("errors"),
                    ),
                    caption=(
                        f"Per {series['window_s']:g} s window"
                        if series["window_s"]
                        else "Per summariser line"
                    )
                    + ": throughput (top) and latency (bottom, log); grey = "
                    + _cut_words(full_suite, lab is all_label)
                    + ", dashed green = steady throughput with its 95 % CI band"
                    + (
                        ", grey line = active threads (right axis)"
                        if any(v is not None for v in suite_threads or ())
                        else ""
                    )
                    + (
                        ", dotted red = failed samples/s"
                        if any(v is not None and v > 0 for v in series.get("errors") or ())
                        else ""
                    )
                    + ".",
                )
            )
            n_charts += 1
        dashboard_blocks, picker = jmeter_dashboard_charts(ctx.store, n, suite_id, suite, window)
        blocks.extend(dashboard_blocks)
        if picker is not None:
            pickers.append(picker)
        skipped = len(labels) - len(chosen)
        if skipped:
            blocks.append(
                Text(
                    f"{suite['suite']}: {plural(skipped, 'label')} in the tables below, not "
                    f"drawn (at most {MAX_LOAD_CHARTS} load charts per report)."
                )
            )
        if not_shown:
            blocks.append(
                Text(
                    f"{suite['suite']}: {plural(not_shown, 'more label')} with fewer samples "
                    f"not in the tables (at most {MAX_LOAD_TABLE_LABELS} per suite); "
                    "`warmup load --json` gives every label."
                )
            )
        blocks.append(_labels_table(n, suite))
        if suite["dashboard"]:
            blocks.append(_dashboard_table(n, suite))
        blocks.extend(_errors_tables(n, suite))
        blocks.append(_littles_law_table(n, suite))
    data = {
        **payload,
        "suites": shown_suites,
        "series": plotted,
        "max_windows": MAX_LOAD_WINDOWS,
        "label_pickers": pickers,
    }
    return Section(
        "load",
        "Load test",
        (
            "Throughput and latency percentiles over the run, aggregated per window in the "
            f"store (at most {MAX_LOAD_WINDOWS:,} windows per line, whatever the number of "
            "samples); warm-up end by MSER-5, change points and the latency's warm-up curve "
            "(warmup_rule), steady throughput with a batch-means CI."
        ),
        tuple(blocks),
        data,
    )


def _cut_words(suite: dict[str, Any], is_all: bool) -> str:
    """What the grey parts of a load chart are: the warm-up and a cool-down, or for ALL's
    chart what the suite's findings call them instead (``load-fast-start``: the run
    started faster than it went on; ``load-slowdown``: the server slowed down at the
    end), so the chart does not say "warm-up" where the findings say otherwise."""
    rules = {f.get("rule") for f in suite.get("findings") or ()} if is_all else set()
    start = "a fast start (load-fast-start)" if "load-fast-start" in rules else "warm-up"
    end = "a slowdown (load-slowdown)" if "load-slowdown" in rules else "a cool-down"
    return f"{start} (and, at the end, {end})"
