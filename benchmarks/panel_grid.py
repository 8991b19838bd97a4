"""The small multiples drawn in the page (issue 19 item 2): report size and drawing time,
side by side with a baseline checkout that shipped 48 pre-built Plotly panels.

Inputs: the 44 real ClickBench results (``../shared/real/clickbench``, read in place) and
2,000 copies of them (``clickbench_copies.write_copies``, names and dates varied, written
under ``benchmarks/_data/``). For each, ``warmup report FOLDER -o FILE`` runs twice as a
user would: with this checkout and with the baseline commit (``git archive`` into
``benchmarks/_data/``), and both reports open offline in Debian chromium (Playwright,
file://, other requests blocked). Recorded: report bytes and the trajectories section's
share (its HTML and its report-data), wall time of ``warmup report``, time to the page's
load event, series reachable vs drawn, console errors; for this checkout also the time to
filter to one series and to draw the next page of panels (in the page, performance.now).

Run: ``python benchmarks/panel_grid.py [--baseline COMMIT] [--copies N]`` (from the
checkout; ~3 min). Writes its section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

from clickbench_copies import write_copies
from machine import describe
from results import markers, publish

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "_data"
REAL = ROOT.parent / "shared" / "real" / "clickbench"
#: the merge base this branch started from: the last commit with server-side panels
BASELINE = "f794ffc"
LIMIT_BYTES = 8_000_000
NAME = "panel_grid"
SECTION = "## Small multiples drawn in the page (`benchmarks/panel_grid.py`)"


def checkout(commit: str) -> Path:
    """The baseline's files under ``benchmarks/_data/baseline-COMMIT`` (git archive)."""
    target = DATA / f"baseline-{commit}"
    if not (target / "toolkit").is_dir():
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(target, filter="data")
    return target


def report(code: Path, folder: Path, out: Path) -> float:
    """``warmup report folder -o out`` with the toolkit of ``code``; wall seconds."""
    env = {**os.environ, "PYTHONPATH": str(code), "SOURCE_DATE_EPOCH": "1700000000"}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "report", str(folder), "-o", str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=code,
    )
    if done.returncode != 0:
        raise SystemExit(f"warmup report failed ({code}):\n{done.stderr[-2000:]}")
    return time.perf_counter() - start


def trajectories_bytes(html: str) -> tuple[int, int, int]:
    """(section HTML bytes, its report-data bytes, series in it) of a report."""
    start = html.index('<section id="trajectories">')
    section = len(html[start : html.index("</section>", start)].encode("utf-8"))
    match = re.search(r'id="report-data">(.*?)</script>', html, re.S)
    assert match is not None
    data = json.loads(match.group(1))["sections"]["trajectories"]
    payload = json.dumps(data, separators=(",", ":")).encode("utf-8")
    return section, len(payload), len(data["series"]["query"])


FILTER_JS = """([suite, query]) => {
  const grid = document.getElementById("grid-trajectories");
  const t0 = performance.now();
  const select = grid.querySelector("[data-filter=suite]");
  select.value = Array.from(select.options).find(o => o.textContent === suite).value;
  select.dispatchEvent(new Event("change"));
  const box = grid.querySelector("[data-filter=query]");
  box.value = query;
  box.dispatchEvent(new Event("input"));
  const filtered = performance.now() - t0;
  box.value = "";
  box.dispatchEvent(new Event("input"));
  select.value = "";
  select.dispatchEvent(new Event("change"));
  const t1 = performance.now();
  grid.querySelector(".grid-more").click();
  return [filtered, performance.now() - t1, Number(grid.dataset.matched),
          Number(grid.dataset.drawn)];
}"""


def browse(path: Path, pick: tuple[str, str] | None) -> dict[str, Any]:
    """Open ``path`` offline: load time, panels drawn, errors; with ``pick`` (suite,
    query) also the in-page times to filter to it and to draw the next page."""
    from playwright.sync_api import sync_playwright

    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        raise SystemExit("Debian chromium not installed (apt-get install chromium)")
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=exe, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
        page.route(
            "**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort()
        )
        start = time.perf_counter()
        page.goto(path.resolve().as_uri())
        page.wait_for_load_state("load")
        # plotly.js is inflated after load (reports/plotly-loader.js); report.js marks its end
        page.wait_for_selector("html[data-report=ready]", state="attached")
        load_s = time.perf_counter() - start
        panels = page.evaluate(
            "Array.from(document.querySelectorAll('#trajectories .panel'))"
            ".filter(p => p.querySelector('.main-svg')).length"
        )
        out: dict[str, Any] = {"load_s": load_s, "panels": panels, "errors": errors}
        if pick is not None:
            filtered, more, matched, drawn = page.evaluate(FILTER_JS, list(pick))
            page.wait_for_timeout(500)  # plotly's deferred steps of the purged plots
            out |= {"filter_ms": filtered, "more_ms": more, "matched": matched, "drawn": drawn}
        browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--copies", type=int, default=2000)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]
    base = checkout(args.baseline)
    copies = DATA / f"clickbench-{args.copies}"
    if not copies.is_dir():
        write_copies(REAL, copies, args.copies)
    rows = []
    for label, folder in (("44 real files", REAL), (f"{args.copies:,} copies", copies)):
        sizes = {}
        for who, code in (("baseline", base), ("this", ROOT)):
            out = DATA / f"panels-{who}-{folder.name}.html"
            seconds = report(code, folder, out)
            html = out.read_text(encoding="utf-8")
            section, data, series = trajectories_bytes(html)
            web = browse(
                out, ("MonetDB / c6a.4xlarge / 2022-07-01", "Q19") if who == "this" else None
            )
            sizes[who] = {
                "bytes": out.stat().st_size,
                "section": section,
                "data": data,
                "series": series,
                "report_s": seconds,
                **web,
            }
            print(f"{label} {who}: {sizes[who]}", file=sys.stderr)
        rows.append((label, sizes))
    lines = [
        markers(NAME)[0],
        SECTION,
        "",
        f"Machine: {describe()}. Load average {load:.1f} at the start"
        + (
            " (**shared with other jobs**: times are inflated and indicative only; sizes are "
            "exact)."
            if load > 0.5
            else " (otherwise idle); sizes are exact."
        ),
        "",
        f"`warmup report FOLDER` with this checkout and with {args.baseline} (48 pre-built "
        "Plotly panels), then each report opened offline in Debian chromium. Section = the "
        "trajectories section's HTML; data = its report-data.",
        "",
        "| input | code | report | ÷ baseline | section HTML | section data | series | "
        "panels drawn at load | report time | page load |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ok = True
    for label, sizes in rows:
        for who in ("baseline", "this"):
            s = sizes[who]
            ok &= not s["errors"]
            lines.append(
                f"| {label} | {who} | {s['bytes']:,} | "
                f"{s['bytes'] / sizes['baseline']['bytes']:.3f} | {s['section']:,} | "
                f"{s['data']:,} | {s['series']:,} | {s['panels']} | {s['report_s']:.1f} s | "
                f"{s['load_s']:.2f} s |"
            )
    lines += ["", "In the page (this checkout): series reachable, filter to one, next page:", ""]
    lines += [
        "| input | reachable | filter to MonetDB Q19 | draw 24 more |",
        "|---|---:|---:|---:|",
    ]
    for label, sizes in rows:
        s = sizes["this"]
        ok &= s["matched"] == s["series"] and s["drawn"] == 48
        lines.append(
            f"| {label} | {s['matched']:,} of {s['series']:,} | {s['filter_ms']:.0f} ms | "
            f"{s['more_ms']:.0f} ms |"
        )
    smaller = all(s["this"]["bytes"] <= s["baseline"]["bytes"] for _, s in rows)
    lines += [
        "",
        "Verdict: "
        + (
            "**holds**: every series reachable, no console errors, "
            + ("each report smaller than the baseline's." if smaller else "a report GREW.")
            if ok
            else "**DOES NOT HOLD**."
        ),
        "",
        markers(NAME)[1],
    ]
    publish("\n".join(lines), NAME, no_write=args.no_write)
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
