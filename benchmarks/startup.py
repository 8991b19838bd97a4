"""How soon the command line answers: ``--help`` and its errors (issue 20 item 4).

Each command line runs as a fresh ``python -m toolkit ARGS`` from a temporary folder, with
the code of this checkout and, with ``--before TREE``, of another tree (a ``git worktree``
or ``git archive`` of an older commit) in the same run, interleaved; with ``--before-python
PY`` the other tree runs in another interpreter (a venv with other library versions: typer
0.29 against 0.28). Prints a markdown table: the fastest wall time of ``--repeat`` runs,
the median in brackets, the least CPU time (user + system, ``wait4``) and the exit code.
The errors are the mistakes a user makes on the command line: no input, a bad option
value, a file, store or folder that does not exist (each is answered before any library is
imported or any input read); a time zone is checked against DuckDB's own names without
loading it (toolkit.duckdb_time), but an offset spelt ``UTC+...`` in capitals, which DuckDB
reads its own way, loads DuckDB.

    python benchmarks/startup.py --repeat 10 --before /tmp/old-main
    python benchmarks/startup.py --repeat 10 --before . --before-python /tmp/v29/bin/python
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import describe

ROOT = Path(__file__).resolve().parent.parent
JTL = ROOT / "fixtures" / "jmeter" / "baseline.jtl.gz"

#: (what it shows, the arguments after ``warmup``)
COMMAND_LINES: list[tuple[str, list[str]]] = [
    ("help", ["--help"]),
    ("a command's help", ["load", "--help"]),
    ("a mistyped option", ["score", "--bogus"]),
    ("no input", ["load"]),
    ("a bad option value", ["load", str(JTL), "--apdex", "bad"]),
    ("a bad duration", ["load", str(JTL), "--steady-from", "10x"]),
    ("an unknown format", ["report", str(JTL), "--format", "nosuch"]),
    ("a bad hot window", ["report", str(JTL), "--hot-window", "0"]),
    ("a file that does not exist", ["load", "missing.jtl"]),
    ("a store that does not exist", ["gaps", "--db", "missing.duckdb"]),
    ("one file as A and B", ["compare", str(JTL), str(JTL)]),
    ("an unknown time zone", ["load", str(JTL), "--timezone", "Mars/Base"]),
    ("a bad time format", ["load", str(JTL), "--time-format", "%d.%m.%Y %Q"]),
    ("an ICU offset that is none", ["load", str(JTL), "--timezone", "GMT+25"]),
    ("a UTC offset in another case", ["load", str(JTL), "--timezone", "utc+05:30"]),
    ("a UTC offset DuckDB decides", ["load", str(JTL), "--timezone", "UTC+20"]),
]


def timed(code: Path, args: list[str], cwd: str, python: str) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and exit code of one fresh ``python -m
    toolkit ARGS`` run of ``code`` in the interpreter ``python``."""
    env = {k: v for k, v in os.environ.items() if k != "WARMUP_DB"}
    env["PYTHONPATH"] = str(code)
    start = time.perf_counter()
    child = subprocess.Popen(
        [python, "-m", "toolkit", *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs per command line")
    parser.add_argument("--before", type=Path, help="another source tree, measured alongside")
    parser.add_argument(
        "--before-python", default=sys.executable, help="the interpreter of --before's runs"
    )
    args = parser.parse_args()
    trees = [("now", ROOT, sys.executable)]
    if args.before:
        trees.append(("before", args.before.resolve(), args.before_python))
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as cwd:
        times: dict[tuple[str, str], list[float]] = {}
        cpus: dict[tuple[str, str], list[float]] = {}
        codes: dict[tuple[str, str], int] = {}
        for _ in range(args.repeat):
            for what, argv in COMMAND_LINES:
                for name, code, python in trees:
                    seconds, cpu, rc = timed(code, argv, cwd, python)
                    times.setdefault((what, name), []).append(seconds)
                    cpus.setdefault((what, name), []).append(cpu)
                    codes[(what, name)] = rc
    print(f"Machine: {describe()}; load average {load:.1f} at the start.\n")
    for name, code, python in trees:
        print(f"- {name}: {code} run by {python}")
    print("\nWall time, fastest (median), and least CPU:\n")
    header = "| command line | exit |" + "".join(f" {name} | CPU |" for name, _, _ in trees)
    print(header)
    print("|---|---:|" + "---:|---:|" * len(trees))
    for what, argv in COMMAND_LINES:
        shown = " ".join(a if not a.startswith("/") else Path(a).name for a in argv)
        cells = "".join(
            f" {min(times[(what, n)]):.3f} s ({statistics.median(times[(what, n)]):.3f})"
            f" | {min(cpus[(what, n)]):.3f} s |"
            for n, _, _ in trees
        )
        print(f"| {what}: `warmup {shown}` | {codes[(what, 'now')]} |{cells}")


if __name__ == "__main__":
    main()
