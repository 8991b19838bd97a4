"""Pipelines: read frames from a store, call the pure analyzers, return results.

The CLI and the report both call these; ``analyze/`` stays free of the store. Each module
also builds the ``--json`` payload of its command (the public contract in DESIGN.md).
"""
