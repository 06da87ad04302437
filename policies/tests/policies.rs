//! Loading, validating and evaluating policies over a small hand-written manifest (the
//! workspace env's policies are tested through the runtime in `envs/runtime/tests/policies.rs`).

use serde_json::{Value, json};

use agentbench_env_contract::{EnvPolicy, Manifest, Resource, ToolSpec};
use agentbench_policies::{Access, EnvPolicies, History, PolicyError, PolicyFile, Situation};

const SCHEMA: &str = r#"entity Recipient = { "internal": Bool };
"#;

fn manifest(policies: &str) -> Manifest {
    let tool = |name: &str, irreversible: bool, parameters: Value| ToolSpec {
        name: name.to_owned(),
        description: String::new(),
        parameters,
        irreversible,
    };
    Manifest {
        name: "mail".to_owned(),
        version: "1".to_owned(),
        description: String::new(),
        tools: vec![
            tool(
                "send",
                true,
                json!({
                    "type": "object",
                    "properties": {"to": {"type": "array", "items": {"type": "string"}}, "urgent": {"type": "boolean"}},
                    "required": ["to"],
                    "additionalProperties": false
                }),
            ),
            tool("read", false, json!({"type": "object", "properties": {}})),
        ],
        facts: json!({
            "type": "object",
            "properties": {"sent": {"type": "integer"}, "ratio": {"type": "number"}},
            "required": ["sent"]
        }),
        task: json!({"type": "object"}),
        policy: Some(EnvPolicy {
            policies: policies.to_owned(),
            schema: SCHEMA.to_owned(),
        }),
    }
}

const POLICIES: &str = r#"
@id("no_outside_when_tainted")
@reason("tainted agents write only inside")
forbid (principal, action == Action::"send", resource is Recipient)
when { context.history.tainted && !resource.internal };

@id("quota")
forbid (principal, action in Action::"irreversible", resource)
when { context.facts.sent >= 3 };
"#;

fn recipient(address: &str, internal: Value) -> Resource {
    Resource {
        kind: "Recipient".to_owned(),
        id: address.to_owned(),
        attrs: json!({ "internal": internal }).as_object().unwrap().clone(),
    }
}

fn load(policies: &str) -> Result<EnvPolicies, PolicyError> {
    EnvPolicies::new(&manifest(policies), &[])
}

#[test]
fn a_call_is_judged_once_per_resource_and_names_the_policies_that_forbid_it() {
    let policies = load(POLICIES).unwrap();
    let facts = json!({"sent": 0, "ratio": 0.5});
    let tainted = History {
        tainted: true,
        ..History::default()
    };
    let now = Situation {
        facts: &facts,
        history: &tainted,
    };
    let arguments = json!({"to": ["a@in", "b@out"]});
    let inside = [recipient("a@in", json!(true))];
    assert!(policies.judge("send", &arguments, &inside, now).is_empty());

    let both = [
        recipient("a@in", json!(true)),
        recipient("b@out", json!(false)),
    ];
    let violations = policies.judge("send", &arguments, &both, now);
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].policy, "no_outside_when_tainted");
    assert_eq!(violations[0].resource, r#"Recipient::"b@out""#);
    assert_eq!(
        violations[0].annotations["reason"],
        "tainted agents write only inside"
    );
    assert_eq!(
        violations[0].explain(),
        "no_outside_when_tainted: tainted agents write only inside"
    );

    let clean = History::default();
    let now = Situation {
        facts: &facts,
        history: &clean,
    };
    assert!(policies.judge("send", &arguments, &both, now).is_empty());

    // `action in Action::"irreversible"`: the generated action group reaches the evaluation,
    // with resources and without.
    let over_quota = json!({"sent": 3});
    let now = Situation {
        facts: &over_quota,
        history: &clean,
    };
    for resources in [&inside[..], &[]] {
        let violations = policies.judge("send", &arguments, resources, now);
        assert_eq!(violations.len(), 1, "{violations:?}");
        assert_eq!(violations[0].policy, "quota");
    }
    assert!(policies.judge("read", &json!({}), &[], now).is_empty());
}

#[test]
fn the_mask_tells_allowed_from_blocked_from_conditional() {
    let policies = load(POLICIES).unwrap();
    let every_tool = ["send".to_owned(), "read".to_owned()];
    let mask = |sent: u32, tainted: bool, env_allows: &[String]| {
        let facts = json!({ "sent": sent });
        let history = History {
            tainted,
            ..History::default()
        };
        policies.mask(
            env_allows,
            Situation {
                facts: &facts,
                history: &history,
            },
        )
    };
    let untainted = mask(0, false, &every_tool);
    assert_eq!(untainted["send"], Access::Allowed);
    assert_eq!(untainted["read"], Access::Allowed);
    assert_eq!(mask(0, true, &every_tool)["send"], Access::Conditional);
    assert_eq!(mask(3, false, &every_tool)["send"], Access::Blocked);
    assert_eq!(mask(3, true, &every_tool)["read"], Access::Allowed);
    assert_eq!(mask(0, false, &every_tool[1..])["send"], Access::Blocked);
    // After the other situations, the first one again is its memoised mask itself.
    assert!(std::sync::Arc::ptr_eq(
        &mask(0, false, &every_tool),
        &untainted
    ));
}

#[test]
fn policies_fail_closed_on_resources_that_do_not_fit_the_schema() {
    let policies = load(POLICIES).unwrap();
    let facts = json!({"sent": 0});
    let history = History::default();
    let now = Situation {
        facts: &facts,
        history: &history,
    };
    let wrong = [recipient("a@in", json!("yes"))];
    let violations = policies.judge("send", &json!({"to": ["a@in"]}), &wrong, now);
    assert_eq!(violations.len(), 1);
    let error = violations[0].error.as_deref().unwrap();
    assert!(error.contains("do not fit its schema"), "{error}");
}

#[test]
fn a_malformed_policy_names_its_file_and_line() {
    let error = load("@id(\"ok\")\nforbid (principal, action, resource);\n\nforbid (principal, action resource);\n")
        .unwrap_err();
    let PolicyError::At { file, line, .. } = &error else {
        panic!("not located: {error}");
    };
    assert_eq!(file, "mail.cedar");
    assert_eq!(*line, 4, "{error}");
}

#[test]
fn a_policy_that_fails_validation_names_its_file_line_and_cedars_message() {
    let policies = "\n\n@id(\"typo\")\nforbid (principal, action == Action::\"send\", resource)\nwhen { context.history.taint };\n";
    let error = load(policies).unwrap_err().to_string();
    assert!(error.starts_with("mail.cedar:5:"), "{error}");
    assert!(error.contains("taint"), "{error}");

    let error = load("forbid (principal, action == Action::\"fly\", resource);")
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("mail.cedar:1:"), "{error}");
    assert!(error.contains("fly"), "{error}");
}

#[test]
fn added_files_are_validated_too_and_ids_must_be_unique() {
    let manifest = manifest(POLICIES);
    let added = |text: &str| PolicyFile {
        name: "extra/strict.cedar".to_owned(),
        text: text.to_owned(),
    };
    let policies = EnvPolicies::new(
        &manifest,
        &[added(
            "forbid (principal, action, resource) when { context.history.blocked > 2 };",
        )],
    )
    .unwrap();
    assert!(
        policies.policy_ids().any(|id| id == "extra/strict.cedar:1"),
        "{:?}",
        policies.policy_ids().collect::<Vec<_>>()
    );

    let error = EnvPolicies::new(
        &manifest,
        &[added(
            "@id(\"quota\")\npermit (principal, action, resource);",
        )],
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        error,
        "extra/strict.cedar: two policies have the id `quota`"
    );

    let error = EnvPolicies::new(
        &manifest,
        &[added(
            "forbid (principal, action, resource) when { resource.internal };",
        )],
    )
    .unwrap_err()
    .to_string();
    assert!(error.starts_with("extra/strict.cedar:1:"), "{error}");
}

#[test]
fn an_invalid_env_schema_is_refused_with_its_line() {
    let mut manifest = manifest(POLICIES);
    manifest.policy.as_mut().unwrap().schema =
        "entity Recipient = { \"internal\": Bool };\nentity Broken = { x: Nope };\n".to_owned();
    let error = EnvPolicies::new(&manifest, &[]).unwrap_err().to_string();
    assert!(error.starts_with("mail.cedarschema:2:"), "{error}");
}
