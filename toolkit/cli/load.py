"""``warmup load`` and ``warmup compare``: load-test warm-up, steady state and A/B ratios."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from toolkit.cli.common import (
    ColumnsOption,
    DbOption,
    DelimiterOption,
    EncodingOption,
    FormatOption,
    InputSpec,
    JsonOption,
    PathsArgument,
    TimeFormatOption,
    TimezoneOption,
    app,
    info,
    ingested_store,
    input_spec,
    print_json,
    run_ingest,
    scratch_store,
    with_errors,
)
from toolkit.errors import UsageError
from toolkit.ingest import PathReport
from toolkit.pipeline.load import compare_report, load_report, parse_window
from toolkit.store import Store, open_store

WindowOption = Annotated[
    str,
    typer.Option(
        "--window",
        help="Window of the throughput and latency series: 1s, 500ms, 1m (at least 1ms). "
        "A label with fewer than 10 windows is too-short: use a smaller window.",
        metavar="DURATION",
    ),
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


@app.command(
    epilog=(
        "Example: warmup load results.jtl jmeter.log --window 5s;  "
        "warmup load latin.csv --encoding cp1252"
    )
)
@with_errors
def load(
    paths: PathsArgument = None,
    db: DbOption = None,
    window: WindowOption = "1s",
    suite: Annotated[
        list[str] | None,
        typer.Option("--suite", help="Only this suite (repeatable).", metavar="NAME"),
    ] = None,
    as_json: JsonOption = False,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    delimiter: DelimiterOption = None,
    columns: ColumnsOption = None,
    time_format: TimeFormatOption = None,
    timezone: TimezoneOption = None,
) -> None:
    """Load-test warm-up end, steady throughput (± 95 % CI) and exact latency percentiles.

    Per suite and label (ALL = the whole suite without transaction-controller and
    sub-result rows): warm-up end by MSER-5, steady QPS with a batch-means CI, p50/p95/p99
    steady and over all samples (exact; JMeter's LEGACY estimator), errors, APDEX
    (500/1500 ms), JMeter's dashboard statistics, and a Little's-law check. Reads JTLs
    (CSV/XML) and JMeter console logs (their summariser lines); each file is its own suite,
    named after the file (to join files into one suite: warmup ingest --suite NAME --db
    STORE). With --db and files, only those files' suites are shown.
    """
    window_s = _window(window)
    spec = input_spec(
        format=format,
        encoding=encoding,
        delimiter=delimiter,
        columns=columns,
        time_format=time_format,
        timezone=timezone,
    )
    with ingested_store(paths, db, spec) as (store, report):
        names = suite or None
        if names is None and report is not None and db is not None:
            # a store holds other suites too: show the ones the given files are
            names = _load_suites(store, report) or _no_load_suites()
        payload = load_report(store, names, window_s=window_s)
    if as_json:
        print_json(payload)
    else:
        _print_load(payload)


def _load_suites(store: Store, report: PathReport) -> list[str]:
    """The load suites the files of ``report`` were read into (or found already in)."""
    kinds = dict(store.con.execute("SELECT name, kind FROM suites").fetchall())
    names = (name for result in report.results for name in result.suites)
    return [name for name in dict.fromkeys(names) if kinds.get(name) == "load"]


def _no_load_suites() -> NoReturn:
    raise UsageError("no load-test suites (JMeter JTL or summariser log) in the input")


def _window(text: str) -> float:
    """``--window`` in seconds; a value it cannot use is an option value error (exit 1)."""
    return parse_window(text)


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
    epilog=(
        "Example: warmup compare off.jtl on.jtl;  warmup compare --db runs.duckdb off on;  "
        "warmup compare --db runs.duckdb off on.jtl"
    )
)
@with_errors
def compare(
    a: Annotated[
        str,
        typer.Argument(
            help="Baseline A: a result file (or folder), or a suite name in --db.",
            metavar="A",
            show_default=False,
        ),
    ],
    b: Annotated[
        str,
        typer.Argument(
            help="Candidate B: a result file (or folder), or a suite name in --db.",
            metavar="B",
            show_default=False,
        ),
    ],
    db: DbOption = None,
    window: WindowOption = "1s",
    as_json: JsonOption = False,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    delimiter: DelimiterOption = None,
    columns: ColumnsOption = None,
    time_format: TimeFormatOption = None,
    timezone: TimezoneOption = None,
) -> None:
    """Compare two load suites: steady throughput and latency ratios B/A with 95 % CIs.

    Ratios of steady-state means (after each suite's own warm-up end), with Fieller
    intervals over batch means (Kalibera & Jones 2013). A and B are result files (each
    read into its own suite; with --db, a file already stored is not read again) or suite
    names in --db.
    """
    window_s = _window(window)
    spec = input_spec(
        format=format,
        encoding=encoding,
        delimiter=delimiter,
        columns=columns,
        time_format=time_format,
        timezone=timezone,
    )
    files = [Path(x) for x in (a, b) if Path(x).exists()]
    for arg in (a, b):
        if not Path(arg).exists() and (db is None or _looks_like_path(arg)):
            raise UsageError(f"{arg}: no such file or folder (a suite name needs --db STORE)")
    store_cm = (
        open_store(db, on_wait=info)
        if files and db is not None
        else scratch_store(files)
        if files
        else open_store(db, read_only=True, on_wait=info)
    )
    with store_cm as store:
        names = [_compare_suite(store, arg, spec) if Path(arg).exists() else arg for arg in (a, b)]
        if names[0] == names[1]:
            raise UsageError(
                f"A and B are both suite {names[0]!r} ({a}, {b}): compare two different "
                "suites or files"
            )
        payload = compare_report(store, names[0], names[1], window_s=window_s)
    for note in payload["notes"]:
        info(f"note: {note}")
    if as_json:
        print_json(payload)
    else:
        _print_compare(payload)


def _looks_like_path(arg: str) -> bool:
    """Whether a compare argument names a file rather than a suite: it ends like a result
    file (suite names made from files have that ending removed)."""
    from toolkit.ingest.detect import SUFFIXES

    return Path(arg).suffix.lower() in SUFFIXES


def _compare_suite(store: Store, path: str, spec: InputSpec) -> str:
    """The one load suite ``path`` is read into (or was already stored as)."""
    report = run_ingest(
        store, [Path(path)], format=spec.format, options=spec.options, quiet_stored=True
    )
    names = _load_suites(store, report)
    if len(names) != 1:
        found = f"{len(names)} load suites ({', '.join(names)})" if names else "no load test"
        raise UsageError(
            f"{path}: holds {found}; compare needs one load test (JTL or JMeter log) per "
            "side: give one file, or ingest with --suite NAME --db STORE and compare the names"
        )
    return names[0]
