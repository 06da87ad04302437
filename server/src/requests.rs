//! The bodies clients send to change episodes. The API parses them, the sessions act on them and
//! the OpenAPI document describes them, each from these one set of types.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use agentbench_env_runtime::{Action, Mode};

/// Start an episode of `env`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateEpisode {
    /// The env's name, as `GET /v1/envs` lists it.
    pub env: String,
    /// The task config; `{}` (the env's default task) when absent.
    #[serde(default)]
    pub task: Option<Value>,
    /// Defaults to 0, so that an episode is reproducible unless asked otherwise.
    #[serde(default)]
    pub seed: Option<u64>,
    /// What the safety policies do with a forbidden call; `enforce` when absent.
    #[serde(default)]
    pub mode: Mode,
}

/// One action.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepRequest {
    pub action: Action,
    /// A client's id for this request: a retry with the same id returns the recorded result.
    #[serde(default)]
    pub request_id: Option<String>,
    /// Model tokens spent producing this action, counted against the token budget.
    #[serde(default)]
    pub tokens: Option<u64>,
    /// What the agent reports about producing this action, recorded with the step.
    #[serde(default)]
    pub agent: Option<AgentNote>,
}

/// Many actions at once, on one episode or many (`POST /v1/steps`).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepBatch {
    /// At most `MAX_BATCH_STEPS`. Each is parsed on its own, so that one malformed item is
    /// answered with its own error and the others still run.
    #[schemars(with = "Vec<BatchStep>")]
    pub steps: Vec<Box<serde_json::value::RawValue>>,
}

/// The most actions one batch takes.
pub(crate) const MAX_BATCH_STEPS: usize = 4096;

/// One action of a batch: a step request and the episode it is for.
#[derive(Debug, schemars::JsonSchema)]
#[allow(dead_code)]
pub(crate) struct BatchStep {
    /// The episode's id.
    episode: String,
    #[serde(flatten)]
    step: StepRequest,
}

impl BatchStep {
    /// One item of a batch: `{"episode": ID, ...}` and, besides, exactly what a single step
    /// request takes.
    pub(crate) fn parse(
        item: &str,
    ) -> Result<(crate::ids::EpisodeId, StepRequest), serde_json::Error> {
        use serde::de::Error as _;
        let mut fields: serde_json::Map<String, Value> = serde_json::from_str(item)?;
        let episode = match fields.remove("episode") {
            Some(Value::String(episode)) => episode,
            Some(_) => return Err(serde_json::Error::custom("`episode` must be a string")),
            None => return Err(serde_json::Error::missing_field("episode")),
        };
        let request = serde_json::from_value(Value::Object(fields))?;
        Ok((episode.into(), request))
    }
}

/// What an agent reports about producing an action (the runner of `agentbench run` sends it).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentNote {
    /// How long the agent took to produce the action, retries included.
    #[serde(default)]
    latency_ms: Option<u64>,
    /// The mistake in the agent's reply that the action stands in for (several tool calls,
    /// arguments that are not an object, an empty reply), as `{"kind", ...}`.
    #[serde(default)]
    mistake: Option<Value>,
}
