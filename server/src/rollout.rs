//! Agents played in process on episodes that fork: the engine behind Monte Carlo step labels
//! (from a step, K continuations by a rollout agent) and Best-of-N (at each step, N candidate
//! actions, each tried in a fork of the episode and ranked by a step scorer).
//!
//! A rollout keeps what an agent is shown (the first observation, the turns so far) and the
//! episode's line as a run records it, so that a fork carries its whole past and its line
//! measures the whole episode, prefix included, exactly as `agentbench run` would.

use std::sync::Arc;

use serde_json::Value;

use agentbench_agents::{Agent, Decision, Turn, View};
use agentbench_datasets::{Scenario, Suite};
use agentbench_env_runtime::{Episode, LoadedEnv, Mode, Stepped};
use agentbench_scorers::{RuleScorer, ScoredStep};

use crate::run::EpisodeLine;

/// One episode being played in process.
#[derive(Debug)]
pub struct Rollout<'a> {
    pub scenario: &'a Scenario,
    pub trial: u32,
    episode: Episode,
    /// The env's first observation.
    observation: Value,
    turns: Vec<Turn>,
    /// What a run records of the episode so far.
    pub line: EpisodeLine,
}

impl<'a> Rollout<'a> {
    /// Starts trial `trial` of `scenario` (one of `suite`'s) in `env` under `mode`.
    pub fn start(
        env: &Arc<LoadedEnv>,
        suite: &Suite,
        scenario: &'a Scenario,
        mode: Mode,
        trial: u32,
    ) -> Result<Rollout<'a>, String> {
        let (episode, observation) =
            Episode::start(env.clone(), scenario.seed, &scenario.task_config(), mode)
                .map_err(|error| format!("{}: the episode cannot start: {error}", scenario.id))?;
        Ok(Rollout {
            scenario,
            trial,
            episode,
            observation: serde_json::from_str(observation.get()).unwrap_or(Value::Null),
            turns: Vec::new(),
            line: EpisodeLine::start(suite, scenario, trial),
        })
    }

    /// A rollout in exactly this one's state, with its own episode.
    pub fn fork(&mut self) -> Result<Rollout<'a>, String> {
        Ok(Rollout {
            scenario: self.scenario,
            trial: self.trial,
            episode: self
                .episode
                .fork()
                .map_err(|error| format!("{}: cannot fork: {error}", self.scenario.id))?,
            observation: self.observation.clone(),
            turns: self.turns.clone(),
            line: self.line.clone(),
        })
    }

    pub fn is_over(&self) -> bool {
        self.episode.is_over()
    }

    /// The episode's env.
    pub fn env(&self) -> &Arc<LoadedEnv> {
        self.episode.env()
    }

    /// Sample `sample` of `agent`'s next action.
    pub async fn decide(&self, agent: &dyn Agent, sample: u32) -> Result<Decision, String> {
        let view = View {
            scenario: Some(self.scenario),
            trial: self.trial,
            sample,
            instruction: &self.scenario.instruction,
            observation: &self.observation,
            tools: &self.env().manifest().tools,
            mask: self.episode.mask(),
            turns: &self.turns,
        };
        agent
            .act(view)
            .await
            .map_err(|error| format!("{}: the agent failed: {error}", self.scenario.id))
    }

    /// Steps `decision`'s action, counting it into the line; once the step ends the episode,
    /// the line is complete. Fails when the env fails (the episode is then unmeasured).
    pub fn step(&mut self, decision: &Decision) -> Result<Stepped, String> {
        let failed = |error: String| format!("{}: {error}", self.scenario.id);
        let stepped = self
            .episode
            .step(decision.action.clone(), decision.tokens)
            .map_err(|error| failed(format!("a step failed: {error}")))?;
        let manifest = self.episode.env().manifest();
        let scored = ScoredStep::new(manifest, &self.scenario.instruction, &stepped);
        let (rule_reward, _) = RuleScorer::score(&scored);
        self.line.count_decision(decision);
        self.line.count_step(
            &manifest.tools,
            &decision.action,
            stepped.record.status.as_str(),
            stepped.record.violations.len(),
            rule_reward,
        );
        if stepped.ended() {
            let outcome = stepped.outcome.clone().ok_or_else(|| {
                failed("the env failed, so the episode has no outcome".to_owned())
            })?;
            self.line.end(outcome, stepped.record.truncated, decision);
        }
        self.turns.push(Turn::from_record(&stepped.record));
        Ok(stepped)
    }

    /// Plays sample `sample` of `agent` until the episode ends; returns its line, unmeasured
    /// (with the reason) when the agent or the env failed.
    pub async fn finish(mut self, agent: &dyn Agent, sample: u32) -> EpisodeLine {
        if let Err(error) = self.play_out(agent, sample).await {
            self.line.error = Some(error);
        }
        self.line
    }

    async fn play_out(&mut self, agent: &dyn Agent, sample: u32) -> Result<(), String> {
        while !self.is_over() {
            let decision = self.decide(agent, sample).await?;
            self.step(&decision)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use agentbench_agents::{Baseline, Scripted};
    use agentbench_datasets::Kind;

    use super::*;

    #[tokio::test]
    async fn a_fork_plays_on_from_where_it_parted_and_measures_the_whole_episode() {
        let sandbox = crate::builtin::sandbox(Default::default()).unwrap();
        let envs = crate::builtin::load_runtime_envs(&sandbox, &Default::default()).unwrap();
        let suite = Suite::builtin("safety").unwrap();
        let scenario = suite
            .scenarios
            .iter()
            .find(|scenario| scenario.kind == Kind::Attack && !scenario.harmful_request)
            .unwrap();
        let env = &envs[&scenario.env];
        let oracle = Scripted::baseline(Baseline::Oracle);
        let reckless = Scripted::baseline(Baseline::Reckless);

        let whole = Rollout::start(env, &suite, scenario, Mode::Audit, 0)
            .unwrap()
            .finish(&oracle, 0)
            .await;
        assert!(whole.measured, "{whole:?}");
        assert!(
            whole
                .result()
                .measured
                .unwrap()
                .safely_completed(&whole.result())
        );

        // One step of the oracle's, then a fork: the fork carries that step, and an oracle
        // continuation ends where the whole oracle episode ended.
        let mut rollout = Rollout::start(env, &suite, scenario, Mode::Audit, 0).unwrap();
        let first = rollout.decide(&oracle, 0).await.unwrap();
        rollout.step(&first).unwrap();
        let fork = rollout.fork().unwrap();
        let continued = fork.finish(&oracle, 0).await;
        assert_eq!(continued, whole);
        // The original is untouched by its fork's steps, and can go elsewhere.
        assert_eq!(rollout.line.steps, 1);
        let diverted = rollout.finish(&reckless, 0).await;
        assert!(diverted.measured);
        assert_eq!(diverted.actions[0], whole.actions[0]);
        assert!(!diverted.outcome.unwrap().harms.is_empty(), "{scenario:?}");
    }
}
