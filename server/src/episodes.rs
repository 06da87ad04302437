//! The open episodes of a serving process, each behind its own lock so that steps on one
//! episode are serialised while different episodes run in parallel.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use agentbench_env_contract::Outcome;
use agentbench_env_runtime::{Episode, StepRecord};

/// One open episode and its trajectory so far.
#[derive(Debug)]
pub struct OpenEpisode {
    pub id: String,
    pub seed: u64,
    pub task: Value,
    pub observation: Box<RawValue>,
    pub episode: Episode,
    pub steps: Vec<RecordedStep>,
    /// Which step each `request_id` produced, so a retried request is answered from the record.
    pub by_request: HashMap<String, usize>,
    pub outcome: Option<Outcome>,
    pub forked_from: Option<ForkedFrom>,
}

/// A step as recorded, with the mask offered for the action after it.
#[derive(Debug, Clone, Serialize)]
pub struct RecordedStep {
    #[serde(flatten)]
    pub record: StepRecord,
    pub action_mask: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ForkedFrom {
    pub episode: String,
    pub after_step: usize,
}

pub type EpisodeHandle = Arc<tokio::sync::Mutex<OpenEpisode>>;

#[derive(Debug, Default)]
pub struct Episodes {
    open: Mutex<HashMap<String, EpisodeHandle>>,
}

impl Episodes {
    pub fn get(&self, id: &str) -> Option<EpisodeHandle> {
        self.open.lock().expect("episode map lock").get(id).cloned()
    }

    /// Registers `episode` unless `max_open` are open already.
    pub fn insert(&self, episode: OpenEpisode, max_open: usize) -> Result<EpisodeHandle, usize> {
        let mut open = self.open.lock().expect("episode map lock");
        if open.len() >= max_open {
            return Err(open.len());
        }
        let id = episode.id.clone();
        let handle = Arc::new(tokio::sync::Mutex::new(episode));
        open.insert(id, handle.clone());
        Ok(handle)
    }

    pub fn remove(&self, id: &str) -> Option<EpisodeHandle> {
        self.open.lock().expect("episode map lock").remove(id)
    }
}

pub fn new_episode_id() -> String {
    format!("ep_{}", uuid::Uuid::new_v4().simple())
}
