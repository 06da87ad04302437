//! Loads the built-in envs (embedded by agentbench-env-catalog) into a sandbox.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Context as _;

use agentbench_env_runtime::LoadedEnv;
use agentbench_sandbox::{EnvImage, Sandbox};

/// Compiles every built-in env; fails naming the env that would not load.
pub fn load_all(sandbox: &Sandbox) -> anyhow::Result<Vec<EnvImage>> {
    agentbench_env_catalog::builtin_envs()
        .map(|env| {
            sandbox
                .load(env.component)
                .with_context(|| format!("cannot load the built-in env {}", env.package))
        })
        .collect()
}

/// Every built-in env, ready to run episodes, keyed by name.
pub fn load_runtime_envs(sandbox: &Sandbox) -> anyhow::Result<BTreeMap<String, Arc<LoadedEnv>>> {
    let mut envs = BTreeMap::new();
    for image in load_all(sandbox)? {
        let env = LoadedEnv::new(image)?;
        envs.insert(env.manifest().name.clone(), Arc::new(env));
    }
    Ok(envs)
}
