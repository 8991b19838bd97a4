"""``warmup detect``: per-series warm-up classification, steady state and spikes."""

from __future__ import annotations

from collections import defaultdict
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
from toolkit.options import detect_options

if TYPE_CHECKING:
    from toolkit.pipeline.detect import (
        SeriesDetection,
    )

SuiteOption = Annotated[
    list[str] | None,
    typer.Option("--suite", help="Only this suite (name as in `warmup suites`). Repeatable."),
]


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def _error(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def print_detections(
    results: Sequence[SeriesDetection],
    *,
    elsewhere: str = "",
    output_format: OutputFormat = OutputFormat.table,
) -> None:
    """One table per suite with a row per series; then the process groups, the stopping
    rules (when analysed), the iteration findings (the same as `warmup gaps` and the
    report give) and the still-warming shares. With none,
    ``elsewhere`` (:meth:`Store.suites_elsewhere`) says what the input holds."""
    from rich.table import Table

    from toolkit.pipeline.detect import (
        comparator_summary,
        process_groups,
        still_warming_shares,
    )

    # the CI and spike columns are worth a wider line than a narrow terminal's
    console = TableOutput(output_format, min_width=110)
    if not results:
        info(f"no iteration suites to analyze{elsewhere}")
        return
    by_suite: dict[str, list[SeriesDetection]] = defaultdict(list)
    for d in results:
        by_suite[d.suite].append(d)
    for suite, dets in by_suite.items():
        table = Table(title=plain(f"{suite}: warm-up per series"), title_justify="left")
        for header, justify in (
            ("Query", "left"),
            ("Proc", "right"),
            ("Class", "left"),
            ("Steady iter", "right"),
            ("Steady s (95 % CI)", "right"),
            ("Spikes (iter: s)", "left"),
            ("Cold ratio", "right"),
        ):
            table.add_column(header, justify=justify)  # type: ignore[arg-type]
        for d in dets:
            a = d.analysis
            cls: str = a.series_class
            if a.short is not None and cls == "short":
                cls = f"short: {a.short.short_class}"
            steady = _seconds(a.steady_s)
            if a.steady_ci is not None and a.steady_s is not None:
                steady = f"{steady} ({_seconds(a.steady_ci[0])}-{_seconds(a.steady_ci[1])})"
            spikes = ", ".join(f"{s.iteration}: {s.seconds:.4g}" for s in a.spikes) or "-"
            table.add_row(
                plain(d.query),
                plain(str(d.process)),
                plain(cls),
                plain("-" if a.steady_iteration is None else str(a.steady_iteration)),
                plain(steady),
                plain(spikes),
                plain("-" if a.cold_ratio is None else f"{a.cold_ratio:.2f}"),
            )
        console.print(table)
    groups = process_groups(results)
    if groups:
        table = Table(title=plain("classes across processes"), title_justify="left")
        for header in ("Suite", "Query", "Processes", "Class", "Counts"):
            table.add_column(header)
        for g in groups:
            counts = ", ".join(f"{k} {v}" for k, v in sorted(g["counts"].items()))
            table.add_row(
                plain(g["suite"]),
                plain(g["query"]),
                plain(str(g["processes"])),
                plain(g["class"]),
                plain(counts),
            )
        console.print(table)
    rules = comparator_summary(results)
    if rules:
        title = (
            "stopping rules vs the change-point steady state "
            "(errors: median over series; premature = stopped before steady)"
        )
        table = Table(title=plain(title), title_justify="left")
        for header in (
            "Rule",
            "Series",
            "Stopped",
            "Premature",
            "Iter error",
            "Time error s",
            "|Value error|",
        ):
            table.add_column(header, justify="left" if header == "Rule" else "right")
        for r in rules:
            table.add_row(
                plain(r["rule"]),
                plain(str(r["series"])),
                plain(str(r["stopped"])),
                plain(str(r["premature"])),
                plain(_error(r["median_iteration_error"], "+g")),
                plain(_error(r["median_time_error_s"], "+.3g")),
                plain(_error(r["median_abs_value_error"], ".1%")),
            )
        console.print(table)
    shares = still_warming_shares(results)
    for group, label in (("jvm", "JVM systems (tag Java)"), ("native", "other systems")):
        g = shares[group]
        if g["series"]:
            console.print(
                plain(
                    f"still warming after the last run: {g['still_warming']}/{g['series']} "
                    f"short series ({float(g['share']):.1%}) of {label}"
                )
            )


@app.command(
    epilog=(
        "Example: warmup detect trino/results/20260511/c6a.4xlarge.json; "
        "warmup detect --db bench.duckdb --suite 'Trino / c6a.4xlarge / 2026-05-11' --json"
    )
)
@with_errors
def detect(
    paths: PathsArgument = None,
    db: DbOption = None,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    max_bytes: MaxBytesOption = None,
    suite: SuiteOption = None,
    config: ConfigOption = None,
    fail_on: FailOnOption = None,
    penalty: Annotated[
        str,
        typer.Option(
            "--penalty",
            help=(
                "PELT penalty: barrett (15 ln n), sic/bic (3 ln n), mbic (4 ln n), "
                "crops (CROPS path + elbow), or a number."
            ),
        ),
    ] = "barrett",
    equivalence: Annotated[
        str,
        typer.Option(
            "--equivalence",
            help=(
                "Segment equivalence: tolerance (5 %), warmup_stats (Barrett's "
                "variance rule) or ratio_ci (bootstrap CI of the mean ratio)."
            ),
        ),
    ] = "tolerance",
    comparators: Annotated[
        bool,
        typer.Option(
            "--comparators",
            help=(
                "Also run MSER-5, Georges' CoV rule and Laaber's stopping rules: where "
                "each would have stopped and how wrong that would have been."
            ),
        ),
    ] = False,
    as_json: JsonOption = False,
    output_format: OutputFormatOption = OutputFormat.table,
) -> None:
    """Classify every (suite, query, process) series: flat, warmup, slowdown,
    no-steady-state (PELT change points, Barrett et al. 2017), or short (2-5 runs: the
    cold/hot step detector). Prints the steady iteration, the steady value with its 95 %
    bootstrap CI, single-iteration spikes (JIT/GC), the cold/hot ratio, the class across
    processes (good / bad inconsistent) and the iteration findings: the benchmark
    window's error against steady state (warm-up + order-statistic parts), slowdowns,
    series with no steady state, spikes, short series still warming."""
    settings = settings_of(config)
    options = detect_options(penalty, equivalence)
    spec = input_spec(format=format, encoding=encoding, max_bytes=max_bytes)
    check_inputs(paths, db, fail_on)
    # the libraries, once the command line is known to be good (issue 20 item 4)
    from toolkit.pipeline.detect import detect_payload, detect_series
    from toolkit.pipeline.findings import iteration_family

    with analysis_store(paths, db, spec) as store:
        results = detect_series(store, suites=suite, comparators=comparators, **options)
        elsewhere = store.suites_elsewhere("iterations") if not results else ""
    if not results:
        nothing_to_analyze("iteration suites", elsewhere)
    found = iteration_family(results, settings)
    if as_json:
        print_json(detect_payload(results, found))
    else:
        print_detections(results, elsewhere=elsewhere, output_format=output_format)
        print_findings(found, err=output_format in MACHINE_FORMATS)
    finish(found, fail_on, settings)
