//! Loads the built-in envs (embedded by agentbench-env-catalog) into a sandbox, each under its
//! own policies plus those added at `serve` time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;

use agentbench_env_runtime::{LoadedEnv, PolicyFile};
use agentbench_sandbox::{CompileCache, EnvImage, Limits, Sandbox};

/// The environment variable naming the compile cache's folder; empty turns the cache off.
pub const CACHE_DIR_VAR: &str = "AGENTBENCH_CACHE_DIR";

/// A sandbox for the binary's commands, with the compile cache `compile_cache()` names.
pub fn sandbox(limits: Limits) -> anyhow::Result<Sandbox> {
    let sandbox = Sandbox::new(limits)?;
    Ok(match compile_cache() {
        Some(cache) => sandbox.with_compile_cache(cache),
        None => sandbox,
    })
}

/// Where compiled envs are kept between runs: `$AGENTBENCH_CACHE_DIR` (none when it is empty),
/// else `$XDG_CACHE_HOME/agentbench`, else `$HOME/.cache/agentbench`.
pub fn compile_cache() -> Option<CompileCache> {
    let var = |name| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = std::env::var_os(CACHE_DIR_VAR) {
        return (!dir.is_empty()).then(|| CompileCache::new(dir));
    }
    let base = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| Path::new(&home).join(".cache")))?;
    Some(CompileCache::new(base.join("agentbench")))
}

/// Compiles every built-in env (those not in the sandbox's compile cache, on a thread each);
/// fails naming the env that would not load.
pub fn load_all(sandbox: &Sandbox) -> anyhow::Result<Vec<EnvImage>> {
    std::thread::scope(|scope| {
        let loads: Vec<_> = agentbench_env_catalog::builtin_envs()
            .map(|env| {
                (
                    env.package,
                    scope.spawn(move || sandbox.load(env.component)),
                )
            })
            .collect();
        loads
            .into_iter()
            .map(|(package, load)| {
                load.join()
                    .map_err(|_| anyhow::anyhow!("loading the built-in env {package} panicked"))?
                    .with_context(|| format!("cannot load the built-in env {package}"))
            })
            .collect()
    })
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

/// Every built-in env under its own policies alone, in a sandbox of default limits: what the
/// offline commands (`datasets validate`, `datasets mutate`, `envs show`, `label`) play in.
pub fn default_runtime_envs() -> anyhow::Result<BTreeMap<String, Arc<LoadedEnv>>> {
    load_runtime_envs(&sandbox(Limits::default())?, &AddedPolicies::default())
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
