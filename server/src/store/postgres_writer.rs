//! PostgreSQL's writer: one task, on a connection it keeps, that commits queued writes in groups,
//! its steps in multi-row INSERTs of power-of-two sizes.

use std::time::Instant;

use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, AnyPool, Connection as _};
use tokio::sync::mpsc;

use super::StoreError;
use super::leases::{Lease, db_now_ms};
use super::writes::{MAX_GROUP, PackedStep, Param, Pending, Statement, Write};
use crate::metrics::metrics;

/// PostgreSQL's writer: commits queued writes in groups, everything queued while one
/// transaction commits going into the next. When a group fails, its writes are retried one by one
/// so that one bad write fails alone.
pub(super) async fn writer(pool: AnyPool, mut queue: mpsc::Receiver<Pending>) {
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
        let started = Instant::now();
        let result = commit(self.connection().await?, writes).await;
        metrics().commit(started.elapsed(), result.is_ok());
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
    // as durable), without the two round trips of BEGIN and COMMIT: the one-client case. A lone
    // step under a lease does too, its fence check and INSERT made one statement.
    if let [
        Write::Append {
            episode_id,
            step,
            end: None,
            lease: Some(lease),
        },
    ] = writes
    {
        return insert_fenced_step(connection, episode_id.as_str(), step, lease).await;
    }
    let one_statement = writes.iter().all(|write| {
        matches!(
            write,
            Write::Append {
                end: None,
                lease: None,
                ..
            }
        )
    }) && insert_size(steps.len()) == steps.len();
    if one_statement {
        return insert_steps(connection, &steps).await;
    }
    let mut tx = connection.begin().await?;
    let (scores, others): (Vec<&Write>, Vec<&Write>) = writes
        .iter()
        .filter(|write| !matches!(write, Write::Append { .. }))
        .partition(|write| matches!(write, Write::Scores { .. }));
    for write in others {
        for statement in write.statements() {
            execute(&mut tx, &statement).await?;
        }
    }
    // The leased steps' fence checks, before their INSERTs, a statement for many; a lapsed
    // lease fails the group, whose writes are then retried one by one.
    let leased: Vec<(&str, &Lease)> = writes
        .iter()
        .filter_map(|write| match write {
            Write::Append {
                episode_id,
                lease: Some(lease),
                ..
            } => Some((episode_id.as_str(), lease)),
            _ => None,
        })
        .collect();
    let mut rest = leased.as_slice();
    while !rest.is_empty() {
        let (chunk, after) = rest.split_at(insert_size(rest.len()));
        check_fences(&mut tx, chunk).await?;
        rest = after;
    }
    let mut rest = steps.as_slice();
    while !rest.is_empty() {
        let (chunk, after) = rest.split_at(insert_size(rest.len()));
        insert_steps(&mut tx, chunk).await?;
        rest = after;
    }
    // The ends of the episodes whose steps ended them.
    for end in writes.iter().filter_map(|write| write.episode_end()) {
        execute(&mut tx, &end).await?;
    }
    // Scores last: they may be of steps inserted above.
    for write in scores {
        for statement in write.statements() {
            execute(&mut tx, &statement).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// Runs one statement of a write.
async fn execute(
    connection: &mut AnyConnection,
    statement: &Statement<'_>,
) -> Result<(), StoreError> {
    let mut query = sqlx::query(statement.sql);
    for param in &statement.params {
        query = match *param {
            Param::Text(value) => query.bind(value),
            Param::Int(value) => query.bind(value),
            Param::Real(value) => query.bind(value),
            Param::Bytes(value) => query.bind(value),
        };
    }
    let done = query.execute(connection).await?;
    statement.check(done.rows_affected())
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

/// Checks the fences of leased writes and gives their leases back, as one statement: every
/// lease must still hold (one write per episode: an episode's next write waits for this one).
async fn check_fences(
    connection: &mut AnyConnection,
    leased: &[(&str, &Lease)],
) -> Result<(), StoreError> {
    let mut sql = String::from(concat!(
        "UPDATE episode_leases SET expires_ms = 0, used_ms = ",
        db_now_ms!(),
        " WHERE (episode_id, node, fence) IN (VALUES "
    ));
    for row in 0..leased.len() {
        let n = 3 * row;
        if row > 0 {
            sql.push_str(", ");
        }
        sql.push_str(&format!("(${}, ${}, ${}::BIGINT)", n + 1, n + 2, n + 3));
    }
    sql.push(')');
    // Only placeholders were added to the text; the values are bound.
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
    for (episode_id, lease) in leased {
        query = query.bind(*episode_id).bind(&*lease.node).bind(lease.fence);
    }
    let done = query.execute(connection).await?;
    if done.rows_affected() < leased.len() as u64 {
        return Err(StoreError::LeaseLost);
    }
    Ok(())
}

/// A step's INSERT under its episode's lease, as one statement: the fence check (which gives
/// the lease back) feeds the INSERT, which then inserts nothing if the lease lapsed.
const INSERT_FENCED_STEP: &str = concat!(
    "WITH lease AS (UPDATE episode_leases SET expires_ms = 0, used_ms = ",
    db_now_ms!(),
    " WHERE episode_id = $1 AND node = $2 AND fence = $3 RETURNING episode_id) ",
    "INSERT INTO steps (episode_id, idx, request_id, record_lz4) ",
    "SELECT episode_id, $4::BIGINT, $5::TEXT, $6::BYTEA FROM lease"
);

async fn insert_fenced_step(
    connection: &mut AnyConnection,
    episode_id: &str,
    step: &PackedStep,
    lease: &Lease,
) -> Result<(), StoreError> {
    let done = sqlx::query(INSERT_FENCED_STEP)
        .bind(episode_id)
        .bind(&*lease.node)
        .bind(lease.fence)
        .bind(i64::from(step.index))
        .bind(step.request_id.as_deref())
        .bind(step.record_lz4.as_slice())
        .execute(connection)
        .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::LeaseLost);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{STEPS_PER_INSERT, insert_size};

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
