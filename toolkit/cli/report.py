"""``warmup report``: the static, offline HTML report of every analysis."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.common import (
    ColumnsOption,
    ConfigOption,
    DbOption,
    DelimiterOption,
    EncodingOption,
    FailOnOption,
    FormatOption,
    MaxBytesOption,
    PathsArgument,
    TimeFormatOption,
    TimestampsOption,
    TimezoneOption,
    analysis_store,
    app,
    check_inputs,
    fail,
    finish,
    info,
    input_spec,
    refuse_overwriting_inputs,
    settings_of,
    with_errors,
)
from toolkit.options import (
    apdex_thresholds,
    check_hot_window,
    check_steady_bounds,
    check_tolerance,
    parse_steady_bound,
    parse_window,
)
from toolkit.report.options import PLOTLYJS_MODES, PlotlyJs

OutputOption = Annotated[
    Path,
    # not dir_okay=False: a folder gets write_report's one-line error and exit 1, not usage
    typer.Option("--output", "-o", help="HTML file to write."),
]
TitleOption = Annotated[str | None, typer.Option("--title", help="Title at the top of the report.")]
CompareOption = Annotated[
    list[str] | None,
    typer.Option(
        "--compare",
        help=(
            "A/B section for two load tests, as 'A,B' (suite names or the input files they "
            "were read from; B is compared against A). Repeatable. Without it, the two JTLs "
            "in the input are compared when there are exactly two (or two JMeter logs when "
            "there is no JTL; a JTL and its own log are not a pair), A = the one read first."
        ),
    ),
]
PlotlyJsOption = Annotated[
    str,
    typer.Option(
        "--plotlyjs",
        help=(
            "How the page gets plotly.js: inline (default, one offline file), directory "
            "(plotly.min.js written beside the report) or cdn (needs the network)."
        ),
    ),
]


def file_size(size: int) -> str:
    """A written file's size: ``39 kB`` below 1 MB (``0.0 MB`` said nothing), else ``4.6 MB``
    (decimal units, 1 kB = 1000 bytes)."""
    if size < 1000:
        return f"{size} bytes"
    if size < 999_500:
        return f"{size / 1e3:.0f} kB"
    return f"{size / 1e6:.1f} MB"


def plotlyjs_mode(value: str) -> PlotlyJs:
    """Validate ``--plotlyjs`` (one line with the choices and exit 1 when unknown)."""
    for mode in PLOTLYJS_MODES:
        if value == mode:
            return mode
    fail(f"unknown --plotlyjs {value!r}; use one of: {', '.join(PLOTLYJS_MODES)}")


@app.command(
    epilog=(
        "Example: warmup report results/*.json run.jtl -o report.html; "
        "warmup report off.jtl on.jtl --compare off.jtl,on.jtl -o ab.html"
    )
)
@with_errors
def report(
    paths: PathsArgument = None,
    db: DbOption = None,
    output: OutputOption = Path("report.html"),
    title: TitleOption = None,
    plotlyjs: PlotlyJsOption = "inline",
    tolerance: Annotated[
        float | None,
        typer.Option(
            "--tolerance",
            help="Within-steady tolerance as a fraction [default: the config's, else 0.10].",
        ),
    ] = None,
    window: Annotated[
        int,
        typer.Option(
            "--hot-window", help="Hot iterations in the benchmark's own hot value (ClickBench: 2)."
        ),
    ] = 2,
    old_window: Annotated[
        # the old spelling, kept working, not shown: --window is a duration in warmup load
        int | None,
        typer.Option("--window", hidden=True),
    ] = None,
    compare: CompareOption = None,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    max_bytes: MaxBytesOption = None,
    delimiter: DelimiterOption = None,
    columns: ColumnsOption = None,
    time_format: TimeFormatOption = None,
    timezone: TimezoneOption = None,
    timestamps: TimestampsOption = None,
    load_window: Annotated[
        str | None,
        typer.Option(
            "--load-window",
            help=(
                "Window of the load-test and A/B analysis: 1s, 500ms, 1m (as warmup load "
                "--load-window)."
            ),
        ),
    ] = None,
    load_apdex: Annotated[
        str | None,
        typer.Option(
            "--load-apdex",
            help="Load-test APDEX thresholds T,F in ms (as warmup load --apdex). "
            "[default: 500,1500]",
            metavar="T,F",
        ),
    ] = None,
    load_apdex_per_label: Annotated[
        str | None,
        typer.Option(
            "--load-apdex-per-label",
            help="Per-label APDEX thresholds, PATTERN:T|F;... (as warmup load --apdex-per-label).",
            metavar="SPEC",
        ),
    ] = None,
    config: ConfigOption = None,
    fail_on: FailOnOption = None,
    steady_from: Annotated[
        str | None,
        typer.Option(
            "--steady-from",
            help="Load tests and A/B: start of the steady part, from each suite's first "
            "sample (30s, 1m), instead of the detected warm-up end (as warmup load).",
            metavar="DURATION",
        ),
    ] = None,
    steady_to: Annotated[
        str | None,
        typer.Option(
            "--steady-to",
            help="Load tests and A/B: end of the steady part, from each suite's first sample.",
            metavar="DURATION",
        ),
    ] = None,
) -> None:
    """Write one self-contained HTML report of everything in the inputs or store.

    Findings first, then each analysis whose data is present (iteration gaps, per-query
    trajectories with warm-up detection, ClickBench score, load tests, A/B comparison,
    cache warm-up) and the provenance of the inputs. The file works offline from file://.
    Set SOURCE_DATE_EPOCH for byte-identical reruns.
    """
    if tolerance is not None:
        check_tolerance(tolerance, "--tolerance")
    settings = settings_of(config, tolerance=tolerance)
    mode = plotlyjs_mode(plotlyjs)
    load_window_s = (
        settings.load_window_s
        if load_window is None
        else parse_window(load_window, "--load-window")
    )
    if old_window is None:
        check_hot_window(window, "--hot-window")
    else:
        check_hot_window(old_window, "--window")
    thresholds = apdex_thresholds(
        load_apdex or settings.apdex,
        load_apdex_per_label or settings.apdex_per_label,
        prefix="--load-",
    )
    steady_from_s = parse_steady_bound(steady_from, "--steady-from")
    steady_to_s = parse_steady_bound(steady_to, "--steady-to")
    check_steady_bounds(steady_from_s, steady_to_s)
    if not output.parent.is_dir():
        fail(f"{output}: folder {output.parent} does not exist; create it first")
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
    refuse_overwriting_inputs(output, paths, db)
    # the libraries (the renderer: plotly and Jinja2), once the command line is known to be
    # good (issue 20 item 4)
    from toolkit.ingest.jmeter import REPORT_COLUMNS
    from toolkit.pipeline.load import compare_pairs, split_compare_pair
    from toolkit.report.render import build_report, checked_output, report_params, write_html

    # the report's provenance shows each file's SHA-256; a CSV JTL is read into the
    # groups of its load analysis and charts, no row stored (issue 20 item 3)
    with analysis_store(
        paths,
        db,
        spec,
        sample_columns=REPORT_COLUMNS,
        sources_shown=True,
        group_window_ms=max(1, round(load_window_s * 1000)),
        group_charts=True,
    ) as store:
        # resolved to suite names now: a name of no load suite is refused before the analyses
        requested = [split_compare_pair(store, value) for value in compare or []]
        pairs = compare_pairs(store, requested) if requested else []
        params = report_params(
            tolerance=tolerance,
            window=window if old_window is None else old_window,
            compare=pairs,
            load_window_s=load_window_s,
            load_apdex=thresholds,
            settings=settings,
            load_steady_from_s=steady_from_s,
            load_steady_to_s=steady_to_s,
        )
        built = build_report(store, title=title, params=params)
        path = write_html(built, checked_output(output), plotlyjs=mode)
    info(f"wrote {path} ({file_size(path.stat().st_size)})")
    finish(built.findings, fail_on, settings)


@app.command(epilog="Example: warmup demo -o demo.html")
@with_errors
def demo(
    output: OutputOption = Path("demo.html"),
    plotlyjs: PlotlyJsOption = "inline",
) -> None:
    """Run the toolkit end to end on its bundled fixtures (synthetic ClickBench suites,
    JMeter load tests, query profiles): print the gap tables and write the full report."""
    mode = plotlyjs_mode(plotlyjs)
    if not output.parent.is_dir():
        fail(f"{output}: folder {output.parent} does not exist; create it first")
    from toolkit.cli.gaps import print_gap_tables
    from toolkit.pipeline.demo import run_demo

    result = run_demo(output, plotlyjs=mode)
    print_gap_tables(result.gaps)
    info(f"wrote {result.output} ({file_size(result.output.stat().st_size)})")
