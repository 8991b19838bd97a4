"""The built wheel ships its resources: build it, install it into a fresh venv and run
``warmup demo`` from a folder outside the checkout (DESIGN.md "Layout")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]} {done.stderr[-2000:]}"
    return done


@pytest.mark.ci_only
def test_wheel_installs_and_runs_demo_outside_checkout(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WARMUP_DB")}
    # copy just what the build reads, so it never writes into (or drags along) the checkout
    src = tmp_path / "src"
    src.mkdir()
    skip = shutil.ignore_patterns("__pycache__", ".*_cache", "*.duckdb*", "_data")
    for folder in ("toolkit", "schemas", "reports", "fixtures"):
        shutil.copytree(ROOT / folder, src / folder, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    wheels = tmp_path / "wheels"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(wheels),
            str(src),
        ],
        tmp_path,
        env,
    )
    (wheel,) = wheels.glob("warmup_toolkit-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in (
        "toolkit/_resources/schemas/001_core.sql",
        "toolkit/_resources/schemas/gaps.schema.json",
        "toolkit/_resources/reports/report.html.j2",
        "toolkit/_resources/reports/report.css",
        "toolkit/_resources/reports/report.js",
        "toolkit/_resources/reports/plotly-loader.js",
        "toolkit/_resources/schemas/report-data.schema.json",
        "toolkit/_resources/fixtures/clickbench/jvm-engine/results/20260519/c6a.metal.json",
        "toolkit/_resources/fixtures/jmeter/baseline.jtl.gz",
        "toolkit/_resources/fixtures/jmeter/candidate.jtl.gz",
    ):
        assert needed in names, needed
    # a venv of the wheel and its declared dependencies only: --system-site-packages would
    # pass only where they are installed system-wide, and not from inside another venv
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    py = venv / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "--quiet", str(wheel)], tmp_path, env)
    listed = _run([str(py), "-m", "pip", "list", "--format=freeze"], tmp_path, env).stdout
    installed = {line.split("==")[0].lower() for line in listed.split()}
    assert "pytest" not in installed, "the venv sees packages beyond the wheel's dependencies"
    away = tmp_path / "elsewhere"
    away.mkdir()
    where = _run([str(py), "-c", "import toolkit; print(toolkit.__file__)"], away, env)
    assert str(venv) in where.stdout, where.stdout
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    done = _run([str(venv / "bin" / "warmup"), "demo", "-o", "out.html"], away, env)
    html = (away / "out.html").read_text(encoding="utf-8")
    assert "JVMEngine (synthetic)" in html and ">+80%</td>" in html
    assert 'id="report-data"' in html and 'id="fig-gaps"' in html
    for section in ("trajectories", "score", "load", "compare", "cache"):
        assert f'<section id="{section}">' in html, section
    assert "wrote out.html" in done.stderr
    # warmup report from the wheel: templates and schemas found outside the checkout
    fixtures = _run(
        [str(py), "-c", "import toolkit; print(toolkit.resource_dir('fixtures'))"], away, env
    ).stdout.strip()
    assert str(venv) in fixtures
    done = _run(
        [
            str(venv / "bin" / "warmup"),
            "report",
            f"{fixtures}/clickbench",
            "-o",
            "report.html",
            "--title",
            "from the wheel",
        ],
        away,
        env,
    )
    html = (away / "report.html").read_text(encoding="utf-8")
    assert "<title>from the wheel</title>" in html and 'id="trajectories"' in html
    assert "wrote report.html" in done.stderr
