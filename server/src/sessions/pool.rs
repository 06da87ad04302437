//! The pool of open episodes and the live instances behind them.
//!
//! Each open episode sits behind its own lock, so that steps on one episode are serialised while
//! different episodes run in parallel. Only a bounded number are *hot* (a live sandbox instance);
//! the least recently used beyond that are *parked* as their saved state (a few KiB), and an
//! episode known only from the store (after a restart) is *cold* until its recorded actions are
//! replayed. Parking and restoring are invisible to clients: envs are deterministic.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use serde::Deserialize;
use serde_json::Value;

use agentbench_env_runtime::{Action, Episode, LoadedEnv, Mode, Parked, RuntimeError};

use crate::ids::{EpisodeId, RunId};
use crate::store::{StepRow, StoreError};

/// One open episode.
#[derive(Debug)]
pub struct OpenEpisode {
    pub id: EpisodeId,
    pub owner: Owner,
    pub env: Arc<LoadedEnv>,
    pub seed: u64,
    pub task: Value,
    pub mode: Mode,
    pub live: Live,
    /// Steps recorded so far (the store holds them).
    pub n_steps: u32,
    /// Which step each `request_id` produced; complete unless the episode is cold.
    pub request_ids: HashMap<String, u32>,
    /// It ended, expired or was deleted while a request waited for its lock: the request must
    /// look at the store instead.
    pub closed: bool,
    pub last_used: Instant,
    /// A sandbox call of this episode once took long; its calls leave the async workers.
    pub slow: bool,
    /// Its instance may be ahead of its record: set by every sandbox call a request makes
    /// (`in_sandbox`) until the request has recorded and counted what the call did. A request
    /// that finds it set (the one before failed or panicked in between) makes the episode cold
    /// first, so that it is replayed from what is recorded.
    pub ahead_of_record: bool,
    /// On a shared store, the fence of this node's latest lease on the episode: a lease taken
    /// next with the fence after it means nobody else acted on the episode in between.
    pub fence: Option<i64>,
    slot: Arc<Slot>,
}

/// Whose an episode is: its tenant, and the suite run it is the evidence of, if any.
#[derive(Debug, Clone)]
pub struct Owner {
    pub tenant: Arc<str>,
    pub run_id: Option<RunId>,
}

/// Where an open episode's env state lives.
#[derive(Debug)]
pub enum Live {
    /// In a sandbox instance.
    Hot(Box<Episode>),
    /// As the instance's saved state, restored on the next action.
    Parked(Box<Parked>),
    /// Only in the store, as recorded actions to replay.
    Cold,
}

/// An episode's place in the hot pool, readable without its lock.
#[derive(Debug, Default)]
struct Slot {
    hot: AtomicBool,
    /// Used since the pool's clock hand last passed it.
    used: AtomicBool,
}

impl OpenEpisode {
    /// A new episode, hot or cold.
    pub fn new(
        id: EpisodeId,
        owner: Owner,
        env: Arc<LoadedEnv>,
        seed: u64,
        task: Value,
        mode: Mode,
        live: Live,
    ) -> OpenEpisode {
        OpenEpisode {
            id,
            owner,
            env,
            seed,
            task,
            mode,
            live,
            n_steps: 0,
            request_ids: HashMap::new(),
            closed: false,
            last_used: Instant::now(),
            slow: false,
            ahead_of_record: false,
            fence: None,
            slot: Arc::default(),
        }
    }

    pub fn touch(&mut self) {
        self.last_used = Instant::now();
        self.slot.used.store(true, Ordering::Relaxed);
    }

    /// The live episode; only valid after `Pool::make_hot`.
    pub fn hot(&mut self) -> &mut Episode {
        match &mut self.live {
            Live::Hot(episode) => episode,
            _ => unreachable!("make_hot runs before an episode is used"),
        }
    }
}

pub type EpisodeHandle = Arc<tokio::sync::Mutex<OpenEpisode>>;

/// A hot episode on the clock: its handle (weak: the clock keeps nothing alive) and slot.
type ClockEntry = (Weak<tokio::sync::Mutex<OpenEpisode>>, Arc<Slot>);

/// Why an episode could not be brought back into an instance.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error("step {index} of episode {id} is not a readable record: {reason}")]
    BadRecord {
        id: EpisodeId,
        index: u32,
        reason: String,
    },
    #[error("replaying episode {id} gave {replayed} steps where {recorded} are recorded")]
    Diverged {
        id: EpisodeId,
        replayed: u32,
        recorded: u32,
    },
}

/// The registry of open episodes and the clock over the hot ones.
#[derive(Debug)]
pub struct Pool {
    open: Mutex<HashMap<EpisodeId, EpisodeHandle>>,
    /// Hot episodes in the order they became hot; the clock hand is the front.
    clock: Mutex<VecDeque<ClockEntry>>,
    hot: AtomicUsize,
    max_hot: usize,
}

impl Pool {
    pub fn new(max_hot: usize) -> Pool {
        Pool {
            open: Mutex::default(),
            clock: Mutex::default(),
            hot: AtomicUsize::new(0),
            max_hot: max_hot.max(1),
        }
    }

    pub fn get(&self, id: &str) -> Option<EpisodeHandle> {
        self.open.lock().expect("episode map lock").get(id).cloned()
    }

    /// Every open episode (a snapshot).
    pub fn all(&self) -> Vec<EpisodeHandle> {
        self.open
            .lock()
            .expect("episode map lock")
            .values()
            .cloned()
            .collect()
    }

    pub fn len(&self) -> usize {
        self.open.lock().expect("episode map lock").len()
    }

    /// How many episodes have a live instance.
    pub fn hot_count(&self) -> usize {
        self.hot.load(Ordering::Relaxed)
    }

    /// Registers `episode` unless `max_open` are open already (then returns how many are).
    pub fn insert(&self, episode: OpenEpisode, max_open: usize) -> Result<EpisodeHandle, usize> {
        let id = episode.id.clone();
        let is_hot = matches!(episode.live, Live::Hot(_));
        let slot = episode.slot.clone();
        let handle = Arc::new(tokio::sync::Mutex::new(episode));
        {
            let mut open = self.open.lock().expect("episode map lock");
            if open.len() >= max_open {
                return Err(open.len());
            }
            open.insert(id, handle.clone());
        }
        if is_hot {
            self.mark_hot(&handle, &slot);
        }
        Ok(handle)
    }

    /// Registers an episode already counted in the store, whatever the limit.
    pub fn insert_recovered(&self, episode: OpenEpisode) -> EpisodeHandle {
        self.insert(episode, usize::MAX)
            .expect("no limit on recovered episodes")
    }

    /// Registers a cold episode found in the store (another node's), whatever the limit;
    /// unless it is open here already, which then stays.
    pub fn adopt(&self, episode: OpenEpisode) -> EpisodeHandle {
        debug_assert!(matches!(episode.live, Live::Cold));
        let mut open = self.open.lock().expect("episode map lock");
        open.entry(episode.id.clone())
            .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(episode)))
            .clone()
    }

    /// Ends `episode`'s life in this process: its instance is dropped and later requests find
    /// it only in the store.
    pub fn close(&self, episode: &mut OpenEpisode) {
        episode.closed = true;
        self.mark_cold(&episode.slot);
        episode.live = Live::Cold;
        self.open
            .lock()
            .expect("episode map lock")
            .remove(&episode.id);
    }

    /// Brings `episode` into a live instance, parking the least recently used hot episode when
    /// the pool is full. A cold episode is replayed from `steps` (its recorded steps, which the
    /// caller reads from the store only for cold episodes).
    pub fn make_hot(
        &self,
        handle: &EpisodeHandle,
        episode: &mut OpenEpisode,
        steps: Option<&[StepRow]>,
    ) -> Result<(), RestoreError> {
        let live = match &episode.live {
            Live::Hot(_) => return Ok(()),
            Live::Parked(parked) => {
                self.make_room();
                Episode::unpark(episode.env.clone(), parked)?
            }
            Live::Cold => {
                let steps = steps.unwrap_or_default();
                let actions = replayed_actions(&episode.id, steps)?;
                self.make_room();
                let live = Episode::replay(
                    episode.env.clone(),
                    episode.seed,
                    &episode.task,
                    episode.mode,
                    actions.iter().map(|(action, tokens)| (action, *tokens)),
                )?;
                let replayed = live.progress().n_steps;
                let recorded = u32::try_from(steps.len()).unwrap_or(u32::MAX);
                if replayed != recorded {
                    return Err(RestoreError::Diverged {
                        id: episode.id.clone(),
                        replayed,
                        recorded,
                    });
                }
                episode.n_steps = recorded;
                episode.request_ids = steps
                    .iter()
                    .filter_map(|step| Some((step.request_id.clone()?, step.index)))
                    .collect();
                live
            }
        };
        episode.live = Live::Hot(Box::new(live));
        self.mark_hot(handle, &episode.slot);
        Ok(())
    }

    /// Forgets `episode`'s live state: the next action replays it from the store. Used when a
    /// step ran but was not recorded (`OpenEpisode::ahead_of_record`), so that memory never
    /// runs ahead of the record.
    pub fn make_cold(&self, episode: &mut OpenEpisode) {
        self.mark_cold(&episode.slot);
        episode.live = Live::Cold;
        episode.ahead_of_record = false;
    }

    fn mark_hot(&self, handle: &EpisodeHandle, slot: &Arc<Slot>) {
        if !slot.hot.swap(true, Ordering::AcqRel) {
            self.hot.fetch_add(1, Ordering::Relaxed);
            self.clock
                .lock()
                .expect("clock lock")
                .push_back((Arc::downgrade(handle), slot.clone()));
        }
    }

    fn mark_cold(&self, slot: &Slot) {
        if slot.hot.swap(false, Ordering::AcqRel) {
            self.hot.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Parks hot episodes until there is room for one more: a clock (second-chance) sweep that
    /// skips episodes used since the hand last passed and episodes busy with a request.
    pub fn make_room(&self) {
        let mut budget = 2 * self.clock.lock().expect("clock lock").len() + 2;
        while self.hot_count() >= self.max_hot && budget > 0 {
            budget -= 1;
            let Some((weak, slot)) = self.clock.lock().expect("clock lock").pop_front() else {
                return;
            };
            if !slot.hot.load(Ordering::Acquire) {
                continue;
            }
            let keep = slot.used.swap(false, Ordering::Relaxed)
                || match weak.upgrade() {
                    None => {
                        self.mark_cold(&slot);
                        false
                    }
                    Some(handle) => match handle.try_lock() {
                        Err(_) => true,
                        Ok(mut victim) => {
                            self.park(&mut victim);
                            false
                        }
                    },
                };
            if keep {
                self.clock
                    .lock()
                    .expect("clock lock")
                    .push_back((weak, slot));
            }
        }
        // Entries of episodes that cooled some other way pile up without pressure; drop them.
        let mut clock = self.clock.lock().expect("clock lock");
        if clock.len() > 2 * self.hot_count() + 64 {
            clock.retain(|(_, slot)| slot.hot.load(Ordering::Acquire));
        }
    }

    fn park(&self, victim: &mut OpenEpisode) {
        if let Live::Hot(episode) = &mut victim.live {
            // An instance that cannot save its state is replayed from the store instead.
            victim.live = episode
                .park()
                .map_or(Live::Cold, |parked| Live::Parked(Box::new(parked)));
        }
        self.mark_cold(&victim.slot);
    }
}

/// The actions (and reported tokens) of recorded steps, in order.
fn replayed_actions(
    id: &EpisodeId,
    steps: &[StepRow],
) -> Result<Vec<(Action, Option<u64>)>, RestoreError> {
    #[derive(Deserialize)]
    struct Recorded {
        action: Action,
        #[serde(default)]
        tokens: Option<u64>,
    }
    steps
        .iter()
        .map(|step| {
            let recorded: Recorded =
                serde_json::from_str(&step.record).map_err(|error| RestoreError::BadRecord {
                    id: id.clone(),
                    index: step.index,
                    reason: error.to_string(),
                })?;
            Ok((recorded.action, recorded.tokens))
        })
        .collect()
}
