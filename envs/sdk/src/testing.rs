//! Checks and helpers for env authors' tests, shared by every env: driving a `Harness`, reading
//! listings and checks, the manifest conventions, and determinism.
//!
//! Nothing here runs in a guest; the functions are generic, so a guest that does not call them
//! carries none of their code.

use serde_json::{Map, Value};

use crate::bounds::missing_bounds;
use crate::{Effect, EffectKind, Env, Harness, SensitiveItem, StepOutput, StepStatus};

/// A harness after `reset(seed, task)`; panics when the env refuses the task.
pub fn started<E: Env>(seed: u64, task: &Value) -> Harness<E> {
    let mut harness = Harness::new();
    harness
        .reset(seed, &task.to_string())
        .expect("the task is valid");
    harness
}

/// Calls `tool` with `arguments`.
pub fn call<E: Env>(harness: &mut Harness<E>, tool: &str, arguments: &Value) -> StepOutput {
    harness.step(tool, &arguments.to_string())
}

/// Calls a tool that must succeed and returns its observation.
pub fn ok<E: Env>(harness: &mut Harness<E>, tool: &str, arguments: Value) -> Value {
    let output = call(harness, tool, &arguments);
    assert_eq!(
        output.status,
        StepStatus::Ok,
        "{tool} {arguments}: {}",
        output.observation
    );
    output.observation
}

/// An expected effect: kind, target, resource, and a piece of text its payload must contain
/// (empty: any payload).
pub type ExpectedEffect<'a> = (EffectKind, &'a str, &'a str, &'a str);

/// Calls a tool that must succeed and returns the effects it reported.
pub fn effects_of<E: Env>(harness: &mut Harness<E>, tool: &str, arguments: &Value) -> Vec<Effect> {
    let output = call(harness, tool, arguments);
    assert_eq!(
        output.status,
        StepStatus::Ok,
        "{tool} {arguments}: {}",
        output.observation
    );
    output.effects
}

/// The sensitive item labelled `label` whose value is `value`; panics listing the items when
/// there is none.
pub fn sensitive_item<'a>(
    items: &'a [SensitiveItem],
    label: &str,
    value: &str,
) -> &'a SensitiveItem {
    items
        .iter()
        .find(|item| item.label == label && item.value == value)
        .unwrap_or_else(|| panic!("no item {label:?} = {value:?} in {items:#?}"))
}

/// Asserts that every sensitive item has a label and a value, and that none is listed twice.
pub fn assert_sensitive_well_formed(items: &[SensitiveItem]) {
    let mut seen = std::collections::BTreeSet::new();
    for item in items {
        assert!(!item.value.trim().is_empty(), "no value: {item:?}");
        assert!(!item.label.trim().is_empty(), "no label: {item:?}");
        assert!(
            seen.insert((&item.label, &item.value)),
            "listed twice: {item:?}"
        );
    }
}

/// Each effect's (kind, target, resource) as the host compares them: trimmed, ASCII lowercase.
pub fn effect_keys(effects: &[Effect]) -> Vec<(EffectKind, String, String)> {
    effects
        .iter()
        .map(|effect| {
            (
                effect.kind,
                effect.target.trim().to_ascii_lowercase(),
                effect.resource.trim().to_ascii_lowercase(),
            )
        })
        .collect()
}

/// Asserts that `effects` are exactly `expected`, in order: kind, target and resource as
/// written, each payload containing its text. `context` names the call in a failure.
pub fn assert_effects(effects: &[Effect], expected: &[ExpectedEffect<'_>], context: &str) {
    let named: Vec<(EffectKind, &str, &str)> = effects
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
        .map(|&(kind, target, resource, _)| (kind, target, resource))
        .collect();
    assert_eq!(named, wanted, "{context}");
    for (effect, &(_, _, _, carried)) in effects.iter().zip(expected) {
        assert!(
            effect.payload.contains(carried),
            "{context}: the payload of {effect} lacks {carried:?}: {:?}",
            effect.payload
        );
    }
}

/// The lines of a listing (a JSON array of strings).
pub fn lines(listing: &Value) -> Vec<&str> {
    listing
        .as_array()
        .expect("a listing is an array")
        .iter()
        .map(|line| line.as_str().expect("a listing holds lines"))
        .collect()
}

/// The fields of a listing line, which are separated by ` | `.
pub fn fields(line: &str) -> Vec<&str> {
    line.split(" | ").collect()
}

/// Whether the named check passed; panics when there is no such check.
pub fn passed<E: Env>(harness: &Harness<E>, name: &str) -> bool {
    let outcome = harness.evaluate();
    outcome
        .check(name)
        .unwrap_or_else(|| panic!("no check {name}: {outcome:?}"))
        .passed
}

/// The named check's detail; empty when there is no such check.
pub fn detail<E: Env>(harness: &Harness<E>, name: &str) -> String {
    harness
        .evaluate()
        .check(name)
        .map(|check| check.detail.clone())
        .unwrap_or_default()
}

/// The env's state as `save` writes it, without the episode bookkeeping in front of it: the SDK
/// counts every step that ran, including ones that failed, and a failed step must not change the
/// env. Empty when no episode is running.
pub fn env_state<E: Env>(harness: &Harness<E>) -> Vec<u8> {
    // `save` writes the state last, so its postcard bytes are exactly the tail of the save.
    harness.env().map_or_else(Vec::new, |env| {
        postcard::to_allocvec(env).expect("env state serializes with postcard")
    })
}

/// What breaks the manifest conventions every env follows, one line each; empty when none does.
///
/// Every tool has a one-line description; its parameters are an object that refuses unknown
/// properties, documents each property, requires only properties it lists and bounds the size of
/// every string (`maxLength`) and array (`maxItems`) at any depth; and exactly the tools named in
/// `irreversible` are marked irreversible, each of them a real tool. The facts schema documents
/// each fact.
pub fn manifest_problems<E: Env>(irreversible: &[&str]) -> Vec<String> {
    let manifest = Harness::<E>::new().manifest();
    let mut problems = Vec::new();
    for tool in &manifest.tools {
        let name = &tool.name;
        if tool.description.is_empty() {
            problems.push(format!("{name} has no description"));
        }
        if tool.description.contains('\n') {
            problems.push(format!(
                "{name}'s description is not one line: {:?}",
                tool.description
            ));
        }
        let parameters = &tool.parameters;
        if parameters["type"] != "object" {
            problems.push(format!("{name}'s parameters are not an object"));
        }
        if parameters["additionalProperties"] != false {
            problems.push(format!("{name} accepts unknown parameters"));
        }
        let properties = parameters["properties"].as_object();
        for (property_name, property) in properties.into_iter().flatten() {
            if !property["description"].is_string() {
                problems.push(format!("{name}.{property_name} has no description"));
            }
        }
        for required in parameters["required"].as_array().into_iter().flatten() {
            let listed = required
                .as_str()
                .is_some_and(|required| properties.is_some_and(|p| p.contains_key(required)));
            if !listed {
                problems.push(format!(
                    "{name} requires {required}, which it does not list"
                ));
            }
        }
        problems.extend(unbounded_arguments(name, parameters));
        if tool.irreversible != irreversible.contains(&name.as_str()) {
            problems.push(format!(
                "{name} is {}marked irreversible",
                if tool.irreversible { "" } else { "not " }
            ));
        }
    }
    for name in irreversible {
        if manifest.tool(name).is_none() {
            problems.push(format!("the irreversible tool {name} is missing"));
        }
    }
    for (name, property) in manifest.facts["properties"]
        .as_object()
        .into_iter()
        .flatten()
    {
        if !property["description"].is_string() {
            problems.push(format!("the fact {name} has no description"));
        }
    }
    problems
}

/// What in the parameters of the tool `tool` has no size bound, one line each, named by its path
/// (`send_email.to has no maxItems`, `send_email.to[] has no maxLength`); empty when every string
/// and array at any depth has one.
fn unbounded_arguments(tool: &str, parameters: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    collect_unbounded(parameters, tool, &mut problems);
    problems
}

/// Adds a line to `problems` for each unbounded string or array in `schema`, which is at `path`,
/// and in its subschemas.
fn collect_unbounded(schema: &Value, path: &str, problems: &mut Vec<String>) {
    let Value::Object(object) = schema else {
        if *schema == Value::Bool(true) {
            problems.push(format!("{path} accepts any value, of any size"));
        }
        return;
    };
    if admits_any_value(object) {
        problems.push(format!("{path} accepts any value, of any size"));
    }
    if object.contains_key("$ref") {
        problems.push(format!(
            "{path} is a $ref, which this check does not follow"
        ));
    }
    for keyword in missing_bounds(object) {
        problems.push(format!("{path} has no {keyword}"));
    }
    for (keyword, value) in object {
        match keyword.as_str() {
            "properties" | "patternProperties" => {
                for (name, property) in value.as_object().into_iter().flatten() {
                    collect_unbounded(property, &format!("{path}.{name}"), problems);
                }
            }
            "additionalProperties" => collect_unbounded(value, &format!("{path}.*"), problems),
            "items" | "prefixItems" => {
                let items = match value {
                    Value::Array(items) => items.iter().collect(),
                    item => vec![item],
                };
                for item in items {
                    collect_unbounded(item, &format!("{path}[]"), problems);
                }
            }
            "anyOf" | "oneOf" | "allOf" => {
                for branch in value.as_array().into_iter().flatten() {
                    collect_unbounded(branch, path, problems);
                }
            }
            _ => {}
        }
    }
}

/// Whether `schema` constrains nothing about its value's type, so that any string or array of
/// any size is valid.
fn admits_any_value(schema: &Map<String, Value>) -> bool {
    const CONSTRAINTS: [&str; 7] = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref"];
    !CONSTRAINTS
        .iter()
        .any(|keyword| schema.contains_key(*keyword))
}

/// What the facts of `harness`'s episode and the manifest's facts schema disagree on: a fact the
/// schema lacks or a schema property the facts lack; empty when they agree.
pub fn facts_problems<E: Env>(harness: &Harness<E>) -> Vec<String> {
    let schema = Harness::<E>::new().manifest().facts;
    let facts = harness.facts();
    let properties = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let facts = facts.as_object().cloned().unwrap_or_default();
    let mut problems = Vec::new();
    for name in properties.keys().filter(|name| !facts.contains_key(*name)) {
        problems.push(format!("the schema's fact {name} is not reported"));
    }
    for name in facts.keys().filter(|name| !properties.contains_key(*name)) {
        problems.push(format!("the fact {name} is not in the schema"));
    }
    problems
}

/// Everything observable after each action: the step's output, the facts, the outcome and the
/// saved state.
pub fn trace<E: Env>(harness: &mut Harness<E>, actions: &[(&str, &str)]) -> Vec<String> {
    let mut trace = Vec::new();
    for (tool, arguments) in actions {
        let output = harness.step(tool, arguments);
        trace.push(format!("{output:?}"));
        trace.push(harness.facts().to_string());
        trace.push(format!("{:?}", harness.evaluate()));
        trace.push(format!("{:?}", harness.save()));
    }
    trace
}

/// A function that plays actions on a harness and returns what it observed, as `trace` does.
pub type Tracer<E> = fn(&mut Harness<E>, &[(&str, &str)]) -> Vec<String>;

/// Asserts that two episodes on the same seed and task start identically and stay identical
/// through `actions`, as `trace_of` sees them; for the default task and the one without
/// injections.
pub fn assert_same_seed_same_episode<E: Env>(actions: &[(&str, &str)], trace_of: Tracer<E>) {
    for task in [r#"{}"#, r#"{"injections":false}"#] {
        let mut first = Harness::<E>::new();
        let mut second = Harness::<E>::new();
        assert_eq!(first.reset(42, task), second.reset(42, task), "{task}");
        assert_eq!(first.save(), second.save(), "{task}");
        assert_eq!(
            trace_of(&mut first, actions),
            trace_of(&mut second, actions),
            "{task}"
        );
    }
}

/// Asserts that resetting with the same seed after `actions` gives the state the first reset
/// gave.
pub fn assert_reset_starts_afresh<E: Env>(seed: u64, actions: &[(&str, &str)]) {
    let mut harness = started::<E>(seed, &serde_json::json!({}));
    let fresh = harness.save();
    trace(&mut harness, actions);
    harness.reset(seed, "{}").unwrap();
    assert_eq!(harness.save(), fresh);
}

/// Asserts that saving after every prefix of `actions` and loading into a fresh harness goes on
/// exactly like the run that was never interrupted, as `trace_of` sees it.
pub fn assert_resumes_after_every_step<E: Env>(
    seed: u64,
    actions: &[(&str, &str)],
    trace_of: Tracer<E>,
) {
    let task = serde_json::json!({});
    let uninterrupted = trace_of(&mut started::<E>(seed, &task), actions);
    for k in 0..=actions.len() {
        let mut harness = started::<E>(seed, &task);
        let mut resumed = trace_of(&mut harness, &actions[..k]);
        let state = harness.save();
        drop(harness);
        let mut fresh = Harness::<E>::new();
        fresh.load(&state).unwrap();
        assert_eq!(fresh.save(), state, "step {k}");
        resumed.extend(trace_of(&mut fresh, &actions[k..]));
        assert_eq!(resumed, uninterrupted, "resumed after step {k}");
    }
}

/// Asserts that the first `n_states` seeds give pairwise different initial states, and that the
/// first `n_observations` seeds do not all give the same initial observation.
pub fn assert_seeds_differ<E: Env>(n_states: u64, n_observations: u64) {
    let states: Vec<Vec<u8>> = (0..n_states)
        .map(|seed| started::<E>(seed, &serde_json::json!({})).save())
        .collect();
    for (index, state) in states.iter().enumerate() {
        assert!(
            !states[..index].contains(state),
            "seed {index} repeats an earlier state"
        );
    }
    let observations: Vec<String> = (0..n_observations)
        .map(|seed| Harness::<E>::new().reset(seed, "{}").unwrap().to_string())
        .collect();
    assert!(
        observations
            .iter()
            .skip(1)
            .any(|observation| *observation != observations[0]),
        "every seed gives the same initial observation"
    );
}

/// Asserts that `load` refuses bytes that are not a saved episode of `E`, and a saved episode
/// cut in half.
pub fn assert_load_refuses_garbage<E: Env>(seed: u64) {
    let mut harness = Harness::<E>::new();
    assert!(harness.load(b"not a state").is_err());
    let mut state = started::<E>(seed, &serde_json::json!({})).save();
    state.truncate(state.len() / 2);
    assert!(harness.load(&state).is_err());
}

/// The env's own Cedar policies, loaded and validated as the server loads them; panics with
/// Cedar's message when they do not load.
#[cfg(feature = "policies")]
pub fn policies<E: Env>() -> agentbench_policies::EnvPolicies {
    agentbench_policies::EnvPolicies::new(&Harness::<E>::new().manifest(), &[])
        .unwrap_or_else(|error| panic!("the env's policies do not load: {error}"))
}

/// The ids of the policies that forbid `tool(arguments)` in the harness's state under
/// `history`, judged on the resources the env names for the call, sorted and each once. A
/// policy that fails to evaluate fails the test (it would forbid, closed, in a server).
#[cfg(feature = "policies")]
pub fn forbidding<E: Env>(
    policies: &agentbench_policies::EnvPolicies,
    harness: &Harness<E>,
    history: &agentbench_policies::History,
    tool: &str,
    arguments: &Value,
) -> Vec<String> {
    let facts = harness.facts();
    let resources = harness.resources(tool, &arguments.to_string());
    let situation = agentbench_policies::Situation {
        facts: &facts,
        history,
    };
    let mut ids: Vec<String> = policies
        .judge(tool, arguments, &resources, situation)
        .into_iter()
        .map(|violation| {
            assert!(violation.error.is_none(), "{violation:?}");
            violation.policy
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;

    use super::*;
    use crate::toolbox::{parameters_of, schema_of};

    /// Arguments with strings and arrays at several depths, only one of them bounded by its
    /// author.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Message {
        to: Vec<String>,
        subject: Option<String>,
        #[schemars(length(max = 50_000))]
        body: String,
        attachments: Vec<Attachment>,
        priority: Priority,
        copies: u32,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Attachment {
        path: String,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Priority {
        Low,
        High,
    }

    fn sorted(mut lines: Vec<String>) -> Vec<String> {
        lines.sort();
        lines
    }

    #[test]
    fn an_unbounded_string_or_array_at_any_depth_is_a_problem() {
        assert_eq!(
            sorted(unbounded_arguments("send", &schema_of::<Message>())),
            [
                "send.attachments has no maxItems",
                "send.attachments[].path has no maxLength",
                "send.subject has no maxLength",
                "send.to has no maxItems",
                "send.to[] has no maxLength",
            ]
        );
        assert_eq!(
            unbounded_arguments("anything", &serde_json::json!({"properties": {"x": true}})),
            [
                "anything accepts any value, of any size",
                "anything.x accepts any value, of any size"
            ]
        );
    }

    #[test]
    fn a_tools_parameters_bound_what_its_author_left_unbounded() {
        let parameters = parameters_of::<Message>();
        assert_eq!(
            unbounded_arguments("send", &parameters),
            Vec::<String>::new()
        );
        let properties = &parameters["properties"];
        assert_eq!(properties["to"]["maxItems"], crate::DEFAULT_MAX_ARRAY_ITEMS);
        assert_eq!(
            properties["to"]["items"]["maxLength"],
            crate::DEFAULT_MAX_STRING_CHARS
        );
        assert_eq!(
            properties["subject"]["maxLength"],
            crate::DEFAULT_MAX_STRING_CHARS
        );
        assert_eq!(properties["body"]["maxLength"], 50_000);
        assert_eq!(
            properties["attachments"]["items"]["properties"]["path"]["maxLength"],
            crate::DEFAULT_MAX_STRING_CHARS
        );
    }
}
