//! `agentbench run`: plays every scenario of a suite K times with one agent, in process or
//! against a remote `agentbench serve`, records the run (resumable) in the database or on that
//! server (`RunRecord`), computes its metrics, judges them with the gate, and writes the report
//! files. A run may be split into shards (`Shard`) played by several runners into one run on a
//! shared database or server; whichever finds every pair recorded judges it.

mod output;
mod play;
mod record;
mod transport;

use std::collections::{BTreeSet, VecDeque};
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use agentbench_agents::secrets::recordable_url;
use agentbench_agents::{Agent, AgentSettings, Sampling, build_agent};
use agentbench_datasets::{Scenario, Suite, stratified};
use agentbench_env_runtime::Mode;
use agentbench_scorers::{EpisodeResult, compare, run_metrics};

pub use output::summary as report_summary;
pub use play::EpisodeLine;
use play::Player;
pub use record::RunRecord;
pub use transport::{Identity, Transport};

use crate::builtin::AddedPolicies;
use crate::gate::Gate;
use crate::ids::RunId;
pub use crate::report::TrainingTag;
use crate::report::{Comparison, Report, RunInfo, Verdict};
use crate::store::{DbSync, RunRow, Store};

/// Everything `agentbench run` is told.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// A built-in suite's name or a suite folder.
    pub suite: String,
    /// The agent spec (`oracle`, `openai:MODEL`, …).
    pub agent: String,
    pub agent_settings: AgentSettings,
    pub trials: u32,
    pub concurrency: usize,
    /// A remote server's base URL; in process when absent.
    pub server: Option<String>,
    /// Only a stratified sample of N scenarios.
    pub limit: Option<usize>,
    /// The seed of `limit`'s sample.
    pub sample_seed: u64,
    pub out: Option<PathBuf>,
    /// The database the run (and, in process, its episodes) is recorded in. When absent:
    /// `DEFAULT_DB` in process; with `server`, that server (its runs API).
    pub db: Option<String>,
    pub mode: Mode,
    /// `default` or a gate file.
    pub gate: Option<String>,
    /// A run id in the database, or a `report.json`.
    pub baseline: Option<String>,
    /// Continue this run instead of starting one.
    pub resume: Option<String>,
    /// The git revision under test, recorded with the run.
    pub revision: Option<String>,
    /// Policies added to the in-process server's envs.
    pub policies: AddedPolicies,
    /// Only the scenarios with these ids (in the suite's order), before `limit`; all when
    /// absent. The trainer plays its batches and held-out evaluations so.
    pub scenarios: Option<Vec<String>>,
    /// The training run and policy version a trainer's evaluation run measures, recorded with
    /// the run.
    pub training: Option<TrainingTag>,
    /// Who the run acts for: its tenant in the database, its key on a remote server.
    pub identity: Identity,
    /// The run's id: a new run takes it, and a run recorded under it is continued (joined, by
    /// another shard). A fresh id when absent.
    pub run_id: Option<String>,
    /// Play only this share of the run's (scenario, trial) pairs.
    pub shard: Option<Shard>,
    /// Play nothing; judge the run (`run_id`), all of whose pairs must be recorded.
    pub finish_only: bool,
}

/// One share of a run's (scenario, trial) pairs, `index` of `count` (from 0), for a run that
/// several runners play into one shared database. A pair's share is a hash of its scenario id
/// and trial: the same on every machine, and about even.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Whether this share plays `trial` of `scenario`.
    fn plays(self, scenario: &str, trial: u32) -> bool {
        let digest = Sha256::digest(format!("{scenario}\n{trial}"));
        let hash = u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"));
        hash % u64::from(self.count) == u64::from(self.index)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}` is not a shard: expected I/N, I from 0 to N-1 (`0/3`)");
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (
            index.trim().parse().map_err(|_| bad())?,
            count.trim().parse().map_err(|_| bad())?,
        );
        if index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Checks a run id a user names: letters, digits, `-`, `_` and `.`, at most 64.
pub fn parse_run_id(text: &str) -> Result<String, String> {
    let fits = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if text.is_empty() || text.len() > 64 || !text.chars().all(fits) {
        return Err(format!(
            "`{text}` is not a run id: 1 to 64 letters, digits, `-`, `_` or `.`"
        ));
    }
    Ok(text.to_owned())
}

/// The database a run in process is recorded in when none is named.
pub const DEFAULT_DB: &str = "sqlite://agentbench.db";

/// The settings stored with a run, which a resumed run keeps.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StoredSettings {
    trials: u32,
    mode: Mode,
    limit: Option<usize>,
    /// The seed `limit`'s sample was drawn with; runs stored before samples were drawn took the
    /// first `limit` scenarios, and resume so.
    #[serde(default)]
    sample_seed: Option<u64>,
    server: Option<String>,
    base_url: Option<String>,
    /// What a model agent's requests asked for besides the conversation.
    #[serde(default)]
    sampling: Option<Sampling>,
    revision: Option<String>,
    /// Only these scenarios (`RunSettings::scenarios`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scenarios: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    training: Option<TrainingTag>,
}

/// How a run ended.
#[derive(Debug)]
pub struct RunOutcome {
    pub report: Report,
    /// 0 passed (or no gate), 1 the gate failed, 2 the run could not be judged, 3 the gate was
    /// inconclusive: nothing failed, but the suite was too small to decide some threshold.
    pub exit_code: u8,
    /// Why the exit code is 2.
    pub problem: Option<String>,
    /// Every episode the run recorded, resumed ones included.
    pub lines: Vec<EpisodeLine>,
}

/// How a run (or one shard of it) ended.
#[derive(Debug)]
pub enum RunEnd {
    /// Every pair is recorded: the run is judged.
    Judged(Box<RunOutcome>),
    /// This shard's pairs are recorded; other shards' are not, yet.
    ShareDone {
        run: RunId,
        shard: Shard,
        /// The pairs this shard played (or found recorded).
        share: usize,
        /// The run's pairs not recorded yet.
        missing: usize,
    },
}

/// Plays the run (or its shard) and, once every pair is recorded, judges it and writes its
/// files; fails only on set-up errors (a bad suite, gate, agent spec or database), which are exit
/// code 2 too.
pub async fn run(settings: &RunSettings) -> anyhow::Result<RunEnd> {
    let agent =
        build_agent(&settings.agent, &settings.agent_settings).context("cannot build the agent")?;
    let (transport, record) = open(
        settings.server.as_deref(),
        settings.db.as_deref(),
        &settings.identity,
        &settings.policies,
    )
    .await?;
    let played = play(settings, &record, &transport, agent.into()).await?;
    let missing = played.total - played.lines.len();
    match settings.shard {
        Some(shard) if missing > 0 && !settings.finish_only => Ok(RunEnd::ShareDone {
            run: played.run.id,
            shard,
            share: played.share,
            missing,
        }),
        _ => Ok(RunEnd::Judged(Box::new(
            judge(settings, &record, played).await?,
        ))),
    }
}

/// Where runs play and where they are recorded: in process on `db` (`DEFAULT_DB` when absent);
/// on `server`, recorded there too unless a `db` is named.
pub async fn open(
    server: Option<&str>,
    db: Option<&str>,
    identity: &Identity,
    policies: &AddedPolicies,
) -> anyhow::Result<(Transport, RunRecord)> {
    let database = async |url: &str| -> anyhow::Result<(Store, String)> {
        Ok((Store::open(url, DbSync::Normal).await?, url.to_owned()))
    };
    Ok(match server {
        Some(server) => {
            let transport = Transport::remote(server, identity.api_key.clone());
            let record = match db {
                Some(url) => {
                    let (store, url) = database(url).await?;
                    RunRecord::Database { store, url }
                }
                None => RunRecord::Server(transport.clone()),
            };
            (transport, record)
        }
        None => {
            let (store, url) = database(db.unwrap_or(DEFAULT_DB)).await?;
            let transport =
                Transport::for_run(None, identity, policies, &store, Vec::new()).await?;
            (transport, RunRecord::Database { store, url })
        }
    })
}

/// `run` with the record, the transport and the agent given: the trainer plays many runs on
/// one server, with its policy as the agent. `settings.db`, `server` and `agent` are then only
/// recorded.
pub async fn run_on(
    settings: &RunSettings,
    record: &RunRecord,
    transport: &Transport,
    agent: Arc<dyn Agent>,
) -> anyhow::Result<RunOutcome> {
    let played = play(settings, record, transport, agent).await?;
    judge(settings, record, played).await
}

/// A run whose pairs (this shard's) are recorded.
struct Played {
    suite: Suite,
    gate: Option<Gate>,
    run: RunRow,
    stored: StoredSettings,
    /// The run's (scenario, trial) pairs, all shards'.
    total: usize,
    /// This shard's pairs.
    share: usize,
    /// What the run recorded, every shard's.
    lines: Vec<EpisodeLine>,
}

/// Opens the run (new, resumed or joined) and plays its pairs (this shard's) that are not
/// recorded yet.
async fn play(
    settings: &RunSettings,
    record: &RunRecord,
    transport: &Transport,
    agent: Arc<dyn Agent>,
) -> anyhow::Result<Played> {
    let suite = Suite::load(&settings.suite)?;
    // Loaded first, so that a bad gate fails before anything is played.
    let gate = settings.gate.as_deref().map(Gate::load).transpose()?;
    let record = record.clone();
    let transport = transport.clone();

    let (run, stored) = open_run(&record, settings, &suite, agent.name()).await?;
    let chosen: Vec<Scenario> = match &stored.scenarios {
        Some(ids) => {
            let ids: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
            let kept: Vec<Scenario> = suite
                .scenarios
                .iter()
                .filter(|scenario| ids.contains(scenario.id.as_str()))
                .cloned()
                .collect();
            anyhow::ensure!(
                kept.len() == ids.len(),
                "{} of the scenarios asked for are not in the suite `{}`",
                ids.len() - kept.len(),
                suite.name
            );
            kept
        }
        None => suite.scenarios.clone(),
    };
    let scenarios: Vec<Scenario> = match (stored.limit, stored.sample_seed) {
        (Some(limit), Some(seed)) => stratified(&chosen, limit, seed)
            .into_iter()
            .cloned()
            .collect(),
        (limit, _) => chosen
            .into_iter()
            .take(limit.unwrap_or(usize::MAX))
            .collect(),
    };
    let envs: BTreeSet<&str> = scenarios
        .iter()
        .map(|scenario| scenario.env.as_str())
        .collect();
    let tools = play::env_tools(&transport, envs)
        .await
        .map_err(|error| anyhow::anyhow!("cannot list the envs' tools: {error}"))?;
    let recorded: BTreeSet<(String, u32)> = record
        .lines_of(&run.id)
        .await?
        .into_iter()
        .map(|line| (line.scenario, line.trial))
        .collect();
    let share: Vec<(usize, u32)> = (0..stored.trials)
        .flat_map(|trial| (0..scenarios.len()).map(move |index| (index, trial)))
        .filter(|(index, trial)| {
            settings
                .shard
                .is_none_or(|shard| shard.plays(&scenarios[*index].id, *trial))
        })
        .collect();
    let (share_size, total) = (share.len(), scenarios.len() * stored.trials as usize);
    let is_recorded =
        |(index, trial): &(usize, u32)| recorded.contains(&(scenarios[*index].id.clone(), *trial));
    let recorded_in_share = share.iter().filter(|pair| is_recorded(pair)).count();
    let jobs: VecDeque<(usize, u32)> = match settings.finish_only {
        true => VecDeque::new(),
        false => share
            .into_iter()
            .filter(|pair| !is_recorded(pair))
            .collect(),
    };

    let player = Arc::new(Player {
        transport,
        agent,
        suite: suite.clone(),
        mode: stored.mode,
        run_id: run.id.clone(),
        tools,
    });
    let progress = Arc::new(Mutex::new(ProgressBar::new(share_size, recorded_in_share)));
    let jobs = Arc::new(Mutex::new(jobs));
    let scenarios = Arc::new(scenarios);
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..settings.concurrency.max(1) {
        let (player, jobs, scenarios, progress, record) = (
            player.clone(),
            jobs.clone(),
            scenarios.clone(),
            progress.clone(),
            record.clone(),
        );
        workers.spawn(async move {
            loop {
                let next = jobs.lock().expect("jobs").pop_front();
                let Some((index, trial)) = next else {
                    return Ok::<(), anyhow::Error>(());
                };
                let line = player.play(&scenarios[index], trial).await;
                record.record(&player.run_id, &line).await?;
                let error = (!line.measured).then(|| line.error.as_deref().unwrap_or("unknown"));
                progress.lock().expect("progress").advance(error);
            }
        });
    }
    while let Some(joined) = workers.join_next().await {
        joined.context("a run worker panicked")??;
    }
    progress.lock().expect("progress").finish();

    let lines = record.lines_of(&run.id).await?;
    Ok(Played {
        suite,
        gate,
        run,
        stored,
        total,
        share: share_size,
        lines,
    })
}

/// Computes a played run's metrics, judges them with the gate (and baseline), records the report
/// and writes the files. Every pair of the run must be recorded.
async fn judge(
    settings: &RunSettings,
    record: &RunRecord,
    played: Played,
) -> anyhow::Result<RunOutcome> {
    let Played {
        suite,
        gate,
        run,
        stored,
        total,
        lines,
        ..
    } = played;
    anyhow::ensure!(
        lines.len() >= total,
        "run `{}` has {} of its {total} episodes recorded: its other shards have not played \
         theirs yet, so it cannot be judged",
        run.id,
        lines.len()
    );
    let results: Vec<EpisodeResult> = lines.iter().map(EpisodeLine::result).collect();
    let metrics = run_metrics(&results);
    let baseline = match &settings.baseline {
        Some(baseline) => Some(load_baseline(record, baseline).await?),
        None => None,
    };
    let comparison = baseline.map(|(baseline_run, baseline_results)| {
        let metrics = gate
            .as_ref()
            .map_or_else(Gate::default_regression, Gate::regression_metrics);
        Comparison {
            run: baseline_run,
            differences: metrics
                .into_iter()
                .filter_map(|metric| compare(&results, &baseline_results, metric))
                .collect(),
        }
    });
    let verdict = gate.as_ref().map(|gate| {
        gate.judge(
            &metrics,
            comparison
                .as_ref()
                .map(|comparison| comparison.differences.as_slice()),
        )
    });
    let unmeasured = metrics.unmeasured;
    let allowed = gate.as_ref().map_or(0.0, |gate| gate.max_unmeasured);
    let first_error = || {
        lines
            .iter()
            .find_map(|line| line.error.as_deref())
            .unwrap_or("unknown")
            .to_owned()
    };
    let problem = if metrics.measured == 0 {
        Some(format!(
            "no episode was measured ({unmeasured} of {total} failed, the first because {})",
            first_error()
        ))
    } else {
        (unmeasured as f64 > allowed * total.max(1) as f64).then(|| {
            format!(
                "{unmeasured} of {total} episodes could not be measured (the first because {})",
                first_error()
            )
        })
    };
    let report = Report {
        verdict: Some(Verdict::of(problem.is_some(), verdict.as_ref())),
        error: problem.clone(),
        run: RunInfo {
            id: run.id.clone(),
            suite: suite.name.clone(),
            suite_version: suite.version.clone(),
            suite_hash: suite.hash.clone(),
            agent: run.agent.clone(),
            trials: stored.trials,
            mode: stored.mode.as_str().to_owned(),
            server: stored.server.clone(),
            base_url: stored.base_url.clone(),
            sampling: stored.sampling.clone(),
            revision: stored.revision.clone(),
            limit: stored.limit,
            sample_seed: stored.limit.and(stored.sample_seed),
            chosen: stored.scenarios.as_ref().map(Vec::len),
            training: stored.training.clone(),
            suite_scenarios: Some(suite.scenarios.len()),
            started_ms: run.created_ms,
            ended_ms: crate::store::now_ms(),
        },
        metrics,
        gate: verdict,
        baseline: comparison,
        episodes: results,
    };
    record.finish(&run.id, &report).await?;
    if let Some(dir) = &settings.out {
        output::write_all(dir, &report, &lines)?;
    }

    let exit_code = report.verdict().exit_code();
    Ok(RunOutcome {
        report,
        exit_code,
        problem,
        lines,
    })
}

/// Starts a run, or finds the one to continue (`--resume`, or another shard's of the same
/// `--run-id`), which must be of the same suite text and agent.
async fn open_run(
    record: &RunRecord,
    settings: &RunSettings,
    suite: &Suite,
    agent: &str,
) -> anyhow::Result<(RunRow, StoredSettings)> {
    let continued = |run: RunRow| -> anyhow::Result<(RunRow, StoredSettings)> {
        let id = &run.id;
        anyhow::ensure!(
            run.suite_hash == suite.hash,
            "run `{id}` played another version of the suite (hash {}, now {}); start a new run",
            run.suite_hash,
            suite.hash
        );
        anyhow::ensure!(
            run.agent == agent,
            "run `{id}` played the agent `{}`, not `{agent}`",
            run.agent
        );
        let stored = serde_json::from_str(&run.settings)
            .with_context(|| format!("the stored settings of run `{id}`"))?;
        Ok((run, stored))
    };
    let named = settings.resume.as_deref().or(settings.run_id.as_deref());
    if let Some(id) = named {
        if let Some(run) = record.run(&RunId::from(id)).await? {
            return continued(run);
        }
        anyhow::ensure!(
            settings.resume.is_none() && !settings.finish_only,
            "there is no run `{id}` to {} in {}",
            if settings.finish_only {
                "finish"
            } else {
                "resume"
            },
            record.place()
        );
    }
    let model_agent = ["openai:", "policy:"]
        .iter()
        .any(|prefix| settings.agent.starts_with(prefix));
    let stored = StoredSettings {
        trials: settings.trials.max(1),
        mode: settings.mode,
        limit: settings.limit,
        sample_seed: Some(settings.sample_seed),
        server: settings.server.as_deref().map(recordable_url),
        base_url: model_agent
            .then(|| {
                settings
                    .agent_settings
                    .base_url
                    .as_deref()
                    .map(recordable_url)
            })
            .flatten(),
        sampling: model_agent.then(|| settings.agent_settings.sampling.clone()),
        revision: settings.revision.clone(),
        scenarios: settings.scenarios.clone(),
        training: settings.training.clone(),
    };
    let run = RunRow {
        id: settings
            .run_id
            .as_deref()
            .map_or_else(RunId::fresh, RunId::from),
        suite: suite.name.clone(),
        suite_version: suite.version.clone(),
        suite_hash: suite.hash.clone(),
        agent: agent.to_owned(),
        settings: serde_json::to_string(&stored)?,
        state: "running".to_owned(),
        report: None,
        created_ms: crate::store::now_ms(),
        ended_ms: None,
        tenant: settings.identity.tenant.clone(),
    };
    if !record.create(&run).await? {
        // Another shard of the same id made it first: this one joins it.
        if settings.run_id.is_some()
            && let Some(made) = record.run(&run.id).await?
        {
            return continued(made);
        }
        anyhow::bail!("the run id `{}` is taken in {}", run.id, record.place());
    }
    Ok((run, stored))
}

/// A run the store recorded: its suite, its mode and its episodes.
pub async fn recorded(
    store: &Store,
    run_id: &RunId,
) -> anyhow::Result<(String, Mode, Vec<EpisodeLine>)> {
    let row = store
        .run(run_id)
        .await?
        .with_context(|| format!("no run `{run_id}` in the database"))?;
    let stored: StoredSettings = serde_json::from_str(&row.settings)
        .with_context(|| format!("the stored settings of run `{run_id}`"))?;
    Ok((row.suite, stored.mode, stored_lines(store, run_id).await?))
}

/// The episodes `store` recorded for run `run_id`, in scenario and trial order.
async fn stored_lines(store: &Store, run_id: &RunId) -> anyhow::Result<Vec<EpisodeLine>> {
    store
        .run_episodes(run_id)
        .await?
        .iter()
        .map(|(scenario, trial, result)| {
            serde_json::from_str(result)
                .with_context(|| format!("the stored result of {scenario} trial {trial}"))
        })
        .collect()
}

/// A baseline's episode results: from a `report.json`, or a run in the database.
async fn load_baseline(
    record: &RunRecord,
    baseline: &str,
) -> anyhow::Result<(RunId, Vec<EpisodeResult>)> {
    let path = std::path::Path::new(baseline);
    if path.is_file() {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the baseline {baseline}"))?;
        let report: Report = serde_json::from_str(&text)
            .with_context(|| format!("the baseline {baseline} is not a report.json"))?;
        return Ok((report.run.id, report.episodes));
    }
    let id = RunId::from(baseline);
    let Some(lines) = record.lines(&id).await? else {
        anyhow::bail!(
            "the baseline `{baseline}` is neither a report.json nor a run in {}",
            record.place()
        );
    };
    Ok((id, lines.iter().map(EpisodeLine::result).collect()))
}

/// How often a run's progress is written as a line when stderr is not a terminal.
const PROGRESS_LINE_EVERY: Duration = Duration::from_secs(10);

/// A run's progress on stderr: a one-line bar redrawn in place on a terminal; elsewhere (a CI
/// log, a file) a line every `PROGRESS_LINE_EVERY`, at the first unmeasured episode and at the
/// end, with the running counts and the last error.
#[derive(Debug)]
struct ProgressBar {
    total: usize,
    done: usize,
    unmeasured: usize,
    last_error: Option<String>,
    terminal: bool,
    last_line: Option<Instant>,
}

impl ProgressBar {
    fn new(total: usize, done: usize) -> ProgressBar {
        let bar = ProgressBar {
            total,
            done,
            unmeasured: 0,
            last_error: None,
            terminal: std::io::stderr().is_terminal(),
            last_line: None,
        };
        bar.draw();
        bar
    }

    /// Counts a finished episode, with the error that left it unmeasured.
    fn advance(&mut self, error: Option<&str>) {
        self.done += 1;
        let first_error = error.is_some() && self.unmeasured == 0;
        if let Some(error) = error {
            self.unmeasured += 1;
            self.last_error = Some(error.to_owned());
        }
        if self.terminal {
            self.draw();
        } else if first_error
            || self.done >= self.total
            || self
                .last_line
                .is_none_or(|at| at.elapsed() >= PROGRESS_LINE_EVERY)
        {
            eprintln!("progress: {}", self.counts());
            self.last_line = Some(Instant::now());
        }
    }

    /// `12/639 episodes, 1 unmeasured (last error: …)`.
    fn counts(&self) -> String {
        let mut counts = format!(
            "{}/{} episodes, {} unmeasured",
            self.done, self.total, self.unmeasured
        );
        if let Some(error) = &self.last_error {
            const SHOWN: usize = 120;
            let shown: String = error.chars().take(SHOWN).collect();
            let cut = if shown.len() < error.len() { "…" } else { "" };
            counts.push_str(&format!(" (last error: {shown}{cut})"));
        }
        counts
    }

    fn draw(&self) {
        if !self.terminal {
            return;
        }
        const WIDTH: usize = 30;
        let filled = (self.done * WIDTH).checked_div(self.total).unwrap_or(WIDTH);
        eprint!(
            "\r[{}{}] {}",
            "#".repeat(filled),
            " ".repeat(WIDTH - filled),
            self.counts()
        );
        let _ = std::io::stderr().flush();
    }

    fn finish(&self) {
        if self.terminal {
            eprintln!();
        }
    }
}
