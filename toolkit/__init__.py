"""warmup-toolkit: tells benchmark authors when their numbers are real.

Reads JMeter results, ClickBench result JSON and query-profile exports into a DuckDB store,
finds JIT and cache warm-up, measures how far a short iteration window is from steady
state, and writes one static HTML report. Load tests: :func:`load_report` and
:func:`compare_report` return the ``warmup load --json`` / ``warmup compare --json``
payloads (``schemas/load.schema.json``, ``schemas/compare.schema.json``);
``load_report(store, apdex=ApdexThresholds(300, 1200, (("login", 1000, 3000),)))`` sets
the APDEX thresholds as ``--apdex``/``--apdex-per-label`` do.

>>> import toolkit
>>> with toolkit.open_store() as store:
...     report = toolkit.ingest_path(store, toolkit.resource_dir("fixtures") / "clickbench")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# first, before the heavy imports below (about a second): Ctrl-C or SIGTERM while `warmup`
# starts is one line and exit 130 / 143, not a traceback from inside an import
import toolkit._startup  # noqa: F401  (installs the command line's signal handlers)
from toolkit.analyze.cache import CacheSeries, cache_series
from toolkit.analyze.gaps import GapTable, iteration_gaps
from toolkit.analyze.score import ScoreEntry, ScoreTable, clickbench_scores
from toolkit.analyze.timeseries import ApdexThresholds
from toolkit.analyze.warmup import SeriesAnalysis, analyze_series
from toolkit.errors import (
    InputFormatError,
    StoreError,
    StoreVersionError,
    ToolkitError,
    UsageError,
)
from toolkit.ingest import (
    IngestOptions,
    IngestResult,
    PathReport,
    detect_format,
    ingest_file,
    ingest_path,
)
from toolkit.ingest.iterations import ingest_iterations
from toolkit.pipeline.cache import analyse_cache
from toolkit.pipeline.demo import run_demo
from toolkit.pipeline.gaps import gap_tables, gaps_payload
from toolkit.pipeline.load import apdex_thresholds, compare_report, load_report, parse_window
from toolkit.pipeline.score import score_payload, suite_scores
from toolkit.resources import resource_dir
from toolkit.store import SCHEMA_VERSION, Store, open_store

if TYPE_CHECKING:
    from toolkit.report.render import render_report, write_report


def __getattr__(name: str) -> Any:
    # the renderer imports plotly and Jinja2 (a quarter of a second): loaded on first use,
    # so `import toolkit` and every CLI command but `report` start without it (PEP 562)
    if name in ("render_report", "write_report"):
        from toolkit.report import render

        return getattr(render, name)
    raise AttributeError(f"module 'toolkit' has no attribute {name!r}")


__all__ = [
    "SCHEMA_VERSION",
    "ApdexThresholds",
    "CacheSeries",
    "GapTable",
    "IngestOptions",
    "IngestResult",
    "InputFormatError",
    "PathReport",
    "ScoreEntry",
    "ScoreTable",
    "SeriesAnalysis",
    "Store",
    "StoreError",
    "StoreVersionError",
    "ToolkitError",
    "UsageError",
    "__version__",
    "analyse_cache",
    "analyze_series",
    "apdex_thresholds",
    "cache_series",
    "clickbench_scores",
    "compare_report",
    "detect_format",
    "gap_tables",
    "gaps_payload",
    "ingest_file",
    "ingest_iterations",
    "ingest_path",
    "iteration_gaps",
    "load_report",
    "open_store",
    "parse_window",
    "render_report",
    "resource_dir",
    "run_demo",
    "score_payload",
    "suite_scores",
    "write_report",
]
