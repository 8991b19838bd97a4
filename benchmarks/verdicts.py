"""The verdict table: every judgement the toolkit makes on every real input and fixture.

Runs the warm-up engine, the gap and window-error rules, the cache rules and the load-test
analysis (the findings engine, ``toolkit.pipeline.findings``) on each input folder of
``../shared/real`` (ClickBench results, profile exports, JMeter files and real runs) and of
``fixtures/``, and writes ``benchmarks/VERDICTS.md``: per iteration suite the class counts,
the window's error with its parts; per cache series its verdict; per load suite and label
the class, warm-up end and steady rate with its CI; and every problem and warning finding,
one line each. ``tests/test_verdicts.py`` regenerates it and fails when a verdict changed
without the file being regenerated, so every change of judgement shows in review.

Run: ``python benchmarks/verdicts.py`` (from the checkout, ``../shared`` beside it; ~40 s).
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from toolkit.config import Settings  # noqa: E402
from toolkit.ingest import ingest_paths  # noqa: E402
from toolkit.pipeline.findings import Analyses, family_findings  # noqa: E402
from toolkit.store import open_store  # noqa: E402

OUTPUT = ROOT / "benchmarks" / "VERDICTS.md"
REAL = ROOT.parent / "shared" / "real"
FIXTURES = ROOT / "fixtures"

#: input groups: a name and the paths read into one store (relative to their root)
GROUPS: tuple[tuple[str, Path, tuple[str, ...]], ...] = (
    ("real/clickbench", REAL, ("clickbench",)),
    ("real/profiles", REAL, ("profiles",)),
    ("real/jmeter", REAL, ("jmeter",)),
    ("real/jmeter-runs", REAL, ("jmeter-runs",)),
    ("fixtures/clickbench", FIXTURES, ("clickbench",)),
    ("fixtures/profiles", FIXTURES, ("profiles",)),
    ("fixtures/jmeter", FIXTURES, ("jmeter/baseline.jtl.gz", "jmeter/candidate.jtl.gz")),
    ("fixtures/jmeter/recorded_warmup", FIXTURES, ("jmeter/recorded_warmup",)),
)


def _num(value: Any, fmt: str = ".3g") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return format(value, fmt)


def _pct(value: Any) -> str:
    return "–" if value is None else f"{value * 100:+.1f} %"


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _iteration_rows(analyses: Analyses, findings: Sequence[Any]) -> list[str]:
    detections = analyses.detections()
    if not detections:
        return []
    by_suite: dict[str, list[Any]] = {}
    for d in detections:
        by_suite.setdefault(d.suite, []).append(d)
    window = {f.subject: f for f in findings if f.rule == "window-error"}
    lines = [
        "| suite | series | classes | window error (transient + order statistic) | k for target |",
        "|---|---|---|---|---|",
    ]
    for suite, series in by_suite.items():
        # a short series (at most 5 runs) shows the cold/hot detector's class, as the report
        classes = Counter(
            f"short:{d.analysis.short.short_class}"
            if d.analysis.series_class == "short" and d.analysis.short is not None
            else d.analysis.series_class
            for d in series
        )
        counts = ", ".join(f"{k} {v}" for k, v in sorted(classes.items()))
        w = window.get(suite)
        error = (
            f"{_pct(w.numbers.get('error'))} = {_pct(w.numbers.get('transient'))} + "
            f"{_pct(w.numbers.get('order_statistic'))} ({w.severity})"
            if w is not None
            else "–"
        )
        k = "–" if w is None else _num(w.numbers.get("k_for_target"), "")
        lines.append(f"| {_cell(suite)} | {len(series)} | {counts} | {error} | {k} |")
    return lines


def _cache_rows(analyses: Analyses) -> list[str]:
    results = analyses.cache()
    if not results:
        return []
    lines = [
        "| series | runs | verdict | warm from run | elapsed per run (s) | local share per run |",
        "|---|---|---|---|---|---|",
    ]
    for s in results:
        elapsed = ", ".join(_num(r.elapsed_s) for r in s.runs)
        shares = ", ".join("–" if r.local_share is None else f"{r.local_share:.0%}" for r in s.runs)
        lines.append(
            f"| {_cell(s.series)} | {len(s.runs)} | {getattr(s, 'verdict', '–')} | "
            f"{_num(s.runs_to_warm, '')} | {elapsed} | {shares} |"
        )
    return lines


def _load_rows(analyses: Analyses) -> list[str]:
    result = analyses.load()
    if result is None:
        return []
    lines = [
        "| suite | label | samples | class (rule) | warm-up end (s) | steady rate /s [95 % CI] |",
        "|---|---|---|---|---|---|",
    ]
    for suite in result[1]["suites"]:
        # labels too short for any verdict are one row per suite: their count
        short = [
            x for x in suite["labels"] if x["label"] != "ALL" and x["warmup_status"] == "too-short"
        ]
        if len(short) > 2:
            samples = sum(int(x["samples"]) for x in short)
            lines.append(
                f"| {_cell(suite['suite'])} | {len(short)} labels of 1–"
                f"{max(int(x['samples']) for x in short):,} samples | {samples:,} | "
                "too-short | – | – |"
            )
        for label in suite["labels"]:
            if len(short) > 2 and label in short:
                continue
            qps = label["throughput"]
            ci = qps.get("steady_ci")
            rate = (
                f"{_num(qps['steady'], ',.1f')} [{_num(ci[0], ',.1f')}–{_num(ci[1], ',.1f')}]"
                if qps.get("steady") is not None and ci
                else "–"
            )
            rule = label.get("warmup_rule")
            status = label["warmup_status"] + (f" ({rule})" if rule else "")
            lines.append(
                f"| {_cell(suite['suite'])} | {_cell(label['label'])} | {label['samples']:,} | "
                f"{status} | {_num(label['warmup_end_s'], '.1f')} | {rate} |"
            )
    return lines


def group_verdicts(name: str, root: Path, paths: Sequence[str]) -> list[str]:
    """The markdown of one input group, read into one in-memory store."""
    with open_store() as store:
        ingest_paths(store, [root / p for p in paths])
        analyses = Analyses(store, Settings())
        findings = family_findings(analyses)
        out = [f"## {name}", ""]
        for title, rows in (
            ("Iteration suites", _iteration_rows(analyses, findings)),
            ("Cache series", _cache_rows(analyses)),
            ("Load suites", _load_rows(analyses)),
        ):
            if rows:
                out += [f"### {title}", "", *rows, ""]
        serious = [f for f in findings if f.severity in ("problem", "warning")]
        out += [f"### Problems and warnings ({len(serious)} of {len(findings)} findings)", ""]
        out += [f"- **{f.severity}** `{f.rule}`: {_cell(f.sentence())}" for f in serious]
        out.append("")
    return out


def verdicts_markdown() -> str:
    """The whole of ``VERDICTS.md``."""
    lines = [
        "# Verdicts on every real input and fixture",
        "",
        "Written by `python benchmarks/verdicts.py` (the findings engine with default "
        "settings); `tests/test_verdicts.py` fails when a verdict here changes without this "
        "file being regenerated. Percentages are the window's error against the warm-up "
        "engine's steady state; rates are samples per second.",
        "",
    ]
    for name, root, paths in GROUPS:
        lines += group_verdicts(name, root, paths)
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    text = verdicts_markdown()
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT} ({len(text.splitlines())} lines)")


if __name__ == "__main__":
    main()
