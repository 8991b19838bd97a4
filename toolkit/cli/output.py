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
            text = plain_table_text(objects[0], self.console) if len(objects) == 1 else None
            if text is None or kwargs:
                self.console.print(*objects, **kwargs)
            else:
                self.console.file.write(text)
                self.console.file.flush()
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


def _simple_text(cell: Any) -> str | None:
    """The text of a cell :func:`plain_table_text` can lay out as rich would: a ``Text``
    (no own justify, overflow or no_wrap) or a ``str`` without ``[`` or ``:`` (which rich
    may read as markup or emoji codes), on one line: no control character, no space at
    either end; None otherwise."""
    from rich.text import Text

    if type(cell) is str:
        if "[" in cell or ":" in cell:
            return None
        text = cell
    elif type(cell) is Text and not (cell.justify or cell.overflow or cell.no_wrap):
        text = cell.plain
    else:
        return None
    if not text.isprintable() or text != text.strip():
        return None
    return text


def plain_table_text(table: Any, console: Any) -> str | None:
    """``table`` (a rich ``Table``) as the exact text ``console.print(table)`` writes, for
    the common case only: a console that writes no styles (a file or pipe), a table built
    with rich's default layout options whose every row fits on one line at the console's
    width, cells and title of plain one-line ``Text``. None for anything else (the caller
    then lets rich print it).

    Why: rich lays out each cell through its wrapping and measuring machinery, ~0.1 ms a
    cell; the 1,954-row summary of ``warmup gaps`` on 2,000 ClickBench results spent
    ~1 s of CPU there (issue 19). The layout copied here is rich's ``Table`` one when
    nothing wraps: a column is as wide as its widest cell plus one space either side,
    cells justified left or right, the title left-justified to the table's width; the box
    characters come from rich itself. ``tests/test_cli_output.py`` compares this text
    with rich's own on generated tables."""
    from rich.cells import cell_len
    from rich.table import Table

    if (
        type(table) is not Table
        or console.color_system is not None
        or console.record
        or console.quiet
        or console.is_jupyter
        or console.legacy_windows
        or console.soft_wrap
    ):
        return None
    if (
        not table.columns
        or table.box is None
        or not table.show_header
        or not table.show_edge
        or table.show_footer
        or table.show_lines
        or table.leading
        or table.caption is not None
        or table.expand
        or table.width is not None
        or table.min_width is not None
        or table.padding != (0, 1, 0, 1)
        or table.collapse_padding
        or not table.pad_edge
        or table.title_justify != "left"
        or any(row.end_section for row in table.rows)
    ):
        return None
    columns = []
    for column in table.columns:
        if (
            column.width is not None
            or column.min_width is not None
            or column.max_width is not None
            or column.ratio is not None
            or column.justify not in ("left", "right")
        ):
            return None
        found = [_simple_text(column.header), *(_simple_text(c) for c in column.cells)]
        if any(t is None for t in found):
            return None
        columns.append([t for t in found if t is not None])
    widths_of = [[cell_len(t) for t in texts] for texts in columns]
    # each column's widest cell plus its padding; rich wraps only when these overflow
    widths = [max(w) + 2 for w in widths_of]
    if min(widths) < 3:
        return None  # a column of no width: rich drops what the column cannot show
    edges = 2 + len(widths) - 1
    table_width = sum(widths) + edges
    if table_width > console.options.max_width:
        return None
    title = None
    if table.title is not None:
        title = _simple_text(table.title)
        if title is None or not title or cell_len(title) > table_width:
            return None
    safe = console.safe_box if table.safe_box is None else table.safe_box
    box = table.box.substitute(console.options, safe=safe)
    lines = [] if title is None else [title + " " * (table_width - cell_len(title))]
    lines.append(box.get_top(widths))
    for index in range(len(columns[0])):
        cells = []
        for column, texts, lengths, width in zip(
            table.columns, columns, widths_of, widths, strict=True
        ):
            pad = " " * (width - 2 - lengths[index])
            text = texts[index]
            cells.append(f" {text}{pad} " if column.justify == "left" else f" {pad}{text} ")
        if index == 0:
            left, middle, right = box.head_left, box.head_vertical, box.head_right
        elif index == len(columns[0]) - 1:
            left, middle, right = box.foot_left, box.foot_vertical, box.foot_right
        else:
            left, middle, right = box.mid_left, box.mid_vertical, box.mid_right
        lines.append(left + middle.join(cells) + right)
        if index == 0:
            lines.append(box.get_row(widths, "head", edge=True))
    lines.append(box.get_bottom(widths))
    return "\n".join(lines) + "\n"
