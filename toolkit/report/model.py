"""What a report is made of: sections of blocks (text, tables, charts, panel grids).

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
class PanelGrid:
    """Small multiples drawn in the page (``report.js``) from a section's compact series
    (``data_key`` of its report-data, :mod:`toolkit.report.sections.series_columns`):
    filter controls (suite, system, class, query), a sort (``sort_options``, the first is
    the default) and ``per_page`` panels at a time, the rest one click away. Without
    JavaScript only the caption and the note show; the section's tables hold the numbers."""

    id: str
    caption: str
    data_key: str
    sort_options: tuple[tuple[str, str], ...]  # (key, label)
    per_page: int = 24
    note: str = ""
    kind: Literal["panel-grid"] = "panel-grid"


Block = Text | Table | Chart | PanelGrid


@dataclass(frozen=True)
class Section:
    """A report section: its blocks, its findings and its JSON payload (``report-data``)."""

    id: str
    title: str
    intro: str
    blocks: tuple[Block, ...]
    data: dict[str, Any]
    findings: tuple[Finding, ...] = field(default=())
