//! A guest's output as the host reads it: the first byte picks the export, the rest is the text
//! it returned. 0: a JSON document (observation, event data, facts, world), checked by
//! `guest_json` as the sandbox checks it, which must then parse as a `serde_json::Value` as the
//! runtime later parses it; 1: `resources`; 2: `sensitive`; 3: `evaluate` (an outcome). A guest is
//! untrusted: any output must be taken or refused with an error, never panic, and what is taken
//! must read back as itself from the JSON the server records.

#![no_main]

use agentbench_env_contract::{Outcome, Resource, SensitiveItem, guest_json};
use agentbench_fuzz::round_trips;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&export, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    match export % 4 {
        0 => {
            if let Ok(raw) = guest_json(text.to_owned()) {
                if let Err(error) = serde_json::from_str::<serde_json::Value>(raw.get()) {
                    panic!("the sandbox took JSON the runtime cannot read: {error}");
                }
            }
        }
        1 => {
            if let Ok(resources) = serde_json::from_str::<Vec<Resource>>(text) {
                round_trips(&resources);
            }
        }
        2 => {
            if let Ok(items) = serde_json::from_str::<Vec<SensitiveItem>>(text) {
                round_trips(&items);
            }
        }
        _ => {
            if let Ok(outcome) = serde_json::from_str::<Outcome>(text) {
                round_trips(&outcome);
            }
        }
    }
});
