//! The acting side of an episode: the `Agent` trait, and the agents that implement it (an
//! OpenAI-compatible chat-completions client and the scripted baselines).
//!
//! An agent sees a `View` of the episode (the instruction, the first observation, the tools,
//! the mask, every turn so far) and answers with a `Decision`: the next action, the tokens it
//! spent, how long it took, and the mistake it made producing it, if any. It knows nothing of
//! how the env is hosted: the runner steps the episode, in process or over HTTP.

pub mod chat;
mod openai;
mod scripted;
pub mod secrets;
mod spec;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use agentbench_datasets::Scenario;
pub use agentbench_env_contract::ToolSpec;
pub use agentbench_env_runtime::{Access, Action, Mask, StepRecord};

pub use chat::{ChatError, Sampling, ToolChoice, Transcript};
pub use openai::{ChatClient, DEFAULT_BASE_URL, MAX_BACKOFF, OpenAiAgent, OpenAiSettings};
pub use scripted::{Baseline, RecordedEpisode, Scripted};
pub use spec::{AGENT_SPECS, AgentSettings, FIRST_BACKOFF, build_agent};

/// One exchange so far: what the agent did and what came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub action: Action,
    /// The step's status as the runtime recorded it (`ok`, `blocked`, `invalid_arguments`…).
    pub status: String,
    /// What the agent is shown: the step's observation.
    pub observation: Value,
}

impl Turn {
    /// The turn an in-process step shows the agent: its action, status and observation.
    pub fn from_record(record: &StepRecord) -> Turn {
        Turn {
            action: record.action.clone(),
            status: record.status.as_str().to_owned(),
            // The runtime records observations as JSON text it has checked.
            observation: serde_json::from_str(record.observation.get()).unwrap_or(Value::Null),
        }
    }
}

/// What an agent is shown before it acts.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// The scenario being played. Only scripted baselines read it; a model is never shown it.
    pub scenario: Option<&'a Scenario>,
    /// Which trial of the scenario this is (from 0); seeds the `random` and `wavering`
    /// baselines.
    pub trial: u32,
    /// Which of several samples drawn at this same view this is (from 0): Best-of-N and Monte
    /// Carlo rollouts ask a stochastic agent more than once. Seeds `random` and `wavering`; 0
    /// in a plain episode.
    pub sample: u32,
    /// What the user asked for.
    pub instruction: &'a str,
    /// The env's first observation.
    pub observation: &'a Value,
    pub tools: &'a [ToolSpec],
    /// How each tool stands for the next action.
    pub mask: &'a Mask,
    pub turns: &'a [Turn],
}

/// The agent's next action, and what producing it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub action: Action,
    /// Model tokens spent (prompt and completion), when the agent is a model.
    pub tokens: Option<u64>,
    /// How long the agent took, retries included.
    pub latency: Duration,
    /// A mistake in the agent's reply that the action stands in for.
    pub mistake: Option<Mistake>,
}

impl Decision {
    /// A decision that took no time, tokens or mistakes (a scripted one).
    pub fn plain(action: Action) -> Decision {
        Decision {
            action,
            tokens: None,
            latency: Duration::ZERO,
            mistake: None,
        }
    }
}

/// A reply of the agent's that was not one well-formed action; recorded with the step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Mistake {
    /// Neither text nor a tool call: taken as an empty final message.
    EmptyReply,
    /// A text reply that stopped at the token limit (`finish_reason: "length"`): taken as it
    /// came, but an episode that ends on it has no answer.
    CutOff,
    /// Several tool calls in one reply: the first is taken, the rest are answered unexecuted.
    SeveralToolCalls { count: usize },
    /// Arguments that are not a JSON object: passed on as they came, so that the runtime
    /// records them as invalid arguments.
    MalformedArguments { tool: String, error: String },
}

/// Why an agent could not act at all: the episode cannot be measured.
#[derive(Debug, Clone, thiserror::Error)]
pub enum AgentError {
    #[error("cannot reach the model endpoint {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("the model endpoint answered {status}: {body}")]
    Http { status: u16, body: String },
    #[error("the model endpoint did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the model endpoint's reply is not a chat completion: {0}")]
    BadReply(String),
    #[error("the `{agent}` baseline plays scripted scenarios only; this episode has none")]
    NeedsScenario { agent: String },
    #[error("{0}")]
    Other(String),
}

/// A boxed future, `Send`, as the trait's methods return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Anything that picks actions.
pub trait Agent: Send + Sync + std::fmt::Debug {
    /// How runs and reports name it (`oracle`, `openai:gpt-4o`).
    fn name(&self) -> &str;
    /// The next action.
    fn act<'a>(&'a self, view: View<'a>) -> BoxFuture<'a, Result<Decision, AgentError>>;
}

/// The name of the function an agent calls to ask the user a question.
pub const ASK_USER_TOOL: &str = "ask_user";
