"""Hostile inputs (issue 22, issue 21 item 3): time and peak RSS of each case, the same
cases as tests/test_hostile_inputs.py.

Generates every input in a temporary folder (nothing kept): the real JTL
``../shared/real/jmeter/generated__jmeter-5.6.3__default.csv`` with one hostile row
appended (timeStamp 0, 1e13, ±1e15, in seconds, elapsed 1e18 or -1e15), a JTL whose rows
lie decades apart, and gzip bombs of newlines (1028:1). Runs ``warmup load`` (and
``warmup report`` on the hostile-row store) as a user would, each in a subprocess under a
4 GiB address-space limit, with its own peak RSS from ``wait4``. Writes its section of
benchmarks/RESULTS.md.

Run: ``python benchmarks/hostile_inputs.py [--no-write]`` (from the checkout; ~1 min).
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

from machine import describe
from results import markers, publish

ROOT = Path(__file__).resolve().parent.parent
REAL_JTL = ROOT.parent / "shared" / "real" / "jmeter" / "generated__jmeter-5.6.3__default.csv"
ADDRESS_LIMIT = 4 << 30
NAME = "hostile_inputs"
SECTION = "## Hostile inputs: time and peak RSS (`benchmarks/hostile_inputs.py`, issue 22)"

HOSTILE_ROWS = {
    "timeStamp 0": (0, 62),
    "timeStamp 1e13": (10**13, 62),
    "timeStamp 1e15": (10**15, 62),
    "timeStamp -1e15": (-(10**15), 62),
    "timeStamp in seconds": (None, 62),
    "elapsed 1e18": (None, 10**18),
    "elapsed -1e15": (None, -(10**15)),
}


@dataclass(frozen=True)
class Case:
    name: str
    command: str
    code: int
    wall_s: float
    rss_mib: float
    first_line: str


def run(name: str, *args: str | Path) -> Case:
    """``warmup ARGS`` under the address-space limit; its wall time and own peak RSS."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "toolkit", *map(str, args)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=limit,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        err.seek(0)
        lines = [x for x in err.read().decode().splitlines() if not x.startswith("warning")]
    shown = " ".join(str(a) for a in args[:1])
    return Case(name, shown, proc.returncode, wall, usage.ru_maxrss / 1024, (lines or [""])[-1])


def hostile_copy(out: Path, timestamp: int | None, elapsed: int) -> Path:
    with REAL_JTL.open(newline="") as handle:
        rows = csv.reader(handle)
        header, first = next(rows), next(rows)
    row = dict(zip(header, first, strict=True))
    if timestamp is None:
        timestamp = int(row["timeStamp"]) // 1000 if elapsed == 62 else int(row["timeStamp"])
    row.update(timeStamp=str(timestamp), elapsed=str(elapsed), label="hostile")
    out.write_bytes(REAL_JTL.read_bytes())
    with out.open("a", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerow(row[n] for n in header)
    return out


def gzip_bomb(out: Path, header: bytes, mebibytes: int) -> Path:
    pack = zlib.compressobj(9, wbits=31)
    filler = b"\n" * (1 << 20)
    with out.open("wb") as handle:
        handle.write(pack.compress(header))
        for _ in range(mebibytes):
            handle.write(pack.compress(filler))
        handle.write(pack.flush())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print, do not write")
    args = parser.parse_args()
    load_avg = os.getloadavg()[0]
    cases: list[Case] = []
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        folder = Path(tmp)
        db = folder / "rows.duckdb"
        jtls = []
        for i, (case, (ts, elapsed)) in enumerate(HOSTILE_ROWS.items()):
            jtls.append(hostile_copy(folder / f"h{i}.csv", ts, elapsed))
            cases.append(run(f"one row: {case}", "load", jtls[-1]))
        # one command: a store reopened after its 5th separate ingest is refused as cut
        # short (store._cut_short, a false alarm found here; not fixed in this change)
        subprocess.run(
            [sys.executable, "-m", "toolkit", "ingest", "--db", db, *jtls],
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            capture_output=True,
            check=True,
        )
        cases.append(run("7 suites, one hostile row each", "load", "--db", db))
        cases.append(run("7 suites, one hostile row each", "report", "--db", db, "-o",
                         folder / "r.html"))  # fmt: skip
        split = folder / "split.csv"
        split.write_text(
            "timeStamp,elapsed,label,success\n"
            + "".join(f"{t},10,a,true\n" for t in (0, 1000, 10**13, 10**13 + 1000))
        )
        cases.append(run("half the rows 1e13 ms away", "load", split))
        labels = folder / "labels.csv"
        with labels.open("w") as handle:
            handle.write("timeStamp,elapsed,label,responseCode,responseMessage,threadName,"
                         "success,bytes,allThreads\n")  # fmt: skip
            for i in range(200_000):
                handle.write(
                    f"{1_795_316_507_125 + 3 * i},{5 + i % 46},label {i % 100_000},200,OK,"
                    f"TG 1-{i % 10},true,100,10\n"
                )
        report = folder / "labels.html"
        cases.append(run("100,000 distinct labels, 200,000 rows", "report", labels, "-o", report))
        cases[-1] = Case(
            cases[-1].name,
            cases[-1].command,
            cases[-1].code,
            cases[-1].wall_s,
            cases[-1].rss_mib,
            f"report {report.stat().st_size / 1e6:.1f} MB (limit 8 MB)"
            if report.exists()
            else cases[-1].first_line,
        )
        for mib in (256, 4096):
            bomb = gzip_bomb(folder / f"bomb{mib}.jtl.gz", b"timeStamp,elapsed\n", mib)
            size = bomb.stat().st_size
            cases.append(run(f"gzip bomb {mib} MiB in {size / 1e6:.2f} MB (JTL)", "load", bomb))
            bomb.unlink()
    lines = [
        markers(NAME)[0],
        SECTION,
        "",
        f"Machine: {describe()}. Load average {load_avg:.1f} at the start (**shared with "
        "other jobs**: times are indicative only).",
        "",
        "Each command runs under a 4 GiB address-space limit; peak RSS is its own "
        "(`wait4`). Before this change (main at 1c66a22) every hostile-row case ended in "
        "exit 3, MemoryError from numpy.zeros over 10^10-10^15 windows (13 GiB to 7 PiB "
        "asked), a 13 GB gzip bomb read without --db was still running after 120 s, and the "
        "100,000-label report was 205 MB (159 s, 2.3 GB RSS).",
        "",
        "| case | command | exit | wall s | peak RSS MiB | last line |",
        "|---|---|---:|---:|---:|---|",
    ]
    for c in cases:
        shown = c.first_line.replace("|", "\\|")[:110]
        lines.append(
            f"| {c.name} | `warmup {c.command}` | {c.code} | {c.wall_s:.2f} | "
            f"{c.rss_mib:,.0f} | {shown} |"
        )
    worst = max(c.rss_mib for c in cases)
    slowest = max(c.wall_s for c in cases)
    lines += [
        "",
        f"Slowest {slowest:.1f} s, largest peak RSS {worst:,.0f} MiB (bound: 2,048 MiB). "
        f"Verdict: **{'holds' if worst < 2048 and all(c.code != 3 for c in cases) else 'fails'}**.",
        "",
        markers(NAME)[1],
    ]
    publish("\n".join(lines), NAME, no_write=args.no_write)


if __name__ == "__main__":
    main()
