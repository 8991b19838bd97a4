"""Benchmark: the cost of the load analysis' change-point and warm-up-curve rules.

``timeseries.warmup_end`` as the load analysis runs it (``long_warmup=True``) with and
without ``changepoints`` (PELT on throughput and latency, the latency's fitted warm-up
curve), side by side in one run on the same series, as a ratio. Inputs are generated here:
closed-loop 1 s windows of 10 threads, a linear service-time ramp over the first quarter
of the run (160 → 40 ms) into 5 % noise, at 600, 3,600 and 36,000 windows (10 min, 1 h,
10 h). Each is timed as the median of ``--repeats`` calls. The results check themselves:
the ends with the rules lie within 10 % of the ramp's end.

Run ``python benchmarks/load_rules.py``; ``--no-write`` keeps RESULTS.md as it is.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from machine import describe  # noqa: E402
from results import markers, write_section  # noqa: E402

from toolkit.analyze.timeseries import warmup_end  # noqa: E402

SIZES = (600, 3_600, 36_000)


def series(
    windows: int, seed: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """Counts and mean latencies per 1 s window, and the ramp's end (s)."""
    rng = np.random.default_rng(seed)
    t = np.arange(windows, dtype=np.float64)
    end = windows / 4
    service = 40.0 * (1.0 + 3.0 * np.clip(1.0 - t / end, 0.0, None))
    noise = np.exp(0.05 * rng.standard_normal(windows))
    latency = service * noise
    counts = rng.poisson(10 * 1000.0 / latency).astype(np.float64)
    return counts, latency, end


def timed(call: object, repeats: int) -> tuple[float, object]:
    """Median wall seconds of ``repeats`` calls of ``call`` and its last result."""
    assert callable(call)
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = []
    for windows in SIZES:
        counts, latency, end = series(windows, seed=windows)
        base_s, base = timed(
            lambda c=counts, lat=latency: warmup_end(c, lat, window_s=1.0, long_warmup=True),
            args.repeats,
        )
        rules_s, ruled = timed(
            lambda c=counts, lat=latency: warmup_end(
                c, lat, window_s=1.0, long_warmup=True, changepoints=True
            ),
            args.repeats,
        )
        found = getattr(ruled, "end_s", None)
        assert found is not None and abs(found - end) <= 0.1 * end, (windows, found, end)
        rows.append((windows, base_s, getattr(base, "end_s", None), rules_s, found, end))
        print(
            f"{windows:>7} windows: MSER {base_s * 1000:8.1f} ms (end {getattr(base, 'end_s', None)}"
            f"), with the rules {rules_s * 1000:8.1f} ms (end {found}; ramp ends {end:g})",
            file=sys.stderr,
        )
    load = os.getloadavg()
    start, stop = markers("load_rules")
    lines = [
        start,
        "## Load warm-up rules: change points and the warm-up curve (`benchmarks/load_rules.py`)",
        "",
        f"Machine: {describe()}; load average {load[0]:.1f} during the run "
        "(2 cores shared with other developers: times are inflated when it is high).",
        "",
        "`warmup_end` per label series (1 s windows, a linear 160 → 40 ms ramp over the "
        "first quarter, 5 % noise), median of "
        f"{args.repeats} calls, without and with `changepoints=True`, side by side:",
        "",
        "| windows | MSER + plateau | + change points + curve | ratio | end without / with (ramp end) |",
        "|---|---|---|---|---|",
    ]
    for windows, base_s, base_end, rules_s, found, end in rows:
        lines.append(
            f"| {windows:,} | {base_s * 1000:.1f} ms | {rules_s * 1000:.1f} ms | "
            f"{rules_s / base_s:.1f}x | {base_end} / {found} s ({end:g} s) |"
        )
    lines.append(stop)
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        write_section(text, "load_rules")


if __name__ == "__main__":
    main()
