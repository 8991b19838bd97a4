"""The README's set-up is what CI runs, and a developer's run skips the ci_only tests with a
reason (issue 20.1, 20.2)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"^python -m pip install -e '\.\[test\]' && .*$", readme, flags=re.M)
    assert len(commands) == 1, commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[0] in ci
    assert "-n auto" in commands[0] and "--durations=15" in commands[0]
    assert "python3 -m venv" in "\n".join(ci)


def _pytest_outside_ci(*args: str) -> str:
    """Standard output of ``pytest -q -p no:xdist ARGS`` as a developer runs it (neither
    WARMUP_REQUIRE_ALL nor WARMUP_SLOW set), which must exit 0."""
    env = {k: v for k, v in os.environ.items() if k not in ("WARMUP_REQUIRE_ALL", "WARMUP_SLOW")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    return done.stdout


@pytest.mark.slow
def test_slow_tests_skip_with_a_reason_outside_ci() -> None:
    out = _pytest_outside_ci("tests/test_wheel.py", "-rs")
    assert "1 skipped" in out
    assert "ci_only: runs in CI (WARMUP_REQUIRE_ALL=1) or with WARMUP_SLOW=1" in out


def _collected(*args: str) -> set[str]:
    """Node ids that ``pytest --collect-only ARGS`` selects, outside CI."""
    out = _pytest_outside_ci("--collect-only", *args)
    return {line for line in out.splitlines() if "::" in line}


@pytest.mark.slow  # four collections: ~8 s
def test_three_speeds_quick_loop_default_run_and_ci() -> None:
    """``-m "not slow"`` (the quick loop) leaves out the tests marked ``slow`` and every
    ``ci_only`` one; the default run selects both (the ``ci_only`` ones to skip with a
    reason, above); issue 20.2's 2 and 6 minutes."""
    files = ["tests/test_setup.py", "tests/test_wheel.py"]
    quick = {f"tests/test_setup.py::{name}" for name in (
        "test_ci_runs_the_readme_test_command_verbatim",
        "test_duckdb_runs_one_thread_only_in_the_quick_loops_workers",
    )}  # fmt: skip
    slow = "tests/test_setup.py::test_slow_tests_skip_with_a_reason_outside_ci"
    ci_only = "tests/test_wheel.py::test_wheel_installs_and_runs_demo_outside_checkout"
    assert quick <= _collected(*files, "-m", "not slow")
    assert not {slow, ci_only} & _collected(*files, "-m", "not slow")
    assert quick | {slow, ci_only} <= _collected(*files)
    assert _collected(*files, "-m", "ci_only") == {ci_only}


def test_duckdb_runs_one_thread_only_in_the_quick_loops_workers() -> None:
    """The quick loop's xdist workers give DuckDB one thread (conftest: the workers'
    threads contended for the cores); CI and a run without xdist test the thread count
    the command line runs with, DuckDB's default."""
    from toolkit import open_store
    from toolkit.native import duckdb

    default = subprocess.run(
        [sys.executable, "-c", "import duckdb; print(duckdb.connect().execute("
         "\"SELECT current_setting('threads')\").fetchone()[0])"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    with open_store() as store:
        threads = store.con.execute("SELECT current_setting('threads')").fetchone()
    direct = duckdb.connect().execute("SELECT current_setting('threads')").fetchone()
    quick_worker = bool(os.environ.get("PYTEST_XDIST_WORKER")) and (
        os.environ.get("WARMUP_REQUIRE_ALL") != "1"
    )
    expected = 1 if quick_worker else int(default)
    assert threads == direct == (expected,)
