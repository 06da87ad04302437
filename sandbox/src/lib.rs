//! The wasmtime host for agentbench envs: compiles env components once, instantiates episodes from
//! pre-instantiated templates in a pooled, copy-on-write allocator, and runs every call under hard
//! limits (fuel, wall-clock, memory, stack, output size).
//!
//! ```ignore
//! let sandbox = Sandbox::new(Limits::default())?;
//! let image = sandbox.load(component_bytes)?;           // compile + validate, once per env
//! let mut instance = image.instantiate()?;              // one per episode, ~µs
//! let observation = instance.reset(seed, "{}")?;
//! let result = instance.step("read_email", r#"{"id": 3}"#)?;
//! ```
//!
//! This crate knows the env world and nothing above it: no HTTP, storage, policies or scoring.

mod cache;
mod engine;
mod error;
mod instance;
mod limits;

pub use agentbench_env_contract::StepStatus;
pub use cache::{Compilation, CompileCache};
pub use engine::{EPOCH_TICK, EnvImage, Sandbox};
pub use error::{CallError, LoadError};
pub use instance::{Event, Instance, JsonText, StepOutput};
pub use limits::Limits;

/// Host bindings for the env world, generated from the WIT file the guests are built against.
mod bindings {
    wasmtime::component::bindgen!({
        path: "../envs/contract/wit",
        world: "env",
    });
}
