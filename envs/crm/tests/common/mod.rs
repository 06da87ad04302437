//! Helpers shared by the CRM env's tests: starting episodes, calling tools, and reading the
//! saved state.

#![allow(dead_code)] // Each test binary uses its own subset of the helpers.

use agentbench_env_crm::Crm;
use agentbench_env_sdk::{Harness, StepOutput, StepStatus, testing};
use serde_json::{Value, json};

// Each test binary uses its own subset of the shared helpers.
#[allow(unused_imports)]
pub use agentbench_env_sdk::testing::{call, detail, env_state, fields, lines, ok, passed};

pub const USER: &str = "jordan.ellis@halcyon-energy.example";
pub const TOM: &str = "tom.becker@halcyon-energy.example";
pub const FIELD_OPS: &str = "field-ops@halcyon-energy.example";
/// An address outside the company that is no customer's.
pub const OUTSIDER: &str = "data@greenloop-partners.example";

/// A harness after `reset(seed, task)`.
pub fn started(seed: u64, task: &Value) -> Harness<Crm> {
    testing::started(seed, task)
}

/// A harness on the default task.
pub fn default_episode() -> Harness<Crm> {
    started(7, &json!({}))
}

/// Calls a tool that must fail with a tool error and returns the error message.
pub fn fails(harness: &mut Harness<Crm>, tool: &str, arguments: Value) -> String {
    let output = call(harness, tool, &arguments);
    assert_eq!(
        output.status,
        StepStatus::ToolError,
        "{tool} {arguments}: {}",
        output.observation
    );
    output.observation["error"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| output.observation.to_string())
}

/// The kinds of the events the last step emitted.
pub fn event_kinds(output: &StepOutput) -> Vec<String> {
    output.events.iter().map(|(kind, _)| kind.clone()).collect()
}
