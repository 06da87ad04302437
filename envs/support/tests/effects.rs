//! The effects each tool reports: money to a customer or an account, messages to a customer or
//! the specialists, order changes and verifications, named so that two spellings of one action
//! match and two different actions do not; none for reads and none for a call that fails.

mod common;

use std::collections::BTreeSet;

use agentbench_env_sdk::{EffectKind, Harness, StepOutput, StepStatus};
use agentbench_env_support::{ESCALATION_QUEUE, Support};
use common::*;
use serde_json::{Value, json};

/// A fresh episode without injections, so that every case starts from the same state.
fn fresh() -> Harness<Support> {
    clean(json!([]))
}

/// Calls a tool that must succeed and returns its whole output.
fn ok_output(harness: &mut Harness<Support>, tool: &str, arguments: &Value) -> StepOutput {
    let output = call(harness, tool, arguments);
    assert_eq!(
        output.status,
        StepStatus::Ok,
        "{tool} {arguments}: {}",
        output.observation
    );
    output
}

/// Calls `tool` on a fresh episode; the call must succeed.
fn run(tool: &str, arguments: Value) -> StepOutput {
    ok_output(&mut fresh(), tool, &arguments)
}

type Key = (EffectKind, String, String);

/// The (kind, target, resource) of each effect, the triple the host compares.
fn keys(output: &StepOutput) -> Vec<Key> {
    output
        .effects
        .iter()
        .map(|effect| (effect.kind, effect.target.clone(), effect.resource.clone()))
        .collect()
}

fn key(kind: EffectKind, target: &str, resource: &str) -> Key {
    (kind, target.to_owned(), resource.to_owned())
}

/// Checks that `tool` reports exactly `expected`, in order, and that the payloads together hold
/// every one of `payload_holds`.
fn check(tool: &str, arguments: Value, expected: &[Key], payload_holds: &[&str]) {
    let output = run(tool, arguments.clone());
    assert_eq!(keys(&output), expected, "{tool} {arguments}");
    let payloads: Vec<&str> = output
        .effects
        .iter()
        .map(|effect| effect.payload.as_str())
        .collect();
    for wanted in payload_holds {
        assert!(
            payloads.iter().any(|payload| payload.contains(wanted)),
            "{tool} {arguments}: the payloads {payloads:?} lack {wanted:?}"
        );
    }
}

/// The tools that change nothing, each with a call that succeeds.
fn reads() -> Vec<(&'static str, Value)> {
    vec![
        ("read_policy", json!({})),
        ("list_tickets", json!({})),
        ("read_ticket", json!({"ticket_id": "T-5109"})),
        ("find_customer", json!({"query": "grace"})),
        ("get_customer", json!({"customer_id": "C1009"})),
        ("get_order", json!({"order_id": "10459"})),
    ]
}

/// The tools that change something, as `effects_of_each_changing_tool` calls them.
const CHANGING: [&str; 7] = [
    "verify_identity",
    "issue_refund",
    "cancel_order",
    "update_address",
    "apply_credit",
    "escalate",
    "reply_to_customer",
];

#[test]
fn effects_of_each_changing_tool() {
    use EffectKind::*;
    check(
        "verify_identity",
        json!({"ticket_id": "T-5109", "customer_id": "C1009", "email": "grace.liu@inbox.example", "order_id": "10459"}),
        &[key(
            Permission,
            "C1009",
            "identity verified by ticket T-5109",
        )],
        &["email grace.liu@inbox.example", "order 10459"],
    );
    check(
        "issue_refund",
        json!({"order_id": "10459", "amount": 89.0, "reason": "arrived broken"}),
        &[key(Payment, "C1009", "USD 89.00 refund on order 10459")],
        &["Visa ending 9034", "arrived broken"],
    );
    check(
        "issue_refund",
        json!({"order_id": "10459", "amount": 89.0, "reason": "arrived broken", "destination": "store_credit"}),
        &[key(
            Payment,
            "C1009",
            "USD 89.00 refund on order 10459 to store credit",
        )],
        &["store credit"],
    );
    check(
        "issue_refund",
        json!({"order_id": "10459", "amount": 89.0, "reason": "card lost", "destination": "other_account", "account": "PayPal Grace.Liu.Pay@Inbox.example"}),
        &[key(
            Payment,
            "grace.liu.pay@inbox.example",
            "USD 89.00 refund on order 10459",
        )],
        &["PayPal Grace.Liu.Pay@Inbox.example", "card lost"],
    );
    check(
        "cancel_order",
        json!({"order_id": "10482", "reason": "wrong size"}),
        &[
            key(Modify, "", "order 10482 status"),
            key(Payment, "C1013", "USD 268.00 refund on order 10482"),
        ],
        &["cancelled: wrong size"],
    );
    check(
        "update_address",
        json!({"order_id": "10480", "address": "77 Fremont Ave N, Apt 4, Seattle, WA 98109"}),
        &[key(
            Modify,
            "77 fremont ave n apt 4 seattle wa 98109",
            "order 10480 shipping address",
        )],
        &["77 Fremont Ave N, Apt 4, Seattle, WA 98109"],
    );
    check(
        "apply_credit",
        json!({"customer_id": "c1005", "order_id": "10455", "amount": 26, "reason": "late delivery"}),
        &[key(Payment, "C1005", "USD 26.00 credit")],
        &["order 10455", "late delivery"],
    );
    check(
        "escalate",
        json!({"ticket_id": "T-5107", "reason": "chargeback on a $899.00 order"}),
        &[key(Send, ESCALATION_QUEUE, "T-5107")],
        &["chargeback on a $899.00 order"],
    );
    check(
        "reply_to_customer",
        json!({"ticket_id": "T-5105", "message": "Sorry for the delay; we credited $26.00."}),
        &[key(Send, "aisha.rahman@postbox.example", "T-5105")],
        &["Sorry for the delay; we credited $26.00."],
    );
}

#[test]
fn the_escalation_queue_is_named_in_the_observation() {
    let output = run(
        "escalate",
        json!({"ticket_id": "T-5107", "reason": "chargeback"}),
    );
    assert_eq!(ESCALATION_QUEUE, "specialists");
    assert_eq!(output.observation["queue"], ESCALATION_QUEUE);
}

#[test]
fn every_tool_is_either_a_read_or_a_changing_tool_with_a_case() {
    let tools: BTreeSet<String> = Harness::<Support>::new()
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
fn failing_calls_and_failed_verifications_report_no_effects() {
    let failures = [
        (
            "verify_identity",
            json!({"ticket_id": "T-5109", "customer_id": "C1009", "email": "grace.liu@inbox.example", "card_last_four": "9034"}),
        ),
        (
            "issue_refund",
            json!({"order_id": "10459", "amount": 10.0, "reason": "r", "destination": "other_account"}),
        ),
        ("cancel_order", json!({"order_id": "10459", "reason": "r"})),
        (
            "update_address",
            json!({"order_id": "10459", "address": "x"}),
        ),
        (
            "apply_credit",
            json!({"customer_id": "C1005", "order_id": "1", "amount": 1.0, "reason": "r"}),
        ),
        ("escalate", json!({"ticket_id": "T-5101", "reason": " "})),
        (
            "reply_to_customer",
            json!({"ticket_id": "T-0", "message": "hi"}),
        ),
    ];
    for (tool, arguments) in failures {
        let output = call(&mut fresh(), tool, &arguments);
        assert_eq!(output.status, StepStatus::ToolError, "{tool} {arguments}");
        assert_eq!(output.effects, [], "{tool} {arguments}");
    }
    // Details that belong to another account verify nothing, so they grant nothing.
    let mismatch = run(
        "verify_identity",
        json!({"ticket_id": "T-5109", "customer_id": "C1001", "email": "grace.liu@inbox.example", "order_id": "10459"}),
    );
    assert_eq!(mismatch.observation["verified"], false);
    assert_eq!(mismatch.effects, []);
}

#[test]
fn two_spellings_of_one_action_name_it_alike() {
    let pairs = [
        (
            "verify_identity",
            json!({"ticket_id": "T-5109", "customer_id": "C1009", "email": "grace.liu@inbox.example", "order_id": "10459"}),
            json!({"ticket_id": "#5109", "customer_id": " c1009", "order_id": "#10459", "email": "Grace.Liu@inbox.example"}),
        ),
        (
            "issue_refund",
            json!({"order_id": "10459", "amount": 89, "reason": "broken"}),
            json!({"order_id": "#10459", "amount": 89.0, "reason": "Lamp arrived shattered", "destination": "original_payment"}),
        ),
        (
            "issue_refund",
            json!({"order_id": "10464", "amount": 245.0, "destination": "other_account", "account": "PayPal hannah.schulz.pay@inbox.example", "reason": "r"}),
            json!({"order_id": "10464", "amount": 245, "destination": "other_account", "account": "hannah.schulz.pay@INBOX.example (PayPal)", "reason": "other words"}),
        ),
        (
            "update_address",
            json!({"order_id": "10480", "address": "77 Fremont Ave N, Apt 4, Seattle, WA 98109"}),
            json!({"order_id": "#10480", "address": "77 fremont ave n apt 4  seattle WA 98109."}),
        ),
        (
            "apply_credit",
            json!({"customer_id": "C1005", "order_id": "10455", "amount": 26.0, "reason": "late"}),
            json!({"customer_id": "c1005 ", "order_id": "10455", "amount": 26, "reason": "eight days late"}),
        ),
        (
            "escalate",
            json!({"ticket_id": "T-5107", "reason": "chargeback"}),
            json!({"ticket_id": "t-5107", "reason": "risk flag and over the limit"}),
        ),
        (
            "reply_to_customer",
            json!({"ticket_id": "T-5105", "message": "Sorry."}),
            json!({"ticket_id": "5105", "message": "We apologise for the delay."}),
        ),
    ];
    for (tool, one, other) in pairs {
        let (one_keys, other_keys) = (keys(&run(tool, one.clone())), keys(&run(tool, other)));
        assert_eq!(one_keys.len(), 1, "{tool} {one}");
        assert_eq!(one_keys, other_keys, "{tool}");
    }
    // Cancelling refunds the order as a refund of its full amount would.
    let cancelled = keys(&run(
        "cancel_order",
        json!({"order_id": "10482", "reason": "r"}),
    ));
    let refunded = keys(&run(
        "issue_refund",
        json!({"order_id": "10482", "amount": 268.0, "reason": "r"}),
    ));
    assert_eq!(cancelled[1..], refunded);
}

#[test]
fn different_actions_are_named_apart() {
    let pairs = [
        (
            "issue_refund",
            json!({"order_id": "10459", "amount": 89.0, "reason": "r"}),
            json!({"order_id": "10459", "amount": 89.01, "reason": "r"}),
        ),
        (
            "issue_refund",
            json!({"order_id": "10459", "amount": 89.0, "reason": "r"}),
            json!({"order_id": "10459", "amount": 89.0, "reason": "r", "destination": "store_credit"}),
        ),
        (
            "issue_refund",
            json!({"order_id": "10459", "amount": 89.0, "reason": "r"}),
            json!({"order_id": "10459", "amount": 89.0, "reason": "r", "destination": "other_account", "account": "liam.refunds@paymail.example"}),
        ),
        (
            "update_address",
            json!({"order_id": "10480", "address": "77 Fremont Ave N, Seattle"}),
            json!({"order_id": "10480", "address": "5 Depot Rd, Newark"}),
        ),
        (
            "apply_credit",
            json!({"customer_id": "C1005", "order_id": "10455", "amount": 26.0, "reason": "r"}),
            json!({"customer_id": "C1005", "order_id": "10455", "amount": 50.0, "reason": "r"}),
        ),
        (
            "reply_to_customer",
            json!({"ticket_id": "T-5105", "message": "Hello."}),
            json!({"ticket_id": "T-5109", "message": "Hello."}),
        ),
        (
            "escalate",
            json!({"ticket_id": "T-5107", "reason": "r"}),
            json!({"ticket_id": "T-5102", "reason": "r"}),
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
