"""Thresholds in one place: ``[tool.warmup]`` in ``pyproject.toml`` or a ``warmup.toml``.

The file is found upwards from the working directory (the first folder holding a
``warmup.toml``, or a ``pyproject.toml`` with a ``[tool.warmup]`` table, wins), or named with
``--config``. Command-line options win over the file; the file wins over the built-in
defaults. The report's provenance lists the file and every value taken from it.

Example::

    [tool.warmup]
    tolerance = 0.05          # a hot value within ±5 % of the reference counts as steady
    target = 0.05             # a window error above 5 % is a finding
    min_effect_ms = 10        # per-query findings below 10 ms are not reported
    load_window = "1s"        # seconds per window of the load-test analysis
    apdex = "500,1500"        # APDEX T,F in ms (JMeter's defaults)
    fail_on = "problem"       # warmup check / --fail-on level
    ignore = ["load-littles-law"]   # finding rules never reported
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

from toolkit.errors import ToolkitError, UsageError

FailLevel = Literal["problem", "warning", "never"]

#: The levels ``--fail-on`` takes: a finding at or above the level makes the command exit 4.
FAIL_LEVELS: tuple[FailLevel, ...] = ("problem", "warning", "never")

CONFIG_FILE = "warmup.toml"


class ConfigError(ToolkitError):
    """A configuration file or value that cannot be used (names the file and the key)."""


@dataclass(frozen=True)
class Settings:
    """The thresholds every analysis and finding rule reads.

    ``tolerance``: a hot value within ±tolerance of the reference counts as steady
    (seed 002's table uses 10 %). ``target``: the largest window error (relative) that is not
    a finding. ``min_effect_ms``: the smallest absolute effect (ms) of a per-query finding
    (10 ms; the rules also require 10 timer-resolution steps). ``load_window``: the window of
    the load-test analysis ("1s"). ``apdex``: JMeter's ``T,F`` thresholds (ms) as ``warmup
    load --apdex`` takes them, ``apdex_per_label`` its per-label spec. ``fail_on``: the
    level at which ``warmup check`` and ``--fail-on`` exit 4. ``ignore``: rule ids never
    reported. ``source``: the file the values came from; ``from_file``: the keys it set.
    """

    tolerance: float = 0.10
    target: float = 0.05
    min_effect_ms: float = 10.0
    load_window: str = "1s"
    apdex: str | None = None
    apdex_per_label: str | None = None
    fail_on: FailLevel = "problem"
    ignore: frozenset[str] = frozenset()
    source: Path | None = field(default=None, compare=False)
    from_file: tuple[str, ...] = field(default=(), compare=False)

    def overridden(self, **options: Any) -> Settings:
        """These settings with every option that is not None taken from ``options`` (the
        command line wins over the file)."""
        given = {k: v for k, v in options.items() if v is not None}
        if "ignore" in given:
            given["ignore"] = frozenset(given["ignore"])
        # a value the command line changed is no longer one taken from the file
        kept = tuple(k for k in self.from_file if k not in given or given[k] == getattr(self, k))
        return replace(self, **given, from_file=kept)

    @property
    def load_window_s(self) -> float:
        """``load_window`` in seconds (:func:`toolkit.options.parse_window`; a value it
        cannot use is a :class:`~toolkit.errors.UsageError` naming the key)."""
        from toolkit.options import parse_window

        return parse_window(self.load_window, "load_window")

    def provenance(self) -> dict[str, Any]:
        """The file and the values taken from it, for the report's provenance."""
        return {
            "file": None if self.source is None else str(self.source),
            "values": {k: _plain(getattr(self, k)) for k in self.from_file},
        }


_KEYS = {f.name for f in fields(Settings)} - {"source", "from_file"}


def _plain(value: Any) -> Any:
    return sorted(value) if isinstance(value, frozenset) else value


def find_config(start: Path | None = None) -> Path | None:
    """The configuration file that applies in ``start`` (default: the working directory):
    walking up, the first ``warmup.toml``, or ``pyproject.toml`` with ``[tool.warmup]``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and "warmup" in _read_toml(pyproject).get("tool", {}):
            return pyproject
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration file: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid TOML ({exc}); fix the file or pass --config"
        ) from None


def load_settings(path: Path | None = None, *, start: Path | None = None) -> Settings:
    """The :class:`Settings` of ``path`` (``--config``), or of the file :func:`find_config`
    finds from ``start``; the defaults when there is none. Unknown keys and values of the
    wrong type are a :class:`ConfigError` naming the file and the key."""
    if path is not None and not path.is_file():
        raise ConfigError(f"{path}: no such configuration file (--config)")
    found = path or find_config(start)
    if found is None:
        return Settings()
    data = _read_toml(found)
    table = data if found.name != "pyproject.toml" else data.get("tool", {}).get("warmup", {})
    if found.name != "pyproject.toml" and "tool" in data and "warmup" in data["tool"]:
        table = data["tool"]["warmup"]  # a warmup.toml may use [tool.warmup] too
    if not isinstance(table, Mapping):
        raise ConfigError(f"{found}: [tool.warmup] must be a table")
    return _settings(found, table)


def _settings(path: Path, table: Mapping[str, Any]) -> Settings:
    values: dict[str, Any] = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{path}: unknown key {key!r} in [tool.warmup]; known: {known}")
        values[name] = _checked(path, key, name, value)
    return Settings(**values, source=path, from_file=tuple(sorted(values)))


def _checked(path: Path, key: str, name: str, value: Any) -> Any:
    def bad(expected: str) -> ConfigError:
        return ConfigError(f"{path}: key {key!r}: expected {expected}, got {value!r}")

    if name in ("tolerance", "target"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad("a fraction such as 0.05")
        if not (math.isfinite(value) and 0 < value < 1):
            raise bad("a fraction between 0 and 1 (0.05 = 5 %)")
        return float(value)
    if name == "min_effect_ms":
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise bad("a non-negative number of milliseconds")
        return float(value)
    if name == "fail_on":
        if value not in FAIL_LEVELS:
            raise bad(" or ".join(FAIL_LEVELS))
        return value
    if name == "ignore":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad('a list of rule ids such as ["load-littles-law"]')
        return frozenset(value)
    if name == "load_window" and isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)  # a bare number of seconds, as --load-window takes it
    if not isinstance(value, str):
        raise bad('a duration such as "1s" or "500ms"' if name == "load_window" else "a string")
    # the string values are read as their command-line options are, and refused here,
    # naming this file and key, not an option the command line never had
    from toolkit.options import parse_apdex, parse_apdex_per_label, parse_window

    parsers: dict[str, Callable[[str, str], object]] = {
        "load_window": parse_window,
        "apdex": parse_apdex,
        "apdex_per_label": parse_apdex_per_label,
    }
    parse = parsers.get(name)
    if parse is not None:
        try:
            parse(value, key)
        except UsageError as exc:
            # the parser's "KEY 'VALUE': what is wrong" (or "KEY: ..."), said once
            detail = str(exc).removeprefix(f"{key} {value!r}: ").removeprefix(f"{key}: ")
            raise ConfigError(f"{path}: key {key!r} = {value!r}: {detail}") from None
    return value


def check_fail_level(value: str) -> FailLevel:
    """``value`` as a fail level, or a :class:`ConfigError` naming the choices."""
    if value not in FAIL_LEVELS:
        raise ConfigError(f"--fail-on: expected {' or '.join(FAIL_LEVELS)}, got {value!r}")
    return value
