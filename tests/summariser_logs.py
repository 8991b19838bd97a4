"""Generated JMeter summariser logs whose true windows are known (research/jmeter.md §3).

Each window has a true length in seconds (not whole); it is printed as JMeter prints it:
the duration rounded to whole seconds (``(elapsed + 500) / 1000``) and the rate, to one
decimal, as count ÷ the true length. Tests compare the toolkit's figures with the true
windows kept in :class:`Window`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

START = datetime(2026, 11, 22, 3, 0, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Window:
    name: str
    count: int
    seconds: float  #: true length
    min_ms: int
    active: int | None = 150  #: ``Active:`` threads (None: the pre-3.0 line without it)
    avg_ms: int = 30
    errors: int = 0
    #: seconds with no summariser line before this window (a stall: JMeter prints a line
    #: only when a sample completes); shows in a jmeter.log's timestamps only
    pause_s: float = 0.0


def windows(
    *, seed: int, n: int = 20, warm: int = 4, steady_rate: float = 4920.0, scale: float = 1.0
) -> list[Window]:
    """``n`` windows of about 30 s: the first ``warm`` ramp up to ``steady_rate`` × scale."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        rate = steady_rate * scale * (min(1.0, 0.2 + 0.8 * i / warm) if i < warm else 1.0)
        seconds = 30.0 + float(rng.uniform(-0.45, 0.45))
        count = round(rate * seconds * (1 + float(rng.normal(0, 0.004))))
        out.append(Window("", count, seconds, 3 + int(rng.integers(0, 5))))
    return out


def closed_loop(
    threads: list[int],
    *,
    seed: int,
    latency_ms: float = 50.0,
    think_ms: float = 0.0,
    seconds: float = 30.0,
    error_rate: list[float] | None = None,
    capacity: float | None = None,
) -> list[Window]:
    """One window of about ``seconds`` per entry of ``threads`` for a closed loop: N
    threads each completing a request every latency + think time, so the rate is
    N ÷ (R + Z) by Little's law (Poisson noise on the counts); ``error_rate`` per window.
    ``threads[i]`` is the line's ``Active:``, the count when it is printed (the window's
    end): between two lines the threads change linearly, so a window runs with the mean of
    its own and the previous line's count (the first window with its own). ``capacity``
    (/s): a saturated server's throughput; beyond it more threads only queue, so the rate
    stays at it and the latency is N ÷ capacity − think time (Little's law)."""
    rng = np.random.default_rng(seed)
    out = []
    for i, n in enumerate(threads):
        secs = seconds + float(rng.uniform(-0.45, 0.45))
        mean_threads = (n + threads[i - 1]) / 2 if i else n
        rate = mean_threads / ((latency_ms + think_ms) / 1000.0)
        latency = latency_ms
        if capacity is not None and rate > capacity:
            rate, latency = capacity, mean_threads / capacity * 1000.0 - think_ms
        count = int(rng.poisson(rate * secs))
        share = error_rate[i] if error_rate is not None else 0.0
        errors = int(rng.binomial(count, share)) if count else 0
        avg = round(latency * (1 + float(rng.normal(0, 0.01))))
        out.append(Window("", count, secs, 3, n, avg, errors))
    return out


def line(w: Window, name: str) -> str:
    """``w`` as JMeter's ``summary +`` line under ``name``."""
    whole = int(w.seconds + 0.5)
    dur = f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"
    rate = w.count / w.seconds
    pct = 100.0 * w.errors / w.count if w.count else 0.0
    threads = f" Active: {w.active} Started: {w.active} Finished: 0" if w.active is not None else ""
    return (
        f"{name} + {w.count:6d} in {dur} = {rate:6.1f}/s Avg: {w.avg_ms:5d} Min: {w.min_ms:5d} "
        f"Max: {1535:5d} Err: {w.errors:5d} ({pct:.2f}%){threads}"
    )


def console(series: dict[str, list[Window]], *, start: datetime = START) -> list[str]:
    """A JMeter console (``jmeter -n`` stdout) of one run, the summarisers' lines interleaved."""
    epoch = int(start.timestamp() * 1000)
    out = [
        "Creating summariser <summary>",
        "Created the tree successfully using plan.jmx",
        f"Starting standalone test @ {start:%Y %b %d %H:%M:%S} UTC ({epoch})",
    ]
    n = max(len(ws) for ws in series.values())
    for i in range(n):
        for name, ws in series.items():
            if i < len(ws):
                out.append(line(ws[i], name))
    out.append(f"Tidying up ...    @ {start:%Y %b %d %H:%M:%S} UTC ({epoch + 600_000})")
    out.append("... end of run")
    return out


def jmeter_log(series: dict[str, list[Window]], *, start: datetime = START) -> list[str]:
    """A jmeter.log (log4j2 prefix) of one run, each summariser line at its window's end."""
    out = [
        f"{start:%Y-%m-%d %H:%M:%S},100 INFO o.a.j.JMeter: Version 5.6.3",
        f"{start:%Y-%m-%d %H:%M:%S},200 INFO o.a.j.e.StandardJMeterEngine: Running the test!",
    ]
    ends: dict[str, float] = {}
    timed = []
    for name, ws in series.items():
        for w in ws:
            ends[name] = ends.get(name, 0.0) + w.pause_s + w.seconds
            timed.append((ends[name], name, w))
    for end, name, w in sorted(timed, key=lambda t: t[0]):
        at = start + timedelta(seconds=end)
        stamp = f"{at:%Y-%m-%d %H:%M:%S},{at.microsecond // 1000:03d}"
        out.append(f"{stamp} INFO o.a.j.r.Summariser: {line(w, name)}")
    return out


def steady_rate(ws: list[Window], warm: int) -> float:
    """Σcount ÷ Σtrue seconds after the first ``warm`` windows."""
    return sum(w.count for w in ws[warm:]) / sum(w.seconds for w in ws[warm:])


def poisson_completions(
    seconds: float,
    rate: float,
    *,
    seed: int,
    stall: tuple[float, float] | None = None,
    warm_tau_s: float = 0.0,
    cooldown_share: float = 0.0,
) -> np.ndarray:
    """Sample completion times (s from the start, sorted) of a Poisson process at ``rate``
    (/s) over ``seconds``: thinned by ``1 − 0.6·e^(−t/τ)`` for a warm-up of time constant
    ``warm_tau_s`` (5 % from the level at 2.5 τ), and by a linear fall to 0 over the last
    ``cooldown_share`` of the run (threads finishing one by one); none in ``stall``'s
    (start, length) seconds."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0.0, seconds, int(rng.poisson(rate * seconds))))
    keep = np.ones(t.size)
    if warm_tau_s:
        keep *= 1 - 0.6 * np.exp(-t / warm_tau_s)
    if cooldown_share:
        keep *= np.clip((seconds - t) / (cooldown_share * seconds), 0.0, 1.0)
    chosen = rng.uniform(size=t.size) < keep
    if stall is not None:
        chosen &= (t < stall[0]) | (t >= stall[0] + stall[1])
    return t[chosen]


def summarised(completions: np.ndarray, interval: int = 30, *, active: int = 10) -> list[Window]:
    """JMeter's summariser over sample completion times (s, sorted): a line when a sample
    completes at a whole second ``now`` past the last line's + 5 with ``now % interval ≤
    5`` (research/jmeter.md §3), its window the time since the last line. JMeter prints
    only when a sample completes, so a stall over an interval's end lengthens one window."""
    out = []
    last_at, last_second, count = 0.0, 0, 0
    for at in completions.tolist():
        count += 1
        now = int(at)
        if now > last_second + 5 and now % interval <= 5:
            out.append(Window("", count, at - last_at, 3, active))
            last_at, last_second, count = at, now, 0
    if count:
        out.append(Window("", count, float(completions[-1]) - last_at, 3, active))
    return out
