//! Test support (feature `testing`): built-in envs compiled once per test process into one
//! shared sandbox, so that the tests of crates above the runtime (scorers, agents, the server)
//! get a `LoadedEnv` without depending on the sandbox or the catalog themselves.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use agentbench_sandbox::{Limits, Sandbox};

use crate::LoadedEnv;

/// The sandbox test envs live in: a pool big enough for the instances the tests of one process
/// hold at a time (each slot reserves memory).
pub fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| {
        Sandbox::new(Limits {
            max_instances: 64,
            ..Limits::default()
        })
        .expect("a sandbox for tests")
    })
}

/// The built-in env `name` (`workspace`: the package `agentbench-env-workspace`) under its own
/// policies, compiled on first use.
pub fn builtin_env(name: &str) -> Arc<LoadedEnv> {
    static LOADED: Mutex<BTreeMap<String, Arc<LoadedEnv>>> = Mutex::new(BTreeMap::new());
    let mut loaded = LOADED.lock().unwrap_or_else(PoisonError::into_inner);
    let env = loaded
        .entry(name.to_owned())
        .or_insert_with(|| unshared_env(name));
    Arc::clone(env)
}

/// A built-in env loaded anew: one whose warm instances no other test shares.
pub fn unshared_env(name: &str) -> Arc<LoadedEnv> {
    let package = format!("agentbench-env-{name}");
    let component = agentbench_env_catalog::component(&package)
        .unwrap_or_else(|| panic!("no built-in env `{name}` (package {package})"));
    let image = sandbox().load(component).expect("a built-in env loads");
    Arc::new(LoadedEnv::new(image, &[]).expect("a built-in env's schemas and policies are valid"))
}
