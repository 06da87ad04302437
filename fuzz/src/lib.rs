//! What the fuzz targets share: the built-in envs' manifests, as `agentbench envs --json`
//! printed them (the seeds of the `manifest` target).

use agentbench_env_contract::Manifest;

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

/// A built-in env's manifest, picked by a byte of the input.
pub fn builtin_manifest(pick: u8) -> Manifest {
    Manifest::parse(MANIFESTS[usize::from(pick) % MANIFESTS.len()])
        .expect("a built-in manifest parses")
}

/// Asserts that `value` reads back as itself from the JSON it writes: what the server records
/// must be what it reads back.
pub fn round_trips<T>(value: &T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = serde_json::to_string(value).expect("a parsed value serializes");
    let again: T = serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{text} does not read back: {error}"));
    assert_eq!(&again, value, "{text} reads back as another value");
}
