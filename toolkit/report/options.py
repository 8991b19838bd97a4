"""Report options that the CLI needs at start-up, apart from the renderer (which imports
plotly and Jinja2, a quarter of a second that commands other than ``report`` need not pay)."""

from __future__ import annotations

from typing import Literal

__all__ = ["PLOTLYJS_MODES", "PlotlyJs"]

#: How plotly.js reaches the page: inlined once, a file beside the report, or the CDN.
PlotlyJs = Literal["inline", "directory", "cdn"]
PLOTLYJS_MODES: tuple[PlotlyJs, ...] = ("inline", "directory", "cdn")
