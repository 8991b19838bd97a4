"""Report sections: one module per section, each with a function returning None when its
data is absent. They read the store only through pipeline-shaped payloads (the ``--json``
contract in DESIGN.md) and the findings engine's analyses, and turn them into blocks;
number formatting lives in :mod:`.formatting`.
"""

from __future__ import annotations

from collections.abc import Callable

from toolkit.report.model import Section
from toolkit.report.sections.cache import MAX_CACHE_CHARTS, cache_section, fitted_elapsed
from toolkit.report.sections.compare import MAX_COMPARE_LABELS, compare_pairs, compare_section
from toolkit.report.sections.context import ReportContext, ReportParams, detections
from toolkit.report.sections.formatting import (
    fmt_bytes,
    fmt_pct,
    fmt_rate,
    fmt_seconds,
    num,
    slug,
    tone_of,
)
from toolkit.report.sections.gaps import MAX_GAP_SUITES, gaps_payload, gaps_section, iteration_frame
from toolkit.report.sections.load import (
    MAX_LOAD_CHARTS,
    MAX_LOAD_WINDOWS,
    apdex_thresholds_text,
    chart_window_s,
    load_result,
    load_section,
)
from toolkit.report.sections.provenance import PARAMETERS, provenance_section
from toolkit.report.sections.score import MAX_RANK_LINES, score_result, score_section
from toolkit.report.sections.trajectories import (
    CLASS_HELP,
    CLASS_TONES,
    PANELS_PER_PAGE,
    class_badge,
    class_name,
    trajectories_section,
)

#: Data sections in report order (findings first and provenance last are added by render).
SECTIONS: tuple[Callable[[ReportContext], Section | None], ...] = (
    gaps_section,
    trajectories_section,
    score_section,
    load_section,
    compare_section,
    cache_section,
)

__all__ = [
    "CLASS_HELP",
    "CLASS_TONES",
    "MAX_CACHE_CHARTS",
    "MAX_COMPARE_LABELS",
    "MAX_GAP_SUITES",
    "MAX_LOAD_CHARTS",
    "MAX_LOAD_WINDOWS",
    "MAX_RANK_LINES",
    "PANELS_PER_PAGE",
    "PARAMETERS",
    "SECTIONS",
    "ReportContext",
    "ReportParams",
    "apdex_thresholds_text",
    "cache_section",
    "chart_window_s",
    "class_badge",
    "class_name",
    "compare_pairs",
    "compare_section",
    "detections",
    "fitted_elapsed",
    "fmt_bytes",
    "fmt_pct",
    "fmt_rate",
    "fmt_seconds",
    "gaps_payload",
    "gaps_section",
    "iteration_frame",
    "load_result",
    "load_section",
    "num",
    "provenance_section",
    "score_result",
    "score_section",
    "slug",
    "tone_of",
    "trajectories_section",
]
