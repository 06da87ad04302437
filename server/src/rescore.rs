//! `agentbench rescore`: scores a recorded run's steps with a step scorer, new or changed,
//! without playing the agent again. Each episode's recorded actions are replayed in the sandbox
//! (envs are deterministic, so the replay gives what each step did), all steps are scored in one
//! batch, and the scores are stored beside the step records (`Store::record_scores`), one row
//! per step and scorer version: the run keeps every scorer's scores side by side, and the
//! episode's API view and page show them after the scores the steps were recorded with.
//!
//! The three stages are apart because scoring blocks (a judge waits on its model): `recorded`
//! and `store` run on an async runtime, `score` off it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use agentbench_env_runtime::LoadedEnv;
use agentbench_scorers::StepScorer;

use crate::ids::{EpisodeId, RunId};
use crate::label::RecordedRun;
use crate::prm::{Trajectory, judge_trajectories};
use crate::store::{ScoreRow, Store};

/// A run's episodes replayed for scoring, and those that could not be, with why.
#[derive(Debug)]
pub struct Replayed {
    pub episodes: Vec<(EpisodeId, Trajectory)>,
    pub skipped: Vec<String>,
}

/// What `score` made of a run.
#[derive(Debug)]
pub struct Rescored {
    /// Each episode's scores, to store.
    pub scores: Vec<(EpisodeId, Vec<ScoreRow>)>,
    pub steps: usize,
    /// The steps the scorer put below the flag threshold it was given.
    pub flagged: usize,
    /// The steps the scorer could not judge.
    pub unmeasured: usize,
    /// Over the measured steps.
    pub mean_reward: f64,
    pub scoring_seconds: f64,
}

/// Replays every episode of run `run_id` in `store` with the envs in `envs`. An episode whose
/// steps this database does not hold (a run played against another server) is skipped.
pub async fn replayed(
    store: &Store,
    run_id: &RunId,
    envs: &BTreeMap<String, Arc<LoadedEnv>>,
) -> anyhow::Result<Replayed> {
    let run = RecordedRun::from_store(store, run_id).await?;
    let mut episodes = Vec::new();
    let mut skipped = Vec::new();
    for line in &run.episodes {
        let place = format!("{} trial {}", line.scenario, line.trial);
        let Some(episode) = &line.episode else {
            skipped.push(format!("{place}: no episode was recorded"));
            continue;
        };
        let id = EpisodeId::from(episode.as_str());
        let recorded_steps = store.steps(&id).await?.len();
        if recorded_steps != line.actions.len() {
            skipped.push(format!(
                "{place}: episode {id} has {recorded_steps} steps in this database, the run \
                 {} actions (was it played on another server?)",
                line.actions.len()
            ));
            continue;
        }
        match run.replay(line, envs) {
            Ok((labelled, scenario, env)) => episodes.push((
                id,
                Trajectory {
                    env: env.clone(),
                    instruction: scenario.instruction.clone(),
                    labelled,
                },
            )),
            Err(error) => skipped.push(error),
        }
    }
    Ok(Replayed { episodes, skipped })
}

/// Scores every step of `replayed` with `scorer` in one batch, counting a step below
/// `flag_below` as flagged. Blocks while the scorer works: call it off async workers.
pub fn score(replayed: &Replayed, scorer: &dyn StepScorer, flag_below: f64) -> Rescored {
    let started = Instant::now();
    let judged = judge_trajectories(
        replayed.episodes.iter().map(|(_, trajectory)| trajectory),
        scorer,
    );
    let scoring_seconds = started.elapsed().as_secs_f64();
    let steps: usize = judged.iter().map(Vec::len).sum();
    let (mut flagged, mut unmeasured, mut total) = (0, 0, 0.0);
    let scores = replayed
        .episodes
        .iter()
        .zip(judged)
        .map(|((id, _), scores)| {
            let rows = scores
                .into_iter()
                .enumerate()
                .map(|(index, score)| {
                    if score.unmeasured.is_some() {
                        unmeasured += 1;
                    } else {
                        flagged += usize::from(score.reward < flag_below);
                        total += score.reward;
                    }
                    ScoreRow::of(index as u32, score)
                })
                .collect();
            (id.clone(), rows)
        })
        .collect();
    let measured = steps - unmeasured;
    Rescored {
        scores,
        steps,
        flagged,
        unmeasured,
        mean_reward: if measured == 0 {
            0.0
        } else {
            total / measured as f64
        },
        scoring_seconds,
    }
}

/// Stores what `score` gave.
pub async fn store(store: &Store, rescored: Rescored) -> anyhow::Result<()> {
    for (id, rows) in rescored.scores {
        store.record_scores(&id, rows).await?;
    }
    Ok(())
}
