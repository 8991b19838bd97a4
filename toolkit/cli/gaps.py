"""``warmup gaps``: the iteration-gap table (``warmup demo`` lives in cli/report.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from toolkit.cli.common import (
    ConfigOption,
    DbOption,
    EncodingOption,
    FailOnOption,
    FormatOption,
    JsonOption,
    MaxBytesOption,
    PathsArgument,
    analysis_store,
    app,
    check_inputs,
    fail,
    fail_level,
    finish,
    info,
    input_spec,
    nothing_to_analyze,
    plain,
    print_findings,
    print_json,
    settings_of,
    with_errors,
)
from toolkit.cli.output import MACHINE_FORMATS, OutputFormat, OutputFormatOption, TableOutput
from toolkit.options import GAP_REFERENCES, check_grid, check_target, check_tolerance

if TYPE_CHECKING:
    from toolkit.analyze.window_error import WindowError, WindowErrorGrid
    from toolkit.pipeline.gaps import SuiteGaps

# The library's defaults, repeated here for the option help: importing toolkit.analyze.gaps
# loads numpy and Polars (tests/test_cli_startup.py checks that they agree).
#: ``toolkit.analyze.gaps.DEFAULT_TOLERANCE``
DEFAULT_TOLERANCE = 0.10
#: ``toolkit.analyze.gaps.DEFAULT_TARGET``
DEFAULT_TARGET = 0.05
#: ``toolkit.pipeline.gaps.DEFAULT_COVERAGE``
DEFAULT_COVERAGE = 0.90

SuiteOption = Annotated[
    list[str] | None,
    typer.Option("--suite", help="Only this suite (name as in `warmup suites`). Repeatable."),
]


def _percent(fraction: float) -> str:
    return f"{fraction * 100:g} %"


def print_per_query(item: SuiteGaps, output_format: OutputFormat = OutputFormat.table) -> None:
    """One row per query: cold, hot(k) for every k, reference, first k within tolerance."""
    from rich.table import Table
    from rich.text import Text

    t = item.table
    title = f"{item.suite}: per query, seconds; k = hot(k), the min of hot runs 1..k"
    table = Table(title=plain(title), title_justify="left")
    for header in ("query", "cold", *(f"k={k}" for k in range(1, t.runs)), "ref"):
        table.add_column(header, justify="left" if header == "query" else "right")
    table.add_column("first k", justify="right")
    table.add_column("note")
    show_process = any(q.process for q in t.per_query)

    def cell(value: float | None) -> Text:
        return plain("-" if value is None else f"{value:.4g}")

    for q in t.per_query:
        name = f"{q.query} [p{q.process}]" if show_process else q.query
        table.add_row(
            plain(name),
            cell(q.cold_s),
            *(cell(v) for v in q.hot_s_by_k),
            cell(q.reference_s),
            plain("-" if q.first_k_within is None else str(q.first_k_within)),
            plain(q.excluded or ""),
        )
    # a wide table is more useful wrapped by the terminal than with every cell truncated
    TableOutput(output_format, min_width=60 + 8 * t.runs).print(table)


def _protocol(c: WindowError) -> str:
    return f"skip {c.skip}, {c.aggregator} of {c.window} ({c.runs} runs)"


def _bias_line(c: WindowError) -> str:
    return (
        f"{_protocol(c)}: median error {c.median_error * 100:+.1f} % "
        f"(95 % CI {c.median_ci[0] * 100:+.1f} to {c.median_ci[1] * 100:+.1f} %; "
        f"5-95 % of series {c.p05_error * 100:+.1f} to {c.p95_error * 100:+.1f} %); "
        f"mean {c.mean_error * 100:+.1f} % = transient {c.transient_bias * 100:+.1f} % "
        f"+ order statistic {c.order_statistic_bias * 100:+.1f} %; within 1/2/5 %: "
        + "/".join(f"{share:.0%}" for _, share in c.within)
        + f" of {c.series} series"
    )


def print_grid(
    item: SuiteGaps,
    grid: WindowErrorGrid,
    *,
    target: float,
    coverage: float,
    output_format: OutputFormat = OutputFormat.table,
) -> None:
    """The min-aggregator grid as a k × m matrix of median errors, then the recommended
    protocols and the error decomposition of ClickBench's skip 1, min of 2."""
    from rich.table import Table

    from toolkit.pipeline.gaps import grid_recommendations

    console = TableOutput(output_format, min_width=150)
    if not grid.cells:
        console.print(
            plain(
                f"{item.suite}: no series reached a steady state, so there is no short-window "
                "error grid (it needs long runs: the warm-up engine finds no steady state "
                "in 2-5 runs)"
            ),
            soft_wrap=True,
        )
        return
    windows = sorted({c.window for c in grid.cells})
    title = (
        f"{item.suite}: short-window error vs steady state, {grid.series} series; "
        f"median of (min of runs k..k+m-1) / steady - 1, and the share within ±{target:.0%}"
    )
    table = Table(title=plain(title), title_justify="left")
    table.add_column("skip k", justify="right")
    for m in windows:
        table.add_column(f"m={m}", justify="right", no_wrap=True)
    for k in sorted({c.skip for c in grid.cells}):
        cells = []
        for m in windows:
            c = grid.cell(k, m, "min")
            cells.append(
                plain(
                    "-"
                    if c is None
                    else f"{c.median_error * 100:+.1f}% ({c.share_within(target):.0%})"
                )
            )
        table.add_row(plain(str(k)), *cells)
    console.print(table)
    for label, c in grid_recommendations(grid, target=target, coverage=coverage):
        what = "ClickBench-style (skip the cold run, min)" if label == "clickbench" else label
        line = f"recommended {what} for ±{target:.0%} in {coverage:.0%} of series: " + (
            "none in this grid; run longer series" if c is None else _bias_line(c)
        )
        console.print(plain(line), soft_wrap=True)
    now = grid.cell(1, 2, "min")
    if now is not None:
        console.print(plain(f"ClickBench today, {_bias_line(now)}"), soft_wrap=True)
    console.print()


def print_gap_summary(
    results: Sequence[SuiteGaps],
    *,
    window: int = 2,
    output_format: OutputFormat = OutputFormat.table,
) -> None:
    """One table for every suite: runs, the window's gap (k = ``window``, ClickBench's
    min of 2 hot runs) and queries within tolerance, and the k that reaches the target.
    Issue 19: 1,000 rich tables were 43 % of ``warmup gaps`` on 2,000 results."""
    from rich.table import Table

    console = TableOutput(output_format)
    table = Table(
        title=plain(f"{len(results)} suites: the window (k = {window}) against the reference"),
        title_justify="left",
    )
    for header in ("Suite", "Runs", "Gap at window", "Within tolerance", "k for target"):
        table.add_column(header, justify="left" if header == "Suite" else "right")
    for item in results:
        t = item.table
        row = next((r for r in t.rows if r.hot_iterations == window), None)
        row = row if row is not None else (t.rows[-1] if t.rows else None)
        table.add_row(
            plain(item.suite),
            plain(str(t.runs)),
            plain("-" if row is None or row.gap is None else f"{row.gap * 100:+.1f} %"),
            plain("-" if row is None else f"{row.within_tolerance}/{row.queries}"),
            plain("-" if t.k_for_target is None else str(t.k_for_target)),
        )
    console.print(table)
    if output_format not in MACHINE_FORMATS:
        info("Every suite's table: --per-suite.")


def print_gap_tables(
    results: Sequence[SuiteGaps],
    *,
    per_query: bool = False,
    coverage: float = DEFAULT_COVERAGE,
    elsewhere: str = "",
    output_format: OutputFormat = OutputFormat.table,
) -> None:
    """Print one rich table per suite, like seed 002's, plus findings and the target line;
    with none, ``elsewhere`` (:meth:`Store.suites_elsewhere`) says what the input holds."""
    from rich.table import Table

    from toolkit.analyze.gaps import CLICKBENCH_HOT_RUNS, MAX_SHOWN_K, shown_hot_iterations

    console = TableOutput(output_format)
    if not results:
        info(f"no iteration suites to analyze{elsewhere}")
        return
    for item in results:
        if per_query:
            print_per_query(item, output_format)
        t = item.table
        tol = _percent(t.tolerance)
        title = plain(f"{item.suite}: reference {t.reference}")
        table = Table(title=title, title_justify="left")
        for header in (
            "Hot iters",
            "Total runs",
            "Suite-sum (s)",
            "Gap vs reference",
            f"Queries within ±{tol}",
        ):
            table.add_column(header, justify="right")
        ks = [r.hot_iterations for r in t.rows]
        # a table for reading shows at most MAX_SHOWN_K rows; csv/tsv every k
        limit = len(ks) if output_format in MACHINE_FORMATS else MAX_SHOWN_K
        shown = set(
            shown_hot_iterations(ks, limit, keep=[CLICKBENCH_HOT_RUNS, t.k_for_target or 0])
        )
        if len(shown) < len(ks):
            table.caption = plain(
                f"{len(shown)} of the {len(ks):,} values of k shown (every k in --json)"
            )
        for r in t.rows:
            if r.hot_iterations not in shown:
                continue
            label = f"{r.hot_iterations}" + (" (ClickBench)" if r.hot_iterations == 2 else "")
            gap = "-" if r.gap is None else f"{r.gap * 100:+.1f} %"
            table.add_row(
                plain(label),
                plain(str(r.total_runs)),
                plain(f"{r.suite_sum_s:.3f}"),
                plain(gap),
                plain(f"{r.within_tolerance}/{r.queries}"),
            )
        console.print(table)
        # the table's own k, named by its reference: the window-error finding above is
        # the verdict against steady state, this line only reads the table
        if t.k_for_target is None:
            console.print(
                plain(
                    f"Table ({t.reference} reference): no hot-iteration count brings the "
                    f"suite-sum gap within {_percent(t.target)}."
                ),
                soft_wrap=True,
            )
        else:
            console.print(
                plain(
                    f"Table ({t.reference} reference): suite-sum gap <= {_percent(t.target)} "
                    f"from k = {t.k_for_target} ({t.runs_for_target} total runs)"
                ),
                soft_wrap=True,
            )
        console.print()
        if item.grid is not None:
            print_grid(
                item, item.grid, target=t.target, coverage=coverage, output_format=output_format
            )
    three = sum(1 for item in results if item.table.runs == CLICKBENCH_HOT_RUNS + 1)
    if three:
        # said once, not under every table: it is true of every 3-run suite alike
        console.print(
            plain(
                f"{three} of {len(results)} suites have 3 runs: there the reference (min of all "
                "hot runs) is ClickBench's own window, min(run 2, run 3), so the table has "
                "nothing beyond it. What 3 runs show: cold/hot and run 2 vs run 3 "
                "(--json: hot_pair)."
            ),
            soft_wrap=True,
        )


@app.command(
    epilog=(
        "Example: warmup gaps trino/results/20260511/c6a.4xlarge.json --tolerance 0.05; "
        "warmup gaps --db bench.duckdb --suite 'Trino / c6a.4xlarge / 2026-05-11' --json"
    )
)
@with_errors
def gaps(
    paths: PathsArgument = None,
    db: DbOption = None,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    max_bytes: MaxBytesOption = None,
    reference: Annotated[
        str,
        typer.Option(
            "--reference",
            help="min-all: min of all hot runs (seed 002); steady: warm-up engine's steady state.",
        ),
    ] = "min-all",
    tolerance: Annotated[
        float | None,
        typer.Option(
            "--tolerance",
            help="Within-tolerance band as a fraction (0.10 = ±10 %) [default: the config "
            f"file's, else {DEFAULT_TOLERANCE}].",
        ),
    ] = None,
    target: Annotated[
        float | None,
        typer.Option(
            "--target",
            help=f"Suite gap to reach, as a fraction (0.05 = 5 %) [default: the config file's, else {DEFAULT_TARGET}].",
        ),
    ] = None,
    suite: SuiteOption = None,
    per_query: Annotated[
        bool, typer.Option("--per-query", help="Also print hot(k) of every query.")
    ] = False,
    grid: Annotated[
        bool,
        typer.Option(
            "--grid",
            help=(
                "Also the short-window error grid: skip k runs, min/mean/median of the next "
                "m, error vs each series' steady state, and the cheapest (k, m) within "
                "--target for --coverage of the series."
            ),
        ),
    ] = False,
    max_skip: Annotated[int, typer.Option("--max-skip", help="Grid: largest skip k.")] = 5,
    max_window: Annotated[int, typer.Option("--max-window", help="Grid: largest window m.")] = 9,
    coverage: Annotated[
        float,
        typer.Option(
            "--coverage", help="Grid: share of series that must be within --target (0.9 = 90 %)."
        ),
    ] = DEFAULT_COVERAGE,
    per_suite: Annotated[
        bool,
        typer.Option(
            "--per-suite",
            help="One table per suite (default with several suites: one summary table).",
        ),
    ] = False,
    config: ConfigOption = None,
    fail_on: FailOnOption = None,
    as_json: JsonOption = False,
    output_format: OutputFormatOption = OutputFormat.table,
) -> None:
    """How far "hot = min of the first k hot runs" is from the reference, for every k.

    One row per hot-iteration count k: total runs (k+1), suite sum of per-query hot(k),
    gap against the reference sum, and queries within ±tolerance. Queries with a failed
    (null) hot run are excluded from every row and listed.
    """
    if reference not in GAP_REFERENCES:
        fail(f"unknown --reference {reference!r}; use one of: {', '.join(GAP_REFERENCES)}")
    if tolerance is not None:
        check_tolerance(tolerance, "--tolerance")
    if target is not None:
        check_target(target, "--target")
    settings = settings_of(config, tolerance=tolerance, target=target)
    if grid:
        check_grid(max_skip, max_window, coverage)
    spec = input_spec(format=format, encoding=encoding, max_bytes=max_bytes)
    check_inputs(paths, db, fail_on)
    # the libraries, once the command line is known to be good (issue 20 item 4)
    from toolkit.pipeline.detect import detect_series
    from toolkit.pipeline.findings import iteration_family
    from toolkit.pipeline.gaps import GridOptions, gap_tables, gaps_payload

    options = GridOptions(max_skip, max_window, coverage) if grid else None
    # The summary table of several suites shows no findings: with the min-all reference and
    # no fail level, the warm-up engine (most of the time on 2,000 ClickBench results,
    # issue 19) runs only if the input turns out to be one suite, whose table lists them.
    tables_only = not (as_json or per_suite or per_query or grid)
    engine_if_read = (
        tables_only and reference == "min-all" and fail_level(fail_on, settings) is None
    )
    with analysis_store(paths, db, spec) as store:
        detections = [] if engine_if_read else detect_series(store, suites=suite)
        results = gap_tables(
            store,
            suites=suite,
            reference=reference,
            tolerance=settings.tolerance,
            target=settings.target,
            grid=options,
            detections=detections,
            # only --json lists each suite's findings; the tables print the family's
            suite_findings=as_json,
        )
        summary = len(results) > 1 and tables_only
        if engine_if_read and not summary:
            detections = detect_series(store, suites=suite)
        elsewhere = store.suites_elsewhere("iterations") if not results else ""
    if not results:
        nothing_to_analyze("iteration suites", elsewhere)
    found = iteration_family(detections, settings)
    if as_json:
        print_json(gaps_payload(results, coverage=coverage, findings=found))
    elif summary:
        print_gap_summary(results, output_format=output_format)
    else:
        print_gap_tables(
            results,
            per_query=per_query,
            coverage=coverage,
            elsewhere=elsewhere,
            output_format=output_format,
        )
        print_findings(found, err=output_format in MACHINE_FORMATS)
    finish(found, fail_on, settings)
