"""``warmup load FILE`` reads a plain CSV JTL straight into the load analysis's sample
groups, storing no row (issue 20 item 3): its output must be byte for byte that of the
file stored (``warmup ingest`` + ``warmup load --db``), and every file whose analysis needs
the rows themselves must still be stored. The equality on every fixture and real JTL is
``test_load_one_pass.py``'s; here: that the groups are really what is read, each reason
to store rows, the first start found late, the options that shape the groups, and the
errors a store would give."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolkit import Store, open_store
from toolkit.cli import app
from toolkit.errors import UsageError
from toolkit.ingest import IngestOptions, ingest_paths
from toolkit.ingest.jmeter import LOAD_COLUMNS, REPORT_COLUMNS
from toolkit.pipeline.load import GROUPED, load_report
from toolkit.synthetic import write_jtl

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "jmeter"
HEADER = (
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
    "failureMessage,bytes,sentBytes,grpThreads,allThreads"
)


def _grouped_read(path: Path, window_ms: int = 1000) -> tuple[bool, int]:
    """Whether ``path`` was read into sample groups, and the rows stored."""
    with open_store() as store:
        ingest_paths(
            store,
            [path],
            options=IngestOptions(sample_columns=LOAD_COLUMNS, group_window_ms=window_ms),
        )
        ((rows,),) = store.con.execute("SELECT count(*) FROM samples").fetchall()
        return bool(GROUPED.get(store)), int(rows)


def _same_as_store(runner: CliRunner, tmp_path: Path, path: Path, *options: str) -> str:
    """``warmup load FILE OPTIONS --json`` against ``warmup ingest --db`` + ``warmup load
    --db OPTIONS --json``: the same exit code, stdout and warnings; returns stdout."""
    one = runner.invoke(app, ["load", str(path), *options, "--json"])
    db = tmp_path / f"{path.name}.duckdb"
    ingested = runner.invoke(app, ["ingest", "--db", str(db), str(path)])
    assert ingested.exit_code == 0, ingested.stderr
    stored = runner.invoke(app, ["load", "--db", str(db), *options, "--json"])
    assert (one.exit_code, one.stdout) == (stored.exit_code, stored.stdout), (
        one.stderr,
        stored.stderr,
    )
    warnings = [line for line in ingested.stderr.splitlines() if "warning" in line]
    assert warnings == [line for line in one.stderr.splitlines() if "warning" in line]
    return one.stdout


@pytest.fixture
def grouped(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What each CSV JTL read in the test answered to "grouped, no row stored?"."""
    import toolkit.ingest.jmeter as jmeter

    read = jmeter._read_grouped
    answers: list[bool] = []

    def spy(*args: object, **kwargs: object) -> bool:
        answers.append(read(*args, **kwargs))  # type: ignore[arg-type]
        return answers[-1]

    monkeypatch.setattr(jmeter, "_read_grouped", spy)
    return answers


def _rows(n: int, *, t0: int = 1_790_000_000_000, label: str = "req") -> list[str]:
    """``n`` CSV rows of one thread group of 4 threads, one sample every 100 ms, 20 ms
    each after a 40 ms warm-up of 50 samples, 1 in 37 failed."""
    return [
        f"{t0 + i * 100},{40 if i < 50 else 20},{label},{500 if i % 37 == 0 else 200},"
        f"{'Internal Server Error' if i % 37 == 0 else 'OK'},tg 1-{i % 4},text,"
        f"{'false' if i % 37 == 0 else 'true'},,100,50,4,4"
        for i in range(n)
    ]


def _write(path: Path, lines: list[str], *, header: str = HEADER, end: str = "\n") -> Path:
    path.write_text("\n".join([header, *lines]) + end)
    return path


def test_a_plain_csv_jtl_is_grouped_and_stores_no_row(tmp_path: Path) -> None:
    """A generated run (thread counts, no transaction or sub-result) leaves no row in the
    scratch store, only its groups; the analysis of those equals the analysis of the
    rows stored, and the groups hold every sample."""
    jtl = tmp_path / "run.jtl"
    write_jtl(jtl, 3_000, duration_s=60.0, warmup_s=10.0, seed=1)
    with open_store() as store:
        options = IngestOptions(sample_columns=LOAD_COLUMNS, group_window_ms=1000)
        ingest_paths(store, [jtl], options=options)
        assert store.con.execute("SELECT count(*) FROM samples").fetchall() == [(0,)]
        (grouped,) = GROUPED[store].values()
        ((n, groups),) = store.con.execute(
            f"SELECT sum(n), count(*) FROM {grouped.table}"
        ).fetchall()
        assert n == 3_000 and groups < 3_000
        from_groups = load_report(store)
    with open_store() as store:
        ingest_paths(store, [jtl])
        assert load_report(store) == from_groups


def test_generated_real_shapes_are_grouped() -> None:
    """The fixture runs of the generator (gz, a warm-up, a ramp, a flat run) are read
    into groups (the same bytes as a store: test_load_one_pass)."""
    for name in ("baseline.jtl.gz", "a-server-warmup.jtl.gz", "b-thread-ramp.jtl.gz"):
        path = next(FIXTURES.rglob(name))
        assert _grouped_read(path) == (True, 0), name


TC = '"Number of samples in transaction : 1, number of failing samples : 0"'


def _needs_rows(tmp_path: Path, case: str) -> Path:
    """A CSV JTL whose analysis needs its rows, for the reason ``case``."""
    path = tmp_path / f"{case}.csv"
    rows = _rows(400)
    if case == "transaction":
        rows += [f"1790000000000,25,TC,200,{TC},tg 1-1,,true,,100,50,4,4"]
    elif case == "sub-result":
        # a parent and its sub-results, same thread, inside its time
        rows += [
            "1790000010000,30,page,200,OK,tg 1-1,text,true,,100,50,4,4",
            "1790000010001,10,page-0,200,OK,tg 1-1,text,true,,100,50,4,4",
            "1790000010011,10,page-1,200,OK,tg 1-1,text,true,,100,50,4,4",
        ]
    elif case == "no-thread-counts":
        return _write(path, [r.rsplit(",", 2)[0] for r in rows], header=HEADER.rsplit(",", 2)[0])
    elif case == "longer-than-a-day":
        rows += ["1000,5,req,200,OK,tg 1-1,text,true,,100,50,4,4"]
    elif case == "a-label-named-ALL":
        rows += _rows(10, label="ALL")
    elif case == "cut-last-record":
        return _write(path, rows, end="")
    return _write(path, rows)


CASES = (
    "transaction", "sub-result", "no-thread-counts", "longer-than-a-day",
    "a-label-named-ALL", "cut-last-record",
)  # fmt: skip


@pytest.mark.parametrize("case", CASES)
@pytest.mark.slow
def test_a_file_whose_analysis_needs_rows_is_stored(
    case: str, runner: CliRunner, tmp_path: Path
) -> None:
    """Transaction-controller and sub-result rows (flagged by row order), no thread counts
    (threads from thread names), more than a day (time fences), a label ALL (renamed)
    and a cut last record (dropped) need the rows: stored, and the output that of a
    store. The same file without the reason is grouped."""
    path = _needs_rows(tmp_path, case)
    grouped, rows = _grouped_read(path)
    assert not grouped and 390 <= rows <= 420
    _same_as_store(runner, tmp_path, path)
    assert _grouped_read(_write(tmp_path / "plain.csv", _rows(400))) == (True, 0)


def test_a_suite_joined_from_files_is_stored(tmp_path: Path) -> None:
    """``--suite NAME`` joins files into one suite: rows, as a suite of several sources."""
    path = _write(tmp_path / "run.csv", _rows(400))
    with open_store() as store:
        options = IngestOptions(sample_columns=LOAD_COLUMNS, group_window_ms=1000, suite="joined")
        ingest_paths(store, [path], options=options)
        assert not GROUPED.get(store)
        assert store.con.execute("SELECT count(*) FROM samples").fetchall() == [(400,)]


@pytest.mark.slow
def test_a_first_start_found_late_groups_the_file_again(runner: CliRunner, tmp_path: Path) -> None:
    """The windows count from the first sample start, taken from the file's first 65,536
    rows; a long sample that started earlier and is written later (JMeter writes a
    sample when it ends) moves every window: the file is grouped again from the true
    start, and the output is that of a store, whose windows start there too."""
    rows = _rows(70_000, t0=1_790_000_001_000)
    # started 700 ms before every other sample, ended 4.3 s after the first: written late
    rows.insert(66_000, "1790000000300,5000,slow,200,OK,tg 1-9,text,true,,100,50,4,4")
    path = _write(tmp_path / "late.csv", rows)
    with open_store() as store:
        ingest_paths(
            store, [path], options=IngestOptions(sample_columns=LOAD_COLUMNS, group_window_ms=1000)
        )
        (grouped,) = GROUPED[store].values()
        assert grouped.t0 == 1_790_000_000_300
    out = _same_as_store(runner, tmp_path, path)
    assert '"start_ms": 1790000000300' in out


@pytest.mark.parametrize(
    "options",
    [
        ("--load-window", "5s"),
        ("--load-window", "250ms"),
        ("--apdex-per-label", "req=30:60"),
        ("--steady-from", "10", "--steady-to", "30"),
    ],
    ids=["5s", "250ms", "apdex-per-label", "steady-bounds"],
)
def test_options_that_shape_the_groups_give_a_stores_output(
    options: tuple[str, ...], runner: CliRunner, tmp_path: Path
) -> None:
    """Windows of another length (the groups are made for them), per-label APDEX
    thresholds and the user's steady bounds, read from groups, equal a store's."""
    path = _write(tmp_path / "run.csv", _rows(600))
    _same_as_store(runner, tmp_path, path, *options)


def test_groups_of_other_windows_are_refused(tmp_path: Path) -> None:
    """A library caller that groups a file by one window and analyses it by another is
    told so (the rows are not there to group again)."""
    path = _write(tmp_path / "run.csv", _rows(600))
    with open_store() as store:
        options = IngestOptions(sample_columns=LOAD_COLUMNS, group_window_ms=1000)
        ingest_paths(store, [path], options=options)
        with pytest.raises(UsageError, match="windows of 1000 ms"):
            load_report(store, window_s=5.0)


@pytest.mark.parametrize("column", ["threadName", "dataType", "responseMessage"])
def test_the_grouped_read_checks_every_column_a_store_holds(
    column: str, runner: CliRunner, tmp_path: Path
) -> None:
    """Text the analysis does not group by (thread name, data type) is still read and
    checked: invalid UTF-8 in any stored column is the store's one-line error, exit 1."""
    values = {"threadName": "tg 1-1", "dataType": "text", "responseMessage": "OK"}
    rows = _rows(3_000)
    at = HEADER.split(",").index(column)
    fields = rows[1_500].split(",")
    assert fields[at] == values[column] or column == "threadName"
    fields[at] = "bad\udcff"
    rows[1_500] = ",".join(fields)
    path = tmp_path / "bad.csv"
    path.write_bytes(("\n".join([HEADER, *rows]) + "\n").encode("utf-8", "surrogateescape"))
    one = runner.invoke(app, ["load", str(path), "--json"])
    db = tmp_path / "store.duckdb"
    ingested = runner.invoke(app, ["ingest", "--db", str(db), str(path)])
    assert one.exit_code == ingested.exit_code == 1
    assert "record 1502: text is not valid UTF-8" in one.stderr  # line 1,502 of the file
    assert one.stderr.strip().splitlines()[-1] == ingested.stderr.strip().splitlines()[-1]


@pytest.mark.slow
def test_negative_elapsed_times_are_warned_of_as_a_store_does(
    runner: CliRunner, tmp_path: Path
) -> None:
    """The warning of samples with a negative elapsed time comes from the groups: the
    same line as the ingest's."""
    rows = _rows(600)
    rows[300] = rows[300].replace(",20,req,", ",-3,req,", 1)
    path = _write(tmp_path / "neg.csv", rows)
    assert _grouped_read(path) == (True, 0)
    one = runner.invoke(app, ["load", str(path), "--json"])
    assert "1 samples have a negative elapsed time" in one.stderr
    _same_as_store(runner, tmp_path, path)


def test_a_gzip_jtl_is_grouped(runner: CliRunner, tmp_path: Path) -> None:
    """A .gz (no last-byte check possible before reading) is grouped too."""
    path = tmp_path / "run.csv.gz"
    path.write_bytes(gzip.compress(("\n".join([HEADER, *_rows(600)]) + "\n").encode()))
    assert _grouped_read(path) == (True, 0)
    _same_as_store(runner, tmp_path, path)


@pytest.mark.slow
def test_compare_of_two_files_groups_both(
    runner: CliRunner, tmp_path: Path, grouped: list[bool]
) -> None:
    """``warmup compare A B`` without ``--db`` reads each plain CSV JTL into groups too
    (its steady series are sums over them): no row stored, and the output that of the
    two files stored."""
    a = _write(tmp_path / "a.csv", _rows(900))
    b = _write(tmp_path / "b.csv", [r.replace(",20,req,", ",24,req,") for r in _rows(900)])
    one = runner.invoke(app, ["compare", str(a), str(b), "--json"])
    assert one.exit_code == 0, one.stderr
    assert grouped == [True, True]
    db = tmp_path / "store.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), str(a), str(b)]).exit_code == 0
    stored = runner.invoke(app, ["compare", "--db", str(db), "a", "b", "--json"])
    assert one.stdout == stored.stdout


@pytest.mark.slow
def test_a_grouped_jtl_and_its_runs_logs_are_one_suite(
    runner: CliRunner, tmp_path: Path, grouped: list[bool]
) -> None:
    """A console log and a jmeter.log of the JTL's run join the JTL's suite when the JTL
    is read into groups (its count and first start come from them): one suite, with the
    logs' summary, the output of the three files stored."""
    import json

    folder = FIXTURES / "recorded_warmup"
    files = [str(folder / f"c-ramp-think{x}") for x in (".console.txt", ".jtl.gz", ".jmeter.log")]
    one = runner.invoke(app, ["load", *files, "--json"])
    assert one.exit_code == 0, one.stderr
    assert grouped == [True]
    (suite,) = json.loads(one.stdout)["suites"]
    assert suite["suite"] == "c-ramp-think" and suite["logs"]["samples"] > 0
    db = tmp_path / "store.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), *files]).exit_code == 0
    stored = runner.invoke(app, ["load", "--db", str(db), "--json"])
    assert one.stdout == stored.stdout


def test_charts_of_a_suite_grouped_without_their_columns_are_refused(tmp_path: Path) -> None:
    """The report's charts need the chart columns in the groups (``group_charts``) and
    chart windows of whole groups: a library caller asking them of a suite read into
    other groups is told so, instead of getting empty or wrong charts."""
    from toolkit.pipeline.load import dashboard_charts, window_series

    path = _write(tmp_path / "run.csv", _rows(600))
    with open_store() as store:
        options = IngestOptions(sample_columns=LOAD_COLUMNS, group_window_ms=1000)
        ingest_paths(store, [path], options=options)
        ((suite_id,),) = store.con.execute("SELECT suite_id FROM suites").fetchall()
        with pytest.raises(UsageError, match="without the chart columns"):
            window_series(store, suite_id)
        with pytest.raises(UsageError, match="without the chart columns"):
            dashboard_charts(store, suite_id, window_s=1.0, labels=["ALL"])
    with open_store() as store:
        options = IngestOptions(
            sample_columns=REPORT_COLUMNS, group_window_ms=2000, group_charts=True
        )
        ingest_paths(store, [path], options=options)
        ((suite_id,),) = store.con.execute("SELECT suite_id FROM suites").fetchall()
        window_series(store, suite_id, window_s=4.0)  # whole groups: drawn
        with pytest.raises(UsageError, match="not whole groups"):
            window_series(store, suite_id, window_s=5.0)


def _charts(store: Store, window_s: float) -> dict[str, Any]:
    """Every chart aggregate of the store's one suite at ``window_s``: ALL's and each
    label's window series and JMeter's dashboard charts."""
    from toolkit.pipeline.load import ALL, dashboard_charts, window_series_by_label

    ((suite_id,),) = store.con.execute("SELECT suite_id FROM suites").fetchall()
    labels = [ALL, *load_report(store)["suites"][0]["labels"]]
    names = sorted({lab if isinstance(lab, str) else lab["label"] for lab in labels})
    series = window_series_by_label(store, suite_id, names, window_s=window_s)
    return {
        "series": {k: v.to_dicts() for k, v in series.items()},
        "charts": dashboard_charts(store, suite_id, window_s=window_s, labels=names),
    }


@pytest.mark.parametrize(
    "name", ["baseline.jtl.gz", "candidate.jtl.gz", "a-server-warmup.jtl.gz", "generated"]
)
@pytest.mark.slow
def test_charts_from_the_readers_groups_equal_charts_from_rows(name: str, tmp_path: Path) -> None:
    """``warmup report FILE`` reads a CSV JTL into groups with the chart columns: every
    chart aggregate (throughput and percentile series, response codes, bytes, latency and
    connect means, the distribution, the percentile curve, time vs threads) at the
    analysis window and at 2 and 5 of them equals the one computed from the stored rows.
    The generated run has response codes other than 200, errors and thread ramps."""
    if name == "generated":
        path = tmp_path / "run.jtl"
        write_jtl(path, 6_000, duration_s=120.0, warmup_s=20.0, seed=3, error_rate=0.05)
    else:
        path = next(FIXTURES.rglob(name))
    with open_store() as store:
        options = IngestOptions(
            sample_columns=REPORT_COLUMNS, group_window_ms=1000, group_charts=True
        )
        ingest_paths(store, [path], options=options)
        assert store.con.execute("SELECT count(*) FROM samples").fetchall() == [(0,)]
        assert [g.charts for g in GROUPED[store].values()] == [True]
        grouped = [_charts(store, w) for w in (1.0, 2.0, 5.0)]
    with open_store() as store:
        ingest_paths(store, [path], options=IngestOptions(sample_columns=REPORT_COLUMNS))
        assert store.con.execute("SELECT count(*) FROM samples").fetchall() != [(0,)]
        stored = [_charts(store, w) for w in (1.0, 2.0, 5.0)]
    assert grouped == stored
    assert grouped[0]["charts"]["codes"] and grouped[0]["series"]["ALL"]


@pytest.mark.slow
def test_report_file_equals_report_of_a_store(
    runner: CliRunner, tmp_path: Path, grouped: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``warmup report FILE`` reads a plain CSV JTL into groups (no row stored) and writes
    byte for byte the report of the file stored (``ingest --db`` + ``report --db``),
    charts, tables, findings and the provenance's row count included."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    path = tmp_path / "run.jtl"
    write_jtl(path, 8_000, duration_s=200.0, warmup_s=40.0, seed=5, error_rate=0.02)
    one = runner.invoke(app, ["report", str(path), "-o", str(tmp_path / "one.html")])
    assert one.exit_code == 0, one.stderr
    assert grouped == [True]
    db = tmp_path / "store.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), str(path)]).exit_code == 0
    stored = runner.invoke(app, ["report", "--db", str(db), "-o", str(tmp_path / "db.html")])
    assert stored.exit_code == 0, stored.stderr
    html = (tmp_path / "one.html").read_text()
    assert html == (tmp_path / "db.html").read_text()
    assert ">8,000<" in html  # the input's rows, though none was stored


@pytest.mark.slow
def test_findings_file_reads_groups_at_the_configured_load_window(
    runner: CliRunner, tmp_path: Path, grouped: list[bool]
) -> None:
    """``warmup findings FILE`` reads a plain CSV JTL into groups, at the config's load
    window as ``warmup report`` does (it read 1 s windows whatever the config said), and
    finds what the store's findings find at that window."""
    path = tmp_path / "run.jtl"
    write_jtl(path, 6_000, duration_s=120.0, warmup_s=30.0, seed=2)
    config = tmp_path / "warmup.toml"
    config.write_text('[tool.warmup]\nload_window = "5s"\n')
    one = runner.invoke(app, ["findings", str(path), "--config", str(config), "--json"])
    assert one.exit_code == 0, one.stderr
    assert grouped == [True]
    db = tmp_path / "store.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), str(path)]).exit_code == 0
    stored = runner.invoke(app, ["findings", "--db", str(db), "--config", str(config), "--json"])
    assert one.stdout == stored.stdout
    (warmup,) = [f for f in json.loads(one.stdout)["findings"] if f["rule"] == "load-warmup"]
    assert warmup["numbers"]["warmup_end_s"] % 5 == 0  # 30 s: whole 5 s windows
    default = runner.invoke(app, ["findings", "--db", str(db), "--json"])
    assert one.stdout != default.stdout  # 1 s windows: 26 s


@pytest.mark.parametrize("reader", ["duckdb", "polars"])
def test_a_file_that_keeps_changing_under_the_reader_is_stored(
    reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file given an earlier first start by every read (written to as it is read) is
    not grouped with windows from a start it does not have: its rows are stored. Each
    reader's grouping read is hooked: DuckDB's statement, Polars' presummed read."""
    import toolkit.ingest.jmeter as jmeter
    import toolkit.ingest.jmeter_polars as jmeter_polars
    from toolkit.ingest.registry import run_with_progress

    path = _write(tmp_path / "growing.csv", _rows(400, t0=1_790_000_010_000))
    earlier = [1_790_000_009_000]

    def append() -> None:
        earlier[0] -= 100
        with path.open("a") as out:
            out.write(f"{earlier[0]},5000,slow,200,OK,tg 1-9,text,true,,100,50,4,4\n")

    def appending(con: object, sql: str, *args: object, **kwargs: object) -> object:
        if sql.startswith("CREATE OR REPLACE TEMP TABLE"):  # a grouping read: a row first
            append()
        return run_with_progress(con, sql, *args, **kwargs)  # type: ignore[arg-type]

    presummed = jmeter_polars.presummed_samples
    reads = []

    def appending_presummed(*args: Any, **kwargs: Any) -> Any:
        append()
        reads.append(presummed(*args, **kwargs))
        return reads[-1]

    if reader == "duckdb":
        monkeypatch.setenv(jmeter_polars.READER_VARIABLE, "duckdb")
        monkeypatch.setattr(jmeter, "run_with_progress", appending)
    else:
        monkeypatch.setattr(jmeter_polars, "presummed_samples", appending_presummed)
    grouped, rows = _grouped_read(path)
    assert not grouped and rows == 402  # the rows of the file as the store read it
    # the Polars reader did read the file (twice: the second read for the earlier start)
    assert reader == "duckdb" or (len(reads) == 2 and all(r is not None for r in reads))


def _wide(path: Path, n: int = 12_000) -> Path:
    """A run whose latencies spread over as many milliseconds as it has samples (0-30 s
    for 100 samples a second): its groups would be about as many as its rows."""
    rows = [
        f"{1_790_000_000_000 + i * 10},{(i * 7919) % 30_000},req,200,OK,tg 1-{i % 50},text,"
        f"true,,100,50,50,50"
        for i in range(n)
    ]
    return _write(path, rows)


@pytest.mark.slow
def test_samples_as_many_groups_as_rows_are_stored_and_read_as_rows(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose first rows are nearly one group each is stored, not grouped (the
    groups would be as many as the rows and larger: 5M such samples took 1.7 GB against
    0.8 GB), and its analysis reads the rows as groups of one sample through a view; the
    figures are those of the grouped table, sum for sum."""
    import toolkit.pipeline.load as load_module

    path = _wide(tmp_path / "wide.csv")
    assert _grouped_read(path) == (False, 12_000)
    _same_as_store(runner, tmp_path, path)
    with open_store() as store:
        ingest_paths(store, [path])
        ((_, head, groups),) = store.con.execute(
            load_module.head_groups_sql("samples", 1000)
        ).fetchall()
        assert head == 12_000 and load_module.too_many_groups(head, groups)  # the view
        as_view = load_report(store)
        charts_as_view = [_charts(store, w) for w in (1.0, 3.0)]
        monkeypatch.setattr(load_module, "GROUPS_PER_ROW_MAX", 1.0)  # a table again
        assert load_report(store) == as_view
        # the report's charts read the same view (with the chart columns) as they read
        # the grouped table
        assert [_charts(store, w) for w in (1.0, 3.0)] == charts_as_view
    assert _grouped_read(path) == (True, 0)


def test_charts_of_a_label_completing_after_all_do_not_crash(tmp_path: Path) -> None:
    """A transaction controller's sample ends after its children (its timers count): the
    last one can complete windows after ALL's last sample. Its charts reached past the
    windows counted from ALL's samples (IndexError); they now span both."""
    from toolkit.pipeline.load import ALL, dashboard_charts

    t0 = 1_790_000_000_000
    lines = [f"{t0 + i * 500},20,step,200,OK,tg 1-1,text,true,,10,5,1,1" for i in range(10)]
    # the transaction of the last step ends 3 s after it: its completion window is 8
    lines.append(f"{t0 + 4_500},3_500,tx,200,{TC},tg 1-1,,true,,10,5,1,1".replace("_", ""))
    path = _write(tmp_path / "tc.csv", lines)
    with open_store() as store:
        ingest_paths(store, [path], options=IngestOptions(sample_columns=REPORT_COLUMNS))
        ((suite_id,),) = store.con.execute("SELECT suite_id FROM suites").fetchall()
        charts = dashboard_charts(store, suite_id, window_s=1.0, labels=[ALL, "tx"])
    assert charts["t_s"][-1] == 8.0
    assert charts["labels"]["tx"]["latency_ms"][-1] is None  # no Latency column
    assert len(charts["labels"]["tx"]["latency_ms"]) == len(charts["t_s"])
    assert sum(x or 0 for x in charts["codes"]["200"]) == 10  # ALL's: the steps
