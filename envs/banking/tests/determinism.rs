//! Determinism: an episode is a pure function of the seed, the task and the actions, and a saved
//! state continues exactly like the original.

mod common;

use agentbench_env_banking::Banking;
use agentbench_env_sdk::Harness;
use common::*;
use serde_json::json;

/// A script touching every tool, including calls that fail.
const ACTIONS: &[(&str, &str)] = &[
    ("list_accounts", "{}"),
    (
        "list_transactions",
        r#"{"account": "personal-checking", "category": "groceries"}"#,
    ),
    ("list_payees", "{}"),
    ("list_upcoming", "{}"),
    ("list_messages", r#"{"unread_only": true}"#),
    ("read_message", r#"{"id": 9}"#),
    ("read_document", r#"{"id": 1}"#),
    (
        "add_payee",
        r#"{"name": "Fastlane Koeriers", "iban": "NL66 BUNQ 2055 6677 88", "scope": "business"}"#,
    ),
    (
        "pay",
        r#"{"from_account": "business-checking", "payee_id": 10, "amount": 1184, "bill_id": 3}"#,
    ),
    (
        "pay",
        r#"{"from_account": "savings", "payee_id": 10, "amount": 1}"#,
    ),
    (
        "pay",
        r#"{"from_account": "business-checking", "payee_id": "ten", "amount": 1}"#,
    ),
    ("no_such_tool", "{}"),
    (
        "transfer",
        r#"{"from_account": "savings", "to_account": "personal-checking", "amount": 250}"#,
    ),
    (
        "schedule_payment",
        r#"{"from_account": "personal-checking", "payee_id": 8, "amount": 85, "date": "2026-03-28"}"#,
    ),
    ("cancel_scheduled_payment", r#"{"id": 2}"#),
    (
        "send_message",
        r#"{"to": "chidi.okafor@mailbox.example", "subject": "Tickets", "body": "Paid you!"}"#,
    ),
    (
        "send_statement",
        r#"{"account": "savings", "to": "dana.okafor@mailbox.example", "from_date": "2026-01-01", "to_date": "2026-03-09", "detail": "full"}"#,
    ),
    (
        "set_card_frozen",
        r#"{"card": "debit-4821", "frozen": true}"#,
    ),
    (
        "set_card_frozen",
        r#"{"card": "debit-4821", "frozen": true}"#,
    ),
];

/// Everything observable after each action.
fn trace(harness: &mut Harness<Banking>) -> Vec<String> {
    let mut trace = Vec::new();
    for (tool, arguments) in ACTIONS {
        let output = harness.step(tool, arguments);
        trace.push(format!("{output:?}"));
        trace.push(harness.facts().to_string());
        trace.push(format!("{:?}", harness.evaluate()));
        trace.push(format!("{:?}", harness.save()));
    }
    trace
}

#[test]
fn same_seed_and_actions_give_identical_observations_and_state() {
    for task in [json!({}), json!({"injections": false})] {
        let mut first = Harness::<Banking>::new();
        let mut second = Harness::<Banking>::new();
        assert_eq!(
            first.reset(42, &task.to_string()),
            second.reset(42, &task.to_string())
        );
        assert_eq!(first.save(), second.save());
        assert_eq!(trace(&mut first), trace(&mut second));
    }
}

#[test]
fn different_seeds_give_different_histories_but_the_same_balances() {
    let listing = |seed| {
        let mut harness = started(seed, &json!({}));
        let transactions = ok(&mut harness, "list_transactions", json!({"limit": 200}));
        let accounts = ok(&mut harness, "list_accounts", json!({}));
        (transactions, accounts)
    };
    let (first, first_accounts) = listing(1);
    let (second, second_accounts) = listing(2);
    assert_ne!(first, second);
    assert_eq!(first_accounts, second_accounts);
    assert_ne!(started(1, &json!({})).save(), started(2, &json!({})).save());
}

#[test]
fn a_saved_episode_continues_exactly_like_the_original() {
    let mut original = started(5, &json!({}));
    let (head, tail) = ACTIONS.split_at(8);
    for (tool, arguments) in head {
        original.step(tool, arguments);
    }
    let mut restored = Harness::<Banking>::new();
    restored.load(&original.save()).unwrap();
    assert_eq!(restored.save(), original.save());
    for (tool, arguments) in tail {
        assert_eq!(
            original.step(tool, arguments),
            restored.step(tool, arguments)
        );
    }
    assert_eq!(original.evaluate(), restored.evaluate());
}

#[test]
fn resetting_again_starts_afresh() {
    let mut harness = started(7, &json!({}));
    let fresh = harness.save();
    trace(&mut harness);
    harness.reset(7, "{}").unwrap();
    assert_eq!(harness.save(), fresh);
}
