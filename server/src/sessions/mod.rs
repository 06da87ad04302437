//! The episodes a serving process runs, and their lifecycle: create, step, fork, delete and
//! expire, over the pool of live instances (`pool.rs`) and the durable record (the store).
//!
//! **Invariant:** a step's answer is returned only after its record has committed, under the
//! episode's lock, and memory never runs ahead of the record: every sandbox call (`in_sandbox`)
//! marks its episode `ahead_of_record`; the mark is cleared once what the call did is recorded
//! and counted (a fork: once its parent's state is saved), and a request that finds it set (the
//! one before failed, panicked or was dropped in between) makes the episode cold first, so that
//! it is replayed from what was recorded.
//!
//! **Invariant (several nodes on one PostgreSQL store):** a node acts on an episode only while it
//! holds the episode's lease in the database, taken for one request and given back by that
//! request's write (whose fence check fails if the lease lapsed and another node took the
//! episode over) or after it. A node whose lease comes with a fence other than the one after its
//! own last lease knows that another node acted in between, and restores the episode from the
//! record first. So at most one node steps an episode at a time, and a step is recorded once.

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
use crate::store::{EpisodeRow, EpisodeState, Grant, Lease, StepRow, Store, StoreError};
pub use pool::RestoreError;
use pool::{EpisodeHandle, Live, OpenEpisode, Owner, Pool};
use views::{Created, RecordedStep, stored_step, with_fields};
pub use views::{scores_reward, step_reward};

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
    #[error(
        "another node has been acting on this episode for longer than a request should take; \
         try again"
    )]
    Busy,
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

/// How much longer than a lease's time to live a request waits for another node to give the
/// episode's lease back (or for it to lapse) before it answers that the episode is busy.
const LEASE_GRACE: Duration = Duration::from_secs(2);

/// How this node shares its store's episodes with other nodes: on a PostgreSQL store, which
/// several nodes may share, it acts on an episode only under the episode's lease.
#[derive(Debug)]
struct Leases {
    /// This process's name in the leases: the node's name and a suffix of its own, so that a
    /// restarted node never counts its old process's leases as its own.
    node: Arc<str>,
    ttl: Duration,
}

/// An open episode locked here, with its lease when the store is shared.
struct Held {
    handle: EpisodeHandle,
    guard: Locked,
    lease: Option<Lease>,
}

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
    /// Set on a store that other nodes may share.
    leases: Option<Leases>,
}

impl Sessions {
    /// Runs episodes of `envs`, keyed by name, recording into `store` and scoring every step
    /// with `scorers`. The episodes the store holds as open are open again: each is replayed
    /// from its recorded actions on its next request. (On a shared store each is found in the
    /// store when first asked for, instead.)
    pub async fn new(
        envs: BTreeMap<String, Arc<LoadedEnv>>,
        settings: ServeSettings,
        store: Store,
        scorers: Vec<Box<dyn StepScorer>>,
    ) -> Result<Sessions, StoreError> {
        let pool = Pool::new(settings.max_hot_episodes);
        let leases = (store.shared() && !settings.single_node).then(|| {
            let suffix = uuid::Uuid::new_v4().simple().to_string();
            Leases {
                node: format!("{}-{}", settings.node, &suffix[..8]).into(),
                ttl: settings.lease_ttl,
            }
        });
        if let Some(leases) = &leases {
            tracing::info!(
                node = &*leases.node,
                "acting on the shared store's episodes under leases"
            );
        }
        let recovered = match leases {
            Some(_) => Vec::new(),
            None => store.open_episodes().await?,
        };
        for row in recovered {
            let Some(env) = served(&envs, &row) else {
                tracing::warn!(
                    episode = %row.id,
                    env = row.env,
                    env_hash = row.env_hash,
                    "an open episode stays closed: its env (that version) is not served"
                );
                continue;
            };
            pool.insert_recovered(recovered_episode(env, row)?);
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
            leases,
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
        let Some((guard, lease)) = self.lock_for_step(caller, &id, request_id).await? else {
            return self.answer_from_store(caller, &id, &request).await;
        };
        let stepping = Arc::clone(&self).step_locked(guard, request, lease.clone(), arrived);
        self.written_under(&id, lease.as_ref(), stepping).await
    }

    /// `step` on the episode locked (and leased) for it.
    async fn step_locked(
        self: Arc<Self>,
        guard: Locked,
        request: StepRequest,
        lease: Option<Lease>,
        arrived: Instant,
    ) -> Result<String, SessionError> {
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
            .record_step(guard, stepped, request.request_id, request.agent, lease)
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

    /// The episode locked (and leased) and hot for a step, or `None` when the step is to be
    /// answered from the record: the episode is not open here, or the request id was seen.
    /// Holding the episode's lock for the whole step, its recording included, serialises
    /// concurrent steps on it here; its lease, across nodes.
    async fn lock_for_step(
        self: &Arc<Self>,
        caller: &Caller,
        id: &EpisodeId,
        request_id: Option<&str>,
    ) -> Result<Option<(Locked, Option<Lease>)>, SessionError> {
        let Some((guard, lease)) = self.lock_hot(caller, id).await? else {
            return Ok(None);
        };
        if request_id.is_some_and(|id| guard.request_ids.contains_key(id)) {
            drop(guard);
            self.give_back(id, lease.as_ref()).await;
            return Ok(None);
        }
        Ok(Some((guard, lease)))
    }

    /// An open episode served here, locked (and leased) and hot, or `None` when it is not open
    /// here; a lease taken is given back when the episode cannot be made hot.
    async fn lock_hot(
        self: &Arc<Self>,
        caller: &Caller,
        id: &EpisodeId,
    ) -> Result<Option<(Locked, Option<Lease>)>, SessionError> {
        let Some(Held {
            handle,
            guard,
            lease,
        }) = self.lock_leased(caller, id).await?
        else {
            return Ok(None);
        };
        match self.make_hot(&handle, guard).await {
            Ok(mut guard) => {
                guard.touch();
                Ok(Some((guard, lease)))
            }
            Err(error) => {
                self.give_back(id, lease.as_ref()).await;
                Err(error)
            }
        }
    }

    /// An open episode served here, locked, and on a shared store leased to this node, its copy
    /// made cold when another node acted on it since this one last did; `None` when it is not
    /// open here (it ended, or its env is not served).
    async fn lock_leased(
        &self,
        caller: &Caller,
        id: &EpisodeId,
    ) -> Result<Option<Held>, SessionError> {
        // On a shared store an episode closed here while this request waited for it may still
        // be open (dropped here as idle): it is looked for once more.
        for _ in 0..2 {
            let handle = match self.pool.get(id.as_str()) {
                Some(handle) => handle,
                None => match self.adopt(caller, id).await? {
                    Some(handle) => handle,
                    None => return Ok(None),
                },
            };
            let mut guard = handle.clone().lock_owned().await;
            sees(caller, &guard.owner, id)?;
            if guard.closed {
                if self.leases.is_none() {
                    return Ok(None);
                }
                continue;
            }
            let lease = self.take_lease(&mut guard).await?;
            if guard.closed {
                return Ok(None);
            }
            return Ok(Some(Held {
                handle,
                guard,
                lease,
            }));
        }
        Ok(None)
    }

    /// On a shared store, an open episode that is not open here yet (another node made it, or
    /// this one dropped it), registered cold from its record; `None` when it is not open, not
    /// the caller's, or its env is not served here.
    async fn adopt(
        &self,
        caller: &Caller,
        id: &EpisodeId,
    ) -> Result<Option<EpisodeHandle>, SessionError> {
        if self.leases.is_none() {
            return Ok(None);
        }
        let Some(row) = self.store.episode(id).await? else {
            return Ok(None);
        };
        if row.state != EpisodeState::Open
            || !caller.sees_episode(&row.tenant, row.run_id.is_some())
        {
            return Ok(None);
        }
        let Some(env) = served(&self.envs, &row) else {
            return Ok(None);
        };
        let episode = recovered_episode(env, row)?;
        Ok(Some(self.pool.adopt(episode)))
    }

    /// On a shared store, takes `open`'s lease for this node (`None` otherwise). Its copy here
    /// goes cold unless this node held the lease last; when the record says the episode is no
    /// longer open, it is closed here and the lease given back.
    async fn take_lease(&self, open: &mut OpenEpisode) -> Result<Option<Lease>, SessionError> {
        let Some(grant) = self.acquire(&open.id).await? else {
            return Ok(None);
        };
        let lease = self.lease(&grant);
        if open.fence.map(|fence| fence + 1) != Some(grant.fence) {
            self.pool.make_cold(open);
        }
        open.fence = Some(grant.fence);
        if grant.state != Some(EpisodeState::Open) {
            self.give_back(&open.id, Some(&lease)).await;
            self.pool.close(open);
        }
        Ok(Some(lease))
    }

    /// On a shared store, takes episode `id`'s lease for this node, waiting while another node
    /// holds it, up to the lease's time to live and a grace; `None` on a store of its own.
    async fn acquire(&self, id: &EpisodeId) -> Result<Option<Grant>, SessionError> {
        let Some(leases) = &self.leases else {
            return Ok(None);
        };
        let deadline = Instant::now() + leases.ttl + LEASE_GRACE;
        let mut pause = Duration::from_millis(1);
        loop {
            if let Some(grant) = self.acquire_now(id).await? {
                return Ok(Some(grant));
            }
            if Instant::now() >= deadline {
                return Err(SessionError::Busy);
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    /// This node's lease that `grant` gave.
    fn lease(&self, grant: &Grant) -> Lease {
        let leases = self
            .leases
            .as_ref()
            .expect("a grant comes from a shared store");
        Lease {
            node: Arc::clone(&leases.node),
            fence: grant.fence,
        }
    }

    /// Gives an episode's lease back without a write (if it still holds). A failure is logged:
    /// the lease then lapses after its time to live.
    async fn give_back(&self, id: &EpisodeId, lease: Option<&Lease>) {
        let Some(lease) = lease else {
            return;
        };
        if let Err(error) = self.store.release_lease(id, lease).await {
            tracing::warn!(episode = %id, %error, "cannot give an episode's lease back; it lapses");
        }
    }

    /// What `work`, which writes under `lease`, did. A write gives its lease back as it
    /// commits; work that failed wrote nothing, so the lease is given back here.
    async fn written_under<T>(
        &self,
        id: &EpisodeId,
        lease: Option<&Lease>,
        work: impl Future<Output = Result<T, SessionError>>,
    ) -> Result<T, SessionError> {
        let result = work.await;
        if result.is_err() {
            self.give_back(id, lease).await;
        }
        result
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
        lease: Option<Lease>,
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
        self.store.append_step(&open.id, step, end, lease).await?;
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
        let Some(Held {
            handle,
            guard,
            lease,
        }) = self.lock_leased(caller, &id).await?
        else {
            return Err(self.not_open_or_missing(caller, &id).await);
        };
        let forked = Arc::clone(&self).fork_locked(handle, guard).await;
        // The parent is only read: its lease goes back either way.
        self.give_back(&id, lease.as_ref()).await;
        forked
    }

    /// `fork` of the parent episode locked (and leased) for it.
    async fn fork_locked(
        self: Arc<Self>,
        handle: EpisodeHandle,
        mut guard: Locked,
    ) -> Result<Value, SessionError> {
        let id = guard.id.clone();
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
                let lease = self.take_lease(&mut episode).await?;
                if !episode.closed {
                    let deleting =
                        async { Ok(self.store.delete_episode(&id, lease.clone()).await?) };
                    self.written_under(&id, lease.as_ref(), deleting).await?;
                    self.pool.close(&mut episode);
                    return Ok(());
                }
            }
        }
        let row = self.stored_episode(caller, &id).await?;
        may_delete(row.run_id.as_ref())?;
        let lease = self.lease_on_record(&row).await?;
        let deleting = async { Ok(self.store.delete_episode(&id, lease.clone()).await?) };
        self.written_under(&id, lease.as_ref(), deleting).await
    }

    /// On a shared store, this node's lease on a stored episode that is open (and not open
    /// here), so that no other node acts on it meanwhile; `None` otherwise.
    async fn lease_on_record(&self, row: &EpisodeRow) -> Result<Option<Lease>, SessionError> {
        if row.state != EpisodeState::Open {
            return Ok(None);
        }
        Ok(self.acquire(&row.id).await?.map(|grant| self.lease(&grant)))
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
                let lease = self.take_lease(&mut episode).await?;
                if !episode.closed {
                    self.abandon_under(&id, lease).await?;
                    self.pool.close(&mut episode);
                    return Ok(());
                }
            }
        }
        let row = self.stored_episode(caller, &id).await?;
        match row.state {
            // Open in the record but not served here (its env is not loaded, or another node
            // has it): ending it needs no instance.
            EpisodeState::Open => {
                let lease = self.lease_on_record(&row).await?;
                self.abandon_under(&id, lease).await
            }
            EpisodeState::Abandoned => Ok(()),
            EpisodeState::Over | EpisodeState::Expired => Err(not_open(&row)),
        }
    }

    /// Records that episode `id` was abandoned, under `lease`.
    async fn abandon_under(
        &self,
        id: &EpisodeId,
        lease: Option<Lease>,
    ) -> Result<(), SessionError> {
        let state = EpisodeState::Abandoned;
        let ending = async { Ok(self.store.end_episode(id, state, lease.clone()).await?) };
        self.written_under(id, lease.as_ref(), ending).await
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
        let Some((mut guard, lease)) = self.lock_hot(caller, id).await? else {
            return Err(self.not_open_or_missing(caller, id).await);
        };
        let read = read(guard.hot());
        drop(guard);
        self.give_back(id, lease.as_ref()).await;
        Ok(read)
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
    /// how many expired. On a shared store the record decides which are idle (other nodes may
    /// have used an episode that sat idle here), and an episode idle here is only dropped here.
    pub async fn expire_idle(&self) -> Result<usize, StoreError> {
        let mut expired = 0;
        for handle in self.pool.all() {
            let Ok(mut episode) = handle.try_lock() else {
                continue;
            };
            if episode.closed || episode.last_used.elapsed() <= self.settings.episode_ttl {
                continue;
            }
            if self.leases.is_none() {
                // Recorded first, under the episode's lock: a request waiting for it then finds
                // the episode expired in the store.
                let state = EpisodeState::Expired;
                self.store.end_episode(&episode.id, state, None).await?;
                expired += 1;
            }
            self.pool.close(&mut episode);
        }
        if self.leases.is_some() {
            expired += self.expire_idle_shared().await?;
        }
        Ok(expired)
    }

    /// On a shared store, expires the episodes that no node has acted on for longer than the
    /// TTL (whichever node made them, dead ones included), each under its lease.
    async fn expire_idle_shared(&self) -> Result<usize, StoreError> {
        let ttl = self.settings.episode_ttl;
        let mut expired = 0;
        for id in self.store.idle_episodes(ttl, 256).await? {
            let grant = match self.acquire_now(&id).await? {
                Some(grant) => grant,
                None => continue,
            };
            let lease = self.lease(&grant);
            // Acted on since it was listed, or ended: it stays as it is.
            if grant.state != Some(EpisodeState::Open) || grant.idle <= ttl {
                self.give_back(&id, Some(&lease)).await;
                continue;
            }
            let state = EpisodeState::Expired;
            self.store.end_episode(&id, state, Some(lease)).await?;
            expired += 1;
        }
        Ok(expired)
    }

    /// On a shared store, episode `id`'s lease if no node holds it now (no waiting).
    async fn acquire_now(&self, id: &EpisodeId) -> Result<Option<Grant>, StoreError> {
        let Some(leases) = &self.leases else {
            return Ok(None);
        };
        self.store.acquire_lease(id, &leases.node, leases.ttl).await
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
        mut episode: OpenEpisode,
        row: EpisodeRow,
        copy_steps_from: Option<EpisodeId>,
    ) -> Result<(), SessionError> {
        // On a shared store, its lease: this node's, and given back.
        let lease = self.leases.as_ref().map(|leases| Lease {
            node: Arc::clone(&leases.node),
            fence: 1,
        });
        episode.fence = lease.as_ref().map(|lease| lease.fence);
        let handle = self
            .pool
            .insert(episode, self.settings.max_open_episodes)
            .map_err(SessionError::TooManyEpisodes)?;
        let mut episode = handle.lock().await;
        if let Err(error) = self.store.create_episode(row, copy_steps_from, lease).await {
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

/// An open episode of the record, cold: replayed from its recorded actions when next used.
fn recovered_episode(env: &Arc<LoadedEnv>, row: EpisodeRow) -> Result<OpenEpisode, StoreError> {
    let task = serde_json::from_str(&row.task).map_err(|error| StoreError::Corrupt {
        what: "task",
        reason: format!("episode {}: {error}", row.id),
    })?;
    let owner = Owner {
        tenant: row.tenant.as_str().into(),
        run_id: row.run_id,
    };
    Ok(OpenEpisode::new(
        row.id,
        owner,
        Arc::clone(env),
        row.seed,
        task,
        row.mode,
        Live::Cold,
    ))
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
