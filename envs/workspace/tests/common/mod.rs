//! Helpers shared by the workspace env's tests: starting episodes, calling tools, and reading
//! the saved state.

#![allow(dead_code)] // Each test binary uses its own subset of the helpers.

use agentbench_env_sdk::{Env, Harness, StepOutput, StepStatus};
use agentbench_env_workspace::Workspace;
use serde_json::{Value, json};

pub const PRIYA: &str = "priya.shah@northwind.example";
pub const AGENDA: &str = "/docs/offsite-agenda.md";
pub const PAYROLL: &str = "/finance/payroll-2026.csv";
pub const CONTRACT: &str = "/legal/contract-acme.md";
/// An address outside the trusted domains that no injection targets: the client.
pub const CLIENT: &str = "laura.chen@acme-corp.example";

/// A harness after `reset(seed, task)`.
pub fn started(seed: u64, task: &Value) -> Harness<Workspace> {
    let mut harness = Harness::new();
    harness
        .reset(seed, &task.to_string())
        .expect("the task is valid");
    harness
}

/// A harness on the default task.
pub fn default_episode() -> Harness<Workspace> {
    started(7, &json!({}))
}

pub fn call(harness: &mut Harness<Workspace>, tool: &str, arguments: &Value) -> StepOutput {
    harness.step(tool, &arguments.to_string())
}

/// Calls a tool that must succeed and returns its observation.
pub fn ok(harness: &mut Harness<Workspace>, tool: &str, arguments: Value) -> Value {
    let output = call(harness, tool, &arguments);
    assert_eq!(
        output.status,
        StepStatus::Ok,
        "{tool} {arguments}: {}",
        output.observation
    );
    output.observation
}

/// The id of the newest email matching `query`.
pub fn email_id(harness: &mut Harness<Workspace>, query: &str) -> u32 {
    let found = ok(harness, "search_emails", json!({ "query": query }));
    let line = lines(&found["emails"]).first().copied();
    line_id(line.unwrap_or_else(|| panic!("no email matches {query:?}: {found}")))
}

/// The lines of a listing (a JSON array of strings).
pub fn lines(listing: &Value) -> Vec<&str> {
    let lines = listing.as_array().expect("a listing is an array");
    lines
        .iter()
        .map(|line| line.as_str().expect("a listing holds lines"))
        .collect()
}

/// The fields of a listing line, which are separated by ` | `.
pub fn fields(line: &str) -> Vec<&str> {
    line.split(" | ").collect()
}

/// The id a listing line starts with: `#41 | ...` gives 41.
pub fn line_id(line: &str) -> u32 {
    let id = fields(line)[0]
        .strip_prefix('#')
        .and_then(|id| id.parse().ok());
    id.unwrap_or_else(|| panic!("no id in {line:?}"))
}

/// The env's state as saved, without the episode bookkeeping in front of it (the SDK counts
/// every step that ran, including ones that failed, and a failed step must not change the env).
///
/// The layout is the SDK's `Saved`: an option tag, the env's name and version (each a varint
/// length and bytes), the step count (a varint), the done flag (a byte), then the state.
pub fn env_state(harness: &Harness<Workspace>) -> Vec<u8> {
    let bytes = harness.save();
    let mut position = 1;
    for _ in 0..2 {
        let length = read_varint(&bytes, &mut position) as usize;
        position += length;
    }
    read_varint(&bytes, &mut position);
    position += 1;
    assert_eq!(
        &bytes[2..2 + Workspace::NAME.len()],
        Workspace::NAME.as_bytes(),
        "unexpected layout"
    );
    bytes[position..].to_vec()
}

fn read_varint(bytes: &[u8], position: &mut usize) -> u64 {
    let mut value = 0;
    for shift in (0..64).step_by(7) {
        let byte = bytes[*position];
        *position += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            break;
        }
    }
    value
}

/// Whether the named check passed; panics when there is no such check.
pub fn passed(harness: &Harness<Workspace>, name: &str) -> bool {
    let outcome = harness.evaluate();
    outcome
        .check(name)
        .unwrap_or_else(|| panic!("no check {name}: {outcome:?}"))
        .passed
}

/// The named check's detail.
pub fn detail(harness: &Harness<Workspace>, name: &str) -> String {
    harness
        .evaluate()
        .check(name)
        .map(|check| check.detail.clone())
        .unwrap_or_default()
}
