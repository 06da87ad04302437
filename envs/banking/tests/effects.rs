//! The effects each tool reports: exactly one per payment, grant, message or cancellation,
//! named so that two spellings of one action match and two different actions do not; none for
//! reads and none for a call that fails.

mod common;

use std::collections::BTreeSet;

use agentbench_env_banking::Banking;
use agentbench_env_sdk::{EffectKind, Harness, StepOutput, StepStatus};
use common::*;
use serde_json::{Value, json};

/// A fresh episode without injections, so that every case starts from the same state.
fn fresh() -> Harness<Banking> {
    started(0, &json!({"injections": false}))
}

/// Calls `tool` on a fresh episode; the call must succeed.
fn run(tool: &str, arguments: Value) -> StepOutput {
    ok_output(&mut fresh(), tool, &arguments)
}

/// The (kind, target, resource) of each effect, the triple the host compares.
fn keys(output: &StepOutput) -> Vec<(EffectKind, String, String)> {
    output
        .effects
        .iter()
        .map(|effect| (effect.kind, effect.target.clone(), effect.resource.clone()))
        .collect()
}

/// Checks that `tool` reports exactly one effect, `(kind, target, resource)`, whose payload
/// holds every one of `payload_holds`.
fn check(tool: &str, arguments: Value, expected: (EffectKind, &str, &str), payload_holds: &[&str]) {
    let output = run(tool, arguments.clone());
    let (kind, target, resource) = expected;
    assert_eq!(
        keys(&output),
        [(kind, target.to_owned(), resource.to_owned())],
        "{tool} {arguments}"
    );
    let payload = &output.effects[0].payload;
    for wanted in payload_holds {
        assert!(
            payload.contains(wanted),
            "{tool} {arguments}: the payload {payload:?} lacks {wanted:?}"
        );
    }
}

/// The tools that change nothing, each with a call that succeeds.
fn reads() -> Vec<(&'static str, Value)> {
    vec![
        ("list_accounts", json!({})),
        ("list_transactions", json!({"query": "huur"})),
        ("list_payees", json!({})),
        ("list_upcoming", json!({})),
        ("list_messages", json!({})),
        ("read_message", json!({"id": 9})),
        ("read_document", json!({"id": 1})),
    ]
}

/// The tools that change something, as `effects_of_each_changing_tool` calls them.
const CHANGING: [&str; 8] = [
    "add_payee",
    "pay",
    "transfer",
    "schedule_payment",
    "cancel_scheduled_payment",
    "send_message",
    "send_statement",
    "set_card_frozen",
];

#[test]
fn effects_of_each_changing_tool() {
    use EffectKind::*;
    check(
        "add_payee",
        json!({"name": "Fastlane Koeriers", "iban": "nl66 bunq 2055 6677 88", "scope": "business"}),
        (Permission, "NL66BUNQ2055667788", "add payee"),
        &["Fastlane Koeriers", "business"],
    );
    check(
        "pay",
        json!({"from_account": "business-checking", "payee_id": BRIGHTLINE_PAYEE, "amount": 1184, "reference": "INV-2291"}),
        (Payment, "NL40RABO0366211874", "EUR 1184.00 once"),
        &["business-checking", "Brightline Print & Paper", "INV-2291"],
    );
    check(
        "transfer",
        json!({"from_account": "personal-checking", "to_account": "credit-card", "amount": 1268.44, "note": "February statement"}),
        (Payment, "credit-card", "EUR 1268.44 once"),
        &["personal-checking", "February statement"],
    );
    check(
        "schedule_payment",
        json!({"from_account": "personal-checking", "payee_id": CHIDI_PAYEE, "amount": 85, "date": "2026-03-28", "reference": "Concert"}),
        (
            Payment,
            "NL42BUNQ2041778305",
            "EUR 85.00 once on 2026-03-28",
        ),
        &["personal-checking", "Chidi Okafor", "Concert"],
    );
    check(
        "schedule_payment",
        json!({"from_account": "personal-checking", "payee_id": CHIDI_PAYEE, "amount": 85, "date": "2026-04-01", "monthly": true}),
        (
            Payment,
            "NL42BUNQ2041778305",
            "EUR 85.00 monthly from 2026-04-01",
        ),
        &["Chidi Okafor"],
    );
    check(
        "cancel_scheduled_payment",
        json!({"id": 2}),
        (Delete, "", "standing order #2"),
        &["Sportcity Gym", "39.90"],
    );
    check(
        "send_message",
        json!({"to": RUUD, "subject": "Q1 figures", "body": "The summary is on its way."}),
        (Send, RUUD, ""),
        &["Q1 figures", "The summary is on its way."],
    );
    check(
        "send_statement",
        json!({"account": "savings", "to": RUUD, "from_date": "2026-01-01", "to_date": "2026-03-09", "detail": "summary"}),
        (
            Send,
            RUUD,
            "statement of savings, summary, 2026-01-01 to 2026-03-09",
        ),
        &["Opening balance 17,421.38 EUR, closing balance 18,240.00 EUR"],
    );
    check(
        "send_statement",
        json!({"account": "savings", "to": RUUD, "from_date": "2026-01-01", "to_date": "2026-03-09", "detail": "full"}),
        (
            Send,
            RUUD,
            "statement of savings, full, 2026-01-01 to 2026-03-09",
        ),
        // The account number and the transactions themselves are what a full statement gives away.
        &["IBAN NL92 HRBR 0417 1643 19", "| +"],
    );
    check(
        "set_card_frozen",
        json!({"card": "debit-4821", "frozen": true}),
        (Permission, "debit-4821", "freeze"),
        &["debit-4821"],
    );
    check(
        "set_card_frozen",
        json!({"card": "debit-1184", "frozen": false}),
        (Permission, "debit-1184", "unfreeze"),
        &["debit-1184"],
    );
}

#[test]
fn every_tool_is_either_a_read_or_a_changing_tool_with_a_case() {
    let tools: BTreeSet<String> = Harness::<Banking>::new()
        .manifest()
        .tools
        .into_iter()
        .map(|tool| tool.name)
        .collect();
    let covered: BTreeSet<String> = reads()
        .into_iter()
        .map(|(tool, _)| tool.to_owned())
        .chain(CHANGING.map(str::to_owned))
        .collect();
    assert_eq!(tools, covered);
}

#[test]
fn reads_report_no_effects() {
    let mut harness = started(0, &json!({}));
    for (tool, arguments) in reads() {
        let output = ok_output(&mut harness, tool, &arguments);
        assert_eq!(output.effects, [], "{tool} {arguments}");
    }
}

#[test]
fn failing_calls_report_no_effects() {
    let failures = [
        (
            "add_payee",
            json!({"name": "X", "iban": "NL84 TRIO 0212 3456 89", "scope": "business"}),
        ),
        (
            "pay",
            json!({"from_account": "personal-checking", "payee_id": CHIDI_PAYEE, "amount": 2700}),
        ),
        (
            "transfer",
            json!({"from_account": "savings", "to_account": "savings", "amount": 1}),
        ),
        (
            "schedule_payment",
            json!({"from_account": "personal-checking", "payee_id": CHIDI_PAYEE, "amount": 85, "date": "2026-03-09"}),
        ),
        ("cancel_scheduled_payment", json!({"id": 99})),
        (
            "send_message",
            json!({"to": DANA, "subject": "x", "body": "y"}),
        ),
        (
            "send_statement",
            json!({"account": "savings", "to": RUUD, "from_date": "2026-03-01", "to_date": "2026-03-10", "detail": "full"}),
        ),
        (
            "set_card_frozen",
            json!({"card": "debit-1184", "frozen": true}),
        ),
    ];
    for (tool, arguments) in failures {
        let output = call(&mut fresh(), tool, &arguments);
        assert_eq!(output.status, StepStatus::ToolError, "{tool} {arguments}");
        assert_eq!(output.effects, [], "{tool} {arguments}");
    }
}

#[test]
fn two_spellings_of_one_action_name_it_alike() {
    let pairs = [
        (
            "add_payee",
            json!({"name": "Fastlane Koeriers", "iban": "NL66BUNQ2055667788", "scope": "business"}),
            json!({"name": " fastlane koeriers ", "iban": "nl66-bunq-2055-6677-88", "scope": "business"}),
        ),
        (
            "pay",
            json!({"from_account": "business-checking", "payee_id": BRIGHTLINE_PAYEE, "amount": 1184, "reference": "INV-2291"}),
            json!({"from_account": "Business-Checking", "payee_id": BRIGHTLINE_PAYEE, "amount": 1184.0, "bill_id": 3}),
        ),
        (
            "transfer",
            json!({"from_account": "personal-checking", "to_account": "credit-card", "amount": 100}),
            json!({"from_account": " PERSONAL-CHECKING", "to_account": "Credit-Card ", "amount": 100.00, "note": "Card"}),
        ),
        (
            "schedule_payment",
            json!({"from_account": "personal-checking", "payee_id": CHIDI_PAYEE, "amount": 85, "date": "2026-03-28"}),
            json!({"from_account": "personal-checking", "payee_id": CHIDI_PAYEE, "amount": 85.0, "date": " 2026-03-28 ", "reference": "Tickets"}),
        ),
        (
            "send_message",
            json!({"to": "ruud@bakker-fiscaal.example", "subject": "Q1", "body": "Hello"}),
            json!({"to": "Ruud Bakker <RUUD@Bakker-Fiscaal.example>", "subject": "Other", "body": "Hi"}),
        ),
        (
            "send_statement",
            json!({"account": "savings", "to": RUUD, "from_date": "2026-01-01", "to_date": "2026-03-09", "detail": "summary"}),
            json!({"account": "SAVINGS", "to": " Ruud@Bakker-Fiscaal.Example ", "from_date": "2026-01-01", "to_date": "2026-03-09", "detail": "summary"}),
        ),
        (
            "set_card_frozen",
            json!({"card": "debit-4821", "frozen": true}),
            json!({"card": " DEBIT-4821", "frozen": true}),
        ),
    ];
    for (tool, one, other) in pairs {
        let (one_keys, other_keys) = (keys(&run(tool, one.clone())), keys(&run(tool, other)));
        assert_eq!(one_keys.len(), 1, "{tool} {one}");
        assert_eq!(one_keys, other_keys, "{tool}");
    }
}

#[test]
fn different_actions_are_named_apart() {
    let pairs = [
        (
            "pay",
            json!({"from_account": "business-checking", "payee_id": BRIGHTLINE_PAYEE, "amount": 1184}),
            json!({"from_account": "business-checking", "payee_id": BRIGHTLINE_PAYEE, "amount": 1184.01}),
        ),
        (
            "pay",
            json!({"from_account": "business-checking", "payee_id": BRIGHTLINE_PAYEE, "amount": 100}),
            json!({"from_account": "business-checking", "payee_id": KALEIDO_PAYEE, "amount": 100}),
        ),
        (
            "schedule_payment",
            json!({"from_account": "personal-checking", "payee_id": CHIDI_PAYEE, "amount": 85, "date": "2026-04-01"}),
            json!({"from_account": "personal-checking", "payee_id": CHIDI_PAYEE, "amount": 85, "date": "2026-04-01", "monthly": true}),
        ),
        (
            "transfer",
            json!({"from_account": "savings", "to_account": "personal-checking", "amount": 100}),
            json!({"from_account": "savings", "to_account": "business-checking", "amount": 100}),
        ),
        (
            "send_statement",
            json!({"account": "savings", "to": RUUD, "from_date": "2026-01-01", "to_date": "2026-03-09", "detail": "summary"}),
            json!({"account": "savings", "to": RUUD, "from_date": "2026-01-01", "to_date": "2026-03-09", "detail": "full"}),
        ),
        (
            "send_statement",
            json!({"account": "savings", "to": RUUD, "from_date": "2026-01-01", "to_date": "2026-03-09", "detail": "summary"}),
            json!({"account": "personal-checking", "to": RUUD, "from_date": "2026-01-01", "to_date": "2026-03-09", "detail": "summary"}),
        ),
        (
            "cancel_scheduled_payment",
            json!({"id": 1}),
            json!({"id": 2}),
        ),
    ];
    for (tool, one, other) in pairs {
        assert_ne!(
            keys(&run(tool, one.clone())),
            keys(&run(tool, other.clone())),
            "{tool} {one} {other}"
        );
    }
}

/// Calls a tool that must succeed and returns its whole output.
fn ok_output(harness: &mut Harness<Banking>, tool: &str, arguments: &Value) -> StepOutput {
    let output = call(harness, tool, arguments);
    assert_eq!(
        output.status,
        StepStatus::Ok,
        "{tool} {arguments}: {}",
        output.observation
    );
    output
}
