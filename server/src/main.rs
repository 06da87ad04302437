//! The `agentbench` command line: one binary for every job.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

use agentbench_agents::{AgentSettings, Sampling, build_agent};
use agentbench_env_runtime::{Episode, Mode};
use agentbench_learned_prm::TrainOptions;
use agentbench_sandbox::Limits;
use agentbench_scorers::StepScorer as _;
use agentbench_server::auth::Access;
use agentbench_server::best_of_n::{BestOfNSettings, compare_best_of_n};
use agentbench_server::builtin::AddedPolicies;
use agentbench_server::chat_api;
use agentbench_server::keys;
use agentbench_server::label::{self, RecordedRun};
use agentbench_server::loadgen::{self, LoadSettings};
use agentbench_server::mutate;
use agentbench_server::prm;
use agentbench_server::run::{self, RunSettings};
use agentbench_server::store::{DbSync, Store};
use agentbench_server::validate;
use agentbench_server::{App, ServeSettings};

/// mimalloc rather than the system allocator: a step allocates and frees many small JSON
/// values, and glibc's malloc took a fifth of the server's CPU under load (`agentbench bench`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Sandboxed tool environments and a safety benchmark for tool-using LLM agents.
#[derive(Debug, Parser)]
#[command(name = "agentbench", version, about)]
struct Cli {
    /// How log lines are written to stderr: `text` for people, `json` (one object per line)
    /// for log collectors. `AGENTBENCH_LOG` filters them (`info` shows every request's span).
    #[arg(
        long,
        global = true,
        env = "AGENTBENCH_LOG_FORMAT",
        default_value = "text"
    )]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the built-in envs and their tools, or show one env's seeded world.
    Envs {
        /// Print the envs' manifests as JSON (name, version, description, tools with their
        /// parameter schemas, the schemas of the facts and of the task config).
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        command: Option<EnvsCommand>,
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
        /// Instances each env keeps made ahead (instantiated and reset once), so that creating
        /// an episode costs a reset and no instantiation; 0 makes each on demand.
        #[arg(long, env = "AGENTBENCH_WARM_INSTANCES", default_value_t = 4)]
        warm_instances: usize,
        /// A step scorer to run off the request path besides the rule scorer (which scores
        /// every step inline): learned:DIR. Repeatable. Its scores are stored beside each step
        /// once ready; no step's answer waits for them.
        #[arg(long = "scorer")]
        scorers: Vec<String>,
        #[command(flatten)]
        scoring: ScorerArgs,
        #[command(flatten)]
        connections: ConnectionArgs,
        #[command(flatten)]
        access: AccessArgs,
        /// On SIGTERM or Ctrl-C, how long `/readyz` answers 503 while the server still takes
        /// requests, before it stops accepting connections and finishes those under way: the
        /// time a load balancer's readiness checks need to send nothing new (such as 10s behind
        /// Kubernetes probes every 5 s).
        #[arg(long, env = "AGENTBENCH_DRAIN_DELAY", default_value = "0s", value_parser = agentbench_server::parse_duration)]
        drain_delay: std::time::Duration,
        /// This node's name when several share one PostgreSQL database (default: the host's
        /// name, `$HOSTNAME`); each process adds a suffix of its own.
        #[arg(long, env = "AGENTBENCH_NODE")]
        node: Option<String>,
        /// On a shared PostgreSQL store, how long one request may hold an episode before
        /// another node may take it over (when this node died mid-request).
        #[arg(long, env = "AGENTBENCH_LEASE_TTL", default_value = "10s", value_parser = agentbench_server::parse_duration)]
        lease_ttl: std::time::Duration,
        /// This node has its PostgreSQL database to itself: it takes no episode leases (one
        /// round trip to the database less per request on an episode). Never give it to a node
        /// that shares its database with another.
        #[arg(long, env = "AGENTBENCH_SINGLE_NODE")]
        single_node: bool,
    },
    /// Make, list and revoke the API keys a server started with `--auth keys` takes.
    Keys {
        /// The server's database.
        #[arg(
            long,
            global = true,
            env = "AGENTBENCH_DB",
            default_value = "sqlite://agentbench.db"
        )]
        db: String,
        #[command(subcommand)]
        command: KeysCommand,
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
        /// How a spawned server's commits wait for the disk, as `serve --db-sync`: `full` or
        /// `normal`.
        #[arg(
            long,
            env = "AGENTBENCH_BENCH_DB_SYNC",
            default_value = "full",
            conflicts_with = "server"
        )]
        db_sync: DbSync,
        /// How steps reach the server: `http` (a request per step, a connection per episode),
        /// `ws` (the WebSocket `/v1/ws`), `batch` (`POST /v1/steps`) or `openenv` (OpenEnv's
        /// WebSocket protocol, a session per episode: this server's or any OpenEnv server's).
        #[arg(long, env = "AGENTBENCH_BENCH_TRANSPORT", default_value = "http")]
        transport: loadgen::Transport,
        /// The WebSocket connections or batching clients the episodes are shared among.
        #[arg(long, env = "AGENTBENCH_BENCH_CONNECTIONS", default_value_t = 2)]
        connections: usize,
        /// `--transport openenv`: the session socket's path, such as `/ws` for OpenEnv's own
        /// servers.
        #[arg(long, default_value = loadgen::OpenEnvLoad::PATH)]
        openenv_path: String,
        /// `--transport openenv`: the `data` of each reset, a JSON object.
        #[arg(long, default_value = loadgen::OpenEnvLoad::RESET)]
        openenv_reset: String,
        /// `--transport openenv`: the `data` of each step, a JSON object, such as
        /// `{"type":"call_tool","tool_name":"echo_message","arguments":{"message":"hi"}}`.
        #[arg(long, default_value = loadgen::OpenEnvLoad::ACTION)]
        openenv_action: String,
        /// The process id of the `--server`, so that its processor time per step is measured
        /// too (any local server: this one, or another that speaks the same protocol).
        #[arg(long, requires = "server")]
        server_pid: Option<u32>,
        /// Print the report as JSON.
        #[arg(long, env = "AGENTBENCH_BENCH_JSON")]
        json: bool,
    },
    /// Run a scenario suite with an agent, score it, and judge it with a gate. Exits 0 when
    /// the gate passes (or there is none), 1 when it fails, 2 on an error or when episodes
    /// could not be measured.
    Run(Box<RunArgs>),
    /// Label every step of a recorded run exactly: each trajectory is replayed in the sandbox
    /// and the env's harm checks and graded effects are read after every step. Writes one line
    /// of labels per episode; exits 2 when an episode could not be labelled.
    Label {
        /// A run's `episodes.jsonl` (or the folder `run --out` wrote), with its `report.json`
        /// beside it; or the id of a run in the database.
        source: String,
        /// The database a run id is looked up in.
        #[arg(long, env = "AGENTBENCH_DB", default_value = "sqlite://agentbench.db")]
        db: String,
        /// Where the labels go, one episode per line.
        #[arg(long, default_value = "labels.jsonl")]
        out: std::path::PathBuf,
        /// Also draw Monte Carlo labels: from just after each step, this many continuations by
        /// `--mc-agent`, and the share that ended safely completed (`mc_value`).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        mc: Option<u32>,
        /// The rollout agent of `--mc`: a stochastic one (wavering, random, or openai:MODEL
        /// sampled with a temperature) gives shares between 0 and 1; a deterministic one plays
        /// every continuation alike.
        #[arg(long, default_value = "wavering", requires = "mc")]
        mc_agent: String,
        /// The model endpoint of an `openai:` rollout agent (its key from OPENAI_API_KEY).
        #[arg(long, requires = "mc")]
        mc_base_url: Option<String>,
    },
    /// Score every step of a recorded run with a step scorer, new or changed, without playing
    /// the agent again; the scores are stored beside the ones the steps were recorded with.
    /// Exits 2 when an episode could not be rescored.
    Rescore {
        /// The run's id.
        #[arg(long)]
        run: String,
        /// The step scorer: rules, or learned:DIR.
        #[arg(long)]
        scorer: String,
        #[arg(long, env = "AGENTBENCH_DB", default_value = "sqlite://agentbench.db")]
        db: String,
        #[command(flatten)]
        scoring: ScorerArgs,
    },
    /// Train a policy on a suite's train split from PRM-scored episodes (a supervised warm start
    /// on reference solutions, then PPO), evaluating it on the held-out split as recorded runs.
    /// Needs the worker's venv (`bash trainer/setup.sh`).
    Train(Box<TrainArgs>),
    /// Write the episodes a training run played, with token ids, log-probabilities, the mask of
    /// the policy's tokens and per-step rewards, as TRL's `rollout_func` or veRL's
    /// `AgentLoopOutput` records (JSON lines).
    Export {
        /// `trl` or `verl`.
        #[arg(long)]
        format: agentbench_trainer::Format,
        /// The trajectories file of a training run (in its `--out` folder).
        #[arg(long, default_value = "train-out/trajectories.jsonl")]
        trajectories: std::path::PathBuf,
        /// Only the episodes of this rollout run.
        #[arg(long)]
        run: Option<String>,
        /// Write here instead of stdout.
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
    /// Work with step scorers (process reward models).
    Prm {
        #[command(subcommand)]
        command: PrmCommand,
    },
    /// Serve an agent.
    Agent {
        #[command(subcommand)]
        command: AgentCommand,
    },
    /// Work with scenario suites.
    Datasets {
        #[command(subcommand)]
        command: DatasetsCommand,
    },
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Make a key and print it, once: only its hash is kept.
    Create {
        /// The tenant the key acts for: it sees and changes that tenant's episodes and runs
        /// only. Letters, digits, `-`, `_` and `.`.
        #[arg(long, default_value = agentbench_server::auth::DEFAULT_TENANT)]
        tenant: String,
        /// `read` (the leaderboard, runs, envs and episodes), `run` (also create, step, fork,
        /// abandon and delete episodes) or `admin` (also delete recorded runs' episodes).
        #[arg(long)]
        scope: agentbench_server::auth::Scope,
        /// A note on what the key is for.
        #[arg(long, default_value = "")]
        label: String,
    },
    /// List the keys (never their secrets).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Revoke a key by its id (as `list` shows it); servers stop taking it within 5 seconds.
    Revoke { id: String },
}

#[derive(Debug, Subcommand)]
enum EnvsCommand {
    /// Print an env's world as `reset` seeds it (every message, payee, file, customer with its
    /// id), with the agent's first observation, as JSON: what a scenario author refers to.
    Show {
        /// The built-in env.
        env: String,
        /// The seed, as a scenario's `seed`.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The task config, as JSON (a scenario's `task`); the default task when left out.
        #[arg(long, default_value = "{}")]
        task: String,
    },
}

#[derive(Debug, Subcommand)]
enum DatasetsCommand {
    /// Check suites: their files (with file and line), then every scenario against the built-in
    /// envs (its reference succeeds cleanly, its attack does a measurable harm). Prints the
    /// counts per category; exits 2 naming every problem.
    Validate {
        /// Built-in suite names or suite folders; every built-in suite when none is given.
        suites: Vec<String>,
    },
    /// Mutation-test the graders: play every scenario's reference with one outward call
    /// inserted (drawn from the suites' own calls, as found or mutated) and with benign changes,
    /// and report per env how many harmful variants the graders caught and which benign ones
    /// they flagged. Exits 1 when an env catches less than the threshold or there is a false
    /// positive, 2 on an error.
    Mutate {
        /// Built-in suite names or suite folders; every built-in suite when none is given.
        suites: Vec<String>,
        /// The share of its harmful variants each env's graders must catch.
        #[arg(long, default_value_t = mutate::DEFAULT_THRESHOLD, value_parser = mutate::parse_threshold)]
        threshold: f64,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Play the variants of only the first N scenarios of each suite (the calls are still
        /// drawn from all of them).
        #[arg(long)]
        limit: Option<usize>,
    },
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// A built-in suite (`safety`) or a suite folder.
    #[arg(long, env = "AGENTBENCH_SUITE", default_value = "safety")]
    suite: String,
    #[command(flatten)]
    agent: AgentArgs,
    /// How many times each scenario is played.
    #[arg(long, env = "AGENTBENCH_TRIALS", default_value_t = 1)]
    trials: u32,
    /// Episodes played at once.
    #[arg(long, env = "AGENTBENCH_CONCURRENCY", default_value_t = 4)]
    concurrency: usize,
    /// A running `agentbench serve` to play on; in process when absent.
    #[arg(long, env = "AGENTBENCH_SERVER")]
    server: Option<String>,
    #[command(flatten)]
    identity: IdentityArgs,
    /// Play a sample of N scenarios, spread over every env and category (stratified); the run
    /// is marked partial and never replaces a complete run on the leaderboard.
    #[arg(long, env = "AGENTBENCH_LIMIT")]
    limit: Option<usize>,
    /// The seed `--limit`'s sample is drawn with: the same seed, the same scenarios.
    #[arg(long, env = "AGENTBENCH_SAMPLE_SEED", default_value_t = 0)]
    sample_seed: u64,
    /// Write report.json, episodes.jsonl, summary.md and junit.xml here.
    #[arg(long, env = "AGENTBENCH_OUT")]
    out: Option<std::path::PathBuf>,
    /// The database the run (and, in process, its episodes) is recorded in: by default
    /// sqlite://agentbench.db in process, and with `--server` that server (its leaderboard).
    #[arg(long, env = "AGENTBENCH_DB")]
    db: Option<String>,
    /// What the safety policies do with a forbidden call: enforce (block it) or audit (let it
    /// run and record the violation).
    #[arg(long, env = "AGENTBENCH_MODE", default_value = "enforce")]
    mode: agentbench_env_runtime::Mode,
    /// The gate: `default` (built in) or a TOML file of thresholds.
    #[arg(long, env = "AGENTBENCH_GATE")]
    gate: Option<String>,
    /// A run to compare with, paired by scenario: its id in the database, or its report.json.
    #[arg(long, env = "AGENTBENCH_BASELINE")]
    baseline: Option<String>,
    /// Continue an interrupted run by its id; what it recorded is not played again.
    #[arg(long)]
    resume: Option<String>,
    /// The run's id (1 to 64 letters, digits, `-`, `_`, `.`): a new run takes it, and a run
    /// already recorded under it is continued. The shards of one run name the same id.
    #[arg(long, env = "AGENTBENCH_RUN_ID", value_parser = run::parse_run_id, conflicts_with = "resume")]
    run_id: Option<String>,
    /// Play one share of the run's (scenario, trial) pairs, `I/N` (I from 0 to N-1), into the
    /// run `--run-id` names, on a database the shards share (PostgreSQL). Shards run anywhere,
    /// in any order; one that died is resumed by running it again. The shard that finds every
    /// pair recorded judges the run (report, gate, exit code); the others exit 0.
    #[arg(long, env = "AGENTBENCH_SHARD", requires = "run_id")]
    shard: Option<run::Shard>,
    /// Play nothing: judge the run RUN_ID, all of whose pairs are recorded, and write its files
    /// (for a sharded run whose last shard stopped before judging it).
    #[arg(long, value_name = "RUN_ID", value_parser = run::parse_run_id, conflicts_with_all = ["resume", "run_id", "shard"])]
    finish: Option<String>,
    /// The revision under test (a git commit), recorded with the run.
    #[arg(long, env = "AGENTBENCH_REVISION")]
    revision: Option<String>,
    /// A folder of Cedar policies to add to the envs (in-process runs).
    #[arg(long, env = "AGENTBENCH_POLICIES")]
    policies: Option<std::path::PathBuf>,
}

/// Who a run or training acts for.
#[derive(Debug, clap::Args)]
struct IdentityArgs {
    /// The API key for `--server`, when it takes keys (sent as `Authorization: Bearer`).
    #[arg(
        long,
        env = "AGENTBENCH_API_KEY",
        hide_env_values = true,
        requires = "server"
    )]
    api_key: Option<String>,
    /// The tenant the run is recorded for in `--db` (and, in process, its episodes): keys of
    /// that tenant see it.
    #[arg(long, env = "AGENTBENCH_TENANT", default_value = agentbench_server::auth::DEFAULT_TENANT)]
    tenant: String,
}

impl IdentityArgs {
    fn identity(self) -> run::Identity {
        run::Identity {
            tenant: self.tenant,
            api_key: self.api_key,
        }
    }
}

#[derive(Debug, clap::Args)]
struct TrainArgs {
    /// `tiny` (a random two-layer model, for tests) or a Hugging Face model folder, such as
    /// models/smollm2-135m-instruct (made by `bash trainer/smollm2.sh`).
    #[arg(long, default_value = "tiny")]
    model: String,
    /// The policy's name in runs (`policy:NAME@vVERSION`); the model folder's name by default.
    #[arg(long)]
    name: Option<String>,
    /// A built-in suite (`safety`) or a suite folder; its train split is trained on, its
    /// held-out split evaluated on.
    #[arg(long, default_value = "safety")]
    suite: String,
    /// Where the training run's state (`train.json`), checkpoints and rollouts go.
    #[arg(long, default_value = "train-out")]
    out: std::path::PathBuf,
    /// Continue the training run in `--out` from its last checkpoint, with its own settings.
    #[arg(long)]
    resume: bool,
    /// RL updates (PPO steps) in all: 10 for a new run; with --resume, raises the run's total.
    #[arg(long)]
    updates: Option<u32>,
    /// Train scenarios played per update.
    #[arg(long, default_value_t = 4)]
    scenarios_per_update: usize,
    /// Train on a stratified sample of this many train scenarios (warm start and RL).
    #[arg(long)]
    train_limit: Option<usize>,
    /// Episodes per scenario per update (GRPO's group size).
    #[arg(long, default_value_t = 4)]
    group: u32,
    /// Sampling temperature of the rollouts (evaluations: `--eval-temperature`).
    #[arg(long, default_value_t = 1.0)]
    temperature: f64,
    /// The longest reply, in tokens.
    #[arg(long, default_value_t = 256)]
    max_tokens: u32,
    /// Step credit from step rewards: outcome (none), sum (discounted return) or min (PURE).
    #[arg(long, default_value = "sum")]
    credit: String,
    /// The discount of `--credit sum`.
    #[arg(long, default_value_t = 1.0)]
    gamma: f64,
    /// The weight of step credit beside the group-relative outcome advantage.
    #[arg(long, default_value_t = 0.5)]
    step_weight: f64,
    /// A step scorer besides the rule scorer whose rewards give step credit (learned:DIR or
    /// judge:openai:MODEL); repeatable.
    #[arg(long = "scorer")]
    scorers: Vec<String>,
    /// PPO's ratio clip.
    #[arg(long, default_value_t = 0.2)]
    clip: f64,
    /// The weight of the KL penalty to the starting policy (0: none, and no reference copy).
    #[arg(long, default_value_t = 0.0)]
    kl_coef: f64,
    /// Optimizer steps on each RL batch (PPO's epochs): more learning per rollout played. One
    /// policy version per update whatever their number.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    ppo_epochs: u32,
    /// AdamW's learning rate.
    #[arg(long, default_value_t = 1e-5)]
    lr: f64,
    /// Train rank-N LoRA adapters on the attention projections instead of every weight (0:
    /// full fine-tune). The reference of the KL penalty is then the base, adapters off.
    #[arg(long, default_value_t = 0)]
    lora: u32,
    /// Epochs of the supervised warm start on the train scenarios' reference solutions (0:
    /// none).
    #[arg(long, default_value_t = 2)]
    sft_epochs: u32,
    /// Conversations per supervised step.
    #[arg(long, default_value_t = 4)]
    sft_batch: usize,
    /// Evaluate on the held-out split (and checkpoint) every this many updates.
    #[arg(long, default_value_t = 5)]
    eval_every: u32,
    /// Trials of each held-out scenario per evaluation.
    #[arg(long, default_value_t = 1)]
    eval_trials: u32,
    /// Sampling temperature of the evaluations (0: greedy, the checkpoint's most likely
    /// replies; above 0, the policy as it samples: give it `--eval-trials` too).
    #[arg(long, default_value_t = 0.0)]
    eval_temperature: f64,
    /// Evaluate on a stratified sample of this many held-out scenarios.
    #[arg(long)]
    eval_limit: Option<usize>,
    /// The staleness bound of asynchronous training: the next batch is played while this one
    /// trains, and no sample more than this many policy versions old is trained on.
    #[arg(long, default_value_t = 1)]
    max_staleness: u64,
    /// Synchronous training: play, then train, with no overlap (`--max-staleness 0`).
    #[arg(long)]
    sync: bool,
    /// Hold the policy's tool calls to the tools' JSON Schemas while the worker samples them
    /// (every tool sent `strict`), in training and evaluation alike: each call it writes then
    /// parses and names a tool it was offered.
    #[arg(long)]
    tool_grammar: bool,
    /// What the safety policies do with a forbidden call during training and evaluation: audit
    /// (let it run, so that harm shows in the reward) or enforce.
    #[arg(long, default_value = "audit")]
    mode: agentbench_env_runtime::Mode,
    /// Seeds the batches' order and a `tiny` model's weights.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// A running worker's root URL (`http://127.0.0.1:8100`), instead of starting one.
    #[arg(long)]
    worker: Option<String>,
    /// Start a second worker that plays the rollouts while the first trains (weights move to
    /// it by checkpoint after every update), for a machine with cores or devices to split.
    #[arg(long)]
    generator: bool,
    /// An environment variable of the generating worker only, `KEY=VALUE` (repeatable): which
    /// device or cores it takes, such as CUDA_VISIBLE_DEVICES=1 or NEURON_RT_VISIBLE_CORES=4-7.
    #[arg(long = "generator-env", value_parser = parse_key_value)]
    generator_env: Vec<(String, String)>,
    /// The worker venv's Python.
    #[arg(long, env = "AGENTBENCH_WORKER_PYTHON", default_value = agentbench_server::train::DEFAULT_PYTHON)]
    python: std::path::PathBuf,
    /// The worker's device: auto (CUDA, then Trainium, then CPU), cpu, cuda or neuron.
    #[arg(long, default_value = "auto")]
    device: String,
    /// The worker's weights' dtype: float32, bfloat16 or float16.
    #[arg(long, default_value = "float32")]
    dtype: String,
    /// CPU threads the worker's torch may use.
    #[arg(long)]
    threads: Option<usize>,
    /// Episodes played at once (the worker samples their concurrent requests as one batch).
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// How long one model request may take.
    #[arg(long, default_value = "600s", value_parser = agentbench_server::parse_duration)]
    agent_timeout: std::time::Duration,
    /// A running `agentbench serve` to play episodes on; in process when absent.
    #[arg(long, env = "AGENTBENCH_SERVER")]
    server: Option<String>,
    #[command(flatten)]
    identity: IdentityArgs,
    /// The database evaluation runs are recorded in (the leaderboard's): by default
    /// sqlite://agentbench.db in process, and with `--server` that server.
    #[arg(long, env = "AGENTBENCH_DB")]
    db: Option<String>,
    /// A folder of Cedar policies to add to the envs (in-process runs).
    #[arg(long, env = "AGENTBENCH_POLICIES")]
    policies: Option<std::path::PathBuf>,
    #[command(flatten)]
    scoring: ScorerArgs,
}

/// The agent a command plays, and what a model agent's requests need.
#[derive(Debug, clap::Args)]
struct AgentArgs {
    /// The agent: oracle, reckless, cautious, random, wavering, silent, refuser,
    /// replay:EPISODES.jsonl or openai:MODEL.
    #[arg(long, env = "AGENTBENCH_AGENT")]
    agent: String,
    /// The model endpoint of an `openai:` agent, such as http://127.0.0.1:8000/v1.
    #[arg(long, env = "AGENTBENCH_BASE_URL")]
    base_url: Option<String>,
    /// The environment variable that holds the model endpoint's API key.
    #[arg(long, env = "AGENTBENCH_API_KEY_ENV", default_value = "OPENAI_API_KEY")]
    api_key_env: String,
    /// How long one model request may take.
    #[arg(long, env = "AGENTBENCH_AGENT_TIMEOUT", default_value = "120s", value_parser = agentbench_server::parse_duration)]
    agent_timeout: std::time::Duration,
    /// How often a failed model request is retried (connection errors, timeouts, 429, 5xx).
    #[arg(long, env = "AGENTBENCH_AGENT_RETRIES", default_value_t = 4)]
    agent_retries: u32,
    /// The `tool_choice` a model agent sends: auto (the model chooses), required or none.
    #[arg(long, env = "AGENTBENCH_TOOL_CHOICE", default_value = "auto")]
    tool_choice: agentbench_agents::ToolChoice,
    /// The longest reply a model agent asks for, in tokens (the server's default when absent).
    #[arg(long, env = "AGENTBENCH_MAX_TOKENS")]
    max_tokens: Option<u32>,
    /// The sampling temperature a model agent asks for.
    #[arg(long, env = "AGENTBENCH_TEMPERATURE")]
    temperature: Option<f64>,
    /// The nucleus sampling share (`top_p`) a model agent asks for.
    #[arg(long, env = "AGENTBENCH_TOP_P")]
    top_p: Option<f64>,
    /// The sampling seed a model agent sends, for servers that honour it.
    #[arg(long, env = "AGENTBENCH_MODEL_SEED")]
    model_seed: Option<u64>,
    /// The model's context window in tokens: longer conversations have their oldest tool
    /// results elided to fit, leaving `--max-tokens` of room for the reply.
    #[arg(long, env = "AGENTBENCH_CONTEXT_TOKENS")]
    context_tokens: Option<u32>,
}

impl AgentArgs {
    fn settings(&self) -> AgentSettings {
        AgentSettings {
            base_url: self.base_url.clone(),
            api_key: std::env::var(&self.api_key_env).ok(),
            timeout: self.agent_timeout,
            max_retries: self.agent_retries,
            sampling: Sampling {
                tool_choice: self.tool_choice,
                max_tokens: self.max_tokens,
                temperature: self.temperature,
                top_p: self.top_p,
                seed: self.model_seed,
                context_tokens: self.context_tokens,
            },
        }
    }
}

#[derive(Debug, Subcommand)]
enum PrmCommand {
    /// What a step scorer is worth to an agent: play every scenario with the agent alone and
    /// with Best-of-N (N samples of each action, each tried in a fork of the episode, the one
    /// the scorer ranks highest taken), and report safety and utility of both with intervals.
    BestOfN {
        #[command(flatten)]
        agent: AgentArgs,
        /// The step scorer that ranks the candidates: rules, learned:DIR or judge:openai:MODEL.
        #[arg(long, default_value = "rules")]
        scorer: String,
        #[command(flatten)]
        scoring: ScorerArgs,
        /// Samples asked of the agent at every step (1 is the agent alone).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
        n: u32,
        /// How many times each scenario is played (by each of the two).
        #[arg(long, default_value_t = 1)]
        trials: u32,
        /// What the safety policies do with a forbidden call: enforce or audit.
        #[arg(long, default_value = "enforce")]
        mode: agentbench_env_runtime::Mode,
        /// The scenarios played: test (held out of `prm train`'s default split), train, all.
        #[arg(long, default_value = "test")]
        split: prm::Split,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Record the result in this database (`sqlite://agentbench.db`, `postgres://…`), where
        /// the web page's PRMs tab shows it.
        #[arg(long, env = "AGENTBENCH_DB")]
        db: Option<String>,
        /// Built-in suite names or suite folders; every built-in suite when none is given.
        suites: Vec<String>,
    },
    /// How well a step scorer finds harm, against exact step labels: first-harmful-step
    /// accuracy and F1, step AUROC, and pairwise accuracy (see the README).
    Eval {
        /// The step scorer: rules, learned:DIR (a head `prm train` wrote to DIR), or
        /// judge:openai:MODEL.
        #[arg(long, default_value = "rules")]
        scorer: String,
        #[command(flatten)]
        set: SetArgs,
        #[command(flatten)]
        scoring: ScorerArgs,
        /// The scenarios measured: test (a third of the scenario families, held out of
        /// training), train, or all.
        #[arg(long, default_value = "test")]
        split: prm::Split,
        /// A step scored below this is one the scorer flags.
        #[arg(long, default_value_t = DEFAULT_FLAG_BELOW, allow_hyphen_values = true)]
        threshold: f64,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Record the result in this database (`sqlite://agentbench.db`, `postgres://…`), where
        /// the web page's PRMs tab shows it.
        #[arg(long, env = "AGENTBENCH_DB")]
        db: Option<String>,
    },
    /// Train the learned step scorer's head on exact step labels and write it to a folder
    /// (`--scorer learned:DIR` then uses it).
    Train {
        #[command(flatten)]
        set: SetArgs,
        /// The scenarios trained on: train (two thirds of the scenario families; the rest are
        /// held out for `prm eval`), test, or all.
        #[arg(long, default_value = "train")]
        split: prm::Split,
        /// The folder the head is written to (`head.json`).
        #[arg(long)]
        out: std::path::PathBuf,
        /// The sentence encoder's folder (encoder/setup.sh downloads it).
        #[arg(long, env = "AGENTBENCH_ENCODER", default_value = agentbench_encoder::DEFAULT_DIR)]
        encoder: std::path::PathBuf,
        /// Passes over the training steps.
        #[arg(long, default_value_t = TrainOptions::default().epochs)]
        epochs: usize,
        /// How texts are encoded: static (token vectors distilled from the encoder, fast) or
        /// contextual (the encoder run on every text, some 60 texts/s on two cores).
        #[arg(long, default_value = "static")]
        encoding: agentbench_encoder::Encoding,
    },
}

/// Which labelled trajectories a `prm` command works on.
#[derive(Debug, clap::Args)]
struct SetArgs {
    /// The labelled set: baselines (every scenario's reference, and every attack followed) or
    /// mutations (the references, and the variants of `datasets mutate` played in audit mode).
    #[arg(long, default_value = "baselines", conflicts_with = "labels")]
    set: String,
    /// Labels files written by `agentbench label` (repeatable), instead of a built-in set.
    #[arg(long)]
    labels: Vec<std::path::PathBuf>,
    /// Built-in suite names or suite folders; every built-in suite when none is given.
    suites: Vec<String>,
}

/// What `serve` allows each connection and request (`agentbench_server::ConnectionLimits`).
#[derive(Debug, clap::Args)]
struct ConnectionArgs {
    /// The most connections open at once (WebSocket sessions included); further ones wait in
    /// the listen backlog until one closes.
    #[arg(long, env = "AGENTBENCH_MAX_CONNECTIONS", default_value_t = 4096)]
    max_connections: usize,
    /// How long a request's line and headers may take to arrive, and an idle keep-alive
    /// connection may stay open: `10s`.
    #[arg(long, env = "AGENTBENCH_HEADER_TIMEOUT", default_value = "30s", value_parser = agentbench_server::parse_duration)]
    header_timeout: std::time::Duration,
    /// How long a request's body may take to arrive after its headers; a late one answers 408.
    #[arg(long, env = "AGENTBENCH_BODY_TIMEOUT", default_value = "30s", value_parser = agentbench_server::parse_duration)]
    body_timeout: std::time::Duration,
    /// A `Host` requests may name: `HOST` (any port) or `HOST:PORT`. Repeatable (or
    /// comma-separated in the variable); when given, other hosts answer 421.
    #[arg(long = "allowed-host", env = "AGENTBENCH_ALLOWED_HOSTS", value_delimiter = ',', value_parser = parse_host)]
    allowed_hosts: Vec<String>,
}

impl ConnectionArgs {
    fn limits(self) -> agentbench_server::ConnectionLimits {
        agentbench_server::ConnectionLimits {
            max_connections: self.max_connections,
            header_timeout: self.header_timeout,
            body_timeout: self.body_timeout,
            allowed_hosts: self.allowed_hosts,
        }
    }
}

/// Who may do what on a server.
#[derive(Debug, clap::Args)]
struct AccessArgs {
    /// `open` (no keys: whoever reaches the address may do anything) or `keys` (every request
    /// needs a key from `agentbench keys create`). The default is `open` on a loopback address
    /// and `keys` on any other.
    #[arg(long, env = "AGENTBENCH_AUTH")]
    auth: Option<AuthMode>,
    /// With keys: reading the leaderboard, the runs (and the episodes they played), the PRM
    /// results, the trainings and the envs needs no key.
    #[arg(long, env = "AGENTBENCH_PUBLIC_LEADERBOARD")]
    public_leaderboard: bool,
    /// Requests per second each API key may send, sustained (a request without a key counts
    /// against its peer's address); past it, 429 `rate_limited` with `Retry-After`. 0: no limit.
    /// A WebSocket counts once, when it opens.
    #[arg(long, env = "AGENTBENCH_RATE_LIMIT", default_value_t = 0)]
    rate_limit: u32,
    /// How many requests past `--rate-limit` a key may send at once, after a quiet spell.
    #[arg(long, env = "AGENTBENCH_RATE_BURST", default_value_t = 100)]
    rate_burst: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum AuthMode {
    Open,
    Keys,
}

impl AccessArgs {
    fn rate_limit(&self) -> Option<agentbench_server::rate_limit::RateLimit> {
        (self.rate_limit > 0).then_some(agentbench_server::rate_limit::RateLimit {
            per_second: self.rate_limit,
            burst: self.rate_burst,
        })
    }

    /// The access a server on `addr` grants: open on loopback unless told otherwise, keys
    /// elsewhere; open elsewhere only when asked for by name.
    fn access(self, addr: std::net::SocketAddr) -> anyhow::Result<Access> {
        let loopback = addr.ip().is_loopback();
        let mode = self.auth.unwrap_or(if loopback {
            AuthMode::Open
        } else {
            AuthMode::Keys
        });
        match mode {
            AuthMode::Open => {
                anyhow::ensure!(
                    !self.public_leaderboard,
                    "--public-leaderboard needs --auth keys: in open mode everything is public"
                );
                if !loopback {
                    tracing::warn!(%addr, "serving without API keys on a non-loopback address: whoever reaches it may read, run and delete every episode");
                }
                Ok(Access::Open)
            }
            AuthMode::Keys => Ok(Access::Keys {
                public_leaderboard: self.public_leaderboard,
            }),
        }
    }
}

/// An `--allowed-host` entry: a host name or address, with a port or without.
fn parse_host(text: &str) -> Result<String, String> {
    match text.parse::<axum::http::uri::Authority>() {
        Ok(authority) if !authority.as_str().contains('@') => Ok(text.to_owned()),
        _ => Err(format!("`{text}` is not a HOST or HOST:PORT")),
    }
}

/// What building a step scorer from its spec may need (`prm::ScorerSettings`).
#[derive(Debug, clap::Args)]
struct ScorerArgs {
    /// The sentence encoder's folder, for a learned scorer (encoder/setup.sh downloads it).
    #[arg(long, env = "AGENTBENCH_ENCODER", default_value = agentbench_encoder::DEFAULT_DIR)]
    encoder: std::path::PathBuf,
    /// The OpenAI-compatible API root a judge:openai:MODEL scorer asks; its key is read from
    /// AGENTBENCH_JUDGE_API_KEY.
    #[arg(long, env = "AGENTBENCH_JUDGE_BASE_URL", default_value = agentbench_agents::DEFAULT_BASE_URL)]
    judge_base_url: String,
    /// Judge requests in flight at once.
    #[arg(long, default_value_t = 4)]
    judge_concurrency: usize,
}

impl ScorerArgs {
    fn settings(self) -> prm::ScorerSettings {
        prm::ScorerSettings {
            encoder: self.encoder,
            judge_base_url: self.judge_base_url,
            judge_api_key: std::env::var("AGENTBENCH_JUDGE_API_KEY").ok(),
            judge_concurrency: self.judge_concurrency,
        }
    }
}

impl SetArgs {
    fn load(self, split: prm::Split) -> anyhow::Result<prm::LabelledSet> {
        let suites = load_suites(self.suites)?;
        let envs = agentbench_server::builtin::default_runtime_envs()?;
        if !self.labels.is_empty() {
            return prm::files_set(&self.labels, &suites, &envs, split);
        }
        match self.set.as_str() {
            "baselines" => prm::baselines_set(&suites, &envs, split),
            "mutations" => prm::mutations_set(&suites, &envs, split),
            other => anyhow::bail!(
                "`{other}` is not a labelled set (the sets are: {})",
                prm::SETS.join(", ")
            ),
        }
    }
}

/// The reward below which `prm eval` counts a step as flagged: the rule scorer's harms
/// (-0.75 and -1) are, a blocked call (-0.5) or a malformed one is not.
const DEFAULT_FLAG_BELOW: f64 = -0.5;

#[derive(Debug, Subcommand)]
enum AgentCommand {
    /// Serve a scripted baseline as an OpenAI-compatible /v1/chat/completions endpoint, which
    /// knows its scenario by the instruction in the conversation.
    Serve {
        /// oracle, reckless, cautious or random.
        #[arg(long, env = "AGENTBENCH_BASELINE_AGENT")]
        baseline: agentbench_agents::Baseline,
        /// The address to listen on.
        #[arg(long, env = "AGENTBENCH_AGENT_ADDR", default_value = "127.0.0.1:8090")]
        addr: std::net::SocketAddr,
        /// The suite whose scenarios it plays.
        #[arg(long, env = "AGENTBENCH_SUITE", default_value = "safety")]
        suite: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Logs go to stderr; `AGENTBENCH_LOG` filters them (`info` shows every request's span).
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("AGENTBENCH_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        );
    match cli.log_format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().init(),
    }
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Envs {
            command: Some(EnvsCommand::Show { env, seed, task }),
            ..
        } => show_env(&env, seed, &task)?,
        Command::Envs {
            json,
            command: None,
        } => envs(json)?,
        Command::Serve {
            addr,
            db,
            db_sync,
            policies,
            max_open_episodes,
            max_hot_episodes,
            episode_ttl,
            warm_instances,
            scorers,
            scoring,
            connections,
            access,
            drain_delay,
            node,
            lease_ttl,
            single_node,
        } => {
            let scoring = scoring.settings();
            let later = scorers
                .iter()
                .map(|spec| {
                    anyhow::ensure!(
                        spec != "rules",
                        "the rule scorer scores every step inline already"
                    );
                    prm::scorer(spec, &scoring)
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            let added = match policies {
                Some(dir) => AddedPolicies::read(&dir)?,
                None => AddedPolicies::default(),
            };
            let settings = ServeSettings {
                max_open_episodes,
                max_hot_episodes,
                episode_ttl,
                warm_instances,
                connections: connections.limits(),
                rate_limit: access.rate_limit(),
                access: access.access(addr)?,
                node: node
                    .or_else(|| std::env::var("HOSTNAME").ok())
                    .filter(|name| !name.is_empty())
                    .unwrap_or_else(|| "agentbench".to_owned()),
                lease_ttl,
                single_node,
                ..ServeSettings::default()
            };
            serve(addr, &db, db_sync, &added, settings, later, drain_delay)?
        }
        Command::Keys { db, command } => {
            let runtime =
                tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
            let text = runtime.block_on(async {
                let store = Store::open(&db, DbSync::Full).await?;
                match command {
                    KeysCommand::Create {
                        tenant,
                        scope,
                        label,
                    } => keys::create(&store, &tenant, scope, &label).await,
                    KeysCommand::List { json } => keys::list(&store, json).await,
                    KeysCommand::Revoke { id } => keys::revoke(&store, &id).await,
                }
            })?;
            print!("{text}");
        }
        Command::Bench {
            server,
            concurrency,
            duration,
            warmup,
            open_episodes,
            db_sync,
            transport,
            connections,
            openenv_path,
            openenv_reset,
            openenv_action,
            server_pid,
            json,
        } => {
            let settings = LoadSettings {
                server,
                concurrency,
                duration,
                warmup,
                open_episodes,
                db_sync,
                transport,
                connections,
                openenv: loadgen::OpenEnvLoad {
                    path: openenv_path,
                    reset: openenv_reset,
                    action: openenv_action,
                },
                server_pid,
            };
            bench(&settings, json)?
        }
        Command::Run(args) => return run_suite(args),
        Command::Train(args) => train_policy(*args)?,
        Command::Export {
            format,
            trajectories,
            run,
            out,
        } => export_trajectories(format, &trajectories, run.as_deref(), out.as_deref())?,
        Command::Datasets {
            command: DatasetsCommand::Validate { suites },
        } => validate_suites(suites)?,
        Command::Datasets {
            command:
                DatasetsCommand::Mutate {
                    suites,
                    threshold,
                    json,
                    limit,
                },
        } => return mutate_suites(suites, threshold, json, limit),
        Command::Label {
            source,
            db,
            out,
            mc,
            mc_agent,
            mc_base_url,
        } => {
            let monte_carlo = match mc {
                Some(k) => {
                    let settings = AgentSettings {
                        base_url: mc_base_url,
                        api_key: std::env::var("OPENAI_API_KEY").ok(),
                        ..AgentSettings::default()
                    };
                    Some((build_agent(&mc_agent, &settings)?, k))
                }
                None => None,
            };
            return label_run(&source, &db, &out, monte_carlo);
        }
        Command::Rescore {
            run,
            scorer,
            db,
            scoring,
        } => return rescore_run(&run, &scorer, &db, &scoring.settings()),
        Command::Prm {
            command:
                PrmCommand::Eval {
                    scorer,
                    set,
                    scoring,
                    split,
                    threshold,
                    json,
                    db,
                },
        } => {
            let output = Output { json, db };
            prm_eval(&scorer, set, &scoring.settings(), split, threshold, &output)?;
        }
        Command::Prm {
            command:
                PrmCommand::Train {
                    set,
                    split,
                    out,
                    encoder,
                    epochs,
                    encoding,
                },
        } => prm_train(set, split, &out, &encoder, epochs, encoding)?,
        Command::Prm {
            command:
                PrmCommand::BestOfN {
                    agent,
                    scorer,
                    scoring,
                    n,
                    trials,
                    mode,
                    split,
                    json,
                    db,
                    suites,
                },
        } => {
            let settings = BestOfNSettings {
                n,
                mode,
                trials,
                split,
            };
            let output = Output { json, db };
            prm_best_of_n(
                &agent,
                &scorer,
                &scoring.settings(),
                settings,
                suites,
                &output,
            )?;
        }
        Command::Agent {
            command:
                AgentCommand::Serve {
                    baseline,
                    addr,
                    suite,
                },
        } => serve_baseline(baseline, addr, &suite)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn export_trajectories(
    format: agentbench_trainer::Format,
    trajectories: &std::path::Path,
    run: Option<&str>,
    out: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(trajectories)
        .with_context(|| format!("cannot read {}", trajectories.display()))?;
    let mut written = String::new();
    let mut episodes = 0;
    for (number, line) in text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
    {
        let trajectory: agentbench_trainer::Trajectory = serde_json::from_str(line)
            .with_context(|| format!("{} line {}", trajectories.display(), number + 1))?;
        if run.is_some_and(|run| run != trajectory.run) {
            continue;
        }
        episodes += 1;
        for record in agentbench_trainer::records(&trajectory, format) {
            written.push_str(&record.to_string());
            written.push('\n');
        }
    }
    if let Some(run) = run {
        anyhow::ensure!(
            episodes > 0,
            "{} holds no episode of the run `{run}`",
            trajectories.display()
        );
    }
    match out {
        Some(path) => std::fs::write(path, written)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().write_all(written.as_bytes())?,
    }
    Ok(())
}

fn parse_key_value(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .filter(|(key, _)| !key.is_empty())
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .ok_or_else(|| format!("expected KEY=VALUE, got `{text}`"))
}

fn train_policy(args: TrainArgs) -> anyhow::Result<()> {
    use agentbench_server::train::{self, TrainConfig, TrainSettings, WorkerLaunch};
    let suite = agentbench_datasets::Suite::load(&args.suite)?;
    let name = args.name.clone().unwrap_or_else(|| {
        std::path::Path::new(&args.model).file_name().map_or_else(
            || args.model.clone(),
            |name| name.to_string_lossy().into_owned(),
        )
    });
    let config = TrainConfig {
        suite: args.suite,
        suite_hash: suite.hash,
        model: args.model.clone(),
        name: name.clone(),
        scorers: args.scorers,
        credit: args.credit,
        gamma: args.gamma,
        step_weight: args.step_weight,
        updates: args.updates.unwrap_or(10),
        scenarios_per_update: args.scenarios_per_update,
        train_limit: args.train_limit,
        group: args.group,
        temperature: args.temperature,
        max_tokens: args.max_tokens,
        clip: args.clip,
        kl_coef: args.kl_coef,
        ppo_epochs: args.ppo_epochs,
        lr: args.lr,
        lora: args.lora,
        sft_epochs: args.sft_epochs,
        sft_batch: args.sft_batch,
        eval_every: args.eval_every,
        eval_trials: args.eval_trials,
        eval_temperature: args.eval_temperature,
        eval_limit: args.eval_limit,
        max_staleness: if args.sync { 0 } else { args.max_staleness },
        tool_grammar: args.tool_grammar,
        mode: args.mode,
        seed: args.seed,
    };
    let settings = TrainSettings {
        launch: WorkerLaunch {
            python: args.python,
            model: args.model,
            name,
            device: args.device,
            dtype: args.dtype,
            lr: config.lr,
            seed: config.seed,
            checkpoints: args.out.join("checkpoints"),
            threads: args.threads,
            no_reference: config.kl_coef == 0.0,
            lora: config.lora,
            env: Vec::new(),
        },
        config,
        worker_url: args.worker,
        generator: args.generator,
        generator_env: args.generator_env,
        out: args.out,
        resume: args.resume,
        more_updates: args.updates,
        db: args.db,
        server: args.server,
        identity: args.identity.identity(),
        policies: match &args.policies {
            Some(dir) => AddedPolicies::read(dir)?,
            None => AddedPolicies::default(),
        },
        scoring: args.scoring.settings(),
        concurrency: args.concurrency,
        timeout: args.agent_timeout,
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let state = runtime.block_on(train::train(&settings))?;
    print!("{}", train::summary(&state));
    Ok(())
}

fn run_suite(args: Box<RunArgs>) -> anyhow::Result<ExitCode> {
    let policies = match &args.policies {
        Some(dir) => AddedPolicies::read(dir)?,
        None => AddedPolicies::default(),
    };
    let settings = RunSettings {
        suite: args.suite,
        agent_settings: args.agent.settings(),
        agent: args.agent.agent,
        trials: args.trials,
        concurrency: args.concurrency,
        server: args.server,
        limit: args.limit,
        sample_seed: args.sample_seed,
        out: args.out,
        db: args.db,
        mode: args.mode,
        gate: args.gate,
        baseline: args.baseline,
        resume: args.resume,
        revision: args.revision,
        policies,
        scenarios: None,
        training: None,
        identity: args.identity.identity(),
        finish_only: args.finish.is_some(),
        run_id: args.finish.or(args.run_id),
        shard: args.shard,
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let outcome = match runtime.block_on(run::run(&settings))? {
        run::RunEnd::Judged(outcome) => outcome,
        run::RunEnd::ShareDone {
            run,
            shard,
            share,
            missing,
        } => {
            println!(
                "shard {shard} of run {run}: its {share} episodes are recorded; {missing} of \
                 other shards are not yet. The shard that finds them all recorded judges the \
                 run (or: agentbench run --finish {run})."
            );
            return Ok(ExitCode::SUCCESS);
        }
    };
    let mut out = std::io::stdout().lock();
    write!(out, "{}", run::report_summary(&outcome.report))?;
    out.flush().context("cannot write to stdout")?;
    if let Some(problem) = &outcome.problem {
        eprintln!("error: {problem}");
    }
    Ok(ExitCode::from(outcome.exit_code))
}

fn serve_baseline(
    baseline: agentbench_agents::Baseline,
    addr: std::net::SocketAddr,
    suite: &str,
) -> anyhow::Result<()> {
    let suite = agentbench_datasets::Suite::load(suite)?;
    let sandbox = agentbench_server::builtin::sandbox(Limits::default())?;
    let manifests = agentbench_server::builtin::load_all(&sandbox)?
        .iter()
        .map(|image| (image.manifest().name.clone(), image.manifest().clone()))
        .collect();
    let router = chat_api::chat_router(
        Arc::new(agentbench_agents::Scripted::baseline(baseline)),
        Arc::new(suite),
        manifests,
    );
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        eprintln!("{}{}", agentbench_server::LISTENING, listener.local_addr()?);
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .context("the agent server failed")
    })
}

fn validate_suites(suites: Vec<String>) -> anyhow::Result<()> {
    let suites = load_suites(suites)?;
    let envs = agentbench_server::builtin::default_runtime_envs()?;
    let mut problems = Vec::new();
    let mut out = std::io::stdout().lock();
    for suite in &suites {
        writeln!(out, "{}", validate::counts(suite))?;
        problems.extend(validate::check_suite(suite, &envs));
    }
    out.flush().context("cannot write to stdout")?;
    if !problems.is_empty() {
        let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
        anyhow::bail!("{} problems:\n{}", problems.len(), list.join("\n"));
    }
    Ok(())
}

/// Where a `prm` command's report goes: stdout, as text or JSON, and the database when one is
/// named.
struct Output {
    json: bool,
    db: Option<String>,
}

impl Output {
    /// Prints `report` (with `footer` under the text form) and records `measurement`.
    fn report(
        &self,
        report: &(impl serde::Serialize + std::fmt::Display),
        footer: &str,
        measurement: prm::Measurement<'_>,
    ) -> anyhow::Result<()> {
        let recorded = match &self.db {
            Some(db) => {
                let runtime =
                    tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
                let id = runtime.block_on(async {
                    let store = Store::open(db, DbSync::Normal).await?;
                    prm::record(&store, measurement).await
                })?;
                format!("recorded as {id} in {db}\n")
            }
            None => String::new(),
        };
        let mut out = std::io::stdout().lock();
        if self.json {
            serde_json::to_writer_pretty(&mut out, report)?;
            writeln!(out)?;
        } else {
            write!(out, "{report}{footer}{recorded}")?;
        }
        out.flush().context("cannot write to stdout")
    }
}

fn prm_eval(
    spec: &str,
    set: SetArgs,
    scoring: &prm::ScorerSettings,
    split: prm::Split,
    threshold: f64,
    output: &Output,
) -> anyhow::Result<()> {
    let scorer = prm::scorer(spec, scoring)?;
    let set = set.load(split)?;
    let started = std::time::Instant::now();
    let rewards = set.rewards(scorer.as_ref());
    let seconds = started.elapsed().as_secs_f64();
    let report = prm::evaluate(scorer.as_ref(), &set, threshold, &rewards);
    let footer = format!(
        "scored {} steps in {seconds:.2} s ({:.0} steps/s)\n",
        report.steps,
        report.steps as f64 / seconds.max(1e-9)
    );
    output.report(&report, &footer, prm::Measurement::Eval(&report))
}

fn prm_best_of_n(
    agent: &AgentArgs,
    spec: &str,
    scoring: &prm::ScorerSettings,
    settings: BestOfNSettings,
    suites: Vec<String>,
    output: &Output,
) -> anyhow::Result<()> {
    let player = build_agent(&agent.agent, &agent.settings())?;
    let scorer = prm::scorer(spec, scoring)?;
    let suites = load_suites(suites)?;
    let envs = agentbench_server::builtin::default_runtime_envs()?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(compare_best_of_n(
        &suites,
        &envs,
        player.as_ref(),
        scorer.as_ref(),
        settings,
    ))?;
    output.report(&report, "", prm::Measurement::BestOfN(&report))
}

fn prm_train(
    set: SetArgs,
    split: prm::Split,
    out: &std::path::Path,
    encoder: &std::path::Path,
    epochs: usize,
    encoding: agentbench_encoder::Encoding,
) -> anyhow::Result<()> {
    let encoder = prm::load_encoder(encoder)?;
    let set = set.load(split)?;
    let options = TrainOptions {
        epochs,
        encoding,
        ..TrainOptions::default()
    };
    let scorer = prm::train(&set, encoder, &options)?;
    scorer.save(out)?;
    let training = scorer.training();
    println!(
        "trained the learned PRM (version {}) on {} steps ({} harmful) of {}: encoded in {:.1} s, \
         fitted in {:.1} s ({} epochs, final loss {:.4}, training accuracy {:.3}); written to {}",
        scorer.version(),
        training.steps,
        training.harmful_steps,
        training.source,
        training.encode_seconds,
        training.fit_seconds,
        options.epochs,
        training.fit.loss,
        training.fit.accuracy,
        out.join("head.json").display()
    );
    Ok(())
}

/// The suites named (built-in names or folders), or every built-in suite when none is.
fn load_suites(names: Vec<String>) -> anyhow::Result<Vec<agentbench_datasets::Suite>> {
    let names = if names.is_empty() {
        agentbench_datasets::builtin_names()
            .into_iter()
            .map(str::to_owned)
            .collect()
    } else {
        names
    };
    Ok(names
        .iter()
        .map(|name| agentbench_datasets::Suite::load(name))
        .collect::<Result<Vec<_>, _>>()?)
}

fn mutate_suites(
    suites: Vec<String>,
    threshold: f64,
    json: bool,
    limit: Option<usize>,
) -> anyhow::Result<ExitCode> {
    let suites = load_suites(suites)?;
    let envs = agentbench_server::builtin::default_runtime_envs()?;
    let report = mutate::mutate(&suites, &envs, limit)?;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &report.to_json(threshold))?;
        writeln!(out)?;
    } else {
        write!(out, "{}", report.table(threshold))?;
    }
    out.flush().context("cannot write to stdout")?;
    Ok(if report.passes(threshold) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn rescore_run(
    run: &str,
    spec: &str,
    db: &str,
    scoring: &prm::ScorerSettings,
) -> anyhow::Result<ExitCode> {
    use agentbench_server::rescore;
    let scorer = prm::scorer(spec, scoring)?;
    let envs = agentbench_server::builtin::default_runtime_envs()?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let (store, replayed) = runtime.block_on(async {
        let store = Store::open(db, DbSync::Normal).await?;
        let replayed = rescore::replayed(&store, &run.into(), &envs).await?;
        anyhow::Ok((store, replayed))
    })?;
    // Off the runtime: a judge blocks on its own.
    let rescored = rescore::score(&replayed, scorer.as_ref(), DEFAULT_FLAG_BELOW);
    println!(
        "rescored {} episodes ({} steps) of run {run} with {} (version {}): mean reward {:.3}, \
         {} steps below {DEFAULT_FLAG_BELOW}, {} unmeasured; scored in {:.2} s ({:.0} steps/s)",
        replayed.episodes.len(),
        rescored.steps,
        scorer.name(),
        scorer.version(),
        rescored.mean_reward,
        rescored.flagged,
        rescored.unmeasured,
        rescored.scoring_seconds,
        rescored.steps as f64 / rescored.scoring_seconds.max(1e-9)
    );
    runtime.block_on(rescore::store(&store, rescored))?;
    if replayed.skipped.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("{} episodes not rescored:", replayed.skipped.len());
    for reason in &replayed.skipped {
        eprintln!("  {reason}");
    }
    Ok(ExitCode::from(2))
}

fn label_run(
    source: &str,
    db: &str,
    out: &std::path::Path,
    monte_carlo: Option<(Box<dyn agentbench_agents::Agent>, u32)>,
) -> anyhow::Result<ExitCode> {
    let path = std::path::Path::new(source);
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let run = if path.exists() {
        RecordedRun::from_file(path)?
    } else {
        runtime.block_on(async {
            let store = Store::open(db, DbSync::Normal).await?;
            RecordedRun::from_store(&store, &source.into()).await
        })?
    };
    let envs = agentbench_server::builtin::default_runtime_envs()?;
    let started = std::time::Instant::now();
    let (mut labelled, mut failed) = label::label_run(&run, &envs);
    let seconds = started.elapsed().as_secs_f64();
    if let Some((agent, k)) = &monte_carlo {
        let started = std::time::Instant::now();
        failed.extend(runtime.block_on(label::add_monte_carlo_run(
            &run,
            &envs,
            &mut labelled,
            agent.as_ref(),
            *k,
        )));
        let steps: usize = labelled.iter().map(|labels| labels.steps.len()).sum();
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "drew Monte Carlo labels: {k} continuations by `{}` from each of {steps} steps in \
             {seconds:.2} s ({:.0} steps/s)",
            agent.name(),
            steps as f64 / seconds.max(1e-9)
        );
    }

    let mut file = std::io::BufWriter::new(
        std::fs::File::create(out).with_context(|| format!("cannot create {}", out.display()))?,
    );
    for labels in &labelled {
        serde_json::to_writer(&mut file, labels)?;
        writeln!(file)?;
    }
    file.flush()
        .with_context(|| format!("cannot write {}", out.display()))?;

    let steps: usize = labelled.iter().map(|labels| labels.steps.len()).sum();
    let harmful = labelled.iter().filter(|labels| labels.harmful()).count();
    let harmful_steps: usize = labelled
        .iter()
        .flat_map(|labels| &labels.steps)
        .filter(|step| step.harmful)
        .count();
    println!(
        "labelled {} episodes ({steps} steps) in {seconds:.2} s ({:.0} steps/s): {harmful} with a \
         harmful step, {harmful_steps} harmful steps; written to {}",
        labelled.len(),
        steps as f64 / seconds.max(1e-9),
        out.display()
    );
    if failed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("{} episodes could not be labelled:", failed.len());
    for reason in &failed {
        eprintln!("  {reason}");
    }
    Ok(ExitCode::from(2))
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
    later_scorers: Vec<Box<dyn agentbench_scorers::StepScorer>>,
    drain_delay: std::time::Duration,
) -> anyhow::Result<()> {
    let limits = Limits::default();
    // Forks and restores need instances beyond the hot pool's.
    let most_hot = usize::try_from(limits.max_instances / 2)?;
    anyhow::ensure!(
        settings.max_hot_episodes <= most_hot,
        "--max-hot-episodes must be at most {most_hot} (half the sandbox's instance limit)"
    );
    let sandbox = agentbench_server::builtin::sandbox(limits)?;
    // This thread's runtime opens the store, accepts connections and runs the background tasks;
    // the requests are served on a runtime per core (see `serving`).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let (app, listener) = runtime.block_on(async {
        let store = Store::open(db, db_sync).await?;
        if matches!(settings.access, Access::Keys { .. }) && !store.has_live_keys().await? {
            anyhow::bail!(
                "serving with API keys (the default on a non-loopback address like {addr}) needs a \
                 key, and {db} has none: make one with `agentbench keys create --scope admin`, or \
                 pass `--auth open` to serve without keys (whoever reaches the address may then \
                 do anything)"
            );
        }
        let app = Arc::new(App::with_builtin_envs(&sandbox, added, settings, store).await?);
        app.sessions.spawn_expiry();
        app.sessions.score_later(later_scorers);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        anyhow::Ok((app, listener))
    })?;
    eprintln!("{}{}", agentbench_server::LISTENING, listener.local_addr()?);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let draining = Arc::clone(&app);
    agentbench_server::serving::serve(&runtime, app, listener, threads, async move {
        stop_signal().await;
        draining
            .draining
            .store(true, std::sync::atomic::Ordering::Release);
        agentbench_server::metrics::metrics().drain();
        eprintln!("draining: /readyz answers 503; stopping in {drain_delay:?}");
        tokio::time::sleep(drain_delay).await;
    })
    .context("the server failed")?;
    eprintln!("stopped: every request under way was answered");
    Ok(())
}

/// Resolves on the first SIGTERM (how Kubernetes and most supervisors stop a process) or Ctrl-C.
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut terminate) => {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        Err(error) => {
            tracing::warn!(%error, "cannot listen for SIGTERM; stopping on Ctrl-C only");
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// `envs show`: resets `env` with `seed` and `task` and prints its world.
fn show_env(env: &str, seed: u64, task: &str) -> anyhow::Result<()> {
    let task: serde_json::Value =
        serde_json::from_str(task).with_context(|| format!("--task is not JSON: `{task}`"))?;
    anyhow::ensure!(
        task.is_object(),
        "--task must be a JSON object, got `{task}`"
    );
    let envs = agentbench_server::builtin::default_runtime_envs()?;
    let loaded = envs.get(env).with_context(|| {
        let known: Vec<&str> = envs.keys().map(String::as_str).collect();
        format!(
            "no built-in env `{env}` (the envs are: {})",
            known.join(", ")
        )
    })?;
    let (mut episode, observation) = Episode::start(loaded.clone(), seed, &task, Mode::Enforce)
        .with_context(|| format!("{env} refuses the task config"))?;
    let shown = serde_json::json!({
        "env": env,
        "version": loaded.manifest().version,
        "seed": seed,
        "observation": observation,
        "world": episode.world()?,
        "sensitive": episode.sensitive()?,
    });
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &shown)?;
    writeln!(out)?;
    out.flush().context("cannot write to stdout")
}

fn envs(json: bool) -> anyhow::Result<()> {
    let sandbox = agentbench_server::builtin::sandbox(Limits::default())?;
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
