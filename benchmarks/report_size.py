"""Report size and time for a 10M-sample JMeter test (issue 6: "a 10M-sample load test gives
a report <= 8 MB and renders in Chromium without errors") and for ClickBench results (issue
19 item 7: "at 2,000 ClickBench results: report <= 8 MB and <= 15 s; warmup gaps DIR <= 5 s").

Generates ``benchmarks/_data/big.jtl`` (10,000,000 samples, JMeter's default CSV layout,
600 s with a 60 s warm-up; ``toolkit.synthetic.write_jtl``) and a 100,000-sample anchor with
the same profile, runs ``warmup report FILE -o FILE.html`` on each as a user would, records
size and wall time, and opens both reports in Debian's chromium (Playwright, file://, every
other request blocked): no console or page error, every figure drawn (``.main-svg``).

Side by side in one run: the 10M report against the 8 MB limit, against the inlined
plotly.js bundle, and against the 100k report (the size must not grow with samples).

ClickBench: the real result files of ``../shared/real/clickbench`` read in place (44 files)
and those files copied to 2,000 (``clickbench_copies.write_copies``: systems and dates
varied, into ``benchmarks/_data/``): ``warmup report DIR`` (size, wall and CPU time, each
part of the embedded report data), the report's first paint in chromium, and ``warmup gaps
DIR`` (wall and CPU time).

Writes its section of benchmarks/RESULTS.md.

Run: ``python benchmarks/report_size.py [--rows N] [--results N]`` (from the checkout;
~5 min, ~1 GB JTL); ``--only clickbench`` for the ClickBench part alone (~2 min), ``--before
CHECKOUT --before-name NAME`` to run another checkout's report and ``gaps DIR`` side by side.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from machine import describe
from results import RESULTS, markers, write_section

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "_data"
LIMIT_BYTES = 8_000_000
#: issue 19 item 7: the 2,000-result ClickBench report within 15 s, warmup gaps DIR within 5 s
REPORT_LIMIT_S = 15.0
GAPS_LIMIT_S = 5.0
REAL_CLICKBENCH = ROOT.parent / "shared" / "real" / "clickbench"
#: the first words of the ClickBench part of the section (``--only clickbench`` keeps
#: what comes before them)
CLICKBENCH_INTRO = "`warmup report DIR -o report.html` and `warmup gaps DIR`"
START, END = markers("report_size")
SECTION = "## Report size (`benchmarks/report_size.py`)"

sys.path.insert(0, str(ROOT))


def generate(path: Path, rows: int) -> float:
    """Write the JTL unless a file of the same rows is already there; seconds taken."""
    from toolkit.synthetic import write_jtl

    marker = path.with_suffix(".rows")
    if path.exists() and marker.exists() and marker.read_text() == str(rows):
        return 0.0
    start = time.perf_counter()
    write_jtl(path, rows, seed=10, duration_s=600, warmup_s=60)
    marker.write_text(str(rows))
    return time.perf_counter() - start


def run(args: list[str], code: Path = ROOT) -> dict[str, Any]:
    """Run ``python -m toolkit ARGS`` as a user would, with the toolkit of checkout
    ``code``: wall and CPU seconds (user + system, ``os.wait4``) and peak RSS (MB) of that
    command alone, its stdout. The RSS comes from GNU time's %M: a child forked from this
    process would report this process's peak (Linux keeps it across exec)."""
    env = {**os.environ, "PYTHONPATH": str(code), "SOURCE_DATE_EPOCH": "1700000000"}
    gnu_time = shutil.which("time") or "/usr/bin/time"
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile("r") as rss,
    ):
        command = [sys.executable, "-m", "toolkit", *args]
        if Path(gnu_time).exists():
            command = [gnu_time, "-f", "%M", "-o", rss.name, *command]
        start = time.perf_counter()
        child = subprocess.Popen(
            # from ``code``: ``python -m`` puts the working folder first on sys.path
            command,
            env=env,
            stdout=out,
            stderr=err,
            cwd=code,
        )
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"warmup {' '.join(args)} failed:\n{err.read().decode()}")
        stdout = out.read().decode("utf-8", "replace")
        peak_kb = rss.read().strip().splitlines()
    return {
        "seconds": seconds,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mb": int(peak_kb[-1]) / 1024 if peak_kb else math.nan,
        "stdout": stdout,
    }


def report(source: Path, out: Path, code: Path = ROOT) -> dict[str, Any]:
    """``warmup report SOURCE -o OUT``: :func:`run`'s figures and the report's size."""
    done = run(["report", str(source), "-o", str(out)], code)
    return {**done, "bytes": out.stat().st_size}


def data_parts(path: Path) -> dict[str, int]:
    """Bytes of each part of a report: the embedded report data (``report-data``, each
    section's part of it as compact JSON), the inlined plotly.js and the rest (HTML tables,
    figures, CSS, the page's script)."""
    html = path.read_text(encoding="utf-8")
    match = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S
    )
    if match is None:
        raise SystemExit(f"{path}: no report-data")
    raw = match.group(1)
    parts = {"report-data": len(raw.encode("utf-8"))}
    data = json.loads(raw)
    for name, section in data["sections"].items():
        parts[f"report-data: {name}"] = len(
            json.dumps(section, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        )
    return parts


def browse(path: Path) -> dict[str, Any]:
    """Open the report offline in chromium: figures drawn, errors, requests, load time."""
    from playwright.sync_api import sync_playwright

    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        raise SystemExit("Debian chromium not installed (apt-get install chromium)")
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=exe,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))

        def route(r: Any) -> None:
            if r.request.url.startswith("file:"):
                r.continue_()
            else:
                requests.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        start = time.perf_counter()
        page.goto(path.resolve().as_uri())
        page.wait_for_load_state("load")
        # plotly.js is inflated after load (reports/plotly-loader.js); report.js marks its end
        page.wait_for_selector("html[data-report=ready]", state="attached")
        paint = page.evaluate(
            "() => { const p = performance.getEntriesByType('paint')"
            ".find(e => e.name === 'first-contentful-paint'); return p ? p.startTime : null; }"
        )
        ids = page.eval_on_selector_all("div.plotly-graph-div", "els => els.map(e => e.id)")
        drawn = sum(1 for i in ids if page.locator(f"#{i} .main-svg").count() >= 1)
        seconds = time.perf_counter() - start
        page.screenshot(path=str(path.with_suffix(".png")), full_page=True)
        browser.close()
    return {
        "figures": len(ids),
        "drawn": drawn,
        "errors": errors,
        "requests": requests,
        "seconds": seconds,
        "first_paint_s": None if paint is None else paint / 1000,
    }


def gaps_runs(
    folder: Path, before: Path | None, repeat: int
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``warmup gaps FOLDER`` ``repeat`` times with this checkout, alternating with
    ``before`` when given: each checkout's run of least CPU time, with the least wall time
    of its runs (a shared machine only ever adds to either); their stdout must agree."""
    now: list[dict[str, Any]] = []
    then: list[dict[str, Any]] = []
    for _ in range(repeat):
        now.append(run(["gaps", str(folder)]))
        if before is not None:
            then.append(run(["gaps", str(folder)], before))
    if then and then[0]["stdout"] != now[0]["stdout"]:
        raise SystemExit(f"warmup gaps {folder}: stdout differs from the --before checkout's")

    def best(done: list[dict[str, Any]]) -> dict[str, Any]:
        least = min(done, key=lambda r: r["cpu_s"])
        return {**least, "seconds": min(r["seconds"] for r in done), "repeat": len(done)}

    return best(now), best(then) if then else None


def clickbench_runs(
    results: int, before: Path | None = None, repeat: int = 3
) -> list[dict[str, Any]]:
    """The 44 real ClickBench files in place and ``results`` copies of them: report
    (size, times, parts), chromium, ``warmup gaps DIR`` (:func:`gaps_runs`, ``repeat``
    times); with ``before`` (another checkout) its report and ``gaps DIR`` too, side by
    side."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from clickbench_copies import real_results, write_copies

    if not REAL_CLICKBENCH.is_dir():
        raise SystemExit(f"{REAL_CLICKBENCH} not present (the real ClickBench files)")
    copies = DATA / f"clickbench-{results}"
    if len(list(copies.glob("*.json"))) != results:
        shutil.rmtree(copies, ignore_errors=True)
        write_copies(REAL_CLICKBENCH, copies, results)
    runs = []
    for folder, count in ((REAL_CLICKBENCH, len(real_results(REAL_CLICKBENCH))), (copies, results)):
        out = DATA / f"report-clickbench-{count}.html"
        rep = report(folder, out)
        web = browse(out)
        gaps, gaps_before = gaps_runs(folder, before, repeat)
        runs.append({"results": count, **rep, "parts": data_parts(out), "web": web, "gaps": gaps})
        if before is not None:
            runs[-1]["before"] = {
                "report": report(folder, DATA / f"report-clickbench-{count}-before.html", before),
                "gaps": gaps_before,
            }
        paint = web["first_paint_s"]
        print(
            f"{count:>6,} ClickBench results: report {rep['bytes'] / 1e6:.2f} MB in "
            f"{rep['seconds']:.1f} s ({rep['cpu_s']:.1f} s CPU); first paint "
            + ("-" if paint is None else f"{paint:.2f} s")
            + f", {web['drawn']}/{web['figures']} figures, {len(web['errors'])} errors; "
            f"warmup gaps {gaps['seconds']:.1f} s ({gaps['cpu_s']:.1f} s CPU)"
        )
    return runs


def clickbench_lines(runs: list[dict[str, Any]], bundle: int) -> tuple[list[str], bool]:
    """The ClickBench part of the section, and whether the 2,000-result targets hold."""
    repeat = runs[0]["gaps"].get("repeat", 1)
    lines = [
        "",
        CLICKBENCH_INTRO + " on the 44 real ClickBench "
        "result files (`../shared/real/clickbench`, read in place) and on those files copied "
        "to 2,000 (`clickbench_copies.py`: systems and dates varied, each copy its own "
        "suite); first contentful paint of the report in chromium (Playwright, file://). "
        f"`gaps DIR`: {repeat} runs"
        + (", alternating with the before checkout's" if "before" in runs[0] else "")
        + "; the least CPU and the least wall time of them.",
        "",
        "| results | report | report / 8 MB | report wall | report CPU | peak RSS | "
        "first paint | figures drawn | console errors | `gaps DIR` wall | `gaps DIR` CPU |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        paint = r["web"]["first_paint_s"]
        lines.append(
            f"| {r['results']:,} | {r['bytes'] / 1e6:.2f} MB | {r['bytes'] / LIMIT_BYTES:.2f} | "
            f"{r['seconds']:.1f} s | {r['cpu_s']:.1f} s | {r['peak_rss_mb']:,.0f} MB | "
            + ("–" if paint is None else f"{paint:.2f} s")
            + f" | {r['web']['drawn']}/{r['web']['figures']} | {len(r['web']['errors'])} | "
            f"{r['gaps']['seconds']:.1f} s | {r['gaps']['cpu_s']:.1f} s |"
        )
    compared = [r for r in runs if "before" in r]
    if compared:
        lines += [
            "",
            f"Side by side in this run with the toolkit at `{compared[0]['before_name']}` "
            "(before) on the same inputs; ratio = now / before:",
            "",
            "| results | report before | report now | ratio | report CPU before | now | ratio "
            "| `gaps DIR` before | now | ratio | `gaps DIR` CPU before | now | ratio |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in compared:
            b = r["before"]
            cells = [
                (b["report"]["bytes"] / 1e6, r["bytes"] / 1e6, "MB"),
                (b["report"]["cpu_s"], r["cpu_s"], "s"),
                (b["gaps"]["seconds"], r["gaps"]["seconds"], "s"),
                (b["gaps"]["cpu_s"], r["gaps"]["cpu_s"], "s"),
            ]
            lines.append(
                f"| {r['results']:,} | "
                + " | ".join(
                    f"{old:.2f} {unit} | {new:.2f} {unit} | {new / old:.2f}"
                    for old, new, unit in cells
                )
                + " |"
            )
    lines += [
        "",
        "Where the bytes are (MB; report-data parts as compact JSON):",
        "",
        "| part | " + " | ".join(f"{r['results']:,} results" for r in runs) + " |",
        "|---|" + "---:|" * len(runs),
    ]
    names = sorted({k for r in runs for k in r["parts"]}, key=lambda k: (k != "report-data", k))
    rows = [
        ("whole report", [r["bytes"] for r in runs]),
        ("plotly.js (gzip + base64)", [bundle] * len(runs)),
    ]
    rows += [(k, [r["parts"].get(k, 0) for r in runs]) for k in names]
    rows.append(
        (
            "HTML, figures, CSS, script",
            [r["bytes"] - bundle - r["parts"]["report-data"] for r in runs],
        )
    )
    lines += [f"| {k} | " + " | ".join(f"{v / 1e6:.2f}" for v in vs) + " |" for k, vs in rows]
    big = runs[-1]
    holds = {
        "report ≤ 8 MB": big["bytes"] <= LIMIT_BYTES,
        f"report ≤ {REPORT_LIMIT_S:.0f} s wall": big["seconds"] <= REPORT_LIMIT_S,
        f"report ≤ {REPORT_LIMIT_S:.0f} s CPU": big["cpu_s"] <= REPORT_LIMIT_S,
        f"`gaps DIR` ≤ {GAPS_LIMIT_S:.0f} s wall": big["gaps"]["seconds"] <= GAPS_LIMIT_S,
        f"`gaps DIR` ≤ {GAPS_LIMIT_S:.0f} s CPU": big["gaps"]["cpu_s"] <= GAPS_LIMIT_S,
        "every figure drawn, no errors": all(
            r["web"]["drawn"] == r["web"]["figures"] > 0
            and not r["web"]["errors"]
            and not r["web"]["requests"]
            for r in runs
        ),
    }
    lines += [
        "",
        f"At {big['results']:,} results: "
        + "; ".join(
            f"{name}: **{'holds' if ok else 'DOES NOT HOLD'}**" for name, ok in holds.items()
        )
        + " (CPU = user + system time of the command; on a shared machine the wall time also "
        "waits for a core).",
        "",
    ]
    return lines, all(holds.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--anchor-rows", type=int, default=100_000)
    parser.add_argument("--results", type=int, default=2_000, help="ClickBench results")
    parser.add_argument(
        "--before",
        type=Path,
        default=None,
        help="another checkout (e.g. `git archive` of main) to run side by side on ClickBench",
    )
    parser.add_argument("--before-name", default="", help="what --before is, for RESULTS.md")
    parser.add_argument(
        "--only",
        choices=("all", "clickbench"),
        default="all",
        help="clickbench: only the ClickBench part (its JTL part of RESULTS.md is kept)",
    )
    parser.add_argument(
        "--gaps-repeat", type=int, default=3, help="runs of `warmup gaps DIR` per checkout"
    )
    args = parser.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]  # before this benchmark's own work raises it
    from toolkit.report.render import plotlyjs_gzip_base64

    # plotly.js as the report inlines it: gzip + base64 (4.8 MB as text before)
    bundle = len(plotlyjs_gzip_base64().encode("ascii"))
    if args.only == "clickbench":
        only_clickbench(args, bundle, load)
        return
    runs = []
    for rows in (args.anchor_rows, args.rows):
        jtl = DATA / f"big-{rows}.jtl"
        gen = generate(jtl, rows)
        out = DATA / f"report-{rows}.html"
        rep = report(jtl, out)
        web = browse(out)
        runs.append(
            {"rows": rows, "jtl_bytes": jtl.stat().st_size, "gen_s": gen, **rep, "web": web}
        )
        print(
            f"{rows:>11,} samples: JTL {jtl.stat().st_size / 1e6:,.0f} MB (generated in "
            f"{gen:.0f} s), report {rep['bytes'] / 1e6:.2f} MB in {rep['seconds']:.1f} s "
            f"(peak RSS {rep['peak_rss_mb']:.0f} MB); chromium: {web['drawn']}/{web['figures']} "
            f"figures drawn, {len(web['errors'])} errors, {len(web['requests'])} requests, "
            f"{web['seconds']:.1f} s"
        )
    clickbench = clickbench_runs(args.results, args.before, args.gaps_repeat)
    for r in clickbench:
        r["before_name"] = args.before_name or str(args.before)
    small, big = runs
    ok = (
        big["bytes"] <= LIMIT_BYTES
        and all(r["web"]["drawn"] == r["web"]["figures"] > 0 for r in runs)
        and all(not r["web"]["errors"] and not r["web"]["requests"] for r in runs)
    )
    lines = [
        START,
        SECTION,
        "",
        f"Machine: {describe()}. Load average {load:.1f} at the start"
        + (
            " (**shared with other jobs**: times are indicative only; sizes are exact)."
            if load > 0.5
            else " (otherwise idle); sizes are exact."
        ),
        "",
        "`warmup report big.jtl -o report.html` on JMeter CSV JTLs from "
        "`toolkit.synthetic.write_jtl` (600 s, 60 s warm-up, 6 labels, 50 threads), then the "
        "report opened offline in Debian chromium (Playwright, file://, other requests blocked).",
        "",
        "| samples | JTL | report | report / 8 MB limit | report / plotly.js bundle | "
        "report time | peak RSS | figures drawn | console errors |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        lines.append(
            f"| {r['rows']:,} | {r['jtl_bytes'] / 1e6:,.0f} MB | {r['bytes'] / 1e6:.2f} MB | "
            f"{r['bytes'] / LIMIT_BYTES:.2f} | {r['bytes'] / bundle:.2f} | {r['seconds']:.1f} s | "
            f"{r['peak_rss_mb']:,.0f} MB | {r['web']['drawn']}/{r['web']['figures']} | "
            f"{len(r['web']['errors'])} |"
        )
    lines += [
        "",
        f"Size ratio 10M / {small['rows'] // 1000}k samples: "
        f"**{big['bytes'] / small['bytes']:.3f}** ({big['rows'] // small['rows']}x the samples); "
        f"plotly.js inlined once (gzip + base64) is {bundle / 1e6:.2f} MB of it. Verdict: "
        + ("**holds** (≤ 8 MB, every figure drawn, no errors)." if ok else "**DOES NOT HOLD**."),
    ]
    more, clickbench_ok = clickbench_lines(clickbench, bundle)
    lines += more
    write_section("\n".join([*lines, END]), "report_size")
    print(f"wrote {RESULTS}")
    if not (ok and clickbench_ok):
        raise SystemExit(1)


def only_clickbench(args: argparse.Namespace, bundle: int, load: float) -> None:
    """Rerun the ClickBench part alone: the section keeps its JTL part (and the notes
    written under the ClickBench part), the ClickBench part is written anew with this
    run's load average."""
    clickbench = clickbench_runs(args.results, args.before, args.gaps_repeat)
    for r in clickbench:
        r["before_name"] = args.before_name or str(args.before)
    text = RESULTS.read_text(encoding="utf-8")
    if START not in text or CLICKBENCH_INTRO not in text.split(START, 1)[1]:
        raise SystemExit(f"{RESULTS}: no report_size section to keep the JTL part of")
    section = text.split(START, 1)[1].split(END, 1)[0]
    head, tail = section.split(CLICKBENCH_INTRO, 1)
    # the notes after the generated part: everything after its last line ("At N results")
    notes = tail.split("\n\nAt ", 1)[1].split("\n\n", 1)[1] if "\n\nAt " in tail else ""
    more, clickbench_ok = clickbench_lines(clickbench, bundle)
    rerun = (
        f"ClickBench part rerun alone (`--only clickbench`) on {describe()}; load average "
        f"{load:.1f} at its start"
        + (" (**shared with other jobs**: times are indicative only)." if load > 0.5 else ".")
    )
    more.insert(1, rerun)
    more.insert(2, "")
    body = head.rstrip("\n") + "\n" + "\n".join(more) + ("\n" + notes if notes.strip() else "")
    write_section(START + body.rstrip("\n") + "\n\n" + END, "report_size")
    print(f"wrote {RESULTS}")
    if not clickbench_ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
