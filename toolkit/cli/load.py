"""``warmup load`` and ``warmup compare``: load-test warm-up, steady state and A/B ratios."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from toolkit.cli.common import (
    DbOption,
    JsonOption,
    PathsArgument,
    analysis_store,
    app,
    fail,
    info,
    print_json,
    run_ingest,
    scratch_store,
    with_errors,
)
from toolkit.errors import UsageError
from toolkit.pipeline.load import compare_report, load_report, parse_window
from toolkit.store import open_store

WindowOption = Annotated[
    str, typer.Option("--window", help="Window for throughput series: 1s, 500ms, 1m.")
]


def _fmt(value: Any) -> str:
    """A table number in plain digits (``21,782``, ``12.3``; never ``2.178e+04``)."""
    from toolkit.report.numbers import fmt_num

    if value is None:
        return "-"
    if isinstance(value, float):
        return fmt_num(value)
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _seconds(value: float | None) -> str:
    """A time into the run in seconds, plain digits; blank when there is none."""
    return "" if value is None else f"{value:,.10g}"


def _table(title: str, *headers: str) -> Any:
    """A rich table readable at 80 columns: light rules and no outer edge, numbers never
    wrapped or cut, the first column (labels, untrusted and of any length) folded onto
    more lines when the numbers leave it too little room."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title), box=box.SIMPLE_HEAD, show_edge=False)
    for n, header in enumerate(headers):
        if n == 0:
            table.add_column(header, overflow="fold")
        else:
            table.add_column(header, justify="right" if header else "left", no_wrap=True)
    return table


def _steady_span(lab: dict[str, Any]) -> str:
    """Where the steady part lies, in seconds into the run: ``72–647`` (warm-up end to
    cool-down start), ``16–end`` without a cool-down, else the warm-up status."""
    status = str(lab["warmup_status"])
    if status not in ("warmup", "none") or lab["warmup_end_s"] is None:
        return status
    cool = lab.get("cooldown_start_s")
    return f"{_seconds(lab['warmup_end_s'])}–{'end' if cool is None else _seconds(cool)}"


def _print_load(payload: dict[str, Any]) -> None:
    """Per suite: a throughput table (warm-up end, cool-down start, steady rate with its
    95 % CI, shown as lower–upper when the interval is clamped at 0) and a latency table,
    each readable at 80 columns."""
    from rich.console import Console
    from rich.text import Text

    from toolkit.report.numbers import fmt_error_pct, fmt_interval

    console = Console(markup=False, highlight=False)
    for suite in payload["suites"]:
        rates = _table(
            f"{suite['suite']} ({suite['source']})",
            "label",
            "samples",
            "errors",
            "steady\nfrom–to s",
            "steady /s\n(95 % CI)",
            "APDEX",
        )
        with_pcts = any(
            lab["latency_ms"]["overall"].get("p50") is not None for lab in suite["labels"]
        )
        if with_pcts:
            latency = _table(
                f"{suite['suite']}: latency ms",
                "label",
                "steady\np50",
                "\np95",
                "\np99",
                "all\np50",
                "\np95",
                "\np99",
            )
        else:
            latency = _table(
                f"{suite['suite']}: mean latency ms",
                "label",
                "steady\nmean",
                "all\nmean",
            )
        for lab in suite["labels"]:
            tp = lab["throughput"]
            ci = tp["steady_ci"]
            if tp["steady"] is None:
                qps = "-"
            elif ci is None:
                qps = _fmt(tp["steady"])
            else:
                qps = fmt_interval(tp["steady"], ci[0], ci[1])
            errors = f"{lab['errors']:,}"
            if lab["error_rate"] is not None and lab["errors"]:
                errors += f" ({fmt_error_pct(lab['error_rate'])})"
            cells = (
                lab["label"],
                f"{lab['samples']:,}",
                errors,
                _steady_span(lab),
                qps,
                "-" if lab["apdex"] is None else f"{lab['apdex']:.3f}",
            )
            # Text() cells: labels are untrusted and must not be read as rich markup
            rates.add_row(*(Text(c) for c in cells))
            steady = lab["latency_ms"]["steady"] or {}
            overall = lab["latency_ms"]["overall"]
            if with_pcts:
                lat = [
                    _fmt(part.get(p)) for part in (steady, overall) for p in ("p50", "p95", "p99")
                ]
            else:
                lat = [_fmt(steady.get("mean")), _fmt(overall.get("mean"))]
            latency.add_row(Text(lab["label"]), *(Text(c) for c in lat))
        console.print(rates)
        console.print(latency)
        for finding in suite["findings"]:
            console.print(
                Text(f"{finding['severity']}: {finding['subject']}: {finding['message']}")
            )
            if finding["advice"]:
                console.print(Text(f"  -> {finding['advice']}"))


@app.command(epilog="Example: warmup load results.jtl jmeter.log --window 5s")
@with_errors
def load(
    paths: PathsArgument = None,
    db: DbOption = None,
    window: WindowOption = "1s",
    suite: Annotated[
        list[str] | None, typer.Option("--suite", help="Only this suite (repeatable).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Load-test warm-up end, steady throughput (± 95 % CI) and exact latency percentiles.

    Per suite and label (ALL = the whole suite without transaction-controller and
    sub-result rows): warm-up end by MSER-5, steady QPS with a batch-means CI, p50/p95/p99
    steady and over all samples (exact; JMeter's LEGACY estimator), errors, APDEX
    (500/1500 ms), JMeter's dashboard statistics, and a Little's-law check. Works from
    JTLs (CSV/XML) or, without them, from summariser lines of a JMeter log.
    """
    window_s = _window(window)
    with analysis_store(paths, db) as store:
        payload = load_report(store, suite or None, window_s=window_s)
    if as_json:
        print_json(payload)
    else:
        _print_load(payload)


def _window(text: str) -> float:
    """``--window`` in seconds; a value it cannot use is a usage error (exit 2)."""
    try:
        return parse_window(text)
    except UsageError as exc:
        fail(str(exc), code=2)


def _print_compare(payload: dict[str, Any]) -> None:
    """One row per label and steady measure (throughput, mean latency): A, B and the ratio
    B/A with its Fieller interval, readable at 80 columns."""
    from rich.console import Console
    from rich.text import Text

    from toolkit.report.numbers import fmt_ratio

    level = f"{payload.get('level', 0.95):.0%}"
    table = _table(
        f"B = {payload['b']}  vs  A = {payload['a']}",
        "label",
        "",
        "A",
        "B",
        f"B/A\n({level} CI)",
    )
    for row in payload["labels"]:
        parts = (("throughput", "QPS"), ("latency_mean_ms", "mean ms"))
        for n, (key, name) in enumerate(parts):
            part = row[key]
            ci = part["ci"]
            ratio = fmt_ratio(part["ratio"]) if part["ratio"] is not None else "-"
            if ci:
                ratio += f" ({fmt_ratio(ci[0])}–{fmt_ratio(ci[1])})"
            cells = (row["label"] if n == 0 else "", name, _fmt(part["a"]), _fmt(part["b"]), ratio)
            table.add_row(*(Text(c) for c in cells), end_section=n == len(parts) - 1)
    Console(markup=False, highlight=False).print(table)


@app.command(
    epilog="Example: warmup compare --db runs.duckdb off on   (or: warmup compare a.jtl b.jtl)"
)
@with_errors
def compare(
    a: Annotated[str, typer.Argument(help="Baseline: a suite name in --db, or a result file.")],
    b: Annotated[str, typer.Argument(help="Candidate: a suite name in --db, or a result file.")],
    db: DbOption = None,
    window: WindowOption = "1s",
    as_json: JsonOption = False,
) -> None:
    """Compare two load suites: steady throughput and latency ratios B/A with 95 % CIs.

    Ratios of steady-state means (after each suite's own warm-up end), with Fieller
    intervals over batch means (Kalibera & Jones 2013). A and B are suite names in --db,
    or two files (each read into its own suite).
    """
    window_s = _window(window)
    files = [Path(a), Path(b)]
    if all(p.is_file() for p in files):
        with open_store(db) if db is not None else scratch_store(files) as store:
            report = run_ingest(store, files, quiet_stored=True)
            names = [r.suites[0] for r in report.results if r.suites]
            if len(names) != 2:
                fail("the two files must hold load results (JTL or JMeter log) and differ")
            payload = compare_report(store, names[0], names[1], window_s=window_s)
    elif db is not None:
        if a == b:
            fail(f"A and B are both suite {a!r}: compare two different suites", code=2)
        with open_store(db, read_only=True) as store:
            payload = compare_report(store, a, b, window_s=window_s)
    else:
        fail("give two result files, or two suite names with --db STORE", code=2)
    for note in payload["notes"]:
        info(f"note: {note}")
    if as_json:
        print_json(payload)
    else:
        _print_compare(payload)
