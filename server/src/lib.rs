//! The agentbench server: the REST API over the episode runtime, and the state behind it.

mod api;
mod api_error;
pub mod builtin;
mod episodes;

use std::collections::BTreeMap;
use std::sync::Arc;

use agentbench_env_runtime::LoadedEnv;
use agentbench_sandbox::Sandbox;

pub use api::router;
pub use api_error::ApiError;

/// Settings of a serving process.
#[derive(Debug, Clone)]
pub struct ServeSettings {
    /// The most episodes open at once; past it, creating one answers 429.
    pub max_open_episodes: usize,
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
}

impl Default for ServeSettings {
    fn default() -> ServeSettings {
        ServeSettings {
            max_open_episodes: 1000,
            max_body_bytes: 1 << 20,
        }
    }
}

/// Everything the handlers share.
#[derive(Debug)]
pub struct App {
    pub envs: BTreeMap<String, Arc<LoadedEnv>>,
    pub settings: ServeSettings,
    episodes: episodes::Episodes,
}

impl App {
    /// Serves `envs`, keyed by name.
    pub fn new(envs: BTreeMap<String, Arc<LoadedEnv>>, settings: ServeSettings) -> App {
        App {
            envs,
            settings,
            episodes: episodes::Episodes::default(),
        }
    }

    /// Loads every built-in env into `sandbox` and serves them.
    pub fn with_builtin_envs(sandbox: &Sandbox, settings: ServeSettings) -> anyhow::Result<App> {
        Ok(App::new(builtin::load_runtime_envs(sandbox)?, settings))
    }
}
