"""Helpers shared by the report tests: the JSON a report embeds, and its schema."""

from __future__ import annotations

import json
import re
from typing import Any

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
