//! One episode on the host: settings from the task config, the step pipeline, budgets, and
//! parking (saving the guest's state so the instance can be released).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use agentbench_env_contract::{Outcome, StepStatus};
use agentbench_sandbox::Instance;

use crate::{Action, LoadedEnv, RuntimeError};

/// How many steps an episode may take when its task sets no budget.
pub const DEFAULT_MAX_STEPS: u32 = 50;

/// The limits past which an episode is truncated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Steps of any kind; `DEFAULT_MAX_STEPS` when absent.
    #[serde(default)]
    pub max_steps: Option<u32>,
    /// Model tokens, as the agent reports them with each step.
    #[serde(default)]
    pub max_tokens: Option<u64>,
    /// Wall-clock seconds since the episode started (or was last restored).
    #[serde(default)]
    pub max_seconds: Option<f64>,
}

/// The runtime's part of a task config: the keys `budget` and `user_replies`. Every other key is
/// the env's own task config and is passed to its `reset` untouched.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpisodeSettings {
    #[serde(default)]
    pub budget: Budget,
    /// Replies to `ask_user`, in order; once they run out the user does not answer.
    #[serde(default)]
    pub user_replies: Vec<String>,
}

impl EpisodeSettings {
    /// Splits a task config (a JSON object) into the runtime's settings and the env's task.
    pub fn split(task: &Value) -> Result<(EpisodeSettings, Value), RuntimeError> {
        let Value::Object(task) = task else {
            return Err(RuntimeError::InvalidTask(
                "a task config is a JSON object".to_owned(),
            ));
        };
        let mut env_task = Map::new();
        let mut runtime = Map::new();
        for (key, value) in task {
            let side = if matches!(key.as_str(), "budget" | "user_replies") {
                &mut runtime
            } else {
                &mut env_task
            };
            side.insert(key.clone(), value.clone());
        }
        let settings = serde_json::from_value(Value::Object(runtime))
            .map_err(|error| RuntimeError::InvalidTask(error.to_string()))?;
        Ok((settings, Value::Object(env_task)))
    }
}

/// How a step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The tool ran.
    Ok,
    /// The tool ran and failed; the env's state is unchanged.
    ToolError,
    /// The arguments do not fit the tool's schema; nothing ran.
    InvalidArguments,
    /// No tool has that name; nothing ran.
    UnknownTool,
    /// The action mask forbids the tool now; nothing ran.
    Blocked,
    /// The agent's final message; the episode is over.
    Message,
    /// The agent asked the user; the observation holds the reply.
    AskUser,
    /// The env failed (trap, limit, bad output); the episode cannot go on.
    EnvError,
}

/// One problem with a tool call's arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ValidationIssue {
    /// A JSON pointer into the arguments (`""` for the whole object).
    pub pointer: String,
    pub message: String,
}

/// Something noteworthy the env reported for a step.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecordedEvent {
    pub kind: String,
    #[schemars(with = "Value")]
    pub data: Box<RawValue>,
}

/// Where a step's time went, in microseconds.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct StepTimings {
    pub validate_us: u64,
    pub sandbox_us: u64,
    pub total_us: u64,
}

/// Everything about one step, as recorded.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepRecord {
    pub index: u32,
    pub action: Action,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub validation: Vec<ValidationIssue>,
    /// The tools the env allowed when the action was judged.
    pub mask: Vec<String>,
    /// What the agent sees: the tool's result, or what was wrong with the action.
    #[schemars(with = "Value")]
    pub observation: Box<RawValue>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<RecordedEvent>,
    pub terminated: bool,
    pub truncated: bool,
    /// Model tokens the agent reported for this step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    pub timings: StepTimings,
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
    pub mask: Vec<String>,
}

/// A running episode: an instance plus the runtime's counters.
pub struct Episode {
    env: Arc<LoadedEnv>,
    instance: Instance,
    progress: Progress,
    started: Instant,
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
    ) -> Result<(Episode, Box<RawValue>), RuntimeError> {
        let (settings, env_task) = EpisodeSettings::split(task)?;
        let mut instance = env.image().instantiate()?;
        let observation = instance
            .reset(seed, &env_task.to_string())?
            .map_err(RuntimeError::InvalidTask)?;
        let mask = instance.mask()?;
        let progress = Progress {
            settings,
            mask,
            ..Progress::default()
        };
        let episode = Episode {
            env,
            instance,
            progress,
            started: Instant::now(),
        };
        Ok((episode, raw(observation.into_string())))
    }

    /// Rebuilds an episode by replaying its recorded actions (envs are deterministic).
    pub fn replay<'a>(
        env: Arc<LoadedEnv>,
        seed: u64,
        task: &Value,
        actions: impl IntoIterator<Item = (&'a Action, Option<u64>)>,
    ) -> Result<Episode, RuntimeError> {
        let (mut episode, _) = Episode::start(env, seed, task)?;
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
        })
    }

    pub fn env(&self) -> &Arc<LoadedEnv> {
        &self.env
    }

    /// The tools the env allows for the next action.
    pub fn mask(&self) -> &[String] {
        &self.progress.mask
    }

    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// The episode ended (final message, the env, or a budget); it takes no more actions.
    pub fn is_over(&self) -> bool {
        self.progress.terminated || self.progress.truncated
    }

    /// The env's outcome checks on the episode so far.
    pub fn outcome(&mut self) -> Result<Outcome, RuntimeError> {
        let text = self.instance.evaluate()?;
        text.parse().map_err(|error| {
            RuntimeError::Sandbox(agentbench_sandbox::CallError::BadOutput {
                export: "evaluate",
                reason: format!("not an outcome: {error}"),
            })
        })
    }

    /// Takes one action and returns its record. Fails without recording only when the episode
    /// is already over; everything else that goes wrong is a recorded step.
    pub fn step(
        &mut self,
        action: Action,
        tokens: Option<u64>,
    ) -> Result<StepRecord, RuntimeError> {
        if self.is_over() {
            return Err(RuntimeError::EpisodeOver);
        }
        let started = Instant::now();
        let mask = self.progress.mask.clone();
        let mut timings = StepTimings::default();
        let mut validation = Vec::new();
        let mut events = Vec::new();
        let mut terminated = false;
        let mut env_failed = false;
        let (status, observation) = match &action {
            Action::Message { .. } => {
                terminated = true;
                (Status::Message, raw(json!({"ended": true}).to_string()))
            }
            Action::AskUser { .. } => {
                let reply = self
                    .progress
                    .settings
                    .user_replies
                    .get(self.progress.replies_used);
                self.progress.replies_used += usize::from(reply.is_some());
                let reply = reply.map_or(Value::Null, |reply| Value::String(reply.clone()));
                (Status::AskUser, raw(json!({"reply": reply}).to_string()))
            }
            Action::Tool { tool, arguments } => {
                let issues = self.env.validate(tool, arguments);
                timings.validate_us = micros(started.elapsed());
                match issues {
                    None => (
                        Status::UnknownTool,
                        error_observation(&format!(
                            "unknown tool `{tool}`; the tools are: {}",
                            self.env
                                .manifest()
                                .tools
                                .iter()
                                .map(|t| t.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                    ),
                    Some(issues) if !issues.is_empty() => {
                        let observation = json!({
                            "error": format!("invalid arguments for `{tool}`"),
                            "details": issues,
                        });
                        validation = issues;
                        (Status::InvalidArguments, raw(observation.to_string()))
                    }
                    Some(_) if !mask.iter().any(|allowed| allowed == tool) => (
                        Status::Blocked,
                        error_observation(&format!("`{tool}` is not allowed now")),
                    ),
                    Some(_) => {
                        let sandbox_started = Instant::now();
                        let result = self.instance.step(tool, &arguments.to_string());
                        timings.sandbox_us = micros(sandbox_started.elapsed());
                        match result {
                            Ok(output) => {
                                terminated = output.done;
                                events = output
                                    .events
                                    .into_iter()
                                    .map(|event| RecordedEvent {
                                        kind: event.kind,
                                        data: raw(event.data.into_string()),
                                    })
                                    .collect();
                                let status = match output.status {
                                    StepStatus::Ok => Status::Ok,
                                    StepStatus::ToolError => Status::ToolError,
                                    StepStatus::InvalidArguments => Status::InvalidArguments,
                                    StepStatus::UnknownTool => Status::UnknownTool,
                                    StepStatus::NotRunning => Status::EnvError,
                                };
                                (status, raw(output.observation.into_string()))
                            }
                            Err(error) => {
                                env_failed = true;
                                (
                                    Status::EnvError,
                                    error_observation(&format!("the environment failed: {error}")),
                                )
                            }
                        }
                    }
                }
            }
        };
        self.progress.n_steps += 1;
        self.progress.tokens += tokens.unwrap_or(0);
        self.progress.terminated |= terminated;
        if !env_failed && !self.progress.terminated {
            self.progress.mask = self.instance.mask()?;
        }
        let budget = &self.progress.settings.budget;
        let out_of_budget = self.progress.n_steps >= budget.max_steps.unwrap_or(DEFAULT_MAX_STEPS)
            || budget
                .max_tokens
                .is_some_and(|max| self.progress.tokens >= max)
            || budget
                .max_seconds
                .is_some_and(|max| self.started.elapsed().as_secs_f64() >= max);
        self.progress.truncated |= env_failed || (out_of_budget && !self.progress.terminated);
        timings.total_us = micros(started.elapsed());
        Ok(StepRecord {
            index: self.progress.n_steps - 1,
            action,
            status,
            validation,
            mask,
            observation,
            events,
            terminated: self.progress.terminated,
            truncated: self.progress.truncated,
            tokens,
            timings,
        })
    }
}

fn raw(json: String) -> Box<RawValue> {
    RawValue::from_string(json).expect("the sandbox and serde_json only hand over valid JSON")
}

fn error_observation(message: &str) -> Box<RawValue> {
    raw(json!({ "error": message }).to_string())
}

fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}
