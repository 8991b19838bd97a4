"""The provenance section: input files with SHA-256, versions, parameters and the settings file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from toolkit.numbers import (
    fmt_num,
)
from toolkit.report.model import (
    Cell,
    Column,
    Section,
    Table,
)
from toolkit.report.sections.compare import compare_pairs
from toolkit.report.sections.context import ReportContext
from toolkit.report.sections.formatting import num
from toolkit.report.sections.load import apdex_thresholds_text

if TYPE_CHECKING:
    pass


#: are listed (a load-only report has no hot-iteration window). Key → (sections, label).
PARAMETERS: dict[str, tuple[tuple[str, ...], str]] = {
    "tolerance": (("gaps", "trajectories"), "tolerance (fraction)"),
    "window": (("gaps", "trajectories"), "window (hot iterations)"),
    "reference": (("gaps", "trajectories"), "reference"),
    "load_window_s": (("load", "compare"), "load window (s)"),
    "load_apdex": (("load",), "load APDEX thresholds"),
    "compare": (("compare",), "compare"),
    "load_steady_window": (("load", "compare"), "load steady window (s)"),
}


#: Layout of the provenance section's ``sources`` (:func:`source_columns`).
SOURCES_LAYOUT = "columns-1"


def _one_or_list(values: Sequence[Any]) -> Any:
    """One value when every value is equal (and there is one), else the list."""
    if values and all(v == values[0] and type(v) is type(values[0]) for v in values):
        return values[0]
    return list(values)


def source_columns(sources: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The input files as columns (issue 19 §7: an object per file was 0.6 MB of a
    2,000-result report): ``source_id``, ``path``, ``sha256``, ``bytes``, ``rows`` one entry
    per file; ``format`` and ``tool_version`` one value when all files share it. The file
    name is the path's last part (:func:`decode_sources` gives the dicts back)."""
    return {
        "layout": SOURCES_LAYOUT,
        "source_id": [s["source_id"] for s in sources],
        "path": [s["path"] for s in sources],
        "sha256": [s["sha256"] for s in sources],
        "format": _one_or_list([s["format"] for s in sources]),
        "bytes": [s["bytes"] for s in sources],
        "rows": [s["rows"] for s in sources],
        "tool_version": _one_or_list([s["tool_version"] for s in sources]),
    }


def decode_sources(columns: dict[str, Any]) -> list[dict[str, Any]]:
    """The files of a ``columns-1`` ``sources`` payload, one dict each: ``source_id``,
    ``name`` (the path's last part), ``path``, ``sha256``, ``format``, ``bytes``, ``rows``,
    ``tool_version``."""
    if columns.get("layout") != SOURCES_LAYOUT:
        raise ValueError(f"not a {SOURCES_LAYOUT} sources payload: {columns.get('layout')!r}")
    n = len(columns["path"])

    def column(key: str) -> list[Any]:
        value = columns[key]
        return list(value) if isinstance(value, list) else [value] * n

    keys = ("source_id", "path", "sha256", "format", "bytes", "rows", "tool_version")
    out = [
        dict(zip(keys, row, strict=True)) for row in zip(*(column(k) for k in keys), strict=True)
    ]
    for source in out:
        source["name"] = PurePath(source["path"]).name
    return out


def provenance_section(
    ctx: ReportContext,
    *,
    toolkit_version: str,
    generated_at: str,
    present: Sequence[str] | None = None,
) -> Section:
    """Inputs with SHA-256, versions, the analyzer parameters of the sections ``present``
    (section ids; None: every parameter) and generation time."""
    sources = ctx.store.frame(
        "SELECT source_id, path, sha256, format, bytes, rows, tool_version FROM sources "
        "ORDER BY source_id"
    ).to_dicts()
    for source in sources:
        source["name"] = PurePath(source["path"]).name
    every: dict[str, Any] = {
        "tolerance": ctx.params.tolerance,
        "window": ctx.params.window,
        "reference": ctx.params.reference,
        "load_window_s": ctx.params.load_window_s,
        "load_apdex": apdex_thresholds_text(ctx.params.load_apdex.as_json()),
    }
    lo, hi = ctx.params.load_steady_from_s, ctx.params.load_steady_to_s
    if lo is not None or hi is not None:
        # --steady-from/--steady-to: the steady figures are the user's window, not detected
        every["load_steady_window"] = f"{fmt_num(lo or 0)}–{'end' if hi is None else fmt_num(hi)}"
    if ctx.params.compare:
        # as resolved to suite names (the option also takes input files)
        every["compare"] = [list(pair) for pair in compare_pairs(ctx)]
    params = {
        k: v
        for k, v in every.items()
        if present is None or any(s in present for s in PARAMETERS[k][0])
    }
    config = ctx.params.settings.provenance()
    config_rows = (
        (
            ("config file", config["file"]),
            *((f"config: {k}", _config_value(v)) for k, v in config["values"].items()),
        )
        if config["file"] is not None
        else ()
    )
    table = Table(
        "table-sources",
        "Input files",
        (
            Column("file"),
            Column("format"),
            Column("bytes", True),
            Column("rows", True),
            Column("sha256"),
        ),
        tuple(
            (
                Cell(s["name"]),
                Cell(s["format"]),
                num(s["bytes"], ",.0f"),
                num(s["rows"], ",.0f"),
                Cell(s["sha256"]),
            )
            for s in sources
        ),
    )
    settings = Table(
        "table-settings",
        "Versions and parameters",
        (Column("setting"), Column("value")),
        tuple(
            (Cell(k), Cell(str(v)))
            for k, v in (
                ("toolkit version", toolkit_version),
                ("store schema version", ctx.store.schema_version),
                ("generated at", generated_at),
                *(
                    (
                        f"parameter: {PARAMETERS[k][1]}",
                        "; ".join(f"B = {b} vs A = {a}" for a, b in v)
                        if k == "compare"
                        else f"{v:g}"
                        if isinstance(v, float)
                        else v,
                    )
                    for k, v in params.items()
                ),
                *config_rows,
            )
        ),
    )
    return Section(
        "provenance",
        "Provenance",
        "What this report was computed from.",
        (table, settings),
        {
            "sources": source_columns(sources),
            "toolkit_version": toolkit_version,
            "schema_version": ctx.store.schema_version,
            "generated_at": generated_at,
            "parameters": params,
            **({"config": config} if config["file"] is not None else {}),
        },
    )


def _config_value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)
