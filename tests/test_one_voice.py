"""Issue 18: one findings list. For every fixture and every real input, the findings of
``warmup findings --json``, of each analysing command's ``--json`` and of the report's
embedded data are the same set, and no two findings on one subject state one figure
differently (:func:`toolkit.analyze.findings.disagreements`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolkit.analyze.findings import disagreements
from toolkit.analyze.load_findings import finding_from_json
from toolkit.cli.common import app

FIXTURE_INPUTS: dict[str, list[str]] = {
    "fixtures-clickbench": ["clickbench"],
    "fixtures-profiles": ["profiles"],
    "fixtures-jmeter": ["jmeter/baseline.jtl.gz", "jmeter/candidate.jtl.gz"],
    "fixtures-jmeter-recorded-warmup": ["jmeter/recorded_warmup"],
    "fixtures-everything": [
        "clickbench",
        "profiles",
        "jmeter/baseline.jtl.gz",
        "jmeter/candidate.jtl.gz",
    ],
}
REAL_INPUTS: dict[str, list[str]] = {
    "real-clickbench": ["clickbench"],
    "real-profiles": ["profiles"],
    "real-jmeter": ["jmeter"],
    "real-jmeter-runs": ["jmeter-runs"],
}
#: each analysing command and the family of findings it prints
COMMANDS: dict[str, list[str]] = {
    "gaps": ["gaps"],
    "detect": ["detect"],
    "score": ["score"],
    "load": ["load"],
    "cache": ["cache"],
}

Key = tuple[str, str, str, str]


def _keys(items: list[dict[str, Any]]) -> set[Key]:
    return {(f["rule"], f["severity"], f["subject"], f["message"]) for f in items}


def _json(runner: CliRunner, args: list[str]) -> dict[str, Any] | None:
    result = runner.invoke(app, [*args, "--json"])
    if result.exit_code == 1 and result.output.startswith("Error: no "):
        return None  # nothing of this family in the input (one line, exit 1)
    assert result.exit_code == 0, (args, result.output[-2000:])
    payload: dict[str, Any] = json.loads(result.stdout)
    return payload


def _one_voice(paths: list[Path], tmp_path: Path) -> int:
    from report_checks import embedded_data

    runner = CliRunner(env={"COLUMNS": "200"})
    db = tmp_path / "store.duckdb"
    done = runner.invoke(app, ["ingest", "--db", str(db), *map(str, paths)])
    assert done.exit_code == 0, done.output[-2000:]
    listed = _json(runner, ["findings", "--db", str(db)])
    assert listed is not None
    engine = _keys(listed["findings"])
    out = tmp_path / "r.html"
    made = runner.invoke(app, ["report", "--db", str(db), "-o", str(out)])
    assert made.exit_code == 0, made.output[-2000:]
    report = _keys(embedded_data(out.read_text(encoding="utf-8"))["findings"])
    assert report == engine
    union: set[Key] = set()
    for args in COMMANDS.values():
        payload = _json(runner, [*args, "--db", str(db)])
        if payload is not None:
            union |= _keys(payload["findings"])
    # the compare family: the pairs the report compares (two JTL suites)
    compared = {k for k in engine if k[0].startswith("compare-")}
    # the ingest family (files skipped, rows rejected): no analysing command reads it;
    # `warmup findings` and the report list it, the report's list is checked above
    ingested = {k for k in engine if k[0].startswith("ingest-")}
    assert union | compared | ingested == engine
    found = [finding_from_json(f) for f in listed["findings"]]
    assert disagreements(found) == []
    return len(engine)


@pytest.mark.ci_only
@pytest.mark.parametrize("name", sorted(FIXTURE_INPUTS))
def test_fixture_findings_are_one_list(name: str, fixtures_dir: Path, tmp_path: Path) -> None:
    paths = [fixtures_dir / p for p in FIXTURE_INPUTS[name]]
    assert _one_voice(paths, tmp_path) > 0


@pytest.mark.ci_only
@pytest.mark.real
@pytest.mark.parametrize("name", sorted(REAL_INPUTS))
def test_real_findings_are_one_list(name: str, real_dir: Path, tmp_path: Path) -> None:
    paths = [real_dir / p for p in REAL_INPUTS[name]]
    assert _one_voice(paths, tmp_path) > 0


def test_disagreements_are_found() -> None:
    from toolkit.analyze.findings import Finding

    a = Finding("window-error", "problem", "S", "m", "", {"error": 0.48})
    same = Finding("other", "problem", "S", "m", "", {"error": 0.48})
    sign = Finding("gap-x", "warning", "S", "m", "", {"error": -0.15})
    severity = Finding("gap-y", "info", "S", "m", "", {"error": 0.48})
    elsewhere = Finding("gap-z", "info", "T", "m", "", {"error": -0.15})
    assert disagreements([a, same, elsewhere]) == []
    assert [r for *_, r in disagreements([a, sign])] == ["error: 0.48 vs -0.15"]
    assert [r for *_, r in disagreements([a, severity])] == ["error: problem vs info"]
