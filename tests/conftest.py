"""Shared fixtures. Tests that need ../shared/real or Chromium skip locally with a reason,
but fail when WARMUP_REQUIRE_ALL=1 (set by .ci/run)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: Bytecode for the test modules and the toolkit, even under PYTHONDONTWRITEBYTECODE=1:
#: without it each xdist worker rewrites and compiles every test module (its collection
#: 5.2 s instead of 2.8) and each ``python -m toolkit`` the tests start compiles the
#: toolkit (0.15 s of CPU; they read what the workers wrote), ~13 s of CPU a quick run.
#: What Python writes by default: ``__pycache__`` folders beside the sources (git ignores
#: them), each checked against its source's size and time when read.
sys.dont_write_bytecode = False

import jsonschema  # noqa: E402
import pytest  # noqa: E402
import typer.main  # noqa: E402
import typer.testing  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from toolkit import Store, open_store  # noqa: E402
from toolkit.native import duckdb  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHARED_REAL = ROOT.parent / "shared" / "real"
REQUIRE_ALL = os.environ.get("WARMUP_REQUIRE_ALL") == "1"


def _one_thread(connect: Callable[..., Any]) -> Callable[..., Any]:
    """``duckdb.connect`` with one DuckDB thread, unless the caller's config sets them."""

    def connect_one_thread(
        database: Any = ":memory:", read_only: bool = False, config: Any = None
    ) -> Any:
        return connect(database, read_only=read_only, config={"threads": 1, **(config or {})})

    return connect_one_thread


#: The quick loop's xdist workers (one per core) give DuckDB one thread each: with its
#: default (a thread per core) the workers' DuckDB threads contend for the same cores:
#: the quick loop took ~5 % more wall and CPU time on 2 cores (4 interleaved pairs,
#: benchmarks/RESULTS.md, "Test suite and start-up"). CI (WARMUP_REQUIRE_ALL=1), a run
#: without xdist and the ``warmup`` processes the tests start keep DuckDB's default, so the
#: parallel CSV reader the command line uses is what CI tests.
if os.environ.get("PYTEST_XDIST_WORKER") and not REQUIRE_ALL:
    duckdb.connect = _one_thread(duckdb.connect)


#: Three speeds (issue 20.2). Tests marked ``ci_only`` (the long fuzz runs, recordings,
#: subprocess matrices, checks over every real file) run in CI (WARMUP_REQUIRE_ALL=1), with
#: WARMUP_SLOW=1, or when ``-m`` names ``ci_only``; a developer's ``python -m pytest`` skips
#: them with this reason and runs the rest. Tests marked ``slow`` (a second or more each on
#: a 2-core machine: browsers, reports, real runs) run by default; ``-m "not slow"``, the
#: quick loop, leaves them out, and every ``ci_only`` test with them.
RUN_SLOW = REQUIRE_ALL or os.environ.get("WARMUP_SLOW") == "1"
SLOW_REASON = "ci_only: runs in CI (WARMUP_REQUIRE_ALL=1) or with WARMUP_SLOW=1"


def _cached_get_command(get_command: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``typer.main.get_command`` once per app and command list: Typer builds the click
    command from the functions' signatures on every ``CliRunner.invoke`` (~11 ms, ~500
    invocations a run). The click command holds no state between invocations (each makes
    its own Context); a command registered later changes the key."""
    built: dict[tuple[int, int, int], Any] = {}

    def get(app: Any) -> Any:
        key = (id(app), len(app.registered_commands), len(app.registered_groups))
        if key not in built:
            built[key] = get_command(app)
        return built[key]

    return get


typer.testing._get_command = _cached_get_command(typer.main.get_command)  # type: ignore[attr-defined]


def _validate_checking_each_schema_once(
    instance: Any, schema: Any, cls: Any = None, *args: Any, **kwargs: Any
) -> None:
    """``jsonschema.validate``, but the schema itself is checked (``check_schema``, ~55 ms
    for report-data's) once per schema, not on each of the ~120 validations a run makes;
    the instance is validated and the best error raised exactly as ``validate`` does."""
    cls = cls or jsonschema.validators.validator_for(schema)
    key = json.dumps(schema, sort_keys=True)
    if key not in _CHECKED_SCHEMAS:
        cls.check_schema(schema)
        _CHECKED_SCHEMAS.add(key)
    error = jsonschema.exceptions.best_match(cls(schema, *args, **kwargs).iter_errors(instance))
    if error is not None:
        raise error


_CHECKED_SCHEMAS: set[str] = set()
jsonschema.validate = _validate_checking_each_schema_once


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks every ``ci_only`` test ``slow`` too, before ``-m`` selects (hence tryfirst),
    and skips the ``ci_only`` tests unless CI, WARMUP_SLOW=1 or ``-m ci_only`` asks."""
    markexpr = config.getoption("markexpr", "") or ""
    run_ci_only = RUN_SLOW or "ci_only" in markexpr.replace("not ci_only", "")
    skip = pytest.mark.skip(reason=SLOW_REASON)
    for item in items:
        if item.get_closest_marker("ci_only") is not None:
            item.add_marker(pytest.mark.slow)
            if not run_ci_only:
                item.add_marker(skip)


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


def find_chromium() -> str | None:
    """Debian's chromium on PATH, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def chromium_path() -> str:
    exe = find_chromium()
    _need(exe is not None, "Debian chromium not installed (apt-get install chromium)")
    assert exe is not None
    return exe


#: chromium's flags for the browser tests (no sandbox: CI runs as root in a container)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def _chromium() -> Iterator[Any]:
    """One chromium per test session (per xdist worker): a launch costs ~0.8 s a test."""
    exe = find_chromium()
    if exe is None:
        # ``browser`` skips (or fails in CI) through ``chromium_path`` with the reason
        yield None
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser(chromium_path: str, _chromium: Any) -> Iterator[Any]:
    """The session's chromium (Playwright ``Browser``); every page a test opens is in a
    context of its own (no cookies or storage shared between tests), closed at its end."""
    yield _chromium
    for context in list(_chromium.contexts):
        context.close()


#: Markup that must stay text wherever an input string reaches the report (issue 6).
XSS = "<script>alert(1)</script></script><img src=x onerror=alert(1)>"
# the seed's two trajectories (seeds/002): cold + 9 hot runs, seconds
SEED_A = [9.83, 0.256, 1.500, 0.043, 0.042, 0.043, 0.054, 0.042, 0.042, 0.042]
SEED_B = [0.972, 0.461, 0.116, 0.066, 0.055, 0.030, 0.036, 0.039, 0.041, 0.041]
#: a file name cannot hold "/", so file names carry the parts of the payload that fit
XSS_FILE = "<img src=x onerror=alert(1)><script>alert(1)"


@pytest.fixture
def hostile_inputs(tmp_path: Path) -> list[Path]:
    """Inputs whose every untrusted string is ``XSS``: two ClickBench systems, a harness
    query name, JTL labels and JTL file names (load and A/B sections), a profile series."""
    from toolkit.synthetic import write_jtl

    folder = tmp_path / "hostile"
    folder.mkdir()
    paths = []
    for system, name in ((XSS, f"{XSS_FILE}.json"), ("plain", "plain.json")):
        doc = {
            "system": system,
            "date": "2026-05-19",
            "machine": "c6a.metal",
            "result": [SEED_A, SEED_B],
        }
        (folder / name).write_text(json.dumps(doc), encoding="utf-8")
        paths.append(folder / name)
    csv = folder / "harness.csv"
    csv.write_text(
        "suite,query,iteration,seconds\n"
        + "".join(f'"{XSS}","{XSS}",{i},{s}\n' for i, s in enumerate(SEED_B)),
        encoding="utf-8",
    )
    paths.append(csv)
    for n, name in enumerate((f"{XSS_FILE} a.jtl", f"{XSS_FILE} b.jtl")):
        write_jtl(folder / name, 3000, seed=n, duration_s=60, warmup_s=10, labels=(XSS, "plain"))
        paths.append(folder / name)
    profile = folder / "profile.csv"
    profile.write_text(
        "series,run,elapsed_s,bytes_remote,bytes_local\n"
        + "".join(
            f"{XSS},{run},{secs},{remote},{local}\n"
            for run, secs, remote, local in (
                (1, 40, 9e10, 1e9),
                (2, 12, 3e10, 6e10),
                (3, 5, 1e9, 9e10),
                (4, 5, 1e9, 9e10),
            )
        ),
        encoding="utf-8",
    )
    paths.append(profile)
    return paths


@pytest.fixture(scope="session")
def demo_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``warmup demo``'s report (``run_demo``) dated 2026-05-19 12:00 UTC, written once per
    test session (per xdist worker) for the tests that only read it (~1.8 s a build)."""
    from datetime import UTC, datetime

    from toolkit.pipeline.demo import run_demo

    when = datetime(2026, 5, 19, 12, 0, tzinfo=UTC)
    return run_demo(tmp_path_factory.mktemp("demo") / "demo.html", generated_at=when).output


@pytest.fixture
def store() -> Iterator[Store]:
    with open_store() as s:
        yield s


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})
