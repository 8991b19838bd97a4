"""``warmup demo``: the bundled fixtures end to end (ingest, gap tables, a small HTML page).

Kept as a library function so the full report can replace :func:`render_demo_html`
without touching the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import ToolkitError
from toolkit.ingest import ingest_path
from toolkit.pipeline.gaps import SuiteGaps, gap_tables, gaps_payload
from toolkit.resources import resource_dir
from toolkit.store import Store, open_store

__all__ = ["DemoResult", "demo_inputs", "render_demo_html", "run_demo"]


@dataclass(frozen=True)
class DemoResult:
    """What ``warmup demo`` produced: the gap tables and the HTML file written."""

    gaps: list[SuiteGaps]
    output: Path


def demo_inputs() -> list[Path]:
    """The bundled fixture folders the demo reads (synthetic ClickBench suites)."""
    return [resource_dir("fixtures") / "clickbench"]


def load_demo(store: Store) -> None:
    """Ingest the bundled fixtures into ``store``; any failure is a packaging bug."""
    for path in demo_inputs():
        report = ingest_path(store, path)
        if report.errors:
            raise ToolkitError(f"bundled fixture failed to load: {report.errors[0]}")


def render_demo_html(results: list[SuiteGaps]) -> str:
    """A minimal self-contained HTML page of the gap tables (Jinja2, autoescaped)."""
    import jinja2

    from toolkit import __version__

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(resource_dir("reports")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    template = env.get_template("demo.html.j2")
    return template.render(suites=gaps_payload(results)["suites"], version=__version__)


def run_demo(output: Path | str) -> DemoResult:
    """Ingest the bundled fixtures into an in-memory store, compute the gap tables and
    write the HTML page to ``output``."""
    output = Path(output)
    with open_store() as store:
        load_demo(store)
        results = gap_tables(store)
    html = render_demo_html(results)
    try:
        output.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise ToolkitError(f"{output}: cannot write the demo page ({exc.strerror})") from None
    return DemoResult(results, output)
