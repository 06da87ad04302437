//! Suite runs' queries: a run, its finished episodes (each recorded once) and its report.

use sqlx::Row as _;

use super::rows::{index, run_row};
use super::{RunRow, Store, StoreError, now_ms};
use crate::ids::RunId;

/// The columns of a `RunRow`, as a literal for `concat!` (sqlx takes only static queries).
macro_rules! select_run {
    () => {
        "SELECT id, suite, suite_version, suite_hash, agent, settings, state, report, \
         created_ms, ended_ms, tenant FROM runs"
    };
}

/// Suite runs. Their writes are few (one per episode) and each commits on its own, beside the
/// writer task's groups of steps.
impl Store {
    pub async fn create_run(&self, run: &RunRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO runs (id, suite, suite_version, suite_hash, agent, settings, state, \
             report, created_ms, tenant) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(run.id.as_str())
        .bind(&run.suite)
        .bind(&run.suite_version)
        .bind(&run.suite_hash)
        .bind(&run.agent)
        .bind(&run.settings)
        .bind(&run.state)
        .bind(run.report.as_deref())
        .bind(run.created_ms)
        .bind(&run.tenant)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn run(&self, id: &RunId) -> Result<Option<RunRow>, StoreError> {
        let row = sqlx::query(concat!(select_run!(), " WHERE id = $1"))
            .bind(id.as_str())
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
        run_id: &RunId,
        scenario: &str,
        trial: u32,
        result: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "INSERT INTO run_episodes (run_id, scenario, trial, result, created_ms) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id, scenario, trial) DO NOTHING",
        )
        .bind(run_id.as_str())
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
        run_id: &RunId,
    ) -> Result<Vec<(String, u32, String)>, StoreError> {
        let rows = sqlx::query(
            "SELECT scenario, trial, result FROM run_episodes WHERE run_id = $1 \
             ORDER BY scenario, trial",
        )
        .bind(run_id.as_str())
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
    pub async fn finish_run(&self, run_id: &RunId, report: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE runs SET state = 'done', report = $1, ended_ms = $2 WHERE id = $3")
            .bind(report)
            .bind(now_ms())
            .bind(run_id.as_str())
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
