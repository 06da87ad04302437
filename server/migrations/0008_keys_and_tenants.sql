-- API keys and the tenants they act for. Every episode and run belongs to a tenant: a key sees
-- and changes its own tenant's only. What was recorded before keys existed (or in open mode)
-- belongs to the tenant `default`. An episode a suite run played names the run (`run_id`): it is
-- that run's evidence, and only an admin key deletes it.

CREATE TABLE api_keys (
    -- The key's public part, written in the key itself (`abk_<id>_<secret>`).
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    -- read | run | admin
    scope TEXT NOT NULL,
    label TEXT NOT NULL,
    -- The secret's Argon2id hash, as a PHC string; the secret itself is shown once and not kept.
    secret_hash TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    revoked_ms BIGINT
);

ALTER TABLE episodes ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
ALTER TABLE episodes ADD COLUMN run_id TEXT;
ALTER TABLE runs ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
