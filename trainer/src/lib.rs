//! The trainer's Rust side: what turns scored episodes into a batch the device-side worker
//! (`trainer/worker`, Python) trains on.
//!
//! - `advantages`: an episode's outcome reward, and each step's advantage within a group of
//!   episodes of one scenario (GRPO's group-relative outcome advantage plus process-reward
//!   credit in sum or min form), spread over the tokens the policy wrote.
//! - `staleness`: the bound of asynchronous training, under which no sample older than η policy
//!   versions is trained on.
//! - `policy`: the policy under training as an agent (`policy:NAME@vVERSION`), keeping each
//!   step's sampled token ids and log-probabilities.
//! - `samples`: an episode's generations and step advantages as the sequences an update takes.
//! - `worker`: the worker's HTTP API (render, supervised and PPO updates, checkpoints).
//! - `export`: the episodes trained on, as TRL's and veRL's rollout records.
//!
//! The loop itself (`agentbench train`, in the server crate) plays episodes through the runner
//! and calls the worker through these.

pub mod advantages;
pub mod export;
pub mod policy;
pub mod samples;
pub mod staleness;
pub mod worker;

pub use advantages::{Credit, ScoredEpisode, outcome_reward, step_advantages, token_advantages};
pub use export::{Format, Trajectory, records};
pub use policy::{Generation, PolicyAgent, StepKey, policy_name};
pub use samples::episode_samples;
pub use staleness::Staleness;
pub use worker::{Health, PpoSettings, TrainSample, UpdateStats, WorkerClient, WorkerError};
