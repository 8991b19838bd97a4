"""The load-test library API (``toolkit.load_report``, ``compare_report``, ``parse_window``,
``PathReport``) and the README's Python example for it, run as written."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import jsonschema
import pytest

import toolkit
from toolkit import resource_dir

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_load_api_is_public() -> None:
    for name in ("load_report", "compare_report", "parse_window", "PathReport"):
        assert name in toolkit.__all__ and hasattr(toolkit, name), name
    assert toolkit.parse_window("500ms") == 0.5


@pytest.mark.slow
def test_readme_load_example_runs_and_its_payloads_match_the_schemas() -> None:
    (block,) = [b for b in _python_blocks(README.read_text()) if "toolkit.load_report" in b]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md (load example)", "exec"), {})
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["baseline", "candidate"]
    ratio = float(lines[2].split()[0])
    assert 1.0 < ratio < 1.25  # the candidate fixture is ~10 % faster
    jmeter = resource_dir("fixtures") / "jmeter"
    with toolkit.open_store() as store:
        for name in ("baseline.jtl.gz", "candidate.jtl.gz"):
            report = toolkit.ingest_path(store, jmeter / name)
            assert isinstance(report, toolkit.PathReport) and report.errors == []
        load = toolkit.load_report(store)
        ab = toolkit.compare_report(store, "baseline", "candidate")
        schemas = resource_dir("schemas")
        jsonschema.validate(load, json.loads((schemas / "load.schema.json").read_text()))
        jsonschema.validate(ab, json.loads((schemas / "compare.schema.json").read_text()))
        with pytest.raises(toolkit.UsageError, match="A and B are both suite 'baseline'"):
            toolkit.compare_report(store, "baseline", "baseline")
        with pytest.raises(toolkit.UsageError, match="unknown suite 'nope'"):
            toolkit.load_report(store, ["nope"])
    # ingest_path reports a bad path in .errors instead of raising
    with toolkit.open_store() as store:
        bad = toolkit.ingest_path(store, "/nonexistent.jtl")
        assert [type(e) for e in bad.errors] == [toolkit.InputFormatError]
