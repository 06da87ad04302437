//! Episode leases, for several serving nodes on one PostgreSQL database: which node may act on
//! an open episode now, and the fence that makes a node whose lease was taken over unable to
//! record anything more (`migrations/0009_episode_leases.sql` has the table).
//!
//! A node takes an episode's lease for the length of one request on it (`acquire_lease`) and
//! gives it back with the request's write, whose first statement checks the fence
//! (`Write::fence`), or by `release_lease` when the request writes nothing. A lease not given
//! back (its node died mid-request) lapses after its time to live. Times are the database's
//! clock; the SQL here is PostgreSQL's, the only store that several nodes share.
//!
//! Taking a lease commits without waiting for the disk (`synchronous_commit = off` on the
//! connections of `pool`): it is no record, and a commit that waits for the disk on every request
//! costs. What a crash of the database can undo is then a taking nobody wrote under yet, and the
//! record stays whole even so: a step is written only at the next index of its episode
//! (`PRIMARY KEY (episode_id, idx)`), so a node acting on a stale copy fails to record, and
//! replays.

use std::sync::Arc;
use std::time::Duration;

use sqlx::AnyPool;
use sqlx::Row as _;
use sqlx::any::AnyPoolOptions;

use super::{EpisodeState, Store, StoreError};
use crate::ids::EpisodeId;

/// The database's clock, in milliseconds since the Unix epoch.
macro_rules! db_now_ms {
    () => {
        "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT"
    };
}
pub(super) use db_now_ms;

/// Takes a lease that is free (given back or lapsed) or this node's own (a request of this node
/// that has let go of the episode and not yet given its lease back). Every taking raises the
/// fence, so a node that last held the lease under fence `f` and now gets `f + 1` knows that
/// nobody acted on the episode in between; and a late giving back (which names the old fence)
/// changes nothing.
const ACQUIRE: &str = concat!(
    "INSERT INTO episode_leases AS lease (episode_id, node, fence, expires_ms, used_ms) ",
    "VALUES ($1, $2, 1, ",
    db_now_ms!(),
    " + $3, ",
    db_now_ms!(),
    ") ON CONFLICT (episode_id) DO UPDATE SET ",
    "fence = lease.fence + 1, node = excluded.node, expires_ms = excluded.expires_ms ",
    "WHERE lease.expires_ms < ",
    db_now_ms!(),
    " OR lease.node = excluded.node ",
    "RETURNING lease.fence, ",
    db_now_ms!(),
    " - lease.used_ms, (SELECT state FROM episodes WHERE id = $1)"
);

/// Gives a lease back, if it is still the one named; the episode counts as used now.
pub(super) const RELEASE: &str = concat!(
    "UPDATE episode_leases SET expires_ms = 0, used_ms = ",
    db_now_ms!(),
    " WHERE episode_id = $1 AND node = $2 AND fence = $3"
);

/// The open episodes nobody has acted on for `$1` ms and nobody holds, longest idle first.
const IDLE: &str = concat!(
    "SELECT lease.episode_id FROM episode_leases lease ",
    "JOIN episodes ON episodes.id = lease.episode_id ",
    "WHERE episodes.state = 'open' AND lease.used_ms < ",
    db_now_ms!(),
    " - $1 AND lease.expires_ms < ",
    db_now_ms!(),
    " ORDER BY lease.used_ms LIMIT $2"
);

/// The connections that take and give back leases, on the PostgreSQL database at `url`.
pub(super) async fn pool(url: &str) -> Result<AnyPool, sqlx::Error> {
    AnyPoolOptions::new()
        .max_connections(8)
        .test_before_acquire(true)
        .after_connect(|connection, _| {
            Box::pin(async move {
                sqlx::raw_sql("SET synchronous_commit = off")
                    .execute(connection)
                    .await?;
                Ok(())
            })
        })
        .connect(url)
        .await
}

/// A lease a node holds on an episode: the writes it makes under it name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The node's name for this process (see `Sessions`).
    pub node: Arc<str>,
    pub fence: i64,
}

/// What taking a lease tells: its fence, how long the episode had been idle, and its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    pub fence: i64,
    pub idle: Duration,
    /// `None` when the episode has no record (deleted).
    pub state: Option<EpisodeState>,
}

impl Store {
    /// Whether several nodes may share this store (PostgreSQL), and so act on its episodes
    /// only under leases.
    pub fn shared(&self) -> bool {
        matches!(self.writer, super::Writer::Task(_))
    }

    /// Takes `episode`'s lease for `node` for `ttl`, unless another node holds it.
    pub async fn acquire_lease(
        &self,
        episode: &EpisodeId,
        node: &str,
        ttl: Duration,
    ) -> Result<Option<Grant>, StoreError> {
        let row = sqlx::query(ACQUIRE)
            .bind(episode.as_str())
            .bind(node)
            .bind(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX))
            .fetch_optional(&self.lease_pool)
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let idle_ms: i64 = row.try_get(1)?;
        let state: Option<String> = row.try_get(2)?;
        Ok(Some(Grant {
            fence: row.try_get(0)?,
            idle: Duration::from_millis(idle_ms.max(0).cast_unsigned()),
            state: state.as_deref().map(EpisodeState::parse).transpose()?,
        }))
    }

    /// Gives `episode`'s lease back without a write, if `lease` still holds it.
    pub async fn release_lease(
        &self,
        episode: &EpisodeId,
        lease: &Lease,
    ) -> Result<(), StoreError> {
        sqlx::query(RELEASE)
            .bind(episode.as_str())
            .bind(&*lease.node)
            .bind(lease.fence)
            .execute(&self.lease_pool)
            .await?;
        Ok(())
    }

    /// Up to `limit` open episodes idle for longer than `idle` that no node holds.
    pub async fn idle_episodes(
        &self,
        idle: Duration,
        limit: u32,
    ) -> Result<Vec<EpisodeId>, StoreError> {
        let rows = sqlx::query(IDLE)
            .bind(i64::try_from(idle.as_millis()).unwrap_or(i64::MAX))
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| Ok(EpisodeId::from(row.try_get::<String, _>(0)?)))
            .collect()
    }
}
