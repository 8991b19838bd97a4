"""Checks and subprocess helpers shared by the tests that kill or race real ``warmup``
processes (tests/test_trust.py, tests/test_source_group.py). Not a test module: pytest puts
``tests/`` on ``sys.path`` (pyproject ``pythonpath``) so that they can import it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from toolkit import open_store
from toolkit.store import DATA_TABLES

ROOT = Path(__file__).resolve().parent.parent


def warmup_cmd(*args: str | Path) -> list[str]:
    """The ``warmup`` command of this checkout, run as ``python -m toolkit``."""
    return [sys.executable, "-m", "toolkit", *map(str, args)]


def subprocess_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def run_warmup(
    *args: str | Path, timeout: float | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``warmup ARGS`` in a subprocess (``env`` added to the environment) to completion;
    its text output captured."""
    return subprocess.run(
        warmup_cmd(*args),
        env=subprocess_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def store_state(db: Path) -> dict[str, tuple[object, ...]]:
    """Open ``db`` (replaying its WAL), check it, and return its sources.

    Checks: the store opens; CHECKPOINT succeeds; every column of every table can be read
    (DuckDB verifies block checksums on read); every data row's source exists; every
    ``sources.rows`` equals the rows stored for it; ``suite_sources`` points at existing
    suites and sources; every suite has a source. Returns ``{sha256: (format, rows)}``.
    """
    with open_store(db) as store:
        con = store.con
        con.execute("CHECKPOINT")
        tables = [r[0] for r in con.execute("SHOW TABLES").fetchall()]
        for table in tables:
            cols = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
            exprs = ", ".join(f'count("{c}")' for c in cols)
            con.execute(f"SELECT {exprs} FROM {table}").fetchall()
        for table in DATA_TABLES:
            orphans = con.execute(
                f"SELECT count(*) FROM {table} WHERE source_id NOT IN "
                "(SELECT source_id FROM sources)"
            ).fetchone()
            assert orphans == (0,), f"{table}: rows without a source"
        counted = " + ".join(
            f"(SELECT count(*) FROM {t} WHERE {t}.source_id = s.source_id)" for t in DATA_TABLES
        )
        bad = con.execute(
            f"SELECT s.source_id, s.rows, {counted} FROM sources s WHERE s.rows <> {counted}"
        ).fetchall()
        assert not bad, f"sources.rows differs from the stored rows: {bad}"
        dangling = con.execute(
            "SELECT count(*) FROM suite_sources WHERE suite_id NOT IN (SELECT suite_id FROM "
            "suites) OR source_id NOT IN (SELECT source_id FROM sources)"
        ).fetchone()
        assert dangling == (0,), "suite_sources points at missing suites or sources"
        lonely = con.execute(
            "SELECT count(*) FROM suites WHERE suite_id NOT IN (SELECT suite_id FROM suite_sources)"
        ).fetchone()
        assert lonely == (0,), "a suite without a source"
        rows = con.execute("SELECT sha256, format, rows FROM sources").fetchall()
    return {str(r[0]): (r[1], int(r[2])) for r in rows}
