//! Loads the built-in envs (embedded by agentbench-env-catalog) into a sandbox, each under its
//! own policies plus those added at `serve` time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;

use agentbench_env_runtime::{LoadedEnv, PolicyFile};
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
pub fn load_runtime_envs(
    sandbox: &Sandbox,
    added: &AddedPolicies,
) -> anyhow::Result<BTreeMap<String, Arc<LoadedEnv>>> {
    let mut envs = BTreeMap::new();
    for image in load_all(sandbox)? {
        let name = image.manifest().name.clone();
        let env = LoadedEnv::new(image, &added.for_env(&name))
            .with_context(|| format!("cannot load the policies of the env {name}"))?;
        envs.insert(name, Arc::new(env));
    }
    if let Some(unknown) = added.per_env.keys().find(|name| !envs.contains_key(*name)) {
        anyhow::bail!(
            "the policy folder `{unknown}` names no env; the envs are: {}",
            envs.keys().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    Ok(envs)
}

/// Policy files added at `serve` time (`--policies DIR`): `DIR/*.cedar` judge every env's calls,
/// `DIR/<env>/*.cedar` one env's. They are validated against each env's schema like the env's
/// own, so a policy in `DIR` may only name what every env has (`context.history`, `resource`).
#[derive(Debug, Clone, Default)]
pub struct AddedPolicies {
    everywhere: Vec<PolicyFile>,
    per_env: BTreeMap<String, Vec<PolicyFile>>,
}

impl AddedPolicies {
    /// Reads the `.cedar` files of `dir` and of its subfolders, in name order.
    pub fn read(dir: &Path) -> anyhow::Result<AddedPolicies> {
        let entries = sorted_entries(dir)?;
        let mut added = AddedPolicies {
            everywhere: read_cedar_files(&entries)?,
            per_env: BTreeMap::new(),
        };
        for entry in entries {
            if entry.is_dir() {
                let name = entry
                    .file_name()
                    .and_then(|name| name.to_str())
                    .with_context(|| format!("`{}` is not a UTF-8 name", entry.display()))?
                    .to_owned();
                added
                    .per_env
                    .insert(name, read_cedar_files(&sorted_entries(&entry)?)?);
            }
        }
        Ok(added)
    }

    fn for_env(&self, env: &str) -> Vec<PolicyFile> {
        let mut files = self.everywhere.clone();
        files.extend(self.per_env.get(env).into_iter().flatten().cloned());
        files
    }
}

/// The `.cedar` files among `entries`, read.
fn read_cedar_files(entries: &[PathBuf]) -> anyhow::Result<Vec<PolicyFile>> {
    entries
        .iter()
        .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "cedar"))
        .map(|path| {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read `{}`", path.display()))?;
            Ok(PolicyFile {
                name: path.display().to_string(),
                text,
            })
        })
        .collect()
}

fn sorted_entries(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut paths = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the policy folder `{}`", dir.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("cannot read the policy folder `{}`", dir.display()))?;
    paths.sort();
    Ok(paths)
}
