"""Polars' presummed read of a CSV JTL (:mod:`toolkit.ingest.jmeter_polars`) against
DuckDB's grouped read, the reader of record: on every fixture and real CSV JTL the sample
groups are the same table (the chart columns too), and on every damaged or odd record we
know a reader to take differently, ``warmup load FILE`` gives the same exit code, stdout
and stderr with Polars first as with DuckDB alone (``WARMUP_JTL_READER=duckdb``): Polars'
reading is used only where it is DuckDB's."""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolkit.ingest.jmeter_polars as jmeter_polars
from toolkit import open_store
from toolkit.cli import app
from toolkit.ingest import IngestOptions, ingest_paths
from toolkit.ingest.jmeter import JMETER_COLUMNS, LOAD_COLUMNS, REPORT_COLUMNS
from toolkit.pipeline.load import GROUPED

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "jmeter"
REAL = ROOT.parent / "shared" / "real"
HEADER = (
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
    "failureMessage,bytes,sentBytes,grpThreads,allThreads"
)
#: columns of the groups that are a reader's check, not a figure (NULL in Polars' read)
CHECK_COLUMNS = ("thread_names", "data_types")


@contextmanager
def _presummed_spy(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether each presummed read of the block was used (not None)."""
    read = jmeter_polars.presummed_samples
    used: list[bool] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        result = read(*args, **kwargs)
        used.append(result is not None)
        return result

    with monkeypatch.context() as patch:
        patch.setattr(jmeter_polars, "presummed_samples", spy)
        yield used


def _groups(
    path: Path, reader: str, monkeypatch: pytest.MonkeyPatch, *, charts: bool = False
) -> tuple[Any, bool]:
    """The sample groups the reader makes of ``path`` (column names and types, rows in
    order, the reader's check columns left out; None when the file is stored as rows)
    and whether Polars' read was used."""
    with monkeypatch.context() as patch, _presummed_spy(monkeypatch) as used:
        if reader == "duckdb":
            patch.setenv(jmeter_polars.READER_VARIABLE, "duckdb")
        else:
            patch.delenv(jmeter_polars.READER_VARIABLE, raising=False)
        with open_store() as store:
            options = IngestOptions(
                sample_columns=REPORT_COLUMNS if charts else LOAD_COLUMNS,
                group_window_ms=1000,
                group_charts=charts,
            )
            ingest_paths(store, [path], options=options)
            grouped = GROUPED.get(store, {})
            if not grouped:
                return None, any(used)
            (table,) = [g.table for g in grouped.values()]
            described = store.con.execute(f"DESCRIBE {table}").fetchall()
            columns = [(name, kind) for name, kind, *_ in described if name not in CHECK_COLUMNS]
            names = ", ".join(f'"{name}"' for name, _ in columns)
            rows = store.con.execute(f"SELECT {names} FROM {table} ORDER BY ALL").fetchall()
            return (columns, rows), any(used)


def _csv_jtls() -> list[Any]:
    """Every fixture CSV JTL (gzip ones decompressed by the test: Polars reads only
    uncompressed files) and every real one where ``../shared/real`` is present."""
    found = [p for p in sorted(FIXTURES.rglob("*")) if p.is_file() and _is_csv(p)]
    if (REAL / "jmeter").is_dir():
        found += [
            p
            for folder in ("jmeter", "jmeter-runs")
            for p in sorted((REAL / folder).rglob("*"))
            if p.is_file() and _is_csv(p)
        ]
    return [pytest.param(p, id=p.name) for p in found]


def _is_csv(path: Path) -> bool:
    if path.name.endswith((".md", ".json", ".log", ".jmx", ".properties", ".txt", ".xml")):
        return False
    opener: Any = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as handle:
        head = handle.read(64).lstrip(b"\xef\xbb\xbf")
    return not head.startswith((b"<", b"\x1f\x8b")) and bool(head.strip())


def _plain(path: Path, tmp_path: Path) -> Path:
    if not path.name.endswith(".gz"):
        return path
    plain = tmp_path / path.name.removesuffix(".gz")
    with gzip.open(path, "rb") as packed, plain.open("wb") as out:
        shutil.copyfileobj(packed, out)
    return plain


@pytest.mark.parametrize("path", _csv_jtls())
def test_polars_groups_equal_duckdbs_on_real_and_fixture_jtls(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _plain(path, tmp_path)
    for charts in (False, True):
        expected, _ = _groups(plain, "duckdb", monkeypatch, charts=charts)
        got, _ = _groups(plain, "auto", monkeypatch, charts=charts)
        assert got == expected


def test_polars_reads_the_recorded_fixtures_and_real_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Polars read is not a dead path: every fixture recorded from a real JMeter run
    here (a-..g-) and generated one is read by it, and so is each real JMeter 5.6.3 run
    of ``../shared/real/jmeter-runs`` where present."""
    recorded = sorted(FIXTURES.rglob("[a-g]-*.jtl.gz")) + sorted(FIXTURES.glob("*.jtl.gz"))
    assert len(recorded) >= 8
    real_runs = REAL / "jmeter-runs"
    if real_runs.is_dir():
        recorded += sorted(real_runs.rglob("*.jtl.gz"))
    for path in recorded:
        grouped, used = _groups(_plain(path, tmp_path), "auto", monkeypatch)
        assert grouped is not None and used, path.name


def _jtl(tmp_path: Path, odd: str | bytes, *, name: str = "odd.csv") -> Path:
    """A clean 400-sample CSV JTL with ``odd`` (one or more lines) as its 200th line."""
    lines = [
        f"{1_790_000_000_000 + i * 100},{40 if i < 50 else 20},req{i % 3},"
        f"{500 if i % 37 == 0 else 200},{'Server Error' if i % 37 == 0 else 'OK'},"
        f"tg 1-{i % 4},text,{'false' if i % 37 == 0 else 'true'},,100,50,4,4\n"
        for i in range(400)
    ]
    data = (HEADER + "\n" + "".join(lines[:200])).encode()
    data += odd if isinstance(odd, bytes) else odd.encode()
    data += "".join(lines[200:]).encode()
    path = tmp_path / name
    path.write_bytes(data)
    return path


_T = "1790000020000"
#: one record (or line) each that some reader takes otherwise than a clean one
ODD_RECORDS = {
    "clean": f"{_T},20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "quoted empty label": f'{_T},20,"",200,OK,tg 1-1,text,true,,100,50,4,4\n',
    "quoted quote": f'{_T},20,"a""b",200,OK,tg 1-1,text,true,,100,50,4,4\n',
    "short record": f"{_T},20,req0,200,OK,tg 1-1,text,true\n",
    "long record": f"{_T},20,req0,200,OK,tg 1-1,text,true,,100,50,4,4,9\n",
    "blank line": "\n",
    "quote inside a field": f'{_T},20,re"q,200,OK,tg 1-1,text,true,,100,50,4,4\n',
    "invalid UTF-8": f"{_T},20,req0,200,OK,tg 1-1".encode() + b"\xff,text,true,,100,50,4,4\n",
    "CRLF line": f"{_T},20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\r\n",
    "lone CR": f"{_T},20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\r{_T},20,req0,200,OK,"
    "tg 1-1,text,true,,100,50,4,4\n",
    "space before a number": f"{_T}, 20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "tab after a number": f"{_T},20\t,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "decimal elapsed": f"{_T},20.0,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "underscore in a number": f"{_T},2_0,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "hex number": f"{_T},0x14,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "plus sign": f"{_T},+20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "quoted number": f'{_T},"20",req0,200,OK,tg 1-1,text,true,,100,50,4,4\n',
    "success t": f"{_T},20,req0,200,OK,tg 1-1,text,t,,100,50,4,4\n",
    "success 1": f"{_T},20,req0,200,OK,tg 1-1,text,1,,100,50,4,4\n",
    "success TRUE": f"{_T},20,req0,200,OK,tg 1-1,text,TRUE,,100,50,4,4\n",
    "success with a space": f"{_T},20,req0,200,OK,tg 1-1,text,true ,,100,50,4,4\n",
    "empty success": f"{_T},20,req0,200,OK,tg 1-1,text,,,100,50,4,4\n",
    "empty elapsed": f"{_T},,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "empty timeStamp": ",20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "empty thread counts": f"{_T},20,req0,200,OK,tg 1-1,text,true,,100,50,,\n",
    "negative elapsed": f"{_T},-20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "earliest start": "1789999999000,20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "number past 64 bits": f"{_T},20,req0,200,OK,tg 1-1,text,true,,99999999999999999999,50,4,4\n",
    "sum past 64 bits": f"{_T},20,req0,200,OK,tg 1-1,text,true,,9000000000000000000,50,4,4\n"
    f"{_T},20,req0,200,OK,tg 1-1,text,true,,9000000000000000000,50,4,4\n",
    "least 64-bit number": f"{_T},20,req0,200,OK,tg 1-1,text,true,,-9223372036854775808,50,4,4\n"
    f"{_T},20,req0,200,OK,tg 1-1,text,true,,-9223372036854775808,50,4,4\n",
    "start near 2^63": "9223372036854775000,20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "elapsed near 2^63": f"{_T},9223372036854775000,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "start far back": "-9223372036854775000,20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "least 64-bit start": "-9223372036854775808,20,req0,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "thread count past 32 bits": f"{_T},20,req0,200,OK,tg 1-1,text,true,,100,50,4,3000000000\n",
    "newline in a quoted label": f'{_T},20,"re\nq",200,OK,tg 1-1,text,true,,100,50,4,4\n',
    "NUL in a label": f"{_T},20,re\x00q,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "byte-order mark in a label": f"{_T},20,\ufeffreq,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "space around a label": f"{_T},20, req0 ,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "space after a quoted label": f'{_T},20,"req0" ,200,OK,tg 1-1,text,true,,100,50,4,4\n',
    "unterminated quote": f'{_T},20,"req0,200,OK,tg 1-1,text,true,,100,50,4,4\n',
    "label ALL": f"{_T},20,ALL,200,OK,tg 1-1,text,true,,100,50,4,4\n",
    "transaction message": f"{_T},20,tx,200,Number of samples in transaction : 2, number of "
    "failing samples : 0,tg 1-1,text,true,,100,50,4,4\n",
    "error with a failure message": f"{_T},20,req0,200,OK,tg 1-1,text,false,boom,100,50,4,4\n",
    "error without a code": f"{_T},20,req0,,,tg 1-1,text,false,Non HTTP response,100,50,4,4\n",
}


@pytest.mark.parametrize("odd", list(ODD_RECORDS), ids=list(ODD_RECORDS))
def test_load_file_is_the_same_with_polars_first_on_odd_records(
    odd: str, runner: CliRunner, tmp_path: Path
) -> None:
    path = _jtl(tmp_path, ODD_RECORDS[odd])
    duck = runner.invoke(
        app, ["load", str(path), "--json"], env={jmeter_polars.READER_VARIABLE: "duckdb"}
    )
    first = runner.invoke(app, ["load", str(path), "--json"], env={})
    assert (first.exit_code, first.stdout, first.stderr) == (
        duck.exit_code,
        duck.stdout,
        duck.stderr,
    )


@pytest.mark.parametrize(
    ("odd", "vouched"),
    [
        ("clean", True),
        ("quoted empty label", False),
        ("short record", False),
        ("blank line", False),
        ("CRLF line", False),
        ("negative elapsed", False),
        ("sum past 64 bits", False),
        ("least 64-bit number", False),
        ("decimal elapsed", False),
        ("empty timeStamp", False),
    ],
)
def test_polars_leaves_to_duckdb_what_it_would_read_otherwise(
    odd: str, vouched: bool, tmp_path: Path
) -> None:
    """Each record Polars reads without error but otherwise than DuckDB (or errs on)
    makes the presummed read step aside; a clean file is read by it."""
    path = _jtl(tmp_path, ODD_RECORDS[odd])
    types = dict.fromkeys(HEADER.split(","), "VARCHAR")
    types |= {"timeStamp": "BIGINT", "elapsed": "BIGINT", "success": "BOOLEAN"}
    types |= {"bytes": "BIGINT", "sentBytes": "BIGINT"}
    types |= {"grpThreads": "INTEGER", "allThreads": "INTEGER"}
    read = jmeter_polars.presummed_samples(
        path,
        delimiter=",",
        has_header=True,
        types=types,
        t0=1_790_000_000_000,
        window_ms=1000,
        charts=False,
    )
    assert (read is not None) == vouched
    if read is not None:
        assert int(read.frame["n"].sum()) == 401 and read.first == 1_790_000_000_000


def test_a_signal_during_the_polars_read_is_taken_at_once() -> None:
    """A signal's handler runs while Polars still reads (a collect in the main thread
    would hold it until the read is done), in the main thread, which waits while a worker
    reads; the read ends by itself and Polars reads again. The read here is a query whose
    last step takes 1 s; the signal comes at 0.1 s."""
    import signal
    import threading
    import time

    import polars as pl

    ended: list[bool] = []
    threads: list[threading.Thread] = []
    at_signal: list[list[bool]] = []

    def slow(frame: pl.DataFrame) -> pl.DataFrame:
        threads.append(threading.current_thread())
        time.sleep(1)
        ended.append(True)
        return frame

    class Alarm(Exception):
        pass

    def alarm(signum: int, frame: object) -> None:
        at_signal.append(list(ended))
        raise Alarm

    previous = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        with pytest.raises(Alarm):
            jmeter_polars._collected(pl.LazyFrame({"x": [1, 2, 3]}).map_batches(slow))
        assert at_signal == [[]]  # the handler ran before the read's end
        assert threads and threads[0] is not threading.main_thread()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    time.sleep(1.2)  # past the abandoned read's end
    assert ended == [True]
    query = pl.LazyFrame({"x": [1, 2]}).select(pl.col("x").sum())
    assert jmeter_polars._collected(query).item() == 3


def test_the_polars_read_shows_its_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large file read by Polars shows the progress bar as DuckDB's read does: at its
    start (Polars does not say how far it is) and at its end."""
    from toolkit.ingest.registry import PROGRESS_MIN_BYTES
    from toolkit.synthetic import write_jtl

    path = tmp_path / "large.csv"
    write_jtl(path, 40_000, duration_s=20.0, warmup_s=5.0, seed=3)
    assert path.stat().st_size >= PROGRESS_MIN_BYTES
    seen: list[tuple[str, float]] = []
    options = IngestOptions(
        sample_columns=LOAD_COLUMNS,
        group_window_ms=1000,
        progress=lambda file, fraction: seen.append((file.name, fraction)),
    )
    with _presummed_spy(monkeypatch) as used, open_store() as store:
        ingest_paths(store, [path], options=options)
        assert GROUPED.get(store)
    assert used == [True]
    assert seen == [("large.csv", 0.0), ("large.csv", 1.0)]


#: every column JMeter can write, in its order
ALL_COLUMNS = list(JMETER_COLUMNS)


def _value(column: str, i: int) -> str:
    failed = i % 37 == 0
    elapsed = 20 + (i * 7) % 50
    values = {
        "timeStamp": str(1_790_000_000_000 + i * 50),
        "elapsed": str(elapsed),
        "label": f"req{i % 3}",
        "responseCode": "500" if failed else "200",
        "responseMessage": "Server Error" if failed else "OK",
        "threadName": f"tg 1-{i % 4}",
        "dataType": "text",
        "success": "false" if failed else "true",
        "failureMessage": "boom" if failed else "",
        "bytes": str(100 + i % 10),
        "sentBytes": "50",
        "grpThreads": str(1 + i // 1000),
        "allThreads": str(1 + i // 1000),
        "URL": f"http://host/p{i % 3}",
        "Filename": "",
        "Latency": str(elapsed - 5),
        "Encoding": "UTF-8",
        "SampleCount": "1",
        "ErrorCount": "1" if failed else "0",
        "Hostname": f"lg{i % 2}",
        "IdleTime": "0",
        "Connect": str(i % 3),
    }
    return values.get(column, f"user{i % 5}")  # a sample variable


#: layouts JMeter writes (columns, delimiter, header line), each read by Polars first
LAYOUTS = {
    "default 17 columns": ([*ALL_COLUMNS[:14], "Latency", "IdleTime", "Connect"], ",", True),
    "every column": (ALL_COLUMNS, ",", True),
    "every column, tabs": (ALL_COLUMNS, "\t", True),
    "default columns, semicolons, no header": (
        [*ALL_COLUMNS[:14], "Latency", "IdleTime", "Connect"],
        ";",
        False,
    ),
    "two load generators": ([*ALL_COLUMNS[:13], "Hostname"], ",", True),
    "sample variables": ([*ALL_COLUMNS[:13], "user", "region"], ",", True),
    "thread groups only": (ALL_COLUMNS[:12], ",", True),
}


@pytest.mark.parametrize("layout", list(LAYOUTS), ids=list(LAYOUTS))
def test_polars_reads_every_layout_as_duckdb_does(
    layout: str, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    columns, delimiter, header = LAYOUTS[layout]
    # JMeter quotes a sample variable's name in the header
    names = [c if c in ALL_COLUMNS else f'"{c}"' for c in columns]
    lines = [delimiter.join(names)] if header else []
    lines += [delimiter.join(_value(c, i) for c in columns) for i in range(3_000)]
    path = tmp_path / "layout.jtl"
    path.write_text("\n".join(lines) + "\n")
    for charts in (False, True):
        expected, _ = _groups(path, "duckdb", monkeypatch, charts=charts)
        got, used = _groups(path, "auto", monkeypatch, charts=charts)
        assert expected is not None and used and got == expected
    duck = runner.invoke(
        app, ["load", str(path), "--json"], env={jmeter_polars.READER_VARIABLE: "duckdb"}
    )
    first = runner.invoke(app, ["load", str(path), "--json"], env={})
    assert duck.exit_code == 0, duck.stderr
    assert (first.exit_code, first.stdout, first.stderr) == (0, duck.stdout, duck.stderr)
