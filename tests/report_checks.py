"""Helpers shared by the report tests: the JSON a report embeds, and its schema."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema

import toolkit


def embedded_data(html: str) -> Any:
    """The ``report-data`` JSON embedded in a report's HTML."""
    match = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S
    )
    assert match is not None
    return json.loads(match.group(1))


def report_data_schema() -> Any:
    """``schemas/report-data.schema.json``, the contract of :func:`embedded_data`."""
    return json.loads((toolkit.resource_dir("schemas") / "report-data.schema.json").read_text())


#: the report date of the tests' renders (fixed: byte-identical reruns)
WHEN = datetime(2026, 5, 19, 12, 0, tzinfo=UTC)


def report_of(*paths: Path, **kwargs: Any) -> tuple[str, Any]:
    """The HTML report of ``paths`` (ingested into an in-memory store) and its embedded
    data, checked against the report-data schema."""
    with toolkit.open_store() as store:
        for path in paths:
            toolkit.ingest_file(store, path)
        html = toolkit.render_report(store, generated_at=WHEN, plotlyjs="cdn", **kwargs)
    data = embedded_data(html)
    jsonschema.validate(data, report_data_schema())
    return html, data
