"""``warmup score``: the ClickBench website's cold, hot and combined scores."""

from __future__ import annotations

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
    input_spec,
    plain,
    print_findings,
    print_json,
    settings_of,
    with_errors,
)
from toolkit.cli.output import MACHINE_FORMATS, OutputFormat, OutputFormatOption, TableOutput

if TYPE_CHECKING:
    from toolkit.pipeline.score import SuiteScores


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_scores(result: SuiteScores, output_format: OutputFormat = OutputFormat.table) -> None:
    """One table of scores (sorted by combined, then hot), and one of hot score by k."""
    from rich.table import Table

    from toolkit.analyze.gaps import CLICKBENCH_HOT_RUNS, shown_hot_iterations
    from toolkit.analyze.score import MAX_SCORE_K_COLUMNS

    console = TableOutput(output_format)
    t = result.table
    pairs = list(zip(result.suites, t.entries, strict=True))
    pairs.sort(
        key=lambda p: (
            p[1].combined is None,
            p[1].combined or 0.0,
            p[1].hot is None,
            p[1].hot or 0.0,
        )
    )
    table = Table(title=plain("ClickBench scores (lower is better; 1 = best on every query)"))
    for header in ("system", "machine", "date", "runs", "combined", "hot", "cold"):
        table.add_column(header, justify="left" if header in ("system", "machine") else "right")
    for s, e in pairs:
        table.add_row(
            plain(s.system),
            plain(s.machine or ""),
            plain(s.run_date.isoformat() if s.run_date else ""),
            plain(str(s.runs)),
            plain(_fmt(e.combined)),
            plain(_fmt(e.hot)),
            plain(_fmt(e.cold) + (" (in-memory)" if e.in_memory else "")),
        )
    console.print(table)
    if len(t.hot_iterations) > 1:
        # a table for reading has a column for at most MAX_SCORE_K_COLUMNS values of k
        # (k = 2 among them); csv/tsv and --json every k
        ks = t.hot_iterations
        limit = len(ks) if output_format in MACHINE_FORMATS else MAX_SCORE_K_COLUMNS
        shown = set(shown_hot_iterations(ks, limit, keep=[CLICKBENCH_HOT_RUNS]))
        by_k = Table(title=plain("Hot score (rank) with k hot runs; k = 2 is ClickBench's hot"))
        if len(shown) < len(ks):
            by_k.caption = plain(
                f"{len(shown)} of the {len(ks):,} values of k shown (every k in --json)"
            )
        by_k.add_column("system")
        for k in ks:
            if k in shown:
                by_k.add_column(f"k={k}", justify="right")
        for s, e in sorted(pairs, key=lambda p: p[1].hot_rank or 10**9):
            cells = [
                "-" if score is None else f"{score:.3f} ({rank})"
                for k, score, rank in zip(ks, e.hot_by_k, e.hot_rank_by_k, strict=True)
                if k in shown
            ]
            by_k.add_row(plain(s.system), *(plain(c) for c in cells))
        console.print(by_k)


@app.command(
    epilog=(
        "Example: warmup score ClickBench/*/results/ --machine c6a.4xlarge   "
        "(or: warmup score --db bench.duckdb --json)"
    )
)
@with_errors
def score(
    paths: PathsArgument = None,
    db: DbOption = None,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    max_bytes: MaxBytesOption = None,
    machine: Annotated[
        str | None, typer.Option("--machine", help="Only suites on this machine.")
    ] = None,
    all_dates: Annotated[
        bool,
        typer.Option(
            "--all-dates", help="Score every date, not just the latest per system and machine."
        ),
    ] = False,
    historical: Annotated[
        bool, typer.Option("--historical", help="Include suites tagged historical.")
    ] = False,
    config: ConfigOption = None,
    fail_on: FailOnOption = None,
    suite: Annotated[
        list[str] | None,
        typer.Option("--suite", help="Score exactly these suites (no other filter). Repeatable."),
    ] = None,
    as_json: JsonOption = False,
    output_format: OutputFormatOption = OutputFormat.table,
) -> None:
    """Score suites the way the ClickBench website does: hot, cold and combined.

    Per query (0.01 s + time) / (0.01 s + best time of that run among the scored suites),
    missing = 2 x max(300 s, worst time), geometric mean over queries; combined weighs
    load time 10 %, data size 10 %, cold 20 %, hot 60 %. For inputs with more than 3 runs,
    also the hot score and rank when hot uses k = 2 .. N-1 runs.
    """
    settings = settings_of(config)
    spec = input_spec(format=format, encoding=encoding, max_bytes=max_bytes)
    check_inputs(paths, db, fail_on)
    # the libraries, once the command line is known to be good (issue 20 item 4)
    from toolkit.analyze.score import score_findings
    from toolkit.pipeline.findings import finalized
    from toolkit.pipeline.score import score_payload, suite_scores

    with analysis_store(paths, db, spec) as store:
        result = suite_scores(
            store, suites=suite, machine=machine, latest_only=not all_dates, historical=historical
        )
    payload = score_payload(result)
    found = finalized(score_findings(payload), settings)
    if as_json:
        print_json({**payload, "findings": [f.as_json() for f in found]})
    else:
        print_scores(result, output_format)
        print_findings(found, err=output_format in MACHINE_FORMATS)
    finish(found, fail_on, settings)
