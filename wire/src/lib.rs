//! What clients and agents send the server, parsed and checked without the sandbox: the request
//! bodies of the REST API, an agent's action, the runtime's part of a task config, the ids of
//! episodes and runs, and the argument check a tool call passes before it reaches a guest.
//!
//! Everything here is a function of its input alone and builds without wasmtime, so the
//! server's parsers of untrusted input can be fuzzed (`fuzz/`) and reused by light crates (the
//! suite loader).

mod action;
mod arguments;
mod effect_pattern;
pub mod ids;
pub mod requests;
mod settings;

pub use action::{Action, ActionError};
pub use arguments::{BadToolSchema, ToolArguments, ValidationIssue};
pub use effect_pattern::EffectPattern;
pub use settings::{Budget, DEFAULT_MAX_STEPS, EpisodeSettings, InvalidTask, Mode, UserReply};
