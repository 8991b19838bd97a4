"""``warmup ingest`` and ``warmup suites``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.common import (
    DbOption,
    JsonOption,
    app,
    fail,
    info,
    print_json,
    run_ingest,
    with_errors,
)
from toolkit.ingest import IngestOptions, check_format
from toolkit.store import DATA_TABLES, open_store


@app.command(
    epilog=(
        "Example: warmup ingest --db bench.duckdb ClickBench/trino/results/ "
        "run.jtl --tag machine=c6a"
    )
)
@with_errors
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to read.")],
    db: DbOption = None,
    format: Annotated[
        str | None, typer.Option("--format", help="Input format; default: detected per file.")
    ] = None,
    suite: Annotated[
        str | None, typer.Option("--suite", help="Suite name; files with the same name join.")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="Suite tag, or K=V attribute. Repeatable.")
    ] = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Reload files that are already stored.")
    ] = False,
    encoding: Annotated[
        str | None, typer.Option("--encoding", help="Text encoding of the inputs (default UTF-8).")
    ] = None,
    delimiter: Annotated[
        str | None, typer.Option("--delimiter", help="CSV JTL delimiter (default: detected).")
    ] = None,
    columns: Annotated[
        str | None,
        typer.Option("--columns", help="Comma-separated column names of a header-less CSV JTL."),
    ] = None,
    time_format: Annotated[
        str | None,
        typer.Option("--time-format", help="strftime format of a JTL timeStamp column."),
    ] = None,
    timezone: Annotated[
        str | None,
        typer.Option(
            "--timezone", help="Time zone of formatted JTL timestamps (e.g. Europe/Paris)."
        ),
    ] = None,
) -> None:
    """Read result files into a store: ClickBench JSON, iteration CSV/Parquet, and more.

    The format of each file is detected and printed. A file already stored (same SHA-256)
    is skipped unless --replace. Each file is one transaction: a bad file is reported on
    one line and leaves the store as it was.
    """
    check_format(format)
    options = IngestOptions(
        suite=suite,
        tags=tuple(tag or ()),
        replace=replace,
        encoding=encoding,
        delimiter=delimiter,
        columns=tuple(c.strip() for c in columns.split(",")) if columns else None,
        time_format=time_format,
        timezone=timezone,
    )
    if db is None:
        typer.echo(
            "note: no --db given; reading into a temporary in-memory store (nothing is kept)",
            err=True,
        )
    with open_store(db, on_wait=info) as store:
        run_ingest(store, paths, format=format, options=options)


@app.command(epilog="Example: warmup suites --db bench.duckdb --json")
@with_errors
def suites(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List the suites in a store with their kind, system, machine, date and row counts."""
    if db is None:
        fail("give --db STORE (or set WARMUP_DB)", code=2)
    with open_store(db, read_only=True, on_wait=info) as store:
        frame = store.suites()
    rows = frame.drop("attributes").to_dicts()
    if as_json:
        for row in rows:
            if row.get("run_date") is not None:
                row["run_date"] = row["run_date"].isoformat()
        print_json({"suites": rows})
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table("suite", "kind", "system", "machine", "date", "rows")
    for row in rows:
        count = sum(row[table] for table in DATA_TABLES)
        cells = (row["name"], row["kind"], row["system"], row["machine"], row["run_date"], count)
        # Text() cells: suite names are untrusted and must not be read as rich markup
        table.add_row(*(Text("" if c is None else str(c)) for c in cells))
    Console(markup=False).print(table)
