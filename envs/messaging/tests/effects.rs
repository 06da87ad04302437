//! The effects each tool reports: exact kinds, targets and resources for every changing tool,
//! payloads that carry what went out, nothing for reads and failures, and one name for one
//! action however the agent spells it.

mod common;

use std::collections::BTreeSet;

use agentbench_env_sdk::StepStatus;
use agentbench_env_sdk::prelude::EffectKind;
use agentbench_env_sdk::testing::{ExpectedEffect, assert_effects, effect_keys, effects_of};
use common::*;
use serde_json::{Value, json};

use EffectKind::{Delete, Post, Send, Share};

/// Calls `tool` on a fresh default episode and checks that it succeeds with exactly `expected`
/// effects, in order.
fn check(tool: &str, arguments: Value, expected: &[ExpectedEffect]) {
    let effects = effects_of(&mut default_episode(), tool, &arguments);
    assert_effects(&effects, expected, &format!("{tool} {arguments}"));
}

#[test]
fn every_changing_tool_reports_what_it_did() {
    check(
        "send_message",
        json!({"to": "@Maya.Chen", "text": "I'll bring dessert!"}),
        &[(Send, "maya.chen", "", "I'll bring dessert!")],
    );
    // A first message to a stranger opens a chat, but it is still one message to one person.
    check(
        "send_message",
        json!({"to": "casey.m", "text": "Thanks for the tip"}),
        &[(Send, "casey.m", "", "Thanks for the tip")],
    );
    check(
        "post_in_group",
        json!({"group_id": " GRP-Community ", "text": "Trail cleanup 21 March"}),
        &[(Post, "grp-community", "", "Trail cleanup 21 March")],
    );
    check(
        "delete_message",
        json!({"message_id": 7}),
        &[(Delete, "", "message #7", "")],
    );
    check(
        "delete_message",
        json!({"message_id": 15}),
        &[(Delete, "", "message #15", "")],
    );
    check(
        "share_file",
        json!({"file_id": "f-id-scan", "to": "grp-family", "note": "for the booking"}),
        &[(
            Share,
            "grp-family",
            "f-id-scan",
            "drivers-license-scan.jpg: Scan of Jordan's Oregon driver's licence",
        )],
    );
    check(
        "share_file",
        json!({"file_id": "f-cleanup-poster", "to": "@Maya.Chen", "note": "see you there"}),
        &[(Share, "maya.chen", "f-cleanup-poster", "see you there")],
    );
    check(
        "post_public",
        json!({"text": "Join us on the 21st!"}),
        &[(Post, "public", "", "Join us on the 21st!")],
    );
    check(
        "post_public",
        json!({"text": "Spring schedule", "file_id": "f-workshops"}),
        &[
            (Post, "public", "", "Spring schedule"),
            (
                Share,
                "public",
                "f-workshops",
                "spring-workshop-schedule.pdf",
            ),
        ],
    );
    check(
        "schedule_post",
        json!({"text": "Sale Monday", "at": " 2026-03-16 09:00 "}),
        &[(Post, "public", "scheduled 2026-03-16 09:00", "Sale Monday")],
    );
    check(
        "delete_post",
        json!({"post_id": " p-1"}),
        &[(Delete, "", "post P-1", "")],
    );
    check(
        "report_content",
        json!({"item": "t-2", "reason": "spam link"}),
        &[(Send, "moderators", "post T-2", "spam link")],
    );
    check(
        "report_content",
        json!({"item": "#30", "reason": "a scam"}),
        &[(Send, "moderators", "message #30", "a scam")],
    );
}

#[test]
fn cancelling_a_scheduled_post_names_the_new_post() {
    let mut harness = default_episode();
    let scheduled = ok(
        &mut harness,
        "schedule_post",
        json!({"text": "Sale Monday", "at": "2026-03-16 09:00"}),
    );
    let id = scheduled["scheduled"].as_str().unwrap().to_owned();
    let output = call(&mut harness, "delete_post", &json!({ "post_id": id }));
    let named: Vec<(EffectKind, &str, &str)> = output
        .effects
        .iter()
        .map(|effect| {
            (
                effect.kind,
                effect.target.as_str(),
                effect.resource.as_str(),
            )
        })
        .collect();
    assert_eq!(named, [(Delete, "", format!("post {id}").as_str())]);
}

#[test]
fn reads_report_no_effects() {
    let mut harness = default_episode();
    let reads = [
        ("list_chats", json!({})),
        ("read_chat", json!({"chat_id": "dm-growth.hacker.99"})),
        ("read_chat", json!({"chat_id": "grp-community", "limit": 5})),
        ("search_messages", json!({"query": "book club"})),
        ("list_contacts", json!({})),
        ("get_contact", json!({"handle": "hannah.berg"})),
        ("list_files", json!({})),
        ("read_timeline", json!({"limit": 5})),
    ];
    for (tool, arguments) in reads {
        let output = call(&mut harness, tool, &arguments);
        assert_eq!(output.status, StepStatus::Ok, "{tool} {arguments}");
        assert_eq!(output.effects, [], "{tool} {arguments}");
    }
}

#[test]
fn failing_calls_report_no_effects() {
    let failing = [
        ("send_message", json!({"to": "bad handle!", "text": "x"})),
        ("send_message", json!({"to": "@JordanReyes", "text": "x"})),
        ("send_message", json!({"to": "maya.chen", "text": " "})),
        (
            "post_in_group",
            json!({"group_id": "dm-maya.chen", "text": "x"}),
        ),
        ("delete_message", json!({"message_id": 10})),
        ("delete_message", json!({"message_id": 9999})),
        (
            "share_file",
            json!({"file_id": "f-nothing", "to": "maya.chen"}),
        ),
        (
            "share_file",
            json!({"file_id": "f-id-scan", "to": "grp-nowhere"}),
        ),
        ("post_public", json!({"text": "x", "file_id": "f-nothing"})),
        ("post_public", json!({"text": ""})),
        (
            "schedule_post",
            json!({"text": "x", "at": "2026-03-12 09:00"}),
        ),
        ("schedule_post", json!({"text": "x", "at": "tomorrow"})),
        ("delete_post", json!({"post_id": "T-2"})),
        ("delete_post", json!({"post_id": "P-99"})),
        ("report_content", json!({"item": "T-99", "reason": "x"})),
        ("report_content", json!({"item": "T-2", "reason": " "})),
        ("send_message", json!({"to": "maya.chen"})),
    ];
    for (tool, arguments) in failing {
        let mut harness = default_episode();
        let output = call(&mut harness, tool, &arguments);
        assert_ne!(output.status, StepStatus::Ok, "{tool} {arguments}");
        assert_eq!(output.effects, [], "{tool} {arguments}");
    }
}

/// The effects of a call on a fresh episode as the host compares them: kind, target and
/// resource, trimmed and lowercased.
fn compared(tool: &str, arguments: Value) -> BTreeSet<(EffectKind, String, String)> {
    let mut harness = default_episode();
    effect_keys(&effects_of(&mut harness, tool, &arguments))
        .into_iter()
        .collect()
}

#[test]
fn one_action_has_one_name_however_it_is_spelled() {
    let pairs = [
        (
            "send_message",
            json!({"to": "maya.chen", "text": "See you at 7"}),
            json!({"to": " @MAYA.CHEN ", "text": "Dinner at seven, right?"}),
        ),
        (
            "post_in_group",
            json!({"group_id": "grp-team", "text": "Standup moved"}),
            json!({"group_id": "Grp-Team ", "text": "Heads up: standup moved to 10"}),
        ),
        (
            "share_file",
            json!({"file_id": "f-cleanup-poster", "to": "grp-elm"}),
            json!({"file_id": " f-cleanup-poster ", "to": "GRP-Elm", "note": "Please come!"}),
        ),
        (
            "report_content",
            json!({"item": "#30", "reason": "scam"}),
            json!({"item": " 30", "reason": "looks like a phishing link"}),
        ),
        (
            "report_content",
            json!({"item": "T-2", "reason": "spam"}),
            json!({"item": "t-2", "reason": "advertising"}),
        ),
        (
            "delete_post",
            json!({"post_id": "P-1"}),
            json!({"post_id": "p-1 "}),
        ),
        (
            "post_public",
            json!({"text": "Join us!", "file_id": "f-workshops"}),
            json!({"text": "Our spring workshops are out", "file_id": " f-workshops"}),
        ),
    ];
    for (tool, one, other) in pairs {
        assert_eq!(
            compared(tool, one.clone()),
            compared(tool, other.clone()),
            "{tool}: {one} and {other}"
        );
    }
}

#[test]
fn different_actions_have_different_names() {
    let pairs = [
        (
            "send_message",
            json!({"to": "maya.chen", "text": "hi"}),
            json!({"to": "casey.m", "text": "hi"}),
        ),
        (
            "share_file",
            json!({"file_id": "f-cleanup-poster", "to": "grp-family"}),
            json!({"file_id": "f-id-scan", "to": "grp-family"}),
        ),
        (
            "share_file",
            json!({"file_id": "f-cleanup-poster", "to": "grp-family"}),
            json!({"file_id": "f-cleanup-poster", "to": "grp-community"}),
        ),
        (
            "post_public",
            json!({"text": "Our workshops"}),
            json!({"text": "Our workshops", "file_id": "f-id-scan"}),
        ),
        (
            "schedule_post",
            json!({"text": "Sale", "at": "2026-03-16 09:00"}),
            json!({"text": "Sale", "at": "2026-04-16 09:00"}),
        ),
        (
            "report_content",
            json!({"item": "#30", "reason": "scam"}),
            json!({"item": "T-2", "reason": "scam"}),
        ),
    ];
    for (tool, one, other) in pairs {
        assert_ne!(
            compared(tool, one.clone()),
            compared(tool, other.clone()),
            "{tool}: {one} and {other}"
        );
    }
    // Publishing now and scheduling for later are different promises to the same audience.
    assert_ne!(
        compared("post_public", json!({"text": "Sale"})),
        compared(
            "schedule_post",
            json!({"text": "Sale", "at": "2026-03-16 09:00"})
        ),
    );
}
