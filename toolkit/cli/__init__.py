"""The ``warmup`` command line: a Typer app whose commands are thin wrappers over the library.

Only this package prints. Results go to stdout; messages and progress bars to stderr.
Exit 0 on success, 1 on a user error (one line), 2 on a usage error.
"""

from __future__ import annotations

# Importing a command module registers its commands on ``app``.
from toolkit.cli import (
    cache,  # noqa: F401  (registration)
    detect,  # noqa: F401  (registration)
    gaps,  # noqa: F401  (registration)
    ingest,  # noqa: F401  (registration)
    load,  # noqa: F401  (registration)
    score,  # noqa: F401  (registration)
)
from toolkit.cli.common import app


def main() -> None:
    """Entry point of the ``warmup`` console script and ``python -m toolkit``."""
    app(prog_name="warmup")


__all__ = ["app", "main"]
