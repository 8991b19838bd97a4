"""DuckDB, imported inside :func:`toolkit.interrupts.signals_held`: every toolkit module
takes it from here (``from toolkit.native import duckdb``), so its native module sets
itself up before a Ctrl-C or SIGTERM of the command line is raised (in its nanobind setup
one printed "Critical nanobind error" and a traceback instead of the one line)."""

from toolkit.interrupts import signals_held

with signals_held():
    import duckdb

__all__ = ["duckdb"]
