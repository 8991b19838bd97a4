-- Schema version 2: JMeter samples and summariser windows.

-- One row per JMeter sample (CSV or XML JTL).
CREATE TABLE samples (
    suite_id       BIGINT NOT NULL,
    source_id      BIGINT NOT NULL,
    start_ms       BIGINT,               -- epoch milliseconds, UTC (NULL: file has no timeStamp)
    elapsed_ms     BIGINT,               -- NULL: file has no elapsed column
    latency_ms     BIGINT,
    connect_ms     BIGINT,
    idle_ms        BIGINT,
    label          VARCHAR NOT NULL,
    response_code  VARCHAR,
    response_message VARCHAR,
    success        BOOLEAN,              -- NULL: file has no success column
    failure_message VARCHAR,
    thread_name    VARCHAR,
    data_type      VARCHAR,
    bytes          BIGINT,
    sent_bytes     BIGINT,
    grp_threads    INTEGER,
    all_threads    INTEGER,
    url            VARCHAR,
    sample_count   INTEGER,
    error_count    INTEGER,
    hostname       VARCHAR,
    is_transaction BOOLEAN NOT NULL,
    is_subresult   BOOLEAN NOT NULL,
    line           BIGINT                -- record number in the source file (XML: sample number)
);

-- One row per summariser line (summary + / summary =) of a JMeter console or jmeter.log.
CREATE TABLE load_windows (
    suite_id       BIGINT NOT NULL,
    source_id      BIGINT NOT NULL,
    name           VARCHAR NOT NULL,     -- summariser name, usually 'summary'
    kind           VARCHAR NOT NULL,     -- '+' (delta window) or '=' (running total)
    window_end     TIMESTAMPTZ,          -- log timestamp where the line has one
    seconds        DOUBLE NOT NULL,
    count          BIGINT NOT NULL,
    rate           DOUBLE,               -- samples per second as printed (NULL: printed ******)
    avg_ms         DOUBLE,
    min_ms         BIGINT,
    max_ms         BIGINT,
    errors         BIGINT,
    active_threads INTEGER,
    started        INTEGER,
    finished       INTEGER,
    line           BIGINT
);
