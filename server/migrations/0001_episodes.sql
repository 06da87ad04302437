-- Episodes and their steps. One schema for SQLite and PostgreSQL: only TEXT and BIGINT columns,
-- JSON kept as text.

CREATE TABLE episodes (
    id TEXT PRIMARY KEY,
    env TEXT NOT NULL,
    env_version TEXT NOT NULL,
    env_hash TEXT NOT NULL,
    -- The u64 seed's bits, as a signed 64-bit integer.
    seed BIGINT NOT NULL,
    task TEXT NOT NULL,
    observation TEXT NOT NULL,
    forked_from TEXT,
    forked_after BIGINT,
    -- open | over | expired
    state TEXT NOT NULL,
    outcome TEXT,
    created_ms BIGINT NOT NULL,
    ended_ms BIGINT
);

CREATE INDEX episodes_by_state ON episodes (state);

CREATE TABLE steps (
    episode_id TEXT NOT NULL REFERENCES episodes (id),
    idx BIGINT NOT NULL,
    request_id TEXT,
    -- The step as recorded (action, status, validation, mask, observation, events, timings) and
    -- the mask offered after it.
    record TEXT NOT NULL,
    PRIMARY KEY (episode_id, idx),
    UNIQUE (episode_id, request_id)
);
