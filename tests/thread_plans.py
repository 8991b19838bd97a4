"""Generated closed-loop JMeter CSV JTLs with a per-thread start/stop schedule, for the
thread ramp-up rule (``timeseries.thread_ramp_end``, ``pipeline.load._thread_activity``).

Each JMeter thread runs a closed loop: a think time (a timer, which JMeter runs before its
sampler), then a sample, again and again from its start until its stop time (a scheduler
ending the group: no sample starts after it) or its loop count. The load generator is an
event simulation (a heap of sample completions), so each row's ``grpThreads`` and
``allThreads`` are the active threads of its thread group and of its engine when the
sample completes, as JMeter records them (research/jmeter.md §1, columns 12–13), and
thread names are JMeter's ``<group> <group#>-<thread#>``. Rows are written in completion
order with ``timeStamp`` = start time (JMeter 5.x), in the default 17-column layout (plus
``Hostname`` for a distributed test), or without the thread-count columns.

The server: a sample takes ``base_ms`` × max(1, active threads of all engines ÷
``capacity``) × a warm-up factor (1 + ``jit_amp`` falling linearly to 1 at ``jit_end_s``
from the first thread's start: a JIT or cache transient) × lognormal noise. With
``capacity`` below the thread count the server saturates: throughput levels off at
``capacity`` ÷ ``base_ms`` while latency keeps rising with the threads (Little's law).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

T0_MS = 1_795_300_000_000


@dataclass(frozen=True)
class Thread:
    """One JMeter thread: ``group`` (thread group name), ``index`` (its thread#, from 1),
    ``start_s``/``stop_s`` from the test start (None: to the plan's end), ``loops``
    (iterations, then it ends; None: until ``stop_s``), ``think_s`` (timer before each
    sample: uniform in [0, 2·think_s]), ``host`` (its engine's Hostname)."""

    group: str
    index: int
    start_s: float
    stop_s: float | None = None
    loops: int | None = None
    think_s: float = 0.0
    host: str = "engine-1"
    group_number: int = 1
    #: label of sample i of this thread started at t s; default: cycles ``Plan.labels``
    label: Callable[[int, float], str] | None = None

    @property
    def name(self) -> str:
        return f"{self.group} {self.group_number}-{self.index}"


@dataclass(frozen=True)
class Plan:
    threads: Sequence[Thread]
    duration_s: float
    base_ms: float = 100.0
    capacity: float | None = None
    jit_amp: float = 0.0
    jit_end_s: float = 0.0
    sigma: float = 0.3
    labels: tuple[str, ...] = ("home", "search", "item")
    seed: int = 0
    hostname: bool = False  #: write the Hostname column (distributed test)
    thread_counts: bool = True  #: write grpThreads/allThreads
    #: extra per-sample latency factor of a label (a slow label)
    label_factor: dict[str, float] = field(default_factory=dict)


def ramp(
    group: str,
    threads: int,
    *,
    ramp_s: float,
    start_s: float = 0.0,
    stop_s: float | None = None,
    group_number: int = 1,
    host: str = "engine-1",
    think_s: float = 0.0,
    loops: int | None = None,
) -> list[Thread]:
    """A standard Thread Group: ``threads`` threads started ``ramp_s`` / ``threads`` apart
    (JMeter: thread i starts at delay + i·ramp/threads), all stopped at ``stop_s``."""
    return [
        Thread(
            group,
            i + 1,
            start_s + i * ramp_s / threads,
            stop_s,
            loops=loops,
            think_s=think_s,
            host=host,
            group_number=group_number,
        )
        for i in range(threads)
    ]


@dataclass(frozen=True)
class Sample:
    start_ms: int
    elapsed: int
    label: str
    thread: str
    grp: int
    all_: int
    host: str


#: the last plans simulated (:func:`simulate`), by what decides their samples: a test
#: writes one plan with and without the thread-count columns (~45,000 samples, ~0.3 s each)
_SIMULATED: dict[str, list[Sample]] = {}


def simulate(plan: Plan) -> list[Sample]:
    """The samples of ``plan`` in completion order. Which columns are written
    (``thread_counts``, ``hostname``) does not change them: the samples of a plan that
    differs from a recent one only there are that plan's (a plan whose threads choose
    their labels by a function is simulated each time: a function's repr is no key)."""
    if any(th.label is not None for th in plan.threads):
        return _simulate(plan)
    key = repr(replace(plan, threads=tuple(plan.threads), thread_counts=True, hostname=False))
    if key not in _SIMULATED:
        if len(_SIMULATED) >= 4:
            del _SIMULATED[next(iter(_SIMULATED))]
        _SIMULATED[key] = _simulate(plan)
    return list(_SIMULATED[key])


def _simulate(plan: Plan) -> list[Sample]:
    rng = np.random.default_rng(plan.seed)
    end_s = plan.duration_s
    active_grp: dict[tuple[str, str], int] = {}
    active_host: dict[str, int] = {}
    active_total = 0
    # events: (time_s, order, kind, thread index, sample number, sample start, label)
    events: list[tuple[float, int, int, int, int, float, str]] = []
    order = 0
    for k, th in enumerate(plan.threads):
        events.append((th.start_s, order, 0, k, 0, 0.0, ""))
        order += 1
    heapq.heapify(events)
    out: list[Sample] = []

    def begin(k: int, t: float, i: int) -> None:
        # the thread's next iteration: think, then sample (or end)
        nonlocal order, active_total
        th = plan.threads[k]
        stop = min(th.stop_s if th.stop_s is not None else end_s, end_s)
        think = float(rng.uniform(0, 2 * th.think_s)) if th.think_s else 0.0
        start = t + think
        if (th.loops is not None and i >= th.loops) or start >= stop:
            # the thread ends (JMeter's scheduler: no new sample past the end time)
            active_grp[(th.host, th.group)] -= 1
            active_host[th.host] -= 1
            active_total -= 1
            return
        label = th.label(i, start) if th.label else plan.labels[i % len(plan.labels)]
        load = max(1.0, active_total / plan.capacity) if plan.capacity else 1.0
        jit = 1.0
        if plan.jit_amp and start < plan.jit_end_s:
            jit = 1.0 + plan.jit_amp * (1.0 - start / plan.jit_end_s)
        ms = plan.base_ms * load * jit * plan.label_factor.get(label, 1.0)
        ms *= float(rng.lognormal(-(plan.sigma**2) / 2, plan.sigma))
        done = start + max(1.0, round(ms)) / 1000.0
        heapq.heappush(events, (done, order, 1, k, i, start, label))
        order += 1

    while events:
        t, _, kind, k, i, start, label = heapq.heappop(events)
        th = plan.threads[k]
        if kind == 0:
            if t >= end_s:
                continue
            active_grp[(th.host, th.group)] = active_grp.get((th.host, th.group), 0) + 1
            active_host[th.host] = active_host.get(th.host, 0) + 1
            active_total += 1
            begin(k, t, 0)
            continue
        start_ms = T0_MS + round(start * 1000)
        end_ms = T0_MS + round(t * 1000)
        out.append(
            Sample(
                start_ms,
                end_ms - start_ms,
                label,
                th.name,
                active_grp[(th.host, th.group)],
                active_host[th.host],
                th.host,
            )
        )
        begin(k, t, i + 1)
    return out


def write_plan(path: Path, plan: Plan) -> list[Sample]:
    """Write ``plan``'s samples as a JMeter CSV JTL; return them."""
    samples = simulate(plan)
    cols = ["timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName"]
    cols += ["dataType", "success", "failureMessage", "bytes", "sentBytes"]
    if plan.thread_counts:
        cols += ["grpThreads", "allThreads"]
    cols += ["URL", "Latency", "IdleTime", "Connect"]
    if plan.hostname:
        cols.insert(cols.index("IdleTime"), "Hostname")
    lines = [",".join(cols)]
    for s in samples:
        row = [str(s.start_ms), str(s.elapsed), s.label, "200", "OK", s.thread, "text", "true"]
        row += ["", "1024", "200"]
        if plan.thread_counts:
            row += [str(s.grp), str(s.all_)]
        row += [f"https://shop.example.test/{s.label}", str(max(0, s.elapsed - 1))]
        if plan.hostname:
            row.append(s.host)
        row += ["0", "1"]
        lines.append(",".join(row))
    path.write_text("\n".join(lines) + "\n")
    return samples


def last_start_s(samples: Sequence[Sample], plan: Plan) -> float:
    """When the last thread of ``plan`` started (s from the first sample's start)."""
    first = min(s.start_ms for s in samples)
    return max(th.start_s for th in plan.threads) - (first - T0_MS) / 1000.0
