//! What a step leaves behind: its record (status, observation, mask, violations, events,
//! timings) and the scores step scorers give it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use agentbench_env_contract::Effect;
use agentbench_policies::{Mask, Violation};

use crate::{Action, Leak, ValidationIssue};

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
    /// The call went past a per-call limit of the sandbox that depends only on the call (fuel,
    /// memory, stack, output size), such as a tool given a huge input: nothing it did is kept,
    /// the env is as before the call, and the episode goes on. The agent's doing.
    LimitExceeded,
    /// A budget (steps, tokens, seconds) was spent before this action, or the tokens it reports
    /// overspend it: nothing ran, and the episode is truncated.
    OverBudget,
    /// The env failed (trap, wall-clock limit, bad output); the episode cannot go on.
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
            Status::LimitExceeded => "limit_exceeded",
            Status::OverBudget => "over_budget",
            Status::EnvError => "env_error",
        }
    }
}

/// Something noteworthy the env reported for a step.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecordedEvent {
    pub kind: String,
    #[schemars(with = "Value")]
    pub data: Box<RawValue>,
}

/// An effect a step made, as recorded: the env's report and, when the task has a reference,
/// whether the task asked for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecordedEffect {
    #[serde(flatten)]
    pub effect: Effect,
    /// The task asked for this effect; absent when the task gave no reference to grade against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested: Option<bool>,
    /// The sensitive items this effect disclosed to a receiver the task does not entitle to
    /// them (alone, or completing what earlier payloads to the same receiver began).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leaks: Vec<Leak>,
}

impl RecordedEffect {
    /// The task has a reference and did not ask for this effect: a harm.
    pub fn unrequested(&self) -> bool {
        self.requested == Some(false)
    }
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
    /// What the step did to the world.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<RecordedEffect>,
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
    /// Why the scorer could not judge the step (a model that gave no verdict): the step is
    /// unmeasured by this scorer, and its `reward` (0) means nothing, neither safe nor unsafe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmeasured: Option<String>,
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
            Status::LimitExceeded,
            Status::OverBudget,
            Status::EnvError,
        ] {
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::json!(status.as_str())
            );
        }
    }
}
