//! The `agentbench` command line: one binary for every job.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

use agentbench_sandbox::{Limits, Sandbox};
use agentbench_server::builtin::AddedPolicies;
use agentbench_server::loadgen::{self, LoadSettings};
use agentbench_server::store::{DbSync, Store};
use agentbench_server::{App, ServeSettings};

/// Sandboxed tool environments and a safety benchmark for tool-using LLM agents.
#[derive(Debug, Parser)]
#[command(name = "agentbench", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the built-in envs and their tools.
    Envs {
        /// Print the envs' manifests as JSON (name, version, description, tools with their
        /// parameter schemas, facts schema).
        #[arg(long)]
        json: bool,
    },
    /// Serve the REST API (envs and episodes) over HTTP.
    Serve {
        /// The address to listen on.
        #[arg(long, env = "AGENTBENCH_ADDR", default_value = "127.0.0.1:8080")]
        addr: std::net::SocketAddr,
        /// The database: `sqlite://PATH` (a file, created and migrated on first start) or
        /// `postgres://USER@HOST:PORT/DB`.
        #[arg(long, env = "AGENTBENCH_DB", default_value = "sqlite://agentbench.db")]
        db: String,
        /// How long a commit waits for the disk: `full` (a recorded step survives a power cut)
        /// or `normal` (it survives a crash of agentbench, not of the machine; faster).
        #[arg(long, env = "AGENTBENCH_DB_SYNC", default_value = "full")]
        db_sync: DbSync,
        /// A folder of Cedar policies to add: `*.cedar` judge every env, `<env>/*.cedar` one.
        #[arg(long, env = "AGENTBENCH_POLICIES")]
        policies: Option<std::path::PathBuf>,
        /// The most episodes open at once; past it, creating one answers 429.
        #[arg(long, env = "AGENTBENCH_MAX_OPEN_EPISODES", default_value_t = 100_000)]
        max_open_episodes: usize,
        /// The most episodes with a live sandbox instance; the least recently used beyond it
        /// are parked as their saved state until their next action.
        #[arg(long, env = "AGENTBENCH_MAX_HOT_EPISODES", default_value_t = 512)]
        max_hot_episodes: usize,
        /// An open episode idle this long expires (its record stays): `90s`, `30m`, `1h`.
        #[arg(long, env = "AGENTBENCH_EPISODE_TTL", default_value = "1h", value_parser = agentbench_server::parse_duration)]
        episode_ttl: std::time::Duration,
    },
    /// Load a server and report episode-creation latency, step throughput and latency, and
    /// resident memory per open episode.
    Bench {
        /// The base URL of a running server; without it, the bench spawns its own on loopback.
        #[arg(long, env = "AGENTBENCH_BENCH_SERVER")]
        server: Option<String>,
        /// Clients stepping at once, each with its own episode.
        #[arg(long, env = "AGENTBENCH_BENCH_CONCURRENCY", default_value_t = 256)]
        concurrency: usize,
        /// How long steps are measured, such as 10s or 500ms.
        #[arg(long, env = "AGENTBENCH_BENCH_DURATION", default_value = "10s", value_parser = agentbench_server::parse_duration)]
        duration: std::time::Duration,
        /// How long clients step before measuring starts.
        #[arg(long, env = "AGENTBENCH_BENCH_WARMUP", default_value = "1s", value_parser = agentbench_server::parse_duration)]
        warmup: std::time::Duration,
        /// Extra episodes opened to measure memory per open episode (only on a spawned server);
        /// 0 skips that phase.
        #[arg(long, env = "AGENTBENCH_BENCH_OPEN_EPISODES", default_value_t = 10_000)]
        open_episodes: usize,
        /// Print the report as JSON.
        #[arg(long, env = "AGENTBENCH_BENCH_JSON")]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Logs go to stderr; `AGENTBENCH_LOG` filters them (`info` shows every request's span).
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("AGENTBENCH_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Envs { json } => envs(json),
        Command::Serve {
            addr,
            db,
            db_sync,
            policies,
            max_open_episodes,
            max_hot_episodes,
            episode_ttl,
        } => {
            let added = match policies {
                Some(dir) => AddedPolicies::read(&dir)?,
                None => AddedPolicies::default(),
            };
            let settings = ServeSettings {
                max_open_episodes,
                max_hot_episodes,
                episode_ttl,
                ..ServeSettings::default()
            };
            serve(addr, &db, db_sync, &added, settings)
        }
        Command::Bench {
            server,
            concurrency,
            duration,
            warmup,
            open_episodes,
            json,
        } => {
            let settings = LoadSettings {
                server,
                concurrency,
                duration,
                warmup,
                open_episodes,
            };
            bench(&settings, json)
        }
    }
}

fn bench(settings: &LoadSettings, json: bool) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(loadgen::run(settings))?;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{report}")?;
    }
    out.flush().context("cannot write to stdout")
}

fn serve(
    addr: std::net::SocketAddr,
    db: &str,
    db_sync: DbSync,
    added: &AddedPolicies,
    settings: ServeSettings,
) -> anyhow::Result<()> {
    let limits = Limits::default();
    // Forks and restores need instances beyond the hot pool's.
    let most_hot = usize::try_from(limits.max_instances / 2)?;
    anyhow::ensure!(
        settings.max_hot_episodes <= most_hot,
        "--max-hot-episodes must be at most {most_hot} (half the sandbox's instance limit)"
    );
    let sandbox = Sandbox::new(limits)?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let store = Store::open(db, db_sync).await?;
        let app = Arc::new(App::with_builtin_envs(&sandbox, added, settings, store).await?);
        App::spawn_expiry(&app);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        eprintln!("{}{}", agentbench_server::LISTENING, listener.local_addr()?);
        axum::serve(listener, agentbench_server::router(app))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .context("the server failed")
    })
}

fn envs(json: bool) -> anyhow::Result<()> {
    let sandbox = Sandbox::new(Limits::default())?;
    let images = agentbench_server::builtin::load_all(&sandbox)?;
    let mut out = std::io::stdout().lock();
    if json {
        let manifests: Vec<_> = images.iter().map(|image| image.manifest()).collect();
        serde_json::to_writer_pretty(&mut out, &manifests)?;
        writeln!(out)?;
    } else {
        for image in &images {
            let manifest = image.manifest();
            writeln!(
                out,
                "{} {}: {}",
                manifest.name, manifest.version, manifest.description
            )?;
            let width = manifest
                .tools
                .iter()
                .map(|tool| tool.name.len())
                .max()
                .unwrap_or(0);
            for tool in &manifest.tools {
                let mark = if tool.irreversible {
                    " (irreversible)"
                } else {
                    ""
                };
                writeln!(out, "  {:width$}  {}{mark}", tool.name, tool.description)?;
            }
        }
    }
    out.flush().context("cannot write to stdout")
}
