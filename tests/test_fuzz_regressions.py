"""Regressions found by the fuzz suite (tests/test_fuzz.py), as explicit minimal cases.

Each row is the smallest input hypothesis (or a review of the same code path) found for a
crash that was not a :class:`ToolkitError`; the exact one-line message is asserted, and the
store must hold nothing afterwards. Companion of ``test_trust.py::test_fuzz_findings_are_clear_errors``.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import signal
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolkit import open_store
from toolkit.cli import app
from toolkit.errors import InputFormatError
from toolkit.ingest import ingest_file
from toolkit.ingest.registry import FORMATS
from toolkit.store import DATA_TABLES

ROOT = Path(__file__).resolve().parent.parent
DEEP = "[" * 1000 + "1" + "]" * 1000
SUMMARY = (
    "summary +      1 in 00:00:00 =    4.1/s Avg:    62 Min:    %s Max:    62 Err:     0 "
    "(0.00%%) Active: 1 Started: 1 Finished: 0\n"
)
JTL = (
    '<?xml version="1.0" encoding="%s"?>\n<testResults version="1.2">\n'
    '<httpSample t="%s" lt="115" ts="1498080598101" s="true" lb="x" rc="200" ng="%s"/>\n'
    "</testResults>\n"
)
OPS = (
    "QUERY_ID,STEP_ID,OPERATOR_ID,PARENT_OPERATORS,OPERATOR_TYPE,OPERATOR_STATISTICS,"
    'EXECUTION_TIME_BREAKDOWN\nq1,1,0,%s,Result,{},"{""overall_percentage"":1}"\n'
)
JTL_CSV = "timeStamp,elapsed,label,responseCode,success\n1795316549699,42,a,200,true\n"
PROFILE_CSV = "series,run,elapsed_s,bytes_scanned\n%s\n"
HISTORY = (
    '{"res": [{"query_id": "q", "status": "FINISHED", "query_text": "SELECT 1", '
    '"metrics": {"total_time_ms": %s, "read_bytes": %s, "read_remote_bytes": 1}}]}'
)
SNOWFLAKE_CSV = "QUERY_ID,TOTAL_ELAPSED_TIME,BYTES_SCANNED,WAREHOUSE_SIZE\nq1,%s,%s,Large\n"

CASES: list[tuple[str, str | None, str, str]] = [
    # (file name, --format or None for detection, content, message after "<path>")
    (
        "operators.csv",
        None,
        OPS % f'"{DEEP}"',
        ":2: field 'PARENT_OPERATORS': invalid JSON: nested more than 200 levels deep",
    ),
    (
        "deep-history.json",
        "snowflake-history",
        '{"result": ' + DEEP + "}",
        ": invalid JSON: nested more than 200 levels deep; expected a Snowflake QUERY_HISTORY "
        "export (CSV or JSON with QUERY_ID, TOTAL_ELAPSED_TIME, ...)"
        "; the file looks like clickbench: pass --format clickbench or leave --format out",
    ),
    (
        "deep-log.json",
        "clickhouse-query-log",
        '{"result": ' + DEEP + "}",
        ": invalid JSON: nested more than 200 levels deep; expected a ClickHouse "
        "system.query_log export (JSONEachRow or CSVWithNames)"
        "; the file looks like clickbench: pass --format clickbench or leave --format out",
    ),
    (
        "deep-ops.json",
        "snowflake-operator-stats",
        '{"result": ' + DEEP + "}",
        ": invalid JSON: nested more than 200 levels deep; expected a Snowflake "
        "GET_QUERY_OPERATOR_STATS export (QUERY_ID, OPERATOR_ID, OPERATOR_TYPE, "
        "OPERATOR_STATISTICS, EXECUTION_TIME_BREAKDOWN)"
        "; the file looks like clickbench: pass --format clickbench or leave --format out",
    ),
    (
        "deep-profile.json",
        None,
        '{"query_name": "q", "latency": 1, "children": ['
        + '{"children": [' * 150
        + "]}" * 150
        + "]}",
        ": invalid JSON: nested more than 200 levels deep; expected a DuckDB JSON profile "
        "(enable_profiling='json': latency, children)",
    ),
    (
        "jmeter.log",
        None,
        SUMMARY % "99999999999999999999",
        ":1: field 'min_ms': value 99999999999999999999 is out of range for a 64-bit "
        "integer; fix the file",
    ),
    (
        "epoch.log",
        None,
        "Starting standalone test @ 2026 Nov 22 03:01:46 UTC (99999999999999999999)\n"
        + SUMMARY % "62",
        ":1: test start 99999999999999999999 is not an epoch time in milliseconds",
    ),
    (
        "rate.log",
        None,
        SUMMARY.replace("4.1/s", "4.1.1/s") % "62",
        ":1: summariser line: '4.1.1' is not a number",
    ),
    (
        "hours.log",
        None,
        SUMMARY.replace("00:00:00", "9" * 400 + ":00:00") % "62",
        ":1: summariser line: " + "9" * 30 + " is not a finite number",
    ),
    (
        "elapsed.jtl",
        None,
        JTL % ("UTF-8", "99999999999999999999", "1"),
        ":3: field 'elapsed_ms': value 99999999999999999999 is out of range for a 64-bit "
        "integer; fix the file",
    ),
    (
        "threads.jtl",
        None,
        JTL % ("UTF-8", "117", "2147483648"),
        ":3: field 'grp_threads': value 2147483648 is out of range for a 32-bit integer; "
        "fix the file",
    ),
    (
        "encoding.jtl",
        None,
        JTL % ("UTF99999999999999999999", "117", "1"),
        ":1: unknown encoding: UTF99999999999999999999 in the XML declaration; fix it or "
        "pass --encoding",
    ),
    (
        "commas.jtl",
        None,
        JTL_CSV + "1795316549699,42,b," + "," * 1_100_000 + "200,true\n",
        ":3: Expected Number of Columns: 5 Found: 6; not a valid JMeter CSV record (check "
        "--delimiter/--columns)",
    ),
    (
        "commas-cut.jtl",
        None,
        JTL_CSV + "1795316549699,42,b," + "," * 1_100_000 + "200,true\n17953165",
        ":3: Expected Number of Columns: 5 Found: 6; not a valid JMeter CSV record (check "
        "--delimiter/--columns)",
    ),
    (
        "c6a.metal.json",
        "profile-csv",
        '\r{\n  "system": "S",\n  "result": [[1.0]]\n}\n',
        ": field 'series': not a generic profile CSV (columns series, run, elapsed_s, ...): "
        "required column missing (found: {)"
        "; the file looks like clickbench: pass --format clickbench or leave --format out",
    ),
    (
        "bytes.csv",
        None,
        PROFILE_CSV % ("s,1,1.5," + "9" * 400),
        ":2: column 'bytes_scanned': '" + "9" * 40 + "'... (400 characters) is not a finite "
        "byte count",
    ),
    (
        "infinite.csv",
        None,
        PROFILE_CSV % "s,1,1e400,",
        ":2: column 'elapsed_s': '1e400' is not a finite duration >= 0",
    ),
    (
        "run.csv",
        None,
        PROFILE_CSV % "s,3000000000,1.5,",
        ": run 3000000000 of series 's': run 3000000000 is out of range for a 32-bit "
        "integer; fix the file",
    ),
    (
        "history.json",
        None,
        HISTORY % ("41230", "99999999999999999999"),
        ": run 1 of series 'e004ebd5b553 on unknown warehouse': bytes_scanned "
        "99999999999999999999 is out of range for a 64-bit integer; fix the file",
    ),
    (
        "bigtime.json",
        None,
        HISTORY % ("1" + "0" * 400, "1"),
        ": field 'res[0].metrics.total_time_ms': not a Databricks query-history API JSON "
        "(res[].query_id, metrics): no time",
    ),
    (
        "wide.csv",
        None,
        "QUERY_ID,TOTAL_ELAPSED_TIME,BYTES_SCANNED" + "," * 1_100_000 + "\nq1,1,1\n",
        ":1: header has 1100003 columns (at most 1000 expected); not a CSV export",
    ),
    (
        "blank-then-commas.csv",
        "iterations",
        "\n" * 571 + "," * 1_100_000 + "\n" * 1435,
        ":572: header line is longer than 1 MiB; this is not an iterations CSV",
    ),
    (
        "blank-then-wide.csv",
        "iterations",
        "\r\n" * 3 + "," * 1999 + "\nsuite,query,iteration,seconds\n",
        ":4: header has 2000 columns (at most 1000 expected); iterations input needs suite, "
        "query, iteration, seconds",
    ),
    (
        "snowflake.csv",
        None,
        SNOWFLAKE_CSV % ("1200", "1e30"),
        ": run 1 of series 'e3b0c44298fc on no warehouse Large': bytes_scanned "
        "100000000000… (31 digits) is out of range for a 64-bit integer; fix the file",
    ),
]


def _ids(value: Any) -> str:
    return value if isinstance(value, str) and "." in value and len(value) < 30 else ""


@contextlib.contextmanager
def no_hang(seconds: float = 60.0) -> Iterator[None]:
    """Fail (instead of hanging the suite) if a case runs far longer than it can."""

    def expire(signum: int, frame: Any) -> None:
        raise AssertionError(f"ingest ran longer than {seconds} s (a hang)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(("name", "format", "text", "message"), CASES, ids=_ids)
def test_fuzz_regressions_are_one_clear_line(
    tmp_path: Path, name: str, format: str | None, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    with open_store() as store:
        with pytest.raises(InputFormatError) as info, no_hang():
            ingest_file(store, path, format=format)
        for table in ("sources", "suites", *DATA_TABLES):
            assert store.con.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)
    assert str(info.value) == f"{path}{message}"


def test_long_cells_are_read_in_linear_time(tmp_path: Path) -> None:
    """Cells with a megabyte of blanks (the fuzz suite's long-line mutation): the byte-count,
    duration and time-zone patterns had adjacent optional blanks and took quadratic time."""
    blanks = " " * 1_100_000
    bad_bytes = tmp_path / "bytes.csv"
    bad_bytes.write_text(PROFILE_CSV % f"s,1,1.5,5{blanks}9.9 GB", encoding="utf-8")
    spaced = tmp_path / "spaced.csv"
    spaced.write_text(PROFILE_CSV % f"s,1,7m{blanks}48s,1 GB", encoding="utf-8")
    history = tmp_path / "history.csv"
    history.write_text(
        "QUERY_ID,TOTAL_ELAPSED_TIME,BYTES_SCANNED,START_TIME\n"
        f"q1,1200,10,2019-05-01 10:01:00.000{blanks}x\n",
        encoding="utf-8",
    )
    with open_store() as store, no_hang(20.0):
        with pytest.raises(InputFormatError) as info:
            ingest_file(store, bad_bytes)
        assert str(info.value) == (
            f"{bad_bytes}:2: column 'bytes_scanned': '5{' ' * 39}'... (1100007 characters) "
            "is not a byte count (e.g. 121700000000 or 121.7 GB)"
        )
        assert ingest_file(store, spaced).rows == 1
        assert ingest_file(store, history).rows == 1
        runs = store.con.execute(
            "SELECT elapsed_ms, bytes_scanned, start_time FROM query_runs ORDER BY elapsed_ms"
        ).fetchall()
    # 7m 48s with a megabyte of blanks inside is still 468 s; an unreadable time is unknown
    assert runs == [(1200.0, 10, None), (468_000.0, 10**9, None)]


def test_summariser_search_is_linear_on_a_long_line(tmp_path: Path) -> None:
    """A 300 kB one-line JSON read as a JMeter log: the old summariser pattern searched a
    lazy name from every blank (quadratic, 20 s+ per case in the fuzz suite). Now the
    line is scanned once and refused."""
    path = tmp_path / "profile.json"
    path.write_text('{"a": "x = 1 + 2 Avg: ' + "word " * 60_000 + '"}\n', encoding="utf-8")
    with open_store() as store, pytest.raises(InputFormatError) as info, no_hang(20.0):
        ingest_file(store, path, format="jmeter-log")
    assert str(info.value) == (
        f"{path}: no summariser lines ('summary + N in HH:MM:SS = R/s Avg: ...') found"
    )


DUCKDB_PROFILE = """{"query_name": "SELECT count(*) FROM t", "latency": 0.5, "children": [
 {"operator_type": "UNGROUPED_AGGREGATE", "operator_timing": 0.1, "children": [
  {"operator_type": "TABLE_SCAN", "operator_timing": 0.3, "extra_info": {"Table": "t"},
   "children": []}]}]}"""


def test_rows_count_every_row_stored_for_the_source(tmp_path: Path, runner: Any) -> None:
    """``rows`` means the rows stored for a file in all data tables: a DuckDB profile of one
    run and two operators is 3 rows in the result, in ``sources.rows``, in the line the CLI
    prints and in ``warmup suites`` (fuzzing found 1 against 5 stored)."""
    path = tmp_path / "profile.json"
    path.write_text(DUCKDB_PROFILE, encoding="utf-8")
    with open_store() as store:
        result = ingest_file(store, path)
        assert (result.format, result.rows) == ("duckdb-profile", 3)
        counted = [store.con.execute(f"SELECT count(*) FROM {t}").fetchone() for t in DATA_TABLES]
        assert sum(int(c[0]) for c in counted if c) == 3
        assert store.con.execute("SELECT rows FROM sources").fetchone() == (3,)
    db = tmp_path / "store.duckdb"
    done = runner.invoke(app, ["ingest", "--db", str(db), str(path)])
    assert done.exit_code == 0, done.output
    assert f"{path}: duckdb-profile, 3 rows -> " in done.stderr
    listed = runner.invoke(app, ["suites", "--db", str(db)])
    assert listed.exit_code == 0, listed.output
    (line,) = [row for row in listed.stdout.splitlines() if "duckdb" in row]
    assert line.strip(" │").split("│")[-1].strip() == "3"  # the "rows" column


def test_killed_jmeter_cut_inside_a_quoted_field_keeps_the_complete_records(
    tmp_path: Path,
) -> None:
    """JMeter killed inside a quoted multi-line field: the complete records are stored and
    the cut one is named (the strict read fails on the file's last record, so the file is read
    again skipping it)."""
    path = tmp_path / "killed.jtl"
    path.write_text(
        JTL_CSV + '1795316549700,7,"b\nwith a line break",200,true\n1795316549701,9,"c\ncut her',
        encoding="utf-8",
    )
    with open_store() as store, no_hang():
        result = ingest_file(store, path)
        labels = store.con.execute("SELECT label FROM samples ORDER BY start_ms").fetchall()
    assert (result.status, result.rows) == ("stored", 2)
    assert labels == [("a",), ("b\nwith a line break",)]
    assert result.warnings == (
        # the physical line where the cut record starts (DuckDB's record number is 4: the
        # record before it spans two lines)
        f"{path}:5: last record is incomplete (file cut at byte {path.stat().st_size}, e.g. "
        "JMeter killed); dropped it, every record before it kept",
    )


@pytest.mark.slow
def test_forced_format_works_in_a_fresh_process(tmp_path: Path) -> None:
    """``ingest_file(..., format=NAME)`` before anything imported the ingesters (the fuzz
    suite always had; a library user may not): every format is known."""
    path = tmp_path / "a.jtl"
    path.write_text(JTL_CSV, encoding="utf-8")
    code = (
        "import sys\nfrom toolkit import open_store\nfrom toolkit.ingest import ingest_file\n"
        "with open_store() as s:\n    print(ingest_file(s, sys.argv[1], format='jtl-csv').rows)"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], env=env, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout.strip()) == (0, "1"), done.stderr


@pytest.mark.slow
def test_million_delimiters_in_a_killed_jtl_are_one_line_not_hours(
    tmp_path: Path, real_dir: Path
) -> None:
    """The long profile's finding, exactly: 1.1 M commas (and a '<') after record 115 of the
    real SIGKILL'd JTL. DuckDB's rejects table stored the whole record per bad field and
    ran for hours in C code (no signal stops it: the CLI runs in a subprocess with a
    timeout); the strict reader names the record at once."""
    seed = (real_dir / "jmeter" / "generated__jmeter-5.6.3__killed-SIGKILL.csv").read_bytes()
    path = tmp_path / "killed.csv"
    path.write_bytes(seed[:11465] + b"," * 267_593 + b"<" + b"," * 832_407 + seed[11465:])
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "ingest", "--format", "jtl-csv", str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    # the physical line where the bad record starts (DuckDB's record number is 115:
    # multi-line records come before it)
    start = seed.rfind(b"\n", 0, 11465) + 1
    line = seed[:start].count(b"\n") + 1
    assert line == 134
    assert done.stderr.strip().splitlines()[-1] == (
        f"Error: {path}:{line}: Expected Number of Columns: 17 Found: 18; not a valid JMeter CSV "
        "record (check --delimiter/--columns)"
    )


@pytest.fixture(scope="module")
def damaged_gzips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two damaged ``.gz`` files: one whose first deflate block has the invalid type 3
    (``zlib.error``, not an ``OSError``: the fuzz suite's CI finding), and a JTL whose
    stream breaks three quarters in, after the 64 kB head detection reads (the streaming
    XML reader meets it mid-file: ``BadGzipFile`` or ``zlib.error``)."""
    # written once per module: the 45 tests below only read them
    tmp_path = tmp_path_factory.mktemp("damaged-gzip")
    header = gzip.compress(b"")[:10]
    first = tmp_path / "block-type.jtl.gz"
    first.write_bytes(header + b"\x07" + bytes(range(256)) * 4)
    samples = "".join(
        f'<httpSample t="{(i * 7919) % 997}" lt="1" ts="{1498080598101 + i}" s="true" '
        f'lb="x{(i * 31) % 97}" rc="200"/>\n'
        for i in range(20_000)
    )
    raw = bytearray(
        gzip.compress(
            f'<?xml version="1.0"?>\n<testResults version="1.2">\n{samples}</testResults>\n'.encode()
        )
    )
    raw[len(raw) * 3 // 4] ^= 0xFF
    late = tmp_path / "late.jtl.gz"
    late.write_bytes(bytes(raw))
    rows = "".join(
        f"{1795316549699 + i},{(i * 7919) % 997},a{i % 7},200,true\n" for i in range(20_000)
    )
    packed = gzip.compress((JTL_CSV + rows).encode())
    cut = tmp_path / "cut.jtl.gz"
    cut.write_bytes(packed[: len(packed) * 3 // 4])  # the long fuzz profile's finding
    return {"first": first, "late": late, "cut": cut}


@pytest.mark.parametrize("damage", ["first", "late", "cut"])
@pytest.mark.parametrize("format", [None, *sorted(FORMATS)])
def test_damaged_gzip_is_one_clear_line_in_every_format(
    damaged_gzips: dict[str, Path], damage: str, format: str | None
) -> None:
    """A damaged ``.gz`` under every forced format and under detection is one
    :class:`InputFormatError` naming the file, and the store holds nothing."""
    path = damaged_gzips[damage]
    with open_store() as store:
        with pytest.raises(InputFormatError) as info, no_hang():
            ingest_file(store, path, format=format)
        for table in ("sources", "suites", *DATA_TABLES):
            assert store.con.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)
    message = str(info.value)
    assert message.startswith(f"{path}") and "\n" not in message
    if damage == "first" or format in (None, "jtl-xml" if damage == "late" else "jtl-csv"):
        # DuckDB reads an iterations CSV itself and says "corrupt deflate stream"
        assert "damaged gzip file" in message or "corrupt deflate stream" in message
        if "damaged gzip file" in message:  # and what to do about it
            assert message.endswith("; test it with `gzip -t` and compress the original again")


GZIP_SEEDS = {
    "clickbench": "clickbench/jvm-engine/results/20260519/c6a.metal.json",
    "iterations": "iterations/harness.csv",
    "clickhouse-query-log": "profiles/clickhouse_query_log.jsonl",
    "databricks-history": "profiles/databricks_query_history.json",
    "snowflake-operator-stats": "profiles/snowflake_operator_stats.csv",
    "snowflake-history": "profiles/snowflake_query_history.json",
    "profile-csv": "profiles/warehouse_warmup.csv",
}


@pytest.mark.parametrize("format", sorted(FORMATS))
def test_every_format_reads_the_same_rows_gzipped(tmp_path: Path, format: str) -> None:
    """``.gz`` is accepted for every format (README, "Input formats"): a gzipped file gives
    the rows of the plain one, under detection. (The summariser log reader asked for 2**62
    bytes and failed with MemoryError; ClickBench results were not gunzipped at all.)"""
    if format in GZIP_SEEDS:
        plain = tmp_path / Path(GZIP_SEEDS[format]).name
        plain.write_bytes((ROOT / "fixtures" / GZIP_SEEDS[format]).read_bytes())
    elif format in ("jtl-csv", "jtl-xml"):
        plain = tmp_path / ("a.csv" if format == "jtl-csv" else "a.jtl")
        plain.write_text(JTL_CSV if format == "jtl-csv" else JTL % ("UTF-8", "117", "1"))
    elif format == "jmeter-log":
        plain = tmp_path / "jmeter.log"
        plain.write_text(SUMMARY % "62")
    elif format == "duckdb-profile":
        plain = tmp_path / "profile.json"
        plain.write_text(DUCKDB_PROFILE)
    elif format == "databricks-profile":
        plain = tmp_path / "dbx.json"
        plain.write_text(
            '{"query": {"id": "q1", "queryText": "SELECT 1", "metrics": {"totalTimeMs": 1200, '
            '"readBytes": 1000, "readRemoteBytes": 600, "readCacheBytes": 400}}}'
        )
    else:
        pytest.fail(f"no gzip case for format {format}: add one")
    packed = tmp_path / "packed" / (plain.name + ".gz")
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    with open_store() as store:
        expected = ingest_file(store, plain)
    with open_store() as store:
        got = ingest_file(store, packed)
    assert (got.format, got.rows) == (format, expected.rows)
    assert got.rows > 0


def test_gzipped_clickbench_result_keeps_its_machine_name(tmp_path: Path) -> None:
    result = tmp_path / "results" / "c6a.4xlarge.json.gz"
    result.parent.mkdir()
    result.write_bytes(
        gzip.compress(b'{"system": "S", "machine": "m", "result": [[1.5, 0.5, 0.25]]}')
    )
    with open_store() as store:
        assert ingest_file(store, result).format == "clickbench"
        machine = store.con.execute(
            "SELECT attributes->>'machine_file' FROM suites WHERE name LIKE 'S /%'"
        )
        assert machine.fetchall() == [("c6a.4xlarge",)]


@pytest.mark.parametrize("format", ["snowflake-history", "snowflake-operator-stats"])
def test_long_column_name_is_not_copied_into_every_row(tmp_path: Path, format: str) -> None:
    """The long profile's finding: a 1 MB header name over 2,000 rows, read as a Snowflake
    CSV export, was upper-cased once per row: 2.5 GB of copies. Each distinct name is now
    converted once; Python's allocations for the whole read stay near the file's size."""
    path = tmp_path / "export.csv"
    path.write_text("ti" + "a" * 1_000_000 + ",x\n" + "1,2\n" * 2000, encoding="utf-8")
    tracemalloc.start()
    try:
        with open_store() as store, pytest.raises(InputFormatError) as info:
            ingest_file(store, path, format=format)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "field 'QUERY_ID'" in str(info.value)
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MiB allocated"
