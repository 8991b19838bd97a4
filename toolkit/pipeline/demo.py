"""``warmup demo``: the bundled fixtures end to end (ingest, analyses, the full HTML report)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from toolkit.errors import ToolkitError
from toolkit.ingest import ingest_path
from toolkit.pipeline.gaps import SuiteGaps, gap_tables
from toolkit.report.options import PlotlyJs
from toolkit.resources import resource_dir
from toolkit.store import Store, open_store

__all__ = ["DEMO_INPUTS", "DemoResult", "demo_inputs", "load_demo", "run_demo"]

#: Fixtures the demo reads (folders or files, under ``fixtures/``), in report order:
#: synthetic ClickBench suites (JIT warm-up), two JMeter load tests (the A/B pair; the
#: folder's subfolders hold real JMeter recordings for the tests), query profiles (cache
#: warm-up) of ClickHouse, Databricks and Snowflake. Not ``profiles/warehouse_warmup.csv``:
#: it holds seed 001's runs again, in the generic CSV form, which listed each of its
#: warehouses twice (two names, the same warm-up). Missing ones are skipped.
DEMO_INPUTS = (
    "clickbench",
    "jmeter/baseline.jtl.gz",
    "jmeter/candidate.jtl.gz",
    "profiles/clickhouse_query_log.jsonl",
    "profiles/databricks_query_history.json",
    "profiles/snowflake_operator_stats.csv",
    "profiles/snowflake_query_history.json",
)


@dataclass(frozen=True)
class DemoResult:
    """What ``warmup demo`` produced: the gap tables and the report written."""

    gaps: list[SuiteGaps]
    output: Path


def demo_inputs() -> list[Path]:
    """The bundled fixture folders and files the demo reads."""
    root = resource_dir("fixtures")
    return [root / name for name in DEMO_INPUTS if (root / name).exists()]


def load_demo(store: Store) -> None:
    """Ingest the bundled fixtures into ``store``; any failure is a packaging bug."""
    for path in demo_inputs():
        report = ingest_path(store, path)
        if report.errors:
            raise ToolkitError(f"bundled fixture failed to load: {report.errors[0]}")


def run_demo(
    output: Path | str,
    *,
    plotlyjs: PlotlyJs = "inline",
    generated_at: datetime | None = None,
) -> DemoResult:
    """Ingest the bundled fixtures into an in-memory store and write the full report of
    them to ``output`` (``toolkit.write_report``)."""
    from toolkit.report.render import write_report  # plotly and Jinja2: only when used

    output = Path(output)
    with open_store() as store:
        load_demo(store)
        results = gap_tables(store)
        write_report(
            store,
            output,
            title="warmup-toolkit demo: bundled fixtures",
            plotlyjs=plotlyjs,
            generated_at=generated_at,
        )
    return DemoResult(results, output)
