//! The supervised warm start's data: each train scenario's reference solution, played by the
//! `oracle` baseline through the runner, written as the conversation the policy would have had
//! (`request_body`'s messages, the final reply appended) for the worker to render and mask.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::Value;

use agentbench_agents::chat::{DEFAULT_CHARS_PER_TOKEN, request_body};
use agentbench_agents::{
    Action, Agent, AgentError, BoxFuture, Decision, Mask, Sampling, ToolSpec, Turn, View,
};

/// What an agent was last shown in one episode, and what it answered.
#[derive(Debug, Clone)]
struct Seen {
    instruction: String,
    observation: Value,
    tools: Vec<ToolSpec>,
    /// The mask at the first step: the tools the conversation's system turn lists.
    first_mask: Mask,
    turns: Vec<Turn>,
    last: Option<Action>,
}

/// An agent that plays as `inner` does and keeps each episode's conversation.
#[derive(Debug)]
pub struct Transcribing<A> {
    inner: A,
    seen: Mutex<BTreeMap<(String, u32), Seen>>,
}

impl<A: Agent> Transcribing<A> {
    pub fn new(inner: A) -> Transcribing<A> {
        Transcribing {
            inner,
            seen: Mutex::new(BTreeMap::new()),
        }
    }

    /// Scenario `scenario`'s trial `trial` as chat-completions messages with its final reply,
    /// and the tools its first request listed.
    pub fn conversation(&self, scenario: &str, trial: u32) -> Option<(Vec<Value>, Vec<Value>)> {
        let seen = self.seen.lock().expect("never poisoned");
        let seen = seen.get(&(scenario.to_owned(), trial))?;
        let last = seen.last.clone()?;
        let first = View {
            scenario: None,
            trial,
            sample: 0,
            instruction: &seen.instruction,
            observation: &seen.observation,
            tools: &seen.tools,
            mask: &seen.first_mask,
            turns: &[],
        };
        let tools =
            request_body(&first, "", &Sampling::default(), DEFAULT_CHARS_PER_TOKEN)["tools"]
                .as_array()
                .cloned()
                .unwrap_or_default();
        // The final reply as a turn, so that it is written as every other one; the result the
        // body appends after it is not part of the conversation.
        let mut turns = seen.turns.clone();
        turns.push(Turn {
            action: last,
            status: "ok".to_owned(),
            observation: Value::Null,
        });
        let whole = View {
            turns: &turns,
            ..first
        };
        let mut messages = request_body(&whole, "", &Sampling::default(), DEFAULT_CHARS_PER_TOKEN)
            ["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        messages.pop();
        Some((messages, tools))
    }
}

impl<A: Agent> Agent for Transcribing<A> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn act<'a>(&'a self, view: View<'a>) -> BoxFuture<'a, Result<Decision, AgentError>> {
        Box::pin(async move {
            let decision = self.inner.act(view).await?;
            if let Some(scenario) = view.scenario {
                let mut seen = self.seen.lock().expect("never poisoned");
                let entry = seen
                    .entry((scenario.id.clone(), view.trial))
                    .or_insert_with(|| Seen {
                        instruction: view.instruction.to_owned(),
                        observation: view.observation.clone(),
                        tools: view.tools.to_vec(),
                        first_mask: view.mask.clone(),
                        turns: Vec::new(),
                        last: None,
                    });
                entry.turns = view.turns.to_vec();
                entry.last = Some(decision.action.clone());
            }
            Ok(decision)
        })
    }
}
