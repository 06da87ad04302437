//! The durable record of episodes and their steps, and of suite runs, in a SQLite file (the
//! default) or PostgreSQL, under one schema (`migrations.rs`). Writes commit in groups, and a
//! write's future resolves only once its transaction has committed: on SQLite the writing
//! requests commit them themselves (`sqlite_writer.rs`, with `checkpoint.rs` off the commit
//! path), on PostgreSQL one writer task does (`postgres_writer.rs`); both run the statements of
//! the one table in `writes.rs`. The queries are in `episodes.rs`, `runs.rs` and `keys.rs`, the rows and
//! their decoding in `rows.rs`. When several nodes share the database (PostgreSQL), they act on an
//! episode only under its lease (`leases.rs`), and their writes check its fence.

mod checkpoint;
mod episodes;
mod keys;
mod leases;
mod migrations;
mod postgres_writer;
mod prm_results;
mod rows;
mod runs;
mod sqlite_writer;
mod writes;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use sqlx::AnyPool;
use sqlx::any::AnyPoolOptions;
use sqlx::sqlite::SqliteConnectOptions;
use tokio::sync::{mpsc, oneshot, watch};

pub use keys::KeyRow;
pub use leases::{Grant, Lease};
pub use prm_results::PrmResultRow;
use rows::pack;
pub use rows::{EpisodeRow, EpisodeState, RunRow, StepRow, now_ms};
use sqlite_writer::SqliteWriter;
pub use writes::ScoreRow;
use writes::{MAX_GROUP, Pending, Write};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("unsupported database url `{0}`: expected sqlite://PATH or postgres://...")]
    UnsupportedUrl(String),
    #[error("cannot open the database at `{url}`: {source}")]
    Open {
        url: String,
        #[source]
        source: sqlx::Error,
    },
    #[error("cannot apply migration {version} ({name}): {source}")]
    Migrate {
        version: i64,
        name: &'static str,
        #[source]
        source: sqlx::Error,
    },
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("an in-memory SQLite database cannot hold the store: give a file, sqlite://PATH")]
    InMemory,
    #[error("a stored {what} is corrupt: {reason}")]
    Corrupt { what: &'static str, reason: String },
    #[error("the store's writer has stopped")]
    WriterStopped,
    /// Another node took the episode over while this one worked on it (its lease lapsed):
    /// nothing of the write was recorded.
    #[error(
        "another node took this episode over while this request worked on it; nothing of the \
         request was recorded"
    )]
    LeaseLost,
}

/// How long a commit waits for the disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DbSync {
    /// Until the commit is on disk: a committed step survives a power cut (SQLite
    /// `synchronous = FULL`, PostgreSQL `synchronous_commit = on`).
    #[default]
    Full,
    /// Until the database (its log, or its server) has the commit: a committed step survives a
    /// crash of agentbench, not of the machine (SQLite WAL with `synchronous = NORMAL`, PostgreSQL
    /// `synchronous_commit = off`). Faster.
    Normal,
}

impl DbSync {
    /// The name `--db-sync` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            DbSync::Full => "full",
            DbSync::Normal => "normal",
        }
    }
}

impl std::str::FromStr for DbSync {
    type Err = String;

    fn from_str(text: &str) -> Result<DbSync, String> {
        match text {
            "full" => Ok(DbSync::Full),
            "normal" => Ok(DbSync::Normal),
            other => Err(format!("expected `full` or `normal`, got `{other}`")),
        }
    }
}

/// The store: a connection pool for reads, and the writer.
#[derive(Debug, Clone)]
pub struct Store {
    pool: AnyPool,
    writer: Writer,
    /// PostgreSQL: the connections that take and give back episode leases, whose commits do
    /// not wait for the disk (see `leases.rs`). The read pool on SQLite.
    lease_pool: AnyPool,
}

#[derive(Debug, Clone)]
enum Writer {
    /// SQLite: the writing requests commit (see `sqlite_writer`).
    Sqlite(Arc<SqliteWriter>),
    /// PostgreSQL: the queue of the task that commits (see `writer`).
    Task(mpsc::Sender<Pending>),
}

impl Store {
    /// Opens the database at `url` (`sqlite://PATH`, created if missing, or `postgres://...`),
    /// applies the migrations it lacks and starts the writer. Needs a tokio runtime.
    pub async fn open(url: &str, sync: DbSync) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let (url, sqlite) = if url.starts_with("sqlite:") {
            // The writer's own connection and the readers' must reach the same database.
            if url.contains(":memory:") || url.contains("mode=memory") {
                return Err(StoreError::InMemory);
            }
            (sqlite_url(url), true)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (url.to_owned(), false)
        } else {
            return Err(StoreError::UnsupportedUrl(url.to_owned()));
        };
        // WAL lets SQLite's readers run beside the writer. Its checkpoints (copying the WAL
        // back into the database file) are left to `checkpointer`, off the commit path. A
        // statement that changes many rows inside a transaction (a fork's copy of its parent's
        // steps) keeps a statement journal (to undo just that statement), which past 64 KiB
        // SQLite would spill to a temporary file: `temp_store = MEMORY` keeps it in memory.
        let setup = match (sqlite, sync) {
            (true, sync) => format!(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = {}; PRAGMA busy_timeout = 10000; \
                 PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = {}; \
                 PRAGMA temp_store = MEMORY;",
                match sync {
                    DbSync::Full => "FULL",
                    DbSync::Normal => "NORMAL",
                },
                checkpoint::WAL_SIZE_LIMIT_BYTES,
            ),
            (false, DbSync::Full) => "SET synchronous_commit = on".to_owned(),
            (false, DbSync::Normal) => "SET synchronous_commit = off".to_owned(),
        };
        // SQLite: the checkpointer uses one connection now and then, and readers share the
        // rest (the writer has its own, outside the pool). Its connections are in process and cannot drop, so they are
        // not pinged before each use (a round trip to the connection's thread).
        let connect_setup = setup.clone();
        let options = AnyPoolOptions::new()
            .max_connections(if sqlite { 5 } else { 8 })
            .test_before_acquire(!sqlite)
            .after_connect(move |connection, _| {
                // Only the constant text above, with one of two fixed words put in.
                let setup = sqlx::AssertSqlSafe(connect_setup.clone());
                Box::pin(async move {
                    sqlx::raw_sql(setup).execute(connection).await?;
                    Ok(())
                })
            });
        let pool = options
            .connect(&url)
            .await
            .map_err(|source| StoreError::Open {
                url: redact(&url),
                source,
            })?;
        migrations::migrate(&pool).await?;
        let lease_pool = if sqlite {
            pool.clone()
        } else {
            leases::pool(&url)
                .await
                .map_err(|source| StoreError::Open {
                    url: redact(&url),
                    source,
                })?
        };
        let writer = if sqlite {
            let options: SqliteConnectOptions = url.parse().map_err(|source| StoreError::Open {
                url: url.clone(),
                source,
            })?;
            let (committed, commits) = watch::channel(());
            let restart_due = Arc::new(AtomicBool::new(false));
            let writer = SqliteWriter::open(
                options.get_filename(),
                &setup,
                sync,
                committed,
                restart_due.clone(),
            )?;
            tokio::spawn(checkpoint::checkpointer(pool.clone(), commits, restart_due));
            Writer::Sqlite(Arc::new(writer))
        } else {
            let (writes, queue) = mpsc::channel(4 * MAX_GROUP);
            tokio::spawn(postgres_writer::writer(pool.clone(), queue));
            Writer::Task(writes)
        };
        Ok(Store {
            pool,
            writer,
            lease_pool,
        })
    }

    /// The read pool's connections now: (open, idle). The writer's own connection is apart.
    pub fn connections(&self) -> (u32, usize) {
        (self.pool.size(), self.pool.num_idle())
    }

    /// Whether the database answers a trivial query now.
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn write(&self, write: Write) -> Result<(), StoreError> {
        match &self.writer {
            Writer::Sqlite(writer) => writer.write(write).await,
            Writer::Task(writes) => {
                let (done, committed) = oneshot::channel();
                writes
                    .send(Pending { write, done })
                    .await
                    .map_err(|_| StoreError::WriterStopped)?;
                committed.await.map_err(|_| StoreError::WriterStopped)?
            }
        }
    }
}

/// Adds `mode=rwc` (create the file if missing) unless the url sets a mode.
fn sqlite_url(url: &str) -> String {
    if url.contains("mode=") {
        url.to_owned()
    } else if url.contains('?') {
        format!("{url}&mode=rwc")
    } else {
        format!("{url}?mode=rwc")
    }
}

/// The url without its password, for messages.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => match rest[..at].split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***{}", &rest[at..]),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}
