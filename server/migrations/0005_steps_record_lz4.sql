-- Step records are stored LZ4-compressed, in `record_lz4`: about a third of their JSON text, so
-- a third of the pages each step writes. Rows recorded before keep their text in `record`; every
-- row has exactly one of the two. `record_lz4` holds the record's UTF-8 length as 4
-- little-endian bytes, then the LZ4 block (lz4_flex's `compress_prepend_size`). SQLite cannot
-- make a column nullable in place, so the table is rebuilt (the same SQL on PostgreSQL; the new
-- name differs from migration 4's, whose primary-key index keeps its old name on PostgreSQL).

CREATE TABLE steps_v5 (
    episode_id TEXT NOT NULL REFERENCES episodes (id),
    idx BIGINT NOT NULL,
    request_id TEXT,
    -- The step as recorded (action, status, validation, mask, observation, events, timings) and
    -- the mask offered after it, as JSON text: steps recorded before this migration.
    record TEXT,
    -- The same, compressed: steps recorded since.
    record_lz4 BYTEA,
    PRIMARY KEY (episode_id, idx),
    CHECK ((record IS NULL) <> (record_lz4 IS NULL))
);

INSERT INTO steps_v5 (episode_id, idx, request_id, record)
SELECT episode_id, idx, request_id, record FROM steps;

DROP TABLE steps;

ALTER TABLE steps_v5 RENAME TO steps;

CREATE UNIQUE INDEX steps_by_request_id ON steps (episode_id, request_id)
WHERE request_id IS NOT NULL;
