"""``warmup ingest``, ``warmup suites`` and ``warmup doctor``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolkit.cli.common import (
    ColumnsOption,
    DelimiterOption,
    EncodingOption,
    FormatOption,
    JsonOption,
    MaxBytesOption,
    TimeFormatOption,
    TimestampsOption,
    TimezoneOption,
    app,
    escape_controls,
    fail,
    info,
    input_spec,
    plain,
    print_json,
    refuse_missing_inputs,
    run_ingest,
    with_errors,
)
from toolkit.cli.output import OutputFormat, OutputFormatOption, TableOutput
from toolkit.numbers import plural
from toolkit.options import check_store_path

if TYPE_CHECKING:
    pass


@app.command(
    epilog=(
        "Example: warmup ingest --db bench.duckdb ClickBench/trino/results/ "
        "run.jtl --tag machine=c6a;  warmup ingest --db runs.duckdb --suite dist gen1.jtl "
        "gen2.jtl (one suite from two load generators)"
    )
)
@with_errors
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Files or folders to read.", metavar="PATH", show_default=False, readable=False
        ),
    ],
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            help="DuckDB store file to write (created if missing; or set WARMUP_DB). "
            "Default: an in-memory store, kept only while the command runs.",
            envvar="WARMUP_DB",
            dir_okay=False,
        ),
    ] = None,
    format: FormatOption = None,
    suite: Annotated[
        str | None,
        typer.Option(
            "--suite",
            help="Suite name instead of the file's name; files given the same name join one "
            "suite (e.g. the JTLs of distributed load generators).",
            metavar="NAME",
        ),
    ] = None,
    tag: Annotated[
        list[str] | None,
        typer.Option("--tag", help="Suite tag, or K=V attribute. Repeatable.", metavar="TAG"),
    ] = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Reload files that are already stored.")
    ] = False,
    encoding: EncodingOption = None,
    max_bytes: MaxBytesOption = None,
    delimiter: DelimiterOption = None,
    columns: ColumnsOption = None,
    time_format: TimeFormatOption = None,
    timezone: TimezoneOption = None,
    timestamps: TimestampsOption = None,
) -> None:
    """Read result files into a store: JMeter JTLs (CSV/XML) and console logs, ClickBench
    JSON, iteration CSV/Parquet and query-profile exports.

    The format of each file is detected and printed. A file already stored (same SHA-256)
    is skipped unless --replace. Each file is one transaction: a bad file is reported on
    one line and leaves the store as it was. Each file becomes its own suite, named after
    the file, unless --suite joins them.
    """
    spec = input_spec(
        format=format,
        encoding=encoding,
        max_bytes=max_bytes,
        delimiter=delimiter,
        columns=columns,
        time_format=time_format,
        timezone=timezone,
        timestamps=timestamps,
        suite=suite,
        tags=tag or (),
        replace=replace,
    )
    if db is not None:
        check_store_path(db, read_only=False)
    refuse_missing_inputs(paths, partial_ok=True)
    # the libraries, once the command line is known to be good (issue 20 item 4)
    from toolkit.store import open_store

    if db is None:
        typer.echo(
            "note: no --db given; reading into a temporary in-memory store (nothing is kept)",
            err=True,
        )
    with open_store(db, on_wait=info) as store:
        run_ingest(store, paths, format=spec.format, options=spec.options)


@app.command(epilog="Example: warmup suites --db bench.duckdb --json")
@with_errors
def suites(
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            help="DuckDB store file to list (or set WARMUP_DB).",
            envvar="WARMUP_DB",
            dir_okay=False,
        ),
    ] = None,
    as_json: JsonOption = False,
    output_format: OutputFormatOption = OutputFormat.table,
) -> None:
    """List the suites in a store with their kind, system, machine, date, tags (--tag)
    and row counts."""
    if db is None:
        fail("give --db STORE (or set WARMUP_DB)", code=2)
    check_store_path(db, read_only=True)
    from toolkit.store import DATA_TABLES, open_store

    with open_store(db, read_only=True, on_wait=info) as store:
        frame = store.suites()
    rows = frame.to_dicts()
    for row in rows:
        row["attributes"] = json.loads(row["attributes"] or "{}")
        # a load file names no machine: --tag machine=NAME is where it is given
        row["machine"] = row["machine"] or row["attributes"].get("machine")
    if as_json:
        for row in rows:
            if row.get("run_date") is not None:
                row["run_date"] = row["run_date"].isoformat()
        print_json({"suites": rows})
        return
    from rich.table import Table

    table = Table("suite", "kind", "system", "machine", "date", "tags", "rows")
    for row in rows:
        count = sum(row[table] for table in DATA_TABLES)
        cells = (row["name"], row["kind"], row["system"], row["machine"], row["run_date"])
        # plain() cells: suite names are untrusted and must not be read as rich markup
        table.add_row(
            *(plain("" if c is None else str(c)) for c in cells),
            plain(suite_tags(row["tags"], row["attributes"])),
            plain(str(count)),
        )
    TableOutput(output_format).print(table)


#: Attributes ingest records for itself, not given with --tag: left out of the tags column.
INTERNAL_ATTRIBUTES = frozenset({"columns"})


def suite_tags(tags: list[str] | None, attributes: dict[str, Any]) -> str:
    """The suite's ``--tag`` values as given: plain tags, then ``key=value`` pairs (the
    attributes ingest records itself, such as a CSV JTL's ``columns``, left out)."""
    pairs = [f"{k}={v}" for k, v in attributes.items() if k not in INTERNAL_ATTRIBUTES]
    return ", ".join([*(tags or []), *pairs])


@app.command(epilog="Example: warmup doctor --db bench.duckdb")
@with_errors
def doctor(
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            help="DuckDB store file to check (or set WARMUP_DB).",
            envvar="WARMUP_DB",
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Read every table of a store in full, read-only, and say which ones are damaged
    (a block whose checksum does not match, a file cut short). Exit 1 when any is."""
    if db is None:
        fail("give --db STORE (or set WARMUP_DB)", code=2)
    from toolkit.store import check_tables, damaged_store_error

    checks = check_tables(db, lock_timeout=None)
    width = max((len(c.table) for c in checks), default=0)
    for check in checks:
        verdict = f"{check.rows} rows, ok" if check.problem is None else f"DAMAGED: {check.problem}"
        typer.echo(escape_controls(f"{check.table:<{width}}  {verdict}"))
    damaged = [c.table for c in checks if c.problem is not None]
    if damaged:
        raise damaged_store_error(db, f"damaged: {', '.join(damaged)}", doctor=False)
    info(f"{db}: all {plural(len(checks), 'table')} read in full; no damage found")
