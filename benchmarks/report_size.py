"""Report size and time for a 10M-sample JMeter test (issue 6: "a 10M-sample load test gives
a report <= 8 MB and renders in Chromium without errors").

Generates ``benchmarks/_data/big.jtl`` (10,000,000 samples, JMeter's default CSV layout,
600 s with a 60 s warm-up; ``toolkit.synthetic.write_jtl``) and a 100,000-sample anchor with
the same profile, runs ``warmup report FILE -o FILE.html`` on each as a user would, records
size and wall time, and opens both reports in Debian's chromium (Playwright, file://, every
other request blocked): no console or page error, every figure drawn (``.main-svg``).

Side by side in one run: the 10M report against the 8 MB limit, against the inlined
plotly.js bundle, and against the 100k report (the size must not grow with samples).
Writes its section of benchmarks/RESULTS.md.

Run: ``python benchmarks/report_size.py [--rows N]`` (from the checkout; ~2 min, ~1 GB JTL).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from machine import describe
from results import RESULTS, markers, write_section

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "_data"
LIMIT_BYTES = 8_000_000
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


def report(jtl: Path, out: Path) -> dict[str, Any]:
    """Run ``warmup report`` as a user would; wall time, peak RSS of the child, size."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOURCE_DATE_EPOCH": "1700000000"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "report", str(jtl), "-o", str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"warmup report failed on {jtl}:\n{done.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "seconds": seconds,
        "bytes": out.stat().st_size,
        "peak_rss_mb": max(peak, before) / 1024,
    }


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
    }


def main() -> None:
    import plotly.offline

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--anchor-rows", type=int, default=100_000)
    args = parser.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]  # before this benchmark's own work raises it
    bundle = len(plotly.offline.get_plotlyjs().encode("utf-8"))
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
        f"plotly.js inlined once is {bundle / 1e6:.2f} MB of it. Verdict: "
        + ("**holds** (≤ 8 MB, every figure drawn, no errors)." if ok else "**DOES NOT HOLD**."),
        "",
    ]
    write_section("\n".join([*lines, END]), "report_size")
    print(f"wrote {RESULTS}")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
