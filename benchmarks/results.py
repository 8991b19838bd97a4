"""Each benchmark's own section of ``benchmarks/RESULTS.md``, between its start and end markers.

Shared by the benchmark scripts (run as ``python benchmarks/NAME.py``, so this folder is on
``sys.path``).
"""

from __future__ import annotations

from pathlib import Path

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
