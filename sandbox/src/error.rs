//! The sandbox's typed errors: why an env could not be loaded, and why a call failed.

use std::time::Duration;

use wasmtime::Trap;

use crate::limits::MemoryLimitHit;

/// Why a component could not be loaded as an env.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the sandbox could not be configured: {0}")]
    Engine(String),
    #[error("not a valid WebAssembly component: {0}")]
    Compile(String),
    #[error("the component imports {imports:?}, but an env must import nothing")]
    HasImports { imports: Vec<String> },
    #[error("the component does not export the agentbench:env world: {0}")]
    WrongWorld(String),
    #[error("the env's manifest call failed: {0}")]
    Manifest(#[from] CallError),
    #[error("the env's manifest is invalid: {0}")]
    BadManifest(String),
}

/// Why one call into a guest failed. After any of these the instance is poisoned: the host
/// discards it and, if the episode goes on, rebuilds it from a saved state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("{export}: the guest ran out of fuel ({fuel} units per call)")]
    OutOfFuel { export: &'static str, fuel: u64 },
    #[error("{export}: the guest exceeded the wall-clock limit of {limit:?}")]
    Timeout {
        export: &'static str,
        limit: Duration,
    },
    #[error("{export}: the guest exceeded the memory limit of {limit} bytes")]
    MemoryLimit { export: &'static str, limit: usize },
    #[error("{export}: the guest exhausted its stack")]
    StackOverflow { export: &'static str },
    #[error("{export}: the guest trapped: {message}")]
    Trap {
        export: &'static str,
        message: String,
    },
    #[error("{export}: the guest returned {bytes} bytes, over the limit of {limit}")]
    OutputTooLarge {
        export: &'static str,
        bytes: usize,
        limit: usize,
    },
    #[error("{export}: the guest returned invalid output: {reason}")]
    BadOutput {
        export: &'static str,
        reason: String,
    },
    #[error("{export}: the instance was poisoned by an earlier failure and cannot be called")]
    Poisoned { export: &'static str },
}

impl CallError {
    /// Classifies an error that a guest call returned.
    pub(crate) fn from_wasmtime(
        export: &'static str,
        error: &wasmtime::Error,
        fuel: u64,
        wall_clock: Duration,
    ) -> CallError {
        if let Some(hit) = error.downcast_ref::<MemoryLimitHit>() {
            return CallError::MemoryLimit {
                export,
                limit: hit.limit,
            };
        }
        match error.downcast_ref::<Trap>() {
            Some(Trap::OutOfFuel) => CallError::OutOfFuel { export, fuel },
            Some(Trap::Interrupt) => CallError::Timeout {
                export,
                limit: wall_clock,
            },
            Some(Trap::StackOverflow) => CallError::StackOverflow { export },
            Some(trap) => CallError::Trap {
                export,
                message: trap.to_string(),
            },
            None => CallError::Trap {
                export,
                message: format!("{error:#}"),
            },
        }
    }

    /// The call went past a per-call limit that depends only on the call itself (fuel,
    /// memory, stack, output size): the same call on the same state fails the same way on every
    /// machine. The wall-clock limit is not one: it depends on the host's load.
    pub fn exceeded_own_limit(&self) -> bool {
        matches!(
            self,
            CallError::OutOfFuel { .. }
                | CallError::MemoryLimit { .. }
                | CallError::StackOverflow { .. }
                | CallError::OutputTooLarge { .. }
        )
    }

    /// The export whose call failed.
    pub fn export(&self) -> &'static str {
        match self {
            CallError::OutOfFuel { export, .. }
            | CallError::Timeout { export, .. }
            | CallError::MemoryLimit { export, .. }
            | CallError::StackOverflow { export }
            | CallError::Trap { export, .. }
            | CallError::OutputTooLarge { export, .. }
            | CallError::BadOutput { export, .. }
            | CallError::Poisoned { export } => export,
        }
    }
}
