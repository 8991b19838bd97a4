"""Each benchmark's own section of ``benchmarks/RESULTS.md``, between its start and end markers.

Shared by the benchmark scripts (run as ``python benchmarks/NAME.py``, so this folder is on
``sys.path``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def markers(name: str) -> tuple[str, str]:
    """The start and end markers of benchmark ``name``'s section."""
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def write_section(text: str, name: str) -> None:
    """Replace the section of benchmark ``name`` in RESULTS.md with ``text`` (which starts
    and ends with its markers), or append it when RESULTS.md has none yet."""
    start, end = markers(name)
    current = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    if start in current and end in current:
        before, rest = current.split(start, 1)
        current = before + text.strip("\n") + rest.split(end, 1)[1]
    else:
        current = current.rstrip("\n") + "\n\n" + text.strip("\n") + "\n"
    RESULTS.write_text(current, encoding="utf-8")


class Timed(Protocol):
    """One measured step (``jtl_ingest.Measure``)."""

    # read-only: the steps are frozen dataclasses
    @property
    def name(self) -> str: ...
    @property
    def wall_s(self) -> float: ...
    @property
    def cpu_s(self) -> float: ...
    @property
    def rss_mib(self) -> float: ...
    @property
    def code(self) -> int: ...
    @property
    def stderr(self) -> str: ...


def print_size(label: str, measures: Iterable[Timed], check: str) -> None:
    """One file size's steps and its truth check, on stderr while the benchmark runs."""
    for m in measures:
        print(
            f"{label:>12} {m.name:>22}: {m.wall_s:7.2f} s wall {m.cpu_s:7.2f} s CPU "
            f"{m.rss_mib:7,.0f} MiB",
            file=sys.stderr,
        )
    print(f"{'':>12} {check}", file=sys.stderr)


def publish(section: str, name: str, *, no_write: bool) -> None:
    """Print ``section`` (``--no-write``) or write it as benchmark ``name``'s section."""
    if no_write:
        print(section)
    else:
        write_section(section, name)
        print(f"wrote {RESULTS}", file=sys.stderr)


def ratio_table(measures: Sequence[Timed]) -> list[str]:
    """Markdown table of the steps, with wall and CPU ratios to the first (the floor)."""
    floor = measures[0]
    lines = [
        "| step | wall s | CPU s | peak RSS MiB | wall ÷ floor | CPU ÷ floor |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for m in measures:
        lines.append(
            f"| {m.name} | {m.wall_s:.2f} | {m.cpu_s:.2f} | {m.rss_mib:,.0f} | "
            f"{m.wall_s / floor.wall_s:.2f} | {m.cpu_s / floor.cpu_s:.2f} |"
        )
    return lines


def require_success(measures: Iterable[Timed]) -> None:
    """Stop the benchmark at the first step that failed, with the end of its stderr."""
    for m in measures:
        if m.code != 0:
            raise SystemExit(f"{m.name} failed (exit {m.code}):\n{m.stderr[-2000:]}")
