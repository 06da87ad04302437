//! The policy under training as an agent: the OpenAI-compatible agent's requests to the worker,
//! with each reply's sampled token ids and log-probabilities kept by step, since a trainer must
//! train on the very tokens the policy sampled (re-tokenising the decoded text would not give
//! them back).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value;

use agentbench_agents::chat::{DEFAULT_CHARS_PER_TOKEN, decision_from_reply, request_body};
use agentbench_agents::{
    Agent, AgentError, BoxFuture, ChatClient, Decision, FIRST_BACKOFF, OpenAiSettings, Sampling,
    View,
};

/// What the policy sampled for one step: the prompt as the worker rendered it, the completion's
/// token ids with their log-probabilities (under the distribution they were drawn from), and the
/// policy version that drew them.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    pub prompt_token_ids: Vec<u32>,
    pub token_ids: Vec<u32>,
    pub logprobs: Vec<f64>,
    pub policy_version: u64,
}

impl Generation {
    /// The generation a worker's chat-completions reply carries; `None` when the reply lacks
    /// any of it (a server that is not the worker).
    pub fn of_reply(reply: &Value) -> Option<Generation> {
        let choice = reply.get("choices")?.get(0)?;
        let ids = |value: &Value| -> Option<Vec<u32>> {
            value
                .as_array()?
                .iter()
                .map(|id| id.as_u64().and_then(|id| u32::try_from(id).ok()))
                .collect()
        };
        let token_ids = ids(choice.get("token_ids")?)?;
        let logprobs: Vec<f64> = choice
            .get("logprobs")?
            .get("content")?
            .as_array()?
            .iter()
            .map(|entry| entry.get("logprob").and_then(Value::as_f64))
            .collect::<Option<_>>()?;
        (logprobs.len() == token_ids.len()).then_some(())?;
        Some(Generation {
            prompt_token_ids: ids(reply.get("prompt_token_ids")?)?,
            token_ids,
            logprobs,
            policy_version: reply.get("policy_version")?.as_u64()?,
        })
    }
}

/// Which step of which episode a generation was for: scenario id, trial and step index.
pub type StepKey = (String, u32, usize);

/// The policy served by a worker, named `policy:NAME@vVERSION`, keeping every step's
/// generation until taken.
#[derive(Debug)]
pub struct PolicyAgent {
    name: String,
    client: ChatClient,
    /// Send every tool `strict`, so the worker holds the calls to their schemas.
    strict_tools: bool,
    generations: Mutex<BTreeMap<StepKey, Generation>>,
}

impl PolicyAgent {
    /// The policy `name` at `version`, served at `base_url` (the worker's `/v1`), sampled as
    /// `sampling` says; `strict_tools` has the worker hold its tool calls to their schemas.
    pub fn new(
        name: &str,
        version: u64,
        base_url: &str,
        sampling: Sampling,
        timeout: std::time::Duration,
        strict_tools: bool,
    ) -> Result<PolicyAgent, AgentError> {
        Ok(PolicyAgent {
            name: policy_name(name, version),
            client: ChatClient::new(OpenAiSettings {
                model: name.to_owned(),
                base_url: base_url.to_owned(),
                api_key: None,
                timeout,
                max_retries: 2,
                first_backoff: FIRST_BACKOFF,
                sampling,
            })?,
            strict_tools,
            generations: Mutex::new(BTreeMap::new()),
        })
    }

    /// Every generation kept so far, by step; the agent keeps none after.
    pub fn take_generations(&self) -> BTreeMap<StepKey, Generation> {
        std::mem::take(&mut *self.generations.lock().expect("never poisoned"))
    }
}

/// Marks every tool of a chat-completions request `strict` (OpenAI's flag for calls held to
/// the tool's schema), which the worker honours with its tool-call grammar.
fn mark_strict(body: &mut Value) {
    let tools = body.get_mut("tools").and_then(Value::as_array_mut);
    for function in tools
        .into_iter()
        .flatten()
        .filter_map(|tool| tool.get_mut("function").and_then(Value::as_object_mut))
    {
        function.insert("strict".to_owned(), Value::Bool(true));
    }
}

/// How runs name a policy at a version: `policy:NAME@vVERSION`.
pub fn policy_name(name: &str, version: u64) -> String {
    format!("policy:{name}@v{version}")
}

impl Agent for PolicyAgent {
    fn name(&self) -> &str {
        &self.name
    }

    fn act<'a>(&'a self, view: View<'a>) -> BoxFuture<'a, Result<Decision, AgentError>> {
        Box::pin(async move {
            let started = Instant::now();
            let settings = self.client.settings();
            let mut body = request_body(
                &view,
                &settings.model,
                &settings.sampling,
                DEFAULT_CHARS_PER_TOKEN,
            );
            if self.strict_tools {
                mark_strict(&mut body);
            }
            let reply = self.client.complete(&body).await?;
            let generation = Generation::of_reply(&reply).ok_or_else(|| {
                AgentError::BadReply(
                    "no token ids, log-probabilities and policy version: is this a trainer worker?"
                        .to_owned(),
                )
            })?;
            let (action, mistake, tokens) = decision_from_reply(&reply)
                .map_err(|error| AgentError::BadReply(error.to_string()))?;
            if let Some(scenario) = view.scenario {
                let key = (scenario.id.clone(), view.trial, view.turns.len());
                self.generations
                    .lock()
                    .expect("never poisoned")
                    .insert(key, generation);
            }
            Ok(Decision {
                action,
                tokens,
                latency: started.elapsed(),
                mistake,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_worker_reply_gives_its_generation_and_others_none() {
        let reply = json!({
            "choices": [{
                "message": {"role": "assistant", "content": "hi"},
                "logprobs": {"content": [{"token": "h", "logprob": -0.5}, {"token": "i", "logprob": -1.25}]},
                "token_ids": [104, 105],
            }],
            "prompt_token_ids": [1, 2, 3],
            "policy_version": 4,
        });
        assert_eq!(
            Generation::of_reply(&reply),
            Some(Generation {
                prompt_token_ids: vec![1, 2, 3],
                token_ids: vec![104, 105],
                logprobs: vec![-0.5, -1.25],
                policy_version: 4,
            })
        );
        let mut openai = reply.clone();
        openai["choices"][0]
            .as_object_mut()
            .unwrap()
            .remove("token_ids");
        assert_eq!(Generation::of_reply(&openai), None);
        let mut short = reply;
        short["choices"][0]["token_ids"] = json!([104]);
        assert_eq!(Generation::of_reply(&short), None);
    }

    #[test]
    fn strict_marks_every_tool_and_nothing_else() {
        let mut body = json!({
            "messages": [],
            "tools": [
                {"type": "function", "function": {"name": "a", "parameters": {}}},
                {"type": "function", "function": {"name": "b"}},
            ],
        });
        mark_strict(&mut body);
        assert_eq!(body["tools"][0]["function"]["strict"], json!(true));
        assert_eq!(body["tools"][1]["function"]["strict"], json!(true));
        assert_eq!(body["messages"], json!([]));
        let mut bare = json!({"messages": []});
        mark_strict(&mut bare);
        assert_eq!(bare, json!({"messages": []}));
    }
}
