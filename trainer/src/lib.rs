//! The trainer's Rust side: what turns scored episodes into a batch the device-side worker
//! (`trainer/worker`, Python) trains on.
//!
//! - `advantages`: an episode's outcome reward, and each step's advantage within a group of
//!   episodes of one scenario (GRPO's group-relative outcome advantage plus process-reward
//!   credit in sum or min form), spread over the tokens the policy wrote.
//! - `staleness`: the bound of asynchronous training, under which no sample older than η policy
//!   versions is trained on.
//!
//! Every function here is pure; the loop that plays episodes through the runner and calls the
//! worker's endpoints is built on them.

pub mod advantages;
pub mod staleness;

pub use advantages::{Credit, ScoredEpisode, outcome_reward, step_advantages, token_advantages};
pub use staleness::Staleness;
