"""Tables on stdout: full width in a file or pipe, and ``--output-format csv|tsv|markdown``.

The option is ``--output-format``, not ``--format``: ``--format NAME`` already names the
*input* format on every command that reads files.
"""

from __future__ import annotations

import csv
import enum
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolkit.cli.common import output_width

if TYPE_CHECKING:
    from rich.table import Table


class OutputFormat(enum.StrEnum):
    """How a command prints its tables."""

    table = "table"
    csv = "csv"
    tsv = "tsv"
    markdown = "markdown"


#: Formats whose stdout holds only the tables (notes and findings go to stderr).
MACHINE_FORMATS = (OutputFormat.csv, OutputFormat.tsv)

OutputFormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--output-format",
        help=(
            "How tables are printed: table (aligned text), csv, tsv or markdown. With csv "
            "and tsv, stdout holds only the tables (a blank line between two); notes and "
            "findings go to stderr."
        ),
        case_sensitive=False,
    ),
]

#: Width of a table printed to a file or pipe: wide enough that rich never cuts a cell
#: (rich's own default there is 80 columns); a table takes only the width it needs.
UNLIMITED_WIDTH = 10_000


def table_width(min_width: int = 0) -> int:
    """Columns a table may take: the terminal's (or ``COLUMNS``), at least ``min_width``;
    :data:`UNLIMITED_WIDTH` when stdout is a file or pipe."""
    width = output_width()
    return UNLIMITED_WIDTH if width is None else max(width, min_width)


def cell_text(cell: Any) -> str:
    """The plain text of a rich table cell (``Text``, ``str`` or None)."""
    if cell is None:
        return ""
    plain = getattr(cell, "plain", None)
    return plain if isinstance(plain, str) else str(cell)


def table_rows(table: Table) -> list[list[str]]:
    """The header row then the body rows of a rich ``Table``, as plain text."""
    columns = table.columns
    rows = [[cell_text(c.header) for c in columns]]
    cells = [[cell_text(cell) for cell in c.cells] for c in columns]
    rows.extend([list(row) for row in zip(*cells, strict=True)])
    return rows


def markdown_cell(text: str) -> str:
    """A GitHub-flavoured Markdown table cell: pipes escaped, line breaks as ``<br>``."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


class TableOutput:
    """Stands in for a rich ``Console`` in the table printers: ``print`` of a ``Table``
    writes it in the chosen format, anything else (a title line, a note) is printed as
    before, on stderr for csv and tsv so that stdout stays machine-readable."""

    def __init__(self, output_format: OutputFormat = OutputFormat.table, min_width: int = 0):
        from rich.console import Console

        self.output_format = OutputFormat(output_format)
        width = table_width(min_width)
        self.console = Console(markup=False, highlight=False, width=width)
        machine = self.output_format in MACHINE_FORMATS
        self.notes = (
            Console(markup=False, highlight=False, width=width, stderr=True)
            if machine
            else self.console
        )
        self.tables = 0

    def print(self, *objects: Any, **kwargs: Any) -> None:
        """Print each object: a ``Table`` in the output format, others as rich does."""
        from rich.table import Table

        if self.output_format is OutputFormat.table:
            self.console.print(*objects, **kwargs)
            return
        if not objects:
            self.notes.print(**kwargs)
        for item in objects:
            if isinstance(item, Table):
                self.write_table(item)
            else:
                self.notes.print(item, **kwargs)

    def write_table(self, table: Table) -> None:
        """One table in csv, tsv or markdown on stdout."""
        rows = table_rows(table)
        out = sys.stdout
        if self.tables and self.output_format is not OutputFormat.markdown:
            out.write("\n")
        self.tables += 1
        if self.output_format is OutputFormat.markdown:
            title = cell_text(table.title)
            out.write(f"\n**{markdown_cell(title)}**\n\n" if title else "\n")
            out.write("| " + " | ".join(markdown_cell(c) for c in rows[0]) + " |\n")
            out.write("|" + "|".join("---" for _ in rows[0]) + "|\n")
            for row in rows[1:]:
                out.write("| " + " | ".join(markdown_cell(c) for c in row) + " |\n")
            return
        delimiter = "," if self.output_format is OutputFormat.csv else "\t"
        writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
        writer.writerows(rows)
