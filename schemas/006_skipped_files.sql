-- Files an ingest looked at and left out (an error-only ClickBench entry, a system
-- template, a file of no known format met in a folder walk), so that a report or
-- `warmup findings` of the store still says so (rule ingest-file-skipped). One row per
-- path as given to the ingest: the last time it was skipped.
CREATE TABLE skipped_files (
    path    VARCHAR PRIMARY KEY,
    format  VARCHAR NOT NULL,   -- the format that recognised and refused it; '' when none did
    reason  VARCHAR NOT NULL    -- why, as printed ("error-only ClickBench entry (...)")
);
