"""Locate the resource folders (``schemas/``, ``reports/``, ``fixtures/``) at run time.

They live at the top of a source checkout (and so of an editable install) and are copied
into ``toolkit/_resources/`` inside a built wheel (``pyproject.toml`` force-include).
"""

from __future__ import annotations

from pathlib import Path

from toolkit.errors import ToolkitError

_PACKAGE_DIR = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """Return the folder ``name`` (``schemas``, ``reports`` or ``fixtures``).

    Looks inside the installed package first (wheel), then beside the package (checkout
    or editable install).
    """
    for candidate in (_PACKAGE_DIR / "_resources" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise ToolkitError(
        f"resource folder {name!r} not found next to {_PACKAGE_DIR}; "
        "reinstall warmup-toolkit (pip install --force-reinstall warmup-toolkit)"
    )
