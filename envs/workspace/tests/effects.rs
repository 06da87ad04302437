//! The effects each tool reports: exact kinds, targets and resources for every changing tool,
//! payloads that carry what went out, nothing for reads and failures, and one name for one
//! action however the agent spells it.

mod common;

use std::collections::BTreeSet;

use agentbench_env_sdk::prelude::EffectKind;
use agentbench_env_sdk::testing::{ExpectedEffect, assert_effects, effect_keys, effects_of};
use agentbench_env_sdk::{Harness, StepStatus};
use agentbench_env_workspace::Workspace;
use common::*;
use serde_json::{Value, json};

use EffectKind::{Delete, Modify, Send, Share};

const ROADMAP: &str = "/docs/q2-roadmap.md";
const DANIEL: &str = "daniel.okafor@northwind.example";
const SAM: &str = "sam.patel@northwind.example";
const TOMAS: &str = "tomas.rivera@northwind.example";

/// Calls `tool` on a fresh default episode and checks that it succeeds with exactly `expected`
/// effects, in order.
fn check(tool: &str, arguments: Value, expected: &[ExpectedEffect]) {
    let effects = effects_of(&mut default_episode(), tool, &arguments);
    assert_effects(&effects, expected, &format!("{tool} {arguments}"));
}

/// The id of the first event listed on `day`.
fn event_id(harness: &mut Harness<Workspace>, day: &str) -> u32 {
    let listed = ok(
        harness,
        "list_events",
        json!({"from_date": day, "to_date": day}),
    );
    line_id(lines(&listed["events"])[0])
}

#[test]
fn every_changing_tool_reports_what_it_did() {
    // Ids are the same in every default episode, since the seed is.
    let kitchen_email = email_id(&mut default_episode(), "kitchen deep clean");
    let sprint_planning = event_id(&mut default_episode(), "2026-03-02");
    let kitchen_email_resource = format!("email #{kitchen_email}");
    let sprint_planning_resource = format!("event #{sprint_planning}");
    let both_files = format!("{AGENDA}, {ROADMAP}");

    check(
        "send_email",
        json!({
            "to": ["Priya Shah <Priya.Shah@northwind.example>", CLIENT],
            "cc": [DANIEL],
            "subject": "Offsite plans",
            "body": "See the attached files.",
            "attachments": [ROADMAP, AGENDA],
        }),
        &[
            (Send, PRIYA, &both_files, "Offsite plans"),
            (Send, CLIENT, &both_files, "See the attached files."),
            (Send, DANIEL, &both_files, "Team dinner at Tasca do Monte"),
        ],
    );
    check(
        "send_email",
        json!({"to": [PRIYA], "subject": "Hi", "body": "No attachment today."}),
        &[(Send, PRIYA, "", "No attachment today.")],
    );
    // A recipient named in both `to` and `cc` receives one email.
    check(
        "send_email",
        json!({"to": [PRIYA], "cc": ["PRIYA.SHAH@northwind.example"], "subject": "Hi", "body": "x"}),
        &[(Send, PRIYA, "", "Subject: Hi")],
    );
    check(
        "delete_email",
        json!({ "id": kitchen_email }),
        &[(Delete, "", &kitchen_email_resource, "")],
    );
    check(
        "create_event",
        json!({
            "title": "Roadmap sync",
            "start": "2026-03-05 10:00",
            "end": "2026-03-05 10:30",
            "attendees": ["Daniel <Daniel.Okafor@northwind.example>", CLIENT],
            "location": "Room Atlas",
        }),
        &[
            (Modify, "", "event 2026-03-05", "Roadmap sync"),
            (
                Send,
                DANIEL,
                "event 2026-03-05",
                "2026-03-05 10:00 to 2026-03-05 10:30",
            ),
            (Send, CLIENT, "event 2026-03-05", "at Room Atlas"),
        ],
    );
    check(
        "create_event",
        json!({"title": "Focus time", "start": "2026-03-06 14:00", "end": "2026-03-06 16:00"}),
        &[(Modify, "", "event 2026-03-06", "Focus time")],
    );
    check(
        "delete_event",
        json!({ "id": sprint_planning }),
        &[
            (Delete, "", &sprint_planning_resource, ""),
            (
                Send,
                DANIEL,
                &sprint_planning_resource,
                "Cancelled: Sprint planning",
            ),
            (
                Send,
                TOMAS,
                &sprint_planning_resource,
                "Cancelled: Sprint planning",
            ),
            (
                Send,
                SAM,
                &sprint_planning_resource,
                "Cancelled: Sprint planning",
            ),
        ],
    );
    check(
        "write_file",
        json!({"path": "docs/notes.md", "content": "call Priya about the venue"}),
        &[(Modify, "", "/docs/notes.md", "call Priya about the venue")],
    );
    // Overwriting an existing file is the same kind of change as creating one.
    check(
        "write_file",
        json!({"path": AGENDA, "content": "cancelled"}),
        &[(Modify, "", AGENDA, "cancelled")],
    );
    check(
        "share_file",
        json!({"path": AGENDA, "with": "Sam <SAM.PATEL@northwind.example>", "permission": "edit"}),
        &[(Share, SAM, "/docs/offsite-agenda.md (edit)", "Team dinner")],
    );
    check(
        "share_file",
        json!({"path": ROADMAP, "with": CLIENT, "permission": "read"}),
        &[(Share, CLIENT, "/docs/q2-roadmap.md (read)", "Rate limiter")],
    );
    check(
        "delete_file",
        json!({"path": "finance/payroll-2026.csv"}),
        &[(Delete, "", PAYROLL, "")],
    );
}

#[test]
fn reads_report_no_effects() {
    let mut harness = default_episode();
    let offsite_email = email_id(&mut harness, "offsite agenda");
    let reads = [
        ("search_emails", json!({"query": "offsite"})),
        ("read_email", json!({ "id": offsite_email })),
        ("list_events", json!({})),
        ("list_files", json!({"folder": "/finance"})),
        ("read_file", json!({"path": PAYROLL})),
        ("search_contacts", json!({"query": "acme"})),
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
        (
            "send_email",
            json!({"to": [PRIYA, "not an address"], "subject": "Hi", "body": "x"}),
        ),
        (
            "send_email",
            json!({"to": [PRIYA], "subject": "Hi", "body": "x", "attachments": ["/nope.md"]}),
        ),
        (
            "send_email",
            json!({"to": [], "subject": "Hi", "body": "x"}),
        ),
        ("delete_email", json!({"id": 0})),
        (
            "create_event",
            json!({"title": "X", "start": "2026-03-05 10:00", "end": "2026-03-05 09:00", "attendees": [PRIYA]}),
        ),
        ("delete_event", json!({"id": 999})),
        ("write_file", json!({"path": "/docs/../x", "content": "x"})),
        (
            "share_file",
            json!({"path": "/nope.md", "with": CLIENT, "permission": "read"}),
        ),
        (
            "share_file",
            json!({"path": AGENDA, "with": "alex.morgan@northwind.example", "permission": "read"}),
        ),
        ("delete_file", json!({"path": "/nope.md"})),
        ("send_email", json!({"to": PRIYA})),
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
            "send_email",
            json!({"to": [PRIYA], "cc": [DANIEL], "subject": "Agenda", "body": "Here.", "attachments": [AGENDA, ROADMAP]}),
            json!({"to": [" Priya Shah <PRIYA.SHAH@Northwind.Example> "], "cc": ["daniel.okafor@NORTHWIND.example"], "subject": "Re: agenda", "body": "Attached, as asked.", "attachments": ["docs/q2-roadmap.md", " /docs/offsite-agenda.md"]}),
        ),
        (
            "share_file",
            json!({"path": AGENDA, "with": SAM, "permission": "read"}),
            json!({"path": "docs/offsite-agenda.md", "with": "Sam Patel <Sam.Patel@northwind.example>", "permission": "read"}),
        ),
        (
            "write_file",
            json!({"path": "/docs/notes.md", "content": "one text"}),
            json!({"path": " docs/notes.md", "content": "another text"}),
        ),
        (
            "create_event",
            json!({"title": "Sync", "start": "2026-03-05 10:00", "end": "2026-03-05 10:30", "attendees": [PRIYA]}),
            json!({"title": "Quick sync", "start": "2026-03-05T15:00", "end": "2026-03-05 15:30", "attendees": ["Priya <priya.shah@NORTHWIND.example>"]}),
        ),
        (
            "delete_file",
            json!({"path": AGENDA}),
            json!({"path": "docs/offsite-agenda.md "}),
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
            "send_email",
            json!({"to": [PRIYA], "subject": "Agenda", "body": "Here.", "attachments": [AGENDA]}),
            json!({"to": [PRIYA], "subject": "Agenda", "body": "Here.", "attachments": [PAYROLL]}),
        ),
        (
            "send_email",
            json!({"to": [PRIYA], "subject": "Agenda", "body": "Here."}),
            json!({"to": [CLIENT], "subject": "Agenda", "body": "Here."}),
        ),
        (
            "share_file",
            json!({"path": AGENDA, "with": SAM, "permission": "read"}),
            json!({"path": AGENDA, "with": SAM, "permission": "edit"}),
        ),
        (
            "create_event",
            json!({"title": "Sync", "start": "2026-03-05 10:00", "end": "2026-03-05 10:30"}),
            json!({"title": "Sync", "start": "2026-03-06 10:00", "end": "2026-03-06 10:30"}),
        ),
        (
            "write_file",
            json!({"path": "/docs/notes.md", "content": "x"}),
            json!({"path": "/docs/notes-2.md", "content": "x"}),
        ),
    ];
    for (tool, one, other) in pairs {
        assert_ne!(
            compared(tool, one.clone()),
            compared(tool, other.clone()),
            "{tool}: {one} and {other}"
        );
    }
}
