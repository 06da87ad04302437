//! A policy file as `serve --policies DIR` loads it: Cedar text added to a built-in env's own
//! policies and validated against the schema generated from its manifest. The first byte picks
//! the env; the rest is the file. Any file must load or be refused with an error, never panic.

#![no_main]

use agentbench_env_contract::Manifest;
use agentbench_policies::{EnvPolicies, PolicyFile};
use libfuzzer_sys::fuzz_target;

/// The built-in envs' manifests, as `agentbench envs --json` printed them.
const MANIFESTS: [&str; 8] = [
    include_str!("../seeds/manifest/banking.json"),
    include_str!("../seeds/manifest/browsing.json"),
    include_str!("../seeds/manifest/cloud.json"),
    include_str!("../seeds/manifest/crm.json"),
    include_str!("../seeds/manifest/messaging.json"),
    include_str!("../seeds/manifest/shell.json"),
    include_str!("../seeds/manifest/support.json"),
    include_str!("../seeds/manifest/workspace.json"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&env, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let manifest = Manifest::parse(MANIFESTS[usize::from(env) % MANIFESTS.len()])
        .expect("a built-in manifest parses");
    let file = PolicyFile {
        name: "fuzzed.cedar".to_owned(),
        text: text.to_owned(),
    };
    let _ = EnvPolicies::new(&manifest, &[file]);
});
