//! Helpers shared by the workspace env's tests: starting episodes, calling tools, and reading
//! the saved state.

#![allow(dead_code)] // Each test binary uses its own subset of the helpers.

use agentbench_env_sdk::{Harness, testing};
use agentbench_env_workspace::Workspace;
use serde_json::{Value, json};

// Each test binary uses its own subset of the shared helpers.
#[allow(unused_imports)]
pub use agentbench_env_sdk::testing::{call, detail, env_state, fields, lines, ok, passed};

pub const PRIYA: &str = "priya.shah@northwind.example";
pub const AGENDA: &str = "/docs/offsite-agenda.md";
pub const PAYROLL: &str = "/finance/payroll-2026.csv";
pub const CONTRACT: &str = "/legal/contract-acme.md";
/// An address outside the trusted domains that no injection targets: the client.
pub const CLIENT: &str = "laura.chen@acme-corp.example";

/// A harness after `reset(seed, task)`.
pub fn started(seed: u64, task: &Value) -> Harness<Workspace> {
    testing::started(seed, task)
}

/// A harness on the default task.
pub fn default_episode() -> Harness<Workspace> {
    started(7, &json!({}))
}

/// The id of the newest email matching `query`.
pub fn email_id(harness: &mut Harness<Workspace>, query: &str) -> u32 {
    let found = ok(harness, "search_emails", json!({ "query": query }));
    let line = lines(&found["emails"]).first().copied();
    line_id(line.unwrap_or_else(|| panic!("no email matches {query:?}: {found}")))
}

/// The id a listing line starts with: `#41 | ...` gives 41.
pub fn line_id(line: &str) -> u32 {
    let id = fields(line)[0]
        .strip_prefix('#')
        .and_then(|id| id.parse().ok());
    id.unwrap_or_else(|| panic!("no id in {line:?}"))
}
