"""The table of input formats. Each ingester module registers itself here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.errors import ToolkitError
from toolkit.store import SourceWriter


class SkipFile(ToolkitError):
    """Raised by a loader for a file that holds no data by design (e.g. ClickBench
    ``{"error": ...}``): nothing is stored and the CLI says why in one line."""


@dataclass(frozen=True)
class IngestOptions:
    """Options that apply while ingesting (CLI flags of ``warmup ingest``)."""

    suite: str | None = None  #: suite name (several files with the same name join)
    tags: tuple[str, ...] = ()  #: extra suite tags, ``K=V`` entries go to attributes
    replace: bool = False  #: reload a file already stored
    encoding: str | None = None  #: text encoding of the input, default UTF-8
    delimiter: str | None = None  #: CSV delimiter (JTL)
    columns: tuple[str, ...] | None = None  #: column names of a header-less CSV JTL
    time_format: str | None = None  #: strftime format of JTL timeStamp
    timezone: str | None = None  #: zone of formatted JTL timestamps (JMeter writes local time)
    extra: dict[str, str] = field(default_factory=dict)  #: format-specific options


Loader = Callable[[SourceWriter, Path, IngestOptions], None]
Sniffer = Callable[[Path, bytes], bool]


@dataclass(frozen=True)
class Ingester:
    """One input format: a name, a sniffer over the first bytes, and a loader."""

    name: str
    description: str
    sniff: Sniffer
    load: Loader
    #: lower runs first when several sniffers accept a file
    priority: int = 100


FORMATS: dict[str, Ingester] = {}


def register(ingester: Ingester) -> Ingester:
    """Add ``ingester`` to :data:`FORMATS` (module import time)."""
    FORMATS[ingester.name] = ingester
    return ingester
