//! The episodes' queries: the writes that record an episode and its steps, and the reads of
//! them.

use super::rows::{episode_row, step_row};
use sqlx::Row as _;

use super::writes::{PackedStep, ScoreRow, Write};
use super::{EpisodeRow, EpisodeState, Lease, StepRow, Store, StoreError, pack};
use crate::ids::EpisodeId;

/// A query for the columns `episode_row` reads, with its `WHERE` (and further) clauses.
macro_rules! select_episodes {
    ($clauses:literal) => {
        concat!(
            "SELECT id, env, env_version, env_hash, seed, task, observation, forked_from, ",
            "forked_after, state, outcome, created_ms, mode, tenant, run_id FROM episodes ",
            $clauses
        )
    };
}

impl Store {
    /// Records a new episode; a fork also copies `copy_steps_from`'s steps. With `lease`, the
    /// episode's lease is recorded as that node's, given back.
    pub async fn create_episode(
        &self,
        episode: EpisodeRow,
        copy_steps_from: Option<EpisodeId>,
        lease: Option<Lease>,
    ) -> Result<(), StoreError> {
        self.write(Write::Create {
            episode: Box::new(episode),
            copy_steps_from,
            lease,
        })
        .await
    }

    /// Records a step; `end` is the episode's end state and outcome when this step ended it.
    /// Under `lease`, only while the lease holds (`StoreError::LeaseLost` otherwise); the lease
    /// is given back with it.
    pub async fn append_step(
        &self,
        episode_id: &EpisodeId,
        step: StepRow,
        end: Option<(EpisodeState, Option<String>)>,
        lease: Option<Lease>,
    ) -> Result<(), StoreError> {
        let step = PackedStep {
            index: step.index,
            request_id: step.request_id,
            record_lz4: pack(&step.record),
        };
        self.write(Write::Append {
            episode_id: episode_id.clone(),
            step,
            end,
            lease,
        })
        .await
    }

    /// Marks an open episode ended without a step (expired or abandoned); under `lease` as
    /// `append_step` does.
    pub async fn end_episode(
        &self,
        episode_id: &EpisodeId,
        state: EpisodeState,
        lease: Option<Lease>,
    ) -> Result<(), StoreError> {
        self.write(Write::End {
            episode_id: episode_id.clone(),
            state,
            lease,
        })
        .await
    }

    /// Deletes an episode and its steps; under `lease` as `append_step` does.
    pub async fn delete_episode(
        &self,
        episode_id: &EpisodeId,
        lease: Option<Lease>,
    ) -> Result<(), StoreError> {
        self.write(Write::Delete {
            episode_id: episode_id.clone(),
            lease,
        })
        .await
    }

    pub async fn episode(&self, id: &EpisodeId) -> Result<Option<EpisodeRow>, StoreError> {
        let row = sqlx::query(select_episodes!("WHERE id = $1"))
            .bind(id.as_str())
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
    pub async fn steps(&self, episode_id: &EpisodeId) -> Result<Vec<StepRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT idx, request_id, record, record_lz4 FROM steps WHERE episode_id = $1 ORDER BY idx",
        )
        .bind(episode_id.as_str())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(step_row).collect()
    }

    /// Records scores given to an episode's recorded steps after the fact, each replacing the
    /// one the same scorer version gave the same step before.
    pub async fn record_scores(
        &self,
        episode_id: &EpisodeId,
        scores: Vec<ScoreRow>,
    ) -> Result<(), StoreError> {
        if scores.is_empty() {
            return Ok(());
        }
        self.write(Write::Scores {
            episode_id: episode_id.clone(),
            scores,
        })
        .await
    }

    /// The scores given to an episode's steps after the fact, by step, then scorer and version.
    pub async fn scores(&self, episode_id: &EpisodeId) -> Result<Vec<ScoreRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT idx, scorer, version, reward, labels, unmeasured FROM step_scores \
             WHERE episode_id = $1 \
             ORDER BY idx, scorer, version",
        )
        .bind(episode_id.as_str())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(ScoreRow {
                    index: u32::try_from(row.try_get::<i64, _>(0)?).unwrap_or(u32::MAX),
                    scorer: row.try_get(1)?,
                    version: row.try_get(2)?,
                    reward: row.try_get(3)?,
                    labels: row.try_get(4)?,
                    unmeasured: row.try_get(5)?,
                })
            })
            .collect()
    }

    /// The step a request id produced, if any.
    pub async fn step_by_request(
        &self,
        episode_id: &EpisodeId,
        request_id: &str,
    ) -> Result<Option<StepRow>, StoreError> {
        let row = sqlx::query(
            "SELECT idx, request_id, record, record_lz4 FROM steps \
             WHERE episode_id = $1 AND request_id = $2",
        )
        .bind(episode_id.as_str())
        .bind(request_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(step_row).transpose()
    }
}
