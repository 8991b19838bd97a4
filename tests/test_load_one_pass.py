"""The one-command job (issue 20 item 3) and the load analysis's fences (issue 17).

``warmup load FILE`` (and ``compare A B``, ``report FILE``) read a CSV JTL into a scratch
store of the columns the analysis reads only (``IngestOptions.sample_columns``); its
``--json`` must be byte for byte that of ``warmup ingest --db`` + ``warmup load --db`` on
every fixture JTL and every real one (where slow tests run; 12 fixtures in a developer's
run). ``warmup report FILE`` writes byte for byte the HTML of ``report --db`` (a plain CSV
JTL read into groups with the chart columns, no row stored). The load analysis computes
each suite's time fences once per command (``fences_once``), not once per query.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolkit import open_store
from toolkit.cli import app
from toolkit.ingest import IngestOptions, ingest_paths
from toolkit.ingest.jmeter import LOAD_COLUMNS, REPORT_COLUMNS
from toolkit.pipeline.load import _samples, fences_once, load_report
from toolkit.synthetic import write_jtl, write_jtl_xml

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "jmeter"
REAL = ROOT.parent / "shared" / "real"
#: what is not a JTL in those folders (logs, plans, truths, properties, notes)
NOT_JTL = (".log", ".console.txt", ".stdout.txt", ".json", ".jmx", ".md", ".properties")


def _jtls(folder: Path) -> list[Path]:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return [p for p in files if not p.name.endswith(NOT_JTL)]


def _same_as_store(runner: CliRunner, tmp_path: Path, *paths: Path, command: str = "load") -> int:
    """``warmup load FILE... --json`` (or ``command``) against ``warmup ingest --db`` +
    ``load --db --json``: the same exit code and the same bytes on stdout; returns that
    exit code."""
    one = runner.invoke(app, [command, *map(str, paths), "--json"])
    db = tmp_path / "store.duckdb"
    ingested = runner.invoke(app, ["ingest", "--db", str(db), *map(str, paths)])
    if ingested.exit_code != 0:
        # a file the ingest refuses is refused by the one-command job too
        assert one.exit_code == ingested.exit_code, (one.stderr, ingested.stderr)
        return one.exit_code
    stored = runner.invoke(app, [command, "--db", str(db), "--json"])
    assert (one.exit_code, one.stdout) == (stored.exit_code, stored.stdout), (
        one.stderr,
        stored.stderr,
    )
    return one.exit_code


#: fixture JTLs a developer's run compares, one per reader and layout (generated gz,
#: real JMeter CSVs with every field, no header, a pipe and formatted dates, a time
#: zone, end times, sample variables, real XML, recorded warm-ups); every fixture where
#: slow tests run
QUICK_FIXTURES = (
    "baseline.jtl.gz",
    "candidate.jtl.gz",
    "csv-allfields.csv",
    "csv-noheader.csv",
    "csv-pipe-noheader-dates.csv",
    "csv-datefmt-kolkata.csv",
    "csv-end-times.csv",
    "csv-sample-variables.csv",
    "xml-allfields.xml.gz",
    "xml-end-times.xml.gz",
    "a-server-warmup.jtl.gz",
    "g-never-steady.jtl.gz",
)


def _fixture_params(quick: tuple[str, ...] = QUICK_FIXTURES) -> list[Any]:
    """Every fixture JTL; those not in ``quick`` (the XML twins of the CSV recordings,
    the CSV twins of the XML ones, more recordings of the same readers, ~0.4 s each) run
    only where slow tests do."""
    return [
        pytest.param(
            p,
            id=str(p.relative_to(FIXTURES)),
            marks=[] if p.name in quick else [pytest.mark.ci_only],
        )
        for p in _jtls(FIXTURES)
    ]


@pytest.mark.parametrize("path", _fixture_params())
def test_load_file_equals_ingest_then_load_db_on_fixtures(
    path: Path, runner: CliRunner, tmp_path: Path
) -> None:
    _same_as_store(runner, tmp_path, path)


#: fixtures whose findings a developer's run compares (every one where slow tests run):
#: a generated run, real JMeter CSVs with transaction controllers and sub-results, an XML
QUICK_FINDINGS = ("baseline.jtl.gz", "csv-allfields.csv", "csv-default.csv", "xml-default.xml.gz")


@pytest.mark.parametrize("path", _fixture_params(QUICK_FINDINGS))
def test_findings_of_files_equal_findings_of_a_store(
    path: Path, runner: CliRunner, tmp_path: Path
) -> None:
    """``warmup findings FILE`` reads a JTL's load columns only, as ``warmup load``: its
    findings are those of the whole file stored (checked on the 87 fixture and real JTLs
    when made; the real ones where slow tests run, below)."""
    _same_as_store(runner, tmp_path, path, command="findings")


# every real JTL (52, 3M samples in all: ~45 s); the fixtures above check the same on 28
# small files in a developer's run
@pytest.mark.ci_only
@pytest.mark.real
@pytest.mark.parametrize(
    "name",
    [str(p.relative_to(REAL)) for p in _jtls(REAL / "jmeter") + _jtls(REAL / "jmeter-runs")]
    if REAL.is_dir()
    else ["jmeter (../shared/real absent)"],
)
def test_load_file_equals_ingest_then_load_db_on_real_jtls(
    name: str, real_dir: Path, runner: CliRunner, tmp_path: Path
) -> None:
    _same_as_store(runner, tmp_path, real_dir / name)
    (tmp_path / "findings").mkdir()
    _same_as_store(runner, tmp_path / "findings", real_dir / name, command="findings")


def test_scratch_store_keeps_only_the_analysed_columns(tmp_path: Path) -> None:
    """What the projection leaves out is really not stored (URL, Latency, ...), what the
    analysis reads is; ``report``'s projection keeps Latency and Connect."""
    jtl = tmp_path / "run.jtl"
    write_jtl(jtl, 2_000, duration_s=60.0, warmup_s=10.0, seed=1)
    counts = {}
    for columns in (None, LOAD_COLUMNS, REPORT_COLUMNS):
        with open_store() as store:
            ingest_paths(store, [jtl], options=IngestOptions(sample_columns=columns))
            row = store.con.execute(
                "SELECT count(url), count(latency_ms), count(connect_ms), count(idle_ms), "
                "count(bytes), count(thread_name), count(all_threads) FROM samples"
            ).fetchone()
            counts[columns] = row
    assert counts[None] == (2_000,) * 7
    assert counts[LOAD_COLUMNS] == (0, 0, 0, 0, 2_000, 2_000, 2_000)
    assert counts[REPORT_COLUMNS] == (0, 2_000, 2_000, 0, 2_000, 2_000, 2_000)


def _virtual(store: Any) -> set[str]:
    """The columns of ``samples`` DuckDB computes instead of storing (generated)."""
    rows = store.con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE table_name = 'samples' "
        "AND column_default IS NOT NULL"
    ).fetchall()
    return {r[0] for r in rows}


def test_scratch_store_computes_the_columns_it_leaves_null(tmp_path: Path) -> None:
    """A store that is not kept (in memory or scratch) stores no column its CSV reader
    leaves NULL: DuckDB computes them (virtual), which saves it writing and compressing
    ten NULL columns (12.5 s instead of 14.6 s of CPU for ``warmup load FILE`` on 10M
    rows); a kept store file stores every column, whatever ``sample_columns`` says."""
    jtl = tmp_path / "run.jtl"
    write_jtl(jtl, 2_000, duration_s=60.0, warmup_s=10.0, seed=1)
    left_null = {
        "url", "latency_ms", "connect_ms", "idle_ms", "sample_count", "error_count",
        "filename", "encoding", "variables", "line", "hostname",
    }  # fmt: skip
    with open_store() as store:
        ingest_paths(store, [jtl], options=IngestOptions(sample_columns=LOAD_COLUMNS))
        assert _virtual(store) == left_null
        assert store.con.execute("SELECT count(*), count(url) FROM samples").fetchone() == (
            2_000,
            0,
        )
    with open_store() as store:
        ingest_paths(store, [jtl], options=IngestOptions(sample_columns=REPORT_COLUMNS))
        assert _virtual(store) == left_null - {"latency_ms", "connect_ms"}
    with open_store() as store:  # no projection: every column stored
        ingest_paths(store, [jtl])
        assert _virtual(store) == set()
    with open_store(tmp_path / "kept.duckdb") as store:
        ingest_paths(store, [jtl], options=IngestOptions(sample_columns=LOAD_COLUMNS))
        assert _virtual(store) == set()


@pytest.mark.slow
def test_scratch_store_of_mixed_files_equals_a_store(runner: CliRunner, tmp_path: Path) -> None:
    """A later file that fills a column the scratch store computes (an XML JTL's URL and
    sample numbers, a CSV JTL with a Hostname column after one without) makes the table
    store it again, rows kept: ``warmup load`` of the files gives what a store gives, in
    either order."""
    plain = tmp_path / "plain.jtl"
    write_jtl(plain, 600, duration_s=30.0, warmup_s=5.0, seed=1)
    hosted = tmp_path / "hosted.jtl"
    write_jtl(hosted, 600, duration_s=30.0, warmup_s=5.0, seed=2, hostname="gen-2")
    xml = tmp_path / "run.xml.jtl"
    write_jtl_xml(xml, 600, duration_s=30.0, warmup_s=5.0, seed=3)
    for order in ((plain, hosted), (plain, xml), (xml, plain)):
        folder = tmp_path / "-".join(p.name for p in order)
        folder.mkdir()
        assert _same_as_store(runner, folder, *order) == 0
    with open_store() as store:
        ingest_paths(store, [plain, xml], options=IngestOptions(sample_columns=LOAD_COLUMNS))
        assert _virtual(store) == set()
        assert store.con.execute(
            "SELECT count(*), count(line), count(*) FILTER (source_id = 1 AND line IS NULL) "
            "FROM samples"
        ).fetchone() == (1_200, 600, 600)


@pytest.mark.slow
def test_compare_without_db_equals_compare_of_a_store(runner: CliRunner, tmp_path: Path) -> None:
    a, b = FIXTURES / "baseline.jtl.gz", FIXTURES / "candidate.jtl.gz"
    one = runner.invoke(app, ["compare", str(a), str(b), "--json"])
    db = tmp_path / "store.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), str(a), str(b)]).exit_code == 0
    stored = runner.invoke(app, ["compare", "--db", str(db), "baseline", "candidate", "--json"])
    assert one.exit_code == stored.exit_code == 0, (one.stderr, stored.stderr)
    assert one.stdout == stored.stdout


class _CountingConnection:
    """A DuckDB connection that counts the statements computing time fences."""

    def __init__(self, con: Any) -> None:
        self._con = con
        self.fence_queries = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)

    def _count(self, sql: str) -> None:
        self.fence_queries += "quantile_disc(start_ms::DOUBLE" in sql

    def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self._count(sql)
        return self._con.execute(sql, *args, **kwargs)

    def sql(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self._count(sql)
        return self._con.sql(sql, *args, **kwargs)


def _two_runs(tmp_path: Path, *, far: bool) -> list[Path]:
    """Two generated 60 s runs of 3,000 samples (``run1``, ``run2``); with ``far``, the
    second ends with a row decades away (outside its fences)."""
    paths = []
    for seed in (1, 2):
        path = tmp_path / f"run{seed}.jtl"
        write_jtl(path, 3_000, duration_s=60.0, warmup_s=10.0, seed=seed)
        paths.append(path)
    if far:
        with paths[1].open("a") as out:
            out.write("1000,5,far,200,OK,t 1-1,text,true,,10,5,1,1,null,5,0,1\n")
    return paths


def test_load_report_computes_the_fences_once(tmp_path: Path) -> None:
    """Two suites, one with a row decades away (fenced out): one fence computation for
    the whole report (was one per query: 15 a suite), and the same rows as the fence
    subquery gives."""
    paths = _two_runs(tmp_path, far=True)
    with open_store() as store:
        ingest_paths(store, paths)
        rows = "SELECT * FROM {} ORDER BY ALL"
        recomputed = store.con.sql(rows.format(_samples(store))).fetchall()
        with fences_once(store):
            once = store.con.sql(rows.format(_samples(store))).fetchall()
        assert once == recomputed
        assert len(once) == 6_000  # the far row left out
        counting = _CountingConnection(store.con)
        store.con = counting  # type: ignore[assignment]
        payload = load_report(store)
        assert [s["suite"] for s in payload["suites"]] == ["run1", "run2"]
        assert counting.fence_queries == 1


@pytest.mark.slow
def test_report_and_findings_compute_the_fences_once(tmp_path: Path) -> None:
    """``warmup report`` and ``warmup findings`` run the load analysis, the comparison and
    the charts inside one :func:`fences_once`: one fence computation for the whole report
    (was one per analysis, chart and comparison: the scans that find which tests to
    leave out ran 10 times in a ``report`` of 10M rows, 1.7 s of CPU)."""
    from toolkit import render_report
    from toolkit.pipeline.findings import store_findings

    paths = _two_runs(tmp_path, far=True)
    with open_store() as store:
        ingest_paths(store, paths)
        counting = _CountingConnection(store.con)
        store.con = counting  # type: ignore[assignment]
        html = render_report(store)
        assert counting.fence_queries == 1
        assert "run1" in html and "run2" in html
        counting.fence_queries = 0
        found = store_findings(store)
        assert counting.fence_queries == 1
        assert [f for f in found if f.rule == "load-samples-out-of-range"]


def test_suites_within_a_day_compute_no_fences(tmp_path: Path) -> None:
    """Runs whose samples all start and end within a day of each other cannot hold a row
    outside fences a day or more beyond their quartiles: the load analysis sorts no start
    time for the quartiles and joins no fences (on the 10M-row JTL: 4.9 -> 3.3 s of CPU for
    ``warmup load --db``, 436 -> 297 MiB), and reads the same rows and figures."""
    paths = _two_runs(tmp_path, far=False)
    with open_store() as store:
        ingest_paths(store, paths)
        rows = "SELECT * FROM {} ORDER BY ALL"
        recomputed = store.con.sql(rows.format(_samples(store))).fetchall()
        with fences_once(store):
            unfenced = _samples(store)
            once = store.con.sql(rows.format(unfenced)).fetchall()
        assert "JOIN" not in unfenced and len(once) == 6_000
        assert once == recomputed
        counting = _CountingConnection(store.con)
        store.con = counting  # type: ignore[assignment]
        payload = load_report(store)
        assert counting.fence_queries == 0
        assert not [f for f in payload["findings"] if f["rule"] == "load-samples-out-of-range"]


def _tc_run(path: Path, *, full: bool, empty: bool) -> Path:
    """A CSV JTL of 300 ``req`` samples over 60 s with a warm-up, with transaction-controller
    rows (``full``: ones holding a sample, ``empty``: JMeter's empty ones) among them."""
    tc = '"Number of samples in transaction : {}, number of failing samples : 0"'
    lines = ["timeStamp,elapsed,label,responseCode,responseMessage,threadName,success"]
    for i in range(300):
        t = 1_700_000_000_000 + i * 200
        ms = 40 if i < 60 else 10
        lines.append(f"{t},{ms},req,{500 if i % 37 == 0 else 200},OK,t 1-{i % 4},{i % 37 != 0}")
        if full and i % 3 == 0:
            lines.append(f"{t},{ms + 5},TC full,200,{tc.format(1)},t 1-{i % 4},true")
        if empty and i % 5 == 0:
            lines.append(f"{t},0,TC empty,200,{tc.format(0)},t 1-{i % 4},true")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("full", "empty", "tested"),
    [(False, False, ()), (True, False, ("Number of samples in transaction'",)),
     (True, True, ("Number of samples in transaction'", "transaction : 0'"))],
)  # fmt: skip
def test_load_analysis_tests_messages_only_when_a_transaction_exists(
    full: bool, empty: bool, tested: tuple[str, ...], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Inside :func:`fences_once` the samples' SQL tests each row's responseMessage for an
    (empty) transaction-controller sample only when the store holds one (found by one
    read of the column): 0.7 of the 2.4 s of CPU of a ``warmup load`` of 10M rows went to
    those tests. The payload is the same as with every row tested."""
    import toolkit.pipeline.load as load_module

    path = _tc_run(tmp_path / "tc.csv", full=full, empty=empty)
    with open_store() as store:
        ingest_paths(store, [path])
        with fences_once(store):
            sql = _samples(store) + load_module._jmeter_tc(store)
        assert [
            t for t in ("Number of samples in transaction'", "transaction : 0'") if t in sql
        ] == list(tested)
        fast = json.dumps(load_report(store))
        # as if the store held both kinds: every query tests each row's message
        monkeypatch.setattr(load_module, "_ANY_TC", "SELECT true, true")
        with fences_once(store):
            assert "transaction : 0'" in _samples(store)
            assert load_module._jmeter_tc(store) == load_module._JMETER_TC
        assert json.dumps(load_report(store)) == fast
    payload = json.loads(fast)
    labels = {x["label"] for x in payload["suites"][0]["labels"]}
    assert labels == {"ALL", "req"} | ({"TC full"} if full else set())


def test_ingest_sorts_no_start_time_for_a_run_within_a_day(tmp_path: Path) -> None:
    """The ingest's out-of-range warning computes a suite's quartiles (a sort of every start
    time) only when the suite spans more than a day: a run within one cannot hold a row
    outside them. A row decades away is still found and warned of."""
    path = tmp_path / "run.jtl"
    write_jtl(path, 3_000, duration_s=60.0, warmup_s=10.0, seed=1)
    with open_store() as store:
        counting = _CountingConnection(store.con)
        store.con = counting  # type: ignore[assignment]
        report = ingest_paths(store, [path])
        assert counting.fence_queries == 0
        assert not [w for r in report.results for w in r.warnings if "far outside" in w]
    with path.open("a") as out:
        out.write("1000,5,far,200,OK,t 1-1,text,true,,10,5,1,1,null,5,0,1\n")
    with open_store() as store:
        counting = _CountingConnection(store.con)
        store.con = counting  # type: ignore[assignment]
        report = ingest_paths(store, [path])
        assert counting.fence_queries == 1
        assert [w for r in report.results for w in r.warnings if "far outside" in w]


@pytest.mark.parametrize("command", ["load", "findings"])
def test_one_command_jobs_do_not_read_the_columns_they_leave_out(
    command: str, runner: CliRunner, tmp_path: Path
) -> None:
    """``warmup load FILE`` and ``warmup findings FILE`` neither parse nor store a CSV
    JTL's URL, IdleTime, Latency, ...: a value ``warmup ingest`` refuses there (IdleTime
    "soon") does not stop them, and they find the run's warm-up."""
    jtl = tmp_path / "run.jtl"
    write_jtl(jtl, 3_000, duration_s=60.0, warmup_s=10.0, seed=1)
    lines = jtl.read_text().splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    cells = lines[5].rstrip("\n").split(",")
    cells[header.index("IdleTime")] = "soon"
    lines[5] = ",".join(cells) + "\n"
    jtl.write_text("".join(lines))
    refused = runner.invoke(app, ["ingest", "--db", str(tmp_path / "s.duckdb"), str(jtl)])
    assert refused.exit_code == 1 and "IdleTime" in refused.stderr, refused.stderr
    done = runner.invoke(app, [command, str(jtl), "--json"])
    assert done.exit_code == 0, done.stderr
    payload = json.loads(done.stdout)
    rules = {(f["rule"], f["subject"]) for f in payload["findings"]}
    assert ("load-warmup", "run") in rules  # the 10 s warm-up written into the file


def _same_report_as_store(runner: CliRunner, tmp_path: Path, path: Path) -> None:
    """``warmup report FILE`` against ``warmup ingest --db`` + ``report --db``: the same
    exit code and the same HTML, byte for byte (a plain CSV JTL is read into the groups
    of the load analysis and of the charts, every other file stored: both must draw what
    the store draws)."""
    html = {kind: tmp_path / f"{kind}.html" for kind in ("file", "db")}
    one = runner.invoke(app, ["report", str(path), "-o", str(html["file"])])
    db = tmp_path / "store.duckdb"
    ingested = runner.invoke(app, ["ingest", "--db", str(db), str(path)])
    if ingested.exit_code != 0:
        assert one.exit_code == ingested.exit_code, (one.stderr, ingested.stderr)
        return
    stored = runner.invoke(app, ["report", "--db", str(db), "-o", str(html["db"])])
    assert (one.exit_code, stored.exit_code) == (0, 0), (one.stderr, stored.stderr)
    assert html["file"].read_bytes() == html["db"].read_bytes()


#: fixtures whose report a developer's run compares (every one where slow tests run): a
#: generated run, a recorded warm-up, a real JMeter CSV with transaction controllers
QUICK_REPORTS = ("candidate.jtl.gz", "a-server-warmup.jtl.gz", "csv-default.csv")


@pytest.mark.parametrize("path", _fixture_params(QUICK_REPORTS))
@pytest.mark.slow
def test_report_file_equals_report_of_a_store_on_fixtures(
    path: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    _same_report_as_store(runner, tmp_path, path)


# the real runs and the largest real JTLs; the fixtures above check every reader
@pytest.mark.ci_only
@pytest.mark.real
@pytest.mark.parametrize(
    "name",
    [
        "jmeter-runs/h2_point_lookup_10t_60s.csv.jtl.gz",
        "jmeter-runs/pg_point_lookup_10t_60s.csv.jtl.gz",
        "jmeter/Blazemeter+taurus__tests__resources__jmeter__jtl__kpi-pair1.jtl",
        "jmeter/Blazemeter+taurus__tests__resources__jmeter__jtl__tranctl.jtl",
    ],
)
def test_report_file_equals_report_of_a_store_on_real_jtls(
    name: str, real_dir: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    _same_report_as_store(runner, tmp_path, real_dir / name)
