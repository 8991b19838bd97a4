"""``python -m toolkit`` runs the ``warmup`` command line."""

from toolkit.cli import main

main()
