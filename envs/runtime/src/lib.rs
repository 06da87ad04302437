//! The episode runtime, the host side of the env boundary: one step is parse → validate the
//! arguments against the tool's JSON Schema → check the action mask and the safety policies →
//! sandbox call → record.
//!
//! Invalid arguments, unknown tools and masked tools never reach the guest, yet each is recorded
//! as a step with its own status and an observation that tells the agent what was wrong, so an
//! agent can recover and a trainer can learn from it. Besides tool calls an agent can send a final
//! message (ends the episode) or ask the user (answered from the task's scripted replies).

mod action;
mod episode;
mod flow;
mod loaded;
mod record;
mod requested;
mod settings;
#[cfg(feature = "testing")]
pub mod testing;

pub use action::{Action, ActionError};
pub use agentbench_env_contract::{Effect, EffectKind, SensitiveItem, SensitiveKind};
pub use agentbench_policies::{Access, History, Mask, PolicyFile, Violation};
pub use episode::{Episode, Moment, Parked, Progress, Stepped};
pub use flow::{Leak, Outflow, SENSITIVE_LEAK_CHECK, Sensitive};
pub use loaded::LoadedEnv;
pub use record::{
    RecordedEffect, RecordedEvent, Status, StepRecord, StepScore, StepTimings, ValidationIssue,
};
pub use requested::{EffectPattern, Requested, UNREQUESTED_EFFECTS_CHECK};
pub use settings::{Budget, DEFAULT_MAX_STEPS, EpisodeSettings, Mode, UserReply};

/// Why the runtime could not do what was asked (as opposed to a step that went wrong, which is
/// recorded).
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("the env's schema for `{tool}` is not a valid JSON Schema: {message}")]
    BadToolSchema { tool: String, message: String },
    #[error(transparent)]
    Policy(#[from] agentbench_policies::PolicyError),
    #[error("invalid task config: {0}")]
    InvalidTask(String),
    #[error("the episode is over; no more actions are accepted")]
    EpisodeOver,
    #[error(transparent)]
    Sandbox(#[from] agentbench_sandbox::CallError),
}
