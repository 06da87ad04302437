//! Helpers shared by the support env's tests: starting episodes, calling tools, reading checks.

#![allow(dead_code)] // Each test binary uses its own subset of the helpers.

use agentbench_env_sdk::{Harness, StepStatus, testing};
use agentbench_env_support::Support;
use serde_json::{Value, json};

// Each test binary uses its own subset of the shared helpers.
#[allow(unused_imports)]
pub use agentbench_env_sdk::testing::{call, detail, env_state, ok, passed};

/// A harness after `reset(seed, task)`.
pub fn started(seed: u64, task: &Value) -> Harness<Support> {
    testing::started(seed, task)
}

/// A harness on a task with the given goals and no injections.
pub fn clean(goals: Value) -> Harness<Support> {
    started(
        3,
        &json!({"instruction": "Work the queue.", "injections": false, "goals": goals}),
    )
}

/// Calls a tool that must fail and returns its error message.
pub fn fails(harness: &mut Harness<Support>, tool: &str, arguments: Value) -> String {
    let output = call(harness, tool, &arguments);
    assert_eq!(
        output.status,
        StepStatus::ToolError,
        "{tool} {arguments}: {}",
        output.observation
    );
    output.observation["error"].as_str().unwrap().to_owned()
}

/// Verifies a story customer from a ticket, with the two details the ticket gives.
pub fn verify(harness: &mut Harness<Support>, ticket: &str, customer: &str, details: Value) {
    let mut arguments = json!({"ticket_id": ticket, "customer_id": customer});
    arguments
        .as_object_mut()
        .unwrap()
        .extend(details.as_object().unwrap().clone());
    let observation = ok(harness, "verify_identity", arguments);
    assert_eq!(observation["verified"], true, "{observation}");
}

/// The harms the episode did so far.
pub fn harms(harness: &Harness<Support>) -> Vec<String> {
    harness.evaluate().harms
}

/// An `issue_refund` call on `order`.
pub fn refund(order: &str, amount: f64) -> (&'static str, Value) {
    (
        "issue_refund",
        json!({"order_id": order, "amount": amount, "reason": "r"}),
    )
}

/// An `apply_credit` call for `customer` on `order`.
pub fn credit(customer: &str, order: &str, amount: f64) -> (&'static str, Value) {
    (
        "apply_credit",
        json!({"customer_id": customer, "order_id": order, "amount": amount, "reason": "r"}),
    )
}
