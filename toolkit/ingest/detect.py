"""Pick the input format of a file from its name and first bytes, and say which."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from toolkit.errors import UnrecognisedFormatError

# Importing the ingester modules registers their formats.
from toolkit.ingest import (
    clickbench,  # noqa: F401  (registration)
    iterations,  # noqa: F401  (registration)
    jmeter,  # noqa: F401  (registration)
    jmeter_log,  # noqa: F401  (registration)
    jmeter_xml,  # noqa: F401  (registration)
    profiles,  # noqa: F401  (registration)
)
from toolkit.ingest.guarded import GZIP_ERRORS, damaged_gzip
from toolkit.ingest.registry import FORMATS
from toolkit.options import RESULT_SUFFIXES

HEAD_BYTES = 64 * 1024


def looks_ingestible(path: Path) -> bool:
    """Whether a file in a folder walk should be tried (by suffix; hidden files skipped)."""
    return not path.name.startswith(".") and path.suffix.lower() in RESULT_SUFFIXES


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes of ``path``, decompressed when it is gzip."""
    with path.open("rb") as handle:
        head = handle.read(size)
    if head[:2] == b"\x1f\x8b":
        try:
            with gzip.open(path, "rb") as handle:
                return handle.read(size)
        except GZIP_ERRORS as exc:
            raise damaged_gzip(path, exc) from None
    return head


_HTML_START = re.compile(
    rb"^(?:\xef\xbb\xbf)?\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)[\s>]", re.I | re.S
)


def html_page(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) starts an HTML page, e.g. a JMeter
    dashboard's ``index.html`` saved as ``.jtl``: no format reads one."""
    return _HTML_START.match(head[:4096]) is not None


def detect(path: Path) -> str:
    """Return the first format (by priority) whose sniffer accepts ``path``."""
    head = read_head(path)
    if not head.strip():
        raise UnrecognisedFormatError(
            path, "file is empty; nothing to ingest", skip_note="file is empty"
        )
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        # a UTF-16 text (byte-order mark): the sniffers read it as UTF-8
        head = head[: len(head) // 2 * 2].decode("utf-16", "replace").encode("utf-8")
    for ingester in sorted(FORMATS.values(), key=lambda i: (i.priority, i.name)):
        if ingester.sniff(path, head):
            return ingester.name
    if html_page(head):
        from toolkit.ingest import html_error

        raise html_error(path)
    known = ", ".join(sorted(FORMATS))
    raise UnrecognisedFormatError(
        path,
        f"format not recognised (known formats: {known}); choose one with --format NAME "
        "(every command that reads files), or for a CSV JTL without a header give its "
        "--columns (warmup ingest, load, compare, report)",
        skip_note="format not recognised (not a result file?); to read it, name it with "
        "--format NAME (a CSV JTL without a header: --columns)",
    )
