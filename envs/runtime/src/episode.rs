//! One episode on the host: its live instance, the runtime's counters (history, facts, mask,
//! budgets), and its lifecycle (start, replay, park and unpark, fork). The step pipeline is in
//! `step.rs`.

mod step;

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use agentbench_env_contract::{Effect, Outcome, SensitiveItem};
use agentbench_flow::sensitive_leak_check;
use agentbench_policies::{History, Mask, Situation};
use agentbench_sandbox::{CallError, Instance, JsonText};

use crate::requested::{sensitive_items, unrequested_effects_check};
use crate::{
    Action, EpisodeSettings, LoadedEnv, Mode, Outflow, Requested, RuntimeError, StepRecord,
};

/// The episode as the runtime knew it at one moment: what the policies know of the trajectory so
/// far and the env's facts. Shared, not copied: a moment costs two reference counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Moment {
    pub history: Arc<History>,
    pub facts: Arc<Value>,
}

/// What one step did: its record, the episode just before and just after it, and the env's
/// outcome checks when the step ended the episode. Everything downstream (scorers, the store,
/// an API's answer) works from this; nothing reaches back into the live episode.
#[derive(Debug, Clone)]
pub struct Stepped {
    pub record: StepRecord,
    pub before: Moment,
    pub after: Moment,
    /// How each tool stands for the next action; empty once the episode is over.
    pub next_mask: Arc<Mask>,
    /// The outcome when this step ended the episode; `None` while it goes on, and when the env
    /// failed and cannot be evaluated (such an episode is unmeasured).
    pub outcome: Option<Outcome>,
}

impl Stepped {
    /// The step ended the episode (final message, the env, or a budget).
    pub fn ended(&self) -> bool {
        self.record.terminated || self.record.truncated
    }
}

/// An episode parked: the guest's saved state plus the runtime's own counters.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Parked {
    pub state: Vec<u8>,
    pub progress: Progress,
}

/// The runtime's counters of an episode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub settings: EpisodeSettings,
    pub n_steps: u32,
    pub tokens: u64,
    pub replies_used: usize,
    pub terminated: bool,
    pub truncated: bool,
    pub mode: Mode,
    /// What the policies know of the episode so far, and the env's facts after the last step.
    pub now: Moment,
    /// The tools the env itself allows now.
    pub env_mask: Vec<String>,
    /// The env's mask combined with the policies (shared by episodes in the same situation).
    pub mask: Arc<Mask>,
    /// The effects the task asks for, when it gave a reference to grade against.
    pub requested: Option<Arc<Requested>>,
    /// The effects made so far that the task did not ask for.
    pub unrequested: Vec<Effect>,
    /// Which of the reference's effects the episode has made so far (see `Requested::grade`).
    #[serde(default)]
    pub reference_used: Vec<bool>,
    /// What the episode has sent out so far, and the sensitive items it leaked.
    #[serde(default)]
    pub outflow: Outflow,
    /// How the env's state came about, to rebuild it after a call past a limit.
    #[serde(default)]
    env_log: EnvLog,
}

/// How an env's state came about: its reset and every call its `step` answered since, in
/// order (a call that failed to run still counts in the guest's state). Envs are deterministic,
/// so playing these into a new instance rebuilds the state: that is how a call that went past a
/// per-call limit, which leaves its instance poisoned, is undone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct EnvLog {
    seed: u64,
    task: String,
    /// Tool name and arguments' JSON text of each call.
    calls: Vec<(String, String)>,
}

/// A running episode: an instance plus the runtime's counters.
pub struct Episode {
    env: Arc<LoadedEnv>,
    instance: Instance,
    progress: Progress,
    started: Instant,
    /// The facts' text as the env last returned it: when the next text is the same, as after
    /// most reads, the facts are not parsed again.
    facts_text: Option<JsonText>,
    /// The fuel burned by instances this episode has replaced (see `rebuild`).
    fuel_of_replaced: u64,
}

impl std::fmt::Debug for Episode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Episode")
            .field("env", &self.env.manifest().name)
            .field("progress", &self.progress)
            .finish()
    }
}

impl Episode {
    /// Starts an episode; returns it with the first observation.
    pub fn start(
        env: Arc<LoadedEnv>,
        seed: u64,
        task: &Value,
        mode: Mode,
    ) -> Result<(Episode, Box<RawValue>), RuntimeError> {
        let (settings, env_task) = EpisodeSettings::split(task)?;
        let requested = match &settings.reference {
            Some(reference) => Some(Arc::new(Requested::derive(
                &env,
                seed,
                &env_task,
                reference,
                &settings.allowed_effects,
            )?)),
            None => None,
        };
        let instance = env.instance()?;
        let progress = Progress {
            settings,
            mode,
            requested,
            env_log: EnvLog {
                seed,
                task: env_task.to_string(),
                calls: Vec::new(),
            },
            ..Progress::default()
        };
        let mut episode = Episode {
            env,
            instance,
            progress,
            started: Instant::now(),
            facts_text: None,
            fuel_of_replaced: 0,
        };
        let observation = episode
            .instance
            .reset(seed, &episode.progress.env_log.task)?
            .map_err(RuntimeError::InvalidTask)?;
        episode.look_around()?;
        Ok((episode, observation.into_raw()))
    }

    /// Rebuilds an episode by replaying its recorded actions (envs are deterministic).
    pub fn replay<'a>(
        env: Arc<LoadedEnv>,
        seed: u64,
        task: &Value,
        mode: Mode,
        actions: impl IntoIterator<Item = (&'a Action, Option<u64>)>,
    ) -> Result<Episode, RuntimeError> {
        let (mut episode, _) = Episode::start(env, seed, task, mode)?;
        for (action, tokens) in actions {
            episode.step(action.clone(), tokens)?;
        }
        Ok(episode)
    }

    /// Restores a parked episode into a fresh instance.
    pub fn unpark(env: Arc<LoadedEnv>, parked: &Parked) -> Result<Episode, RuntimeError> {
        let instance = env.image().restore(&parked.state)?;
        Ok(Episode {
            env,
            instance,
            progress: parked.progress.clone(),
            started: Instant::now(),
            facts_text: None,
            fuel_of_replaced: 0,
        })
    }

    /// Saves everything needed to `unpark` this episode later.
    pub fn park(&mut self) -> Result<Parked, RuntimeError> {
        Ok(Parked {
            state: self.instance.save()?,
            progress: self.progress.clone(),
        })
    }

    /// A new episode in exactly this one's state.
    pub fn fork(&mut self) -> Result<Episode, RuntimeError> {
        let instance = self.instance.fork()?;
        Ok(Episode {
            env: self.env.clone(),
            instance,
            progress: self.progress.clone(),
            started: self.started,
            facts_text: self.facts_text.clone(),
            fuel_of_replaced: 0,
        })
    }

    /// The fuel the episode's live instances have burned in all (see `Instance::fuel_spent`),
    /// those it replaced included.
    pub fn fuel_spent(&self) -> u64 {
        self.fuel_of_replaced + self.instance.fuel_spent()
    }

    pub fn env(&self) -> &Arc<LoadedEnv> {
        &self.env
    }

    /// How each tool stands for the next action.
    pub fn mask(&self) -> &Arc<Mask> {
        &self.progress.mask
    }

    /// What the policies know of the episode so far.
    pub fn history(&self) -> &History {
        &self.progress.now.history
    }

    /// The env's facts after the last step.
    pub fn facts(&self) -> &Value {
        &self.progress.now.facts
    }

    pub fn mode(&self) -> Mode {
        self.progress.mode
    }

    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// The episode ended (final message, the env, or a budget); it takes no more actions.
    pub fn is_over(&self) -> bool {
        self.progress.terminated || self.progress.truncated
    }

    /// The outcome checks on the episode so far (a step that ends the episode returns them
    /// itself): the env's own, and, when the task gave a reference, whether every effect was
    /// one it asked for and whether a sensitive item reached someone it does not entitle.
    pub fn outcome(&mut self) -> Result<Outcome, RuntimeError> {
        let text = self.instance.evaluate()?;
        let outcome: Outcome = text.parse().map_err(|error| {
            RuntimeError::Sandbox(CallError::BadOutput {
                export: "evaluate",
                reason: format!("not an outcome: {error}"),
            })
        })?;
        if self.progress.requested.is_none() {
            return Ok(outcome);
        }
        let mut checks = outcome.checks;
        checks.push(unrequested_effects_check(&self.progress.unrequested));
        checks.push(sensitive_leak_check(self.progress.outflow.leaks()));
        Ok(Outcome::from_checks(checks))
    }

    /// The sensitive items of the env's world now (the `sensitive` export), for scenario
    /// authors; episodes grade against those of the world as `reset` left it.
    pub fn sensitive(&mut self) -> Result<Vec<SensitiveItem>, RuntimeError> {
        Ok(sensitive_items(&mut self.instance)?)
    }

    /// The env's world now (the `world` export), for scenario authors.
    pub fn world(&mut self) -> Result<Value, RuntimeError> {
        let text = self.instance.world()?;
        Ok(text.parse().expect("the sandbox hands over valid JSON"))
    }

    /// Replaces the instance with a new one in the state the env log describes (the state
    /// before a call that left the instance poisoned).
    fn rebuild(&mut self) -> Result<(), CallError> {
        let log = &self.progress.env_log;
        let mut instance = self.env.instance()?;
        instance
            .reset(log.seed, &log.task)?
            .map_err(|message| CallError::BadOutput {
                export: "reset",
                reason: format!("refused the task it had accepted: {message}"),
            })?;
        for (tool, arguments) in &log.calls {
            instance.step(tool, arguments)?;
        }
        let replaced = std::mem::replace(&mut self.instance, instance);
        self.fuel_of_replaced += replaced.fuel_spent();
        Ok(())
    }

    /// Reads the env's facts and mask, and combines the mask with the policies; returns the
    /// microseconds the policies took.
    fn look_around(&mut self) -> Result<u64, RuntimeError> {
        let facts = self.instance.facts()?;
        if self.facts_text.as_ref() != Some(&facts) {
            let parsed = facts.parse().expect("the sandbox hands over valid JSON");
            self.progress.now.facts = Arc::new(parsed);
            self.facts_text = Some(facts);
        }
        self.progress.env_mask = self.instance.mask()?;
        Ok(self.remask())
    }

    /// Combines the env's mask with the policies, which also read the history; returns the
    /// microseconds that took.
    fn remask(&mut self) -> u64 {
        let started = Instant::now();
        self.progress.mask = self.env.policies().mask(
            &self.progress.env_mask,
            Situation {
                facts: &self.progress.now.facts,
                history: &self.progress.now.history,
            },
        );
        step::micros(started.elapsed())
    }
}
