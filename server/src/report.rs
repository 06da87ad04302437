//! The report a suite run leaves: what ran, its metrics, the gate's verdict, the baseline
//! comparison and every episode's result. `agentbench run` writes it (`run/output.rs`), the store
//! keeps it with the run, and the leaderboard and the runs API read it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use agentbench_agents::Sampling;
use agentbench_scorers::{Difference, EpisodeResult, RunMetrics};

use crate::gate::GateVerdict;
use crate::ids::RunId;

/// What ran, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunInfo {
    pub id: RunId,
    pub suite: String,
    pub suite_version: String,
    pub suite_hash: String,
    pub agent: String,
    pub trials: u32,
    pub mode: String,
    /// The server the episodes ran on; `None` when in process.
    pub server: Option<String>,
    /// The model endpoint, for a model agent.
    pub base_url: Option<String>,
    /// What a model agent's requests asked for besides the conversation (`tool_choice`,
    /// `max_tokens`, `temperature`, `top_p`, `seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Sampling>,
    /// The git revision of the agent or model under test, when given.
    pub revision: Option<String>,
    /// Only the first N scenarios ran.
    pub limit: Option<usize>,
    pub started_ms: i64,
    pub ended_ms: i64,
}

/// `report.json`: the run, its metrics, the gate's verdict, the baseline comparison, and every
/// episode's result (so that a later run can be compared with this one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    pub run: RunInfo,
    pub metrics: RunMetrics,
    pub gate: Option<GateVerdict>,
    pub baseline: Option<Comparison>,
    pub episodes: Vec<EpisodeResult>,
}

/// A paired comparison with a baseline run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comparison {
    /// The baseline's run id.
    pub run: RunId,
    pub differences: Vec<Difference>,
}
