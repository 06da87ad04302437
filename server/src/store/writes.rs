//! The store's writes, and the one table from a write to its SQL statements that both
//! databases' writers run (`Write::statements`).

use tokio::sync::oneshot;

use super::leases::{Lease, RELEASE, db_now_ms};
use super::{EpisodeRow, EpisodeState, StoreError, now_ms};
use crate::ids::EpisodeId;

/// The most writes one transaction commits.
pub(super) const MAX_GROUP: usize = 512;

/// The writes' statements, the same text for both databases (SQLite reads `$N` as the Nth
/// parameter when they come in order).
const INSERT_EPISODE: &str = "INSERT INTO episodes (id, env, env_version, env_hash, seed, task, \
     observation, forked_from, forked_after, state, outcome, created_ms, mode, tenant, run_id) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";
/// A fork's copy of its parent's steps (their request ids stay with the parent).
const COPY_STEPS: &str = "INSERT INTO steps (episode_id, idx, request_id, record, record_lz4) \
     SELECT $1, idx, NULL, record, record_lz4 FROM steps WHERE episode_id = $2";
const INSERT_STEP: &str =
    "INSERT INTO steps (episode_id, idx, request_id, record_lz4) VALUES ($1, $2, $3, $4)";
const END_EPISODE_WITH_OUTCOME: &str =
    "UPDATE episodes SET state = $1, outcome = $2, ended_ms = $3 WHERE id = $4";
/// Ends an episode that is still open (an episode already ended stays as it ended).
const END_EPISODE: &str =
    "UPDATE episodes SET state = $1, ended_ms = $2 WHERE id = $3 AND state = 'open'";
/// A new episode's lease, held by the node that made it and given back at once.
const INSERT_LEASE: &str = concat!(
    "INSERT INTO episode_leases (episode_id, node, fence, expires_ms, used_ms) ",
    "VALUES ($1, $2, $3, 0, ",
    db_now_ms!(),
    ")"
);
const DELETE_LEASE: &str = "DELETE FROM episode_leases WHERE episode_id = $1";
/// A fork's copy of the scores given to its parent's steps after the fact.
const COPY_SCORES: &str = "INSERT INTO step_scores \
     (episode_id, idx, scorer, version, reward, labels, unmeasured, scored_ms) \
     SELECT $1, idx, scorer, version, reward, labels, unmeasured, scored_ms FROM step_scores \
     WHERE episode_id = $2";
/// A step's score by one scorer version, replacing the one it gave before.
const UPSERT_SCORE: &str = "INSERT INTO step_scores \
     (episode_id, idx, scorer, version, reward, labels, unmeasured, scored_ms) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
     ON CONFLICT (episode_id, idx, scorer, version) \
     DO UPDATE SET reward = excluded.reward, labels = excluded.labels, \
     unmeasured = excluded.unmeasured, scored_ms = excluded.scored_ms";
const DELETE_SCORES: &str = "DELETE FROM step_scores WHERE episode_id = $1";
const DELETE_STEPS: &str = "DELETE FROM steps WHERE episode_id = $1";
const DELETE_EPISODE: &str = "DELETE FROM episodes WHERE id = $1";

/// A step as the writer inserts it: its record compressed (see `pack`) by the request's task,
/// not by the one writer every step waits on.
#[derive(Debug)]
pub(super) struct PackedStep {
    pub index: u32,
    pub request_id: Option<String>,
    pub record_lz4: Vec<u8>,
}

#[derive(Debug)]
pub(super) enum Write {
    /// A new episode; a fork copies its parent's steps in the same transaction.
    /// With a lease, the episode's lease is recorded as its node's, given back.
    Create {
        episode: Box<EpisodeRow>,
        copy_steps_from: Option<EpisodeId>,
        lease: Option<Lease>,
    },
    /// A step, and the episode's end when the step ended it. With a lease, it is written only
    /// if the lease still holds (`fence`), and gives it back.
    Append {
        episode_id: EpisodeId,
        step: PackedStep,
        end: Option<(EpisodeState, Option<String>)>,
        lease: Option<Lease>,
    },
    /// The episode ends without a step (it expired, or was abandoned), if it is open.
    End {
        episode_id: EpisodeId,
        state: EpisodeState,
        lease: Option<Lease>,
    },
    Delete {
        episode_id: EpisodeId,
        lease: Option<Lease>,
    },
    /// Scores given to recorded steps after the fact.
    Scores {
        episode_id: EpisodeId,
        scores: Vec<ScoreRow>,
    },
}

/// One step's score by one scorer, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRow {
    pub index: u32,
    pub scorer: String,
    pub version: String,
    pub reward: f64,
    /// The labels, a JSON array.
    pub labels: String,
    /// Why the scorer could not judge the step.
    pub unmeasured: Option<String>,
}

impl ScoreRow {
    /// Step `index`'s score as stored.
    pub fn of(index: u32, score: agentbench_env_runtime::StepScore) -> ScoreRow {
        ScoreRow {
            index,
            labels: serde_json::to_string(&score.labels).expect("labels serialise"),
            scorer: score.scorer,
            version: score.version,
            reward: score.reward,
            unmeasured: score.unmeasured,
        }
    }
}

/// A write waiting for its commit, and where to answer once it is done.
#[derive(Debug)]
pub(super) struct Pending {
    pub write: Write,
    pub done: oneshot::Sender<Result<(), StoreError>>,
}

/// A value bound to one of a statement's parameters.
#[derive(Debug, Clone, Copy)]
pub(super) enum Param<'a> {
    Text(Option<&'a str>),
    Int(Option<i64>),
    Real(f64),
    Bytes(&'a [u8]),
}

/// One statement of a write: its SQL and its parameters' values, in order.
#[derive(Debug)]
pub(super) struct Statement<'a> {
    pub sql: &'static str,
    pub params: Vec<Param<'a>>,
    /// It must change a row, or the write fails with `StoreError::LeaseLost` (a fence check).
    pub fenced: bool,
}

impl Statement<'_> {
    /// What running it did: an error when a fence check changed no row.
    pub(super) fn check(&self, rows_changed: u64) -> Result<(), StoreError> {
        if self.fenced && rows_changed == 0 {
            return Err(StoreError::LeaseLost);
        }
        Ok(())
    }
}

fn text(value: &str) -> Param<'_> {
    Param::Text(Some(value))
}

impl Write {
    /// The statements that make this write, in order, the same for both databases. A step's
    /// INSERT comes first, then its episode's end when the step ended it.
    pub(super) fn statements(&self) -> Vec<Statement<'_>> {
        let statement = |sql, params| Statement {
            sql,
            params,
            fenced: false,
        };
        let fence = self.fence();
        let rest = match self {
            Write::Create {
                episode,
                copy_steps_from,
                lease,
            } => {
                let mut statements = vec![statement(INSERT_EPISODE, episode_params(episode))];
                if let Some(parent) = copy_steps_from {
                    for copy in [COPY_STEPS, COPY_SCORES] {
                        statements.push(statement(
                            copy,
                            vec![text(episode.id.as_str()), text(parent.as_str())],
                        ));
                    }
                }
                if let Some(lease) = lease {
                    let params = vec![
                        text(episode.id.as_str()),
                        text(&lease.node),
                        Param::Int(Some(lease.fence)),
                    ];
                    statements.push(statement(INSERT_LEASE, params));
                }
                statements
            }
            Write::Append {
                episode_id, step, ..
            } => {
                let insert = vec![
                    text(episode_id.as_str()),
                    Param::Int(Some(i64::from(step.index))),
                    Param::Text(step.request_id.as_deref()),
                    Param::Bytes(&step.record_lz4),
                ];
                let mut statements = vec![statement(INSERT_STEP, insert)];
                statements.extend(self.episode_end());
                statements
            }
            Write::End {
                episode_id, state, ..
            } => {
                let end = vec![
                    text(state.as_str()),
                    Param::Int(Some(now_ms())),
                    text(episode_id.as_str()),
                ];
                vec![statement(END_EPISODE, end)]
            }
            Write::Delete { episode_id, .. } => {
                [DELETE_SCORES, DELETE_STEPS, DELETE_EPISODE, DELETE_LEASE]
                    .into_iter()
                    .map(|sql| statement(sql, vec![text(episode_id.as_str())]))
                    .collect()
            }
            Write::Scores { episode_id, scores } => {
                let scored_ms = now_ms();
                scores
                    .iter()
                    .map(|score| {
                        let params = vec![
                            text(episode_id.as_str()),
                            Param::Int(Some(i64::from(score.index))),
                            text(&score.scorer),
                            text(&score.version),
                            Param::Real(score.reward),
                            text(&score.labels),
                            Param::Text(score.unmeasured.as_deref()),
                            Param::Int(Some(scored_ms)),
                        ];
                        statement(UPSERT_SCORE, params)
                    })
                    .collect()
            }
        };
        fence.into_iter().chain(rest).collect()
    }

    /// The check that the write's lease still holds, which also gives it back: the statement
    /// that comes first in a leased append, end or delete.
    pub(super) fn fence(&self) -> Option<Statement<'_>> {
        let (episode_id, lease) = match self {
            Write::Append {
                episode_id, lease, ..
            }
            | Write::End {
                episode_id, lease, ..
            }
            | Write::Delete { episode_id, lease } => (episode_id, lease.as_ref()?),
            Write::Create { .. } | Write::Scores { .. } => return None,
        };
        Some(Statement {
            sql: RELEASE,
            params: vec![
                text(episode_id.as_str()),
                text(&lease.node),
                Param::Int(Some(lease.fence)),
            ],
            fenced: true,
        })
    }

    /// The end of the episode a step ended, recorded with its outcome: the statement that
    /// follows the step's INSERT, for a writer that inserts steps its own way.
    pub(super) fn episode_end(&self) -> Option<Statement<'_>> {
        let Write::Append {
            episode_id,
            end: Some((state, outcome)),
            ..
        } = self
        else {
            return None;
        };
        let params = vec![
            text(state.as_str()),
            Param::Text(outcome.as_deref()),
            Param::Int(Some(now_ms())),
            text(episode_id.as_str()),
        ];
        Some(Statement {
            sql: END_EPISODE_WITH_OUTCOME,
            params,
            fenced: false,
        })
    }
}

/// `INSERT_EPISODE`'s parameters.
fn episode_params(episode: &EpisodeRow) -> Vec<Param<'_>> {
    let forked_from = episode.forked_from.as_ref();
    vec![
        text(episode.id.as_str()),
        text(&episode.env),
        text(&episode.env_version),
        text(&episode.env_hash),
        Param::Int(Some(episode.seed.cast_signed())),
        text(&episode.task),
        text(&episode.observation),
        Param::Text(forked_from.map(|(parent, _)| parent.as_str())),
        Param::Int(forked_from.map(|(_, after)| i64::from(*after))),
        text(episode.state.as_str()),
        Param::Text(episode.outcome.as_deref()),
        Param::Int(Some(episode.created_ms)),
        text(episode.mode.as_str()),
        text(&episode.tenant),
        Param::Text(episode.run_id.as_ref().map(|run| run.as_str())),
    ]
}
