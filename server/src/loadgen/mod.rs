//! `agentbench bench`: a load generator that measures a server's episode-creation latency, step
//! throughput and latency, and resident memory per open episode.
//!
//! The bench drives a server over real HTTP/1.1 with keep-alive connections, its WebSocket or
//! batches, or OpenEnv's WebSocket protocol (any OpenEnv server's), either a server given by URL
//! or one it spawns as a child process (`agentbench serve` on a loopback port), and whose
//! resident memory it can then read from `/proc`.

mod client;
mod fast_paths;
mod openenv;
mod phases;
mod procfs;
mod report;
mod spawn;

use std::time::Duration;

use anyhow::bail;

use crate::store::DbSync;
use client::{Api, base_url};
pub use openenv::OpenEnvLoad;
use phases::{Clients, create_client_episodes, delete_all, measure_memory, step_all};
pub use report::{
    CleanupReport, CpuReport, LatencySummary, LoadReport, MemoryReport, ResetReport, StepReport,
};
use spawn::SpawnedServer;

/// The env every bench episode runs in.
const ENV: &str = "workspace";
/// The read-only action each step sends: cheap, and it never ends the episode.
const STEP_ACTION: &str = r#"{"action":{"tool":"list_files","arguments":{}}}"#;
/// A step budget the measured phase cannot exhaust.
const MAX_STEPS: u64 = 1_000_000;
/// The most requests in flight while opening (phase 3) or deleting episodes.
const BULK_IN_FLIGHT: usize = 64;
/// The longest the bench waits for one answer before counting the request as failed.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest a spawned server may take to report its address.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(120);
/// The memory budget the per-episode footprint is extrapolated to.
const MEMORY_BUDGET_BYTES: u64 = 4 << 30;

/// What to measure and against which server.
#[derive(Debug, Clone)]
pub struct LoadSettings {
    /// The base URL of a running server (`http://host:port`); `None` spawns one.
    pub server: Option<String>,
    /// Clients stepping at once, each with its own episode.
    pub concurrency: usize,
    /// How long steps are measured, after the warm-up.
    pub duration: Duration,
    /// How long clients step before measuring starts.
    pub warmup: Duration,
    /// Extra episodes opened to measure memory per open episode; 0 skips that phase.
    pub open_episodes: usize,
    /// How a spawned server's commits wait for the disk (`serve --db-sync`).
    pub db_sync: DbSync,
    /// How the clients' steps reach the server.
    pub transport: Transport,
    /// The WebSocket connections or batching clients the episodes are shared among (the fast
    /// paths); HTTP has a connection per episode, OpenEnv a session per episode.
    pub connections: usize,
    /// What the OpenEnv transport sends, and where.
    pub openenv: OpenEnvLoad,
    /// The process of a given server (`server`), whose processor time is then measured too.
    pub server_pid: Option<u32>,
}

/// How the bench's steps reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// One HTTP request per step, a keep-alive connection per episode.
    Http,
    /// The WebSocket `/v1/ws`, one step of each episode in flight.
    Socket,
    /// `POST /v1/steps`, one step of each episode per batch.
    Batch,
    /// OpenEnv's WebSocket protocol, a session per episode, one step in flight on each.
    OpenEnv,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Socket => "ws",
            Transport::Batch => "batch",
            Transport::OpenEnv => "openenv",
        }
    }
}

impl std::str::FromStr for Transport {
    type Err = String;

    fn from_str(text: &str) -> Result<Transport, String> {
        [
            Transport::Http,
            Transport::Socket,
            Transport::Batch,
            Transport::OpenEnv,
        ]
        .into_iter()
        .find(|transport| transport.as_str() == text)
        .ok_or_else(|| format!("expected `http`, `ws`, `batch` or `openenv`, got `{text}`"))
    }
}

impl Default for LoadSettings {
    fn default() -> LoadSettings {
        LoadSettings {
            server: None,
            concurrency: 256,
            duration: Duration::from_secs(10),
            warmup: Duration::from_secs(1),
            open_episodes: 10_000,
            db_sync: DbSync::Full,
            transport: Transport::Http,
            connections: 2,
            openenv: OpenEnvLoad::default(),
            server_pid: None,
        }
    }
}

/// Runs the three phases and the cleanup; progress goes to stderr.
pub async fn run(settings: &LoadSettings) -> anyhow::Result<LoadReport> {
    validate(settings)?;
    let (spawned, base) = match &settings.server {
        Some(url) => (None, base_url(url)?),
        None => {
            progress("starting a server");
            let max_open = settings.concurrency + settings.open_episodes + 16;
            let (server, base) = SpawnedServer::start(max_open, settings.db_sync).await?;
            (Some(server), base)
        }
    };
    let api = Api::new(base.clone());

    let (clients, resets) = if settings.transport == Transport::OpenEnv {
        let url = format!(
            "{}{}",
            base.replacen("http://", "ws://", 1),
            settings.openenv.path
        );
        progress(&format!(
            "opening {} OpenEnv sessions at {url}",
            settings.concurrency
        ));
        let (sessions, resets) =
            openenv::open_sessions(&url, &settings.openenv, settings.concurrency).await?;
        (Clients::Sessions(sessions), resets)
    } else {
        progress(&format!("creating {} episodes", settings.concurrency));
        let (ids, resets) = create_client_episodes(&api, settings.concurrency).await?;
        (Clients::Episodes(ids), resets)
    };
    progress(&format!(
        "stepping for {:?} of warm-up and {:?} measured",
        settings.warmup, settings.duration
    ));
    let server_pid = spawned
        .as_ref()
        .map(SpawnedServer::pid)
        .or(settings.server_pid);
    let (steps, ids) = step_all(&api, clients, server_pid, settings).await;
    let memory = match &spawned {
        None => MemoryReport::Skipped {
            reason: "the server was not spawned by the bench (--server)".to_owned(),
        },
        Some(_) if settings.open_episodes == 0 => MemoryReport::Skipped {
            reason: "--open-episodes is 0".to_owned(),
        },
        Some(server) => measure_memory(&api, server.pid(), settings).await,
    };
    // An OpenEnv session's episode is the session's: closing the session ended it.
    let cleanup = if ids.is_empty() {
        None
    } else {
        progress(&format!("deleting {} episodes", ids.len()));
        Some(delete_all(&api, ids).await)
    };
    Ok(LoadReport {
        server: base,
        spawned: spawned.is_some(),
        db_sync: spawned.is_some().then_some(settings.db_sync.as_str()),
        concurrency: settings.concurrency,
        transport: settings.transport.as_str(),
        connections: matches!(settings.transport, Transport::Socket | Transport::Batch)
            .then_some(settings.connections),
        openenv_path: (settings.transport == Transport::OpenEnv)
            .then(|| settings.openenv.path.clone()),
        resets,
        steps,
        memory,
        cleanup,
    })
}

fn validate(settings: &LoadSettings) -> anyhow::Result<()> {
    if settings.concurrency == 0 {
        bail!("expected a concurrency of at least 1, got 0");
    }
    if settings.duration.is_zero() {
        bail!("expected a measured duration above zero, got 0s");
    }
    if settings.transport == Transport::OpenEnv {
        settings.openenv.validate()?;
    }
    Ok(())
}

fn progress(message: &str) {
    eprintln!("bench: {message}");
}
