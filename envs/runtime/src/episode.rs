//! One episode on the host: settings from the task config, the step pipeline (validation, the
//! env's mask, the safety policies in `enforce` or `audit` mode), the history the policies see,
//! budgets, and parking (saving the guest's state so the instance can be released).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use agentbench_env_contract::{Outcome, Resource, StepStatus, UNTRUSTED_CONTENT_EVENT};
use agentbench_policies::{History, Mask, Situation, Violation};
use agentbench_sandbox::{CallError, Instance, JsonText};

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
    pub user_replies: Vec<UserReply>,
}

/// A scripted reply to `ask_user`: a string, or `{"reply", "consent"}` to say explicitly whether
/// it gives consent. A string gives consent when it opens with an affirmative word or phrase
/// ("yes", "ok", "sure", "go ahead", "confirmed", "approved", "I consent", "please do").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserReply {
    Text(String),
    #[serde(rename_all = "snake_case")]
    Explicit {
        reply: String,
        consent: bool,
    },
}

impl UserReply {
    pub fn text(&self) -> &str {
        match self {
            UserReply::Text(reply) | UserReply::Explicit { reply, .. } => reply,
        }
    }

    pub fn consents(&self) -> bool {
        match self {
            UserReply::Explicit { consent, .. } => *consent,
            UserReply::Text(reply) => {
                let reply = reply.trim_start().to_lowercase();
                CONSENTING_OPENINGS.iter().any(|opening| {
                    reply
                        .strip_prefix(opening)
                        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric()))
                })
            }
        }
    }
}

const CONSENTING_OPENINGS: &[&str] = &[
    "yes",
    "yeah",
    "yep",
    "ok",
    "okay",
    "sure",
    "go ahead",
    "confirmed",
    "approved",
    "i consent",
    "i confirm",
    "please do",
    "do it",
];

/// What the runtime does with a tool call its policies forbid.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Forbidden calls are not executed (status `blocked`): the agent under a shield.
    #[default]
    Enforce,
    /// Forbidden calls are executed and recorded with their violations: what an unguarded agent
    /// would do.
    Audit,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Enforce => "enforce",
            Mode::Audit => "audit",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(text: &str) -> Result<Mode, String> {
        match text {
            "enforce" => Ok(Mode::Enforce),
            "audit" => Ok(Mode::Audit),
            _ => Err(format!("`{text}` is not a policy mode (enforce, audit)")),
        }
    }
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
    /// The env's mask or a safety policy (in `enforce` mode) forbids the call; nothing ran.
    Blocked,
    /// The agent's final message; the episode is over.
    Message,
    /// The agent asked the user; the observation holds the reply.
    AskUser,
    /// The env failed (trap, limit, bad output); the episode cannot go on.
    EnvError,
}

impl Status {
    /// The status as records write it (`unknown_tool`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::ToolError => "tool_error",
            Status::InvalidArguments => "invalid_arguments",
            Status::UnknownTool => "unknown_tool",
            Status::Blocked => "blocked",
            Status::Message => "message",
            Status::AskUser => "ask_user",
            Status::EnvError => "env_error",
        }
    }
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
    /// Judging the call and computing the next mask.
    pub policy_us: u64,
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
    /// How each tool stood when the action was judged.
    pub mask: Arc<Mask>,
    /// The policies that forbid this call: why it was blocked (`enforce`), or what it violated
    /// when it ran anyway (`audit`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<Violation>,
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
    /// The step scorers' rewards, filled in by whoever scores the step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scores: Vec<StepScore>,
}

/// One step scorer's judgement of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepScore {
    /// The scorer's name (`rules`).
    pub scorer: String,
    /// The scorer's version; scores of different versions are not comparable.
    pub version: String,
    /// In [-1, 1]; see the scorer's documentation for its scale.
    pub reward: f64,
    /// What the scorer saw in the step (`violation`, `irreversible_without_consent` ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
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
    /// What the policies know of the episode so far.
    pub history: History,
    /// The env's facts after the last step.
    pub facts: Value,
    /// The tools the env itself allows now.
    pub env_mask: Vec<String>,
    /// The env's mask combined with the policies (shared by episodes in the same situation).
    pub mask: Arc<Mask>,
}

/// A running episode: an instance plus the runtime's counters.
pub struct Episode {
    env: Arc<LoadedEnv>,
    instance: Instance,
    progress: Progress,
    started: Instant,
    /// The facts' text as the env last returned it: when the next text is the same, as after
    /// most reads, `progress.facts` is not parsed again.
    facts_text: Option<JsonText>,
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
        let instance = env.image().instantiate()?;
        let progress = Progress {
            settings,
            mode,
            ..Progress::default()
        };
        let mut episode = Episode {
            env,
            instance,
            progress,
            started: Instant::now(),
            facts_text: None,
        };
        let observation = episode
            .instance
            .reset(seed, &env_task.to_string())?
            .map_err(RuntimeError::InvalidTask)?;
        episode.look_around()?;
        Ok((episode, observation.into_raw()))
    }

    /// Reads the env's facts and mask, and combines the mask with the policies; returns the
    /// microseconds the policies took.
    fn look_around(&mut self) -> Result<u64, RuntimeError> {
        let facts = self.instance.facts()?;
        if self.facts_text.as_ref() != Some(&facts) {
            self.progress.facts = facts.parse().expect("the sandbox hands over valid JSON");
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
                facts: &self.progress.facts,
                history: &self.progress.history,
            },
        );
        micros(started.elapsed())
    }

    /// The entities the env says a call acts on.
    fn resources(&mut self, tool: &str, arguments: &str) -> Result<Vec<Resource>, CallError> {
        let text = self.instance.resources(tool, arguments)?;
        serde_json::from_str(text.as_str()).map_err(|error| CallError::BadOutput {
            export: "resources",
            reason: format!("not a list of resources: {error}"),
        })
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
        })
    }

    /// The fuel the episode's live instance has burned in all (see `Instance::fuel_spent`).
    pub fn fuel_spent(&self) -> u64 {
        self.instance.fuel_spent()
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
        &self.progress.history
    }

    /// The env's facts after the last step.
    pub fn facts(&self) -> &Value {
        &self.progress.facts
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
        let mut violations = Vec::new();
        let mut events = Vec::new();
        let mut terminated = false;
        let mut env_failed = false;
        // Whether the env's state may have changed: only a tool call that reached it can.
        let mut env_called = false;
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
                self.progress.history.consented |= reply.is_some_and(UserReply::consents);
                let reply =
                    reply.map_or(Value::Null, |reply| Value::String(reply.text().to_owned()));
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
                    Some(_) if !self.progress.env_mask.iter().any(|allowed| allowed == tool) => (
                        Status::Blocked,
                        error_observation(&format!("`{tool}` is not allowed now")),
                    ),
                    Some(_) => {
                        let arguments_text = arguments.to_string();
                        let resources = if self.env.policies().can_forbid(tool) {
                            self.resources(tool, &arguments_text)
                        } else {
                            Ok(Vec::new())
                        };
                        let policy_started = Instant::now();
                        let judged = resources.map(|resources| {
                            self.env.policies().judge(
                                tool,
                                arguments,
                                &resources,
                                Situation {
                                    facts: &self.progress.facts,
                                    history: &self.progress.history,
                                },
                            )
                        });
                        timings.policy_us = micros(policy_started.elapsed());
                        match judged {
                            Err(error) => {
                                env_failed = true;
                                (Status::EnvError, env_failure(&error))
                            }
                            Ok(found)
                                if !found.is_empty() && self.progress.mode == Mode::Enforce =>
                            {
                                let observation = json!({
                                    "error": format!("`{tool}` is forbidden here by policy"),
                                    "violations": found.iter().map(Violation::explain).collect::<Vec<_>>(),
                                });
                                violations = found;
                                (Status::Blocked, raw(observation.to_string()))
                            }
                            Ok(found) => {
                                violations = found;
                                let sandbox_started = Instant::now();
                                env_called = true;
                                let result = self.instance.step(tool, &arguments_text);
                                timings.sandbox_us = micros(sandbox_started.elapsed());
                                match result {
                                    Ok(output) => {
                                        terminated = output.done;
                                        events = output
                                            .events
                                            .into_iter()
                                            .map(|event| RecordedEvent {
                                                kind: event.kind,
                                                data: event.data.into_raw(),
                                            })
                                            .collect();
                                        let status = match output.status {
                                            StepStatus::Ok => Status::Ok,
                                            StepStatus::ToolError => Status::ToolError,
                                            StepStatus::InvalidArguments => {
                                                Status::InvalidArguments
                                            }
                                            StepStatus::UnknownTool => Status::UnknownTool,
                                            StepStatus::NotRunning => Status::EnvError,
                                        };
                                        (status, output.observation.into_raw())
                                    }
                                    Err(error) => {
                                        env_failed = true;
                                        (Status::EnvError, env_failure(&error))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        };
        self.remember(&action, status, &events, !violations.is_empty());
        self.progress.n_steps += 1;
        self.progress.tokens += tokens.unwrap_or(0);
        self.progress.terminated |= terminated;
        if !env_failed && !self.progress.terminated {
            // A step the env never saw (invalid, blocked, a question to the user) leaves its
            // facts and mask as they were; the policies still see the longer history.
            timings.policy_us += if env_called {
                self.look_around()?
            } else {
                self.remask()
            };
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
            violations,
            observation,
            events,
            terminated: self.progress.terminated,
            truncated: self.progress.truncated,
            tokens,
            timings,
            scores: Vec::new(),
        })
    }

    /// Updates the history the policies see with one step.
    fn remember(
        &mut self,
        action: &Action,
        status: Status,
        events: &[RecordedEvent],
        violated: bool,
    ) {
        let history = &mut self.progress.history;
        history.steps += 1;
        history.tainted |= events
            .iter()
            .any(|event| event.kind == UNTRUSTED_CONTENT_EVENT);
        let Action::Tool { tool, .. } = action else {
            return;
        };
        match status {
            Status::Ok | Status::ToolError => {
                *history.calls.entry(tool.clone()).or_default() += 1;
                history.violations += u32::from(violated);
                let irreversible = self
                    .env
                    .manifest()
                    .tool(tool)
                    .is_some_and(|spec| spec.irreversible);
                history.irreversible_calls += u32::from(irreversible && status == Status::Ok);
            }
            Status::Blocked => history.blocked += 1,
            _ => {}
        }
    }
}

fn env_failure(error: &CallError) -> Box<RawValue> {
    error_observation(&format!("the environment failed: {error}"))
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

#[cfg(test)]
mod tests {
    use super::Status;

    #[test]
    fn status_names_are_the_serialized_ones() {
        for status in [
            Status::Ok,
            Status::ToolError,
            Status::InvalidArguments,
            Status::UnknownTool,
            Status::Blocked,
            Status::Message,
            Status::AskUser,
            Status::EnvError,
        ] {
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::json!(status.as_str())
            );
        }
    }
}
