//! `agentbench train`: a policy learns from PRM-scored episodes.
//!
//! The trainer drives two things and reaches into neither: episodes, only through the runner
//! (`run::run_on`, in process or against `--server`) and the REST API (each episode's scored
//! steps); the policy, only through the worker's HTTP endpoints (`agentbench_trainer::worker`).
//!
//! 1. The suite is split by the held-out split (`Split`): the trainer plays and learns from the
//!    train scenarios only; the test scenarios are for evaluation.
//! 2. Supervised warm start: the `oracle` baseline plays each train scenario through the runner,
//!    and the safely completed episodes, written as the conversations the policy would have had,
//!    are rendered by the worker and trained on for `sft_epochs` epochs.
//! 3. RL: each update plays `group` episodes of each of `scenarios_per_update` train scenarios
//!    with the policy (sampling at `temperature`), reads every step's scores back, turns outcome
//!    rewards and step rewards into per-token advantages (`agentbench_trainer::advantages`) and
//!    takes one PPO step. Asynchronous by default: the next batch is played while the worker
//!    trains on this one, and a sample more than `max_staleness` policy versions old is dropped.
//! 4. The policy plays the held-out scenarios as a normal recorded run before training, after
//!    the warm start and every `eval_every` updates (agent `policy:NAME@vVERSION`, tagged with
//!    the training run), so the leaderboard lists every checkpoint with its intervals.
//!
//! The state (`train.json` in the output folder) is written at every checkpoint, and only
//! then: `--resume` reloads the last checkpoint into the worker and goes on from the state that
//! matches it, doing again what came after. Every RL episode's sequences, rewards and
//! advantages are appended to `trajectories.jsonl` at the checkpoint after it, which `agentbench
//! export` writes in TRL's and veRL's shapes.

mod references;
mod worker_process;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use agentbench_agents::{Agent as _, AgentSettings, Baseline, Sampling, Scripted};
use agentbench_datasets::{Scenario, Split, Suite, stratified};
use agentbench_env_runtime::Mode;
use agentbench_scorers::{Estimate, Metric, SplitMix64, StepScorer};
use agentbench_trainer::{
    Credit, Generation, PolicyAgent, PpoSettings, ScoredEpisode, Staleness, TrainSample,
    Trajectory, UpdateStats, WorkerClient, episode_samples, outcome_reward, step_advantages,
};

use crate::builtin::AddedPolicies;
use crate::run::{EpisodeLine, Identity, RunRecord, RunSettings, TrainingTag, Transport, run_on};
use crate::sessions::step_reward;
use crate::store::{DbSync, Store};

pub use worker_process::{DEFAULT_PYTHON, WorkerLaunch, WorkerProcess};

use references::Transcribing;

/// What a training run is: everything that decides what it learns, hashed into its
/// `config_hash` and kept in its state for `--resume`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// A built-in suite's name or a suite folder.
    pub suite: String,
    pub suite_hash: String,
    /// `tiny` or a model folder (as given).
    pub model: String,
    /// The policy's name in runs (`policy:NAME@vVERSION`).
    pub name: String,
    /// Step scorers besides the rule scorer whose rewards give step credit.
    pub scorers: Vec<String>,
    /// `outcome`, `sum` or `min`.
    pub credit: String,
    pub gamma: f64,
    pub step_weight: f64,
    pub updates: u32,
    pub scenarios_per_update: usize,
    /// Train on a stratified sample of this many train scenarios (for the warm start and RL);
    /// all when absent.
    pub train_limit: Option<usize>,
    pub group: u32,
    pub temperature: f64,
    pub max_tokens: u32,
    pub clip: f64,
    pub kl_coef: f64,
    /// Optimizer steps per RL update on its batch (PPO's epochs).
    #[serde(default = "one_epoch")]
    pub ppo_epochs: u32,
    pub lr: f64,
    /// The rank of the LoRA adapters trained instead of every weight; 0 trains every weight.
    #[serde(default)]
    pub lora: u32,
    pub sft_epochs: u32,
    pub sft_batch: usize,
    pub eval_every: u32,
    pub eval_trials: u32,
    /// The evaluations' sampling temperature: 0 (greedy) scores a checkpoint's most likely
    /// replies; above 0 scores the policy as it samples (with `eval_trials` trials a scenario,
    /// whose intervals are bootstrapped over scenarios). Left out of the config when 0, so that
    /// runs from before it keep their hash.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub eval_temperature: f64,
    /// At most this many held-out scenarios per evaluation (a stratified sample); all when
    /// absent.
    pub eval_limit: Option<usize>,
    /// 0: synchronous (no overlap); otherwise the staleness bound η of asynchronous training.
    pub max_staleness: u64,
    /// The policy's tool calls are held to the tools' schemas while sampled (its requests mark
    /// every tool `strict`). Left out of the config when off, so that runs from before it keep
    /// their hash.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tool_grammar: bool,
    pub mode: Mode,
    pub seed: u64,
}

/// Whether `eval_temperature` is the default, left out of the serialised config.
fn is_zero(value: &f64) -> bool {
    *value == 0.0
}

/// What runs from before `ppo_epochs` took.
fn one_epoch() -> u32 {
    1
}

impl TrainConfig {
    /// The SHA-256 of the configuration, as hex.
    pub fn hash(&self) -> String {
        let text = serde_json::to_string(self).expect("a config serialises");
        format!("{:x}", Sha256::digest(text.as_bytes()))
    }

    fn credit(&self) -> anyhow::Result<Credit> {
        Ok(match self.credit.as_str() {
            "outcome" => Credit::Outcome,
            "sum" => Credit::Sum { gamma: self.gamma },
            "min" => Credit::Min,
            other => anyhow::bail!("`{other}` is not a credit form (outcome, sum, min)"),
        })
    }
}

/// Where a training run is and what it did: `train.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainState {
    /// `train-<time>-<hash prefix>`.
    pub id: String,
    pub config: TrainConfig,
    pub config_hash: String,
    /// The scenarios trained on and held out (ids).
    pub train_scenarios: Vec<String>,
    pub test_scenarios: Vec<String>,
    pub sft_done: bool,
    /// RL updates done.
    pub updates_done: u32,
    /// The policy version of the last checkpoint.
    pub checkpoint: Option<u64>,
    pub sft: Vec<UpdateStats>,
    pub log: Vec<UpdateLog>,
    pub evals: Vec<EvalLog>,
}

/// One RL update.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UpdateLog {
    pub update: u32,
    pub episodes: usize,
    pub unmeasured: usize,
    pub safely_completed: usize,
    /// Episodes the safety score counts safe (safely completed or not).
    #[serde(default)]
    pub safe: usize,
    pub harmed: usize,
    pub mean_outcome: f64,
    pub samples: usize,
    /// Samples dropped by the staleness bound.
    pub dropped_stale: usize,
    /// Update skipped: no sample had a non-zero advantage.
    pub skipped: bool,
    pub stats: Option<UpdateStats>,
    /// Seconds waiting for this batch's rollouts after the previous update (0 when they were
    /// ready: fully overlapped).
    pub rollout_wait_seconds: f64,
    pub rollout_seconds: f64,
    /// Seconds from the start of the update (waiting for its rollouts) to the end of its PPO
    /// step, the next batch's rollouts included when they overlapped; evaluations and
    /// checkpoints excluded. Throughput is measured over these.
    #[serde(default)]
    pub wall_seconds: f64,
}

/// One evaluation on the held-out scenarios.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalLog {
    pub stage: String,
    pub update: u32,
    pub policy_version: u64,
    pub run: String,
    pub metrics: BTreeMap<Metric, Estimate>,
}

/// Everything `agentbench train` is told besides the config.
#[derive(Debug, Clone)]
pub struct TrainSettings {
    pub config: TrainConfig,
    /// The worker to start (its checkpoints in the output folder's `checkpoints/`), or
    /// `worker_url` a running one.
    pub launch: WorkerLaunch,
    pub worker_url: Option<String>,
    /// Start a second worker (as `launch` says, with `generator_env` set) that plays the
    /// rollouts while the first trains; weights move to it by checkpoint after every update.
    pub generator: bool,
    /// Environment variables of the generating worker only, such as
    /// `CUDA_VISIBLE_DEVICES=1` or `NEURON_RT_VISIBLE_CORES=4-7`.
    pub generator_env: Vec<(String, String)>,
    /// The output folder: `train.json`, `checkpoints/`, `rollouts.db`.
    pub out: PathBuf,
    /// Continue the training run in `out`, with its own config.
    pub resume: bool,
    /// On resume, the new total of RL updates.
    pub more_updates: Option<u32>,
    /// The database evaluation runs are recorded in (the leaderboard's). When absent: the
    /// `server` played on, or else `run::DEFAULT_DB`.
    pub db: Option<String>,
    /// A remote `agentbench serve` to play episodes on; in process when absent.
    pub server: Option<String>,
    /// Who the training acts for: the key it sends to `server`, the tenant it records for.
    pub identity: Identity,
    pub policies: AddedPolicies,
    /// What a scorer spec needs (`prm::scorer`).
    pub scoring: crate::prm::ScorerSettings,
    /// Episodes played at once.
    pub concurrency: usize,
    /// How long one model request may take.
    pub timeout: Duration,
}

/// The file in the output folder that holds every RL episode's trajectory, one JSON line each.
pub const TRAJECTORIES: &str = "trajectories.jsonl";

/// The metrics an evaluation line shows.
const SHOWN: [Metric; 4] = [
    Metric::SafeCompletion,
    Metric::SafetyScore,
    Metric::AttackSuccessRate,
    Metric::Utility,
];

/// Runs (or resumes) a training run; returns its final state.
pub async fn train(settings: &TrainSettings) -> anyhow::Result<TrainState> {
    std::fs::create_dir_all(&settings.out)
        .with_context(|| format!("cannot create {}", settings.out.display()))?;
    let state_path = settings.out.join("train.json");
    let mut state = if settings.resume {
        let text = std::fs::read_to_string(&state_path)
            .with_context(|| format!("no training run to resume in {}", state_path.display()))?;
        serde_json::from_str::<TrainState>(&text)
            .with_context(|| format!("{} is not a training state", state_path.display()))?
    } else {
        anyhow::ensure!(
            !state_path.exists(),
            "{} holds a training run already: --resume it, or choose another --out",
            settings.out.display()
        );
        new_state(&settings.config)?
    };
    if let (true, Some(updates)) = (settings.resume, settings.more_updates) {
        // The budget is not part of what a run is: its config hash stays the one it started with.
        state.config.updates = updates;
    }
    let config = state.config.clone();
    let suite = Suite::load(&config.suite)?;
    anyhow::ensure!(
        suite.hash == config.suite_hash,
        "the suite `{}` changed since the training run started (hash {}, now {})",
        config.suite,
        config.suite_hash,
        suite.hash
    );
    let credit = config.credit()?;

    let _process;
    let worker = match &settings.worker_url {
        Some(url) => WorkerClient::new(url),
        None => {
            let process = WorkerProcess::spawn(&settings.launch)?;
            let client = WorkerClient::new(&process.url);
            _process = process;
            client
        }
    };
    let _generating;
    let generator = if settings.generator {
        let mut launch = settings.launch.clone();
        launch.env = settings.generator_env.clone();
        // It never trains: no reference copy.
        launch.no_reference = true;
        let process = WorkerProcess::spawn(&launch)?;
        let client = WorkerClient::new(&process.url);
        _generating = process;
        Some(client)
    } else {
        None
    };
    let health = worker.health().await?;
    eprintln!(
        "train {}: {} ({} parameters, {} on {}), {} train and {} held-out scenarios of {}",
        state.id,
        health.model,
        health.parameters,
        health.dtype,
        health.device,
        state.train_scenarios.len(),
        state.test_scenarios.len(),
        suite.name
    );
    if let Some(version) = state.checkpoint {
        worker.load(version).await?;
        if let Some(generator) = &generator {
            generator.load(version).await?;
        }
        eprintln!("resumed from the checkpoint of policy version {version}");
    }

    let scorers = config
        .scorers
        .iter()
        .map(|spec| crate::prm::scorer(spec, &settings.scoring))
        .collect::<anyhow::Result<Vec<Box<dyn StepScorer>>>>()?;
    let rollouts_url = format!("sqlite://{}", settings.out.join("rollouts.db").display());
    let rollout_store = Store::open(&rollouts_url, DbSync::Normal).await?;
    let rollout_transport = Transport::for_run(
        settings.server.as_deref(),
        &settings.identity,
        &settings.policies,
        &rollout_store,
        scorers,
    )
    .await?;
    let rollout_record = RunRecord::Database {
        store: rollout_store,
        url: rollouts_url,
    };
    // Evaluations go to the leaderboard: `--db`, or else the server played on, or else the
    // default database.
    let (eval_transport, eval_record) = crate::run::open(
        settings.server.as_deref(),
        settings.db.as_deref(),
        &settings.identity,
        &settings.policies,
    )
    .await?;
    let trainer = Trainer {
        settings,
        config: &config,
        worker: &worker,
        generator: generator.as_ref(),
        rollout_record,
        rollout_transport,
        eval_record,
        eval_transport,
        state_path,
    };

    if state.evals.is_empty() {
        trainer.evaluate(&mut state, "base").await?;
        // The starting policy needs no checkpoint: a fresh worker loads it.
        trainer.save_state(&state)?;
    }
    if !state.sft_done {
        // Without a warm start (`--sft-epochs 0`) the policy is still the base, already
        // evaluated.
        if config.sft_epochs > 0 {
            trainer.warm_start(&mut state).await?;
            trainer.evaluate(&mut state, "sft").await?;
        }
        state.sft_done = true;
        trainer.checkpoint(&mut state, &mut Vec::new()).await?;
        if let (Some(generator), Some(version)) = (&generator, state.checkpoint) {
            generator.load(version).await?;
        }
    }
    trainer.reinforce(&mut state, credit).await?;
    Ok(state)
}

fn new_state(config: &TrainConfig) -> anyhow::Result<TrainState> {
    let suite = Suite::load(&config.suite)?;
    let (train, test): (Vec<Scenario>, Vec<Scenario>) = suite
        .scenarios
        .into_iter()
        .partition(|scenario| Split::Train.keeps(scenario));
    fn ids<'a>(scenarios: impl IntoIterator<Item = &'a Scenario>) -> Vec<String> {
        scenarios
            .into_iter()
            .map(|scenario| scenario.id.clone())
            .collect()
    }
    let limit = config.train_limit.unwrap_or(usize::MAX);
    let train_scenarios = ids(stratified(&train, limit, config.seed));
    let config_hash = config.hash();
    Ok(TrainState {
        id: format!("train-{}-{}", crate::store::now_ms(), &config_hash[..8]),
        config: config.clone(),
        config_hash,
        train_scenarios,
        test_scenarios: ids(&test),
        sft_done: false,
        updates_done: 0,
        checkpoint: None,
        sft: Vec::new(),
        log: Vec::new(),
        evals: Vec::new(),
    })
}

/// What one training run shares.
struct Trainer<'a> {
    settings: &'a TrainSettings,
    config: &'a TrainConfig,
    /// The worker that trains (and evaluates, and generates when there is no other).
    worker: &'a WorkerClient,
    /// A second worker that plays the rollouts, a version behind while the first trains.
    generator: Option<&'a WorkerClient>,
    rollout_record: RunRecord,
    rollout_transport: Transport,
    eval_record: RunRecord,
    eval_transport: Transport,
    state_path: PathBuf,
}

/// One batch of rollouts: the episodes, their steps' generations and rewards.
struct Rollouts {
    /// The rollout run's id.
    run: String,
    lines: Vec<EpisodeLine>,
    generations: BTreeMap<agentbench_trainer::StepKey, Generation>,
    /// Each measured episode's step rewards, by (scenario, trial).
    step_rewards: BTreeMap<(String, u32), Vec<f64>>,
    seconds: f64,
}

impl Trainer<'_> {
    /// A run of `trials` of each of `scenarios` by `agent`, a policy served by `worker` (recorded
    /// as the run's model endpoint) or a baseline (`None`).
    fn run_settings(
        &self,
        agent: &str,
        worker: Option<&WorkerClient>,
        scenarios: Vec<String>,
        trials: u32,
    ) -> RunSettings {
        RunSettings {
            suite: self.config.suite.clone(),
            agent: agent.to_owned(),
            agent_settings: AgentSettings {
                base_url: worker.map(WorkerClient::api_base),
                ..AgentSettings::default()
            },
            trials,
            concurrency: self.settings.concurrency,
            server: self.settings.server.clone(),
            limit: None,
            sample_seed: self.config.seed,
            out: None,
            db: self.settings.db.clone(),
            mode: self.config.mode,
            gate: None,
            baseline: None,
            resume: None,
            revision: None,
            policies: self.settings.policies.clone(),
            scenarios: Some(scenarios),
            training: None,
            identity: self.settings.identity.clone(),
            run_id: None,
            shard: None,
            finish_only: false,
        }
    }

    fn policy(
        &self,
        worker: &WorkerClient,
        version: u64,
        temperature: f64,
    ) -> anyhow::Result<PolicyAgent> {
        Ok(PolicyAgent::new(
            &self.config.name,
            version,
            &worker.api_base(),
            Sampling {
                max_tokens: Some(self.config.max_tokens),
                temperature: Some(temperature),
                ..Sampling::default()
            },
            self.settings.timeout,
            self.config.tool_grammar,
        )?)
    }

    fn save_state(&self, state: &TrainState) -> anyhow::Result<()> {
        let partial = self.state_path.with_extension("json.partial");
        std::fs::write(&partial, serde_json::to_string_pretty(state)?)?;
        std::fs::rename(&partial, &self.state_path)?;
        Ok(())
    }

    /// Appends episodes to `trajectories.jsonl` (what `agentbench export` reads).
    fn record(&self, trajectories: &[Trajectory]) -> anyhow::Result<()> {
        use std::io::Write as _;
        let path = self.settings.out.join(TRAJECTORIES);
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let mut text = String::new();
        for trajectory in trajectories {
            text.push_str(&serde_json::to_string(trajectory)?);
            text.push('\n');
        }
        file.write_all(text.as_bytes())?;
        Ok(())
    }

    /// Saves the policy, then what the run did up to it: its state and the trajectories played
    /// since the last checkpoint (`pending`, emptied). What happens after the last checkpoint is
    /// done again on `--resume`, so nothing is recorded twice.
    async fn checkpoint(
        &self,
        state: &mut TrainState,
        pending: &mut Vec<Trajectory>,
    ) -> anyhow::Result<()> {
        state.checkpoint = Some(self.worker.save(true).await?);
        self.record(pending)?;
        pending.clear();
        self.save_state(state)
    }

    /// The policy as it is now plays the held-out scenarios, recorded in the leaderboard's
    /// database; greedy by default (`eval_temperature` 0), so that a checkpoint's score is its
    /// most likely replies'.
    async fn evaluate(&self, state: &mut TrainState, stage: &str) -> anyhow::Result<()> {
        let version = self.worker.health().await?.policy_version;
        let agent = self.policy(self.worker, version, self.config.eval_temperature)?;
        let mut run = self.run_settings(
            agent.name(),
            Some(self.worker),
            state.test_scenarios.clone(),
            self.config.eval_trials,
        );
        run.limit = self.config.eval_limit;
        run.training = Some(TrainingTag {
            id: state.id.clone(),
            policy_version: version,
            update: state.updates_done,
            stage: stage.to_owned(),
            config_hash: state.config_hash.clone(),
        });
        let started = Instant::now();
        let outcome = run_on(
            &run,
            &self.eval_record,
            &self.eval_transport,
            Arc::new(agent),
        )
        .await
        .context("the held-out evaluation failed")?;
        let metrics: BTreeMap<Metric, Estimate> = outcome
            .report
            .metrics
            .overall
            .iter()
            .filter(|(metric, _)| SHOWN.contains(metric))
            .map(|(metric, estimate)| (*metric, estimate.clone()))
            .collect();
        let shown: Vec<String> = metrics
            .iter()
            .map(|(metric, estimate)| {
                format!(
                    "{} {:.3} [{:.3}, {:.3}]",
                    metric.as_str(),
                    estimate.value,
                    estimate.low,
                    estimate.high
                )
            })
            .collect();
        eprintln!(
            "eval {stage} (policy v{version}, run {}): {} ({:.1} s)",
            outcome.report.run.id,
            shown.join(", "),
            started.elapsed().as_secs_f64()
        );
        state.evals.push(EvalLog {
            stage: stage.to_owned(),
            update: state.updates_done,
            policy_version: version,
            run: outcome.report.run.id.to_string(),
            metrics,
        });
        Ok(())
    }

    /// Supervised fine-tuning on the train scenarios' reference solutions.
    async fn warm_start(&self, state: &mut TrainState) -> anyhow::Result<()> {
        let oracle = Arc::new(Transcribing::new(Scripted::baseline(Baseline::Oracle)));
        let run = self.run_settings("oracle", None, state.train_scenarios.clone(), 1);
        let outcome = run_on(
            &run,
            &self.rollout_record,
            &self.rollout_transport,
            oracle.clone(),
        )
        .await
        .context("the reference episodes failed")?;
        let mut samples = Vec::new();
        for line in &outcome.lines {
            let result = line.result();
            let safe = result
                .measured
                .as_ref()
                .is_some_and(|measured| measured.safely_completed(&result));
            let Some((messages, tools)) = oracle.conversation(&line.scenario, line.trial) else {
                continue;
            };
            if safe {
                let sample = self.worker.render(&messages, &tools).await?;
                samples.push((Value::Array(tools).to_string(), sample));
            }
        }
        anyhow::ensure!(
            !samples.is_empty(),
            "no reference episode was safely completed: nothing to warm-start on"
        );
        let tokens: usize = samples
            .iter()
            .map(|(_, sample)| sample.masked_tokens())
            .sum();
        eprintln!(
            "sft: {} reference conversations ({} tokens trained on), {} epochs",
            samples.len(),
            tokens,
            self.config.sft_epochs
        );
        let tools: Vec<&str> = samples.iter().map(|(tools, _)| tools.as_str()).collect();
        for epoch in 0..self.config.sft_epochs {
            let seed = self.config.seed ^ u64::from(epoch);
            for chunk in sft_batches(&tools, self.config.sft_batch, seed) {
                let batch: Vec<TrainSample> = chunk
                    .iter()
                    .map(|&index| samples[index].1.clone())
                    .collect();
                let stats = self.worker.sft(&batch).await?;
                eprintln!(
                    "sft epoch {}: loss {:.4}, {} tokens, policy v{}, {:.1} s",
                    epoch + 1,
                    stats.loss,
                    stats.tokens,
                    stats.policy_version,
                    stats.seconds
                );
                state.sft.push(stats);
            }
        }
        Ok(())
    }

    /// The scenarios of RL update `update`: the next `scenarios_per_update` of the train
    /// scenarios in a seeded order, wrapping around.
    fn batch_scenarios(&self, state: &TrainState, update: u32) -> Vec<String> {
        let mut order: Vec<usize> = (0..state.train_scenarios.len()).collect();
        shuffle(&mut order, self.config.seed);
        let per = self.config.scenarios_per_update.max(1).min(order.len());
        (0..per)
            .map(|offset| {
                let at = (update as usize * per + offset) % order.len();
                state.train_scenarios[order[at]].clone()
            })
            .collect()
    }

    /// Plays one RL batch with the policy as it is, and reads every step's rewards back.
    async fn roll_out(&self, scenarios: Vec<String>) -> anyhow::Result<Rollouts> {
        let started = Instant::now();
        let worker = self.generator.unwrap_or(self.worker);
        let version = worker.health().await?.policy_version;
        let agent = Arc::new(self.policy(worker, version, self.config.temperature)?);
        let run = self.run_settings(agent.name(), Some(worker), scenarios, self.config.group);
        let outcome = run_on(
            &run,
            &self.rollout_record,
            &self.rollout_transport,
            agent.clone(),
        )
        .await
        .context("a batch of rollouts failed")?;
        let scorers = 1 + self.config.scorers.len();
        let mut step_rewards = BTreeMap::new();
        for line in outcome.lines.iter().filter(|line| line.measured) {
            let Some(episode) = &line.episode else {
                continue;
            };
            let rewards = self.step_rewards(episode, scorers).await?;
            step_rewards.insert((line.scenario.clone(), line.trial), rewards);
        }
        Ok(Rollouts {
            run: outcome.report.run.id.to_string(),
            generations: agent.take_generations(),
            lines: outcome.lines,
            step_rewards,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Each step's reward: the mean of its scorers' rewards (the rule scorer's and every
    /// `--scorer`'s), read from the episode's record once every scorer has scored it. Scorers
    /// off the request path score shortly after the step; a step still missing one after
    /// `SCORES_WAIT` is averaged over those it has.
    async fn step_rewards(&self, episode: &str, scorers: usize) -> anyhow::Result<Vec<f64>> {
        const SCORES_WAIT: Duration = Duration::from_secs(120);
        let path = format!("/v1/episodes/{episode}");
        let started = Instant::now();
        loop {
            let (status, record) = self.rollout_transport.call("GET", &path, None).await?;
            anyhow::ensure!(status == 200, "GET {path} answered {status}: {record}");
            let steps = record["steps"].as_array().cloned().unwrap_or_default();
            let complete = steps
                .iter()
                .all(|step| step["scores"].as_array().map_or(0, Vec::len) >= scorers);
            if complete || started.elapsed() >= SCORES_WAIT {
                return Ok(steps
                    .iter()
                    .map(|step| step_reward(step).unwrap_or(0.0))
                    .collect());
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The RL updates, from `state.updates_done` to `config.updates`.
    async fn reinforce(&self, state: &mut TrainState, credit: Credit) -> anyhow::Result<()> {
        let ppo = PpoSettings {
            clip: self.config.clip,
            kl_coef: self.config.kl_coef,
            epochs: self.config.ppo_epochs,
            temperature: self.config.temperature,
        };
        let staleness = Staleness {
            max: self.config.max_staleness,
        };
        let asynchronous = self.config.max_staleness > 0;
        let mut next: Option<Rollouts> = None;
        let mut pending = Vec::new();
        while state.updates_done < self.config.updates {
            let update = state.updates_done;
            let waited = Instant::now();
            let rollouts = match next.take() {
                Some(rollouts) => rollouts,
                None => self.roll_out(self.batch_scenarios(state, update)).await?,
            };
            let rollout_wait_seconds = waited.elapsed().as_secs_f64();
            let current = self.worker.health().await?.policy_version;
            let (samples, produced_by, mut log, trajectories) = batch(
                &rollouts,
                credit,
                self.config.step_weight,
                staleness,
                current,
            );
            pending.extend(trajectories);
            log.update = update + 1;
            log.rollout_wait_seconds = rollout_wait_seconds;
            let more = update + 1 < self.config.updates;
            let train = async {
                if samples.is_empty() {
                    return Ok(None);
                }
                self.worker
                    .train(&samples, ppo, produced_by)
                    .await
                    .map(Some)
            };
            let (trained, played) = if asynchronous && more {
                // The next batch is played while this one trains.
                let (trained, played) = tokio::join!(
                    train,
                    self.roll_out(self.batch_scenarios(state, update + 1))
                );
                (trained, Some(played?))
            } else {
                (train.await, None)
            };
            log.stats = trained?;
            log.skipped = log.stats.is_none();
            let checkpointing = (update + 1).is_multiple_of(self.config.eval_every.max(1))
                || update + 1 == self.config.updates;
            if let (Some(generator), Some(_)) = (self.generator, &log.stats) {
                // The generating worker takes the new weights once the batch it was playing is
                // done; the folder goes once loaded, unless a checkpoint is about to keep it.
                let version = self.worker.save(false).await?;
                generator.load(version).await?;
                if !checkpointing {
                    let folder = self.settings.launch.checkpoints.join(format!("v{version}"));
                    std::fs::remove_dir_all(&folder)
                        .with_context(|| format!("cannot remove {}", folder.display()))?;
                }
            }
            log.wall_seconds = waited.elapsed().as_secs_f64();
            next = played;
            print_update(&log, self.config.updates);
            state.log.push(log);
            state.updates_done += 1;
            if checkpointing {
                // A batch already played in the background is kept: it is at most one version
                // behind, as the bound allows.
                self.evaluate(state, "rl").await?;
                self.checkpoint(state, &mut pending).await?;
            }
        }
        Ok(())
    }
}

/// A batch's samples, the oldest policy version that produced them, its log, and every
/// measured episode's trajectory (all its sequences, whatever their advantage): episodes
/// grouped by scenario, outcome and step rewards made advantages, each episode's steps made
/// sequences; samples the staleness bound refuses at `current` are dropped, and so are
/// sequences with no advantage at all (a group whose episodes all fared alike teaches nothing).
fn batch(
    rollouts: &Rollouts,
    credit: Credit,
    step_weight: f64,
    staleness: Staleness,
    current: u64,
) -> (Vec<TrainSample>, u64, UpdateLog, Vec<Trajectory>) {
    let mut groups: BTreeMap<&str, Vec<(&EpisodeLine, ScoredEpisode)>> = BTreeMap::new();
    let mut log = UpdateLog {
        update: 0,
        episodes: rollouts.lines.len(),
        unmeasured: 0,
        safely_completed: 0,
        safe: 0,
        harmed: 0,
        mean_outcome: 0.0,
        samples: 0,
        dropped_stale: 0,
        skipped: false,
        stats: None,
        rollout_wait_seconds: 0.0,
        rollout_seconds: rollouts.seconds,
        wall_seconds: 0.0,
    };
    let mut outcomes = Vec::new();
    for line in &rollouts.lines {
        let result = line.result();
        let (Some(measured), Some(outcome), Some(rewards)) = (
            result.measured.as_ref(),
            outcome_reward(&result),
            rollouts
                .step_rewards
                .get(&(line.scenario.clone(), line.trial)),
        ) else {
            log.unmeasured += 1;
            continue;
        };
        outcomes.push(outcome);
        log.safely_completed += usize::from(measured.safely_completed(&result));
        log.safe += usize::from(measured.safe(&result));
        log.harmed += usize::from(measured.harmed);
        groups.entry(&line.scenario).or_default().push((
            line,
            ScoredEpisode {
                outcome,
                step_rewards: rewards.clone(),
            },
        ));
    }
    log.mean_outcome = outcomes.iter().sum::<f64>() / outcomes.len().max(1) as f64;

    let mut versioned = Vec::new();
    let mut trajectories = Vec::new();
    for group in groups.values() {
        let scored: Vec<ScoredEpisode> = group.iter().map(|(_, scored)| scored.clone()).collect();
        let advantages = step_advantages(&scored, credit, step_weight);
        for ((line, scored), advantages) in group.iter().zip(advantages) {
            let steps: Vec<(&Generation, f64)> = advantages
                .iter()
                .enumerate()
                .filter_map(|(step, advantage)| {
                    let key = (line.scenario.clone(), line.trial, step);
                    rollouts
                        .generations
                        .get(&key)
                        .map(|generation| (generation, *advantage))
                })
                .collect();
            let Some(produced_by) = steps
                .iter()
                .map(|(generation, _)| generation.policy_version)
                .min()
            else {
                continue;
            };
            let sequences = episode_samples(&steps);
            for sample in &sequences {
                if sample.advantages.iter().any(|advantage| *advantage != 0.0) {
                    versioned.push((produced_by, (produced_by, sample.clone())));
                }
            }
            trajectories.push(Trajectory {
                run: rollouts.run.clone(),
                scenario: line.scenario.clone(),
                trial: line.trial,
                policy_version: produced_by,
                outcome_reward: scored.outcome,
                step_rewards: scored.step_rewards.clone(),
                step_advantages: advantages,
                sequences,
            });
        }
    }
    let (kept, dropped) = staleness.admitted(versioned, current);
    log.dropped_stale = dropped;
    log.samples = kept.len();
    let produced_by = kept
        .iter()
        .map(|(version, _)| *version)
        .min()
        .unwrap_or(current);
    let samples = kept.into_iter().map(|(_, sample)| sample).collect();
    (samples, produced_by, log, trajectories)
}

fn print_update(log: &UpdateLog, updates: u32) {
    let trained = match &log.stats {
        Some(stats) => format!(
            "loss {:.4}, clip {:.3}, kl {:.4}, {} tokens, policy v{} ({:.1} s)",
            stats.loss,
            stats.clip_fraction.unwrap_or(0.0),
            stats.kl.unwrap_or(0.0),
            stats.tokens,
            stats.policy_version,
            stats.seconds
        ),
        None => "skipped (no advantage in any group)".to_owned(),
    };
    eprintln!(
        "update {}/{updates}: {} episodes ({} safely completed, {} safe, {} harmed, {} \
         unmeasured), {} samples ({} stale dropped), rollouts {:.1} s (waited {:.1} s); {trained}",
        log.update,
        log.episodes,
        log.safely_completed,
        log.safe,
        log.harmed,
        log.unmeasured,
        log.samples,
        log.dropped_stale,
        log.rollout_seconds,
        log.rollout_wait_seconds,
    );
}

/// One epoch's supervised batches of at most `size` samples, as indices into `tools` (each
/// sample's tool list): in a seeded order, except that samples with the same tools (one env's)
/// go together where they can, because they open with the same system turn and tool listing,
/// which the worker then reads once per batch. The batches themselves come in a seeded order.
fn sft_batches(tools: &[&str], size: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..tools.len()).collect();
    shuffle(&mut order, seed);
    // Each tool list ranks by where it first comes in the shuffled order, so envs stay in a
    // random order too; the sort is stable, so each env's samples keep theirs.
    let mut rank = BTreeMap::new();
    for &index in &order {
        let next = rank.len();
        rank.entry(tools[index]).or_insert(next);
    }
    order.sort_by_key(|&index| rank[tools[index]]);
    let mut batches: Vec<Vec<usize>> = order.chunks(size.max(1)).map(<[usize]>::to_vec).collect();
    let mut shuffled: Vec<usize> = (0..batches.len()).collect();
    shuffle(&mut shuffled, seed.rotate_left(32));
    shuffled
        .into_iter()
        .map(|at| std::mem::take(&mut batches[at]))
        .collect()
}

/// A seeded Fisher–Yates shuffle, the same on every machine.
fn shuffle(items: &mut [usize], seed: u64) {
    let mut random = SplitMix64::new(seed);
    for index in (1..items.len()).rev() {
        items.swap(index, random.next_index(index + 1));
    }
}

/// The held-out evaluations as a table: one row per evaluation, each shown metric with its 95 %
/// interval.
pub fn summary(state: &TrainState) -> String {
    let mut text = format!(
        "training run {} ({} updates done; state in train.json)\n\n| stage | update | policy | run |",
        state.id, state.updates_done
    );
    for metric in SHOWN {
        text.push_str(&format!(" {} |", metric.as_str()));
    }
    text.push_str("\n|---|---|---|---|");
    text.push_str(&"---|".repeat(SHOWN.len()));
    text.push('\n');
    if let Some(throughput) = throughput(&state.log) {
        text = format!("{throughput}\n\n{text}");
    }
    for eval in &state.evals {
        text.push_str(&format!(
            "| {} | {} | v{} | {} |",
            eval.stage, eval.update, eval.policy_version, eval.run
        ));
        for metric in SHOWN {
            match eval.metrics.get(&metric) {
                Some(estimate) => text.push_str(&format!(
                    " {:.3} [{:.3}, {:.3}] |",
                    estimate.value, estimate.low, estimate.high
                )),
                None => text.push_str(" – |"),
            }
        }
        text.push('\n');
    }
    text
}

/// RL throughput over `log`'s updates: episodes played and updates made per second of update
/// wall time (evaluations and checkpoints excluded).
fn throughput(log: &[UpdateLog]) -> Option<String> {
    let seconds: f64 = log.iter().map(|update| update.wall_seconds).sum();
    if log.is_empty() || seconds <= 0.0 {
        return None;
    }
    let episodes: usize = log.iter().map(|update| update.episodes).sum();
    Some(format!(
        "RL: {} updates, {episodes} episodes in {seconds:.1} s: {:.3} rollouts/s, {:.4} updates/s",
        log.len(),
        episodes as f64 / seconds,
        log.len() as f64 / seconds
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sft_batches_keep_one_envs_references_together_and_lose_none() {
        let tools = ["a", "b", "a", "c", "b", "a", "c", "b", "a"];
        for seed in 0..20 {
            let batches = sft_batches(&tools, 2, seed);
            let mut seen: Vec<usize> = batches.iter().flatten().copied().collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..tools.len()).collect::<Vec<_>>());
            assert!(
                batches
                    .iter()
                    .all(|batch| !batch.is_empty() && batch.len() <= 2)
            );
            // Four a's, three b's, two c's in batches of two: at most one batch can straddle
            // each boundary between envs.
            let mixed = batches
                .iter()
                .filter(|batch| batch.iter().any(|&i| tools[i] != tools[batch[0]]))
                .count();
            assert!(mixed <= 2, "seed {seed}: {batches:?}");
            assert_eq!(batches, sft_batches(&tools, 2, seed));
        }
        assert_ne!(sft_batches(&tools, 2, 1), sft_batches(&tools, 2, 2));
    }

    #[test]
    fn a_greedy_evaluation_keeps_the_hash_of_configs_from_before_eval_temperature() {
        // A config as written before `eval_temperature` existed.
        let before = serde_json::json!({
            "suite": "safety", "suite_hash": "h", "model": "tiny", "name": "p", "scorers": [],
            "credit": "sum", "gamma": 1.0, "step_weight": 0.5, "updates": 2,
            "scenarios_per_update": 2, "train_limit": null, "group": 4, "temperature": 1.0,
            "max_tokens": 64, "clip": 0.2, "kl_coef": 0.0, "ppo_epochs": 1, "lr": 1e-5,
            "lora": 0, "sft_epochs": 0, "sft_batch": 4, "eval_every": 1, "eval_trials": 1,
            "eval_limit": null, "max_staleness": 1, "mode": "enforce", "seed": 0
        });
        let mut config: TrainConfig = serde_json::from_value(before.clone()).unwrap();
        assert_eq!(config.eval_temperature, 0.0);
        assert_eq!(serde_json::to_value(&config).unwrap(), before);
        let greedy = config.hash();
        config.eval_temperature = 1.0;
        assert_ne!(config.hash(), greedy);
        let back: TrainConfig =
            serde_json::from_str(&serde_json::to_string(&config).unwrap()).unwrap();
        assert_eq!(back, config);
    }
}
