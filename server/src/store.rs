//! The durable record of episodes and their steps, in a SQLite file (the default) or PostgreSQL,
//! under one schema. Writes commit in groups, and a write's future resolves only once its
//! transaction has committed: on SQLite the writing requests commit them themselves
//! (`sqlite_writer`), on PostgreSQL one writer task does.

mod sqlite_writer;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::pool::PoolConnection;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Any, AnyConnection, AnyPool, Connection as _, Row as _};
use tokio::sync::{mpsc, oneshot, watch};

use agentbench_env_runtime::Mode;

use sqlite_writer::SqliteWriter;

/// A query for the columns `episode_row` reads, with its `WHERE` (and further) clauses.
macro_rules! select_episodes {
    ($clauses:literal) => {
        concat!(
            "SELECT id, env, env_version, env_hash, seed, task, observation, forked_from, ",
            "forked_after, state, outcome, created_ms, mode FROM episodes ",
            $clauses
        )
    };
}

/// The migrations, in order; each runs once per database, in its own transaction.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "episodes",
        include_str!("../migrations/0001_episodes.sql"),
    ),
    (
        2,
        "policy mode",
        include_str!("../migrations/0002_policy_mode.sql"),
    ),
    (3, "runs", include_str!("../migrations/0003_runs.sql")),
    (
        4,
        "steps request index",
        include_str!("../migrations/0004_steps_request_index.sql"),
    ),
    (
        5,
        "steps record lz4",
        include_str!("../migrations/0005_steps_record_lz4.sql"),
    ),
];

/// The most writes one transaction commits.
const MAX_GROUP: usize = 512;

/// The writes' statements, the same text for both databases (SQLite reads `$N` as the Nth
/// parameter when they come in order).
const INSERT_EPISODE: &str = "INSERT INTO episodes (id, env, env_version, env_hash, seed, task, \
     observation, forked_from, forked_after, state, outcome, created_ms, mode) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)";
/// A fork's copy of its parent's steps (their request ids stay with the parent).
const COPY_STEPS: &str = "INSERT INTO steps (episode_id, idx, request_id, record, record_lz4) \
     SELECT $1, idx, NULL, record, record_lz4 FROM steps WHERE episode_id = $2";
const INSERT_STEP: &str =
    "INSERT INTO steps (episode_id, idx, request_id, record_lz4) VALUES ($1, $2, $3, $4)";
const END_EPISODE_WITH_OUTCOME: &str =
    "UPDATE episodes SET state = $1, outcome = $2, ended_ms = $3 WHERE id = $4";
const END_EPISODE: &str = "UPDATE episodes SET state = $1, ended_ms = $2 WHERE id = $3";
const DELETE_STEPS: &str = "DELETE FROM steps WHERE episode_id = $1";
const DELETE_EPISODE: &str = "DELETE FROM episodes WHERE id = $1";

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

/// Where an episode is in its life, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpisodeState {
    /// It takes actions (when its env is served).
    Open,
    /// It ended: terminated or truncated.
    Over,
    /// It sat idle past the server's time-to-live.
    Expired,
}

impl EpisodeState {
    pub fn as_str(self) -> &'static str {
        match self {
            EpisodeState::Open => "open",
            EpisodeState::Over => "over",
            EpisodeState::Expired => "expired",
        }
    }

    fn parse(text: &str) -> Result<EpisodeState, StoreError> {
        match text {
            "open" => Ok(EpisodeState::Open),
            "over" => Ok(EpisodeState::Over),
            "expired" => Ok(EpisodeState::Expired),
            other => Err(StoreError::Corrupt {
                what: "episode state",
                reason: format!("unknown state `{other}`"),
            }),
        }
    }
}

/// An episode's row: what it is, not its steps.
#[derive(Debug, Clone)]
pub struct EpisodeRow {
    pub id: String,
    pub env: String,
    pub env_version: String,
    pub env_hash: String,
    pub seed: u64,
    /// The task config as JSON text.
    pub task: String,
    /// The first observation as JSON text.
    pub observation: String,
    /// The episode it was forked from, and after how many of that one's steps.
    pub forked_from: Option<(String, u32)>,
    pub state: EpisodeState,
    /// The outcome checks as JSON text, once over.
    pub outcome: Option<String>,
    pub created_ms: i64,
    /// How its policies act on forbidden calls: `enforce` or `audit`.
    pub mode: Mode,
}

/// One recorded step.
#[derive(Debug, Clone)]
pub struct StepRow {
    pub index: u32,
    pub request_id: Option<String>,
    /// The step record as JSON text.
    pub record: String,
}

/// A step as the writer inserts it: its record compressed (see `pack`) by the request's task,
/// not by the one writer every step waits on.
#[derive(Debug)]
struct PackedStep {
    index: u32,
    request_id: Option<String>,
    record_lz4: Vec<u8>,
}

#[derive(Debug)]
enum Write {
    /// A new episode; a fork copies its parent's steps in the same transaction.
    Create {
        episode: Box<EpisodeRow>,
        copy_steps_from: Option<String>,
    },
    /// A step, and the episode's end when the step ended it.
    Append {
        episode_id: String,
        step: PackedStep,
        end: Option<(EpisodeState, Option<String>)>,
    },
    /// The episode ends without a step (it expired).
    End {
        episode_id: String,
        state: EpisodeState,
    },
    Delete {
        episode_id: String,
    },
}

#[derive(Debug)]
struct Pending {
    write: Write,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// The store: a connection pool for reads, and the writer.
#[derive(Debug, Clone)]
pub struct Store {
    pool: AnyPool,
    writer: Writer,
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
                 PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = {WAL_SIZE_LIMIT_BYTES}; \
                 PRAGMA temp_store = MEMORY;",
                match sync {
                    DbSync::Full => "FULL",
                    DbSync::Normal => "NORMAL",
                }
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
        migrate(&pool).await?;
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
            tokio::spawn(checkpointer(pool.clone(), commits, restart_due));
            Writer::Sqlite(Arc::new(writer))
        } else {
            let (writes, queue) = mpsc::channel(4 * MAX_GROUP);
            tokio::spawn(writer(pool.clone(), queue));
            Writer::Task(writes)
        };
        Ok(Store { pool, writer })
    }

    /// Records a new episode; a fork also copies `copy_steps_from`'s steps.
    pub async fn create_episode(
        &self,
        episode: EpisodeRow,
        copy_steps_from: Option<String>,
    ) -> Result<(), StoreError> {
        self.write(Write::Create {
            episode: Box::new(episode),
            copy_steps_from,
        })
        .await
    }

    /// Records a step; `end` is the episode's end state and outcome when this step ended it.
    pub async fn append_step(
        &self,
        episode_id: &str,
        step: StepRow,
        end: Option<(EpisodeState, Option<String>)>,
    ) -> Result<(), StoreError> {
        let step = PackedStep {
            index: step.index,
            request_id: step.request_id,
            record_lz4: pack(&step.record),
        };
        self.write(Write::Append {
            episode_id: episode_id.to_owned(),
            step,
            end,
        })
        .await
    }

    /// Marks an episode ended without a step (expired).
    pub async fn end_episode(
        &self,
        episode_id: &str,
        state: EpisodeState,
    ) -> Result<(), StoreError> {
        self.write(Write::End {
            episode_id: episode_id.to_owned(),
            state,
        })
        .await
    }

    /// Deletes an episode and its steps.
    pub async fn delete_episode(&self, episode_id: &str) -> Result<(), StoreError> {
        self.write(Write::Delete {
            episode_id: episode_id.to_owned(),
        })
        .await
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

    pub async fn episode(&self, id: &str) -> Result<Option<EpisodeRow>, StoreError> {
        let row = sqlx::query(select_episodes!("WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| episode_row(&row)).transpose()
    }

    /// The episodes still open, oldest first.
    pub async fn open_episodes(&self) -> Result<Vec<EpisodeRow>, StoreError> {
        let rows = sqlx::query(select_episodes!("WHERE state = 'open' ORDER BY created_ms"))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(episode_row).collect()
    }

    /// An episode's steps in order.
    pub async fn steps(&self, episode_id: &str) -> Result<Vec<StepRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT idx, request_id, record, record_lz4 FROM steps WHERE episode_id = $1 ORDER BY idx",
        )
        .bind(episode_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(step_row).collect()
    }

    /// The step a request id produced, if any.
    pub async fn step_by_request(
        &self,
        episode_id: &str,
        request_id: &str,
    ) -> Result<Option<StepRow>, StoreError> {
        let row = sqlx::query(
            "SELECT idx, request_id, record, record_lz4 FROM steps \
             WHERE episode_id = $1 AND request_id = $2",
        )
        .bind(episode_id)
        .bind(request_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(step_row).transpose()
    }
}

/// The columns of a `RunRow`, as a literal for `concat!` (sqlx takes only static queries).
macro_rules! select_run {
    () => {
        "SELECT id, suite, suite_version, suite_hash, agent, settings, state, report, \
         created_ms, ended_ms FROM runs"
    };
}

/// A suite run as stored: what ran, and its report once done.
#[derive(Debug, Clone)]
pub struct RunRow {
    pub id: String,
    pub suite: String,
    pub suite_version: String,
    pub suite_hash: String,
    pub agent: String,
    /// The run's settings, JSON.
    pub settings: String,
    /// `running` or `done`.
    pub state: String,
    /// The report, JSON, once done.
    pub report: Option<String>,
    pub created_ms: i64,
    pub ended_ms: Option<i64>,
}

/// Suite runs. Their writes are few (one per episode) and each commits on its own, beside the
/// writer task's groups of steps.
impl Store {
    pub async fn create_run(&self, run: &RunRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO runs (id, suite, suite_version, suite_hash, agent, settings, state, \
             report, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&run.id)
        .bind(&run.suite)
        .bind(&run.suite_version)
        .bind(&run.suite_hash)
        .bind(&run.agent)
        .bind(&run.settings)
        .bind(&run.state)
        .bind(run.report.as_deref())
        .bind(run.created_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn run(&self, id: &str) -> Result<Option<RunRow>, StoreError> {
        let row = sqlx::query(concat!(select_run!(), " WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(run_row).transpose()
    }

    /// Every run, newest first.
    pub async fn runs(&self) -> Result<Vec<RunRow>, StoreError> {
        let rows = sqlx::query(concat!(select_run!(), " ORDER BY created_ms DESC, id"))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(run_row).collect()
    }

    /// Records one finished episode of a run; a second record of the same scenario and trial
    /// is ignored, so that a resumed run never counts an episode twice. Returns whether this
    /// one was recorded.
    pub async fn record_run_episode(
        &self,
        run_id: &str,
        scenario: &str,
        trial: u32,
        result: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "INSERT INTO run_episodes (run_id, scenario, trial, result, created_ms) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id, scenario, trial) DO NOTHING",
        )
        .bind(run_id)
        .bind(scenario)
        .bind(i64::from(trial))
        .bind(result)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// A run's recorded episodes, as `(scenario, trial, result)`, in scenario and trial order.
    pub async fn run_episodes(
        &self,
        run_id: &str,
    ) -> Result<Vec<(String, u32, String)>, StoreError> {
        let rows = sqlx::query(
            "SELECT scenario, trial, result FROM run_episodes WHERE run_id = $1 \
             ORDER BY scenario, trial",
        )
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok((
                    row.try_get("scenario")?,
                    index(row.try_get("trial")?),
                    row.try_get("result")?,
                ))
            })
            .collect()
    }

    /// Marks a run done with its report.
    pub async fn finish_run(&self, run_id: &str, report: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE runs SET state = 'done', report = $1, ended_ms = $2 WHERE id = $3")
            .bind(report)
            .bind(now_ms())
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        Ok(())
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

async fn migrate(pool: &AnyPool) -> Result<(), StoreError> {
    sqlx::raw_sql(
        "CREATE TABLE IF NOT EXISTS agentbench_migrations (\
         version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_ms BIGINT NOT NULL)",
    )
    .execute(pool)
    .await?;
    let applied: Vec<i64> = sqlx::query("SELECT version FROM agentbench_migrations")
        .fetch_all(pool)
        .await?
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()?;
    for &(version, name, sql) in MIGRATIONS {
        if applied.contains(&version) {
            continue;
        }
        let failed = |source| StoreError::Migrate {
            version,
            name,
            source,
        };
        let mut tx = pool.begin().await.map_err(failed)?;
        sqlx::raw_sql(sql).execute(&mut *tx).await.map_err(failed)?;
        sqlx::query(
            "INSERT INTO agentbench_migrations (version, name, applied_ms) VALUES ($1, $2, $3)",
        )
        .bind(version)
        .bind(name)
        .bind(now_ms())
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
        tx.commit().await.map_err(failed)?;
    }
    Ok(())
}

/// PostgreSQL's writer: commits queued writes in groups, everything queued while one
/// transaction commits going into the next. When a group fails, its writes are retried one by one
/// so that one bad write fails alone.
async fn writer(pool: AnyPool, mut queue: mpsc::Receiver<Pending>) {
    let mut connection = WriterConnection {
        pool,
        connection: None,
    };
    let mut group = Vec::with_capacity(MAX_GROUP);
    while queue.recv_many(&mut group, MAX_GROUP).await > 0 {
        let writes: Vec<&Write> = group.iter().map(|pending| &pending.write).collect();
        let result = connection.commit(&writes).await;
        drop(writes);
        match result {
            Err(error) if group.len() == 1 => {
                let pending = group.pop().expect("a group of one");
                let _ = pending.done.send(Err(error));
            }
            Err(_) => {
                for pending in group.drain(..) {
                    let result = connection.commit(&[&pending.write]).await;
                    let _ = pending.done.send(result);
                }
            }
            Ok(()) => {
                for pending in group.drain(..) {
                    let _ = pending.done.send(Ok(()));
                }
            }
        }
    }
}

/// The least time between two SQLite checkpoints: each then copies the pages of many commits.
const CHECKPOINT_INTERVAL: Duration = Duration::from_millis(50);

/// WAL frames (pages) past which the writer makes the WAL start over: 32 MiB of 4 KiB pages.
const WAL_RESTART_FRAMES: i64 = 8_192;

/// The size SQLite cuts the WAL file back to when it starts over (`journal_size_limit`).
const WAL_SIZE_LIMIT_BYTES: u64 = 64 << 20;

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
async fn checkpointer(
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

/// The writer's connection, kept from one commit to the next: no pool hand-out precedes each
/// commit. A commit that fails gives it back, so a broken connection is not used again.
struct WriterConnection {
    pool: AnyPool,
    connection: Option<PoolConnection<Any>>,
}

impl WriterConnection {
    async fn connection(&mut self) -> Result<&mut PoolConnection<Any>, StoreError> {
        if self.connection.is_none() {
            self.connection = Some(self.pool.acquire().await?);
        }
        Ok(self.connection.as_mut().expect("acquired above"))
    }

    async fn commit(&mut self, writes: &[&Write]) -> Result<(), StoreError> {
        let result = commit(self.connection().await?, writes).await;
        if result.is_err() {
            self.connection = None;
        }
        result
    }
}

async fn commit(connection: &mut AnyConnection, writes: &[&Write]) -> Result<(), StoreError> {
    // Steps go in as one multi-row INSERT per group: each statement is a round trip to the
    // server. No write in a group depends on a step of the same group
    // (a step's episode was created before the step could be asked for).
    let steps: Vec<(&str, &PackedStep)> = writes
        .iter()
        .filter_map(|write| match write {
            Write::Append {
                episode_id, step, ..
            } => Some((episode_id.as_str(), step)),
            _ => None,
        })
        .collect();
    // A group that is one INSERT and nothing else commits as that statement alone (atomic and
    // as durable), without the two round trips of BEGIN and COMMIT: the one-client case.
    let one_statement = writes
        .iter()
        .all(|write| matches!(write, Write::Append { end: None, .. }))
        && insert_size(steps.len()) == steps.len();
    if one_statement {
        return insert_steps(connection, &steps).await;
    }
    let mut tx = connection.begin().await?;
    for write in writes {
        if !matches!(write, Write::Append { .. }) {
            apply(&mut tx, write).await?;
        }
    }
    let mut rest = steps.as_slice();
    while !rest.is_empty() {
        let (chunk, after) = rest.split_at(insert_size(rest.len()));
        insert_steps(&mut tx, chunk).await?;
        rest = after;
    }
    for write in writes {
        if let Write::Append {
            episode_id,
            end: Some((state, outcome)),
            ..
        } = write
        {
            sqlx::query(END_EPISODE_WITH_OUTCOME)
                .bind(state.as_str())
                .bind(outcome.as_deref())
                .bind(now_ms())
                .bind(episode_id)
                .execute(&mut *tx)
                .await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// The most rows one INSERT takes (4 parameters each, well inside SQLite's and PostgreSQL's
/// parameter limits).
const STEPS_PER_INSERT: usize = 256;

/// How many of `left` rows the next INSERT takes: the largest power of two that fits, at most
/// `STEPS_PER_INSERT`. Groups come in every size, and an INSERT of each size would be its own
/// prepared statement, thrashing the connection's statement cache (preparing a 256-row INSERT
/// costs more than running it); powers of two keep it to 9 statements.
fn insert_size(left: usize) -> usize {
    let fits = 1 << left.max(1).ilog2();
    fits.min(STEPS_PER_INSERT)
}

async fn insert_steps(
    connection: &mut AnyConnection,
    steps: &[(&str, &PackedStep)],
) -> Result<(), StoreError> {
    let mut sql =
        String::from("INSERT INTO steps (episode_id, idx, request_id, record_lz4) VALUES ");
    for row in 0..steps.len() {
        let n = 4 * row;
        if row > 0 {
            sql.push_str(", ");
        }
        sql.push_str(&format!("(${}, ${}, ${}, ${})", n + 1, n + 2, n + 3, n + 4));
    }
    // Only placeholders were added to the text; the values are bound.
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
    for (episode_id, step) in steps {
        query = query
            .bind(*episode_id)
            .bind(i64::from(step.index))
            .bind(step.request_id.as_deref())
            .bind(step.record_lz4.as_slice());
    }
    query.execute(connection).await?;
    Ok(())
}

async fn apply(tx: &mut sqlx::Transaction<'_, sqlx::Any>, write: &Write) -> Result<(), StoreError> {
    match write {
        Write::Create {
            episode,
            copy_steps_from,
        } => {
            let (forked_from, forked_after) = match &episode.forked_from {
                Some((parent, after)) => (Some(parent.as_str()), Some(i64::from(*after))),
                None => (None, None),
            };
            sqlx::query(INSERT_EPISODE)
                .bind(&episode.id)
                .bind(&episode.env)
                .bind(&episode.env_version)
                .bind(&episode.env_hash)
                .bind(episode.seed.cast_signed())
                .bind(&episode.task)
                .bind(&episode.observation)
                .bind(forked_from)
                .bind(forked_after)
                .bind(episode.state.as_str())
                .bind(episode.outcome.as_deref())
                .bind(episode.created_ms)
                .bind(episode.mode.as_str())
                .execute(&mut **tx)
                .await?;
            if let Some(parent) = copy_steps_from {
                sqlx::query(COPY_STEPS)
                    .bind(&episode.id)
                    .bind(parent)
                    .execute(&mut **tx)
                    .await?;
            }
        }
        Write::Append { .. } => unreachable!("commit inserts steps in groups"),
        Write::End { episode_id, state } => {
            sqlx::query(END_EPISODE)
                .bind(state.as_str())
                .bind(now_ms())
                .bind(episode_id)
                .execute(&mut **tx)
                .await?;
        }
        Write::Delete { episode_id } => {
            sqlx::query(DELETE_STEPS)
                .bind(episode_id)
                .execute(&mut **tx)
                .await?;
            sqlx::query(DELETE_EPISODE)
                .bind(episode_id)
                .execute(&mut **tx)
                .await?;
        }
    }
    Ok(())
}

fn episode_row(row: &AnyRow) -> Result<EpisodeRow, StoreError> {
    let forked_from: Option<String> = row.try_get("forked_from")?;
    let forked_after: Option<i64> = row.try_get("forked_after")?;
    let state: String = row.try_get("state")?;
    let mode: String = row.try_get("mode")?;
    Ok(EpisodeRow {
        id: row.try_get("id")?,
        env: row.try_get("env")?,
        env_version: row.try_get("env_version")?,
        env_hash: row.try_get("env_hash")?,
        seed: row.try_get::<i64, _>("seed")?.cast_unsigned(),
        task: row.try_get("task")?,
        observation: row.try_get("observation")?,
        forked_from: forked_from.zip(forked_after.map(index)),
        state: EpisodeState::parse(&state)?,
        outcome: row.try_get("outcome")?,
        created_ms: row.try_get("created_ms")?,
        mode: mode.parse().map_err(|reason| StoreError::Corrupt {
            what: "mode",
            reason,
        })?,
    })
}

fn run_row(row: &AnyRow) -> Result<RunRow, StoreError> {
    Ok(RunRow {
        id: row.try_get("id")?,
        suite: row.try_get("suite")?,
        suite_version: row.try_get("suite_version")?,
        suite_hash: row.try_get("suite_hash")?,
        agent: row.try_get("agent")?,
        settings: row.try_get("settings")?,
        state: row.try_get("state")?,
        report: row.try_get("report")?,
        created_ms: row.try_get("created_ms")?,
        ended_ms: row.try_get("ended_ms")?,
    })
}

fn step_row(row: &AnyRow) -> Result<StepRow, StoreError> {
    let record = match row.try_get::<Option<&[u8]>, _>("record_lz4")? {
        Some(packed) => unpack(packed)?,
        // Recorded before records were compressed (migration 5).
        None => row
            .try_get::<Option<String>, _>("record")?
            .ok_or_else(|| corrupt_record("it has neither `record` nor `record_lz4`"))?,
    };
    Ok(StepRow {
        index: index(row.try_get("idx")?),
        request_id: row.try_get("request_id")?,
        record,
    })
}

/// A step record as stored in `record_lz4`: its length as 4 little-endian bytes, then the LZ4
/// block. About a third of the JSON text (a workspace step's 3.5 KB become 1.3 KB), so a third of
/// the table's pages to write, checkpoint and keep, for a few µs of compression a step.
fn pack(record: &str) -> Vec<u8> {
    lz4_flex::compress_prepend_size(record.as_bytes())
}

/// The record text `pack` stored.
fn unpack(packed: &[u8]) -> Result<String, StoreError> {
    // An LZ4 block expands at most about 255-fold; a length past that is corruption, not a
    // reason to allocate gigabytes.
    let claimed = packed
        .first_chunk::<4>()
        .map_or(0, |length| u32::from_le_bytes(*length) as usize);
    if claimed > 255 * packed.len() {
        return Err(corrupt_record(format!(
            "it claims {claimed} bytes from {} compressed",
            packed.len()
        )));
    }
    let bytes = lz4_flex::decompress_size_prepended(packed)
        .map_err(|error| corrupt_record(error.to_string()))?;
    String::from_utf8(bytes).map_err(|error| corrupt_record(error.to_string()))
}

fn corrupt_record(reason: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        what: "step record",
        reason: reason.into(),
    }
}

fn index(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use super::{STEPS_PER_INSERT, StoreError, insert_size, pack, unpack};

    #[test]
    fn records_unpack_to_what_was_packed_and_damage_is_an_error() {
        let record = r#"{"index":3,"observation":{"text":"héllo héllo héllo héllo"}}"#;
        let packed = pack(record);
        assert_eq!(unpack(&packed).unwrap(), record);
        assert_eq!(unpack(&pack("")).unwrap(), "");

        let corrupt = |packed: &[u8]| matches!(unpack(packed), Err(StoreError::Corrupt { .. }));
        assert!(corrupt(&[]));
        assert!(corrupt(&packed[..packed.len() - 3]));
        let mut huge = packed.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(corrupt(&huge));
        // Valid LZ4 of bytes that are not UTF-8.
        assert!(corrupt(&lz4_flex::compress_prepend_size(&[
            0xff, 0xfe, 0xfd
        ])));
    }

    #[test]
    fn groups_are_inserted_in_power_of_two_chunks() {
        let chunks = |mut left: usize| {
            let mut sizes = Vec::new();
            while left > 0 {
                sizes.push(insert_size(left));
                left -= sizes.last().unwrap();
            }
            sizes
        };
        assert_eq!(chunks(1), [1]);
        assert_eq!(chunks(137), [128, 8, 1]);
        assert_eq!(chunks(512), [256, 256]);
        assert_eq!(chunks(700), [256, 256, 128, 32, 16, 8, 4]);
        assert!((1..=2 * STEPS_PER_INSERT).all(|n| chunks(n).iter().sum::<usize>() == n));
    }
}
