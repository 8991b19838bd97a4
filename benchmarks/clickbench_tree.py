"""Benchmark: `warmup ingest --db` of a ClickBench results tree of 30,000 files.

Generates (once, under ``benchmarks/_data/clickbench_tree_N/``) a tree shaped like the
ClickBench repository (``research/clickbench.md`` §1.1, §3): most files from a daily
``clickhouse-cloud`` bot in the dated layout ``<system>/results/<YYYYMMDD>/<machine>.json``,
the rest spread over 158 other systems, a fifth of those in the older flat layout
``<system>/results/<machine>.json``. Content as the website's files: the key order of the
``prepare-database.sql`` template, 43 queries × 3 runs rounded to 3 decimals (cold run
slower), ~20 % of the files with some ``null`` runs, 6 error-only files
``{"error": "https://github.com/ClickHouse/ClickBench/issues/N"}``. Each system folder also
has the repository's ``template.json`` (not a result; the ingest skips it).

Then measures, each a fresh subprocess with wall time, CPU time and peak RSS (``wait4``):

- ``json.loads floor``: read and parse every result file, nothing stored: the least any
  ingest of these files costs;
- ``plain DuckDB, one transaction per file``: the same four tables written with the fewest
  statements per file (BEGIN, 4 INSERTs, COMMIT), no validation: what one transaction per
  file costs at the least (the toolkit's design before it grouped small files);
- ``plain DuckDB, 1,000 files per transaction``: the same rows with one Arrow insert per
  table per 1,000 files, no validation: the floor of the toolkit's grouped commits
  (``toolkit.store.SourceGroup``: up to 500 files or 1 s of work per commit);
- ``warmup ingest --db``: the toolkit into a new store, with the progress bar on stderr
  (checked: it is drawn and ends at every file of the tree);
- with ``--before DIR``: the same command with another checkout's code (e.g. a
  ``git archive`` of an older commit), run alternately with the current code ``--pairs``
  times, medians reported.

The target (issue 7 §5) is ≤ 60 s on the 2-core machine. Run ``python
benchmarks/clickbench_tree.py`` (``--files N`` for another size, ``--no-write`` to leave
``benchmarks/RESULTS.md`` alone). The figures replace this benchmark's section there.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from machine import describe
from results import markers, write_section

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "_data"
START, END = markers("clickbench_tree")
TARGET_S = 60.0
QUERIES, RUNS = 43, 3
ERROR_ONLY = 6
CLOUD_SHARE = 0.85  # 28,991 of 34,201 files in the snapshot are ClickHouse Cloud
OTHER_SYSTEMS = 158
CLOUD_MACHINES = [
    f"{provider}.{replicas}.{gib}"
    for provider in ("aws", "gcp", "azure")
    for replicas in (1, 2, 3)
    for gib in (8, 12, 16, 32, 64, 120, 236)
]
MACHINES = [
    "c6a.4xlarge",
    "c6a.metal",
    "c6a.2xlarge",
    "c7a.metal-48xl",
    "c6a.xlarge",
    "c8g.4xlarge",
    "c6a.large",
    "c8g.metal-48xl",
    "t3a.small",
]
TAGS = ["C++", "column-oriented", "ClickHouse derivative", "Rust", "Java", "embedded", "managed"]


def tree_path(files: int) -> Path:
    return DATA / f"clickbench_tree_{files}"


def result_doc(rng: random.Random, system: str, machine: str, day: date) -> dict[str, object]:
    """One result file's JSON, in the key order of ClickBench's template."""
    base = [10 ** rng.uniform(-2.5, 1.3) for _ in range(QUERIES)]
    rows: list[list[float | None]] = []
    with_nulls = rng.random() < 0.2
    for q in range(QUERIES):
        cold = base[q] * rng.uniform(1.0, 4.0)
        row: list[float | None] = [
            round(cold, 3),
            *(round(base[q] * rng.uniform(0.97, 1.08), 3) for _ in range(RUNS - 1)),
        ]
        if with_nulls and rng.random() < 0.08:
            row = [None] * RUNS if rng.random() < 0.7 else [None, *row[1:]]
        rows.append(row)
    return {
        "system": system,
        "date": day.isoformat(),
        "machine": machine,
        "cluster_size": 1 if rng.random() < 0.8 else rng.choice([2, 3, "serverless"]),
        "proprietary": rng.choice(["yes", "no"]),
        "hardware": "cpu",
        "tuned": "no",
        "tags": rng.sample(TAGS, 2),
        "load_time": round(rng.uniform(20, 2000), 3),
        "data_size": rng.randint(5_000_000_000, 80_000_000_000),
        "concurrent_qps": round(rng.uniform(1, 200), 3) if rng.random() < 0.5 else None,
        "concurrent_error_ratio": 0 if rng.random() < 0.5 else None,
        "result": rows,
    }


def dump(doc: dict[str, object]) -> str:
    """ClickBench's formatting: top-level keys one per line, one query row per line."""
    head = [f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in doc.items()]
    if "result" not in doc:
        return "{\n" + ",\n".join(head) + "\n}\n"
    rows = ",\n".join("        " + json.dumps(r) for r in doc["result"])  # type: ignore[attr-defined]
    return "{\n" + ",\n".join(head[:-1]) + ',\n    "result": [\n' + rows + "\n    ]\n}\n"


def generate(files: int) -> Path:
    """Write the tree of ``files`` result files (once; a finished tree is reused)."""
    root = tree_path(files)
    done = root / ".complete"
    if done.exists():
        return root
    rng = random.Random(20260822)
    cloud = round(files * CLOUD_SHARE)
    written = 0
    error_at = set(rng.sample(range(files), ERROR_ONLY))
    start = date(2023, 1, 1)

    def write(path: Path, doc: dict[str, object]) -> None:
        nonlocal written
        if written in error_at:
            doc = {
                "error": f"https://github.com/ClickHouse/ClickBench/issues/{rng.randint(1, 999)}"
            }
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(doc), encoding="utf-8")
        written += 1

    def template(system_dir: Path, system: str) -> None:
        system_dir.mkdir(parents=True, exist_ok=True)
        (system_dir / "template.json").write_text(
            dump({"system": system, "proprietary": "no", "tuned": "no", "tags": ["C++"]})
        )

    # the daily cloud bot: every machine on consecutive days
    template(root / "clickhouse-cloud", "ClickHouse ☁️")
    day = start
    while written < cloud:
        for machine in CLOUD_MACHINES:
            if written >= cloud:
                break
            provider = machine.split(".")[0]
            doc = result_doc(rng, f"ClickHouse ☁️ ({provider})", machine, day)
            write(
                root / "clickhouse-cloud" / "results" / day.strftime("%Y%m%d") / f"{machine}.json",
                doc,
            )
        day += timedelta(days=1)
    # the other systems: every fifth in the old flat layout (one file per machine), the rest
    # dated (a run on each machine, then again a week later, ...)
    systems = [f"system-{i:03d}" for i in range(OTHER_SYSTEMS)]
    for system in systems:
        template(root / system, system.title())
    flat, dated = systems[::5], [s for k, s in enumerate(systems) if k % 5]
    for system in flat:
        for machine in MACHINES:
            if written < files:
                day = start + timedelta(days=rng.randint(0, 1300))
                write(
                    root / system / "results" / f"{machine}.json",
                    result_doc(rng, system.title(), machine, day),
                )
    i = 0
    while written < files:
        index, run = i % len(dated), i // len(dated)
        system, machine = dated[index], MACHINES[run % len(MACHINES)]
        day = start + timedelta(days=(run // len(MACHINES)) * 7 + index % 7)
        path = root / system / "results" / day.strftime("%Y%m%d") / f"{machine}.json"
        assert not path.exists(), path
        write(path, result_doc(rng, system.title(), machine, day))
        i += 1
    done.write_text(f"{files}\n")
    return root


@dataclass(frozen=True)
class Measure:
    """One subprocess: wall seconds, peak RSS in MiB, exit code, captured output."""

    name: str
    wall_s: float
    cpu_s: float
    rss_mib: float
    code: int
    stdout: str
    stderr: str


def measure(
    name: str,
    argv: list[str],
    env_extra: dict[str, str] | None = None,
    checkout: Path = ROOT,
) -> Measure:
    """Run ``argv`` as a fresh child (``checkout`` on PYTHONPATH); wall time, and that
    child's own CPU time (user + system) and peak RSS (wait4)."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "COLUMNS": "120", **(env_extra or {})}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        # cwd = the checkout: `python -m toolkit` imports from the working directory first
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=checkout)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return Measure(
            name,
            wall,
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024,
            os.waitstatus_to_exitcode(status),
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
        )


FLOOR = """
import json, sys
from pathlib import Path
n = 0
for path in sorted(Path(sys.argv[1]).rglob("*.json")):
    if path.name != "template.json":
        json.loads(path.read_bytes())
        n += 1
print(n)
"""

DB_FLOOR = """
import datetime, json, sys
from pathlib import Path
import pyarrow as pa
from toolkit import open_store

# argv: tree, store, files per transaction (1 = one transaction per file)
batch = int(sys.argv[3])
now = datetime.datetime.now(datetime.UTC)
schema = pa.schema([("suite_id", pa.int64()), ("source_id", pa.int64()), ("query", pa.string()),
    ("query_index", pa.int32()), ("process", pa.int32()), ("iteration", pa.int32()),
    ("seconds", pa.float64())])
sources, parts = [], []


def flush(con):
    ids = [s[0] for s in sources]
    con.execute("BEGIN")
    if batch == 1:
        # one file: one parameterized INSERT per table, the cheapest statement for a row
        i, path, count = sources[0]
        con.execute("INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [i, path, str(i), "clickbench", 1, count, now, "floor", []])
        con.execute("INSERT INTO suites (suite_id, name, kind, tags, attributes) "
            "VALUES (?, ?, 'iterations', [], '{}')", [i, path])
        con.execute("INSERT INTO suite_sources VALUES (?, ?)", [i, i])
        con.from_arrow(parts[0]).insert_into("iterations")
        con.execute("COMMIT")
        sources.clear()
        parts.clear()
        return
    # many files: one Arrow insert per table (executemany would be a statement a row)
    con.from_arrow(pa.table({
        "source_id": pa.array(ids, pa.int64()),
        "path": [s[1] for s in sources], "sha256": [str(i) for i in ids],
        "format": ["clickbench"] * len(ids), "bytes": pa.array([1] * len(ids), pa.int64()),
        "rows": pa.array([s[2] for s in sources], pa.int64()),
        "ingested_at": pa.array([now] * len(ids), pa.timestamp("us", tz="UTC")),
        "tool_version": ["floor"] * len(ids),
        "warnings": pa.array([[]] * len(ids), pa.list_(pa.string())),
    })).insert_into("sources")
    none = pa.nulls(len(ids))
    con.from_arrow(pa.table({
        "suite_id": pa.array(ids, pa.int64()), "name": [s[1] for s in sources],
        "kind": ["iterations"] * len(ids), "system": none.cast(pa.string()),
        "machine": none.cast(pa.string()), "run_date": none.cast(pa.date32()),
        "cluster_size": none.cast(pa.string()), "proprietary": none.cast(pa.string()),
        "hardware": none.cast(pa.string()), "tuned": none.cast(pa.string()),
        "tags": pa.array([[]] * len(ids), pa.list_(pa.string())),
        "attributes": ["{}"] * len(ids), "comment": none.cast(pa.string()),
        "load_time_s": none.cast(pa.float64()), "data_size_bytes": none.cast(pa.int64()),
        "concurrent_qps": none.cast(pa.float64()),
        "concurrent_error_ratio": none.cast(pa.float64()),
    })).insert_into("suites")
    con.from_arrow(pa.table({"suite_id": pa.array(ids, pa.int64()),
        "source_id": pa.array(ids, pa.int64())})).insert_into("suite_sources")
    con.from_arrow(pa.concat_tables(parts)).insert_into("iterations")
    con.execute("COMMIT")
    sources.clear()
    parts.clear()


n = 0
with open_store(sys.argv[2]) as store:
    con = store.con
    for path in sorted(Path(sys.argv[1]).rglob("*.json")):
        doc = json.loads(path.read_bytes())
        if "result" not in doc:
            continue
        n += 1
        rows = doc["result"]
        idx = [q for q, row in enumerate(rows) for _ in row]
        sources.append((n, str(path), len(idx)))
        parts.append(pa.table([pa.array([n] * len(idx), pa.int64()),
            pa.array([n] * len(idx), pa.int64()), pa.array([f"Q{q}" for q in idx]),
            pa.array(idx, pa.int32()), pa.array([0] * len(idx), pa.int32()),
            pa.array([i for row in rows for i in range(len(row))], pa.int32()),
            pa.array([v for row in rows for v in row], pa.float64())], schema=schema))
        if len(parts) == batch:
            flush(con)
    if parts:
        flush(con)
print(n)
"""
BATCH = 1000  # files per transaction of the batched anchor

# Forces rich to draw the bar although stderr is a file (as on a terminal): the benchmark
# checks that a directory ingest shows one.
BAR_ENV = {"FORCE_COLOR": "1", "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"}


def check_progress_bar(stderr: str, files: int) -> str:
    """The last state of the bar: ``ingest 30000/30000 ━━━ 100%`` (or, as older code drew
    it, ``ingest ━━━ 30000/30000``); fails when none was drawn."""
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stderr)
    counts = re.findall(r"ingest\s+(?:\S*\s+)?(\d+)/(\d+)", plain)
    if not counts:
        raise SystemExit("no progress bar on stderr for a directory ingest")
    done, total = counts[-1]
    if int(total) != files or int(done) != files:
        raise SystemExit(f"progress bar ended at {done}/{total}, expected {files}/{files}")
    return f"{done}/{total}"


def median_run(runs: list[Measure]) -> Measure:
    """The run with the median wall time (the lower middle one of an even count)."""
    return sorted(runs, key=lambda m: m.wall_s)[(len(runs) - 1) // 2]


def run(files: int, before: Path | None, pairs: int) -> dict[str, object]:
    root = generate(files)
    results = sorted(p for p in root.rglob("*.json") if p.name != "template.json")
    assert len(results) == files, (len(results), files)
    floor = measure("json.loads floor", [sys.executable, "-c", FLOOR, str(root)])
    assert floor.code == 0 and int(floor.stdout) == files, floor.stderr
    db = DATA / f"clickbench_tree_{files}.duckdb"
    floor_db = DATA / f"clickbench_tree_{files}_floor.duckdb"
    for path in (db, floor_db):
        for name in (path, path.with_name(path.name + ".wal")):
            name.unlink(missing_ok=True)
    db_floor = measure(
        "plain DuckDB, one transaction per file",
        [sys.executable, "-c", DB_FLOOR, str(root), str(floor_db), "1"],
    )
    assert db_floor.code == 0 and int(db_floor.stdout) == files - ERROR_ONLY, db_floor.stderr
    batch_db = DATA / f"clickbench_tree_{files}_batched.duckdb"
    for name in (batch_db, batch_db.with_name(batch_db.name + ".wal")):
        name.unlink(missing_ok=True)
    batched = measure(
        f"plain DuckDB, {BATCH:,} files per transaction",
        [sys.executable, "-c", DB_FLOOR, str(root), str(batch_db), str(BATCH)],
    )
    assert batched.code == 0 and int(batched.stdout) == files - ERROR_ONLY, batched.stderr
    # with --before, the two codes run alternately (after, before, after, ...) so a change
    # in the machine's load hits both alike; each row is the median of its runs
    after_runs: list[Measure] = []
    before_runs: list[Measure] = []
    old_db = DATA / f"clickbench_tree_{files}_before.duckdb"
    for _ in range(pairs if before is not None else 1):
        for name in (db, db.with_name(db.name + ".wal")):
            name.unlink(missing_ok=True)
        run = measure(
            "warmup ingest --db",
            [sys.executable, "-m", "toolkit", "ingest", "--db", str(db), str(root)],
            BAR_ENV,
        )
        if run.code != 0:
            tail = "\n".join(run.stderr.splitlines()[-5:])
            raise SystemExit(f"warmup ingest failed ({run.code}):\n{tail}")
        after_runs.append(run)
        if before is not None:
            for name in (old_db, old_db.with_name(old_db.name + ".wal")):
                name.unlink(missing_ok=True)
            before_runs.append(
                measure(
                    f"warmup ingest --db, code of {before.name}",
                    [sys.executable, "-m", "toolkit", "ingest", "--db", str(old_db), str(root)],
                    checkout=before,
                )
            )
    ingest = median_run(after_runs)
    earlier = median_run(before_runs) if before_runs else None
    bar = check_progress_bar(ingest.stderr, files + 1 + OTHER_SYSTEMS)
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    sources = con.execute("SELECT count(*) FROM sources").fetchall()[0][0]
    rows = con.execute("SELECT count(*) FROM iterations").fetchall()[0][0]
    con.close()
    expected_sources = files - ERROR_ONLY
    assert sources == expected_sources, (sources, expected_sources)
    assert rows == expected_sources * QUERIES * RUNS, rows
    return {
        "files": files,
        "floor": floor,
        "db_floor": db_floor,
        "batched": batched,
        "ingest": ingest,
        "before": earlier,
        "bar": bar,
        "sources": sources,
        "rows": rows,
        "store_mib": db.stat().st_size / 2**20,
    }


def render(result: dict[str, object], load: tuple[float, float, float]) -> str:
    files = int(result["files"])  # type: ignore[call-overload]
    floor: Measure = result["floor"]  # type: ignore[assignment]
    db_floor: Measure = result["db_floor"]  # type: ignore[assignment]
    batched: Measure = result["batched"]  # type: ignore[assignment]
    ingest: Measure = result["ingest"]  # type: ignore[assignment]
    before: Measure | None = result["before"]  # type: ignore[assignment]
    # the target is for 30,000 files; another size is judged at the same files/s
    projected = ingest.wall_s * 30_000 / files
    verdict = "meets" if projected <= TARGET_S else "misses"
    judged = f"{ingest.wall_s:.1f} s" if files == 30_000 else f"{projected:.0f} s projected"

    def row(m: Measure, note: str = "") -> str:
        return (
            f"| {m.name}{note} | {m.wall_s:.1f} | {m.cpu_s:.1f} | {files / m.wall_s:,.0f} | "
            f"{m.cpu_s / files * 1e3:.2f} | {m.rss_mib:.0f} | {m.wall_s / floor.wall_s:.1f} | "
            f"{m.wall_s / db_floor.wall_s:.2f} |"
        )

    rows = [
        row(floor, " (read + parse, nothing stored)"),
        row(db_floor),
        row(batched, " (the floor of grouped commits)"),
        row(ingest),
    ]
    if before is not None:
        note = f" (exit {before.code}: it fails on template.json)" if before.code else ""
        rows.append(row(before, note))
    return "\n".join(
        [
            START,
            "## ClickBench tree of 30,000 files: `warmup ingest --db` "
            "(`benchmarks/clickbench_tree.py`)",
            "",
            f"Machine: {describe()}. Load average {load[0]:.1f} at the start "
            + (
                "(**shared with other jobs while measured**: figures are indicative)."
                if load[0] > 0.5
                else "(a quiet machine)."
            ),
            "",
            f"Tree: {files:,} result files ({files * CLOUD_SHARE:,.0f} `clickhouse-cloud` "
            f"dated, the rest over {OTHER_SYSTEMS} systems, a fifth of them in the flat "
            f"layout; {ERROR_ONLY} error-only files; 43 × 3 runs with some nulls) plus "
            f"{OTHER_SYSTEMS + 1} `template.json`. Each row is a fresh subprocess; CPU is "
            "user + system and peak RSS that child's own (`wait4`). Anchors: `json.loads` of "
            "every file (the least any ingest costs) and plain DuckDB writing the same four "
            "tables with the fewest statements (no validation, no duplicate or name checks), "
            "one transaction per file and 1,000 files per transaction.",
            "",
            "| run | wall s | CPU s | files/s | CPU ms/file | peak RSS MiB | ÷ json floor "
            "| ÷ DuckDB floor |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
            "",
            f"Target ≤ {TARGET_S:.0f} s for 30,000 files: **{verdict}** it ({judged}). Stored "
            f"{result['sources']:,} sources (error-only files and templates skipped with a "
            f"line each), {result['rows']:,} iteration rows, store "
            f"{result['store_mib']:.0f} MiB. The progress bar was drawn on stderr and ended "
            f"at {result['bar']} (every file walked, templates included).",
            "",
            "Where the time goes: DuckDB's fixed price per statement and per commit (~0.5 ms "
            "each) dominates when every file is its own transaction (the per-file row). The "
            "toolkit stages small ClickBench files and commits them in groups with one "
            "insert per table, each file still whole or not at all (a bad file stages "
            "nothing; a kill loses only the open group, which the next ingest stores), so "
            "what remains is its own work per file: detect, SHA-256, parse, validate.",
            END,
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=30_000, help="result files in the tree")
    parser.add_argument("--no-write", action="store_true", help="do not touch RESULTS.md")
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout (e.g. `git archive` of an older commit) to time side by side",
    )
    parser.add_argument(
        "--pairs", type=int, default=1, help="with --before: alternating runs of each code"
    )
    args = parser.parse_args()
    load = os.getloadavg()
    result = run(args.files, args.before, args.pairs)
    text = render(result, load)
    print(text)
    if not args.no_write:
        write_section(text, "clickbench_tree")


if __name__ == "__main__":
    main()
