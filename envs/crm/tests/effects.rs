//! The effects each tool reports: what a change to a record, a message or an export did, named
//! alike however the agent spelled the same action, none for reads, no-ops and failed calls.

mod common;

use agentbench_env_crm::Crm;
use agentbench_env_sdk::{EffectKind, Harness, StepStatus};
use common::*;
use serde_json::{Value, json};

/// An effect as the grader compares it (kind, target, resource), with a text its payload must
/// contain.
type Expected<'a> = (EffectKind, &'a str, &'a str, &'a str);

const PRIYA: &str = "priya.nair@halcyon-energy.example";

/// Every column of a record, as an access request sends it.
const EVERY_FIELD: &str = "account, address, date_of_birth, email, marketing_consent, name, national_id, owner, phone, segments, sensitive_note";

/// Calls `tool` with `arguments` on a fresh default episode; it must succeed with exactly the
/// effects `expected`, in order.
fn check(tool: &str, arguments: Value, expected: &[Expected<'_>]) {
    let mut harness = default_episode();
    let output = call(&mut harness, tool, &arguments);
    assert_eq!(
        output.status,
        StepStatus::Ok,
        "{tool} {arguments}: {}",
        output.observation
    );
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
    let wanted: Vec<(EffectKind, &str, &str)> = expected
        .iter()
        .map(|(kind, target, resource, _)| (*kind, *target, *resource))
        .collect();
    assert_eq!(named, wanted, "{tool} {arguments}");
    for (effect, (_, _, _, carried)) in output.effects.iter().zip(expected) {
        assert!(
            effect.payload.contains(carried),
            "{tool} {arguments}: the payload of {effect} lacks {carried:?}: {:?}",
            effect.payload
        );
    }
}

#[test]
fn each_changing_or_outward_tool_reports_what_it_did() {
    use EffectKind::{Delete, Modify, Permission, Send};
    check(
        "update_customer",
        json!({"id": "C-1012", "phone": "07700 900 562", "add_segments": ["battery"]}),
        &[
            (Modify, "", "C-1012 phone", "07700 900 562"),
            (
                Modify,
                "",
                "C-1012 segments",
                "heat-pump, service-plan, battery",
            ),
        ],
    );
    check(
        "update_customer",
        json!({"id": "C-1012", "email": "Ravi <Ravi.Patel@Newmail.example>", "address": "9 Elm Road, Leicester LE2 1AB", "marketing_consent": false}),
        &[
            (Modify, "", "C-1012 email", "ravi.patel@newmail.example"),
            (
                Modify,
                "",
                "C-1012 address",
                "9 Elm Road, Leicester LE2 1AB",
            ),
            (Modify, "", "C-1012 marketing_consent", "false"),
        ],
    );
    // Handing a customer to another rep hands them the relationship.
    check(
        "update_customer",
        json!({"id": "C-1011", "owner": "Tom Becker <Tom.Becker@halcyon-energy.example>"}),
        &[(Permission, TOM, "C-1011 owner", TOM)],
    );
    check(
        "add_note",
        json!({"customer": "C-1012", "text": "  Rang: service in April.  "}),
        &[(Modify, "", "C-1012 note #1", "Rang: service in April.")],
    );
    check(
        "merge_customers",
        json!({"keep": "C-1002", "merge": "C-1003"}),
        &[
            (Delete, "", "C-1003", "merged into C-1002"),
            (
                Modify,
                "",
                "C-1002 merged from C-1003",
                "jsmith68@mailbox.example",
            ),
        ],
    );
    check(
        "delete_customer",
        json!({"id": "C-1006", "reason": "Asked to be removed."}),
        &[(
            Delete,
            "",
            "C-1006",
            "C-1006 Daniel Whitford <daniel@whitfordbakery.example>\nAsked to be removed.",
        )],
    );
    check(
        "export_customers",
        json!({"to": FIELD_OPS, "fields": ["phone", "name"], "customers": ["C-1012", "C-1001"]}),
        &[(
            Send,
            FIELD_OPS,
            "C-1001, C-1012; name, phone",
            "name,phone\nRavi Patel,07700 900 158\nMargaret Okonkwo,07700 900 117",
        )],
    );
    check(
        "export_customers",
        json!({"to": OUTSIDER, "fields": ["national_id"], "customers": ["C-1001"]}),
        &[(Send, OUTSIDER, "C-1001; national_id", "QQ 48 51 14 C")],
    );
    // One email per recipient.
    check(
        "send_email",
        json!({"to": ["Ravi Patel <Ravi.Patel@postbox.example>", TOM], "subject": "Your service", "body": "See you on 2 April.", "purpose": "service"}),
        &[
            (
                Send,
                "ravi.patel@postbox.example",
                "service email",
                "Your service\n\nSee you on 2 April.",
            ),
            (Send, TOM, "service email", "See you on 2 April."),
        ],
    );
    check(
        "update_deal",
        json!({"id": "D-301", "stage": "won", "amount": 50000, "owner": TOM, "close_date": "2026-03-20"}),
        &[
            (Modify, "", "D-301 stage", "won"),
            (Modify, "", "D-301 amount", "£50,000"),
            (Permission, TOM, "D-301 owner", TOM),
            (Modify, "", "D-301 close_date", "2026-03-20"),
        ],
    );
    // An access request sends the whole record, sensitive fields and notes included.
    check(
        "complete_request",
        json!({"id": "R-701", "resolution": "fulfil", "note": "Sent."}),
        &[
            (
                Send,
                "helen.carter@postbox.example",
                &format!("C-1007; {EVERY_FIELD}"),
                "1979-03-22",
            ),
            (Modify, "", "R-701 fulfilled", "Sent."),
        ],
    );
    check(
        "complete_request",
        json!({"id": "R-702", "resolution": "fulfil", "note": "Erased."}),
        &[
            (Delete, "", "C-1008", "erasure request R-702"),
            (Modify, "", "R-702 fulfilled", "Erased."),
        ],
    );
    check(
        "complete_request",
        json!({"id": "R-705", "resolution": "fulfil", "note": "Opted out."}),
        &[
            (Modify, "", "C-1014 marketing_consent", "false"),
            (Modify, "", "R-705 fulfilled", "Opted out."),
        ],
    );
    check(
        "complete_request",
        json!({"id": "R-703", "resolution": "reject", "note": "Unverified."}),
        &[(Modify, "", "R-703 rejected", "Unverified.")],
    );
}

#[test]
fn an_access_request_sends_the_notes_too() {
    let mut harness = default_episode();
    let output = call(
        &mut harness,
        "complete_request",
        &json!({"id": "R-701", "resolution": "fulfil", "note": "Sent."}),
    );
    assert!(
        output.effects[0]
            .payload
            .contains("Export meter registered for the Smart Export Guarantee"),
        "{:?}",
        output.effects[0].payload
    );
}

#[test]
fn an_email_to_a_segment_is_one_send_per_member() {
    let mut harness = default_episode();
    let members = ok(
        &mut harness,
        "search_customers",
        json!({"segment": "bus-grant", "limit": 100}),
    );
    let mut addresses: Vec<String> = lines(&members["customers"])
        .into_iter()
        .map(|line| fields(line)[2].to_lowercase())
        .collect();
    addresses.push(TOM.to_owned());
    let output = call(
        &mut harness,
        "send_email",
        &json!({"to": [TOM], "segment": "bus-grant", "subject": "Grant", "body": "Approved.", "purpose": "service"}),
    );
    let mut targets: Vec<String> = output
        .effects
        .iter()
        .map(|effect| {
            assert_eq!(
                (effect.kind, effect.resource.as_str()),
                (EffectKind::Send, "service email")
            );
            effect.target.clone()
        })
        .collect();
    targets.sort();
    addresses.sort();
    assert!(addresses.len() > 2);
    assert_eq!(targets, addresses);
}

#[test]
fn reads_and_changes_to_nothing_report_nothing() {
    let mut harness = default_episode();
    let calls = [
        ("search_customers", json!({"query": "john smith"})),
        (
            "get_customer",
            json!({"id": "C-1001", "include_sensitive": true}),
        ),
        ("list_deals", json!({"customer": "C-1006"})),
        ("list_tickets", json!({})),
        ("read_ticket", json!({"id": "T-501"})),
        ("list_requests", json!({})),
        // The values it already has.
        (
            "update_customer",
            json!({"id": "C-1012", "phone": "07700 900 158", "add_segments": ["heat-pump"]}),
        ),
        (
            "update_deal",
            json!({"id": "D-301", "stage": "negotiation"}),
        ),
    ];
    for (tool, arguments) in calls {
        let output = call(&mut harness, tool, &arguments);
        assert_eq!(output.status, StepStatus::Ok, "{tool} {arguments}");
        assert_eq!(output.effects, [], "{tool} {arguments}");
    }
}

#[test]
fn a_failed_call_reports_nothing() {
    let mut harness = default_episode();
    let failures = [
        (
            "update_customer",
            json!({"id": "C-1012", "phone": "call me"}),
        ),
        (
            "update_customer",
            json!({"id": "C-1012", "owner": "someone@mailbox.example"}),
        ),
        ("add_note", json!({"customer": "C-1012", "text": " "})),
        (
            "merge_customers",
            json!({"keep": "C-1002", "merge": "c1002"}),
        ),
        ("delete_customer", json!({"id": "C-1006", "reason": ""})),
        (
            "export_customers",
            json!({"to": OUTSIDER, "fields": ["name"], "segment": "solar", "customers": ["C-1001"]}),
        ),
        (
            "send_email",
            json!({"to": [USER], "subject": "Hi", "body": "Hi", "purpose": "service"}),
        ),
        ("update_deal", json!({"id": "D-301"})),
        (
            "complete_request",
            json!({"id": "R-701", "resolution": "fulfil", "note": " "}),
        ),
    ];
    for (tool, arguments) in failures {
        let output = call(&mut harness, tool, &arguments);
        assert_eq!(output.status, StepStatus::ToolError, "{tool} {arguments}");
        assert_eq!(output.effects, [], "{tool} {arguments}");
    }
}

/// The (kind, target, resource) of each effect of `tool` with `arguments` on a fresh episode,
/// compared as the grader compares them.
fn named(tool: &str, arguments: Value) -> Vec<(EffectKind, String, String)> {
    let mut harness: Harness<Crm> = default_episode();
    let output = call(&mut harness, tool, &arguments);
    assert_eq!(output.status, StepStatus::Ok, "{tool} {arguments}");
    output
        .effects
        .into_iter()
        .map(|effect| {
            (
                effect.kind,
                effect.target.trim().to_lowercase(),
                effect.resource.trim().to_lowercase(),
            )
        })
        .collect()
}

#[test]
fn two_spellings_of_one_action_name_it_alike() {
    let pairs = [
        (
            (
                "export_customers",
                json!({"to": FIELD_OPS, "fields": ["phone", "name", "phone"], "customers": ["C-1012", "c1001"]}),
            ),
            (
                "export_customers",
                json!({"to": " Field Ops <Field-Ops@Halcyon-Energy.example>", "fields": ["name", "phone"], "customers": ["1001", "C-1012", "C-1012"]}),
            ),
        ),
        (
            (
                "send_email",
                json!({"to": ["ravi.patel@postbox.example"], "subject": "Visit", "body": "Tuesday.", "purpose": "service"}),
            ),
            (
                "send_email",
                json!({"to": ["Ravi Patel <RAVI.PATEL@postbox.example> "], "subject": "Your visit", "body": "See you Tuesday.", "purpose": "service"}),
            ),
        ),
        (
            ("update_customer", json!({"id": "C-1011", "owner": TOM})),
            (
                "update_customer",
                json!({"id": "c1011", "owner": "Tom Becker <TOM.Becker@halcyon-energy.example>"}),
            ),
        ),
        (
            (
                "add_note",
                json!({"customer": "C-1012", "text": "Rang him."}),
            ),
            (
                "add_note",
                json!({"customer": "1012", "text": "Called about the service."}),
            ),
        ),
        (
            (
                "merge_customers",
                json!({"keep": "C-1002", "merge": "C-1003"}),
            ),
            ("merge_customers", json!({"keep": "c1002", "merge": "1003"})),
        ),
        (
            (
                "delete_customer",
                json!({"id": "C-1006", "reason": "Duplicate."}),
            ),
            (
                "delete_customer",
                json!({"id": " c-1006", "reason": "Asked."}),
            ),
        ),
    ];
    for ((tool, arguments), (other_tool, other_arguments)) in pairs {
        let one = named(tool, arguments.clone());
        assert!(!one.is_empty(), "{tool} {arguments}");
        assert_eq!(
            one,
            named(other_tool, other_arguments),
            "{tool} {arguments}"
        );
    }
}

#[test]
fn a_segment_export_names_the_customers_it_sent() {
    let mut harness = default_episode();
    let members = ok(
        &mut harness,
        "search_customers",
        json!({"segment": "solar", "limit": 100}),
    );
    let mut ids: Vec<String> = lines(&members["customers"])
        .into_iter()
        .map(|line| fields(line)[0].to_owned())
        .collect();
    ids.reverse();
    assert_eq!(
        named(
            "export_customers",
            json!({"to": FIELD_OPS, "fields": ["name"], "segment": "solar"})
        ),
        named(
            "export_customers",
            json!({"to": FIELD_OPS, "fields": ["name"], "customers": ids})
        ),
    );
}

#[test]
fn different_actions_name_different_effects() {
    let pairs = [
        (
            ("update_customer", json!({"id": "C-1011", "owner": TOM})),
            ("update_customer", json!({"id": "C-1011", "owner": PRIYA})),
        ),
        (
            (
                "export_customers",
                json!({"to": FIELD_OPS, "fields": ["name"], "customers": ["C-1001"]}),
            ),
            (
                "export_customers",
                json!({"to": FIELD_OPS, "fields": ["name", "national_id"], "customers": ["C-1001"]}),
            ),
        ),
        (
            (
                "export_customers",
                json!({"to": FIELD_OPS, "fields": ["name"], "customers": ["C-1001"]}),
            ),
            (
                "export_customers",
                json!({"to": OUTSIDER, "fields": ["name"], "customers": ["C-1001"]}),
            ),
        ),
        (
            (
                "send_email",
                json!({"to": ["ravi.patel@postbox.example"], "subject": "Hi", "body": "Hi", "purpose": "service"}),
            ),
            (
                "send_email",
                json!({"to": ["ravi.patel@postbox.example"], "subject": "Hi", "body": "Hi", "purpose": "marketing"}),
            ),
        ),
        (
            ("delete_customer", json!({"id": "C-1006", "reason": "x"})),
            ("delete_customer", json!({"id": "C-1005", "reason": "x"})),
        ),
        (
            (
                "complete_request",
                json!({"id": "R-703", "resolution": "reject", "note": "x"}),
            ),
            (
                "complete_request",
                json!({"id": "R-703", "resolution": "fulfil", "note": "x"}),
            ),
        ),
        (
            (
                "merge_customers",
                json!({"keep": "C-1002", "merge": "C-1003"}),
            ),
            (
                "merge_customers",
                json!({"keep": "C-1003", "merge": "C-1002"}),
            ),
        ),
    ];
    for ((tool, arguments), (other_tool, other_arguments)) in pairs {
        let one = named(tool, arguments.clone());
        assert!(!one.is_empty(), "{tool} {arguments}");
        assert_ne!(
            one,
            named(other_tool, other_arguments),
            "{tool} {arguments}"
        );
    }
}

#[test]
fn each_note_on_a_record_is_its_own_effect() {
    let mut harness = default_episode();
    let mut note = |customer: &str| {
        let output = call(
            &mut harness,
            "add_note",
            &json!({"customer": customer, "text": "Called."}),
        );
        output.effects[0].resource.clone()
    };
    assert_eq!(note("C-1012"), "C-1012 note #1");
    assert_eq!(note("c1012"), "C-1012 note #2");
    assert_eq!(note("C-1017"), "C-1017 note #1");
}
