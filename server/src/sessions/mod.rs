//! The episodes a serving process runs, and their lifecycle: create, step, fork, delete and
//! expire, over the pool of live instances (`pool.rs`) and the durable record (the store).
//!
//! **Invariant:** a step's answer is returned only after its record has committed, under the
//! episode's lock, and memory never runs ahead of the record: every sandbox call (`in_sandbox`)
//! marks its episode `ahead_of_record`; the mark is cleared once what the call did is recorded
//! and counted (a fork: once its parent's state is saved), and a request that finds it set (the
//! one before failed, panicked or was dropped in between) makes the episode cold first, so that
//! it is replayed from what was recorded.

mod later;
mod pool;
mod views;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::OwnedMutexGuard;

use agentbench_env_runtime::{Episode, LoadedEnv, Mask, RuntimeError, Stepped};
use agentbench_scorers::{StepScorer, score_step};

use crate::ServeSettings;
use crate::auth::{Caller, Scope};
use crate::ids::{EpisodeId, RunId};
use crate::metrics::metrics;
use crate::requests::{AgentNote, CreateEpisode, StepRequest};
use crate::store::{EpisodeRow, EpisodeState, StepRow, Store, StoreError};
pub use pool::RestoreError;
use pool::{EpisodeHandle, Live, OpenEpisode, Owner, Pool};
pub use views::step_reward;
use views::{Created, RecordedStep, stored_step, with_fields};

/// Why a request on the episodes could not be done.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("no {what} `{id}`")]
    NotFound { what: &'static str, id: String },
    #[error("the episode is over; no more actions are accepted")]
    Over,
    #[error("the episode expired after sitting idle; its record stays readable")]
    Expired,
    #[error("the episode was abandoned by its client; its record stays readable")]
    Abandoned,
    #[error("the episode's env `{env}` {version} (sha256 {hash}) is not served here")]
    EnvUnavailable {
        env: String,
        version: String,
        hash: String,
    },
    #[error("{0} episodes are open, the most this server allows; close or finish some")]
    TooManyEpisodes(usize),
    #[error(
        "the request id `{request_id}` was used for step {index} with another action or token \
         count; a new action needs a new request id"
    )]
    RequestIdReused {
        request_id: String,
        index: u32,
        /// The recorded step's `action` and `tokens`.
        recorded: Box<Value>,
    },
    #[error("the episode is evidence of the recorded run `{run}`: only an admin key deletes it")]
    RunEvidence { run: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error(transparent)]
    Restore(#[from] RestoreError),
    /// Something that should not happen (a panic, a record that does not serialise); the cause
    /// is for the log, not the client.
    #[error("{0}")]
    Internal(String),
}

impl SessionError {
    /// Whether the episode has ended (over, expired or abandoned) and takes no more actions.
    pub fn ended(&self) -> bool {
        matches!(
            self,
            SessionError::Over | SessionError::Expired | SessionError::Abandoned
        )
    }

    fn internal(error: impl std::fmt::Display) -> SessionError {
        SessionError::Internal(error.to_string())
    }
}

/// An open episode, locked for as long as a request works on it.
type Locked = OwnedMutexGuard<OpenEpisode>;

/// The guest work (fuel, about a WebAssembly instruction each) a step may take before its
/// episode's later calls leave its serving thread: some milliseconds of guest code.
const SLOW_FUEL: u64 = 5_000_000;

/// The episodes of a serving process: the envs they run in, the store that records them, the
/// step scorers, and the open ones with their live instances.
#[derive(Debug)]
pub struct Sessions {
    envs: BTreeMap<String, Arc<LoadedEnv>>,
    settings: ServeSettings,
    store: Store,
    scorers: Vec<Box<dyn StepScorer>>,
    /// The scorers that run off the request path, once started (`score_later`).
    later: std::sync::OnceLock<later::LaterScoring>,
    pool: Pool,
}

impl Sessions {
    /// Runs episodes of `envs`, keyed by name, recording into `store` and scoring every step
    /// with `scorers`. The episodes the store holds as open are open again: each is replayed
    /// from its recorded actions on its next request.
    pub async fn new(
        envs: BTreeMap<String, Arc<LoadedEnv>>,
        settings: ServeSettings,
        store: Store,
        scorers: Vec<Box<dyn StepScorer>>,
    ) -> Result<Sessions, StoreError> {
        let pool = Pool::new(settings.max_hot_episodes);
        for row in store.open_episodes().await? {
            let Some(env) = served(&envs, &row) else {
                tracing::warn!(
                    episode = %row.id,
                    env = row.env,
                    env_hash = row.env_hash,
                    "an open episode stays closed: its env (that version) is not served"
                );
                continue;
            };
            let task = serde_json::from_str(&row.task).map_err(|error| StoreError::Corrupt {
                what: "task",
                reason: format!("episode {}: {error}", row.id),
            })?;
            let owner = Owner {
                tenant: row.tenant.as_str().into(),
                run_id: row.run_id,
            };
            pool.insert_recovered(OpenEpisode::new(
                row.id,
                owner,
                env.clone(),
                row.seed,
                task,
                row.mode,
                Live::Cold,
            ));
        }
        for env in envs.values() {
            if let Err(error) = env.keep_warm(settings.warm_instances) {
                tracing::warn!(env = env.manifest().name, %error, "cannot make instances ahead");
            }
        }
        Ok(Sessions {
            envs,
            settings,
            store,
            scorers,
            later: std::sync::OnceLock::new(),
            pool,
        })
    }

    pub fn settings(&self) -> &ServeSettings {
        &self.settings
    }

    /// The envs served, by name.
    pub fn envs(&self) -> &BTreeMap<String, Arc<LoadedEnv>> {
        &self.envs
    }

    pub fn env(&self, name: &str) -> Result<&Arc<LoadedEnv>, SessionError> {
        self.envs.get(name).ok_or_else(|| SessionError::NotFound {
            what: "env",
            id: name.to_owned(),
        })
    }

    /// How many episodes are open, and how many of them have a live instance.
    pub fn open_counts(&self) -> (usize, usize) {
        (self.pool.len(), self.pool.hot_count())
    }

    /// Starts an episode and records it; returns what the API answers.
    pub(crate) async fn create(
        self: Arc<Self>,
        caller: Caller,
        request: CreateEpisode,
    ) -> Result<Value, SessionError> {
        let env = self.env(&request.env)?.clone();
        self.check_capacity()?;
        let task = request.task.unwrap_or_else(|| json!({}));
        let seed = request.seed.unwrap_or(0);
        // In place, like a quick step: a new episode has shown no guest work yet.
        self.pool.make_room();
        let (episode, observation) = Episode::start(env.clone(), seed, &task, request.mode)?;
        self.keep_warm(&env);
        let id = EpisodeId::fresh();
        let created = Created {
            id: &id,
            episode: &episode,
            seed,
            observation: &observation,
            forked_from: None,
        };
        let owner = Owner {
            tenant: caller.tenant().into(),
            run_id: request.run_id,
        };
        let (body, row) = (created.body(), created.row(task.to_string(), &owner));
        let open = OpenEpisode::new(
            id,
            owner,
            env,
            seed,
            task,
            request.mode,
            Live::Hot(Box::new(episode)),
        );
        self.register(open, row, None).await?;
        Ok(body)
    }

    /// Takes one action on an open episode, scores it and records it; returns the answer's
    /// JSON text. A retried request id is answered from the record, as is any step on an
    /// episode that is not open here (with why it takes no actions).
    pub(crate) async fn step(
        self: Arc<Self>,
        caller: &Caller,
        id: EpisodeId,
        request: StepRequest,
    ) -> Result<String, SessionError> {
        let arrived = Instant::now();
        let request_id = request.request_id.as_deref();
        let Some(guard) = self.lock_for_step(caller, &id, request_id).await? else {
            return self.answer_from_store(caller, &id, &request).await;
        };
        let (action, tokens) = (request.action, request.tokens);
        // `in_sandbox` marks the episode ahead of its record: until the step is counted, any
        // way out (an error, a panic, the env failing past the point a step records its
        // failure) leaves it to be replayed from its record by the next request.
        let (guard, stepped) =
            in_sandbox(guard, move |episode| episode.step(action, tokens)).await?;
        let mut stepped = stepped?;
        let measured = (
            guard.env.manifest().name.clone(),
            stepped.record.status.as_str(),
            Duration::from_micros(stepped.record.timings.sandbox_us),
        );
        let instruction = guard.task.get("instruction").and_then(Value::as_str);
        let instruction = instruction.unwrap_or_default();
        stepped.record.scores =
            score_step(&self.scorers, guard.env.manifest(), instruction, &stepped);
        let later = self.later.get().map(|later| {
            let pending = later::Pending {
                episode: guard.id.clone(),
                env: guard.env.clone(),
                instruction: instruction.to_owned(),
                stepped: stepped.clone(),
            };
            (later, pending)
        });
        let answer = self
            .record_step(guard, stepped, request.request_id, request.agent)
            .await?;
        let (env, status, guest) = measured;
        metrics().step(&env, status, arrived.elapsed(), guest);
        if let Some((later, pending)) = later {
            later.queue(pending);
        }
        Ok(answer)
    }

    /// Takes many actions at once, the way a vectorised env steps: the episodes' steps run
    /// concurrently and their records commit together (the store's writer groups whatever is
    /// waiting into one transaction); the steps on one episode run in the order given. Each
    /// answer is what `step` would have answered alone, in the order of `steps`.
    pub(crate) async fn step_many(
        self: Arc<Self>,
        caller: &Caller,
        steps: Vec<(EpisodeId, StepRequest)>,
    ) -> Vec<Result<String, SessionError>> {
        let count = steps.len();
        let mut by_episode: BTreeMap<EpisodeId, Vec<(usize, StepRequest)>> = BTreeMap::new();
        for (position, (id, request)) in steps.into_iter().enumerate() {
            by_episode.entry(id).or_default().push((position, request));
        }
        let episodes = by_episode.into_iter().map(|(id, requests)| {
            let sessions = Arc::clone(&self);
            async move {
                let mut answers = Vec::with_capacity(requests.len());
                for (position, request) in requests {
                    let answer = Arc::clone(&sessions)
                        .step(caller, id.clone(), request)
                        .await;
                    answers.push((position, answer));
                }
                answers
            }
        });
        let mut answers: Vec<Option<Result<String, SessionError>>> =
            std::iter::repeat_with(|| None).take(count).collect();
        for (position, answer) in futures_util::future::join_all(episodes)
            .await
            .into_iter()
            .flatten()
        {
            answers[position] = Some(answer);
        }
        answers
            .into_iter()
            .map(|answer| answer.expect("every step is answered"))
            .collect()
    }

    /// Scores every step recorded from now on with `scorers` too, off the request path (see
    /// `later`), on the current tokio runtime. Called once; later calls are ignored.
    pub fn score_later(&self, scorers: Vec<Box<dyn StepScorer>>) {
        if scorers.is_empty() {
            return;
        }
        self.later
            .get_or_init(|| later::LaterScoring::start(scorers, self.store.clone()));
    }

    /// The episode locked and hot for a step, or `None` when the step is to be answered from
    /// the record: the episode is not open here, or the request id was seen. Holding the
    /// episode's lock for the whole step, its recording included, serialises concurrent steps
    /// on it.
    async fn lock_for_step(
        self: &Arc<Self>,
        caller: &Caller,
        id: &EpisodeId,
        request_id: Option<&str>,
    ) -> Result<Option<Locked>, SessionError> {
        let Some(handle) = self.pool.get(id.as_str()) else {
            return Ok(None);
        };
        let guard = handle.clone().lock_owned().await;
        sees(caller, &guard.owner, id)?;
        if guard.closed {
            return Ok(None);
        }
        let mut guard = self.make_hot(&handle, guard).await?;
        guard.touch();
        let seen = request_id.is_some_and(|request_id| guard.request_ids.contains_key(request_id));
        Ok((!seen).then_some(guard))
    }

    /// Records what a step did and counts it; returns the answer's JSON text. Serialised once:
    /// the observation and events stay the guest's own text, and the answer is the stored text
    /// with the request id and the outcome added, as `stored_step` shows it.
    async fn record_step(
        &self,
        mut guard: Locked,
        stepped: Stepped,
        request_id: Option<String>,
        agent: Option<AgentNote>,
    ) -> Result<String, SessionError> {
        let (index, over) = (stepped.record.index, stepped.ended());
        let outcome = stepped.outcome.map(|outcome| json!(outcome));
        let record = serde_json::to_string(&RecordedStep {
            record: stepped.record,
            action_mask: stepped.next_mask,
            agent,
        })
        .map_err(SessionError::internal)?;
        let mut extra = Vec::new();
        if let Some(request_id) = &request_id {
            extra.push(("request_id", json!(request_id)));
        }
        if over {
            extra.push(("outcome", outcome.clone().unwrap_or(Value::Null)));
        }
        let answer = with_fields(&record, &extra);
        let step = StepRow {
            index,
            request_id: request_id.clone(),
            record,
        };
        let end = over.then(|| (EpisodeState::Over, outcome.map(|o| o.to_string())));
        let open = &mut *guard;
        self.store.append_step(&open.id, step, end).await?;
        open.n_steps = index + 1;
        if let Some(request_id) = request_id {
            open.request_ids.insert(request_id, index);
        }
        open.ahead_of_record = false;
        if over {
            self.pool.close(open);
        }
        Ok(answer)
    }

    /// Branches an open episode into a new one in exactly its state, recorded with a copy of
    /// its steps; returns what the API answers.
    pub(crate) async fn fork(
        self: Arc<Self>,
        caller: &Caller,
        id: EpisodeId,
    ) -> Result<Value, SessionError> {
        let (handle, mut guard) = self.lock_open(caller, &id).await?;
        guard.touch();
        self.check_capacity()?;
        let parent_row =
            self.store.episode(&id).await?.ok_or_else(|| {
                SessionError::Internal(format!("open episode {id} has no record"))
            })?;
        let parent = self.make_hot(&handle, guard).await?;
        let fork = {
            let sessions = Arc::clone(&self);
            move |parent: &mut Episode| {
                sessions.pool.make_room();
                parent.fork()
            }
        };
        let (mut parent, episode) = in_sandbox(parent, fork).await?;
        // A fork that returns leaves its parent as it was.
        parent.ahead_of_record = false;
        let episode = episode?;
        let observation =
            RawValue::from_string(parent_row.observation).map_err(SessionError::internal)?;
        let fork_id = EpisodeId::fresh();
        let created = Created {
            id: &fork_id,
            episode: &episode,
            seed: parent.seed,
            observation: &observation,
            forked_from: Some((&parent.id, parent.n_steps)),
        };
        // A fork is its parent's tenant's, and no run's evidence.
        let owner = Owner {
            tenant: parent.owner.tenant.clone(),
            run_id: None,
        };
        let (body, row) = (created.body(), created.row(parent_row.task, &owner));
        let mut fork = OpenEpisode::new(
            fork_id,
            owner,
            parent.env.clone(),
            parent.seed,
            parent.task.clone(),
            parent.mode,
            Live::Hot(Box::new(episode)),
        );
        fork.n_steps = parent.n_steps;
        fork.slow = parent.slow;
        self.register(fork, row, Some(id)).await?;
        Ok(body)
    }

    /// Deletes an episode, open or not, and its record. A suite run's episode is that run's
    /// evidence: only an admin deletes it.
    pub(crate) async fn delete(
        self: Arc<Self>,
        caller: &Caller,
        id: EpisodeId,
    ) -> Result<(), SessionError> {
        let may_delete = |run_id: Option<&RunId>| match run_id {
            Some(run) if caller.scope < Scope::Admin => Err(SessionError::RunEvidence {
                run: run.to_string(),
            }),
            _ => Ok(()),
        };
        if let Some(handle) = self.pool.get(id.as_str()) {
            let mut episode = handle.lock().await;
            sees(caller, &episode.owner, &id)?;
            if !episode.closed {
                may_delete(episode.owner.run_id.as_ref())?;
                self.store.delete_episode(&id).await?;
                self.pool.close(&mut episode);
                return Ok(());
            }
        }
        let row = self.stored_episode(caller, &id).await?;
        may_delete(row.run_id.as_ref())?;
        self.store.delete_episode(&id).await?;
        Ok(())
    }

    /// Ends an open episode before its end, for a client that gives up on it (its agent
    /// failed): it takes no more actions and its record stays readable, in state `abandoned`.
    /// Abandoning it again does nothing; an episode that is over or expired stays so.
    pub(crate) async fn abandon(
        self: Arc<Self>,
        caller: &Caller,
        id: EpisodeId,
    ) -> Result<(), SessionError> {
        if let Some(handle) = self.pool.get(id.as_str()) {
            let mut episode = handle.lock().await;
            sees(caller, &episode.owner, &id)?;
            if !episode.closed {
                self.store.end_episode(&id, EpisodeState::Abandoned).await?;
                self.pool.close(&mut episode);
                return Ok(());
            }
        }
        let row = self.stored_episode(caller, &id).await?;
        match row.state {
            // Open in the record but not served here (its env is not loaded): ending it needs
            // no instance.
            EpisodeState::Open => Ok(self.store.end_episode(&id, EpisodeState::Abandoned).await?),
            EpisodeState::Abandoned => Ok(()),
            EpisodeState::Over | EpisodeState::Expired => Err(not_open(&row)),
        }
    }

    /// The JSON Schema of the actions an open episode's mask leaves open, for constrained
    /// decoding.
    pub(crate) async fn action_schema(
        self: &Arc<Self>,
        caller: &Caller,
        id: &EpisodeId,
    ) -> Result<Value, SessionError> {
        self.with_hot(caller, id, |episode| {
            episode.env().action_schema(episode.mask())
        })
        .await
    }

    /// How each tool stands for an episode's next action; `None` once the episode has ended.
    pub(crate) async fn mask(
        self: &Arc<Self>,
        caller: &Caller,
        id: &EpisodeId,
    ) -> Result<Option<Arc<Mask>>, SessionError> {
        match self
            .with_hot(caller, id, |episode| episode.mask().clone())
            .await
        {
            Ok(mask) => Ok(Some(mask)),
            Err(error) if error.ended() => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// What `read` makes of an open episode's live instance.
    async fn with_hot<T>(
        self: &Arc<Self>,
        caller: &Caller,
        id: &EpisodeId,
        read: impl FnOnce(&Episode) -> T,
    ) -> Result<T, SessionError> {
        let (handle, guard) = self.lock_open(caller, id).await?;
        let mut guard = self.make_hot(&handle, guard).await?;
        guard.touch();
        Ok(read(guard.hot()))
    }

    /// The env an episode, open or not, runs in; or that it is not served here.
    pub(crate) async fn env_of(
        &self,
        caller: &Caller,
        id: &EpisodeId,
    ) -> Result<Arc<LoadedEnv>, SessionError> {
        let row = self.stored_episode(caller, id).await?;
        served(&self.envs, &row)
            .cloned()
            .ok_or_else(|| env_unavailable(&row))
    }

    /// An episode's whole record, open or not.
    pub(crate) async fn trajectory(
        &self,
        caller: &Caller,
        id: &EpisodeId,
    ) -> Result<Value, SessionError> {
        let row = self.stored_episode(caller, id).await?;
        let mut steps = self
            .store
            .steps(id)
            .await?
            .iter()
            .map(|step| stored_step(&row, step))
            .collect::<Result<Vec<_>, _>>()?;
        views::add_later_scores(&mut steps, self.store.scores(id).await?)?;
        views::trajectory(&row, steps)
    }

    /// Expires the open episodes idle for longer than the TTL that no request holds; returns
    /// how many expired.
    pub async fn expire_idle(&self) -> Result<usize, StoreError> {
        let mut expired = 0;
        for handle in self.pool.all() {
            let Ok(mut episode) = handle.try_lock() else {
                continue;
            };
            if episode.closed || episode.last_used.elapsed() <= self.settings.episode_ttl {
                continue;
            }
            // Recorded first, under the episode's lock: a request waiting for it then finds
            // the episode expired in the store.
            self.store
                .end_episode(&episode.id, EpisodeState::Expired)
                .await?;
            self.pool.close(&mut episode);
            expired += 1;
        }
        Ok(expired)
    }

    /// Runs `expire_idle` in the background, a few times per TTL.
    pub fn spawn_expiry(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        let sessions = Arc::clone(self);
        let period = (sessions.settings.episode_ttl / 4)
            .clamp(Duration::from_millis(50), Duration::from_secs(60));
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                if let Err(error) = sessions.expire_idle().await {
                    tracing::warn!(%error, "cannot expire idle episodes");
                }
            }
        })
    }

    /// Makes `env`'s instances ahead again on a blocking thread, when fewer than the setting
    /// wait and none is being made (a burst of creations starts one refill, not one each).
    fn keep_warm(&self, env: &Arc<LoadedEnv>) {
        let count = self.settings.warm_instances;
        if !env.wants_warming(count) {
            return;
        }
        let env = Arc::clone(env);
        tokio::task::spawn_blocking(move || {
            if let Err(error) = env.keep_warm(count) {
                tracing::warn!(env = env.manifest().name, %error, "cannot make instances ahead");
            }
        });
    }

    /// Refuses new episodes while the server is at its limit of open ones.
    fn check_capacity(&self) -> Result<(), SessionError> {
        let open = self.pool.len();
        if open >= self.settings.max_open_episodes {
            return Err(SessionError::TooManyEpisodes(open));
        }
        Ok(())
    }

    /// Opens `episode` and records it (`row`; a fork also copies its parent's steps); on any
    /// failure the episode is gone again.
    async fn register(
        &self,
        episode: OpenEpisode,
        row: EpisodeRow,
        copy_steps_from: Option<EpisodeId>,
    ) -> Result<(), SessionError> {
        let handle = self
            .pool
            .insert(episode, self.settings.max_open_episodes)
            .map_err(SessionError::TooManyEpisodes)?;
        let mut episode = handle.lock().await;
        if let Err(error) = self.store.create_episode(row, copy_steps_from).await {
            self.pool.close(&mut episode);
            return Err(error.into());
        }
        Ok(())
    }

    /// Brings an open episode into a live instance; a cold one is replayed from its recorded
    /// steps. Restoring takes a millisecond or more (an instance, a saved state or a replay,
    /// and parking another episode to make room), so it runs on a blocking thread: this
    /// thread's other requests go on meanwhile.
    async fn make_hot(
        self: &Arc<Self>,
        handle: &EpisodeHandle,
        mut open: Locked,
    ) -> Result<Locked, SessionError> {
        if open.ahead_of_record {
            self.pool.make_cold(&mut open);
        }
        let steps = match open.live {
            Live::Hot(_) => return Ok(open),
            Live::Parked(_) => None,
            Live::Cold => Some(self.store.steps(&open.id).await?),
        };
        let (sessions, handle) = (Arc::clone(self), Arc::clone(handle));
        let (open, restored) = tokio::task::spawn_blocking(move || {
            let restored = sessions.pool.make_hot(&handle, &mut open, steps.as_deref());
            (open, restored)
        })
        .await
        .map_err(SessionError::internal)?;
        restored?;
        Ok(open)
    }

    /// Answers a step request on an episode that is not open here: a retried request from its
    /// record, anything else with why the episode takes no actions. A request id reused for
    /// another action (or token count) is refused: answering with the old step would lie.
    async fn answer_from_store(
        &self,
        caller: &Caller,
        id: &EpisodeId,
        request: &StepRequest,
    ) -> Result<String, SessionError> {
        let row = self.stored_episode(caller, id).await?;
        if let Some(request_id) = &request.request_id
            && let Some(step) = self.store.step_by_request(id, request_id).await?
        {
            let answer = stored_step(&row, &step)?;
            let recorded = json!({"action": answer["action"], "tokens": answer["tokens"]});
            let asked = json!({"action": request.action, "tokens": request.tokens});
            if recorded != asked {
                return Err(SessionError::RequestIdReused {
                    request_id: request_id.clone(),
                    index: step.index,
                    recorded: Box::new(recorded),
                });
            }
            return Ok(answer.to_string());
        }
        Err(not_open(&row))
    }

    /// An open episode, locked; or why it is not open here.
    async fn lock_open(
        &self,
        caller: &Caller,
        id: &EpisodeId,
    ) -> Result<(EpisodeHandle, Locked), SessionError> {
        let Some(handle) = self.pool.get(id.as_str()) else {
            return Err(self.not_open_or_missing(caller, id).await);
        };
        let guard = handle.clone().lock_owned().await;
        sees(caller, &guard.owner, id)?;
        if guard.closed {
            drop(guard);
            return Err(self.not_open_or_missing(caller, id).await);
        }
        Ok((handle, guard))
    }

    /// The error for an episode that is not open here: why, or that it does not exist.
    async fn not_open_or_missing(&self, caller: &Caller, id: &EpisodeId) -> SessionError {
        match self.stored_episode(caller, id).await {
            Ok(row) => not_open(&row),
            Err(error) => error,
        }
    }

    /// An episode's stored row, or that there is none that `caller` sees.
    async fn stored_episode(
        &self,
        caller: &Caller,
        id: &EpisodeId,
    ) -> Result<EpisodeRow, SessionError> {
        self.store
            .episode(id)
            .await?
            .filter(|row| caller.sees_episode(&row.tenant, row.run_id.is_some()))
            .ok_or_else(|| missing(id))
    }
}

/// That there is no episode `id`, or none the caller sees: the two answer alike, so that a
/// caller learns nothing of other tenants' episodes.
fn missing(id: &EpisodeId) -> SessionError {
    SessionError::NotFound {
        what: "episode",
        id: id.to_string(),
    }
}

/// Whether `caller` sees an open episode of `owner`; it does not exist for others.
fn sees(caller: &Caller, owner: &Owner, id: &EpisodeId) -> Result<(), SessionError> {
    if caller.sees_episode(&owner.tenant, owner.run_id.is_some()) {
        Ok(())
    } else {
        Err(missing(id))
    }
}

/// Why a stored episode takes no actions.
fn not_open(row: &EpisodeRow) -> SessionError {
    match row.state {
        EpisodeState::Over => SessionError::Over,
        EpisodeState::Expired => SessionError::Expired,
        EpisodeState::Abandoned => SessionError::Abandoned,
        EpisodeState::Open => env_unavailable(row),
    }
}

/// The env a stored episode ran in, if this server serves that very build: replay is exact
/// only in the same env, same bytes.
fn served<'a>(
    envs: &'a BTreeMap<String, Arc<LoadedEnv>>,
    row: &EpisodeRow,
) -> Option<&'a Arc<LoadedEnv>> {
    envs.get(&row.env)
        .filter(|env| env.content_hash() == row.env_hash)
}

/// That a stored episode's env (that build) is not served here.
fn env_unavailable(row: &EpisodeRow) -> SessionError {
    SessionError::EnvUnavailable {
        env: row.env.clone(),
        version: row.env_version.clone(),
        hash: row.env_hash.clone(),
    }
}

/// Runs an episode's sandbox work. Calls are microseconds long, and handing each to another
/// thread would cost more than the call, so they run in place. Work that burned more than
/// `SLOW_FUEL` (at worst a call's whole fuel or wall-clock limit) marks the episode `slow`: its
/// later calls run on a blocking thread, so that one episode stalls this thread's other
/// requests at most once. Fuel, not wall-clock time, decides: under load a quick call's
/// wall-clock time includes waiting for a core. Fails only if the work panicked.
///
/// The work may take the instance past its record, so the episode is marked `ahead_of_record`
/// first: a request that fails, panics or is dropped (its runtime stopping) before the caller
/// has recorded the call, and cleared the mark, leaves the episode to be replayed.
async fn in_sandbox<T: Send + 'static>(
    mut open: Locked,
    work: impl FnOnce(&mut Episode) -> T + Send + 'static,
) -> Result<(Locked, T), SessionError> {
    open.ahead_of_record = true;
    if !open.slow {
        let episode = open.hot();
        let before = episode.fuel_spent();
        let output = work(episode);
        open.slow = episode.fuel_spent().saturating_sub(before) > SLOW_FUEL;
        return Ok((open, output));
    }
    let (done, answer) = tokio::sync::oneshot::channel();
    tokio::task::spawn_blocking(move || {
        let output = work(open.hot());
        let _ = done.send((open, output));
    });
    answer
        .await
        .map_err(|_| SessionError::internal("a slow episode's sandbox call panicked"))
}
