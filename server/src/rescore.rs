//! `agentbench rescore`: scores a recorded run's steps with a step scorer, new or changed,
//! without playing the agent again. Each episode's recorded actions are replayed in the sandbox
//! (envs are deterministic, so the replay gives what each step did), all steps are scored in one
//! batch, and the scores are stored beside the step records (`Store::record_scores`), one row
//! per step and scorer version: the run keeps every scorer's scores side by side, and the
//! episode's API view and page show them after the scores the steps were recorded with.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use agentbench_env_runtime::LoadedEnv;
use agentbench_scorers::{ScoredStep, StepScorer};

use crate::ids::{EpisodeId, RunId};
use crate::label::RecordedRun;
use crate::prm::Trajectory;
use crate::store::{ScoreRow, Store};

/// What `rescore` did.
#[derive(Debug)]
pub struct Rescored {
    pub episodes: usize,
    pub steps: usize,
    /// The steps the scorer put below the flag threshold it was given.
    pub flagged: usize,
    /// The steps the scorer could not judge.
    pub unmeasured: usize,
    /// Over the measured steps.
    pub mean_reward: f64,
    /// Seconds spent scoring (the replays not included).
    pub scoring_seconds: f64,
    /// The episodes that could not be rescored, with why.
    pub skipped: Vec<String>,
}

/// Scores every episode of run `run_id` in `store` with `scorer`, counting a step below
/// `flag_below` as flagged.
pub async fn rescore(
    store: &Store,
    run_id: &RunId,
    scorer: &dyn StepScorer,
    envs: &BTreeMap<String, Arc<LoadedEnv>>,
    flag_below: f64,
) -> anyhow::Result<Rescored> {
    let run = RecordedRun::from_store(store, run_id).await?;
    let mut trajectories = Vec::new();
    let mut ids = Vec::new();
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
            Ok((labelled, scenario, env)) => {
                trajectories.push(Trajectory {
                    env: env.clone(),
                    instruction: scenario.instruction.clone(),
                    labelled,
                });
                ids.push(id);
            }
            Err(error) => skipped.push(error),
        }
    }

    let started = Instant::now();
    let steps: Vec<ScoredStep<'_>> = trajectories.iter().flat_map(Trajectory::steps).collect();
    let mut scores = scorer.judge_many(&steps).into_iter();
    let scoring_seconds = started.elapsed().as_secs_f64();
    let (mut flagged, mut unmeasured, mut total) = (0, 0, 0.0);
    for (trajectory, id) in trajectories.iter().zip(&ids) {
        let rows = scores
            .by_ref()
            .take(trajectory.labelled.stepped.len())
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
        store.record_scores(id, rows).await?;
    }
    let measured = steps.len() - unmeasured;
    Ok(Rescored {
        episodes: trajectories.len(),
        steps: steps.len(),
        flagged,
        unmeasured,
        mean_reward: if measured == 0 {
            0.0
        } else {
            total / measured as f64
        },
        scoring_seconds,
        skipped,
    })
}
