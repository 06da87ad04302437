//! SQLite's checkpoints, off the commit path: a task copies the WAL back into the database file
//! after commits, and asks the writer to start the WAL over when it grows too long.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sqlx::{Any, AnyPool, Row as _};
use tokio::sync::watch;

use super::StoreError;

/// The least time between two SQLite checkpoints: each then copies the pages of many commits.
const CHECKPOINT_INTERVAL: Duration = Duration::from_millis(50);

/// WAL frames (pages) past which the writer makes the WAL start over: 32 MiB of 4 KiB pages.
const WAL_RESTART_FRAMES: i64 = 8_192;

/// The size SQLite cuts the WAL file back to when it starts over (`journal_size_limit`).
pub(super) const WAL_SIZE_LIMIT_BYTES: u64 = 64 << 20;

/// Copies SQLite's WAL back into the database file after commits, on a connection of its own.
/// SQLite would otherwise checkpoint inside a commit, every 1,000 pages, holding up every write
/// queued behind it (a quarter to a half of the writer's time under load).
///
/// These `PASSIVE` checkpoints run beside the writer and its readers. But the WAL only starts
/// over when a write begins with all of it copied, which never happens while commits land
/// during every checkpoint: under sustained writes it would grow without bound. So once it is
/// past `WAL_RESTART_FRAMES` the checkpointer sets `restart_due`, and the writer, between two
/// commits, copies the few pages committed since and starts the WAL over
/// (`sqlite_writer::restart_wal`). Ends with the writer.
pub(super) async fn checkpointer(
    pool: AnyPool,
    mut commits: watch::Receiver<()>,
    restart_due: Arc<AtomicBool>,
) {
    while commits.changed().await.is_ok() {
        match checkpoint(&pool, "PRAGMA wal_checkpoint(PASSIVE)").await {
            Ok(frames) => restart_due.store(frames > WAL_RESTART_FRAMES, Ordering::Relaxed),
            Err(error) => tracing::warn!(%error, "cannot checkpoint the SQLite WAL"),
        }
        tokio::time::sleep(CHECKPOINT_INTERVAL).await;
    }
}

/// Runs one `PRAGMA wal_checkpoint`; returns the frames in the WAL.
async fn checkpoint<'c>(
    executor: impl sqlx::Executor<'c, Database = Any>,
    sql: &'static str,
) -> Result<i64, StoreError> {
    let row = sqlx::query(sql).fetch_one(executor).await?;
    Ok(row.try_get::<i64, _>(1)?)
}
