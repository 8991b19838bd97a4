-- Schema version 3: query-profile exports (research/profiles.md §11, simplified).
-- Bytes are integers; times are milliseconds; shares and fractions are 0..1; NULL = not reported.

-- One row per profiled execution of a query.
CREATE TABLE query_runs (
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

-- One row per operator of a profiled execution.
CREATE TABLE operator_runs (
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
