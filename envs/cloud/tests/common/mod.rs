//! Helpers shared by the cloud env's tests: starting episodes and calling tools.

#![allow(dead_code)] // Each test binary uses its own subset of the helpers.

use agentbench_env_cloud::Cloud;
use agentbench_env_sdk::{Harness, StepStatus, testing};
use serde_json::{Value, json};

// Each test binary uses its own subset of the shared helpers.
#[allow(unused_imports)]
pub use agentbench_env_sdk::testing::{call, ok, passed};

/// A harness after `reset(seed, task)`.
pub fn started(seed: u64, task: &Value) -> Harness<Cloud> {
    testing::started(seed, task)
}

/// A harness on the default task.
pub fn default_episode() -> Harness<Cloud> {
    started(7, &json!({}))
}

/// Calls a tool that must fail and returns its error observation.
pub fn fails(harness: &mut Harness<Cloud>, tool: &str, arguments: Value) -> Value {
    let output = call(harness, tool, &arguments);
    assert_eq!(
        output.status,
        StepStatus::ToolError,
        "{tool} {arguments}: {}",
        output.observation
    );
    output.observation
}
