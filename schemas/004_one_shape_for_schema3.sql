-- Schema version 4: one shape for every store that says schema 3.
-- 002_load.sql and 003_profiles.sql were edited after stores had been written with them
-- (first shipped in commit 9fd0556; edited in 67b6828 and ceebb7e without a new version).
-- A store written before the edits says "schema 3" but has NOT NULL on samples.start_ms,
-- elapsed_ms, success and load_windows.rate, and lacks query_runs.source_format and
-- remote_read_ms and operator_runs.query_id and time_ms; the profile ingesters' positional
-- INSERTs fail on it. This brings both shapes to the current one and keeps every row.
-- Shipped migrations never change: a new shape is a new numbered file.

ALTER TABLE samples ALTER COLUMN start_ms DROP NOT NULL;
ALTER TABLE samples ALTER COLUMN elapsed_ms DROP NOT NULL;
ALTER TABLE samples ALTER COLUMN success DROP NOT NULL;
ALTER TABLE load_windows ALTER COLUMN rate DROP NOT NULL;

-- query_runs: the two new columns in their places (the ingesters insert by position).
ALTER TABLE query_runs ADD COLUMN IF NOT EXISTS source_format VARCHAR;
ALTER TABLE query_runs ADD COLUMN IF NOT EXISTS remote_read_ms DOUBLE;
-- source_format is the ingester's name, which sources.format records for the file
UPDATE query_runs SET source_format = (
    SELECT s.format FROM sources s WHERE s.source_id = query_runs.source_id
) WHERE source_format IS NULL;

CREATE TABLE query_runs_v4 (
    suite_id          BIGINT NOT NULL,
    source_id         BIGINT NOT NULL,
    source_format     VARCHAR NOT NULL,   -- ingester name, e.g. snowflake-history, profile-csv
    series            VARCHAR NOT NULL,   -- parameterized hash, hash, text or given name (+ compute)
    run               INTEGER NOT NULL,   -- 1-based order within the series (ingest order)
    cache_epoch       INTEGER NOT NULL,   -- increments when the cache was known to be dropped
    system            VARCHAR,
    query_id          VARCHAR,
    query_text        VARCHAR,
    warehouse_size    VARCHAR,
    nodes             INTEGER,
    start_time        TIMESTAMPTZ,
    elapsed_ms        DOUBLE,
    compile_ms        DOUBLE,
    exec_ms           DOUBLE,
    bytes_scanned     BIGINT,
    bytes_remote      BIGINT,
    bytes_local       BIGINT,
    bytes_memory      BIGINT,
    cache_fraction    DOUBLE,             -- 0..1 share of bytes scanned served locally
    scan_share        DOUBLE,             -- 0..1 share of time in table scan
    remote_io_share   DOUBLE,             -- 0..1 of the scan
    local_io_share    DOUBLE,
    processing_share  DOUBLE,
    remote_read_ms    DOUBLE,             -- summed over threads/requests (counter sources)
    split_method      VARCHAR NOT NULL,   -- reported | from_fraction | from_counters | unavailable
    result_cache_hit  BOOLEAN NOT NULL,   -- served from a result cache: excluded from warm-up series
    attributes        VARCHAR NOT NULL    -- JSON object with source-specific extras
);
INSERT INTO query_runs_v4 BY NAME SELECT * FROM query_runs;
DROP TABLE query_runs;
ALTER TABLE query_runs_v4 RENAME TO query_runs;

-- operator_runs: query_id and time_ms in their places.
ALTER TABLE operator_runs ADD COLUMN IF NOT EXISTS query_id VARCHAR;
ALTER TABLE operator_runs ADD COLUMN IF NOT EXISTS time_ms DOUBLE;

CREATE TABLE operator_runs_v4 (
    suite_id      BIGINT NOT NULL,
    source_id     BIGINT NOT NULL,
    series        VARCHAR NOT NULL,
    run           INTEGER NOT NULL,
    query_id      VARCHAR,
    operator_id   VARCHAR NOT NULL,
    parent_id     VARCHAR,
    operator_type VARCHAR NOT NULL,
    time_share    DOUBLE,                 -- 0..1 of the query
    time_ms       DOUBLE,                 -- where the source reports a time
    breakdown     VARCHAR NOT NULL,       -- JSON object of time shares within the operator (sum 1)
    io            VARCHAR NOT NULL        -- JSON object of I/O statistics
);
INSERT INTO operator_runs_v4 BY NAME SELECT * FROM operator_runs;
DROP TABLE operator_runs;
ALTER TABLE operator_runs_v4 RENAME TO operator_runs;
