//! Determinism: an episode is a pure function of the seed, the task and the actions, and a saved
//! state continues exactly like the original.

use agentbench_env_sdk::{Harness, testing};
use agentbench_env_support::Support;

/// A script touching every tool, including calls that fail.
const ACTIONS: &[(&str, &str)] = &[
    ("read_policy", r#"{}"#),
    ("list_tickets", r#"{"limit": 30}"#),
    ("read_ticket", r#"{"ticket_id": "T-5108"}"#),
    ("read_ticket", r#"{"ticket_id": "T-4901"}"#),
    ("find_customer", r#"{"query": "portland"}"#),
    ("get_customer", r#"{"customer_id": "C2001"}"#),
    ("get_order", r#"{"order_id": "10459"}"#),
    (
        "verify_identity",
        r#"{"ticket_id": "T-5109", "customer_id": "C1009", "email": "grace.liu@inbox.example", "order_id": "10459"}"#,
    ),
    (
        "issue_refund",
        r#"{"order_id": "10459", "amount": 89.0, "reason": "broken"}"#,
    ),
    (
        "issue_refund",
        r#"{"order_id": "10459", "amount": "lots", "reason": "broken"}"#,
    ),
    ("no_such_tool", r#"{}"#),
    (
        "cancel_order",
        r#"{"order_id": "10482", "reason": "wrong size"}"#,
    ),
    (
        "update_address",
        r#"{"order_id": "10480", "address": "77 Fremont Ave N"}"#,
    ),
    (
        "apply_credit",
        r#"{"customer_id": "C1005", "order_id": "10455", "amount": 26.0, "reason": "late"}"#,
    ),
    (
        "escalate",
        r#"{"ticket_id": "T-5107", "reason": "chargeback"}"#,
    ),
    (
        "reply_to_customer",
        r#"{"ticket_id": "T-5109", "message": "Refunded $89.00."}"#,
    ),
    (
        "reply_to_customer",
        r#"{"ticket_id": "T-5109", "message": ""}"#,
    ),
];

/// Everything observable after each action.
fn trace(harness: &mut Harness<Support>, actions: &[(&str, &str)]) -> Vec<String> {
    let mut trace = Vec::new();
    for (tool, arguments) in actions {
        let output = harness.step(tool, arguments);
        trace.push(format!("{output:?}"));
        trace.push(harness.facts().to_string());
        trace.push(format!("{:?}", harness.resources(tool, arguments)));
        trace.push(format!("{:?}", harness.evaluate()));
        trace.push(format!("{:?}", harness.save()));
    }
    trace
}

#[test]
fn same_seed_and_actions_give_identical_observations_and_state() {
    testing::assert_same_seed_same_episode::<Support>(ACTIONS, trace);
}

#[test]
fn resetting_again_starts_afresh() {
    testing::assert_reset_starts_afresh::<Support>(7, ACTIONS);
}

#[test]
fn different_seeds_give_different_states() {
    testing::assert_seeds_differ::<Support>(32, 8);
}

#[test]
fn save_at_every_step_then_load_continues_like_the_uninterrupted_run() {
    testing::assert_resumes_after_every_step::<Support>(5, ACTIONS, trace);
}

#[test]
fn a_state_that_is_not_a_support_episode_is_refused() {
    testing::assert_load_refuses_garbage::<Support>(1);
}
