"""The findings engine (issue 18): one ranked list, the CI gate, JUnit, thresholds in one
place, and exit codes 3 (a bug) and 4 (a finding at the --fail-on level)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from junitparser import JUnitXml
from typer.testing import CliRunner

import toolkit.cli
from toolkit.analyze.findings import Finding, rank_findings, reaches
from toolkit.cli.common import app
from toolkit.config import ConfigError, Settings, find_config, load_settings
from toolkit.report.junit import junit_xml
from toolkit.report.sections.gaps import decode_gaps


def _f(rule: str, severity: str, effect: float | None = None, subject: str = "s") -> Finding:
    numbers: dict[str, float | int | str | None] = {} if effect is None else {"effect": effect}
    return Finding(rule, severity, subject, f"{rule} message", "do this", numbers)  # type: ignore[arg-type]


def test_rank_puts_problems_first_then_larger_effects() -> None:
    found = [
        _f("a", "info", 9.0),
        _f("b", "warning", 0.1),
        _f("c", "problem", 0.2),
        _f("d", "warning", -0.5),
        _f("e", "problem"),
    ]
    assert [f.rule for f in rank_findings(found)] == ["c", "e", "d", "b", "a"]


def test_fail_levels() -> None:
    assert [reaches(_f("x", s), "problem") for s in ("problem", "warning", "info")] == [
        True,
        False,
        False,
    ]
    assert [reaches(_f("x", s), "warning") for s in ("problem", "warning", "info")] == [
        True,
        True,
        False,
    ]
    assert not reaches(_f("x", "problem"), "never")


def test_junit_has_one_failure_per_finding_at_the_level(tmp_path: Path) -> None:
    found = [
        _f("p1", "problem", subject="Q1 <&>"),
        _f("p2", "problem"),
        _f("w", "warning"),
        _f("i", "info"),
    ]
    path = tmp_path / "j.xml"
    path.write_text(junit_xml(found, "problem"), encoding="utf-8")
    xml = JUnitXml.fromfile(str(path))
    cases = [c for suite in xml for c in suite]
    assert len(cases) == 4
    failed = [c for c in cases if not c.is_passed]
    assert sorted(c.classname for c in failed) == ["p1", "p2"]
    assert any(c.name == "Q1 <&>" for c in cases)  # escaped in the file, read back verbatim
    path.write_text(junit_xml(found, "warning"), encoding="utf-8")
    assert sum(1 for s in JUnitXml.fromfile(str(path)) for c in s if not c.is_passed) == 3
    path.write_text(junit_xml([], "problem"), encoding="utf-8")
    assert [c.is_passed for s in JUnitXml.fromfile(str(path)) for c in s] == [True]


def test_config_found_upwards_and_options_win(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.warmup]\ntolerance = 0.05\nignore = ["load-littles-law"]\n'
        'fail-on = "warning"\n',
        encoding="utf-8",
    )
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_config(deep) == tmp_path / "pyproject.toml"
    settings = load_settings(start=deep)
    assert settings.tolerance == 0.05 and settings.fail_on == "warning"
    assert settings.ignore == frozenset({"load-littles-law"})
    assert settings.provenance()["values"] == {
        "fail_on": "warning",
        "ignore": ["load-littles-law"],
        "tolerance": 0.05,
    }
    assert settings.overridden(tolerance=0.2, target=None).tolerance == 0.2
    # a warmup.toml nearer the working directory wins
    (deep / "warmup.toml").write_text("target = 0.02\n", encoding="utf-8")
    near = load_settings(start=deep)
    assert near.target == 0.02 and near.tolerance == Settings().tolerance


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("tolerance = 5\n", "'tolerance'"),
        ("tolerence = 0.1\n", "unknown key 'tolerence'"),
        ('fail_on = "error"\n', "'fail_on'"),
        ("ignore = 3\n", "'ignore'"),
        ("tolerance = \n", "not valid TOML"),
    ],
)
def test_bad_config_is_one_line(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "warmup.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_settings(path)
    assert needle in str(err.value) and str(path) in str(err.value)
    result = CliRunner().invoke(app, ["findings", "--config", str(path), "--db", "x.duckdb"])
    assert result.exit_code == 1 and needle in result.output


@pytest.mark.slow
def test_check_exits_4_at_the_level_and_writes_junit(
    runner: CliRunner, fixtures_dir: Path, tmp_path: Path
) -> None:
    src = str(fixtures_dir / "clickbench")
    listed = runner.invoke(app, ["findings", src, "--json"])
    assert listed.exit_code == 0, listed.output
    found = json.loads(listed.stdout)["findings"]
    assert found, "the fixtures have findings"
    worst = found[0]["severity"]
    junit = tmp_path / "v.xml"
    gate = runner.invoke(app, ["check", src, "--fail-on", worst, "--junit", str(junit)])
    assert gate.exit_code == 4, gate.output
    failures = sum(1 for s in JUnitXml.fromfile(str(junit)) for c in s if not c.is_passed)
    assert failures == sum(1 for f in found if reaches(_f("x", f["severity"]), worst))
    assert runner.invoke(app, ["check", src, "--fail-on", "never"]).exit_code == 0
    # the same gate on the listing command, and from a config file
    assert runner.invoke(app, ["findings", src, "--fail-on", worst]).exit_code == 4
    config = tmp_path / "warmup.toml"
    config.write_text(f'fail_on = "{worst}"\n', encoding="utf-8")
    assert runner.invoke(app, ["findings", src, "--config", str(config)]).exit_code == 4
    config.write_text(
        f'fail_on = "warning"\nignore = {json.dumps([f["rule"] for f in found])}\n',
        encoding="utf-8",
    )
    quiet = runner.invoke(app, ["check", src, "--config", str(config)])
    assert quiet.exit_code == 0, quiet.output


def test_a_bug_exits_3_with_its_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fixtures_dir: Path
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    # the command imports it on use (lazy imports, issue 20.4): patch it where it lives
    monkeypatch.setattr("toolkit.pipeline.findings.store_findings", broken)
    monkeypatch.setattr(sys, "argv", ["warmup", "findings", str(fixtures_dir / "clickbench")])
    with pytest.raises(SystemExit) as exit_:
        toolkit.cli.main()
    assert exit_.value.code == 3
    err = capsys.readouterr().err
    assert "RuntimeError: boom" in err and "exit 3" in err


@pytest.mark.slow
def test_user_error_still_exits_1_from_the_console_script(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "findings", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_pyproject_tolerance_changes_the_gap_table_and_is_in_the_provenance(
    runner: CliRunner, fixtures_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from report_checks import embedded_data

    # hot run 1 is 7 % above the rest: within a 10 % tolerance, not within 5 %
    runs = [[2.0, 1.07, 1.0, 1.0, 1.0], [3.0, 2.14, 2.0, 2.0, 2.0], [1.0, 0.5, 0.5, 0.5, 0.5]]
    result = {"system": "S", "date": "2026-01-01", "machine": "m", "result": runs}
    (tmp_path / "s.json").write_text(json.dumps(result), encoding="utf-8")
    src = str(tmp_path / "s.json")

    def within(data: dict[str, object]) -> list[int]:
        gaps = data["sections"]["gaps"]  # type: ignore[index]
        return [r["within_tolerance"] for s in decode_gaps(gaps) for r in s["rows"]]

    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["report", src, "-o", "plain.html"]).exit_code == 0
    plain = embedded_data((tmp_path / "plain.html").read_text(encoding="utf-8"))
    assert "config" not in plain["sections"]["provenance"]
    (tmp_path / "pyproject.toml").write_text("[tool.warmup]\ntolerance = 0.05\n", encoding="utf-8")
    result = runner.invoke(app, ["report", src, "-o", "tight.html"])
    assert result.exit_code == 0, result.output
    tight = embedded_data((tmp_path / "tight.html").read_text(encoding="utf-8"))
    # fewer queries within ±5 % than within ±10 % somewhere, never more
    assert within(tight) != within(plain)
    assert all(a <= b for a, b in zip(within(tight), within(plain), strict=True))
    config = tight["sections"]["provenance"]["config"]
    assert config == {"file": str(tmp_path / "pyproject.toml"), "values": {"tolerance": 0.05}}
    html = (tmp_path / "tight.html").read_text(encoding="utf-8")
    assert "config: tolerance" in html
    # the command line wins over the file
    assert (
        runner.invoke(app, ["report", src, "-o", "cli.html", "--tolerance", "0.1"]).exit_code == 0
    )
    cli = embedded_data((tmp_path / "cli.html").read_text(encoding="utf-8"))
    assert within(cli) == within(plain)
    assert cli["sections"]["provenance"]["config"]["values"] == {}
