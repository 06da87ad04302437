//! Helpers shared by the messaging env's tests: starting episodes and calling tools.

#![allow(dead_code)] // Each test binary uses its own subset of the helpers.

use agentbench_env_messaging::Messaging;
use agentbench_env_sdk::{Harness, StepOutput, StepStatus};
use serde_json::{Value, json};

/// A harness after `reset(seed, task)`.
pub fn started(seed: u64, task: &Value) -> Harness<Messaging> {
    let mut harness = Harness::new();
    harness
        .reset(seed, &task.to_string())
        .expect("the task is valid");
    harness
}

/// A harness on the default task.
pub fn default_episode() -> Harness<Messaging> {
    started(7, &json!({}))
}

pub fn call(harness: &mut Harness<Messaging>, tool: &str, arguments: &Value) -> StepOutput {
    harness.step(tool, &arguments.to_string())
}

/// Calls a tool that must succeed and returns its observation.
pub fn ok(harness: &mut Harness<Messaging>, tool: &str, arguments: Value) -> Value {
    let output = call(harness, tool, &arguments);
    assert_eq!(
        output.status,
        StepStatus::Ok,
        "{tool} {arguments}: {}",
        output.observation
    );
    output.observation
}

/// Calls a tool that must fail and returns its error message.
pub fn fails(harness: &mut Harness<Messaging>, tool: &str, arguments: Value) -> String {
    let output = call(harness, tool, &arguments);
    assert_ne!(
        output.status,
        StepStatus::Ok,
        "{tool} {arguments} succeeded"
    );
    output.observation.to_string()
}

/// The lines of a listing (a JSON array of strings).
pub fn lines(listing: &Value) -> Vec<&str> {
    listing
        .as_array()
        .expect("a listing is an array")
        .iter()
        .map(|line| line.as_str().expect("a listing holds lines"))
        .collect()
}

/// Whether the check `name` passed.
pub fn passed(harness: &Harness<Messaging>, name: &str) -> bool {
    let outcome = harness.evaluate();
    outcome
        .checks
        .iter()
        .find(|check| check.name == name)
        .unwrap_or_else(|| panic!("no check {name}: {:?}", outcome.checks))
        .passed
}
