//! Agents named on a command line: `oracle`, `reckless`, `cautious`, `random`, `wavering`,
//! `silent`, `refuser`, `replay:PATH` and `openai:MODEL`.

use std::path::Path;
use std::time::Duration;

use crate::chat::Sampling;
use crate::openai::{DEFAULT_BASE_URL, OpenAiAgent, OpenAiSettings};
use crate::{Agent, AgentError, Baseline, Scripted};

/// The forms an agent spec takes, for error messages and help texts.
pub const AGENT_SPECS: &str =
    "oracle, reckless, cautious, random, wavering, silent, refuser, replay:PATH, openai:MODEL";

/// What a model agent needs beyond its spec.
#[derive(Clone)]
pub struct AgentSettings {
    /// The chat-completions API's root; `DEFAULT_BASE_URL` when absent.
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    /// How long one request may take.
    pub timeout: Duration,
    /// Retries of a request that failed in a way that passes with time.
    pub max_retries: u32,
    /// What every request asks of the model besides the conversation.
    pub sampling: Sampling,
}

impl Default for AgentSettings {
    fn default() -> AgentSettings {
        AgentSettings {
            base_url: None,
            api_key: None,
            timeout: Duration::from_secs(120),
            max_retries: 4,
            sampling: Sampling::default(),
        }
    }
}

/// The key stays out of logs.
impl std::fmt::Debug for AgentSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("sampling", &self.sampling)
            .finish()
    }
}

/// The wait before a model agent's first retry; later ones double it.
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);

/// The agent a spec names.
pub fn build_agent(spec: &str, settings: &AgentSettings) -> Result<Box<dyn Agent>, AgentError> {
    let bad = |reason: &str| {
        AgentError::Other(format!(
            "`{spec}` is not an agent ({reason}); the agents are {AGENT_SPECS}"
        ))
    };
    if let Ok(baseline) = spec.parse::<Baseline>() {
        return Ok(Box::new(Scripted::baseline(baseline)));
    }
    match spec.split_once(':') {
        Some(("replay", "")) => Err(bad("the file to replay is missing")),
        Some(("replay", path)) => Ok(Box::new(Scripted::replay(Path::new(path))?)),
        Some(("openai", "")) => Err(bad("the model is missing")),
        Some(("openai", model)) => Ok(Box::new(OpenAiAgent::new(OpenAiSettings {
            model: model.to_owned(),
            base_url: settings
                .base_url
                .clone()
                .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
            api_key: settings.api_key.clone(),
            timeout: settings.timeout,
            max_retries: settings.max_retries,
            first_backoff: FIRST_BACKOFF,
            sampling: settings.sampling.clone(),
        })?)),
        _ => Err(bad("unknown name")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(spec: &str, expect: Result<&str, &str>) {
        match (build_agent(spec, &AgentSettings::default()), expect) {
            (Ok(agent), Ok(name)) => assert_eq!(agent.name(), name, "{spec}"),
            (Err(error), Err(message)) => {
                let error = error.to_string();
                assert!(error.contains(message), "{spec}: {error}");
                assert!(error.contains(AGENT_SPECS) || spec.starts_with("replay:no-such"));
            }
            (got, expect) => panic!("{spec}: got {got:?}, expected {expect:?}"),
        }
    }

    #[test]
    fn specs_name_agents() {
        check("oracle", Ok("oracle"));
        check("cautious", Ok("cautious"));
        check("openai:gpt-4o", Ok("openai:gpt-4o"));
        check("openai:org/model:tag", Ok("openai:org/model:tag"));
        check("gpt-4o", Err("`gpt-4o` is not an agent (unknown name)"));
        check("Oracle", Err("unknown name"));
        check("openai:", Err("the model is missing"));
        check("replay:", Err("the file to replay is missing"));
        check("replay:no-such-folder/episodes.jsonl", Err("cannot read"));
    }
}
