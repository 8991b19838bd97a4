"""Findings: one sentence each, with the numbers and what to do (pyperf-style checks)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["info", "warning", "problem"]


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
