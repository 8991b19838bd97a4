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

# first, before anything heavy is imported: Ctrl-C or SIGTERM while `warmup` starts is one
# line and exit 130 / 143, not a traceback from inside an import
import toolkit._startup  # noqa: F401  (installs the command line's signal handlers)

if TYPE_CHECKING:
    from toolkit.analyze.apdex import ApdexThresholds
    from toolkit.analyze.cache import CacheSeries, cache_series
    from toolkit.analyze.findings import Finding, rank_findings
    from toolkit.analyze.gaps import GapTable, iteration_gaps
    from toolkit.analyze.score import ScoreEntry, ScoreTable, clickbench_scores
    from toolkit.analyze.warmup import SeriesAnalysis, analyze_series
    from toolkit.config import Settings, load_settings
    from toolkit.errors import (
        InputFormatError,
        StoreError,
        StoreVersionError,
        ToolkitError,
        UsageError,
    )
    from toolkit.ingest import (
        IngestResult,
        PathReport,
        detect_format,
        ingest_file,
        ingest_path,
    )
    from toolkit.ingest.iterations import ingest_iterations
    from toolkit.options import IngestOptions, apdex_thresholds, parse_window
    from toolkit.pipeline.cache import analyze_cache
    from toolkit.pipeline.demo import run_demo
    from toolkit.pipeline.findings import store_findings
    from toolkit.pipeline.gaps import gap_tables, gaps_payload
    from toolkit.pipeline.load import compare_report, load_report
    from toolkit.pipeline.score import score_payload, suite_scores
    from toolkit.report.render import render_report, write_report
    from toolkit.resources import resource_dir
    from toolkit.store import SCHEMA_VERSION, Store, open_store

#: Where each public name lives. Loaded on first use (PEP 562): `import toolkit` and the
#: command line start without Polars, DuckDB, numpy, scipy and Plotly until a name that
#: needs them is used.
_PUBLIC: dict[str, str] = {
    "CacheSeries": "toolkit.analyze.cache",
    "cache_series": "toolkit.analyze.cache",
    "Finding": "toolkit.analyze.findings",
    "rank_findings": "toolkit.analyze.findings",
    "GapTable": "toolkit.analyze.gaps",
    "iteration_gaps": "toolkit.analyze.gaps",
    "ScoreEntry": "toolkit.analyze.score",
    "ScoreTable": "toolkit.analyze.score",
    "clickbench_scores": "toolkit.analyze.score",
    "ApdexThresholds": "toolkit.analyze.apdex",
    "SeriesAnalysis": "toolkit.analyze.warmup",
    "analyze_series": "toolkit.analyze.warmup",
    "Settings": "toolkit.config",
    "load_settings": "toolkit.config",
    "InputFormatError": "toolkit.errors",
    "StoreError": "toolkit.errors",
    "StoreVersionError": "toolkit.errors",
    "ToolkitError": "toolkit.errors",
    "UsageError": "toolkit.errors",
    "IngestOptions": "toolkit.options",
    "IngestResult": "toolkit.ingest",
    "PathReport": "toolkit.ingest",
    "detect_format": "toolkit.ingest",
    "ingest_file": "toolkit.ingest",
    "ingest_path": "toolkit.ingest",
    "ingest_iterations": "toolkit.ingest.iterations",
    "analyze_cache": "toolkit.pipeline.cache",
    "run_demo": "toolkit.pipeline.demo",
    "store_findings": "toolkit.pipeline.findings",
    "gap_tables": "toolkit.pipeline.gaps",
    "gaps_payload": "toolkit.pipeline.gaps",
    "apdex_thresholds": "toolkit.options",
    "compare_report": "toolkit.pipeline.load",
    "load_report": "toolkit.pipeline.load",
    "parse_window": "toolkit.options",
    "score_payload": "toolkit.pipeline.score",
    "suite_scores": "toolkit.pipeline.score",
    "render_report": "toolkit.report.render",
    "write_report": "toolkit.report.render",
    "resource_dir": "toolkit.resources",
    "SCHEMA_VERSION": "toolkit.store",
    "Store": "toolkit.store",
    "open_store": "toolkit.store",
}

#: Old spellings kept for one release: name -> the name to use.
_DEPRECATED = {"analyse_cache": "analyze_cache"}


def __getattr__(name: str) -> Any:
    import importlib

    if name in _DEPRECATED:
        import warnings

        new = _DEPRECATED[name]
        warnings.warn(
            f"toolkit.{name} is deprecated; use toolkit.{new}", DeprecationWarning, stacklevel=2
        )
        name = new
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
    module, _, attr = where.partition(":")
    value = getattr(importlib.import_module(module), attr or name)
    globals()[name] = value
    return value


__all__ = [
    "SCHEMA_VERSION",
    "ApdexThresholds",
    "CacheSeries",
    "Finding",
    "GapTable",
    "IngestOptions",
    "IngestResult",
    "InputFormatError",
    "PathReport",
    "ScoreEntry",
    "ScoreTable",
    "SeriesAnalysis",
    "Settings",
    "Store",
    "StoreError",
    "StoreVersionError",
    "ToolkitError",
    "UsageError",
    "__version__",
    "analyze_cache",
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
    "load_settings",
    "open_store",
    "parse_window",
    "rank_findings",
    "render_report",
    "resource_dir",
    "run_demo",
    "score_payload",
    "store_findings",
    "suite_scores",
    "write_report",
]
