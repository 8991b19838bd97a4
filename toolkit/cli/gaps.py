"""``warmup gaps``: the iteration-gap table (``warmup demo`` lives in cli/report.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer

from toolkit.analyze.gaps import DEFAULT_TARGET, DEFAULT_TOLERANCE, gap_findings
from toolkit.cli.common import (
    DbOption,
    JsonOption,
    PathsArgument,
    analysis_store,
    app,
    fail,
    info,
    print_json,
    with_errors,
)
from toolkit.pipeline.gaps import (
    REFERENCES,
    SuiteGaps,
    gap_tables,
    gaps_payload,
    steady_provider,
)

SuiteOption = Annotated[
    list[str] | None,
    typer.Option("--suite", help="Only this suite (name as in `warmup suites`). Repeatable."),
]


def _percent(fraction: float) -> str:
    return f"{fraction * 100:g} %"


def print_per_query(item: SuiteGaps) -> None:
    """One row per query: cold, hot(k) for every k, reference, first k within tolerance."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    t = item.table
    title = f"{item.suite}: per query, seconds; k = hot(k), the min of hot runs 1..k"
    table = Table(title=Text(title), title_justify="left")
    for header in ("query", "cold", *(f"k={k}" for k in range(1, t.runs)), "ref"):
        table.add_column(header, justify="left" if header == "query" else "right")
    table.add_column("first k", justify="right")
    table.add_column("note")
    show_process = any(q.process for q in t.per_query)

    def cell(value: float | None) -> Text:
        return Text("-" if value is None else f"{value:.4g}")

    for q in t.per_query:
        name = f"{q.query} [p{q.process}]" if show_process else q.query
        table.add_row(
            Text(name),
            cell(q.cold_s),
            *(cell(v) for v in q.hot_s_by_k),
            cell(q.reference_s),
            Text("-" if q.first_k_within is None else str(q.first_k_within)),
            Text(q.excluded or ""),
        )
    console = Console(markup=False, highlight=False)
    # a wide table is more useful wrapped by the terminal than with every cell truncated
    Console(markup=False, highlight=False, width=max(console.width, 60 + 8 * t.runs)).print(table)


def print_gap_tables(results: Sequence[SuiteGaps], *, per_query: bool = False) -> None:
    """Print one rich table per suite, like seed 002's, plus findings and the target line."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(markup=False, highlight=False)
    if not results:
        info("no iteration suites to analyze")
        return
    for item in results:
        if per_query:
            print_per_query(item)
        t = item.table
        tol = _percent(t.tolerance)
        title = Text(f"{item.suite}: reference {t.reference}")
        table = Table(title=title, title_justify="left")
        for header in (
            "Hot iters",
            "Total runs",
            "Suite-sum (s)",
            "Gap vs reference",
            f"Queries within ±{tol}",
        ):
            table.add_column(header, justify="right")
        for r in t.rows:
            label = f"{r.hot_iterations}" + (" (ClickBench)" if r.hot_iterations == 2 else "")
            gap = "-" if r.gap is None else f"{r.gap * 100:+.1f} %"
            table.add_row(
                Text(label),
                Text(str(r.total_runs)),
                Text(f"{r.suite_sum_s:.3f}"),
                Text(gap),
                Text(f"{r.within_tolerance}/{r.queries}"),
            )
        console.print(table)
        for finding in gap_findings(t, subject=item.suite):
            console.print(Text(f"{finding.severity}: {finding.sentence()}"), soft_wrap=True)
        if t.k_for_target is None:
            console.print(
                Text(f"No hot-iteration count brings the gap within {_percent(t.target)}.")
            )
        else:
            console.print(
                Text(
                    f"Smallest hot-iteration count with gap <= {_percent(t.target)}: "
                    f"{t.k_for_target} ({t.runs_for_target} total runs)"
                ),
                soft_wrap=True,
            )
        console.print()


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
    reference: Annotated[
        str,
        typer.Option(
            "--reference",
            help="min-all: min of all hot runs (seed 002); steady: warm-up engine's steady state.",
        ),
    ] = "min-all",
    tolerance: Annotated[
        float,
        typer.Option("--tolerance", help="Within-tolerance band as a fraction (0.10 = ±10 %)."),
    ] = DEFAULT_TOLERANCE,
    target: Annotated[
        float,
        typer.Option("--target", help="Suite gap to reach, as a fraction (0.05 = 5 %)."),
    ] = DEFAULT_TARGET,
    suite: SuiteOption = None,
    per_query: Annotated[
        bool, typer.Option("--per-query", help="Also print hot(k) of every query.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """How far "hot = min of the first k hot runs" is from the reference, for every k.

    One row per hot-iteration count k: total runs (k+1), suite sum of per-query hot(k),
    gap against the reference sum, and queries within ±tolerance. Queries with a failed
    (null) hot run are excluded from every row and listed.
    """
    if reference not in REFERENCES:
        fail(f"unknown --reference {reference!r}; use one of: {', '.join(REFERENCES)}")
    if tolerance < 0 or target < 0:
        fail("--tolerance and --target must be fractions >= 0 (0.10 = 10 %)")
    if reference == "steady":
        steady_provider()  # fails before any input is read when the engine is missing
    with analysis_store(paths, db) as store:
        results = gap_tables(
            store, suites=suite, reference=reference, tolerance=tolerance, target=target
        )
    if as_json:
        print_json(gaps_payload(results))
    else:
        print_gap_tables(results, per_query=per_query)
