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


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _print_load(payload: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(markup=False, highlight=False)
    for suite in payload["suites"]:
        table = Table(
            "label",
            "samples",
            "errors",
            "warm-up end s",
            "steady QPS ± CI",
            "p50/p95/p99 steady ms",
            "p50/p95/p99 all ms",
            "APDEX",
            title=Text(f"{suite['suite']} ({suite['source']})"),
        )
        for lab in suite["labels"]:
            tp = lab["throughput"]
            if tp["steady"] is not None and tp["steady_ci"] is not None:
                half = (tp["steady_ci"][1] - tp["steady_ci"][0]) / 2
                qps = f"{tp['steady']:.4g} ± {half:.2g}"
            else:
                qps = "-"
            status = lab["warmup_status"]
            end = _fmt(lab["warmup_end_s"]) if status in ("warmup", "none") else status
            steady = lab["latency_ms"]["steady"] or {}
            overall = lab["latency_ms"]["overall"]
            cells = (
                lab["label"],
                str(lab["samples"]),
                str(lab["errors"]),
                end,
                qps,
                "/".join(_fmt(steady.get(p)) for p in ("p50", "p95", "p99")),
                "/".join(_fmt(overall.get(p)) for p in ("p50", "p95", "p99")),
                _fmt(lab["apdex"], 3),
            )
            # Text() cells: labels are untrusted and must not be read as rich markup
            table.add_row(*(Text(c) for c in cells))
        console.print(table)
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
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(
        "label",
        "steady QPS A",
        "steady QPS B",
        "B/A (95 % CI)",
        "mean ms A",
        "mean ms B",
        "B/A (95 % CI)",
        title=Text(f"B = {payload['b']}  vs  A = {payload['a']}"),
    )
    for row in payload["labels"]:
        cells = [row["label"]]
        for key in ("throughput", "latency_mean_ms"):
            part = row[key]
            ci = part["ci"]
            ratio = _fmt(part["ratio"], 3) + (f" ({ci[0]:.3g}-{ci[1]:.3g})" if ci else "")
            cells += [_fmt(part["a"]), _fmt(part["b"]), ratio]
        table.add_row(*(Text(c) for c in cells))
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
