"""The machine a benchmark ran on, as one line for ``benchmarks/RESULTS.md``.

Shared by the benchmark scripts (run as ``python benchmarks/NAME.py``, so this folder is on
``sys.path``).
"""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path


def describe(*extra: str) -> str:
    """CPU model, cores, RAM, Python, duckdb and OS, then ``extra`` parts (other versions)."""
    import duckdb

    cpu = platform.processor() or platform.machine() or "unknown CPU"
    ram = "unknown"
    try:
        match = re.search(r"model name\s*:\s*(.+)", Path("/proc/cpuinfo").read_text())
        cpu = match.group(1).strip() if match else cpu
        mem = re.search(r"MemTotal:\s*(\d+) kB", Path("/proc/meminfo").read_text())
        ram = f"{int(mem.group(1)) / 1024**2:.0f} GiB" if mem else ram
    except OSError:
        pass
    parts = [
        f"{cpu}, {os.cpu_count()} cores, {ram} RAM",
        f"Python {platform.python_version()}",
        f"duckdb {duckdb.__version__}",
        *extra,
        f"{platform.system()} {platform.release()}",
    ]
    return ", ".join(parts)
