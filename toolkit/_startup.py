"""Imported first by ``toolkit/__init__.py``: when this process is the ``warmup`` command
line, SIGINT and SIGTERM during start-up exit 130 / 143 with one line
(:func:`toolkit.interrupts.install_startup_handlers`). Standard library only."""

from toolkit.interrupts import install_startup_handlers

install_startup_handlers()
