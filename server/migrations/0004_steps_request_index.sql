-- Steps without a request id no longer enter the request-id index: its entries are spread over
-- every open episode, so under load each one dirtied a page of its own in every commit. The
-- uniqueness of (episode_id, request_id) holds as before, through a partial index. SQLite cannot
-- drop a table constraint, so the table is rebuilt (the same SQL on PostgreSQL).

CREATE TABLE steps_rebuilt (
    episode_id TEXT NOT NULL REFERENCES episodes (id),
    idx BIGINT NOT NULL,
    request_id TEXT,
    -- The step as recorded (action, status, validation, mask, observation, events, timings) and
    -- the mask offered after it.
    record TEXT NOT NULL,
    PRIMARY KEY (episode_id, idx)
);

INSERT INTO steps_rebuilt (episode_id, idx, request_id, record)
SELECT episode_id, idx, request_id, record FROM steps;

DROP TABLE steps;

ALTER TABLE steps_rebuilt RENAME TO steps;

CREATE UNIQUE INDEX steps_by_request_id ON steps (episode_id, request_id)
WHERE request_id IS NOT NULL;
