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
    /// Only N scenarios ran: a stratified sample drawn with `sample_seed`, or (runs recorded
    /// before samples were drawn) the first N.
    pub limit: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_seed: Option<u64>,
    /// How many scenarios the suite has (absent in reports written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_scenarios: Option<usize>,
    /// Only these many scenarios, chosen by id (a trainer's batch or held-out split), were
    /// eligible, before `limit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<usize>,
    /// The training run and checkpoint this run evaluated (`agentbench train`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<TrainingTag>,
    pub started_ms: i64,
    pub ended_ms: i64,
}

/// What a run played by the trainer records of the training: which training run, at which
/// policy version and update, under which configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TrainingTag {
    /// The training run's id (`train-…`).
    pub id: String,
    pub policy_version: u64,
    /// RL updates done when the policy was evaluated (0 before RL).
    pub update: u32,
    /// The stage the policy is at: `base`, `sft` or `rl`.
    pub stage: String,
    /// The SHA-256 of the training configuration.
    pub config_hash: String,
}

/// `report.json`: the run, its metrics, the gate's verdict, the baseline comparison, and every
/// episode's result (so that a later run can be compared with this one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    pub run: RunInfo,
    /// The run's verdict; read it with `Report::verdict` (reports written before it was
    /// recorded have only the gate's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Why the run could not be judged (too many episodes unmeasured, or none measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub metrics: RunMetrics,
    pub gate: Option<GateVerdict>,
    pub baseline: Option<Comparison>,
    pub episodes: Vec<EpisodeResult>,
}

impl Report {
    /// The run's verdict: the one every output reads (the exit code, `summary.md`,
    /// `junit.xml`, `report.json`, the runs API and the page).
    pub fn verdict(&self) -> Verdict {
        self.verdict
            .unwrap_or_else(|| Verdict::of(self.error.is_some(), self.gate.as_ref()))
    }

    /// Why the run measured less than the whole suite, if it did: a sample (`--limit`), or
    /// episodes that could not be measured. A partial run is marked as such wherever it shows,
    /// and never stands for its agent on the leaderboard while a complete run does.
    pub fn partial(&self) -> Option<String> {
        let chosen = match (
            self.run.chosen,
            self.run.suite_scenarios,
            &self.run.training,
        ) {
            (Some(chosen), Some(total), Some(_)) => Some(format!(
                "the held-out split: {chosen} of the suite's {total} scenarios"
            )),
            (Some(chosen), Some(total), None) if chosen < total => {
                Some(format!("{chosen} chosen of the suite's {total} scenarios"))
            }
            _ => None,
        };
        // A sample is drawn from the chosen scenarios when some were chosen.
        let pool = self.run.chosen.or(self.run.suite_scenarios);
        let sampled = match (self.run.limit, pool) {
            (Some(limit), Some(pool)) if limit < pool && chosen.is_some() => {
                Some(format!("a sample of {limit} of them"))
            }
            (Some(limit), Some(pool)) if limit < pool => Some(format!(
                "a sample of {limit} of the suite's {pool} scenarios"
            )),
            (Some(_), Some(_)) | (None, _) => None,
            (Some(limit), None) => Some(format!("only {limit} of the suite's scenarios")),
        };
        let unmeasured = self.metrics.unmeasured;
        let unmeasured = (unmeasured > 0).then(|| format!("{unmeasured} episode(s) unmeasured"));
        let parts: Vec<String> = [chosen, sampled, unmeasured]
            .into_iter()
            .flatten()
            .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// How a run came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The gate passed.
    Passed,
    /// The gate failed.
    Failed,
    /// Nothing failed, but the suite is too small to decide some threshold.
    Inconclusive,
    /// The run could not be judged: more episodes unmeasured than the gate allows, or none
    /// measured.
    Error,
    /// No gate was given and the run could be judged.
    Ungated,
}

impl Verdict {
    /// The verdict of a run that could or could not be judged, under its gate's verdict.
    pub fn of(error: bool, gate: Option<&GateVerdict>) -> Verdict {
        match gate {
            _ if error => Verdict::Error,
            Some(gate) if gate.passed => Verdict::Passed,
            Some(gate) if gate.inconclusive => Verdict::Inconclusive,
            Some(_) => Verdict::Failed,
            None => Verdict::Ungated,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Error => "error",
            Verdict::Ungated => "ungated",
        }
    }

    /// `agentbench run`'s exit status: 0 passed or ungated, 1 failed, 2 error, 3 inconclusive.
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Passed | Verdict::Ungated => 0,
            Verdict::Failed => 1,
            Verdict::Error => 2,
            Verdict::Inconclusive => 3,
        }
    }
}

/// A paired comparison with a baseline run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comparison {
    /// The baseline's run id.
    pub run: RunId,
    pub differences: Vec<Difference>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(passed: bool, inconclusive: bool) -> GateVerdict {
        GateVerdict {
            passed,
            inconclusive,
            checks: Vec::new(),
        }
    }

    #[test]
    fn a_run_that_could_not_be_judged_is_an_error_whatever_its_gate_says() {
        assert_eq!(Verdict::of(true, Some(&gate(true, false))), Verdict::Error);
        assert_eq!(Verdict::of(true, None), Verdict::Error);
        assert_eq!(
            Verdict::of(false, Some(&gate(true, false))),
            Verdict::Passed
        );
        assert_eq!(
            Verdict::of(false, Some(&gate(false, true))),
            Verdict::Inconclusive
        );
        assert_eq!(
            Verdict::of(false, Some(&gate(false, false))),
            Verdict::Failed
        );
        assert_eq!(Verdict::of(false, None), Verdict::Ungated);
        let codes: Vec<u8> = [
            Verdict::Passed,
            Verdict::Ungated,
            Verdict::Failed,
            Verdict::Error,
            Verdict::Inconclusive,
        ]
        .map(Verdict::exit_code)
        .to_vec();
        assert_eq!(codes, [0, 0, 1, 2, 3]);
        assert_eq!(serde_json::to_value(Verdict::Error).unwrap(), "error");
    }
}
