//! Step scorers that run off the request path (a learned PRM, a judge): a step's answer never
//! waits for them. Once a step is recorded, a copy of what it did is queued; one background task
//! takes what is queued in batches, scores each batch on a blocking thread with every such
//! scorer, and stores the scores beside the step records (`Store::record_scores`), where the
//! episode's view shows them. When the queue is full (the scorers fall behind the steps) a step
//! goes unscored, and is counted and logged: `agentbench rescore` fills such gaps.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::mpsc;

use agentbench_env_runtime::{LoadedEnv, Stepped};
use agentbench_scorers::{ScoredStep, StepScorer};

use crate::ids::EpisodeId;
use crate::store::{ScoreRow, Store};

/// Steps waiting for the scorers, at most.
const QUEUE: usize = 10_000;

/// Steps scored together, at most.
const BATCH: usize = 256;

/// A recorded step waiting for the scorers.
#[derive(Debug)]
pub(super) struct Pending {
    pub episode: EpisodeId,
    pub env: Arc<LoadedEnv>,
    pub instruction: String,
    pub stepped: Stepped,
}

/// The queue to the background scorers.
#[derive(Debug)]
pub(super) struct LaterScoring {
    queue: mpsc::Sender<Pending>,
    dropped: AtomicU64,
}

impl LaterScoring {
    /// Starts the background task, on the current tokio runtime, that scores with `scorers`
    /// and records into `store`.
    pub fn start(scorers: Vec<Box<dyn StepScorer>>, store: Store) -> LaterScoring {
        let (queue, receiver) = mpsc::channel(QUEUE);
        tokio::spawn(work(receiver, Arc::new(scorers), store));
        LaterScoring {
            queue,
            dropped: AtomicU64::new(0),
        }
    }

    /// Queues a recorded step; never waits.
    pub fn queue(&self, pending: Pending) {
        if let Err(error) = self.queue.try_send(pending) {
            let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            tracing::warn!(
                %error,
                dropped,
                "a step goes unscored by the background scorers (agentbench rescore fills it in)"
            );
        }
    }
}

async fn work(
    mut receiver: mpsc::Receiver<Pending>,
    scorers: Arc<Vec<Box<dyn StepScorer>>>,
    store: Store,
) {
    let mut batch = Vec::with_capacity(BATCH);
    while receiver.recv_many(&mut batch, BATCH).await > 0 {
        let taken = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
        let scorers = Arc::clone(&scorers);
        let scored = tokio::task::spawn_blocking(move || score(&taken, &scorers)).await;
        let by_episode = match scored {
            Ok(by_episode) => by_episode,
            Err(error) => {
                tracing::warn!(%error, "the background scorers panicked; a batch goes unscored");
                continue;
            }
        };
        for (episode, rows) in by_episode {
            if let Err(error) = store.record_scores(&episode, rows).await {
                tracing::warn!(%error, %episode, "cannot store background scores");
            }
        }
    }
}

/// Every scorer's scores of `batch`, by episode.
fn score(batch: &[Pending], scorers: &[Box<dyn StepScorer>]) -> BTreeMap<EpisodeId, Vec<ScoreRow>> {
    let steps: Vec<ScoredStep<'_>> = batch
        .iter()
        .map(|pending| {
            ScoredStep::new(
                pending.env.manifest(),
                &pending.instruction,
                &pending.stepped,
            )
        })
        .collect();
    let mut by_episode: BTreeMap<EpisodeId, Vec<ScoreRow>> = BTreeMap::new();
    for scorer in scorers {
        for (pending, score) in batch.iter().zip(scorer.judge_many(&steps)) {
            by_episode
                .entry(pending.episode.clone())
                .or_default()
                .push(ScoreRow::of(pending.stepped.record.index, score));
        }
    }
    by_episode
}
