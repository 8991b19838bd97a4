"""``warmup cache``: cache warm-up from query-profile exports."""

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
    nothing_to_analyze,
    plain,
    print_findings,
    print_json,
    settings_of,
    with_errors,
)
from toolkit.cli.output import MACHINE_FORMATS, OutputFormat, OutputFormatOption, TableOutput

if TYPE_CHECKING:
    from toolkit.analyze.cache import CacheSeries


@app.command(
    epilog=(
        "Example: warmup cache fixtures/profiles/warehouse_warmup.csv   "
        "(or: warmup cache query_history.csv --json)"
    )
)
@with_errors
def cache(
    paths: PathsArgument = None,
    db: DbOption = None,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    max_bytes: MaxBytesOption = None,
    as_json: JsonOption = False,
    output_format: OutputFormatOption = OutputFormat.table,
    config: ConfigOption = None,
    fail_on: FailOnOption = None,
    suite: Annotated[
        list[str] | None, typer.Option("--suite", help="Only these profile suites. Repeatable.")
    ] = None,
    epsilon: Annotated[
        float,
        typer.Option(
            "--epsilon", help="Warm = within this fraction of the final level (default 2 %)."
        ),
    ] = 0.02,
) -> None:
    """Cache warm-up per query series: remote and local bytes per run, transfer rates,
    time per TB, runs to warm, cache capacity, cold-to-warm speed-up and curve fits.

    Reads Snowflake, Databricks, ClickHouse and DuckDB profile exports and the generic
    profile CSV (series, run, elapsed_s, bytes_*, *_share, nodes). Rates are decimal
    (1 MB/s = 10^6 bytes/s); --json gives bytes, seconds and bytes/s.
    """
    settings = settings_of(config)
    spec = input_spec(format=format, encoding=encoding, max_bytes=max_bytes)
    check_inputs(paths, db, fail_on)
    # the libraries, once the command line is known to be good (issue 20 item 4)
    from toolkit.analyze.cache import cache_findings
    from toolkit.pipeline.cache import analyze_cache, cache_payload
    from toolkit.pipeline.findings import finalized

    with analysis_store(paths, db, spec) as store:
        results = analyze_cache(store, suites=suite, epsilon=epsilon)
        elsewhere = store.suites_elsewhere("profile") if not results else ""
    if not results:
        nothing_to_analyze("profiled query series with data", elsewhere)
    found = finalized([f for s in results for f in cache_findings(s)], settings)
    if as_json:
        print_json({**cache_payload(results), "findings": [f.as_json() for f in found]})
    else:
        print_cache(results, output_format)
        print_findings(found, err=output_format in MACHINE_FORMATS)
    finish(found, fail_on, settings)


def print_cache(
    results: list[CacheSeries], output_format: OutputFormat = OutputFormat.table
) -> None:
    """One table per series (the seed's columns) with its derived figures."""
    from rich.table import Table

    from toolkit.pipeline.cache import human_bytes, human_elapsed, human_rate

    # the seed's table needs about 110 columns; narrower terminals wrap rather than cut cells
    console = TableOutput(output_format, min_width=110)
    single = [s for s in results if len(s.runs) + len(s.excluded_runs) < 2]
    shown = [s for s in results if len(s.runs) + len(s.excluded_runs) >= 2] or single
    for s in shown:
        nodes = f", {s.nodes} nodes" if s.nodes else ""
        table = Table(title=plain(f"{s.series}{nodes}"), title_justify="left")
        for col in (
            "#",
            "Execution Time",
            "Bytes Scanned",
            "Remote",
            "Local",
            "Local %",
            "Remote Rate",
            "Local Rate",
        ):
            table.add_column(col, justify="right", no_wrap=True)
        for r in s.runs:
            share = "" if r.local_share is None else f"{100 * r.local_share:.1f}%"
            cells = (
                str(r.run),
                human_elapsed(r.elapsed_s),
                human_bytes(r.bytes_scanned),
                human_bytes(r.bytes_remote),
                human_bytes(r.bytes_local),
                share,
                human_rate(r.remote_rate),
                human_rate(r.local_rate),
            )
            table.add_row(*(plain(c) for c in cells))
        console.print(table)
        for line in _derived_lines(s):
            console.print(plain(f"  {line}"))
        console.print()
    if shown is not single and single:
        console.print(plain(f"{len(single)} series with a single run not shown (see --json)"))


def _derived_lines(s: CacheSeries) -> list[str]:
    """The seed's derived figures for one series, one sentence each."""
    from toolkit.pipeline.cache import human_bytes, human_elapsed, human_minutes, human_rate

    lines: list[str] = []
    if s.remote_rate is not None:
        basis = next((r.rate_basis for r in s.runs if r.run == s.remote_rate_run), None)
        lower = " (lower bound: whole elapsed time)" if basis == "elapsed" else ""
        lines.append(
            f"remote rate {human_rate(s.remote_rate)} (run {s.remote_rate_run}, the largest "
            f"remote read){lower}: 1 TB in {human_minutes(s.remote_time_per_tb_s)}"
        )
    streams = [r for r in s.runs if r.remote_stream_rate is not None]
    if streams:
        top = max(streams, key=lambda r: r.bytes_remote or 0)
        lines.append(
            f"remote read per stream {human_rate(top.remote_stream_rate)} (run {top.run}: remote "
            "bytes / summed read time of all streams; not the cluster's bandwidth)"
        )
    if s.local_rate is not None:
        lines.append(
            f"local rate {human_rate(s.local_rate)} (median of runs): 1 TB in "
            f"{human_minutes(s.local_time_per_tb_s)}"
        )
    if s.local_remote_ratio is not None:
        lines.append(f"local cache is {s.local_remote_ratio:.0f}x faster than remote storage")
    if s.compaction is not None and abs(s.compaction - 1) > 0.02:
        lines.append(
            f"bytes scanned {human_bytes(s.scanned_first)} -> {human_bytes(s.scanned_last)} "
            f"({s.compaction:.2f}x less once cached)"
        )
    if s.ordered_by == "start_time":
        lines.append("runs numbered by start time")
    if s.verdict in ("warming", "steady"):
        lines.append(s.verdict_note)
    if s.capacity_bytes is not None:
        per_node = (
            f" ({human_bytes(s.capacity_per_node_bytes)} per node)"
            if s.capacity_per_node_bytes is not None
            else ""
        )
        lines.append(
            f"cache capacity at least {human_bytes(s.capacity_bytes)}{per_node}: {s.capacity_note}"
        )
    elif s.capacity_note:
        lines.append(s.capacity_note)
    if s.speedup is not None:
        label = "cold-to-warm speed-up" if s.speedup >= 1 else "no speed-up: later runs slower"
        lines.append(
            f"{label} {s.speedup:.1f}x ({human_elapsed(s.cold_s)} -> {human_elapsed(s.warm_s)})"
        )
    if s.fit is not None:
        tau = (
            f", τ {s.fit.tau_runs:.2f} runs"
            if s.fit.model == "geometric" and s.fit.tau_runs
            else ""
        )
        lines.append(f"best fit by AIC: {s.fit.model}, t∞ {human_elapsed(s.fit.t_inf_s)}{tau}")
    elif s.fit_note:
        lines.append(s.fit_note)
    att = s.attribution
    if att is not None:
        lines.append(
            f"time model t = {att.intercept_s:.1f} s + {att.s_per_remote_byte * 1e9:.2f} s/GB remote"
            f" + {att.s_per_local_byte * 1e9:.3f} s/GB local (R² {att.r_squared:.3f})"
        )
    return lines
