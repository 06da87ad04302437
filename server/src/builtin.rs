//! Loads the built-in envs (embedded by agentbench-env-catalog) into a sandbox.

use anyhow::Context as _;

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
