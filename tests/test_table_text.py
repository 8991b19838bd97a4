"""Tables printed without rich's layout engine (issue 19: ``warmup gaps DIR`` on 2,000
ClickBench results spent ~1 s laying out its summary table): ``plain_table_text`` must
write exactly what rich writes, or decline (None) and let rich print."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from toolkit.cli.output import OutputFormat, TableOutput, plain_table_text

# letters, digits, the summary's punctuation, a wide CJK character (2 cells), characters
# of no width (a combining accent, the emoji variation selector of ClickHouse's "☁️", a
# zero-width space), and spaces (inside a cell; at an end the cell is left to rich)
ALPHABET = "ab Z09+-%/·#()_漢é\u0301☁\ufe0f\u200b "
# mostly cells the fast path takes (no space at either end)
cell = st.text(ALPHABET, max_size=14) | st.text(ALPHABET, max_size=14).map(str.strip)


def rich_text(table: Table, width: int, **console: Any) -> str:
    """What rich itself prints for ``table`` on a console of ``width`` columns that is
    not a terminal (no styles), as TableOutput's console is for a file or pipe."""
    out = io.StringIO()
    Console(file=out, width=width, markup=False, highlight=False, **console).print(table)
    return out.getvalue()


def console_of(width: int, **options: Any) -> Console:
    return Console(file=io.StringIO(), width=width, markup=False, highlight=False, **options)


@st.composite
def tables(draw: st.DrawFn) -> Table:
    columns = draw(st.integers(1, 6))
    title = draw(st.none() | cell)
    table = Table(
        title=None if title is None else Text(title),
        title_justify="left",
        box=draw(st.sampled_from([box.HEAVY_HEAD, box.ROUNDED, box.SIMPLE, box.ASCII])),
    )
    for _ in range(columns):
        header = draw(cell)
        table.add_column(
            draw(st.sampled_from([header, Text(header)])),
            justify=draw(st.sampled_from(["left", "right"])),
        )
    for _ in range(draw(st.integers(0, 8))):
        table.add_row(*(Text(draw(cell)) for _ in range(columns)))
    return table


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(tables(), st.integers(8, 140))
@pytest.mark.slow
def test_equals_rich_or_declines(table: Table, width: int) -> None:
    """For any table and width, the text is rich's to the byte, or None."""
    text = plain_table_text(table, console_of(width))
    if text is not None:
        assert text == rich_text(table, width)


def summary_like(rows: int) -> Table:
    table = Table(title=Text(f"{rows} suites: the window (k = 2)"), title_justify="left")
    for header in ("Suite", "Runs", "Gap at window", "Within tolerance", "k for target"):
        table.add_column(header, justify="left" if header == "Suite" else "right")
    for n in range(rows):
        table.add_row(
            Text(f"System ☁️ {n} · 漢 / c6a.{n}xlarge / 2026-01-{n % 28 + 1:02d}"),
            Text(str(3 + n % 8)),
            Text(f"{(n % 13 - 6) * 1.7:+.1f} %"),
            Text(f"{n % 44}/43"),
            Text("-" if n % 5 == 0 else str(n % 9)),
        )
    return table


@pytest.mark.parametrize("rows", [0, 1, 2, 250])
def test_summary_table_is_laid_out_without_rich_and_equal(rows: int) -> None:
    """The shape of the gaps summary (a wide first column, right-justified numbers) takes
    the fast path at the width of a file or pipe, and its text is rich's."""
    table = summary_like(rows)
    text = plain_table_text(table, console_of(10_000))
    assert text is not None
    assert text == rich_text(table, 10_000)
    assert text.count("\n") == rows + 5  # title, top, header, rule, rows, bottom


def test_declines_what_would_wrap_or_be_styled() -> None:
    """Narrower than the table (rich wraps cells), a styled console, a str cell rich would
    read as markup or an emoji code, a cell with a control character: None."""
    table = summary_like(3)
    assert plain_table_text(table, console_of(40)) is None
    styled = console_of(200, color_system="standard", force_terminal=True)
    assert plain_table_text(table, styled) is None
    for odd in (":smile:", "[bold]x[/bold]", "tab\there", " edge"):
        other = Table()
        other.add_column(odd)
        assert plain_table_text(other, console_of(200)) is None


class AsciiFile(io.StringIO):
    """A stream whose encoding cannot show box characters (a C-locale stdout)."""

    encoding = "ascii"


def test_ascii_console_gets_rich_ascii_box() -> None:
    """On such a stream rich draws its ASCII box; the fast text does the same."""
    table = summary_like(4)
    console = Console(file=AsciiFile(), width=200, markup=False, highlight=False)
    text = plain_table_text(table, console)
    assert text is not None and "+" in text and "━" not in text
    out = AsciiFile()
    Console(file=out, width=200, markup=False, highlight=False).print(table)
    assert text == out.getvalue()


@pytest.mark.parametrize("columns", ["300", "60"])
def test_table_output_prints_the_same_bytes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, columns: str
) -> None:
    """TableOutput (the printers' console) writes the table in order with its other
    lines, as rich would have written it: laid out here at 300 columns, by rich (cells
    wrapped) at 60."""
    monkeypatch.setenv("COLUMNS", columns)
    table = summary_like(30)
    output = TableOutput(OutputFormat.table)
    output.print(Text("before"))
    output.print(table)
    output.print(Text("after"))
    printed = capsys.readouterr().out
    assert printed == "before\n" + rich_text(table, int(columns)) + "after\n"
