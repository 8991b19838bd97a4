"""benchmarks/VERDICTS.md is current: regenerated from ../shared/real and the fixtures, it
equals the checked-in file, so a change of any verdict (a class, a warm-up end, a window
error, a finding) shows in review as a change of that file (issues 16 and 17)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.real
@pytest.mark.ci_only
def test_verdicts_md_is_current(real_dir: Path) -> None:
    assert real_dir.is_dir()
    spec = importlib.util.spec_from_file_location("verdicts", ROOT / "benchmarks" / "verdicts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["verdicts"] = module
    spec.loader.exec_module(module)
    expected = (ROOT / "benchmarks" / "VERDICTS.md").read_text(encoding="utf-8")
    current = module.verdicts_markdown()
    assert current == expected, (
        "a verdict changed: run `python benchmarks/verdicts.py`, review the diff of "
        "benchmarks/VERDICTS.md and commit it"
    )
