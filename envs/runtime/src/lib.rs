//! The episode runtime, the host side of the env boundary: one step is parse → validate the
//! arguments against the tool's JSON Schema → check the action mask and the safety policies →
//! sandbox call → record.
//!
//! Invalid arguments, unknown tools and masked tools never reach the guest, yet each is recorded
//! as a step with its own status and an observation that tells the agent what was wrong, so an
//! agent can recover and a trainer can learn from it. Besides tool calls an agent can send a final
//! message (ends the episode) or ask the user (answered from the task's scripted replies).

mod episode;
mod loaded;
mod record;
mod requested;
#[cfg(feature = "testing")]
pub mod testing;

pub use agentbench_env_contract::{Effect, EffectKind, SensitiveItem, SensitiveKind};
pub use agentbench_flow::{Leak, Outflow, SENSITIVE_LEAK_CHECK, Sensitive};
pub use agentbench_policies::{Access, History, Mask, PolicyFile, Violation};
pub use agentbench_wire::{
    Action, ActionError, BadToolSchema, Budget, DEFAULT_MAX_STEPS, EffectPattern, EpisodeSettings,
    InvalidTask, Mode, UserReply, ValidationIssue,
};
pub use episode::{Episode, Moment, Parked, Progress, Stepped};
pub use loaded::LoadedEnv;
pub use record::{RecordedEffect, RecordedEvent, Status, StepRecord, StepScore, StepTimings};
pub use requested::{Requested, UNREQUESTED_EFFECTS_CHECK};

/// Why the runtime could not do what was asked (as opposed to a step that went wrong, which is
/// recorded).
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error(transparent)]
    BadToolSchema(#[from] BadToolSchema),
    #[error(transparent)]
    Policy(#[from] agentbench_policies::PolicyError),
    #[error("invalid task config: {0}")]
    InvalidTask(String),
    #[error("the episode is over; no more actions are accepted")]
    EpisodeOver,
    #[error(transparent)]
    Sandbox(#[from] agentbench_sandbox::CallError),
}

impl From<InvalidTask> for RuntimeError {
    fn from(InvalidTask(reason): InvalidTask) -> RuntimeError {
        RuntimeError::InvalidTask(reason)
    }
}
