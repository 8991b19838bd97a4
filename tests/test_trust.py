"""Trust under kills, concurrency and old stores (issue 7 §2-§4), and regressions found by
the fuzz suite (tests/test_fuzz.py)."""

from __future__ import annotations

import contextlib
import gzip
import json
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import duckdb
import numpy as np
import polars as pl
import pytest
from in_process import invoke_warmup
from store_checks import run_warmup, store_state, subprocess_env, warmup_cmd

from toolkit import IngestOptions, StoreVersionError, ingest_file, open_store
from toolkit.errors import InputFormatError
from toolkit.store import DATA_TABLES, SCHEMA_VERSION

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CLICKBENCH = FIXTURES / "fuzz" / "minisys__results__20260101__c6a.test.json"


class Lines:
    """The lines of a subprocess's stdout or stderr, read by a thread so that a test can
    wait for the next one with a timeout instead of hanging."""

    def __init__(self, stream: IO[str] | None) -> None:
        assert stream is not None, "start the process with this stream piped"
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._ended = False
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def next(self, timeout: float = 60) -> str | None:
        """The next line (None at end of stream); fails the test after ``timeout`` s."""
        if self._ended:
            return None
        try:
            line = self._queue.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no output line within {timeout} s")
        self._ended = line is None
        return line

    def rest(self, timeout: float = 120) -> list[str]:
        """All remaining lines, up to the end of the stream."""
        out = []
        while (line := self.next(timeout)) is not None:
            out.append(line)
        return out


# A real writer that holds the store's lock for as long as a test needs: it ingests a file
# through the public API into `--db`, and just before COMMIT (all rows written, transaction
# open, the DuckDB file lock held) says "holding" and waits for a line on stdin. So the
# overlap of two processes is a fact the test controls, not a race against machine speed.
HOLDER = """
import sys
from toolkit import ingest_file, open_store


def hold():
    print("holding", flush=True)
    sys.stdin.readline()


with open_store(sys.argv[1]) as store:
    result = ingest_file(store, sys.argv[2], _fail_before_commit=hold)
print(result.status, result.rows, flush=True)
"""


class Holder:
    """A running HOLDER process (see :func:`holding`)."""

    def __init__(self, db: Path, data: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(db), str(data)],
            env=subprocess_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.pid = self.proc.pid
        self.out = Lines(self.proc.stdout)
        self.result: str | None = None

    def wait_holding(self) -> None:
        line = self.out.next(timeout=120)
        assert line == "holding", (line, self.proc.stderr.read() if line is None else "")

    def release(self) -> None:
        """Let the writer COMMIT and exit; remember its last line (``stored N``)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.close()
        self.result = self.out.next(timeout=120)
        assert self.proc.wait(timeout=120) == 0

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@contextlib.contextmanager
def holding(db: Path, data: Path) -> Iterator[Holder]:
    """A writer process that holds ``db`` mid-transaction until ``release()``."""
    holder = Holder(db, data)
    try:
        holder.wait_holding()
        yield holder
    finally:
        holder.stop()


def spawn_cli(*args: str | Path, lock_timeout: float) -> subprocess.Popen[str]:
    """``warmup ARGS`` as a subprocess with ``WARMUP_LOCK_TIMEOUT`` set, pipes open."""
    return subprocess.Popen(
        warmup_cmd(*args),
        env=subprocess_env(WARMUP_LOCK_TIMEOUT=str(lock_timeout)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_cli(*args: str | Path, lock_timeout: float) -> subprocess.CompletedProcess[str]:
    return run_warmup(*args, timeout=120, WARMUP_LOCK_TIMEOUT=str(lock_timeout))


def waiting_notice(db: Path, pid: int, seconds: str) -> str:
    return (
        f"{db}: store is in use by another warmup process (PID {pid}); "
        f"waiting up to {seconds} s (WARMUP_LOCK_TIMEOUT)"
    )


def locked_error(db: Path, pid: int, seconds: str) -> str:
    return (
        f"Error: {db}: store is locked by another warmup process (PID {pid}); waited "
        f"{seconds} s. Retry when it finishes, or set WARMUP_LOCK_TIMEOUT to wait longer"
    )


def write_iterations_csv(path: Path, rows: int) -> Path:
    """An iterations CSV of ``rows`` rows (1000 queries; about 33 bytes a row)."""
    queries = 1000
    per_query = rows // queries
    pl.DataFrame(
        {
            "suite": [path.stem] * rows,
            "query": pl.Series(np.repeat(np.arange(queries), per_query)).cast(pl.String),
            "iteration": np.tile(np.arange(per_query), queries),
            "seconds": np.random.default_rng(7).random(rows),
        }
    ).write_csv(path)
    return path


# -- §2 atomicity: SIGKILL during `warmup ingest` ------------------------------------------
BIG_ROWS = 2_000_000


@pytest.fixture(scope="module")
def big_iterations_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """BIG_ROWS rows (about 65 MB): several seconds to ingest, about 19 MB in the store."""
    return write_iterations_csv(tmp_path_factory.mktemp("big") / "big.csv", BIG_ROWS)


@pytest.fixture(scope="module")
def base_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one ClickBench file: what every kill must leave intact."""
    base = tmp_path_factory.mktemp("base") / "base.duckdb"
    with open_store(base) as store:
        ingest_file(store, CLICKBENCH)
    return base


def _wal(db: Path) -> Path:
    return db.with_name(db.name + ".wal")


def _store_bytes(db: Path) -> int:
    wal = _wal(db)
    return db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def _signal_ingest(
    db: Path, big: Path, when: str, signum: signal.Signals = signal.SIGKILL
) -> tuple[bool, int, str]:
    """Run `warmup ingest --db db big` and send it ``signum`` at ``when``: seconds after
    start; ``grow:N`` = as soon as the store files grew by N bytes (DuckDB writes the row
    groups of a large insert into the database file before COMMIT); ``wal`` = as soon as
    the WAL exists (COMMIT writes it; the checkpoint after it removes it). Returns whether
    the signal was sent (the ingest was still running), its exit code and its stderr."""
    start_bytes = _store_bytes(db)
    proc = subprocess.Popen(
        warmup_cmd("ingest", "--db", db, big),
        env=subprocess_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    t0 = time.monotonic()
    try:
        while proc.poll() is None and time.monotonic() - t0 < 120:
            if when.startswith("grow:"):
                if _store_bytes(db) - start_bytes >= int(when[5:]):
                    break
            elif when == "wal":
                if _wal(db).exists():
                    break
            elif time.monotonic() - t0 >= float(when):
                break
            time.sleep(0.001)
        sent = proc.poll() is None
        if sent:
            proc.send_signal(signum)
        stderr = proc.communicate(timeout=120)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return sent, proc.returncode, stderr.decode("utf-8", "replace")


def _kill_ingest(db: Path, big: Path, when: str) -> str:
    """:func:`_signal_ingest` with SIGKILL; how it ended."""
    killed, code, _ = _signal_ingest(db, big, when)
    return "killed" if killed else f"exited {code}"


@pytest.mark.ci_only
def test_sigkill_during_ingest_leaves_old_or_complete_store(
    tmp_path: Path, base_store: Path, big_iterations_csv: Path
) -> None:
    """Kills of the real CLI at points from start-up to the commit's WAL: whichever phase a
    kill lands in on this machine, the store holds the old sources or the complete new one.
    (Which phase each lands in depends on the machine's speed, so it is not asserted; the
    kill before COMMIT is made certain by the next test.)"""
    before = store_state(base_store)
    assert len(before) == 1
    outcomes = {}
    for when in ("0.2", "1", "2", "grow:1", "grow:4000000", "grow:16000000", "wal"):
        db = tmp_path / f"kill-{when.replace(':', '-')}.duckdb"
        shutil.copy(base_store, db)
        how = _kill_ingest(db, big_iterations_csv, when)
        after = store_state(db)
        if after == before:
            outcomes[when] = f"{how}: store as before"
            continue
        new = set(after) - set(before)
        assert set(before) <= set(after) and len(new) == 1, (when, how, after)
        assert after[new.pop()] == ("iterations", BIG_ROWS), (when, how, after)
        outcomes[when] = f"{how}: complete new source"
    print(outcomes)
    # and an ingest left alone stores the whole file
    db = tmp_path / "complete.duckdb"
    shutil.copy(base_store, db)
    done = run_warmup("ingest", "--db", db, big_iterations_csv)
    assert done.returncode == 0, done.stderr
    after = store_state(db)
    assert len(after) == 2 and ("iterations", BIG_ROWS) in after.values()


@pytest.mark.ci_only
@pytest.mark.parametrize("kind", ["csv", "xml"])
def test_ctrl_c_during_ingest_stops_it_and_leaves_the_store_as_before(
    tmp_path: Path, base_store: Path, kind: str
) -> None:
    """DuckDB does not look at Ctrl-C while a statement runs: a large JTL used to be read
    to the end and committed, exit 0, whatever the user pressed. Now SIGINT interrupts the
    statement (CSV: DuckDB's reader; XML: the parser feeding DuckDB), the file's
    transaction rolls back, and the command says so in one line with exit 130."""
    from toolkit.synthetic import write_jtl, write_jtl_xml

    big = tmp_path / f"big.{kind}"
    if kind == "csv":
        write_jtl(big, 3_000_000, seed=5)  # about 350 MB: seconds of DuckDB reading
    else:
        write_jtl_xml(big, 300_000, seed=5, subsample_every=10)  # about 90 MB of XML
    db = tmp_path / "store.duckdb"
    shutil.copy(base_store, db)
    before = store_state(db)
    # Ctrl-C once the read is under way: the store file has grown by 2 MB
    sent, code, stderr = _signal_ingest(db, big, "grow:2000000", signal.SIGINT)
    assert sent, "the ingest ended before it could be interrupted"
    lines = [ln for ln in stderr.splitlines() if ln.startswith("Error")]
    # the line says what the store holds of the command's files (read from the store)
    assert code == 130 and lines == [f"Error: interrupted (Ctrl-C); nothing was stored in {db}"]
    assert "Traceback" not in stderr and "leaked" not in stderr, stderr[-2000:]
    assert store_state(db) == before


@pytest.mark.ci_only
def test_sigkill_with_all_rows_written_before_commit_leaves_store_as_before(
    tmp_path: Path, base_store: Path, big_iterations_csv: Path
) -> None:
    """A writer stopped just before COMMIT, with every row of the big file already written
    into the database file, is SIGKILLed: the store opens, passes the checks and holds
    exactly what it held before."""
    before = store_state(base_store)
    db = tmp_path / "kill-before-commit.duckdb"
    shutil.copy(base_store, db)
    start_bytes = _store_bytes(db)
    with holding(db, big_iterations_csv) as holder:
        grown = _store_bytes(db) - start_bytes
        holder.proc.send_signal(signal.SIGKILL)
        holder.proc.wait()
    # the kill hit a write that had reached the disk, not one still in memory
    assert grown > 4_000_000, f"the store grew by only {grown} bytes before COMMIT"
    assert store_state(db) == before


# -- regressions found by the fuzz suite ---------------------------------------------------
CB = '{"system": "S", "machine": "m", %s"result": [[1.0, %s]]}'
IT = "suite,query,iteration,seconds%s\ns,q,%s,%s%s\n"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "bigint.json",
            CB % ("", "9" * 400),
            "field 'result[0][1]': run time " + "9" * 60 + " is not a number of seconds from 0 "
            "to 1e+09 (32 years)",
        ),
        (
            # 1e308 s runs overflowed math.fsum in gaps and report (exit 3)
            "huge.json",
            CB % ("", "1e308"),
            "field 'result[0][1]': run time 1e+308 is not a number of seconds from 0 to 1e+09 "
            "(32 years)",
        ),
        (
            "huge.csv",
            IT % ("", "1", "1e308", ""),
            "2: column 'seconds': '1e308' is not a number of seconds from 0 to 1e+09, "
            "or empty for a failed run",
        ),
        (
            "bigsize.json",
            CB % ('"data_size": 1e300, ', "1"),
            "field 'data_size': expected a size in bytes >= 0, got 1e+300",
        ),
        (
            "bigload.json",
            CB % ('"load_time": ' + "9" * 400 + ", ", "1"),
            "field 'load_time': expected a number or null, got " + "9" * 60,
        ),
        (
            "iteration.csv",
            IT % ("", "99999999999", "1", ""),
            "2: column 'iteration': '99999999999' is not an integer from 0 to 2147483647",
        ),
        (
            "process.csv",
            IT % (",process", "1", "1", ",4000000000"),
            "2: column 'process': '4000000000' is not an integer from 0 to 2147483647",
        ),
        (
            "noprocess.csv",
            IT % (",process", "1", "1", ","),
            "2: column 'process': '' is not an integer from 0 to 2147483647",
        ),
        (
            "infinite.csv",
            IT % ("", "1", "1e400", ""),
            "2: column 'seconds': '1e400' is not a number of seconds from 0 to 1e+09, "
            "or empty for a failed run",
        ),
        (
            "inf.csv",
            IT % ("", "1", "inf", ""),
            "2: column 'seconds': 'inf' is not a number of seconds from 0 to 1e+09, "
            "or empty for a failed run",
        ),
        (
            "wide.csv",
            "suite,query,iteration,seconds" + "," * 2000 + "\ns,q,1,1\n",
            "1: header has 2004 columns (at most 1000 expected); "
            "iterations input needs suite, query, iteration, seconds",
        ),
        (
            "longheader.csv",
            "suite,query,iteration,seconds,x" + "x" * (1 << 20) + "\ns,q,1,1\n",
            "1: header line is longer than 1 MiB; this is not an iterations CSV",
        ),
    ],
    ids=lambda value: value if str(value).endswith((".csv", ".json")) else "",
)
def test_fuzz_findings_are_clear_errors(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with open_store() as store:
        with pytest.raises(InputFormatError) as info:
            # a 1 MiB header is past the sniffer's window: name the format as a user would
            ingest_file(store, path, format="iterations" if name == "longheader.csv" else None)
        assert store.con.execute("SELECT count(*) FROM sources").fetchone() == (0,)
    sep = "" if message[0].isdigit() else " "
    assert str(info.value) == f"{path}:{sep}{message}"


# -- §3 concurrency: two processes, one store ----------------------------------------------
MEDIUM_ROWS = 50_000


@pytest.fixture(scope="module")
def medium_iterations_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_iterations_csv(tmp_path_factory.mktemp("medium") / "medium.csv", MEDIUM_ROWS)


@pytest.fixture
def empty_db(tmp_path: Path) -> Path:
    db = tmp_path / "shared.duckdb"
    open_store(db).close()
    return db


@pytest.mark.ci_only
def test_second_writer_waits_and_both_files_are_stored(
    empty_db: Path, medium_iterations_csv: Path
) -> None:
    with holding(empty_db, medium_iterations_csv) as first:
        second = spawn_cli("ingest", "--db", empty_db, CLICKBENCH, lock_timeout=60)
        err = Lines(second.stderr)
        # the second writer says, in one line, that it waits and for whom
        assert err.next() == waiting_notice(empty_db, first.pid, "60")
        time.sleep(0.5)
        assert second.poll() is None, "the second writer stopped waiting"
        first.release()
        rest = err.rest()
        assert second.wait(timeout=120) == 0, rest
    assert first.result == f"stored {MEDIUM_ROWS}"
    assert rest[0].startswith(f"{CLICKBENCH}: clickbench, 15 rows -> ")
    state = store_state(empty_db)
    assert sorted(state.values()) == [("clickbench", 15), ("iterations", MEDIUM_ROWS)]


@pytest.mark.ci_only
def test_second_writer_gives_up_with_one_line_and_store_keeps_the_first(
    empty_db: Path, medium_iterations_csv: Path
) -> None:
    with holding(empty_db, medium_iterations_csv) as first:
        second = run_cli("ingest", "--db", empty_db, CLICKBENCH, lock_timeout=0.5)
        first.release()
    assert first.result == f"stored {MEDIUM_ROWS}"
    assert second.returncode == 1
    assert second.stdout == ""
    # the wait notice, then one error line naming the holder and what to do
    assert second.stderr.splitlines() == [
        waiting_notice(empty_db, first.pid, "0.5"),
        locked_error(empty_db, first.pid, "0.5"),
    ]
    assert list(store_state(empty_db).values()) == [("iterations", MEDIUM_ROWS)]


@pytest.mark.ci_only
def test_reader_during_a_write_gets_one_line_or_a_committed_snapshot(
    empty_db: Path, medium_iterations_csv: Path
) -> None:
    with holding(empty_db, medium_iterations_csv) as first:
        refused = run_cli("gaps", "--db", empty_db, "--json", lock_timeout=0.3)
        reader = spawn_cli("suites", "--db", empty_db, "--json", lock_timeout=60)
        err = Lines(reader.stderr)
        assert err.next() == waiting_notice(empty_db, first.pid, "60")
        first.release()
        stdout = "\n".join(Lines(reader.stdout).rest())
        assert err.rest() == []
        assert reader.wait(timeout=120) == 0
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.splitlines() == [
        waiting_notice(empty_db, first.pid, "0.3"),
        locked_error(empty_db, first.pid, "0.3"),
    ]
    suites = json.loads(stdout)["suites"]
    # the reader waited for the commit: it sees the whole file, never a part of it
    assert [(s["name"], s["iterations"]) for s in suites] == [("medium", MEDIUM_ROWS)]


# -- §4 schema evolution: stores written by earlier versions --------------------------------
STORES = ROOT / "tests" / "data" / "stores"
OLD_STORES = ("schema3-9fd0556", "schema3-d176350")


def unpack_store(name: str, into: Path) -> Path:
    """A writable copy of ``tests/data/stores/<name>.duckdb.gz``."""
    db = into / f"{name}.duckdb"
    db.write_bytes(gzip.decompress((STORES / f"{name}.duckdb.gz").read_bytes()))
    return db


def raw_tables(db: Path) -> dict[str, tuple[list[tuple[str, str, str]], list[dict[str, object]]]]:
    """Every table of ``db`` read with plain DuckDB (no toolkit, no migration): its
    columns ``(name, type, nullable)`` in order and its rows as dicts, sorted."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for (table,) in con.execute("SHOW TABLES").fetchall():
            columns = [
                (str(r[0]), str(r[1]), str(r[2]))
                for r in con.execute(f"DESCRIBE {table}").fetchall()
            ]
            # through Arrow: fetching TIMESTAMPTZ into Python would need pytz
            rows = con.sql(f"SELECT * FROM {table}").pl().to_dicts()
            out[str(table)] = (columns, sorted(rows, key=repr))
        return out
    finally:
        con.close()


@pytest.mark.parametrize("name", OLD_STORES)
@pytest.mark.slow
def test_store_of_the_previous_schema_is_migrated_on_open(tmp_path: Path, name: str) -> None:
    db = unpack_store(name, tmp_path)
    old = raw_tables(db)
    assert old["meta"][1] == [{"key": "schema_version", "value": "3"}]
    fresh_db = tmp_path / "fresh.duckdb"
    open_store(fresh_db).close()
    fresh = raw_tables(fresh_db)

    with open_store(db) as store:
        assert store.schema_version == SCHEMA_VERSION
    new = raw_tables(db)
    # the same tables, columns, types, NOT NULLs and column order as a new store
    assert {t: cols for t, (cols, _) in new.items()} == {t: c for t, (c, _) in fresh.items()}
    formats = {r["source_id"]: r["format"] for r in old["sources"][1]}
    for table, (old_columns, old_rows) in old.items():
        if table == "meta":
            continue
        # every old row is there, unchanged; columns the old shape lacked are NULL, but
        # query_runs.source_format, which is the ingester's name (sources.format)
        added = {c[0] for c in new[table][0]} - {c[0] for c in old_columns}
        expected = []
        for row in old_rows:
            row = {**row, **dict.fromkeys(added)}
            if "source_format" in added:
                row["source_format"] = formats[row["source_id"]]
            expected.append(row)
        assert new[table][1] == sorted(expected, key=repr), table
    assert len(new["iterations"][1]) == 149  # 20 + 129, see tests/data/stores/README.md
    if name == "schema3-d176350":
        assert all(new[t][1] for t in DATA_TABLES), "the store should hold rows in every table"

    # the ClickBench rows are the input file's numbers
    doc = json.loads((STORES / "inputs/oldsys/results/20250101/c6a.4xlarge.json").read_text())
    with open_store(db) as store:
        stored = store.frame(
            "SELECT query_index, iteration, seconds FROM iterations i JOIN suites s "
            "USING (suite_id) WHERE s.system = 'OldSys' ORDER BY query_index, iteration"
        )
    assert stored["seconds"].to_list() == [v for row in doc["result"] for v in row]

    # new ingests work on the migrated store: every format family, the profile tables too
    # (the first-shape store fails on them without the migration), ids continue
    before = store_state(db)
    fresh_inputs = [
        FIXTURES / "profiles" / "warehouse_warmup.csv",
        FIXTURES / "profiles" / "snowflake_operator_stats.csv",
        FIXTURES / "iterations" / "harness.csv",
        CLICKBENCH,
    ]
    with open_store(db) as store:
        for path in fresh_inputs:
            result = ingest_file(store, path, options=IngestOptions(replace=True))
            assert result.status in ("stored", "replaced"), result
    after = store_state(db)
    assert set(before) < set(after)
    assert len(after) - len(before) <= len(fresh_inputs)
    with open_store(db) as store:
        ids = store.sources()["source_id"].to_list()
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_reader_of_an_old_store_migrates_it_and_reads_it(tmp_path: Path) -> None:
    db = unpack_store("schema3-9fd0556", tmp_path)
    done = invoke_warmup("suites", "--db", db, "--json")
    assert done.returncode == 0, done.stderr
    suites = json.loads(done.stdout)["suites"]
    assert [(s["name"], s["iterations"]) for s in suites] == [
        ("jvm-suite", 20),
        ("OldSys / c6a.4xlarge, 500gb gp2 / 2025-01-01", 129),
    ]
    assert raw_tables(db)["meta"][1] == [{"key": "schema_version", "value": str(SCHEMA_VERSION)}]


@pytest.mark.parametrize("command", ["ingest", "suites"])
def test_store_of_a_newer_schema_is_refused_and_left_alone(tmp_path: Path, command: str) -> None:
    db = tmp_path / "newer.duckdb"
    with open_store(db) as store:
        ingest_file(store, CLICKBENCH)
        store.con.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION + 1)]
        )
    image = db.read_bytes()
    args = ("ingest", "--db", db, FIXTURES / "iterations" / "harness.csv")
    done = invoke_warmup(*(args if command == "ingest" else ("suites", "--db", db)))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"Error: {db}: written by a newer warmup-toolkit (schema {SCHEMA_VERSION + 1}); "
        f"upgrade warmup-toolkit (this version reads schema {SCHEMA_VERSION} and older)"
    ]
    assert db.read_bytes() == image
    with pytest.raises(StoreVersionError) as info:
        open_store(db)
    assert f"written by a newer warmup-toolkit (schema {SCHEMA_VERSION + 1}); upgrade" in str(
        info.value
    )
