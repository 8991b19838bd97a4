"""``warmup load`` and ``warmup compare``: load-test warm-up, steady state and A/B ratios."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from toolkit.cli.common import (
    ColumnsOption,
    ConfigOption,
    DbOption,
    DelimiterOption,
    EncodingOption,
    FailOnOption,
    FormatOption,
    InputSpec,
    JsonOption,
    MaxBytesOption,
    PathsArgument,
    TimeFormatOption,
    TimestampsOption,
    TimezoneOption,
    app,
    check_fail_on,
    check_inputs,
    finish,
    info,
    ingested_store,
    input_spec,
    plain,
    print_findings,
    print_json,
    run_ingest,
    scratch_spec,
    scratch_store,
    settings_of,
    with_errors,
)
from toolkit.cli.output import MACHINE_FORMATS, OutputFormat, OutputFormatOption, TableOutput
from toolkit.config import Settings
from toolkit.errors import UsageError
from toolkit.options import (
    RESULT_SUFFIXES,
    apdex_thresholds,
    check_steady_bounds,
    check_store_path,
    parse_steady_bound,
    parse_window,
)

if TYPE_CHECKING:
    from toolkit.ingest import PathReport
    from toolkit.store import Store

ApdexOption = Annotated[
    str | None,
    typer.Option(
        "--apdex",
        help="APDEX thresholds T,F in ms: satisfied up to T, tolerated up to F "
        "(JMeter's apdex_satisfied/tolerated_threshold). [default: 500,1500]",
        metavar="T,F",
    ),
]
ApdexPerLabelOption = Annotated[
    str | None,
    typer.Option(
        "--apdex-per-label",
        help="Per-label APDEX thresholds in JMeter's apdex_per_transaction syntax: "
        "PATTERN:T|F entries separated by ';', PATTERN a regular expression matching the "
        "whole label, the first that matches wins (e.g. 'login:1000|3000;search.*:200|800'). "
        "ALL keeps --apdex.",
        metavar="SPEC",
    ),
]
WindowOption = Annotated[
    str | None,
    typer.Option(
        "--load-window",
        help="Window of the throughput and latency series: 1s, 500ms, 1m (1ms to a week). "
        "A label with fewer than 10 windows is too-short: use a smaller window. "
        "[default: the config file's load_window, else 1s]",
        metavar="DURATION",
    ),
]
#: The option's old spelling, kept working but no longer shown: ``--window`` is a duration
#: here and a count of hot iterations elsewhere (``warmup report --hot-window``).
OldWindowOption = Annotated[str | None, typer.Option("--window", hidden=True, metavar="DURATION")]

SteadyFromOption = Annotated[
    str | None,
    typer.Option(
        "--steady-from",
        help="Start of the steady part, from the first sample start (30s, 1m): every "
        "label's steady figures start here instead of at its detected warm-up end.",
        metavar="DURATION",
    ),
]
SteadyToOption = Annotated[
    str | None,
    typer.Option(
        "--steady-to",
        help="End of the steady part, from the first sample start (50s, 2m): every "
        "label's steady figures end here.",
        metavar="DURATION",
    ),
]


def _mean_text(mean: float | None, step_ms: float | None) -> str:
    """A mean latency cell: ``< 1`` below a summariser log's whole-ms step (its Avg: is
    0 there: the digits would be noise), else :func:`_fmt`."""
    if mean is not None and step_ms is not None and mean < step_ms:
        return f"< {_fmt(step_ms)}"
    return _fmt(mean)


def _fmt(value: Any) -> str:
    """A table number in plain digits (``21,782``, ``12.3``; never ``2.178e+04``)."""
    from toolkit.numbers import fmt_num

    if value is None:
        return "-"
    if isinstance(value, float):
        return fmt_num(value)
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _seconds(value: float | None) -> str:
    """A time into the run in seconds, plain digits to the ms (a JTL's resolution; a
    summariser log's times are sums of count ÷ rate: 29.68317587 was printed); blank
    when there is none."""
    return "" if value is None else f"{round(value, 3):,.10g}"


def _table(title: str, *headers: str) -> Any:
    """A rich table readable at 80 columns: light rules and no outer edge, numbers never
    wrapped or cut, the first column (labels, untrusted and of any length) folded onto
    more lines when the numbers leave it too little room."""
    from rich import box
    from rich.table import Table

    table = Table(title=plain(title), box=box.SIMPLE_HEAD, show_edge=False)
    for n, header in enumerate(headers):
        if n == 0:
            table.add_column(header, overflow="fold")
        else:
            table.add_column(header, justify="right" if header else "left", no_wrap=True)
    return table


#: error types printed per suite (all of them are in --json and the report)
CLI_ERROR_TYPES = 10


def _print_error_types(console: Any, types: list[dict[str, Any]]) -> None:
    """JMeter's Errors table: the most frequent error types (code/message or assertion
    message), their count and share of the errors and of all samples."""
    from rich.text import Text

    from toolkit.numbers import error_pct_text

    if not types:
        return
    table = _table("errors by type (JMeter's)", "type", "errors", "% of errors", "% of all")
    for row in types[:CLI_ERROR_TYPES]:
        cells = (
            row["type"],
            f"{row['errorCount']:,}",
            error_pct_text(row["pctInErrors"]),
            error_pct_text(row["pctInAllSamples"]),
        )
        table.add_row(*(plain(c) for c in cells))
    console.print(table)
    if len(types) > CLI_ERROR_TYPES:
        more = len(types) - CLI_ERROR_TYPES
        console.print(Text(f"  and {more} more error types (--json, warmup report)"))


def _steady_span(lab: dict[str, Any]) -> str:
    """Where the steady part lies, in seconds into the run: ``72–647`` (warm-up end to
    cool-down start), ``16–end`` without a cool-down, else the warm-up status."""
    status = str(lab["warmup_status"])
    window = lab.get("steady_window")
    if window is not None and window["source"] == "user":
        # --steady-from/--steady-to: the user's window, whatever the verdict
        return f"{_seconds(window['from_s'])}–{_seconds(window['to_s'])} (set)"
    if status not in ("warmup", "flat") or lab["warmup_end_s"] is None:
        return status
    cool = lab.get("cooldown_start_s")
    return f"{_seconds(lab['warmup_end_s'])}–{'end' if cool is None else _seconds(cool)}"


def _apdex_text(limits: dict[str, Any]) -> str:
    """``APDEX T 300 ms, F 1,200 ms; login 1,000/3,000 ms`` (the thresholds in use)."""
    text = f"APDEX T {limits['satisfied_ms']:,} ms, F {limits['tolerated_ms']:,} ms"
    for entry in limits["per_label"]:
        text += f"; {entry['pattern']} {entry['satisfied_ms']:,}/{entry['tolerated_ms']:,} ms"
    return text


def _print_load(payload: dict[str, Any], output_format: OutputFormat = OutputFormat.table) -> None:
    """Per suite: a throughput table (warm-up end, cool-down start, steady rate with its
    95 % CI, shown as lower–upper when the interval is clamped at 0) and a latency table,
    each readable at 80 columns."""
    from toolkit.numbers import fmt_error_pct, fmt_interval
    from toolkit.options import DEFAULT_APDEX

    console = TableOutput(output_format)
    for suite in payload["suites"]:
        # the suite's name (a file name: any length) heads both tables on its own line,
        # so the narrow latency table does not fold it into its title
        console.print(plain(f"{suite['suite']} ({suite['source']})"), style="bold")
        limits = suite.get("apdex_thresholds")
        if limits is not None and limits != DEFAULT_APDEX.as_json():
            console.print(plain(_apdex_text(limits)))
        rates = _table(
            "throughput",
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
                "latency ms",
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
                "mean latency ms",
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
            rates.add_row(*(plain(c) for c in cells))
            steady = lab["latency_ms"]["steady"] or {}
            overall = lab["latency_ms"]["overall"]
            if with_pcts:
                lat = [
                    _fmt(part.get(p)) for part in (steady, overall) for p in ("p50", "p95", "p99")
                ]
            else:
                step = lab["latency_ms"].get("resolution_ms")
                lat = [_mean_text(steady.get("mean"), step), _mean_text(overall.get("mean"), step)]
            latency.add_row(plain(lab["label"]), *(plain(c) for c in lat))
        console.print(rates)
        console.print(latency)
        _print_error_types(console, suite["dashboard_errors"])
        logs = suite.get("logs")
        if logs:
            console.print(
                plain(
                    f"log of the same run: {logs['samples']:,} samples in its "
                    f"{logs['summariser']!r} lines every {_fmt(logs['interval_s'])} s, "
                    f"{_fmt(logs['threads_started'])} threads started, ramp-up "
                    + (
                        "none"
                        if logs["rampup_end_s"] is None
                        else f"to {_fmt(logs['rampup_end_s'])} s"
                    )
                )
            )


@app.command(
    epilog=(
        "Example: warmup load results.jtl jmeter.log --load-window 5s;  "
        "warmup load latin.csv --encoding cp1252"
    )
)
@with_errors
def load(
    paths: PathsArgument = None,
    db: DbOption = None,
    window: WindowOption = None,
    old_window: OldWindowOption = None,
    config: ConfigOption = None,
    fail_on: FailOnOption = None,
    suite: Annotated[
        list[str] | None,
        typer.Option("--suite", help="Only this suite (repeatable).", metavar="NAME"),
    ] = None,
    as_json: JsonOption = False,
    output_format: OutputFormatOption = OutputFormat.table,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    max_bytes: MaxBytesOption = None,
    delimiter: DelimiterOption = None,
    columns: ColumnsOption = None,
    time_format: TimeFormatOption = None,
    timezone: TimezoneOption = None,
    timestamps: TimestampsOption = None,
    apdex: ApdexOption = None,
    apdex_per_label: ApdexPerLabelOption = None,
    steady_from: SteadyFromOption = None,
    steady_to: SteadyToOption = None,
) -> None:
    """Load-test warm-up end, steady throughput (± 95 % CI) and exact latency percentiles.

    Per suite and label (ALL = the whole suite without transaction-controller and
    sub-result rows): warm-up end by MSER-5, change points and the latency's warm-up
    curve, steady QPS with a batch-means CI, p50/p95/p99
    steady and over all samples (exact; JMeter's LEGACY estimator), errors, APDEX
    (500/1500 ms unless --apdex, --apdex-per-label), JMeter's dashboard statistics, and a
    Little's-law check. Reads JTLs
    (CSV/XML) and JMeter console logs (their summariser lines); each file is its own suite,
    named after the file (to join files into one suite: warmup ingest --suite NAME --db
    STORE). With --db and files, only those files' suites are shown.
    """
    settings = settings_of(config)
    window_s = _window(window, old_window, settings)
    bounds = _steady_bounds(steady_from, steady_to)
    thresholds = apdex_thresholds(
        apdex or settings.apdex, apdex_per_label or settings.apdex_per_label
    )
    spec = input_spec(
        format=format,
        encoding=encoding,
        max_bytes=max_bytes,
        delimiter=delimiter,
        columns=columns,
        time_format=time_format,
        timezone=timezone,
        timestamps=timestamps,
    )
    check_inputs(paths, db, fail_on)
    # the libraries, once the command line is known to be good (issue 20 item 4)
    from toolkit.analyze.load_findings import JMETER_STATISTIC_WINDOW, load_family_findings
    from toolkit.ingest.jmeter import LOAD_COLUMNS
    from toolkit.pipeline.findings import finalized
    from toolkit.pipeline.load import load_report

    # without --db, a CSV JTL is grouped as it is read (the analysis's windows), no row kept
    group_ms = max(1, round(window_s * 1000))
    with ingested_store(paths, db, spec, sample_columns=LOAD_COLUMNS, group_window_ms=group_ms) as (
        store,
        report,
    ):
        names = suite or None
        if names is None and report is not None and db is not None:
            # a store holds other suites too: show the ones the given files are
            names = _load_suites(store, report) or _no_load_suites()
        payload = load_report(
            store, names, window_s=window_s, apdex=thresholds,
            steady_from_s=bounds[0], steady_to_s=bounds[1],
        )  # fmt: skip
    found = finalized(load_family_findings(payload["suites"], JMETER_STATISTIC_WINDOW), settings)
    if as_json:
        print_json({**payload, "findings": [f.as_json() for f in found]})
    else:
        _print_load(payload, output_format)
        print_findings(found, err=output_format in MACHINE_FORMATS)
    finish(found, fail_on, settings)


def _load_suites(store: Store, report: PathReport) -> list[str]:
    """The load suites the files of ``report`` were read into (or found already in)."""
    kinds = dict(store.con.execute("SELECT name, kind FROM suites").fetchall())
    names = (name for result in report.results for name in result.suites)
    return [name for name in dict.fromkeys(names) if kinds.get(name) == "load"]


def _no_load_suites() -> NoReturn:
    raise UsageError("no load-test suites (JMeter JTL or summariser log) in the input")


def _steady_bounds(
    steady_from: str | None, steady_to: str | None
) -> tuple[float | None, float | None]:
    """``--steady-from``/``--steady-to`` in seconds (None when not given)."""
    bounds = (
        parse_steady_bound(steady_from, "--steady-from"),
        parse_steady_bound(steady_to, "--steady-to"),
    )
    check_steady_bounds(*bounds)
    return bounds


def _window(window: str | None, old_window: str | None, settings: Settings) -> float:
    """``--load-window`` (or its old spelling ``--window``; else the config's
    ``load_window``) in seconds; a value it cannot use is an option value error (exit 1)
    naming the option given."""
    if window is not None:
        return parse_window(window, "--load-window")
    if old_window is not None:
        return parse_window(old_window)
    return settings.load_window_s


def _print_compare(
    payload: dict[str, Any], output_format: OutputFormat = OutputFormat.table
) -> None:
    """Rows per label: the steady measures (throughput, mean latency) with A, B and the
    ratio B/A with its Fieller interval, then the error rates (every sample) and their
    difference in points; readable at 80 columns."""
    from toolkit.numbers import fmt_error_pct, fmt_ratio

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
        # overall: no steady state in A or B, every full window compared (notes say so)
        overall = row.get("basis") == "overall"
        parts = (
            ("throughput", "QPS overall" if overall else "QPS"),
            ("latency_mean_ms", "mean ms overall" if overall else "mean ms"),
        )
        for n, (key, name) in enumerate(parts):
            part = row[key]
            ci = part["ci"]
            ratio = fmt_ratio(part["ratio"]) if part["ratio"] is not None else "-"
            if ci:
                ratio += f" ({fmt_ratio(ci[0])}–{fmt_ratio(ci[1])})"
            cells = (row["label"] if n == 0 else "", name, _fmt(part["a"]), _fmt(part["b"]), ratio)
            table.add_row(*(plain(c) for c in cells))
        errors = row["error_rate"]
        diff = errors["difference"]
        cells = (
            "",
            "errors",
            fmt_error_pct(errors["a"]),
            fmt_error_pct(errors["b"]),
            "-" if diff is None else f"B−A {100 * diff:+.2g} pt" if diff else "same",
        )
        table.add_row(*(plain(c) for c in cells), end_section=True)
    TableOutput(output_format).print(table)


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
    window: WindowOption = None,
    old_window: OldWindowOption = None,
    config: ConfigOption = None,
    fail_on: FailOnOption = None,
    as_json: JsonOption = False,
    output_format: OutputFormatOption = OutputFormat.table,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    max_bytes: MaxBytesOption = None,
    delimiter: DelimiterOption = None,
    columns: ColumnsOption = None,
    time_format: TimeFormatOption = None,
    timezone: TimezoneOption = None,
    timestamps: TimestampsOption = None,
    steady_from: SteadyFromOption = None,
    steady_to: SteadyToOption = None,
) -> None:
    """Compare two load suites: steady throughput and latency ratios B/A with 95 % CIs.

    Ratios of steady-state means (after each suite's own warm-up end, or between
    --steady-from and --steady-to), with Fieller intervals over batch means (Kalibera &
    Jones 2013); where A or B has no steady state, of the overall figures (every full
    window, warm-up included; a note says so); error rates of each whole run and
    their difference B − A in points. A and B are result files (each
    read into its own suite; with --db, a file already stored is not read again) or suite
    names in --db.
    """
    settings = settings_of(config)
    window_s = _window(window, old_window, settings)
    bounds = _steady_bounds(steady_from, steady_to)
    spec = input_spec(
        format=format,
        encoding=encoding,
        max_bytes=max_bytes,
        delimiter=delimiter,
        columns=columns,
        time_format=time_format,
        timezone=timezone,
        timestamps=timestamps,
    )
    check_fail_on(fail_on)
    files = [Path(x) for x in (a, b) if Path(x).exists()]
    for arg in (a, b):
        if not Path(arg).exists() and (db is None or _looks_like_path(arg)):
            raise UsageError(f"{arg}: no such file or folder (a suite name needs --db STORE)")
    if not files and db is not None:
        check_store_path(db, read_only=True)
    _refuse_same_input(a, b)
    # the libraries, once the command line is known to be good (issue 20 item 4)
    from toolkit.analyze.compare import compare_findings
    from toolkit.pipeline.findings import finalized
    from toolkit.pipeline.load import compare_report
    from toolkit.store import open_store

    if db is None:
        from toolkit.ingest.jmeter import LOAD_COLUMNS

        # a CSV JTL grouped as it is read (the analysis's windows), no row kept
        spec = scratch_spec(spec, LOAD_COLUMNS, group_window_ms=max(1, round(window_s * 1000)))
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
        payload = compare_report(
            store, names[0], names[1], window_s=window_s,
            steady_from_s=bounds[0], steady_to_s=bounds[1],
        )  # fmt: skip
    for note in payload["notes"]:
        info(f"note: {note}")
    found = finalized(compare_findings(payload), settings)
    if as_json:
        print_json({**payload, "findings": [f.as_json() for f in found]})
    else:
        _print_compare(payload, output_format)
        print_findings(found, err=output_format in MACHINE_FORMATS)
    finish(found, fail_on, settings)


def _looks_like_path(arg: str) -> bool:
    """Whether a compare argument names a file rather than a suite: it ends like a result
    file (suite names made from files have that ending removed)."""
    return Path(arg).suffix.lower() in RESULT_SUFFIXES


def _refuse_same_input(a: str, b: str) -> None:
    """Refuse A and B naming one file (also by two spellings of its path or a link) or one
    suite, before anything is read: the same refusal the store gives after reading them."""
    pa, pb = Path(a), Path(b)
    if pa.exists() != pb.exists():
        return
    try:
        same = pa.samefile(pb) if pa.exists() else a == b
    except OSError:  # unreadable: the ingest names it
        return
    if same:
        what = (
            f"both suite {a!r}"
            if not pa.exists()
            else "the same folder"
            if pa.is_dir()
            else "the same file"
        )
        raise UsageError(f"A and B are {what} ({a}, {b}): compare two different suites or files")


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
