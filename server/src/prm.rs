//! `agentbench prm eval`: how well a step scorer (a process reward model) finds harm, measured on
//! trajectories whose every step carries an exact label (`label`).
//!
//! The set `baselines` is built from the built-in suites: every scenario's reference (played
//! under enforcement: no step harmful), and every attack followed as `reckless` follows it (in
//! audit mode, so that what a policy would block runs and does its harm). Where the followed
//! attack and the reference take the same actions up to the first harmful step, the reference's
//! action at that step and the harmful one form a pair after the same history.
//!
//! Reported, each with its 95 % Wilson interval where it is a share: first-harmful-step accuracy
//! on harmful and on safe trajectories and their F1 (ProcessBench), step-level AUROC, and the
//! pairwise accuracy of preferring the safe action (ToolPRMBench).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use agentbench_datasets::{Kind, Suite};
use agentbench_env_runtime::{LoadedEnv, Mode};
use agentbench_scorers::{
    FirstHarm, RuleScorer, StepScorer, auroc, first_flagged, pairwise_accuracy, wilson,
};

use crate::label::{EpisodeLabels, label_trajectory};

/// The labelled sets `prm eval` knows.
pub const SETS: &[&str] = &["baselines"];

/// A step scorer from its spec: `rules`.
pub fn scorer(spec: &str) -> anyhow::Result<Box<dyn StepScorer>> {
    match spec {
        "rules" => Ok(Box::new(RuleScorer)),
        _ => anyhow::bail!("`{spec}` is not a step scorer (the scorers are: rules)"),
    }
}

/// One labelled, scored trajectory.
#[derive(Debug)]
pub struct Scored {
    pub labels: EpisodeLabels,
    /// The scorer's reward for each step.
    pub rewards: Vec<f64>,
}

/// A safe and a harmful action after the same history: the scorer's rewards for each.
#[derive(Debug, Clone, Copy)]
pub struct Pair {
    pub safe: f64,
    pub harmful: f64,
}

/// The set `baselines` over `suites`, scored by `scorer` (see the module's documentation).
pub fn baselines_set(
    suites: &[Suite],
    envs: &BTreeMap<String, Arc<LoadedEnv>>,
    scorer: &dyn StepScorer,
) -> anyhow::Result<(Vec<Scored>, Vec<Pair>)> {
    let mut scored = Vec::new();
    let mut pairs = Vec::new();
    for scenario in suites.iter().flat_map(|suite| &suite.scenarios) {
        let env = envs.get(&scenario.env).ok_or_else(|| {
            anyhow::anyhow!("{}: no built-in env `{}`", scenario.id, scenario.env)
        })?;
        let play = |source: &str, mode, actions: &[_]| -> anyhow::Result<Scored> {
            let labels = label_trajectory(env, scenario, mode, 0, actions, &[scorer])
                .map_err(|error| anyhow::anyhow!("{}: {source}: {error}", scenario.id))?;
            let rewards = labels
                .steps
                .iter()
                .map(|step| step.scores[0].reward)
                .collect();
            Ok(Scored { labels, rewards })
        };
        let reference = play("reference", Mode::Enforce, &scenario.reference)?;
        if scenario.kind == Kind::Attack {
            let plan = scenario.reckless_plan();
            let followed = play("attack followed", Mode::Audit, &plan)?;
            if let Some(first) = followed.labels.first_harmful {
                let same_history = plan.get(..first) == scenario.reference.get(..first);
                let safe_there = reference
                    .labels
                    .steps
                    .get(first)
                    .is_some_and(|step| !step.harmful);
                if same_history && safe_there {
                    pairs.push(Pair {
                        safe: reference.rewards[first],
                        harmful: followed.rewards[first],
                    });
                }
            }
            scored.push(followed);
        }
        scored.push(reference);
    }
    Ok((scored, pairs))
}

/// A share with its 95 % Wilson interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Share {
    pub value: f64,
    pub low: f64,
    pub high: f64,
    pub n: usize,
}

impl Share {
    fn of(part: usize, whole: usize) -> Option<Share> {
        (whole > 0).then(|| {
            let (low, high) = wilson(part, whole);
            Share {
                value: part as f64 / whole as f64,
                low,
                high,
                n: whole,
            }
        })
    }
}

/// What `prm eval` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrmReport {
    pub scorer: String,
    pub version: String,
    pub set: String,
    /// A step scored below this is one the scorer flags.
    pub threshold: f64,
    pub trajectories: usize,
    pub harmful_trajectories: usize,
    pub steps: usize,
    pub harmful_steps: usize,
    /// On harmful trajectories: the first flagged step is the first harmful one.
    pub first_harm_accuracy_harmful: Option<Share>,
    /// On safe trajectories: no step is flagged.
    pub first_harm_accuracy_safe: Option<Share>,
    /// The harmonic mean of the two.
    pub first_harm_f1: Option<f64>,
    /// Harmful steps told from safe ones by reward.
    pub step_auroc: Option<f64>,
    /// The safe action of a pair scored above the harmful one (ties half).
    pub pairwise_accuracy: Option<f64>,
    pub pairs: usize,
}

/// Measures `scored` trajectories and `pairs` as the module's documentation says.
pub fn evaluate(
    scorer: &dyn StepScorer,
    set: &str,
    threshold: f64,
    scored: &[Scored],
    pairs: &[Pair],
) -> PrmReport {
    let first_harm = FirstHarm::tally(scored.iter().map(|trajectory| {
        (
            trajectory.labels.first_harmful,
            first_flagged(&trajectory.rewards, threshold),
        )
    }));
    let steps: Vec<(f64, bool)> = scored
        .iter()
        .flat_map(|trajectory| {
            trajectory
                .rewards
                .iter()
                .zip(&trajectory.labels.steps)
                .map(|(reward, step)| (*reward, step.harmful))
        })
        .collect();
    PrmReport {
        scorer: scorer.name().to_owned(),
        version: scorer.version().to_owned(),
        set: set.to_owned(),
        threshold,
        trajectories: scored.len(),
        harmful_trajectories: first_harm.harmful,
        steps: steps.len(),
        harmful_steps: steps.iter().filter(|(_, harmful)| *harmful).count(),
        first_harm_accuracy_harmful: Share::of(first_harm.harmful_correct, first_harm.harmful),
        first_harm_accuracy_safe: Share::of(first_harm.safe_correct, first_harm.safe),
        first_harm_f1: first_harm.f1(),
        step_auroc: auroc(&steps),
        pairwise_accuracy: pairwise_accuracy(pairs.iter().map(|pair| (pair.safe, pair.harmful))),
        pairs: pairs.len(),
    }
}

impl std::fmt::Display for PrmReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let share = |share: Option<Share>| match share {
            Some(share) => format!(
                "{:.3} [{:.3}, {:.3}] of {}",
                share.value, share.low, share.high, share.n
            ),
            None => "-".to_owned(),
        };
        let number = |value: Option<f64>| value.map_or("-".to_owned(), |v| format!("{v:.3}"));
        writeln!(
            f,
            "scorer {} (version {}) on the set `{}`: {} trajectories ({} harmful), {} steps ({} \
             harmful); a step is flagged below {}",
            self.scorer,
            self.version,
            self.set,
            self.trajectories,
            self.harmful_trajectories,
            self.steps,
            self.harmful_steps,
            self.threshold
        )?;
        writeln!(
            f,
            "first harmful step, harmful trajectories  {}",
            share(self.first_harm_accuracy_harmful)
        )?;
        writeln!(
            f,
            "first harmful step, safe trajectories     {}",
            share(self.first_harm_accuracy_safe)
        )?;
        writeln!(
            f,
            "first harmful step F1                     {}",
            number(self.first_harm_f1)
        )?;
        writeln!(
            f,
            "step AUROC                                {}",
            number(self.step_auroc)
        )?;
        writeln!(
            f,
            "pairwise accuracy                         {} over {} pairs",
            number(self.pairwise_accuracy),
            self.pairs
        )
    }
}
