//! SQLite's writes, committed by the requests that make them: a write that finds no commit under
//! way commits at once on the request's own thread, and every write queued while a commit runs
//! goes into the next one, a group that a spawned task commits.
//!
//! A step's write is thus one INSERT on the caller's thread when the server is quiet (no hop to a
//! writer task and on to a database thread, each a wake-up that costs tens of µs), and writes
//! still commit in groups under load. The connection is `rusqlite`'s, over the same SQLite library
//! as sqlx's readers.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use rusqlite::types::ToSqlOutput;
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use tokio::sync::{oneshot, watch};

use super::writes::{MAX_GROUP, Param, Pending, Write};
use super::{DbSync, StoreError};
use crate::metrics::metrics;

/// The writer: the queue of writes waiting for a commit, and the connection that commits them.
#[derive(Debug)]
pub(super) struct SqliteWriter {
    queue: Mutex<Queue>,
    /// Locked only by the one committing (see `Queue::committing`), so never waited on.
    connection: Mutex<Connection>,
    /// Told after every commit, for the checkpointer.
    committed: watch::Sender<()>,
    /// Set by the checkpointer when the WAL should start over (see `super::checkpoint`).
    restart_due: Arc<AtomicBool>,
    /// Whether a commit waits for the disk (`synchronous = FULL`), a millisecond or more.
    syncs: bool,
}

#[derive(Debug, Default)]
struct Queue {
    waiting: Vec<Pending>,
    /// Whether a commit is under way or due: its committer takes `waiting` next. While false,
    /// `waiting` is empty.
    committing: bool,
}

impl SqliteWriter {
    /// Opens a connection to the database file at `path` (created and migrated already) and
    /// runs `setup` (its pragmas) on it.
    pub(super) fn open(
        path: &Path,
        setup: &str,
        sync: DbSync,
        committed: watch::Sender<()>,
        restart_due: Arc<AtomicBool>,
    ) -> Result<SqliteWriter, rusqlite::Error> {
        // The connection is only ever used under its mutex: SQLite's own locking is not needed.
        let connection = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.execute_batch(setup)?;
        Ok(SqliteWriter {
            queue: Mutex::default(),
            connection: Mutex::new(connection),
            committed,
            restart_due,
            syncs: sync == DbSync::Full,
        })
    }

    /// Commits `write`, alone or in a group; resolves once its transaction has committed.
    pub(super) async fn write(self: &Arc<Self>, write: Write) -> Result<(), StoreError> {
        let (done, committed) = oneshot::channel();
        let commit_now = {
            let mut queue = lock(&self.queue);
            queue.waiting.push(Pending { write, done });
            !std::mem::replace(&mut queue.committing, true)
        };
        // The commits after this write's own run as a spawned task, never in this request's
        // future: a request dropped while it waits (its client gone) must not leave writes
        // queued with nobody to commit them.
        if commit_now {
            if self.commits_in_place() {
                // Writes queued during this commit go into the next, so that this request
                // answers now.
                if self.commit_group() {
                    tokio::spawn(Arc::clone(self).commit_all());
                }
            } else {
                tokio::spawn(Arc::clone(self).commit_all());
            }
        }
        committed.await.map_err(|_| StoreError::WriterStopped)?
    }

    /// Whether a commit is quick enough to run in place on a request's thread: it neither waits
    /// for the disk nor starts the WAL over (a millisecond or more). (A restart that falls due
    /// between this look and the commit runs in place, once.)
    fn commits_in_place(&self) -> bool {
        !self.syncs && !self.restart_due.load(Ordering::Relaxed)
    }

    /// Commits group after group until none wait: in place, or on a blocking thread when a
    /// commit is slow, so that this thread's requests run meanwhile.
    async fn commit_all(self: Arc<Self>) {
        loop {
            let more = if self.commits_in_place() {
                self.commit_group()
            } else {
                let writer = Arc::clone(&self);
                // A commit that panicked has answered its writes already (see `Turn`).
                tokio::task::spawn_blocking(move || writer.commit_group())
                    .await
                    .unwrap_or(false)
            };
            if !more {
                break;
            }
            // Lets this thread's requests run, and their writes queue up for the next group.
            tokio::task::yield_now().await;
        }
    }

    /// Commits what is waiting, at most `MAX_GROUP` writes, and answers each. Returns whether
    /// more writes are waiting, which the caller then commits (`committing` stays true).
    fn commit_group(&self) -> bool {
        let turn = Turn(self);
        let group: Vec<Pending> = {
            let mut queue = lock(&self.queue);
            let take = queue.waiting.len().min(MAX_GROUP);
            queue.waiting.drain(..take).collect()
        };
        let mut connection = lock(&self.connection);
        let writes: Vec<&Write> = group.iter().map(|pending| &pending.write).collect();
        let started = Instant::now();
        let result = commit(&mut connection, &writes);
        metrics().commit(started.elapsed(), result.is_ok());
        drop(writes);
        self.committed.send_replace(());
        match result {
            // A group that fails is retried one write at a time, so that one bad write fails
            // alone.
            Err(_) if group.len() > 1 => {
                for pending in group {
                    let _ = pending
                        .done
                        .send(commit(&mut connection, &[&pending.write]));
                }
            }
            result => {
                let mut result = Some(result);
                for pending in group {
                    let _ = pending.done.send(match result.take() {
                        Some(Err(error)) => Err(error),
                        _ => Ok(()),
                    });
                }
            }
        }
        // Waits for the readers still on the old WAL.
        if self.restart_due.swap(false, Ordering::Relaxed)
            && let Err(error) = restart_wal(&connection)
        {
            tracing::warn!(%error, "cannot start the SQLite WAL over");
        }
        drop(connection);
        std::mem::forget(turn);
        let mut queue = lock(&self.queue);
        queue.committing = !queue.waiting.is_empty();
        queue.committing
    }
}

/// A commit under way. Dropped only if the commit panics: it then fails every write waiting and
/// ends the turn, so that later writes commit again instead of queueing behind a committer that
/// is gone. (The writes of the group itself fail as their answers are dropped.)
struct Turn<'w>(&'w SqliteWriter);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut queue = lock(&self.0.queue);
        queue.waiting.clear();
        queue.committing = false;
    }
}

/// Commits `writes` in one transaction, in order. A lone step without an end commits as its
/// INSERT alone, without BEGIN and COMMIT: atomic and as durable.
fn commit(connection: &mut Connection, writes: &[&Write]) -> Result<(), StoreError> {
    if let [write @ Write::Append { end: None, .. }] = writes {
        return apply(connection, write);
    }
    let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for write in writes {
        apply(&tx, write)?;
    }
    tx.commit()?;
    Ok(())
}

/// Runs the statements of one write.
fn apply(connection: &Connection, write: &Write) -> Result<(), StoreError> {
    for statement in write.statements() {
        let changed = connection
            .prepare_cached(statement.sql)?
            .execute(rusqlite::params_from_iter(&statement.params))?;
        statement.check(changed as u64)?;
    }
    Ok(())
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        match self {
            Param::Text(value) => value.to_sql(),
            Param::Int(value) => value.to_sql(),
            Param::Real(value) => value.to_sql(),
            Param::Bytes(value) => value.to_sql(),
        }
    }
}

/// Copies the rest of SQLite's WAL into the database and starts it over. Only the writer can:
/// no commit lands meanwhile.
fn restart_wal(connection: &Connection) -> Result<(), rusqlite::Error> {
    connection.query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()))
}

/// A lock whose holder cannot leave its data half changed: a panic while holding it leaves
/// nothing to repair.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
