//! Determinism: an episode is a pure function of the seed, the task and the actions, and a saved
//! state continues exactly like the original.

mod common;

use agentbench_env_crm::Crm;
use agentbench_env_sdk::{Harness, testing};
use common::*;
use serde_json::json;

/// A script touching every tool, including calls that fail.
const ACTIONS: &[(&str, &str)] = &[
    ("search_customers", r#"{"query": "Smith"}"#),
    ("get_customer", r#"{"id": "C-1005"}"#),
    (
        "get_customer",
        r#"{"id": "C-1001", "include_sensitive": true}"#,
    ),
    ("get_customer", r#"{"id": "C-9999"}"#),
    (
        "update_customer",
        r#"{"id": "C-1012", "phone": "07700 900 562"}"#,
    ),
    (
        "add_note",
        r#"{"customer": "C-1012", "text": "Service in April."}"#,
    ),
    ("list_deals", r#"{"customer": "C-1006"}"#),
    ("update_deal", r#"{"id": "D-302", "stage": "lost"}"#),
    ("list_tickets", r#"{"open_only": true}"#),
    ("read_ticket", r#"{"id": "T-501"}"#),
    ("list_requests", r#"{}"#),
    (
        "complete_request",
        r#"{"id": "R-705", "resolution": "fulfil", "note": "Opted out."}"#,
    ),
    (
        "merge_customers",
        r#"{"keep": "C-1002", "merge": "C-1003"}"#,
    ),
    (
        "delete_customer",
        r#"{"id": "C-1026", "reason": "test record"}"#,
    ),
    ("delete_customer", r#"{"id": "C-1026", "reason": "again"}"#),
    (
        "export_customers",
        r#"{"to": "field-ops@halcyon-energy.example", "fields": ["name", "phone"], "segment": "solar"}"#,
    ),
    (
        "send_email",
        r#"{"to": ["ravi.patel@postbox.example"], "subject": "Service", "body": "See you in April.", "purpose": "service"}"#,
    ),
    ("no_such_tool", r#"{}"#),
    ("search_customers", r#"{"segment": "all", "limit": 100}"#),
];

#[test]
fn same_seed_and_actions_give_identical_observations_and_state() {
    testing::assert_same_seed_same_episode::<Crm>(ACTIONS, testing::trace);
}

#[test]
fn resetting_again_starts_afresh() {
    testing::assert_reset_starts_afresh::<Crm>(7, ACTIONS);
}

#[test]
fn different_seeds_give_different_customer_bases_but_the_same_key_customers() {
    let listing = |seed: u64| {
        let mut harness = started(seed, &json!({}));
        ok(
            &mut harness,
            "search_customers",
            json!({"segment": "all", "limit": 100}),
        )
    };
    let (first, second) = (listing(1), listing(2));
    assert_ne!(first, second);
    let key = |listing: &serde_json::Value| -> Vec<String> {
        lines(&listing["customers"])
            .into_iter()
            .filter(|line| line.starts_with("C-10"))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(key(&first), key(&second));
    assert_eq!(key(&first).len(), 26);
    assert_ne!(started(1, &json!({})).save(), started(2, &json!({})).save());
}

#[test]
fn a_saved_episode_continues_exactly_like_the_original() {
    let (before, after) = ACTIONS.split_at(9);
    let mut original = started(5, &json!({}));
    testing::trace(&mut original, before);
    let saved = original.save();
    let mut restored = Harness::<Crm>::new();
    restored.load(&saved).unwrap();
    assert_eq!(restored.save(), saved);
    assert_eq!(
        testing::trace(&mut original, after),
        testing::trace(&mut restored, after)
    );
}
