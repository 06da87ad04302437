//! A policy file as `serve --policies DIR` loads it: Cedar text added to a built-in env's own
//! policies and validated against the schema generated from its manifest. The first byte picks
//! the env; the rest is the file. Any file must load or be refused with an error, never panic.

#![no_main]

use agentbench_fuzz::builtin_manifest;
use agentbench_policies::{EnvPolicies, PolicyFile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&env, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let manifest = builtin_manifest(env);
    let file = PolicyFile {
        name: "fuzzed.cedar".to_owned(),
        text: text.to_owned(),
    };
    let _ = EnvPolicies::new(&manifest, &[file]);
});
