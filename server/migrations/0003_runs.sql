-- Suite runs (`agentbench run`) and the episodes each played. An episode's result is the JSON
-- line `episodes.jsonl` carries; its steps live in `steps` when the run played in process, or on
-- the server it ran against.

CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    suite TEXT NOT NULL,
    suite_version TEXT NOT NULL,
    suite_hash TEXT NOT NULL,
    agent TEXT NOT NULL,
    -- The run's settings as JSON: trials, mode, limit, server, base URL, git revision.
    settings TEXT NOT NULL,
    -- running | done
    state TEXT NOT NULL,
    -- The report (report.json) once the run is done.
    report TEXT,
    created_ms BIGINT NOT NULL,
    ended_ms BIGINT
);

CREATE TABLE run_episodes (
    run_id TEXT NOT NULL REFERENCES runs (id),
    scenario TEXT NOT NULL,
    trial BIGINT NOT NULL,
    result TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (run_id, scenario, trial)
);
