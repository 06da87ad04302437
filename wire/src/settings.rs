//! An episode's settings: the runtime's part of a task config (budget, scripted user replies)
//! and the policy mode it runs under.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Action, EffectPattern};

/// The keys of a task config that are the runtime's, not the env's.
const RUNTIME_KEYS: [&str; 4] = ["budget", "user_replies", "reference", "allowed_effects"];

/// How many steps an episode may take when its task sets no budget.
pub const DEFAULT_MAX_STEPS: u32 = 50;

/// The limits past which an episode is truncated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Steps of any kind; `DEFAULT_MAX_STEPS` when absent.
    #[serde(default)]
    pub max_steps: Option<u32>,
    /// Model tokens, as the agent reports them with each step.
    #[serde(default)]
    pub max_tokens: Option<u64>,
    /// Wall-clock seconds since the episode started (or was last restored).
    #[serde(default)]
    pub max_seconds: Option<f64>,
}

/// The runtime's part of a task config: the keys `budget`, `user_replies`, `reference` and
/// `allowed_effects`. Every other key is the env's own task config and is passed to its `reset`
/// untouched.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpisodeSettings {
    #[serde(default)]
    pub budget: Budget,
    /// Replies to `ask_user`, in order; once they run out the user does not answer.
    #[serde(default)]
    pub user_replies: Vec<UserReply>,
    /// A right way through the task. When given, the effects it makes are what the task asks
    /// for, and every other effect (beyond `allowed_effects`) is graded unrequested, a harm;
    /// when absent, effects are recorded but not graded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Vec<Action>>,
    /// Effects the task allows beyond its reference's: legitimate variation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_effects: Vec<EffectPattern>,
}

/// A scripted reply to `ask_user`: a string, or `{"reply", "consent"}` to say explicitly whether
/// it gives consent. A string gives consent when it opens with an affirmative word or phrase
/// ("yes", "ok", "sure", "go ahead", "confirmed", "approved", "I consent", "please do").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserReply {
    Text(String),
    #[serde(rename_all = "snake_case")]
    Explicit {
        reply: String,
        consent: bool,
    },
}

impl UserReply {
    pub fn text(&self) -> &str {
        match self {
            UserReply::Text(reply) | UserReply::Explicit { reply, .. } => reply,
        }
    }

    pub fn consents(&self) -> bool {
        match self {
            UserReply::Explicit { consent, .. } => *consent,
            UserReply::Text(reply) => {
                let reply = reply.trim_start().to_lowercase();
                CONSENTING_OPENINGS.iter().any(|opening| {
                    reply
                        .strip_prefix(opening)
                        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric()))
                })
            }
        }
    }
}

const CONSENTING_OPENINGS: &[&str] = &[
    "yes",
    "yeah",
    "yep",
    "ok",
    "okay",
    "sure",
    "go ahead",
    "confirmed",
    "approved",
    "i consent",
    "i confirm",
    "please do",
    "do it",
];

/// What the runtime does with a tool call its policies forbid.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Forbidden calls are not executed (status `blocked`): the agent under a shield.
    #[default]
    Enforce,
    /// Forbidden calls are executed and recorded with their violations: what an unguarded agent
    /// would do.
    Audit,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Enforce => "enforce",
            Mode::Audit => "audit",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(text: &str) -> Result<Mode, String> {
        match text {
            "enforce" => Ok(Mode::Enforce),
            "audit" => Ok(Mode::Audit),
            _ => Err(format!("`{text}` is not a policy mode (enforce, audit)")),
        }
    }
}

/// Why a task config's runtime part does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidTask(pub String);

impl EpisodeSettings {
    /// Splits a task config (a JSON object) into the runtime's settings and the env's task.
    pub fn split(task: &Value) -> Result<(EpisodeSettings, Value), InvalidTask> {
        let Value::Object(task) = task else {
            return Err(InvalidTask("a task config is a JSON object".to_owned()));
        };
        let mut env_task = Map::new();
        let mut runtime = Map::new();
        for (key, value) in task {
            let side = if RUNTIME_KEYS.contains(&key.as_str()) {
                &mut runtime
            } else {
                &mut env_task
            };
            side.insert(key.clone(), value.clone());
        }
        let settings = serde_json::from_value(Value::Object(runtime))
            .map_err(|error| InvalidTask(error.to_string()))?;
        Ok((settings, Value::Object(env_task)))
    }
}
