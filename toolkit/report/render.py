"""Render the HTML report: Jinja2 templates from ``reports/``, plotly.js once, data embedded.

Method (research/style.md §5, verified traps): ``Environment(autoescape=True,
undefined=StrictUndefined)`` so every untrusted string is escaped and a missing variable
fails; trusted HTML (plotly.js, figure fragments, our CSS/JS) enters as ``Markup``; each
figure through ``plotly.io.to_html(include_plotlyjs=False, full_html=False, div_id=...)``
with a fixed id; the analysis results as compact, sorted JSON in
``<script type="application/json" id="report-data">``. Generation time and toolkit version
are passed in, so two renders of the same store are byte-identical.
"""

from __future__ import annotations

import base64
import functools
import gzip
import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
import plotly.io as pio
import plotly.offline
from markupsafe import Markup

from toolkit.analyze.findings import Finding
from toolkit.analyze.timeseries import ApdexThresholds
from toolkit.config import Settings
from toolkit.errors import UsageError
from toolkit.options import check_hot_window, check_tolerance, check_window_s
from toolkit.pipeline.findings import family_findings
from toolkit.report import figures
from toolkit.report.model import Chart, Section
from toolkit.report.options import PLOTLYJS_MODES, PlotlyJs
from toolkit.report.sections import SECTIONS, ReportContext, ReportParams, provenance_section
from toolkit.resources import resource_dir
from toolkit.store import Store

#: Version of the report-data JSON layout (``schemas/report-data.schema.json``).
REPORT_DATA_VERSION = 1
PLOTLY_FILE = "plotly.min.js"


@dataclass(frozen=True)
class Report:
    """A report before rendering: findings first, then the data sections, then provenance."""

    title: str
    generated_at: str
    toolkit_version: str
    findings: tuple[Finding, ...]
    sections: tuple[Section, ...]


def generation_time(value: datetime | None = None) -> str:
    """ISO-8601 UTC time of the report: ``value``, else ``SOURCE_DATE_EPOCH`` (the
    reproducible-builds convention), else now."""
    if value is None:
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        value = (
            datetime.fromtimestamp(int(epoch), UTC)
            if epoch and epoch.isdigit()
            else datetime.now(UTC)
        )
    if value.tzinfo is None:
        raise UsageError("generated_at must be timezone-aware (UTC)")
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_report(
    store: Store,
    *,
    title: str | None = None,
    generated_at: datetime | None = None,
    params: ReportParams | None = None,
) -> Report:
    """Run every section builder on ``store``; keep the sections that have data."""
    from toolkit import __version__
    from toolkit.pipeline.load import fences_once

    ctx = ReportContext(store, params or ReportParams())
    stamp = generation_time(generated_at)
    # the load analyses of every section share one computation of the time fences
    with fences_once(store):
        sections = [s for build in SECTIONS if (s := build(ctx)) is not None]
        sections.append(
            provenance_section(
                ctx,
                toolkit_version=__version__,
                generated_at=stamp,
                present=[s.id for s in sections],
            )
        )
        # the findings engine's list: the same findings, in the same order, as `warmup
        # findings`
        findings = family_findings(ctx.analyses)
    return Report(
        title=title or "warmup-toolkit report",
        generated_at=stamp,
        toolkit_version=__version__,
        findings=tuple(findings),
        sections=tuple(sections),
    )


def _finite(value: Any) -> Any:
    """JSON-safe copy: non-finite floats become null (JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def report_data(report: Report) -> dict[str, Any]:
    """The JSON embedded as ``report-data`` (validated by ``schemas/report-data.schema.json``)."""
    data: dict[str, Any] = {
        "format": "warmup-toolkit/report-data",
        "version": REPORT_DATA_VERSION,
        "title": report.title,
        "generated_at": report.generated_at,
        "toolkit_version": report.toolkit_version,
        "findings": [asdict(f) for f in report.findings],
        "sections": {s.id: s.data for s in report.sections},
    }
    try:
        # sections sanitize at construction: the C encoder checks in one pass (issue 19:
        # the recursive walk was 11 % of a 2,000-result report), the walk only on a miss
        json.dumps(data, allow_nan=False)
    except (ValueError, TypeError):
        data = _finite(data)
    return data


def make_environment() -> jinja2.Environment:
    """Jinja2 environment over ``reports/``: everything escaped, undefined names fail."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(resource_dir("reports")),
        autoescape=True,  # never select_autoescape("html"): it escapes nothing
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "separators": (",", ":")}
    env.globals["zip"] = zip
    return env


def figure_html(chart: Chart) -> Markup:
    """A figure as a ``<div>`` + ``Plotly.newPlot`` fragment with its fixed id (trusted:
    plotly serializes ``<``, ``>``, ``/`` in the data as ``\\u003c`` …), its script run
    through ``whenPlotly`` (``reports/plotly-loader.js``: plotly.js may still be inflating)."""
    html = pio.to_html(
        chart.figure,
        include_plotlyjs=False,
        full_html=False,
        div_id=chart.div_id,
        config=figures.CONFIG,
        default_height=f"{chart.figure.layout.height or 400}px",
    )
    opening = re.search(r"<script[^>]*>", html)
    closing = html.rfind("</script>")
    if opening is None or closing < opening.end() or html.count("</script>") != 1:
        raise AssertionError(f"{chart.div_id}: not one script in plotly's figure fragment")
    return Markup(
        html[: opening.end()]
        + "whenPlotly(function () {"
        + html[opening.end() : closing]
        + "});"
        + html[closing:]
    )


@functools.cache
def plotlyjs_gzip_base64() -> str:
    """plotly.js as the page inlines it: gzip (level 9, mtime 0 so two renders are equal),
    then base64 (issue 19 §7: 4.8 MB as text, ~1.9 MB so; ``reports/plotly-loader.js``
    inflates it with the browser's DecompressionStream)."""
    packed = gzip.compress(plotly.offline.get_plotlyjs().encode("utf-8"), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def _asset(name: str) -> Markup:
    return Markup((resource_dir("reports") / name).read_text(encoding="utf-8"))


def render_html(report: Report, *, plotlyjs: PlotlyJs = "inline") -> str:
    """The report as one HTML document (``plotlyjs``: how the page gets plotly.js)."""
    if plotlyjs not in PLOTLYJS_MODES:
        raise UsageError(
            f"unknown plotly.js mode {plotlyjs!r}; use one of {', '.join(PLOTLYJS_MODES)}"
        )
    version = plotly.offline.get_plotlyjs_version()
    charts: dict[str, Markup] = {}
    for section in report.sections:
        for block in section.blocks:
            if block.kind == "chart":
                charts[block.div_id] = figure_html(block)
    template = make_environment().get_template("report.html.j2")
    return template.render(
        report=report,
        data=report_data(report),
        charts=charts,
        plotlyjs_mode=plotlyjs,
        plotlyjs_gzip_base64=plotlyjs_gzip_base64() if plotlyjs == "inline" else "",
        plotlyjs_src=(
            PLOTLY_FILE
            if plotlyjs == "directory"
            else f"https://cdn.plot.ly/plotly-{version}.min.js"
        ),
        plotly_version=version,
        css=_asset("report.css"),
        loader=_asset("plotly-loader.js"),
        script=_asset("report.js"),
    )


def report_params(
    *,
    tolerance: float | None = None,
    window: int = 2,
    compare: Sequence[tuple[str, str]] = (),
    load_window_s: float = 1.0,
    load_apdex: ApdexThresholds | None = None,
    settings: Settings | None = None,
    load_steady_from_s: float | None = None,
    load_steady_to_s: float | None = None,
) -> ReportParams:
    """The checked :class:`ReportParams` of :func:`render_report`'s keyword arguments
    (:class:`UsageError` for a value it cannot use)."""
    settings = settings or Settings()
    tolerance = settings.tolerance if tolerance is None else tolerance
    settings = settings.overridden(tolerance=tolerance)  # one tolerance for tables and rules
    check_tolerance(tolerance)
    check_hot_window(window)
    check_window_s(load_window_s, "load_window_s")
    return ReportParams(
        tolerance=tolerance,
        window=window,
        compare=tuple((str(a), str(b)) for a, b in compare),
        load_window_s=float(load_window_s),
        load_apdex=load_apdex or ApdexThresholds(),
        settings=settings,
        load_steady_from_s=load_steady_from_s,
        load_steady_to_s=load_steady_to_s,
    )


def render_report(
    store: Store,
    *,
    title: str | None = None,
    generated_at: datetime | None = None,
    plotlyjs: PlotlyJs = "inline",
    tolerance: float | None = None,
    window: int = 2,
    compare: Sequence[tuple[str, str]] = (),
    load_window_s: float = 1.0,
    load_apdex: ApdexThresholds | None = None,
    settings: Settings | None = None,
    load_steady_from_s: float | None = None,
    load_steady_to_s: float | None = None,
) -> str:
    """The HTML report of everything in ``store``, as a string.

    ``generated_at`` defaults to ``SOURCE_DATE_EPOCH`` or now; pass it for byte-identical
    renders. ``tolerance`` (fraction) and ``window`` (hot iterations of the benchmark's
    own hot value) are the analyzer parameters shown in the provenance section.
    ``compare``: (A, B) pairs of load suites (names, or the files they were read from)
    for the A/B section; without it, the two load tests read from JTLs are compared when
    there are exactly two (or two JMeter logs when there is no JTL).
    ``load_window_s``: seconds per window of the load-test and A/B analysis (as
    ``warmup load --window``; default 1 s). ``load_apdex``: the load-test APDEX thresholds
    (:class:`~toolkit.analyze.timeseries.ApdexThresholds`; default JMeter's 500/1500 ms).
    ``load_steady_from_s``/``load_steady_to_s``: the load tests' and A/B section's steady
    window in s from each suite's first sample (``--steady-from``/``--steady-to``).
    ``settings``: the thresholds of :mod:`toolkit.config` (a ``[tool.warmup]`` file);
    ``tolerance`` defaults to theirs (10 % without one). The provenance section lists the
    parameters of the sections present, and the settings file with the values it set.

    >>> import toolkit
    >>> with toolkit.open_store() as store:
    ...     html = toolkit.render_report(store, plotlyjs="cdn")
    >>> html.startswith("<!DOCTYPE html>")
    True
    """
    params = report_params(
        tolerance=tolerance,
        window=window,
        compare=compare,
        load_window_s=load_window_s,
        load_apdex=load_apdex,
        settings=settings,
        load_steady_from_s=load_steady_from_s,
        load_steady_to_s=load_steady_to_s,
    )
    report = build_report(store, title=title, generated_at=generated_at, params=params)
    return render_html(report, plotlyjs=plotlyjs)


def checked_output(path: Path | str) -> Path:
    """``path`` as a report file that can be written: not a folder, in a folder that exists
    (:class:`UsageError` otherwise), checked before any analysis runs."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{path}: is a folder; give a file name such as {path / 'report.html'}")
    if path.parent and not path.parent.is_dir():
        raise UsageError(f"{path}: folder {path.parent} does not exist; create it first")
    return path


def write_report(
    store: Store,
    path: Path | str,
    *,
    title: str | None = None,
    generated_at: datetime | None = None,
    plotlyjs: PlotlyJs = "inline",
    tolerance: float | None = None,
    window: int = 2,
    compare: Sequence[tuple[str, str]] = (),
    load_window_s: float = 1.0,
    load_apdex: ApdexThresholds | None = None,
    settings: Settings | None = None,
    load_steady_from_s: float | None = None,
    load_steady_to_s: float | None = None,
) -> Path:
    """Write the report of ``store`` to ``path`` (UTF-8); with ``plotlyjs="directory"`` also
    ``plotly.min.js`` beside it. Returns the report's path."""
    path = checked_output(path)
    report = build_report(
        store,
        title=title,
        generated_at=generated_at,
        params=report_params(
            tolerance=tolerance,
            window=window,
            compare=compare,
            load_window_s=load_window_s,
            load_apdex=load_apdex,
            settings=settings,
            load_steady_from_s=load_steady_from_s,
            load_steady_to_s=load_steady_to_s,
        ),
    )
    return write_html(report, path, plotlyjs=plotlyjs)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to a temporary file beside ``path``, then rename it over
    ``path``: a reader, a full disk or a kill never leaves half a report (POSIX rename is
    atomic within one file system). A symbolic link is followed (the file it names is
    replaced, the link kept); a path that exists but is no regular file (a device such as
    ``/dev/stdout``, a FIFO) is written in place, never replaced."""
    target = path.resolve() if path.is_symlink() else path
    if target.exists() and not target.is_file():
        target.write_text(text, encoding="utf-8")
        return
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_html(report: Report, path: Path | str, *, plotlyjs: PlotlyJs = "inline") -> Path:
    """Write a built :class:`Report` to ``path`` (UTF-8); with ``plotlyjs="directory"`` also
    ``plotly.min.js`` beside it. Returns the report's path."""
    path = checked_output(path)
    text = render_html(report, plotlyjs=plotlyjs)
    target = path
    try:
        atomic_write_text(path, text)
        if plotlyjs == "directory":
            target = path.parent / PLOTLY_FILE
            atomic_write_text(target, plotly.offline.get_plotlyjs())
    except OSError as exc:
        raise UsageError(
            f"{target}: cannot write ({exc.strerror or exc}); choose another --output"
        ) from None
    return path
