-- What `agentbench prm eval` and `prm best-of-n` measured, recorded when they are given a
-- database: the web page's PRMs tab shows them. `report` is the command's JSON report.

CREATE TABLE prm_results (
    id TEXT PRIMARY KEY,
    -- eval | best_of_n
    kind TEXT NOT NULL,
    scorer TEXT NOT NULL,
    version TEXT NOT NULL,
    report TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);
