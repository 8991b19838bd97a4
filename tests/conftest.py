"""Shared fixtures. Tests that need ../shared/real or Chromium skip locally with a reason,
but fail when WARMUP_REQUIRE_ALL=1 (set by .ci/run)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolkit import Store, open_store

ROOT = Path(__file__).resolve().parent.parent
SHARED_REAL = ROOT.parent / "shared" / "real"
REQUIRE_ALL = os.environ.get("WARMUP_REQUIRE_ALL") == "1"


def _need(condition: bool, reason: str) -> None:
    if condition:
        return
    if REQUIRE_ALL:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def need() -> Callable[[bool, str], None]:
    """``need(condition, reason)``: skip locally, fail in CI (WARMUP_REQUIRE_ALL=1)."""
    return _need


@pytest.fixture
def fixtures_dir() -> Path:
    return ROOT / "fixtures"


@pytest.fixture
def real_dir() -> Path:
    """``../shared/real`` (third-party files, read in place, never copied)."""
    _need(SHARED_REAL.is_dir(), f"{SHARED_REAL} not present")
    return SHARED_REAL


@pytest.fixture
def chromium_path() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    _need(exe is not None, "Debian chromium not installed (apt-get install chromium)")
    assert exe is not None
    return exe


@pytest.fixture
def store() -> Iterator[Store]:
    with open_store() as s:
        yield s


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})
