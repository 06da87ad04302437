-- Which serving node may act on an open episode now, when several nodes share one PostgreSQL
-- database (see server/src/store/leases.rs). A node takes the lease for the length of one
-- request on the episode (`expires_ms` in the future) and gives it back with the request's
-- write (`expires_ms` = 0). Every taking by another node, or after a lapse, raises `fence`, and
-- every write a node makes under a lease names its fence: a node whose lease was taken over
-- cannot record anything more. `used_ms` is when the episode was last acted on, for expiry.
-- Times are the database's clock, so that the nodes' clocks need not agree. A single-node
-- SQLite store has the table too, and leaves it empty.
--
-- No column but the key is indexed: each request updates its episode's row twice, and an update
-- that touches no indexed column is a heap-only (HOT) update, with no index entry to add. The
-- expiry sweep, a few times per TTL, reads the table whole instead.

CREATE TABLE episode_leases (
    episode_id TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    fence BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    used_ms BIGINT NOT NULL
);
