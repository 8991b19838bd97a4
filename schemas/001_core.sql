-- warmup-toolkit store, schema version 1: provenance, suites, iteration timings.
-- Rules (DESIGN.md "The store"): NULL means "not reported", never 0; timestamps are UTC;
-- bytes are integers; every data row carries the source it came from.

CREATE TABLE meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

CREATE SEQUENCE source_ids START 1;

-- One row per ingested file.
CREATE TABLE sources (
    source_id    BIGINT PRIMARY KEY,
    path         VARCHAR NOT NULL,          -- absolute path at ingest time
    sha256       VARCHAR NOT NULL UNIQUE,   -- idempotence key
    format       VARCHAR NOT NULL,          -- e.g. clickbench, iterations-csv, jtl-csv
    bytes        BIGINT NOT NULL,
    rows         BIGINT NOT NULL,           -- data rows written from this file
    ingested_at  TIMESTAMPTZ NOT NULL,
    tool_version VARCHAR NOT NULL,
    warnings     VARCHAR[] NOT NULL
);

CREATE SEQUENCE suite_ids START 1;

-- One row per benchmark run: one ClickBench file, one JMeter test, one profile series set.
CREATE TABLE suites (
    suite_id               BIGINT PRIMARY KEY,
    name                   VARCHAR NOT NULL UNIQUE,
    kind                   VARCHAR NOT NULL,   -- iterations | load | profile
    system                 VARCHAR,
    machine                VARCHAR,
    run_date               DATE,
    cluster_size           VARCHAR,            -- number or a word such as 'serverless'
    proprietary            VARCHAR,
    hardware               VARCHAR,
    tuned                  VARCHAR,
    tags                   VARCHAR[] NOT NULL,
    attributes             VARCHAR NOT NULL,   -- JSON object of strings, e.g. {"STABLE_PATH": "TRUE"}
    comment                VARCHAR,
    load_time_s            DOUBLE,
    data_size_bytes        BIGINT,
    concurrent_qps         DOUBLE,
    concurrent_error_ratio DOUBLE
);

-- Which files fed which suite (a JMeter suite may come from several load generators).
CREATE TABLE suite_sources (
    suite_id  BIGINT NOT NULL,
    source_id BIGINT NOT NULL,
    PRIMARY KEY (suite_id, source_id)
);

-- One row per timed run of a query. iteration 0 is the cold run; seconds NULL = failed.
CREATE TABLE iterations (
    suite_id    BIGINT NOT NULL,
    source_id   BIGINT NOT NULL,
    query       VARCHAR NOT NULL,   -- 'Q0'..'Q42' for ClickBench, free text otherwise
    query_index INTEGER NOT NULL,   -- order of the query in its suite
    process     INTEGER NOT NULL,   -- restart / fork / pexec number, 0 when there is one
    iteration   INTEGER NOT NULL,
    seconds     DOUBLE
);
