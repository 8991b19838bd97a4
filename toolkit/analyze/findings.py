"""Findings: one sentence each, with the numbers and what to do (pyperf-style checks)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

Severity = Literal["info", "warning", "problem"]

#: Order of severities in every list of findings: problems first.
SEVERITY_ORDER: dict[str, int] = {"problem": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Finding:
    """A methodology finding shown first in the report and by the CLI.

    ``message`` states the fact with its numbers ("with 2 hot iterations the suite sum is
    48 % above steady state"); ``advice`` says what to do ("run at least 5 hot
    iterations"). ``numbers`` carries the figures for machines.
    """

    rule: str
    severity: Severity
    subject: str
    message: str
    advice: str
    numbers: dict[str, float | int | str | None] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """The finding as a JSON object (rule, severity, subject, message, advice, numbers)."""
        return asdict(self)

    def sentence(self) -> str:
        """The finding as one sentence: message, then advice."""
        return f"{self.message}; {self.advice}." if self.advice else f"{self.message}."


def effect_size(finding: Finding) -> float:
    """The size of a finding's effect, for ranking within one severity: the absolute value
    of ``numbers["effect"]`` (a rule's own figure of how much it matters: seconds lost,
    a relative gap, a share of samples), 0 when a rule gives none."""
    value = finding.numbers.get("effect")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return abs(float(value)) if value == value else 0.0  # NaN ranks as no effect


def rank_findings(findings: list[Finding]) -> list[Finding]:
    """Findings in the order every output shows them: by severity (problems first), then by
    the size of the effect (:func:`effect_size`, largest first); ties keep their order
    (the stable sort keeps each family's own order)."""
    return sorted(findings, key=lambda f: (SEVERITY_ORDER.get(f.severity, 3), -effect_size(f)))


def named(finding: Finding) -> Finding:
    """The finding with its subject leading the message (lists show messages only)."""
    if finding.message.startswith(finding.subject):
        return finding
    return replace(finding, message=f"{finding.subject}: {finding.message}")


def reaches(finding: Finding, level: str) -> bool:
    """True when ``finding`` is at or above ``level`` (``problem``, ``warning``; ``never``
    is reached by none, ``info`` by all)."""
    if level == "never":
        return False
    return SEVERITY_ORDER.get(finding.severity, 3) <= SEVERITY_ORDER.get(level, -1)


#: Figures that several rules may state about one subject (the window's error, a gap, a
#: warm-up end, a steady rate): stated twice, they must agree.
STATED_FIGURES = ("error", "gap", "warmup_end_s", "throughput_steady", "steady_s", "ratio")


def disagreements(findings: list[Finding]) -> list[tuple[Finding, Finding, str]]:
    """Pairs of findings on one subject that state one of :data:`STATED_FIGURES` with a
    different sign, a different value, or the same value at a different severity: two
    answers to one question. Empty when the findings speak with one voice."""
    out: list[tuple[Finding, Finding, str]] = []
    for i, a in enumerate(findings):
        for b in findings[i + 1 :]:
            if a.subject != b.subject:
                continue
            for key in STATED_FIGURES:
                x, y = a.numbers.get(key), b.numbers.get(key)
                if not isinstance(x, int | float) or not isinstance(y, int | float):
                    continue
                if (x > 0) != (y > 0) or abs(x - y) > 1e-9 * max(abs(x), abs(y), 1.0):
                    out.append((a, b, f"{key}: {x!r} vs {y!r}"))
                elif a.severity != b.severity:
                    out.append((a, b, f"{key}: {a.severity} vs {b.severity}"))
    return out
