"""Query-profile ingesters: one module per source, all writing ``query_runs`` (and
``operator_runs``) in the units of ``research/profiles.md`` §11."""

from __future__ import annotations

# Importing the modules registers their formats.
from toolkit.ingest.profiles import (  # noqa: F401  (registration)
    databricks,
    duckdb_profile,
    generic,
    snowflake_history,
)
