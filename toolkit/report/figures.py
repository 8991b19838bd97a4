"""Data -> plotly figures for the HTML report.

Every figure uses one small custom template (the stock ``"plotly"`` template adds ~6.5 KB of
JSON per figure; research/style.md §5), the Okabe–Ito palette (distinguishable with the
common colour-vision deficiencies and in greyscale print; Okabe & Ito 2008), log axes for
run-time trajectories, and already-aggregated data: callers pass per-window or per-run
values, never raw samples, and long series are thinned here to at most ``MAX_POINTS``.

Untrusted strings (labels, query names, system names) go through :func:`plot_text` before
they reach plotly, which renders a subset of HTML tags in its SVG text.
"""

from __future__ import annotations

import copy
import functools
import html
import math
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

#: Okabe & Ito (2008) colour-blind-safe palette, black moved last.
OKABE_ITO = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK = OKABE_ITO
GREY = "#888888"
BAND = "rgba(0,158,115,0.15)"  # bluish green, translucent: steady band
CUT = "rgba(136,136,136,0.18)"  # grey: warm-up cut

#: Points per trace above which a series is thinned before plotting.
MAX_POINTS = 2000

_AXIS = {
    "showgrid": True,
    "gridcolor": "#e6e6e6",
    "zeroline": False,
    "linecolor": "#555555",
    "ticks": "outside",
    "tickcolor": "#555555",
    "automargin": True,
}

TEMPLATE = go.layout.Template(
    layout={
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', sans-serif", "size": 12},
        "colorway": list(OKABE_ITO),
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "xaxis": _AXIS,
        "yaxis": _AXIS,
        "margin": {"l": 56, "r": 16, "t": 36, "b": 44},
        "legend": {"orientation": "h", "y": -0.22, "x": 0, "font": {"size": 11}},
        "hoverlabel": {"namelength": -1},
        "title": {"font": {"size": 14}, "x": 0, "xanchor": "left"},
    }
)

#: plotly config: no logo, no mode bar clutter, resize with the page.
CONFIG = {
    "displaylogo": False,
    "responsive": True,
    "modeBarButtonsToRemove": ["lasso2d", "select2d"],
}


def plot_text(value: object) -> str:
    """An untrusted string made safe for plotly text (titles, trace names, hover text).

    Plotly renders a subset of HTML in text (``<b>``, ``<br>``, ``<a href>``, ``<span
    style>``; plotly.js ``svg_text_utils.convertToTspans``) and decodes only a few
    entities (``&amp; &lt; &gt;``, a handful of named ones and numeric ``&#..;``, not
    ``&quot;``). Escaping ``& < >`` keeps every tag literal (no ``<`` reaches the
    parser, so a quote cannot end an attribute); quotes stay as typed, since an escaped
    one would show as ``&quot;``.
    """
    return html.escape(str(value), quote=False)


def _round(value: float | None, digits: int = 4) -> float | None:
    """Round to ``digits`` significant digits (smaller figure JSON, same picture)."""
    if value is None or not math.isfinite(value):
        return None
    if value == 0:
        return 0.0
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def _rounded(values: Sequence[float | None], digits: int = 4) -> list[float | None]:
    return [_round(v, digits) for v in values]


def thin(
    xs: Sequence[Any], *series: Sequence[Any], max_points: int = MAX_POINTS
) -> list[list[Any]]:
    """Keep every n-th point so at most ``max_points`` remain (x and series alike).

    Callers aggregate first (per-window statistics); this only bounds the drawn points.
    """
    n = len(xs)
    if n <= max_points:
        return [list(xs), *(list(s) for s in series)]
    step = math.ceil(n / max_points)
    return [list(xs[::step]), *(list(s[::step]) for s in series)]


def short_seconds(value: float) -> str:
    """Compact axis label for seconds: 42ms, 1.5s, 2min."""
    if value < 1e-3:
        return f"{value * 1e6:.3g}µs"
    if value < 1:
        return f"{value * 1e3:.3g}ms"
    if value < 120:
        return f"{value:.3g}s"
    return f"{value / 60:.3g}min"


def log_axis(values: Sequence[float | None], label: Any = short_seconds) -> dict[str, Any]:
    """A log axis with ticks at 1, 2, 5 x 10^n inside the data range (plotly's own log
    ticks label minor digits without units on short ranges)."""
    finite = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    if not finite:
        return {"type": "log"}
    lo, hi = min(finite), max(finite)
    ticks: list[float] = []
    for exp in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        for mant in (1, 2, 5):
            v = mant * 10.0**exp
            if lo / 2 <= v <= hi * 2:
                ticks.append(float(f"{v:.6g}"))
    if len(ticks) < 2:
        ticks = sorted({float(f"{lo:.2g}"), float(f"{hi:.2g}")})
    return {"type": "log", "tickvals": ticks, "ticktext": [label(t) for t in ticks]}


def _figure(height: int, **layout: Any) -> go.Figure:
    # the layout given whole: update_layout validated the template again (3.5 ms a figure)
    return go.Figure(layout=go.Layout(template=TEMPLATE, height=height, **layout))


#: A linear k axis with a tick per k up to this k; a log axis beyond.
MAX_UNIT_TICKS = 30


def gaps_chart(suites: Sequence[dict[str, Any]], *, tolerance: float) -> go.Figure:
    """Gap of the suite sum against the reference, and queries within ±tolerance, vs k.

    ``suites``: ``{"name", "rows": [{"hot_iterations", "gap", "within_tolerance", "queries"}]}``
    (the ``gaps --json`` contract). Gap on the left axis (%), within-tolerance share on the
    right axis (% of queries), one colour per suite (suites overlaid).
    """
    last_k = max((r["hot_iterations"] for s in suites for r in s["rows"]), default=1)
    fig = _figure(
        380,
        # a tick per k up to 30; beyond, a log axis (a tick per k of 10,000 runs took
        # Chromium 80 s to lay out)
        xaxis={
            "title": {"text": "hot iterations k (hot = min of the first k hot runs)"},
            **({"dtick": 1} if last_k <= MAX_UNIT_TICKS else {"type": "log"}),
        },
        yaxis={
            "title": {"text": "suite-sum gap vs reference"},
            "ticksuffix": "%",
            "rangemode": "tozero",
        },
        yaxis2={
            "title": {"text": f"queries within ±{tolerance:.0%}"},
            "overlaying": "y",
            "side": "right",
            "range": [0, 105],
            "dtick": 25,
            "ticksuffix": "%",
            "showgrid": False,
        },
        margin={"l": 64, "r": 64, "t": 20, "b": 90},
    )
    for i, suite in enumerate(suites):
        colour = OKABE_ITO[i % len(OKABE_ITO)]
        name = plot_text(suite["name"])
        rows = suite["rows"]
        ks = [r["hot_iterations"] for r in rows]
        gaps = [None if r["gap"] is None else 100 * r["gap"] for r in rows]
        within = [100 * r["within_tolerance"] / max(int(r["queries"]), 1) for r in rows]
        fig.add_trace(
            go.Scatter(
                x=ks,
                y=_rounded(gaps),
                name=f"{name}: gap",
                mode="lines+markers",
                line={"color": colour, "width": 2},
                legendgroup=str(i),
                hovertemplate="k=%{x}: gap %{y:.1f}%<extra></extra>",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=ks,
                y=_rounded(within),
                name=f"{name}: within ±{tolerance:.0%}",
                mode="lines+markers",
                line={"color": colour, "width": 1.5, "dash": "dot"},
                marker={"symbol": "square-open"},
                yaxis="y2",
                legendgroup=str(i),
                hovertemplate="k=%{x}: %{y:.0f}% of queries within<extra></extra>",
            )
        )
    return fig


@functools.cache
def _two_panel_axes(with_threads: bool) -> dict[str, Any]:
    """The axes of :func:`load_chart`'s two panels (domains, anchors, the shared x), as
    plotly's ``make_subplots`` lays them out: computed once per process, as each call
    of ``make_subplots`` costs ~15 ms and the chart is drawn per label."""
    from plotly.subplots import make_subplots

    layout = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        row_heights=[0.45, 0.55],
        specs=[[{"secondary_y": with_threads}], [{}]],
    ).to_plotly_json()["layout"]
    return {key: value for key, value in layout.items() if key.startswith(("xaxis", "yaxis"))}


def _band(
    fill: str, x0: float | None, x1: float | None, xref: str, y0: Any, y1: Any, yref: str
) -> dict[str, Any]:
    """A filled rectangle behind the traces (plotly shape), no outline."""
    return {
        "type": "rect",
        "fillcolor": fill,
        "layer": "below",
        "line": {"width": 0},
        "x0": x0,
        "x1": x1,
        "xref": xref,
        "y0": y0,
        "y1": y1,
        "yref": yref,
    }


def _across(y: float | None, xaxis: str, yref: str, line: dict[str, Any]) -> dict[str, Any]:
    """A horizontal line at ``y`` across the whole width of the panel of ``xaxis``."""
    return {
        "type": "line",
        "line": line,
        "x0": 0,
        "x1": 1,
        "xref": f"{xaxis} domain",
        "y0": y,
        "y1": y,
        "yref": yref,
    }


def load_chart(
    *,
    title: str,
    t_s: Sequence[float],
    throughput: Sequence[float | None],
    percentiles: dict[str, Sequence[float | None]],
    warmup_end_s: float | None,
    steady_throughput: float | None,
    steady_ci: tuple[float, float] | None,
    cooldown_start_s: float | None = None,
    threads: Sequence[float | None] | None = None,
    errors: Sequence[float | None] | None = None,
) -> go.Figure:
    """Throughput (top) and latency percentiles (bottom, log) over test time, one label.

    ``t_s``: window starts in seconds since the test start (already aggregated per window).
    The warm-up cut and a cool-down are shaded grey; the steady throughput is a dashed line
    with its CI band. ``threads``: the active threads per window, drawn on the top panel's
    right axis (JMeter's "Active Threads Over Time"), so a thread ramp-up shows beside the
    warm-up it explains; None or all unknown: not drawn. ``errors``: failed samples per
    second per window, drawn on the throughput axis (JMeter's failures in "Transactions Per
    Second"), so errors bunched in the warm-up show where they fall; None or never above 0:
    not drawn.

    The figure is built as one layout and one list of traces, validated by plotly once
    (what ``make_subplots``, ``add_trace`` and ``add_vrect`` per panel made, five times
    faster: the chart is drawn per label).
    """
    drawn_threads = list(threads) if threads is not None else [None] * len(t_s)
    with_threads = any(v is not None for v in drawn_threads)
    drawn_errors = list(errors) if errors is not None else [None] * len(t_s)
    with_errors = any(v is not None and v > 0 for v in drawn_errors)
    x, tp, th, er, *pcts = thin(t_s, throughput, drawn_threads, drawn_errors, *percentiles.values())
    axes = copy.deepcopy(_two_panel_axes(with_threads))
    # the panels' axes: top x, y (and the threads' y on the right), bottom x, y
    low_y = "y3" if with_threads else "y2"
    traces: list[dict[str, Any]] = []
    shapes: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []

    def over_time(y: Sequence[Any], name: str, line: dict[str, Any], hover: str, on: str) -> None:
        # one line over the windows on the axes ``on`` ("x y"); ``hover``: the value's text
        # after "<x> s: "
        xaxis, yaxis = on.split()
        traces.append(
            {
                "type": "scatter",
                "x": _rounded(x, 6),
                "y": _rounded(y),
                "name": name,
                "mode": "lines",
                "line": line,
                "hovertemplate": f"%{{x:,.0f}} s: {hover}<extra></extra>",
                "xaxis": xaxis,
                "yaxis": yaxis,
            }
        )

    if with_threads:
        over_time(
            th, "active threads", {"color": GREY, "width": 1, "shape": "hv"},
            "%{y:,.4~r} threads", "x y2",
        )  # fmt: skip
        axes["yaxis2"].update(
            title={"text": "active threads"},
            rangemode="tozero",
            showgrid=False,
            tickmode="auto",
            tickformat=",~r",
        )
    # d3 "r": 4 significant digits in plain notation (".4g" showed 2.178e+4)
    over_time(tp, "throughput", {"color": BLUE, "width": 1.5}, "%{y:,.4~r}/s", "x y")
    if with_errors:
        over_time(
            er, "errors", {"color": VERMILLION, "width": 1, "dash": "dot"},
            "%{y:,.4~r} errors/s", "x y",
        )  # fmt: skip
    colours = {"p50": GREEN, "p90": SKY, "p95": ORANGE, "p99": VERMILLION}
    # a log axis has no 0: 0 ms windows are drawn at a marked floor (hover: the real 0)
    latency_axis, with_zero = floored_log_axis([v for vs in pcts for v in vs])
    for name, values in zip(percentiles, pcts, strict=True):
        over_time(
            _floored(values), name, {"color": colours.get(name, PURPLE), "width": 1.2},
            f"{name} %{{customdata:,.4~r}} ms", f"x2 {low_y}",
        )  # fmt: skip
        traces[-1]["customdata"] = _rounded(values)
    if with_zero:
        # what _mark_floor draws in the bottom panel
        shapes.append(
            _across(ZERO_FLOOR_MS, "x2", low_y, {"color": GREY, "dash": "dot", "width": 1})
        )
        annotations.append(
            {
                "font": {"color": GREY, "size": 10},
                "showarrow": False,
                "text": "0 ms",
                "x": 1,
                "xanchor": "right",
                "xref": "x2 domain",
                "y": ZERO_FLOOR_MS,
                "yanchor": "top",
                "yref": low_y,
            }
        )

    def shaded(x0: float | None, x1: float | None) -> None:
        # grey over both panels between x0 and x1 s
        shapes.append(_band(CUT, x0, x1, "x", 0, 1, "y domain"))
        shapes.append(_band(CUT, x0, x1, "x2", 0, 1, f"{low_y} domain"))

    if warmup_end_s is not None and t_s:
        shaded(_round(float(t_s[0]), 6), _round(warmup_end_s, 6))
    if cooldown_start_s is not None and t_s:
        shaded(_round(cooldown_start_s, 6), _round(float(t_s[-1]), 6))
    if steady_ci is not None:
        y0, y1 = _round(steady_ci[0]), _round(steady_ci[1])
        shapes.append(_band(BAND, 0, 1, "x domain", y0, y1, "y"))
    if steady_throughput is not None:
        line = {"color": GREEN, "dash": "dash", "width": 1}
        shapes.append(_across(_round(steady_throughput), "x", "y", line))
    axes["yaxis"].update(title={"text": "samples/s"}, rangemode="tozero")
    axes["yaxis3" if with_threads else "yaxis2"].update(
        title={"text": "latency (log)"}, **latency_axis
    )
    axes["xaxis2"].update(title={"text": "seconds since test start"})
    layout: dict[str, Any] = {
        "template": TEMPLATE,
        "height": 420,
        "title": {"text": title},
        "margin": {"b": 70},
        **axes,
    }
    if shapes:
        layout["shapes"] = shapes
    if annotations:
        layout["annotations"] = annotations
    return go.Figure(data=traces, layout=layout)


def cache_chart(
    *,
    title: str,
    runs: Sequence[int],
    remote_bytes: Sequence[float | None],
    local_bytes: Sequence[float | None],
    elapsed_s: Sequence[float | None],
    fitted_s: Sequence[float | None] | None,
    fit_label: str,
) -> go.Figure:
    """Cache warm-up of one series: stacked remote/local bytes per run (bars, GB) and time
    per run (line, right axis, log) with the fitted curve."""
    fig = _figure(
        340,
        title={"text": title},
        barmode="stack",
        xaxis={
            "title": {"text": "run"},
            **({"dtick": 1} if len(elapsed_s) <= MAX_UNIT_TICKS else {}),
        },
        yaxis={"title": {"text": "bytes scanned (GB)"}, "rangemode": "tozero"},
        yaxis2={
            "title": {"text": "elapsed (log)"},
            "overlaying": "y",
            "side": "right",
            "showgrid": False,
            **log_axis([*elapsed_s, *(fitted_s or ())]),
        },
        margin={"l": 56, "r": 60, "t": 36, "b": 80},
    )

    def gb(values: Sequence[float | None]) -> list[float | None]:
        return _rounded([None if v is None else v / 1e9 for v in values])

    fig.add_trace(go.Bar(x=list(runs), y=gb(remote_bytes), name="remote", marker={"color": ORANGE}))
    fig.add_trace(
        go.Bar(x=list(runs), y=gb(local_bytes), name="local (cache)", marker={"color": BLUE})
    )
    fig.add_trace(
        go.Scatter(
            x=list(runs),
            y=_rounded(elapsed_s),
            name="elapsed",
            mode="lines+markers",
            yaxis="y2",
            line={"color": BLACK, "width": 2},
            hovertemplate="run %{x}: %{y:.4g} s<extra></extra>",
        )
    )
    if fitted_s is not None:
        fig.add_trace(
            go.Scatter(
                x=list(runs),
                y=_rounded(fitted_s),
                name=plot_text(fit_label),
                mode="lines",
                yaxis="y2",
                line={"color": PURPLE, "width": 1.5, "dash": "dash"},
                hoverinfo="skip",
            )
        )
    return fig


def rank_chart(ranks: dict[str, Sequence[tuple[int, int]]]) -> go.Figure:
    """Rank of each system by hot score against the number of hot iterations k (rank 1 on
    top). ``ranks``: system -> [(k, rank), ...]."""
    last_k = max((k for points in ranks.values() for k, _ in points), default=1)
    worst = max((r for points in ranks.values() for _, r in points), default=1)
    fig = _figure(
        360,
        xaxis={
            "title": {"text": "hot iterations k"},
            **({"dtick": 1} if last_k <= MAX_UNIT_TICKS else {"type": "log"}),
        },
        yaxis={
            "title": {"text": "rank (1 = fastest)"},
            "autorange": "reversed",
            **({"dtick": 1} if worst <= MAX_UNIT_TICKS else {}),
        },
        margin={"l": 56, "r": 16, "t": 20, "b": 90},
    )
    for i, (system, points) in enumerate(ranks.items()):
        fig.add_trace(
            go.Scatter(
                x=[k for k, _ in points],
                y=[r for _, r in points],
                name=plot_text(system),
                mode="lines+markers",
                line={"color": OKABE_ITO[i % len(OKABE_ITO)], "width": 2},
                hovertemplate="k=%{x}: rank %{y}<extra></extra>",
            )
        )
    return fig


def ratio_chart(
    names: Sequence[str],
    metrics: dict[str, tuple[Sequence[float | None], Sequence[tuple[float, float] | None]]],
) -> go.Figure:
    """A/B comparison: ratios B/A per label (log x) with their confidence intervals, one
    marker colour per metric (``metrics``: name -> (ratios, CIs), aligned with ``names``);
    the dashed line at 1 is "no change"."""
    height = max(220, 26 * len(names) + 110)
    fig = _figure(
        height,
        xaxis={"title": {"text": "ratio B / A (log scale; 1 = no change)"}, "type": "log"},
        yaxis={"autorange": "reversed", "automargin": True, "type": "category"},
        margin={"l": 80, "r": 16, "t": 20, "b": 80},
        showlegend=True,
    )
    labels = [plot_text(n) for n in names]
    symbols = ("circle", "diamond", "square", "triangle-up")
    for i, (metric, (ratios, cis)) in enumerate(metrics.items()):
        lo = [
            None if ci is None or r is None else r - ci[0]
            for r, ci in zip(ratios, cis, strict=True)
        ]
        hi = [
            None if ci is None or r is None else ci[1] - r
            for r, ci in zip(ratios, cis, strict=True)
        ]
        colour = OKABE_ITO[i % len(OKABE_ITO)]
        fig.add_trace(
            go.Scatter(
                x=_rounded(ratios),
                y=labels,
                mode="markers",
                name=plot_text(metric),
                marker={"color": colour, "size": 9, "symbol": symbols[i % len(symbols)]},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": _rounded(hi),
                    "arrayminus": _rounded(lo),
                    "color": colour,
                    "thickness": 1.5,
                },
                hovertemplate=f"%{{y}} {plot_text(metric)}: %{{x:.3f}}<extra></extra>",
            )
        )
    fig.add_vline(x=1, line={"color": GREY, "dash": "dash"})
    return fig


def _ratio_text(value: float) -> str:
    """×1.09, ×35.4, ×4120: 3 significant digits, never an exponent below 10^6."""
    return f"×{float(f'{value:.3g}'):g}"


def relative_time_heatmap(
    systems: Sequence[str], queries: Sequence[str], ratios: Sequence[Sequence[float | None]]
) -> go.Figure:
    """The ClickBench website's table as a heat map: one column per system, one row per
    query, each cell the hot time relative to the fastest system's
    ((0.01 s + t) / (0.01 s + best); research/clickbench.md §2), coloured by log10 of the
    ratio (×1 green … ×100 and more red). ``ratios[i][q]``: system i, query q (None: no hot
    time, left blank). The page's system picker redraws it (``report.js``)."""
    z: list[list[float | None]] = []
    text: list[list[str | None]] = []
    for q in range(len(queries)):
        cells = [r[q] for r in ratios]
        z.append([None if c is None else math.log10(c) for c in cells])
        text.append([None if c is None else _ratio_text(c) for c in cells])
    ticks = [1, 2, 5, 10, 100, 1000]
    fig = _figure(
        max(360, 18 * len(queries) + 160),
        xaxis={"showgrid": False, "tickangle": -45, "type": "category", "automargin": True},
        yaxis={"showgrid": False, "autorange": "reversed", "type": "category"},
        margin={"l": 56, "r": 16, "t": 20, "b": 40},
    )
    fig.add_trace(
        go.Heatmap(
            x=[plot_text(s) for s in systems],
            y=list(queries),
            z=z,
            text=text,
            zmin=0,
            zmax=3,
            colorscale=[[0, "#1a9850"], [0.1, "#fee08b"], [0.5, "#f46d43"], [1, "#a50026"]],
            colorbar={
                "title": {"text": "relative<br>time"},
                "tickvals": [math.log10(t) for t in ticks],
                "ticktext": [f"×{t}" for t in ticks],
                "thickness": 12,
            },
            hoverongaps=False,
            hovertemplate="%{y} · %{x}: %{text}<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    return fig


def score_bars(
    systems: Sequence[str],
    scores: dict[str, Sequence[float | None]],
) -> go.Figure:
    """ClickBench's score bars: per system (top = best hot) one bar per score (``scores``:
    ``{"hot": [...], "cold": [...], "combined": [...]}``, lower is better, 1 = fastest on
    every query), on a log axis so ×1.1 and ×100 both read. None: not scored (in-memory
    systems have no cold or combined score)."""
    colours = {"hot": VERMILLION, "cold": BLUE, "combined": BLACK}
    values = [v for vs in scores.values() for v in vs if v is not None and v > 0]
    fig = _figure(
        max(240, 22 * len(systems) * max(len(scores), 1) // 2 + 120),
        barmode="group",
        xaxis={**log_axis(values, _ratio_text), "title": {"text": "score (lower is better)"}},
        yaxis={"autorange": "reversed", "type": "category", "automargin": True},
        legend={"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0},
        margin={"l": 56, "r": 16, "t": 40, "b": 44},
    )
    names = [plot_text(s) for s in systems]
    for key, vs in scores.items():
        fig.add_trace(
            go.Bar(
                x=list(vs),
                y=names,
                orientation="h",
                name=key,
                marker={"color": colours.get(key, GREY)},
                hovertemplate=f"%{{y}}: {key} %{{x:.3f}}<extra></extra>",
            )
        )
    return fig


# -- JMeter dashboard charts (issue 19 item 4) ------------------------------------------------

#: Where a 0 ms value is drawn on a log latency axis: half the JTL's 1 ms resolution,
#: labelled "0" (a log axis has no 0; leaving the point out hid p50 = 0 ms).
ZERO_FLOOR_MS = 0.5


def floored_log_axis(values: Sequence[float | None]) -> tuple[dict[str, Any], bool]:
    """A log axis in ms for ``values`` with zeros drawn at :data:`ZERO_FLOOR_MS`, ticked "0";
    also whether any value was 0 (the caller draws those at the floor and marks it)."""
    with_zero = any(v == 0 for v in values)
    shown = [ZERO_FLOOR_MS if v == 0 else v for v in values]
    axis = log_axis(shown, label=lambda ms: short_seconds(ms / 1000))
    if with_zero and "tickvals" in axis:
        kept = [(v, t) for v, t in zip(axis["tickvals"], axis["ticktext"], strict=True) if v >= 1]
        axis["tickvals"] = [ZERO_FLOOR_MS, *(v for v, _ in kept)]
        axis["ticktext"] = ["0", *(t for _, t in kept)]
    return axis, with_zero


def _floored(values: Sequence[float | None]) -> list[float | None]:
    return [ZERO_FLOOR_MS if v == 0 else v for v in values]


def _mark_floor(fig: go.Figure, **where: Any) -> None:
    fig.add_hline(
        y=ZERO_FLOOR_MS,
        line={"color": GREY, "dash": "dot", "width": 1},
        annotation={"text": "0 ms", "font": {"size": 10, "color": GREY}},
        annotation_position="bottom right",
        **where,
    )


def _picked(label: str, first: str) -> bool:
    return label == first


def codes_chart(t_s: Sequence[float], codes: dict[str, Sequence[float | None]]) -> go.Figure:
    """JMeter's "Response Codes Per Second": responses per second by code, per window."""
    fig = _figure(
        300,
        title={"text": "Response codes per second"},
        xaxis={"title": {"text": "seconds since test start"}},
        yaxis={"title": {"text": "responses/s"}, "rangemode": "tozero"},
        margin={"b": 70},
    )
    for code, rates in codes.items():
        x, y = thin(t_s, rates)
        fig.add_trace(
            go.Scatter(
                x=_rounded(x, 6),
                y=_rounded(y),
                name=plot_text(code or "(none)"),
                mode="lines",
                line={"width": 1.2},
                hovertemplate=f"%{{x:,.0f}} s: {plot_text(code)} %{{y:,.4~r}}/s<extra></extra>",
            )
        )
    return fig


def bytes_chart(
    t_s: Sequence[float], received: Sequence[float | None], sent: Sequence[float | None]
) -> go.Figure:
    """JMeter's "Bytes Throughput Over Time": bytes received and sent per second."""
    fig = _figure(
        300,
        title={"text": "Bytes throughput"},
        xaxis={"title": {"text": "seconds since test start"}},
        yaxis={"title": {"text": "bytes/s"}, "rangemode": "tozero", "tickformat": "~s"},
        margin={"b": 70},
    )
    x, rec, snt = thin(t_s, received, sent)
    for name, y, colour in (("received", rec, BLUE), ("sent", snt, ORANGE)):
        fig.add_trace(
            go.Scatter(
                x=_rounded(x, 6),
                y=_rounded(y),
                name=name,
                mode="lines",
                line={"width": 1.2, "color": colour},
                hovertemplate=f"%{{x:,.0f}} s: {name} %{{y:,.4~s}}B/s<extra></extra>",
            )
        )
    return fig


def label_time_chart(
    t_s: Sequence[float],
    latency: dict[str, Sequence[float | None]],
    connect: dict[str, Sequence[float | None]],
    *,
    first: str,
) -> go.Figure:
    """JMeter's "Latencies Over Time" and "Connect Time Over Time": mean latency (time to
    first byte) and mean connect time per window, ms, one pair of lines per label (meta =
    the label; only ``first`` shown until the page's label picker shows another). Linear
    axis from 0, so 0 ms windows show."""
    fig = _figure(
        300,
        title={"text": "Latency and connect time"},
        xaxis={"title": {"text": "seconds since test start"}},
        yaxis={"title": {"text": "ms (mean per window)"}, "rangemode": "tozero"},
        margin={"b": 70},
    )
    for label in latency:
        for name, series, colour in (
            ("latency", latency[label], VERMILLION),
            ("connect", connect[label], SKY),
        ):
            x, y = thin(t_s, series)
            fig.add_trace(
                go.Scatter(
                    x=_rounded(x, 6),
                    y=_rounded(y),
                    name=name,
                    meta=label,
                    visible=_picked(label, first),
                    mode="lines",
                    line={"width": 1.2, "color": colour},
                    hovertemplate=f"%{{x:,.0f}} s: {name} %{{y:,.4~r}} ms<extra></extra>",
                )
            )
    return fig


def distribution_chart(distributions: dict[str, dict[str, Any]], *, first: str) -> go.Figure:
    """JMeter's "Response Time Distribution": samples per bar of ``width_ms`` (log count
    axis: the tail's few samples stay visible beside the bulk), one bar trace per label."""
    fig = _figure(
        300,
        title={"text": "Response time distribution"},
        xaxis={"title": {"text": "response time (ms)"}},
        yaxis={"title": {"text": "samples (log)"}, "type": "log"},
        bargap=0.05,
        margin={"b": 70},
        showlegend=False,
    )
    for label, dist in distributions.items():
        width = dist["width_ms"]
        fig.add_trace(
            go.Bar(
                x=[s + width / 2 for s in dist["start_ms"]],
                y=list(dist["count"]),
                width=width,
                name=plot_text(label),
                meta=label,
                visible=_picked(label, first),
                marker={"color": BLUE},
                hovertemplate=(f"%{{x:,.4~r}} ± {width / 2:g} ms: %{{y:,}} samples<extra></extra>"),
            )
        )
    return fig


def percentile_curve_chart(curves: dict[str, dict[str, Any]], *, first: str) -> go.Figure:
    """JMeter's "Response Time Percentiles": elapsed ms at percentiles 0 … 100 (LEGACY),
    log axis with 0 ms drawn at :data:`ZERO_FLOOR_MS` (ticked "0", dotted line)."""
    all_values = [v for c in curves.values() for v in c["ms"]]
    axis, with_zero = floored_log_axis(all_values)
    fig = _figure(
        300,
        title={"text": "Response time percentiles"},
        xaxis={"title": {"text": "percentile"}, "range": [0, 100], "ticksuffix": "%"},
        yaxis={**axis, "title": {"text": "response time (log)"}},
        margin={"b": 70},
        showlegend=False,
    )
    for label, curve in curves.items():
        fig.add_trace(
            go.Scatter(
                x=list(curve["p"]),
                y=_rounded(_floored(curve["ms"])),
                customdata=list(curve["ms"]),
                name=plot_text(label),
                meta=label,
                visible=_picked(label, first),
                mode="lines",
                line={"color": PURPLE, "width": 1.5},
                hovertemplate="p%{x}: %{customdata:,.4~r} ms<extra></extra>",
            )
        )
    if with_zero:
        _mark_floor(fig)
    return fig


def threads_chart(points: dict[str, dict[str, Any]], *, first: str) -> go.Figure:
    """JMeter's "Time Vs Threads": mean response time per number of active threads."""
    fig = _figure(
        300,
        title={"text": "Response time vs active threads"},
        xaxis={"title": {"text": "active threads"}, "rangemode": "tozero"},
        yaxis={"title": {"text": "mean response time (ms)"}, "rangemode": "tozero"},
        margin={"b": 70},
        showlegend=False,
    )
    for label, vt in points.items():
        x, y = thin(vt["threads"], vt["mean_ms"])
        fig.add_trace(
            go.Scatter(
                x=x,
                y=_rounded(y),
                name=plot_text(label),
                meta=label,
                visible=_picked(label, first),
                mode="lines+markers",
                marker={"size": 5, "color": GREEN},
                line={"color": GREEN, "width": 1},
                hovertemplate="%{x:,} threads: %{y:,.4~r} ms<extra></extra>",
            )
        )
    return fig
