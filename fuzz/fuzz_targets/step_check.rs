//! The step pipeline up to the sandbox call, as the runtime runs it: a step request parsed, the
//! tool's arguments validated against its JSON Schema (`ToolArguments`), then the call judged
//! by the env's Cedar policies with the resources its guest names (guest output, parsed as the
//! host parses it) and the episode's facts. The first byte picks the built-in env; the rest is
//! `{"step": BODY, "resources": [...], "facts": {...}, "history": {...}}`.
//!
//! Nothing may panic; a judgement answered from the policies' cache must equal the first one.

#![no_main]

use std::sync::OnceLock;

use agentbench_env_contract::Resource;
use agentbench_policies::{EnvPolicies, History, Situation};
use agentbench_wire::requests::{StepRequest, from_object, parse_object};
use agentbench_wire::{Action, ToolArguments};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use serde_json::value::RawValue;

/// Each built-in env's compiled argument schemas and policies, built once.
fn envs() -> &'static [(ToolArguments, EnvPolicies, Vec<String>)] {
    static ENVS: OnceLock<Vec<(ToolArguments, EnvPolicies, Vec<String>)>> = OnceLock::new();
    ENVS.get_or_init(|| {
        (0..8)
            .map(|pick| {
                let manifest = agentbench_fuzz::builtin_manifest(pick);
                let tools = manifest
                    .tools
                    .iter()
                    .map(|tool| tool.name.clone())
                    .collect();
                (
                    ToolArguments::new(&manifest).expect("built-in schemas compile"),
                    EnvPolicies::new(&manifest, &[]).expect("built-in policies load"),
                    tools,
                )
            })
            .collect()
    })
}

#[derive(serde::Deserialize)]
struct Input {
    step: Box<RawValue>,
    #[serde(default)]
    resources: Option<Box<RawValue>>,
    #[serde(default)]
    facts: Value,
    #[serde(default)]
    history: Option<Value>,
}

fuzz_target!(|data: &[u8]| {
    let Some((&env, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(input) = serde_json::from_str::<Input>(text) else {
        return;
    };
    let Ok(step) = parse_object::<StepRequest>(input.step.get()) else {
        return;
    };
    let Action::Tool { tool, arguments } = step.action else {
        return;
    };
    let (schemas, policies, tools) = &envs()[usize::from(env) % 8];
    match schemas.validate(&tool, &arguments) {
        Some(issues) if issues.is_empty() => {}
        _ => return,
    }
    let resources: Vec<Resource> = match &input.resources {
        None => Vec::new(),
        Some(text) => match serde_json::from_str(text.get()) {
            Ok(resources) => resources,
            Err(_) => return,
        },
    };
    let history: History = match input.history.map(from_object).transpose() {
        Ok(history) => history.unwrap_or_default(),
        Err(_) => return,
    };
    let now = Situation {
        facts: &input.facts,
        history: &history,
    };
    let first = policies.judge(&tool, &arguments, &resources, now);
    let again = policies.judge(&tool, &arguments, &resources, now);
    assert_eq!(
        format!("{first:?}"),
        format!("{again:?}"),
        "the cache changed a judgement"
    );
    let _ = policies.mask(tools, now);
});
