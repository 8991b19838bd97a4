"""A ClickBench results folder of N files made from the real ones (issue 19: "the 44 real
files copied to 2,000, names and dates varied").

Each copy is a real result file (``../shared/real/clickbench``, error-only entries kept as
they are) with its ``system`` suffixed by the copy number and its ``date`` moved back by
that many days, so every copy is its own suite (system / machine / date) with the real
run times. Written to a folder the caller owns (a temporary one); never committed.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path


def real_results(real: Path) -> list[Path]:
    """The real ClickBench result files under ``real`` (``*.json``), sorted."""
    return sorted(real.glob("*.json"))


def write_copies(real: Path, out: Path, count: int) -> list[Path]:
    """Write ``count`` result files into ``out`` (round-robin over the real ones, copy
    ``n`` renamed ``<system> #n`` and dated ``n`` days earlier); their paths."""
    sources = real_results(real)
    if not sources:
        raise FileNotFoundError(f"{real}: no ClickBench result files (*.json)")
    out.mkdir(parents=True, exist_ok=True)
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in sources]
    written = []
    for n in range(count):
        doc = dict(docs[n % len(docs)])
        copy = n // len(docs)
        if copy and "system" in doc:
            doc["system"] = f"{doc['system']} #{copy}"
            if isinstance(doc.get("date"), str):
                day = date.fromisoformat(doc["date"]) - timedelta(days=copy)
                doc["date"] = day.isoformat()
        stem = sources[n % len(sources)].stem
        path = out / f"{stem}__copy{copy:04d}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        written.append(path)
    return written
