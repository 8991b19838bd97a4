"""Findings of the ingest: files left out, rows rejected, a reading guessed.

An ingest warns on stderr; these rules make the same warnings findings, so the report and
``warmup findings --json`` of a store say what its numbers leave out (issue 19). Pure:
plain rows in (``skipped_files`` and ``sources`` of the store), findings out.

Rules: ``ingest-file-skipped`` (a file of a known format refused, e.g. an error-only
ClickBench entry, or a file that could not be read: warning; a file no format
recognised: info), ``ingest-rows-rejected``
(an ingester dropped or left out rows: warning; ``effect`` = their share of the file's
rows), ``ingest-format-guessed`` (the toolkit chose how to read a field: a time zone, end
times, column names: warning, ``effect`` 1 = the whole file), ``ingest-warning`` (any
other ingest warning: info).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from toolkit.analyze.findings import Finding
from toolkit.errors import UnreadableFileError

#: A warning that says rows were dropped or left out, and the count it gives (the first
#: number before the verb; "dropped it" is one record).
_REJECTED = re.compile(r"\b(dropped|left out)\b")
_COUNT = re.compile(r"(?<![\w.:])(\d+)\s+(?!GiB|MB|s\b)[a-z]")
#: A warning that says how the toolkit chose to read the file.
_GUESSED = re.compile(r"\b(read as|taken as|format guessed)\b")


@dataclass(frozen=True)
class SkippedFile:
    """A file the ingest left out: its path, the format that refused it ('' for none)."""

    path: str
    format: str
    reason: str


@dataclass(frozen=True)
class SourceWarnings:
    """A stored file's warnings and the data rows it wrote."""

    path: str
    rows: int
    warnings: tuple[str, ...]


def _name(path: str) -> str:
    return PurePath(path).name or path


def _without_path(message: str, path: str) -> str:
    """The warning without a leading ``path:`` or ``path:line:`` (the subject names it;
    the warning may name the file as given, the store keeps it absolute)."""
    lead = re.match(r"^\S*?" + re.escape(_name(path)) + r":(\d+:)?\s*", message)
    return message[lead.end() :] if lead else message


def rejected_rows(message: str) -> int | None:
    """Rows a drop warning names (1 for "dropped it"), None when it names no count."""
    if not _REJECTED.search(message):
        return None
    if re.search(r"dropped it\b", message):
        return 1
    found = _COUNT.search(message)
    return int(found.group(1)) if found else None


def ingest_findings(
    skipped: Sequence[SkippedFile], sources: Sequence[SourceWarnings]
) -> list[Finding]:
    """The findings of one store's ingest: one per skipped file and one per warning."""
    found: list[Finding] = []
    for file in skipped:
        known = file.format != ""
        # a file the walk could not open may hold results: as grave as a refused one
        unreadable = file.reason.startswith(UnreadableFileError.REASON)
        if unreadable:
            advice = "give read access to it and ingest the folder again"
        elif known:
            advice = "rerun or fix that benchmark if its results should count"
        else:
            advice = "pass --format NAME if this file holds results"
        found.append(
            Finding(
                rule="ingest-file-skipped",
                severity="warning" if known or unreadable else "info",
                subject=_name(file.path),
                message=f"skipped at ingest: {file.reason}; its results are in no figure",
                advice=advice,
                numbers={"effect": 1.0, "files": 1, "path": file.path, "format": file.format},
            )
        )
    for source in sources:
        subject = _name(source.path)
        for warning in source.warnings:
            text = _without_path(warning, source.path)
            count = rejected_rows(warning)
            if _REJECTED.search(warning):
                share = None if count is None else count / (source.rows + count)
                found.append(
                    Finding(
                        rule="ingest-rows-rejected",
                        severity="warning",
                        subject=subject,
                        message=f"rows rejected at ingest: {text}",
                        advice="check the file: the figures leave these rows out",
                        numbers={
                            "effect": 0.0 if share is None else share,
                            "rows_rejected": count,
                            "rows_kept": source.rows,
                            "path": source.path,
                        },
                    )
                )
            elif _GUESSED.search(warning):
                found.append(
                    Finding(
                        rule="ingest-format-guessed",
                        severity="warning",
                        subject=subject,
                        message=f"read by a guess at ingest: {text}",
                        advice="pass the option the warning names if the guess is wrong",
                        numbers={"effect": 1.0, "path": source.path},
                    )
                )
            else:
                found.append(
                    Finding(
                        rule="ingest-warning",
                        severity="info",
                        subject=subject,
                        message=f"warned at ingest: {text}",
                        advice="check the file if this is unexpected",
                        numbers={"effect": 0.0, "path": source.path},
                    )
                )
    return found
