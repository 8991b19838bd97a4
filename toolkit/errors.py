"""The errors a user can fix. The CLI prints ``str(exc)`` on one line and exits 1.

Anything else that escapes is a bug and stays a traceback.
"""

from __future__ import annotations

from pathlib import Path


class ToolkitError(Exception):
    """Base class: something the user can fix (bad input, bad option, locked store)."""


class InputFormatError(ToolkitError):
    """An input file is not in the format the toolkit expected.

    The message names the file, and the line or field where it applies, so the user can
    find the problem: ``results.json: field 'result[3][1]': expected a number or null,
    got "fast"``.
    """

    def __init__(
        self,
        path: Path | str,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        where = str(path)
        if line is not None:
            where = f"{where}:{line}"
        if field is not None:
            where = f"{where}: field {field!r}"
        super().__init__(f"{where}: {message}")
        self.path = Path(path)
        self.line = line
        self.field = field


class UnrecognisedFormatError(InputFormatError):
    """No ingester recognises the file, or it is empty (a folder walk skips such files; a
    file named on its own is an error). ``skip_note`` is what a folder walk says instead."""

    def __init__(self, path: Path | str, message: str, *, skip_note: str) -> None:
        super().__init__(path, message)
        self.skip_note = skip_note


class UnreadableFileError(InputFormatError):
    """An input file the toolkit is not allowed to read, or whose disk fails a read
    (``PermissionError``, ``EIO``). A file named on its own is an error; a folder walk
    skips it with a warning and goes on (``ingest-file-skipped``)."""

    #: how the message of every such error begins after the path (the skip's reason)
    REASON = "cannot be read"

    def __init__(self, path: Path | str, cause: OSError) -> None:
        super().__init__(
            path,
            f"{self.REASON} ({cause.strerror or cause}): give this user read access "
            "(chmod a+r), or check the disk it is on",
        )
        self.reason = str(self).split(": ", 1)[1]


class StoreError(ToolkitError):
    """The store cannot be opened or written (locked, damaged, wrong version)."""


class StoreDamagedError(StoreError):
    """The store file is damaged (a checksum that does not match, a file cut short, a WAL
    that cannot be replayed) or is not a store at all; nothing was written to it."""


class StoreVersionError(StoreError):
    """The store was written by a newer warmup-toolkit than this one."""


class DuplicateSourceError(StoreError):
    """The file (same SHA-256) is already stored as ``source_id``; pass ``replace``."""

    def __init__(self, path: Path | str, source_id: int) -> None:
        super().__init__(f"{path}: already stored as source {source_id}")
        self.source_id = source_id


class UsageError(ToolkitError):
    """An option or argument value the toolkit cannot use (unknown suite, bad reference)."""
