//! A guest's manifest as the host loads it: parsed and checked (`Manifest::parse`), then its
//! Cedar schema and policies built and validated (`EnvPolicies::new`). A guest is untrusted: any
//! bytes must give a manifest or an error, never a panic, a hang or a runaway allocation.

#![no_main]

use agentbench_env_contract::Manifest;
use agentbench_policies::EnvPolicies;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(manifest) = Manifest::parse(text) {
        let _ = EnvPolicies::new(&manifest, &[]);
    }
});
