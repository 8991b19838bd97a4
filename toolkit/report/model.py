"""What a report is made of: sections of blocks (text, tables, charts, chart grids).

Section builders (``sections/``) return these plain objects; ``render.py`` turns them into
HTML through the templates in ``reports/``. Every string here is untrusted text: the
templates escape it (Jinja2 ``autoescape=True``); figures carry their own escaped text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import plotly.graph_objects as go

from toolkit.analyze.findings import Finding

Tone = Literal["", "good", "bad", "warn"]


@dataclass(frozen=True)
class Column:
    """A table column; ``numeric`` columns are right-aligned and sort by number."""

    label: str
    numeric: bool = False
    help: str = ""


@dataclass(frozen=True)
class Cell:
    """A table cell: the text shown and the value it sorts by (None: sorts by text)."""

    text: str
    sort: float | str | None = None
    tone: Tone = ""


@dataclass(frozen=True)
class Table:
    """A table readable without JavaScript; with it, headers sort on click."""

    id: str
    caption: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    kind: Literal["table"] = "table"


@dataclass(frozen=True)
class Text:
    """A paragraph of plain text."""

    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True)
class Chart:
    """One plotly figure with a fixed div id (``fig-...``, ASCII only)."""

    div_id: str
    figure: go.Figure
    caption: str = ""
    kind: Literal["chart"] = "chart"


@dataclass(frozen=True)
class Badge:
    """A short coloured label on a small multiple (a series class, a gap)."""

    text: str
    tone: Tone = ""
    help: str = ""


@dataclass(frozen=True)
class Panel:
    """One small multiple: a chart with a heading, badges (class, gap) and sort keys."""

    chart: Chart
    heading: str
    badges: tuple[Badge, ...]
    sort_keys: dict[str, float]


@dataclass(frozen=True)
class Grid:
    """Small multiples, shown in the order of ``sort_options[0]``; with JavaScript the
    reader can re-sort by the other keys."""

    id: str
    caption: str
    panels: tuple[Panel, ...]
    sort_options: tuple[tuple[str, str], ...]  # (key, label)
    note: str = ""
    kind: Literal["grid"] = "grid"


Block = Text | Table | Chart | Grid


@dataclass(frozen=True)
class Section:
    """A report section: its blocks, its findings and its JSON payload (``report-data``)."""

    id: str
    title: str
    intro: str
    blocks: tuple[Block, ...]
    data: dict[str, Any]
    findings: tuple[Finding, ...] = field(default=())
