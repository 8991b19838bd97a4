"""``warmup detect``: per-series warm-up classification, steady state and spikes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer

from toolkit.cli.common import (
    DbOption,
    JsonOption,
    PathsArgument,
    analysis_store,
    app,
    info,
    print_json,
    with_errors,
)
from toolkit.pipeline.detect import SeriesDetection, detect_payload, detect_series

SuiteOption = Annotated[
    list[str] | None,
    typer.Option("--suite", help="Only this suite (name as in `warmup suites`). Repeatable."),
]


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def print_detections(results: Sequence[SeriesDetection]) -> None:
    """One table row per series, then the still-warming shares (JVM vs other systems)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from toolkit.pipeline.detect import still_warming_shares

    console = Console(markup=False, highlight=False)
    if not results:
        info("no iteration suites to analyze")
        return
    table = Table(title=Text("warm-up per series"), title_justify="left")
    for header, justify in (
        ("Suite", "left"),
        ("Query", "left"),
        ("Proc", "right"),
        ("Class", "left"),
        ("Steady iter", "right"),
        ("Steady s (95 % CI)", "right"),
        ("Spikes (iter: s)", "left"),
        ("Cold ratio", "right"),
    ):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for d in results:
        a = d.analysis
        cls: str = a.series_class
        if a.short is not None and cls == "short":
            cls = f"short: {a.short.short_class}"
        steady = _seconds(a.steady_s)
        if a.steady_ci is not None and a.steady_s is not None:
            steady = f"{steady} ({_seconds(a.steady_ci[0])}-{_seconds(a.steady_ci[1])})"
        spikes = ", ".join(f"{s.iteration}: {s.seconds:.4g}" for s in a.spikes) or "-"
        table.add_row(
            Text(d.suite),
            Text(d.query),
            Text(str(d.process)),
            Text(cls),
            Text("-" if a.steady_iteration is None else str(a.steady_iteration)),
            Text(steady),
            Text(spikes),
            Text("-" if a.cold_ratio is None else f"{a.cold_ratio:.2f}"),
        )
    console.print(table)
    shares = still_warming_shares(results)
    for group, label in (("jvm", "JVM systems (tag Java)"), ("native", "other systems")):
        g = shares[group]
        if g["series"]:
            console.print(
                Text(
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
    suite: SuiteOption = None,
    comparators: Annotated[
        bool,
        typer.Option(
            "--comparators",
            help="Also run MSER-5, Georges' CoV rule and Laaber's stopping rules (JSON only).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Classify every (suite, query, process) series: flat, warmup, slowdown,
    no-steady-state (PELT change points, Barrett et al. 2017), or short (2-5 runs: the
    cold/hot step detector). Prints the steady iteration, the steady value with its 95 %
    bootstrap CI, single-iteration spikes (JIT/GC) and the cold/hot ratio."""
    with analysis_store(paths, db) as store:
        results = detect_series(store, suites=suite, comparators=comparators)
    if as_json:
        payload = detect_payload(results)
        if comparators:
            for entry, d in zip(payload["series"], results, strict=True):
                entry["comparators"] = [
                    {
                        "rule": r.rule,
                        "stop": r.stop,
                        "value_s": r.value_s,
                        "iteration_error": r.iteration_error,
                        "time_error_s": r.time_error_s,
                        "value_error": r.value_error,
                    }
                    for r in d.analysis.comparators
                ]
        print_json(payload)
    else:
        print_detections(results)
