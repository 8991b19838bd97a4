"""Damaged and foreign stores (issue 21 §1): every command that opens a store says in one
line which file, what is wrong and what to do, exits 1, and never writes to the file;
``warmup doctor`` names each damaged table. Killed creations leave no half store."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from in_process import invoke_warmup
from store_checks import run_warmup, store_state
from store_damage import damage_kinds, damaged_copy, table_blocks
from typer.testing import CliRunner

from toolkit import open_store
from toolkit.cli import app
from toolkit.errors import StoreDamagedError
from toolkit.store import _HEADER_BYTES, SCHEMA_VERSION, check_tables

ROOT = Path(__file__).resolve().parent.parent
CLICKBENCH = "clickbench/duckdb__results__20260510__c6a.4xlarge.json"
JTL = "jmeter/bin__testfiles__sample_log1c.jtl"
OTHER_CLICKBENCH = "clickbench/umbra__results__20260815__t3a.small.json"

#: what each damage is, as the user is told (the first words after "Error: FILE: ")
DAMAGED = "damaged store ("
NOT_DUCKDB = "not a warmup-toolkit store: not a DuckDB database file"
REMEDY = (
    "Restore it from a backup, or re-ingest its files into a new store: "
    "`warmup ingest --db NEW FILE...`"
)
VERDICTS = {
    "header-zeroed": NOT_DUCKDB,
    "header-random": NOT_DUCKDB,
    "jtl-renamed": NOT_DUCKDB,
    "text-file": NOT_DUCKDB,
    "empty-file": "an empty file, not a store yet",
    "foreign-duckdb": "holds tables but is not a warmup-toolkit store (no meta table)",
    "no-meta-table": "holds tables but is not a warmup-toolkit store (no meta table)",
    "newer-schema": "written by a newer warmup-toolkit (schema 999)",
}
#: a WAL cut short: DuckDB replays its whole records and drops the torn tail, as after a
#: kill during a commit (test_trust's kills rely on it); the store is sound
RECOVERED = {"wal-truncated"}

#: every command that opens a store, with the arguments it reads ``--db`` with
READERS: list[list[str]] = [
    ["suites"],
    ["suites", "--json"],
    ["doctor"],
    ["gaps"],
    ["detect"],
    ["score"],
    ["cache"],
    ["load", "--json"],
    ["findings"],
    ["check"],
]


def _files(db: Path) -> dict[str, str]:
    """SHA-256 of the store and of every file beside it (its WAL): what a write changes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(db.parent.iterdir())}


@pytest.fixture(scope="module")
def real_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A store of two real files (a ClickBench result: 43 queries x 3 runs; a JMeter XML
    JTL of 2000 samples), another store, and the JTL itself. Ingested in this process
    (each command closes its store, as a process's end does); the tests that damage them
    run ``python -m toolkit`` where the process is the point."""
    from conftest import SHARED_REAL, _need

    _need(SHARED_REAL.is_dir(), f"{SHARED_REAL} not present")
    base = tmp_path_factory.mktemp("real-store")
    store, other = base / "real.duckdb", base / "other.duckdb"
    done = invoke_warmup("ingest", "--db", store, SHARED_REAL / CLICKBENCH, SHARED_REAL / JTL)
    assert done.returncode == 0, done.stderr
    done = invoke_warmup("ingest", "--db", other, SHARED_REAL / OTHER_CLICKBENCH)
    assert done.returncode == 0, done.stderr
    return store, other, SHARED_REAL / JTL


def _raw_counts(real: Path) -> dict[str, int]:
    """Rows each table should hold, counted from the input files themselves."""
    doc = json.loads((real / CLICKBENCH).read_text(encoding="utf-8"))
    runs = sum(len(row) for row in doc["result"])
    text = (real / JTL).read_text(encoding="utf-8")
    samples = len(re.findall(r"<(?:httpSample|sample)\b", text))
    return {"iterations": runs, "samples": samples}


def _one_error(output: str, db: Path) -> str:
    """The single ``Error:`` line of ``output`` (no traceback), after ``Error: DB: ``."""
    assert "Traceback" not in output, output[-3000:]
    errors = [line for line in output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1, output[-3000:]
    prefix = f"Error: {db}: "
    assert errors[0].startswith(prefix), errors
    return errors[0][len(prefix) :]


def _kinds(store: tuple[Path, Path, Path]) -> dict[str, Callable[[Path], None]]:
    return damage_kinds(*store)


def test_damage_matrix_has_at_least_twenty_kinds(real_store: tuple[Path, Path, Path]) -> None:
    kinds = _kinds(real_store)
    assert len(kinds) >= 20
    places = ("header", "catalog", "samples", "iterations", "wal", "truncated", "jtl")
    assert all(any(k.startswith(p) or p in k for k in kinds) for p in places)


@pytest.mark.ci_only
def test_every_command_on_every_damaged_copy_is_one_line_and_no_write(
    tmp_path: Path, real_store: tuple[Path, Path, Path], real_dir: Path
) -> None:
    """29 damaged copies of a real store x every command that opens a store (readers,
    ``ingest``, ``load FILE --db``, ``report FILE --db``): exit 1 with one line naming the
    file, what is wrong and what to do, and the store's bytes (and its WAL's) unchanged.
    Before, of the 348 runs of 12 of these commands (all but doctor and suites --json), 44
    were a DuckDB traceback, 24 wrote to the damaged file, 62 exited 0 on a damaged store."""
    runner = CliRunner()
    new_file = real_dir / OTHER_CLICKBENCH
    writers = [
        ["ingest", str(new_file)],
        ["load", str(real_dir / JTL), "--json"],
        ["report", str(new_file), "-o", str(tmp_path / "out.html")],
    ]
    report_reader = ["report", "-o", str(tmp_path / "report.html")]
    outcomes: dict[str, set[str]] = {}
    for name, kind in _kinds(real_store).items():
        for args in [*READERS, report_reader, *writers]:
            folder = tmp_path / "copy"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            db = damaged_copy(real_store[0], kind, folder / "store.duckdb")
            before = _files(db)
            result = runner.invoke(app, [args[0], "--db", str(db), *args[1:]])
            where = f"{name}: warmup {' '.join(args)}"
            assert not isinstance(result.exception, Exception) or isinstance(
                result.exception, SystemExit
            ), (where, result.exception)
            writes = args in writers
            if name in RECOVERED:
                # sound: the command runs (cache has no profile here: nothing to analyse,
                # exit 1 as for any store without profiles)
                nothing = result.exit_code == 1 and "to analyze in the input" in result.output
                assert result.exit_code == 0 or nothing, (where, result.output[-2000:])
                if not writes:
                    assert _files(db) == before, where
                store_state(db)  # sound, whatever the command did
                outcomes.setdefault(name, set()).add("recovered")
                continue
            if name == "empty-file" and writes:
                # an empty file named as the store is a store not yet created: filled
                assert result.exit_code == 0, (where, result.output[-2000:])
                assert store_state(db), where
                continue
            assert result.exit_code == 1, (where, result.output[-2000:])
            said = _one_error(result.output, db)
            expected = VERDICTS.get(name, DAMAGED)
            assert said.startswith(expected), (where, said)
            if expected == DAMAGED:
                assert REMEDY in said, (where, said)
            assert _files(db) == before, f"{where} wrote to the damaged file"
            outcomes.setdefault(name, set()).add(expected)
    # every kind of damage was seen, and each got the same verdict from every command
    # (`warmup suites` used to list a store that `warmup load` could not read)
    assert set(outcomes) == set(_kinds(real_store))
    assert all(len(verdicts) == 1 for verdicts in outcomes.values()), outcomes


def test_damaged_store_message_names_file_damage_and_remedy(
    tmp_path: Path, real_store: tuple[Path, Path, Path]
) -> None:
    kinds = _kinds(real_store)
    db = damaged_copy(real_store[0], kinds["samples-zeroed"], tmp_path / "store.duckdb")
    block = table_blocks(real_store[0], "samples")[0]
    with pytest.raises(StoreDamagedError) as info:
        open_store(db, read_only=True)
    location = 3 * 4096 + block * 256 * 1024
    assert str(info.value) == (
        f"{db}: damaged store (table samples: Corrupt database file: computed checksum 5381 "
        f"does not match stored checksum 0 in block at location {location}); nothing was "
        "written to it. Restore it from a backup, or re-ingest its files into a new store: "
        f"`warmup ingest --db NEW FILE...` (`warmup doctor --db {db}` lists the damaged tables)"
    )


def test_doctor_names_each_damaged_table_and_counts_the_others(
    tmp_path: Path, real_store: tuple[Path, Path, Path], real_dir: Path
) -> None:
    """Two tables damaged (the samples and the iterations blocks zeroed): doctor reports
    both and reads every other table in full, with the rows the input files hold."""
    truth = _raw_counts(real_dir)
    assert truth == {"iterations": 129, "samples": 2000}
    healthy = {c.table: c.rows for c in check_tables(real_store[0])}
    assert {t: healthy[t] for t in truth} == truth
    kinds = _kinds(real_store)
    db = damaged_copy(real_store[0], kinds["samples-zeroed"], tmp_path / "store.duckdb")
    kinds["iterations-zeroed"](db)
    before = _files(db)
    result = CliRunner().invoke(app, ["doctor", "--db", str(db)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    damaged = sorted(line.split()[0] for line in lines if "DAMAGED: Corrupt database file" in line)
    assert damaged == ["iterations", "samples"]
    ok = {line.split()[0]: int(line.split()[1]) for line in lines if line.endswith("rows, ok")}
    assert ok == {t: n for t, n in healthy.items() if t not in truth}
    assert lines[-1] == (
        f"Error: {db}: damaged store (damaged: iterations, samples); nothing was written to "
        f"it. {REMEDY}"
    )
    assert _files(db) == before
    sound = CliRunner().invoke(app, ["doctor", "--db", str(real_store[0])])
    assert sound.exit_code == 0, sound.output
    assert "no damage found" in sound.output.splitlines()[-1]


@pytest.mark.parametrize("kind", ["samples-zeroed", "jtl-renamed", "wal-of-another-store"])
@pytest.mark.slow
def test_real_cli_on_a_damaged_store_exits_1_with_one_line(
    tmp_path: Path, real_store: tuple[Path, Path, Path], real_dir: Path, kind: str
) -> None:
    """Report with a file and --db, the command that printed a DuckDB traceback before:
    through ``python -m toolkit`` (its exit-3 boundary) for a damaged table; the other two
    verdicts in this process (in_process: the exit code main gives, 3 for a traceback),
    which saves an interpreter start (~1 s) each."""
    db = damaged_copy(real_store[0], _kinds(real_store)[kind], tmp_path / "store.duckdb")
    before = _files(db)
    run = run_warmup if kind == "samples-zeroed" else invoke_warmup
    done = run("report", "--db", db, real_dir / OTHER_CLICKBENCH, "-o", tmp_path / "r.html")
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    said = _one_error(done.stderr, db)
    assert said.startswith(VERDICTS.get(kind, DAMAGED)), said
    assert _files(db) == before


def test_a_block_that_fails_after_opening_is_one_line(
    tmp_path: Path, real_store: tuple[Path, Path, Path]
) -> None:
    """A disk that fails after the store was checked (DuckDB reports a checksum while a
    command runs): the error leaving the ``with`` block becomes the store's one line; an
    error that is no damage (a bug) stays what it was."""
    db = tmp_path / "store.duckdb"
    shutil.copy(real_store[0], db)
    failure = "Corrupt database file: computed checksum 5381 does not match stored checksum 0"
    with pytest.raises(StoreDamagedError) as info, open_store(db, read_only=True):
        raise duckdb.Error(failure)
    assert str(info.value).startswith(f"{db}: damaged store ({failure}); nothing was written")
    with pytest.raises(duckdb.CatalogException), open_store(db, read_only=True) as store:
        store.con.execute("SELECT * FROM no_such_table")


# -- a store whose creation was cut short ------------------------------------------------


def test_creation_interrupted_leaves_no_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A creation stopped before its schema is committed leaves nothing at the path (it was
    a file every command called "no such store" while ingest failed on it)."""
    import toolkit.store as store_module

    real_migrate = store_module._migrate

    def stopped(con: duckdb.DuckDBPyConnection, current: int) -> None:
        real_migrate(con, current)
        raise KeyboardInterrupt

    monkeypatch.setattr(store_module, "_migrate", stopped)
    db = tmp_path / "new.duckdb"
    with pytest.raises(KeyboardInterrupt):
        open_store(db)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    monkeypatch.setattr(store_module, "_migrate", real_migrate)
    with open_store(db) as store:
        assert store.schema_version == SCHEMA_VERSION


@pytest.mark.parametrize("leftover", ["empty-duckdb", "zero-bytes"])
def test_leftover_of_a_killed_creation_is_one_line_for_readers_and_filled_by_ingest(
    tmp_path: Path, fixtures_dir: Path, leftover: str
) -> None:
    """What an older version's killed creation left (a DuckDB file with no tables), or an
    empty file: readers say so in one line without writing; ``ingest --db`` fills it."""
    db = tmp_path / "store.duckdb"
    if leftover == "empty-duckdb":
        duckdb.connect(str(db)).close()
    else:
        db.touch()
    before = _files(db)
    done = CliRunner().invoke(app, ["suites", "--db", str(db)])
    assert done.exit_code == 1
    said = _one_error(done.output, db)
    assert said.startswith("an empty store" if leftover == "empty-duckdb" else "an empty file")
    assert said.endswith(f"fill it with `warmup ingest --db {db} FILE`")
    assert _files(db) == before
    data = fixtures_dir / "fuzz" / "minisys__results__20260101__c6a.test.json"
    filled = invoke_warmup("ingest", "--db", db, data)
    assert filled.returncode == 0, filled.stderr
    assert list(store_state(db).values()) == [("clickbench", 15)]


@pytest.mark.slow
def test_creation_that_loses_the_race_opens_the_winners_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixtures_dir: Path
) -> None:
    """Two commands create the same store: the one that moves its file into place second
    keeps the other's store (with its rows) and leaves no temporary file."""
    import toolkit.store as store_module

    db = tmp_path / "new.duckdb"
    data = fixtures_dir / "fuzz" / "minisys__results__20260101__c6a.test.json"
    real_migrate = store_module._migrate

    def other_process_wins(con: duckdb.DuckDBPyConnection, current: int) -> None:
        real_migrate(con, current)
        monkeypatch.setattr(store_module, "_migrate", real_migrate)
        done = run_warmup("ingest", "--db", db, data)  # the other process, meanwhile
        assert done.returncode == 0, done.stderr

    monkeypatch.setattr(store_module, "_migrate", other_process_wins)
    with open_store(db) as store:
        assert store.sources()["format"].to_list() == ["clickbench"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.duckdb"]


def _large_store(into: Path, real: Path) -> Path:
    db = into / "large.duckdb"
    runs = sorted((real / "jmeter-runs").glob("*.jtl.gz"))
    done = run_warmup("ingest", "--db", db, *runs)
    assert done.returncode == 0, done.stderr
    return db


@pytest.mark.ci_only
def test_large_real_store_damaged_in_its_middle_is_refused_without_writes(
    tmp_path: Path, real_store: tuple[Path, Path, Path], real_dir: Path
) -> None:
    """The two real JMeter runs (1.29M samples, a 7.6 MB store): a block in the middle of the
    samples zeroed or given 4 KiB of noise, the file cut at two thirds, another store's
    WAL: suites, load and ingest each refuse it in one line and leave it as it was."""
    from store_damage import BLOCK_BYTES, _noise, _overwrite, _truncate, block_offset

    large = _large_store(tmp_path, real_dir)
    samples = table_blocks(large, "samples")
    assert len(samples) >= 10
    middle = block_offset(samples[len(samples) // 2])
    size = large.stat().st_size
    kinds: dict[str, Callable[[Path], None]] = {
        "samples-middle-zeroed": lambda db: _overwrite(db, middle, BLOCK_BYTES, None),
        "samples-middle-noise": lambda db: _overwrite(db, middle + 8192, 4096, _noise(4096, 9)),
        "cut-at-two-thirds": lambda db: _truncate(db, size * 2 // 3),
        "wal-of-another-store": _kinds(real_store)["wal-of-another-store"],
    }
    runner = CliRunner()
    for name, kind in kinds.items():
        for args in (["suites"], ["load", "--json"], ["ingest", str(real_dir / JTL)]):
            folder = tmp_path / "copy"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            db = damaged_copy(large, kind, folder / "store.duckdb")
            before = _files(db)
            result = runner.invoke(app, [args[0], "--db", str(db), *args[1:]])
            assert result.exit_code == 1, (name, args, result.output[-2000:])
            assert _one_error(result.output, db).startswith(DAMAGED), (name, args)
            assert _files(db) == before, (name, args)


# -- sound stores are never called damaged ---------------------------------------------


@pytest.mark.slow
def test_store_grown_by_many_ingests_is_not_called_cut_short(
    tmp_path: Path, real_dir: Path
) -> None:
    """Eight separate ingests into one store, each followed by a reader: DuckDB trims free
    blocks off the file's end at a checkpoint while its header still counts them, and the
    old open-time check (file size against ``total_blocks``) refused this store as "cut
    short" after its fifth ingest (5,779,456 bytes of the 6,041,600 its 23 blocks take).
    Each command opens and closes the store in this process (a close checkpoints, as a
    process's end does); the old check's condition is seen to hold at least once."""
    db = tmp_path / "grown.duckdb"
    # every file a suite of its own (the error-only cedardb result is skipped at ingest)
    files = [p for p in sorted((real_dir / "clickbench").glob("*.json")) if "cedardb" not in p.name]
    files = files[:8]
    assert len(files) == 8
    old_check_refused = 0
    for n, path in enumerate(files, 1):
        done = invoke_warmup("ingest", "--db", db, path)
        assert done.returncode == 0, (n, done.stderr)
        listed = invoke_warmup("suites", "--db", db, "--json")
        assert listed.returncode == 0, (n, listed.stderr)
        assert len(json.loads(listed.stdout)["suites"]) == n
        con = duckdb.connect(str(db), read_only=True)
        block_size, total = con.execute(
            "SELECT block_size, total_blocks FROM pragma_database_size()"
        ).fetchone()  # type: ignore[misc]
        con.close()
        old_check_refused += db.stat().st_size < _HEADER_BYTES + block_size * total
    assert old_check_refused > 0, "the checkpoints trimmed nothing: the test proves nothing"
    assert check_tables(db) and all(c.problem is None for c in check_tables(db))


@pytest.mark.parametrize("keep", [3, 20, 100, "half", "all-but-one"])
def test_own_wal_torn_inside_its_commit_is_a_sound_store(tmp_path: Path, keep: object) -> None:
    """A kill while DuckDB wrote a commit to the WAL leaves the store's own WAL with its
    header and a torn first entry: DuckDB replays nothing (nothing in it was committed) and
    the store is sound. The old check read "replayed 0 bytes" as damage ("its WAL cannot be
    replayed"; a CI run's SIGKILL-during-ingest test saw it); only a WAL that is not this
    store's (zeros, noise, another store's) is refused."""
    from store_damage import with_wal

    db = tmp_path / "s.duckdb"
    with open_store(db):
        pass
    before = store_state(db)
    wal = with_wal(db)
    data = wal.read_bytes()
    cut = {"half": len(data) // 2, "all-but-one": len(data) - 1}.get(str(keep), keep)
    assert isinstance(cut, int) and 0 < cut < len(data)
    wal.write_bytes(data[:cut])
    done = invoke_warmup("suites", "--db", db, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["suites"] == []
    assert store_state(db) == before
    wal.write_bytes(bytes(len(data)))  # zeros at its start: committed work lost silently
    refused = invoke_warmup("suites", "--db", db)
    assert refused.returncode == 1 and "cannot be replayed" in refused.stderr, refused.stderr
