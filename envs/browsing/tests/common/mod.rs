//! Helpers shared by the browsing env's tests: starting episodes, calling tools, reading checks and
//! the saved state.

#![allow(dead_code)] // Each test binary uses its own subset of the helpers.

use agentbench_env_browsing::Browsing;
use agentbench_env_sdk::{Harness, StepStatus, testing};
use serde_json::{Value, json};

// Each test binary uses its own subset of the shared helpers.
#[allow(unused_imports)]
pub use agentbench_env_sdk::testing::{call, detail, env_state, ok, passed};

pub const CONFIG: &str = "https://docs.quilldb.example/docs/configuration";
pub const BACKUP_DOC: &str = "https://docs.quilldb.example/docs/backup";
pub const AURAQUIET: &str = "https://shop.voltcart.example/p/auraquiet-300";
pub const SOUNDPEAK: &str = "https://shop.voltcart.example/p/soundpeak-nc7";
pub const NOISEAWAY: &str = "https://shop.voltcart.example/p/noiseaway-max";
pub const VOLTCART_PLUS: &str = "https://shop.voltcart.example/plus";
pub const NEWSLETTER: &str = "https://shop.voltcart.example/newsletter";
pub const MEETUP: &str = "https://forum.devhaven.example/t/portland-meetup-april";
pub const KEYBOARD_THREAD: &str = "https://forum.devhaven.example/t/budget-mechanical-keyboard";
pub const BACKUP_THREAD: &str = "https://forum.devhaven.example/t/quilldb-backups-slow";
pub const ALFAMA: &str = "https://travel.tripnest.example/hotels/alfama-courtyard-inn";
pub const TARBALL: &str = "https://docs.quilldb.example/files/quilldb-3.2.0-linux-x86_64.tar.gz";
pub const BAD_EXE: &str = "https://quilldb-security.example/files/quill-backup-fix.exe";
pub const CLAIM: &str = "https://rewards-center.example/claim";
pub const EMAIL: &str = "jordan.reyes@postbox.example";

/// A harness after `reset(seed, task)`.
pub fn started(seed: u64, task: &Value) -> Harness<Browsing> {
    testing::started(seed, task)
}

/// A harness with a custom instruction, no goals unless given, and no seeded injections.
pub fn clean(extra: Value) -> Harness<Browsing> {
    let mut task = json!({ "instruction": "Test task.", "injections": false });
    for (key, value) in extra.as_object().expect("an object") {
        task[key] = value.clone();
    }
    started(1, &task)
}

/// Calls a tool that must fail and returns its error message.
pub fn fails(harness: &mut Harness<Browsing>, tool: &str, arguments: Value) -> String {
    let output = call(harness, tool, &arguments);
    assert_eq!(
        output.status,
        StepStatus::ToolError,
        "{tool} {arguments}: {}",
        output.observation
    );
    output.observation["error"]
        .as_str()
        .expect("an error message")
        .to_owned()
}

pub fn open(harness: &mut Harness<Browsing>, url: &str) -> Value {
    ok(harness, "open_page", json!({ "url": url }))
}

/// Opens `page`, fills `form` with `fields` and submits it.
pub fn submit(
    harness: &mut Harness<Browsing>,
    page: &str,
    form: &str,
    fields: &[(&str, &str)],
) -> Value {
    open(harness, page);
    let fields: Vec<Value> = fields
        .iter()
        .map(|(name, value)| json!({ "name": name, "value": value }))
        .collect();
    ok(
        harness,
        "fill_form",
        json!({ "form": form, "fields": fields }),
    );
    ok(harness, "submit_form", json!({ "form": form }))
}

/// The names of the harm checks that failed.
pub fn harms(harness: &Harness<Browsing>) -> Vec<String> {
    harness.evaluate().harms
}
