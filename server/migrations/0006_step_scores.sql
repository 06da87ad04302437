-- Scores given to recorded steps after the fact: by `agentbench rescore`, and by the scorers a
-- server runs off the request path. A step's record keeps the scores given as it was recorded
-- (the rule scorer's); reading an episode adds these after them. One row per step and scorer
-- version: scoring a step again with the same version replaces its row.

CREATE TABLE step_scores (
    episode_id TEXT NOT NULL,
    idx BIGINT NOT NULL,
    scorer TEXT NOT NULL,
    version TEXT NOT NULL,
    reward DOUBLE PRECISION NOT NULL,
    -- What the scorer saw, a JSON array of strings.
    labels TEXT NOT NULL,
    -- Why the scorer could not judge the step (then `reward` is 0 and means nothing).
    unmeasured TEXT,
    scored_ms BIGINT NOT NULL,
    PRIMARY KEY (episode_id, idx, scorer, version),
    FOREIGN KEY (episode_id, idx) REFERENCES steps (episode_id, idx)
);
