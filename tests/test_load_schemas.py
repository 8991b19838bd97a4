"""``schemas/load.schema.json`` and ``compare.schema.json`` are exact: real outputs pass, and
an output with any always-emitted key dropped, or with a key the code never writes (a
misspelling), fails."""

from __future__ import annotations

import csv
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from toolkit import resource_dir
from toolkit.cli import app

REAL_FILES = (
    "generated__jmeter-5.6.3__default.csv",
    "generated__jmeter-5.6.3__default.stdout.txt",
    "generated__jmeter-5.6.3__allcols.xml",
    "bin__testfiles__sample_log1.jtl",
    "Blazemeter+taurus__tests__resources__jmeter__jtl__tranctl.jtl",
    "Blazemeter+taurus__tests__resources__jmeter__jtl__kpi-pair1.jtl",
)
#: keys written for some objects only: (the key holding the object, key)
#: keys that only one kind of suite has: a summariser log's labels name their summariser;
#: a JTL's suite and labels have APDEX thresholds
OPTIONAL = {
    ("labels", "summariser"),
    ("suites", "apdex_thresholds"),
    ("labels", "apdex_thresholds_ms"),
    ("suites", "logs"),  # JTL suites joined with their run's log only
    ("latency_ms", "resolution_ms"),  # summariser labels only
}


def _schema(name: str) -> dict[str, Any]:
    return json.loads((resource_dir("schemas") / name).read_text())  # type: ignore[no-any-return]


def _objects(node: Any, path: tuple[Any, ...] = (), parent: str = "") -> Iterator[tuple[Any, ...]]:
    """The path of every object in ``node``, following the first and last item of lists,
    with the key that holds it (``parent``) as the path's last element."""
    if isinstance(node, dict):
        yield (*path, parent)
        for key, value in node.items():
            # free-form figures of a finding: any name
            if key != "numbers":
                yield from _objects(value, (*path, key), key)
    elif isinstance(node, list) and node:
        for index in sorted({0, len(node) - 1}):
            yield from _objects(node[index], (*path, index), parent)


def _at(payload: Any, path: tuple[Any, ...]) -> dict[str, Any]:
    for step in path:
        payload = payload[step]
    return payload  # type: ignore[no-any-return]


def _first_and_last(node: Any) -> Any:
    """``node`` with every list cut to its first and last item: the items :func:`_objects`
    follows. No list of the schemas must hold more than two items (their ``minItems`` are 2
    on pairs of exactly 2), and items are checked one by one, so dropping a key from an
    item fails or passes as it does in the whole payload."""
    if isinstance(node, dict):
        return {key: _first_and_last(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_first_and_last(node[i]) for i in sorted({0, len(node) - 1})] if node else []
    return node


def _assert_exact(payload: dict[str, Any], schema: dict[str, Any]) -> int:
    """Validate ``payload``, then each mutation of it; the number of keys dropped."""
    validator = jsonschema.Draft202012Validator(schema)  # checked once, not per mutation
    validator.validate(payload)
    # mutations of the payload cut to the items they reach (validated whole, it passes
    # too): each validation reads a few kB, not the windows of six real runs (2.4 → 0.2 s)
    payload = _first_and_last(payload)
    validator.validate(payload)
    # a copy per mutation: JSON text decoded again (~5x faster than copy.deepcopy)
    text = json.dumps(payload)
    checked = 0
    for *path, parent in _objects(payload):
        target = _at(payload, tuple(path))
        for key in target:
            if (parent, key) in OPTIONAL:
                continue
            mutated = json.loads(text)
            del _at(mutated, tuple(path))[key]
            with pytest.raises(jsonschema.ValidationError):
                validator.validate(mutated)
            checked += 1
        mutated = json.loads(text)
        _at(mutated, tuple(path))["warmup_end"] = 1.0  # a misspelt key
        messages = list(_messages(validator.iter_errors(mutated)))
        assert any("'warmup_end' was unexpected" in m for m in messages), (path, messages)
    return checked


def _messages(errors: Any) -> Iterator[str]:
    """Every message of ``errors`` and of the errors under them (``oneOf`` branches)."""
    for error in errors:
        yield error.message
        yield from _messages(error.context)


@pytest.mark.real
@pytest.mark.slow
def test_real_outputs_pass_and_mutations_fail(real_dir: Path, runner: CliRunner) -> None:
    files = [str(real_dir / "jmeter" / name) for name in REAL_FILES]
    res = runner.invoke(app, ["load", *files, "--json"])
    assert res.exit_code == 0, res.output
    load = json.loads(res.stdout)
    # the 5.6.3 CSV and its console are one run: one suite, with the log's "logs" object
    assert {s["source"] for s in load["suites"]} == {"samples"}
    assert any(s.get("logs") for s in load["suites"])
    assert _assert_exact(load, _schema("load.schema.json")) > 100
    alone = runner.invoke(app, ["load", files[1], "--json"])  # the console by itself
    assert alone.exit_code == 0, alone.output
    summariser = json.loads(alone.stdout)
    assert {s["source"] for s in summariser["suites"]} == {"summariser"}
    assert _assert_exact(summariser, _schema("load.schema.json")) > 10
    res = runner.invoke(app, ["compare", files[0], files[3], "--json"])
    assert res.exit_code == 0, res.output
    compare = json.loads(res.stdout)
    assert _assert_exact(compare, _schema("compare.schema.json")) > 20


def test_fixture_compare_passes_and_percentile_ratios_have_no_ci(runner: CliRunner) -> None:
    jmeter = resource_dir("fixtures") / "jmeter"
    res = runner.invoke(
        app,
        ["compare", str(jmeter / "baseline.jtl.gz"), str(jmeter / "candidate.jtl.gz"), "--json"],
    )
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    schema = _schema("compare.schema.json")
    _assert_exact(payload, schema)
    # error rates over every sample of each file, counted here from the files themselves
    rates = {}
    for name in ("baseline", "candidate"):
        with gzip.open(jmeter / f"{name}.jtl.gz", "rt", newline="") as handle:
            rows = list(csv.DictReader(handle))
        rates[name] = sum(r["success"] == "false" for r in rows) / len(rows)
    errors = payload["labels"][0]["error_rate"]
    assert payload["labels"][0]["label"] == "ALL" and 0 < rates["baseline"] < 0.05
    assert errors["a"] == pytest.approx(rates["baseline"], rel=1e-12)
    assert errors["b"] == pytest.approx(rates["candidate"], rel=1e-12)
    assert errors["difference"] == pytest.approx(rates["candidate"] - rates["baseline"])
    # the schema declared a CI for the percentile ratios that the code never wrote
    payload["labels"][0]["latency_p50_ms"]["ci"] = [0.9, 1.1]
    with pytest.raises(jsonschema.ValidationError, match="'ci' was unexpected"):
        jsonschema.validate(payload, schema)
