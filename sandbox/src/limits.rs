//! Per-call resource limits and the store-side limiter that enforces the memory cap.

use std::time::Duration;

use wasmtime::ResourceLimiter;

/// The hard limits every guest call runs under. A call that breaches one fails with its own
/// `CallError` variant and its instance is discarded; no other instance notices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Fuel (roughly, WebAssembly instructions) one call may burn. Deterministic: the same call
    /// runs out at the same point on every machine.
    pub fuel_per_call: u64,
    /// Wall-clock time one call may take, enforced by epoch interruption (to within one tick,
    /// `EPOCH_TICK`). Catches what fuel cannot see, such as a slow host.
    pub wall_clock_per_call: Duration,
    /// The most linear memory an instance may hold.
    pub max_memory_bytes: usize,
    /// The most bytes one call may return (observation plus events, a manifest, a saved state).
    pub max_output_bytes: usize,
    /// The most WebAssembly stack a call may use.
    pub max_stack_bytes: usize,
    /// The most instances alive at once in this sandbox (the size of the instance pool).
    pub max_instances: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            fuel_per_call: 500_000_000,
            wall_clock_per_call: Duration::from_secs(2),
            max_memory_bytes: 64 << 20,
            max_output_bytes: 4 << 20,
            max_stack_bytes: 512 << 10,
            max_instances: 1024,
        }
    }
}

/// The error a memory or table growth beyond the limit raises inside the guest call; it unwinds
/// the call as a trap, and `CallError::from_wasmtime` recognises it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("guest tried to grow its memory to {desired} bytes, over the limit of {limit}")]
pub(crate) struct MemoryLimitHit {
    pub(crate) desired: usize,
    pub(crate) limit: usize,
}

/// The store data of every instance: only the limiter, since guests import nothing.
#[derive(Debug)]
pub(crate) struct HostState {
    pub(crate) max_memory_bytes: usize,
}

impl ResourceLimiter for HostState {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_memory_bytes {
            return Err(wasmtime::Error::new(MemoryLimitHit {
                desired,
                limit: self.max_memory_bytes,
            }));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // A guest compiled from Rust needs one small function table; 64k entries is generous.
        Ok(desired <= 1 << 16)
    }
}
