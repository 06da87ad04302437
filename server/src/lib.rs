//! The agentbench server: the REST API over the episode runtime, the durable store behind it, and
//! the live episodes in between.

mod api;
mod api_error;
pub mod auth;
pub mod best_of_n;
pub mod builtin;
pub mod chat_api;
pub mod gate;
pub mod keys;
pub mod label;
pub mod leaderboard;
pub mod loadgen;
mod mcp;
pub mod metrics;
pub mod mutate;
mod openapi;
mod openenv;
pub mod prm;
pub mod rate_limit;
pub mod report;
mod request_limits;
pub mod rescore;
pub mod rollout;
pub mod run;
mod run_writes;
mod runs_api;
pub mod serving;
pub mod sessions;
pub mod store;
pub mod train;
pub mod validate;
mod web;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use agentbench_env_runtime::LoadedEnv;
use agentbench_sandbox::Sandbox;
use agentbench_scorers::{RuleScorer, StepScorer};
pub use agentbench_wire::ids;
use agentbench_wire::requests;

pub use api::router;
pub use api_error::ApiError;
use auth::{Access, KeyRing};
use rate_limit::{RateLimit, RateLimiter};
use sessions::Sessions;
use store::{Store, StoreError};

/// Settings of a serving process.
#[derive(Debug, Clone)]
pub struct ServeSettings {
    /// The most episodes open at once; past it, creating one answers 429.
    pub max_open_episodes: usize,
    /// The most episodes with a live sandbox instance; the least recently used beyond it are
    /// parked as their saved state. Must stay below the sandbox's instance limit.
    pub max_hot_episodes: usize,
    /// An open episode idle for longer expires: it takes no more actions; its record stays.
    pub episode_ttl: Duration,
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Instances each env keeps made ahead (instantiated and reset once), so that creating an
    /// episode costs a reset and no instantiation; refilled off the request path. 0 makes every
    /// instance on demand.
    pub warm_instances: usize,
    /// Limits on connections and on how long a request may take to arrive.
    pub connections: ConnectionLimits,
    /// Who may do what: open, or API keys.
    pub access: Access,
    /// Each key's (or keyless peer's) quota of requests; none when absent.
    pub rate_limit: Option<RateLimit>,
    /// This node's name among the nodes that share a PostgreSQL store (logs and leases name
    /// it, with a suffix unique to the process).
    pub node: String,
    /// On a shared store, how long a node may hold an episode's lease for one request before
    /// another node may take the episode over: longer than any request on one episode takes.
    pub lease_ttl: Duration,
    /// This node has its PostgreSQL database to itself: it takes no leases, and reopens the
    /// episodes stored as open when it starts, as on SQLite.
    pub single_node: bool,
}

/// What a server allows each connection and each request's arrival, so that slow, idle or
/// misdirected clients cannot hold its descriptors and threads.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// The most connections open at once (WebSocket sessions included); further ones wait in the
    /// listen backlog until one closes.
    pub max_connections: usize,
    /// A request's line and headers must arrive within this, counted from when the connection
    /// is ready for them (accepted, or done with the previous response): the connection is
    /// closed otherwise. This is also how long an idle keep-alive connection stays open.
    pub header_timeout: Duration,
    /// A request's body must arrive in full within this, counted from its headers; a late one
    /// answers 408 and the connection is closed.
    pub body_timeout: Duration,
    /// The `Host` values requests may name, `host` (any port) or `host:port`, compared ignoring
    /// case; empty allows any. Naming them protects a server on loopback from DNS rebinding.
    pub allowed_hosts: Vec<String>,
}

impl Default for ConnectionLimits {
    fn default() -> ConnectionLimits {
        ConnectionLimits {
            max_connections: 4096,
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            allowed_hosts: Vec::new(),
        }
    }
}

impl Default for ServeSettings {
    fn default() -> ServeSettings {
        ServeSettings {
            max_open_episodes: 100_000,
            max_hot_episodes: 512,
            episode_ttl: Duration::from_secs(3600),
            max_body_bytes: 1 << 20,
            warm_instances: 4,
            connections: ConnectionLimits::default(),
            access: Access::Open,
            rate_limit: None,
            node: "agentbench".to_owned(),
            lease_ttl: Duration::from_secs(10),
            single_node: false,
        }
    }
}

/// Everything the handlers share: the episodes and their lifecycle, and the store that the
/// read-only runs API reads.
#[derive(Debug)]
pub struct App {
    pub sessions: Arc<Sessions>,
    pub store: Store,
    /// The keys requests are checked against; none in open mode.
    pub keys: Option<KeyRing>,
    /// Each key's quota of requests, when the settings set one.
    pub rate_limiter: Option<RateLimiter>,
    /// Set when the process begins to stop (SIGTERM, Ctrl-C): `/readyz` then answers 503, so a
    /// load balancer sends nothing new while the requests under way finish.
    pub draining: std::sync::atomic::AtomicBool,
    /// The sessions of OpenEnv's MCP (`/openenv/{env}/mcp`), which its WebSockets can share.
    pub(crate) openenv: openenv::Sessions,
}

impl App {
    /// Serves `envs`, keyed by name, recording into `store` and scoring every step with the
    /// rule scorer. The episodes the store holds as open are open again: each is replayed from
    /// its recorded actions on its next request.
    pub async fn new(
        envs: BTreeMap<String, Arc<LoadedEnv>>,
        settings: ServeSettings,
        store: Store,
    ) -> Result<App, StoreError> {
        App::scored_by(envs, settings, store, vec![Box::new(RuleScorer)]).await
    }

    /// `App::new` with other step scorers.
    pub async fn scored_by(
        envs: BTreeMap<String, Arc<LoadedEnv>>,
        settings: ServeSettings,
        store: Store,
        scorers: Vec<Box<dyn StepScorer>>,
    ) -> Result<App, StoreError> {
        let keys = match settings.access {
            Access::Open => None,
            Access::Keys { .. } => Some(KeyRing::new(store.clone())),
        };
        let rate_limiter = settings.rate_limit.map(RateLimiter::new);
        let sessions = Sessions::new(envs, settings, store.clone(), scorers).await?;
        Ok(App {
            sessions: Arc::new(sessions),
            store,
            keys,
            rate_limiter,
            draining: std::sync::atomic::AtomicBool::new(false),
            openenv: openenv::Sessions::default(),
        })
    }

    /// Loads every built-in env into `sandbox`, under its own policies and `added` ones, and
    /// serves them.
    pub async fn with_builtin_envs(
        sandbox: &Sandbox,
        added: &builtin::AddedPolicies,
        settings: ServeSettings,
        store: Store,
    ) -> anyhow::Result<App> {
        let envs = builtin::load_runtime_envs(sandbox, added)?;
        Ok(App::new(envs, settings, store).await?)
    }
}

/// What `agentbench serve` prints to stderr, before its address, once it listens.
pub const LISTENING: &str = "agentbench listening on http://";

/// Reads a serving process's stderr up to the line that announces its address, handing the lines
/// before it (log lines) to `other`. Returns the address (`host:port`), or `None` when stderr
/// closed first (the server failed to start).
pub fn read_listening_address(
    stderr: &mut impl std::io::BufRead,
    mut other: impl FnMut(&str),
) -> std::io::Result<Option<String>> {
    let mut line = String::new();
    loop {
        line.clear();
        if stderr.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        match line.trim_end().strip_prefix(LISTENING) {
            Some(addr) => return Ok(Some(addr.to_owned())),
            None => other(line.trim_end()),
        }
    }
}

/// Parses a duration written as a number and a unit: `250ms`, `90s`, `30m`, `1h`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("expected a duration like `90s`, got `{text}`"))?;
    let seconds = match unit.trim() {
        "ms" => number / 1000.0,
        "s" => number,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        _ => {
            return Err(format!(
                "expected a duration unit ms, s, m or h in `{text}`"
            ));
        }
    };
    Duration::try_from_secs_f64(seconds).map_err(|error| format!("`{text}`: {error}"))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    #[test]
    fn durations_parse_with_units() {
        let check = |text: &str, expect: Option<Duration>| {
            assert_eq!(super::parse_duration(text).ok(), expect, "{text}");
        };
        check("10s", Some(Duration::from_secs(10)));
        check("500ms", Some(Duration::from_millis(500)));
        check("1.5s", Some(Duration::from_millis(1500)));
        check("2m", Some(Duration::from_secs(120)));
        check("1h", Some(Duration::from_secs(3600)));
        check("0s", Some(Duration::ZERO));
        check("10", None);
        check("s", None);
        check("-1s", None);
        check("1.2.3s", None);
        check("10d", None);
        check("1e400s", None);
        check("", None);
    }
}
