"""APDEX thresholds of the load analysis: a light module (the standard library only), so
that the command line can check ``--apdex`` and ``--apdex-per-label`` before it imports
the analyzers (issue 20 item 4)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["ApdexThresholds"]


@dataclass(frozen=True)
class ApdexThresholds:
    """APDEX thresholds in ms, as JMeter's dashboard takes them (research/jmeter.md §4.2):
    ``satisfied_ms`` T (``jmeter.reportgenerator.apdex_satisfied_threshold``, 500) and
    ``tolerated_ms`` F (``apdex_tolerated_threshold``, 1500); ``per_label``
    (``apdex_per_transaction``): ``(pattern, T, F)`` overrides, a pattern being a regular
    expression that must match the whole label (a name with regex characters needs them
    escaped, as in JMeter: ``isMatching`` is a full regex match). JMeter 5.5 takes the first
    pattern that matches (``ReportGenerator``'s threshold selector; it keeps them in a
    hash map, so with several matching patterns its pick is arbitrary: here, the first
    given). The overall rows (``ALL``, the dashboard's ``Total``) use T and F for every
    sample (``ApdexSummaryConsumer``: ``select(null)``)."""

    satisfied_ms: int = 500
    tolerated_ms: int = 1500
    per_label: tuple[tuple[str, int, int], ...] = ()

    @property
    def overall_ms(self) -> tuple[int, int]:
        """(T, F) in ms of the overall rows and of every label no pattern matches."""
        return self.satisfied_ms, self.tolerated_ms

    def for_label(self, label: str) -> tuple[int, int]:
        """(T, F) in ms of one label."""
        for pattern, t_ms, f_ms in self.per_label:
            if re.fullmatch(pattern, label) is not None:
                return t_ms, f_ms
        return self.overall_ms

    def as_json(self) -> dict[str, Any]:
        """The ``apdex_thresholds`` object of ``warmup load --json``."""
        return {
            "satisfied_ms": self.satisfied_ms,
            "tolerated_ms": self.tolerated_ms,
            "per_label": [
                {"pattern": p, "satisfied_ms": t, "tolerated_ms": f} for p, t, f in self.per_label
            ],
        }
