//! `agentbench prm best-of-n`: what a step scorer is worth to an agent. At every step the agent
//! is asked for N samples of its next action; each distinct candidate is tried in a fork of the
//! episode, the scorer scores what it did, and the episode goes on with the best-scored one
//! (the first sample on a tie, or when the scorer could judge none). The same scenarios are
//! played by the agent alone (its first sample at every step), and the two runs' metrics are
//! reported side by side, with the paired difference over scenarios.
//!
//! Trying a candidate in a fork means it runs before it is chosen: the sandboxed env is
//! deterministic and forks are thrown away, so what a candidate would do is known exactly, and
//! the scorer judges what the step did (as every step scorer here does), not a guess at it.

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use agentbench_agents::{Agent, Decision};
use agentbench_datasets::{Scenario, Suite};
use agentbench_env_runtime::{LoadedEnv, Mode};
use agentbench_scorers::{
    Difference, EpisodeResult, Estimate, Metric, ScoredStep, StepScorer, compare, run_metrics,
};

use crate::prm::Split;
use crate::rollout::Rollout;
use crate::run::EpisodeLine;

/// The metrics reported for both runs.
pub const METRICS: [Metric; 5] = [
    Metric::SafeCompletion,
    Metric::SafetyScore,
    Metric::HarmRate,
    Metric::AttackSuccessRate,
    Metric::Utility,
];

/// How the comparison is played.
#[derive(Debug, Clone, Copy)]
pub struct BestOfNSettings {
    /// Samples asked of the agent at every step.
    pub n: u32,
    pub mode: Mode,
    pub trials: u32,
    pub split: Split,
}

/// One run's side of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Side {
    pub metrics: BTreeMap<Metric, Estimate>,
    /// Episodes that could not be measured (the agent or the env failed).
    pub unmeasured: usize,
}

/// What `prm best-of-n` reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BestOfNReport {
    pub agent: String,
    pub scorer: String,
    pub version: String,
    pub n: u32,
    pub mode: Mode,
    pub split: Split,
    pub trials: u32,
    pub scenarios: usize,
    /// The agent alone.
    pub alone: Side,
    /// The agent with Best-of-N.
    pub best_of_n: Side,
    /// Best-of-N minus alone, paired by scenario, with 95 % bootstrap intervals.
    pub differences: Vec<Difference>,
    /// Steps at which the agent's samples held more than one distinct action.
    pub choices: usize,
    /// Of those, steps at which the scorer chose other than the first sample.
    pub changed: usize,
    /// Candidates the scorer could not judge (ranked below every judged one).
    pub unmeasured_candidates: usize,
    pub seconds: f64,
}

/// What the Best-of-N player counts as it goes.
#[derive(Debug, Default)]
struct Tally {
    choices: usize,
    changed: usize,
    unmeasured_candidates: usize,
}

/// Plays the scenarios of `suites` in `settings.split`, each `settings.trials` times, by
/// `agent` alone and by `agent` with Best-of-N under `scorer`.
pub async fn compare_best_of_n(
    suites: &[Suite],
    envs: &BTreeMap<String, Arc<LoadedEnv>>,
    agent: &dyn Agent,
    scorer: &dyn StepScorer,
    settings: BestOfNSettings,
) -> anyhow::Result<BestOfNReport> {
    anyhow::ensure!(settings.n >= 1, "Best-of-N needs N of at least 1");
    let started = std::time::Instant::now();
    let mut alone = Vec::new();
    let mut best = Vec::new();
    let mut tally = Tally::default();
    let mut scenarios = 0;
    for suite in suites {
        for scenario in suite
            .scenarios
            .iter()
            .filter(|scenario| settings.split.keeps(scenario))
        {
            let env = envs.get(&scenario.env).ok_or_else(|| {
                anyhow::anyhow!("{}: no built-in env `{}`", scenario.id, scenario.env)
            })?;
            scenarios += 1;
            for trial in 0..settings.trials {
                let start = || Rollout::start(env, suite, scenario, settings.mode, trial);
                let played = match start() {
                    Ok(rollout) => rollout.finish(agent, 0).await,
                    Err(error) => unmeasured(suite, scenario, trial, error),
                };
                alone.push(played.result());
                let played = match start() {
                    Ok(rollout) => {
                        play_best_of_n(rollout, agent, scorer, settings.n, &mut tally).await
                    }
                    Err(error) => unmeasured(suite, scenario, trial, error),
                };
                best.push(played.result());
            }
        }
    }
    let side = |results: &[EpisodeResult]| {
        let metrics = run_metrics(results);
        Side {
            metrics: metrics
                .overall
                .into_iter()
                .filter(|(metric, _)| METRICS.contains(metric))
                .collect(),
            unmeasured: metrics.unmeasured,
        }
    };
    Ok(BestOfNReport {
        agent: agent.name().to_owned(),
        scorer: scorer.name().to_owned(),
        version: scorer.version().to_owned(),
        n: settings.n,
        mode: settings.mode,
        split: settings.split,
        trials: settings.trials,
        scenarios,
        alone: side(&alone),
        best_of_n: side(&best),
        differences: METRICS
            .iter()
            .filter_map(|metric| compare(&best, &alone, *metric))
            .collect(),
        choices: tally.choices,
        changed: tally.changed,
        unmeasured_candidates: tally.unmeasured_candidates,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn unmeasured(suite: &Suite, scenario: &Scenario, trial: u32, error: String) -> EpisodeLine {
    let mut line = EpisodeLine::start(suite, scenario, trial);
    line.error = Some(error);
    line
}

/// Plays `rollout` to its end with Best-of-N; returns its line (unmeasured when the agent or
/// the env failed).
async fn play_best_of_n(
    mut rollout: Rollout<'_>,
    agent: &dyn Agent,
    scorer: &dyn StepScorer,
    n: u32,
    tally: &mut Tally,
) -> EpisodeLine {
    let result = async {
        while !rollout.is_over() {
            let decision = choose(&mut rollout, agent, scorer, n, tally).await?;
            rollout.step(&decision)?;
        }
        Ok::<_, String>(())
    }
    .await;
    if let Err(error) = result {
        rollout.line.error = Some(error);
    }
    rollout.line
}

/// The best-scored of `n` samples of `agent`'s next action, carrying what all of them cost.
async fn choose(
    rollout: &mut Rollout<'_>,
    agent: &dyn Agent,
    scorer: &dyn StepScorer,
    n: u32,
    tally: &mut Tally,
) -> Result<Decision, String> {
    let mut candidates: Vec<Decision> = Vec::new();
    let (mut tokens, mut latency) = (None::<u64>, std::time::Duration::ZERO);
    for sample in 0..n {
        let decision = rollout.decide(agent, sample).await?;
        if let Some(spent) = decision.tokens {
            tokens = Some(tokens.unwrap_or(0) + spent);
        }
        latency += decision.latency;
        if !candidates
            .iter()
            .any(|candidate| candidate.action == decision.action)
        {
            candidates.push(decision);
        }
    }
    let chosen = if candidates.len() == 1 {
        0
    } else {
        tally.choices += 1;
        let mut tried = Vec::with_capacity(candidates.len());
        for candidate in &candidates {
            let mut fork = rollout.fork()?;
            tried.push(fork.step(candidate)?);
        }
        let manifest = rollout.env().manifest();
        let instruction = &rollout.scenario.instruction;
        let steps: Vec<ScoredStep<'_>> = tried
            .iter()
            .map(|stepped| ScoredStep::new(manifest, instruction, stepped))
            .collect();
        let scores = scorer.judge_many(&steps);
        tally.unmeasured_candidates += scores
            .iter()
            .filter(|score| score.unmeasured.is_some())
            .count();
        let best = best_of(
            scores
                .iter()
                .map(|score| score.unmeasured.is_none().then_some(score.reward)),
        );
        tally.changed += usize::from(best != 0);
        best
    };
    let mut decision = candidates.swap_remove(chosen);
    decision.tokens = tokens;
    decision.latency = latency;
    Ok(decision)
}

/// The index of the highest reward, the first on a tie; an unjudged candidate (`None`) ranks
/// below every judged one, and the first is taken when none was judged.
fn best_of(rewards: impl IntoIterator<Item = Option<f64>>) -> usize {
    let mut best: Option<(usize, f64)> = None;
    for (index, reward) in rewards.into_iter().enumerate() {
        if let Some(reward) = reward
            && best.is_none_or(|(_, top)| reward > top)
        {
            best = Some((index, reward));
        }
    }
    best.map_or(0, |(index, _)| index)
}

impl std::fmt::Display for BestOfNReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Best-of-{} of `{}` under the scorer {} (version {}): {} scenarios (split `{}`) x {} \
             trials in {} mode; {} steps offered a choice, {} taken other than the first sample, \
             {} candidates unmeasured; {:.1} s",
            self.n,
            self.agent,
            self.scorer,
            self.version,
            self.scenarios,
            self.split.as_str(),
            self.trials,
            self.mode.as_str(),
            self.choices,
            self.changed,
            self.unmeasured_candidates,
            self.seconds
        )?;
        let estimate = |side: &Side, metric: Metric| {
            side.metrics.get(&metric).map_or("-".to_owned(), |e| {
                format!("{:.3} [{:.3}, {:.3}]", e.value, e.low, e.high)
            })
        };
        writeln!(
            f,
            "{:<22} {:<22} {:<22} difference (paired)",
            "metric", "alone", "best-of-n"
        )?;
        for metric in METRICS {
            let difference = self
                .differences
                .iter()
                .find(|difference| difference.metric == metric)
                .map_or("-".to_owned(), |d| {
                    format!("{:+.3} [{:+.3}, {:+.3}]", d.difference, d.low, d.high)
                });
            writeln!(
                f,
                "{:<22} {:<22} {:<22} {difference}",
                metric.as_str(),
                estimate(&self.alone, metric),
                estimate(&self.best_of_n, metric)
            )?;
        }
        writeln!(
            f,
            "unmeasured episodes: {} alone, {} with best-of-n",
            self.alone.unmeasured, self.best_of_n.unmeasured
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_is_the_first_highest_and_unjudged_candidates_rank_last() {
        assert_eq!(best_of([Some(-0.5), Some(0.2), Some(0.2)]), 1);
        assert_eq!(best_of([None, Some(-1.0)]), 1);
        assert_eq!(best_of([None, None]), 0);
        assert_eq!(best_of([Some(0.0)]), 0);
    }
}
