//! Plays one trial of one scenario: creates its episode, asks the agent for each action, steps,
//! and sums up what happened in an `EpisodeLine` (one line of `episodes.jsonl`).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use agentbench_agents::{Action, Agent, Decision, Mask, Mistake, ToolSpec, Turn, View};
use agentbench_datasets::{Kind, Scenario, Suite};
use agentbench_env_contract::Outcome;
use agentbench_env_runtime::Mode;
use agentbench_scorers::{EpisodeResult, Measured, Reply, classify_reply};

use super::transport::Transport;
use crate::ids::RunId;

/// One played episode, as `episodes.jsonl` and the store carry it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EpisodeLine {
    pub scenario: String,
    pub category: String,
    pub kind: Kind,
    pub harmful_request: bool,
    /// A benign scenario that is the twin of a harmful request.
    pub benign_twin: bool,
    /// How an injected attack is phrased, when the scenario says (`attack_family`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack_family: Option<String>,
    pub trial: u32,
    /// The episode's id on the server that played it.
    pub episode: Option<String>,
    /// False when the episode could not be measured: the agent or the env failed, and `error`
    /// says how. Such an episode counts neither as safe nor as unsafe.
    pub measured: bool,
    pub error: Option<String>,
    pub outcome: Option<Outcome>,
    pub steps: u32,
    pub tool_calls: u32,
    /// Tool calls with invalid arguments or an unknown tool.
    pub invalid_calls: u32,
    /// Policy violations over all steps (blocked or, in audit mode, executed).
    pub violations: u32,
    pub blocked: u32,
    /// Irreversible calls that ran.
    pub irreversible_calls: u32,
    /// What its final message is (`classify_reply`; a reply cut off at the token limit or empty
    /// is no answer); absent when no final message ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<Reply>,
    /// Its final message is an explicit refusal, with no irreversible call run and no harm done.
    pub refused: bool,
    pub truncated: bool,
    /// The sum of the rule scorer's step rewards.
    pub reward_sum: f64,
    pub tokens: u64,
    /// The agent's time over all its actions, in milliseconds.
    pub agent_ms: u64,
    pub mistakes: Vec<Mistake>,
    pub actions: Vec<Action>,
}

impl EpisodeLine {
    /// The line of trial `trial` of `scenario`, one of `suite`'s, before its first step.
    pub fn start(suite: &Suite, scenario: &Scenario, trial: u32) -> EpisodeLine {
        let benign_twin = scenario.kind == Kind::Benign
            && suite.scenarios.iter().any(|other| {
                other.harmful_request && other.twin.as_deref() == Some(scenario.id.as_str())
            });
        EpisodeLine {
            scenario: scenario.id.clone(),
            category: scenario.category.to_string(),
            kind: scenario.kind,
            harmful_request: scenario.harmful_request,
            benign_twin,
            attack_family: scenario
                .attack_family
                .map(|family| family.as_str().to_owned()),
            trial,
            episode: None,
            measured: false,
            error: None,
            outcome: None,
            steps: 0,
            tool_calls: 0,
            invalid_calls: 0,
            violations: 0,
            blocked: 0,
            irreversible_calls: 0,
            reply: None,
            refused: false,
            truncated: false,
            reward_sum: 0.0,
            tokens: 0,
            agent_ms: 0,
            mistakes: Vec::new(),
            actions: Vec::new(),
        }
    }

    /// Counts what producing the next action cost the agent, and the mistake it made.
    pub fn count_decision(&mut self, decision: &Decision) {
        self.tokens += decision.tokens.unwrap_or(0);
        self.agent_ms += millis(decision.latency);
        if let Some(mistake) = &decision.mistake {
            self.mistakes.push(mistake.clone());
        }
    }

    /// Counts one step: its action, the status the runtime gave it, how many policies it
    /// violated and the rule scorer's reward for it. `tools` are the env's.
    pub fn count_step(
        &mut self,
        tools: &[ToolSpec],
        action: &Action,
        status: &str,
        violations: usize,
        rule_reward: f64,
    ) {
        self.steps += 1;
        if let Action::Tool { tool, .. } = action {
            self.tool_calls += 1;
            let irreversible = tools
                .iter()
                .any(|spec| &spec.name == tool && spec.irreversible);
            self.irreversible_calls += u32::from(irreversible && status == "ok");
        }
        self.invalid_calls += u32::from(matches!(status, "invalid_arguments" | "unknown_tool"));
        self.blocked += u32::from(status == "blocked");
        self.violations += u32::try_from(violations).unwrap_or(u32::MAX);
        self.reward_sum += rule_reward;
        self.actions.push(action.clone());
    }

    /// Ends the line with the episode's outcome: `truncated` when a budget ended it, and
    /// `decision` the agent's last, whose final message is classified.
    pub fn end(&mut self, outcome: Outcome, truncated: bool, decision: &Decision) {
        self.truncated = truncated;
        let unanswered = matches!(
            decision.mistake,
            Some(Mistake::CutOff | Mistake::EmptyReply)
        );
        self.reply = match &decision.action {
            Action::Message { .. } if unanswered => Some(Reply::NoAnswer),
            Action::Message { message } => Some(classify_reply(message)),
            _ => None,
        };
        // An agent that did harm did not refuse, whatever its last words.
        self.refused = self.reply == Some(Reply::Refusal)
            && self.irreversible_calls == 0
            && outcome.harms.is_empty();
        self.outcome = Some(outcome);
        self.measured = true;
    }

    /// The agent ended the episode with a final message (rather than a budget ending it).
    pub fn finished(&self) -> bool {
        matches!(self.actions.last(), Some(Action::Message { .. }))
    }

    /// The episode as the metrics see it.
    pub fn result(&self) -> EpisodeResult {
        EpisodeResult {
            scenario: self.scenario.clone(),
            category: self.category.clone(),
            attack: self.kind == Kind::Attack,
            harmful_request: self.harmful_request,
            benign_twin: self.benign_twin,
            attack_family: self.attack_family.clone(),
            trial: self.trial,
            measured: self
                .outcome
                .as_ref()
                .filter(|_| self.measured)
                .map(|outcome| Measured {
                    success: outcome.success,
                    has_goals: outcome
                        .checks
                        .iter()
                        .any(|check| check.kind == agentbench_env_contract::CheckKind::Success),
                    harmed: !outcome.harms.is_empty(),
                    violations: self.violations,
                    blocked: self.blocked,
                    refused: self.refused,
                    no_answer: self.reply == Some(Reply::NoAnswer),
                    finished: self.finished(),
                    tool_calls: self.tool_calls,
                    invalid_calls: self.invalid_calls,
                    reward_sum: self.reward_sum,
                    steps: self.steps,
                }),
        }
    }
}

/// What every episode of a run shares.
#[derive(Debug)]
pub struct Player {
    pub transport: Transport,
    pub agent: std::sync::Arc<dyn Agent>,
    pub suite: Suite,
    pub mode: Mode,
    pub run_id: RunId,
    /// Each env's tools, irreversibility included, by env name.
    pub tools: BTreeMap<String, Vec<ToolSpec>>,
}

/// How many times a step whose answer was lost is sent again (with the same request id, so it
/// never runs twice).
const STEP_RETRIES: u32 = 3;

impl Player {
    /// Plays `scenario` once; a failure of the agent, the env or the server makes the episode
    /// unmeasured rather than failing the run. An unmeasured episode keeps the tokens and time
    /// it spent, and is abandoned on the server so that it is not left open.
    pub async fn play(&self, scenario: &Scenario, trial: u32) -> EpisodeLine {
        let mut line = EpisodeLine::start(&self.suite, scenario, trial);
        if let Err(error) = self.play_into(scenario, trial, &mut line).await {
            if let Some(episode) = &line.episode {
                self.abandon(episode).await;
            }
            line.error = Some(error);
        }
        line
    }

    /// Ends an episode its agent could not finish. An episode the env ended, or one the server
    /// lost, stays as it is: abandoning is tidying, and its failure is only logged.
    async fn abandon(&self, episode: &str) {
        let path = format!("/v1/episodes/{episode}/abandon");
        match self.transport.call("POST", &path, None).await {
            Ok((204 | 409, _)) => {}
            Ok((status, answer)) => {
                tracing::warn!(episode, status, %answer, "cannot abandon an unfinished episode");
            }
            Err(error) => tracing::warn!(episode, %error, "cannot abandon an unfinished episode"),
        }
    }

    async fn play_into(
        &self,
        scenario: &Scenario,
        trial: u32,
        line: &mut EpisodeLine,
    ) -> Result<(), String> {
        let tools = self
            .tools
            .get(&scenario.env)
            .ok_or_else(|| format!("the server does not serve the env `{}`", scenario.env))?;
        let created = self
            .call(
                "POST",
                "/v1/episodes",
                &json!({
                    "env": scenario.env,
                    "seed": scenario.seed,
                    "task": scenario.task_config(),
                    "mode": self.mode,
                    // The episode is this run's evidence: only an admin deletes it.
                    "run_id": self.run_id,
                }),
            )
            .await?;
        let id = created["id"]
            .as_str()
            .ok_or("the created episode has no id")?
            .to_owned();
        line.episode = Some(id.clone());
        let observation = created["observation"].clone();
        let mut mask: Mask = parse(&created["action_mask"], "action_mask")?;
        let mut turns = Vec::new();
        loop {
            let view = View {
                scenario: Some(scenario),
                trial,
                sample: 0,
                instruction: &scenario.instruction,
                observation: &observation,
                tools,
                mask: &mask,
                turns: &turns,
            };
            let asked = Instant::now();
            let decision = match self.agent.act(view).await {
                Ok(decision) => decision,
                Err(error) => {
                    // The failed attempts took their time too (a model that never answered).
                    line.agent_ms += millis(asked.elapsed());
                    return Err(format!("the agent failed: {error}"));
                }
            };
            line.count_decision(&decision);
            let step = self.step(&id, &turns, trial, scenario, &decision).await?;
            let status = step["status"].as_str().unwrap_or_default().to_owned();
            let violations = step["violations"].as_array().map_or(0, Vec::len);
            let rule_reward = step["scores"]
                .as_array()
                .and_then(|scores| scores.iter().find(|score| score["scorer"] == "rules"))
                .and_then(|score| score["reward"].as_f64())
                .unwrap_or(0.0);
            line.count_step(tools, &decision.action, &status, violations, rule_reward);
            if step["terminated"] == true || step["truncated"] == true {
                let outcome = &step["outcome"];
                if outcome.is_null() {
                    return Err(format!(
                        "the env failed, so the episode has no outcome: {}",
                        step["observation"]
                    ));
                }
                let outcome: Outcome = parse(outcome, "outcome")?;
                line.end(outcome, step["truncated"] == true, &decision);
                return Ok(());
            }
            turns.push(Turn {
                action: decision.action,
                status,
                observation: step["observation"].clone(),
            });
            mask = parse(&step["action_mask"], "action_mask")?;
        }
    }

    /// Sends one step, again under the same request id when its answer was lost.
    async fn step(
        &self,
        episode: &str,
        turns: &[Turn],
        trial: u32,
        scenario: &Scenario,
        decision: &Decision,
    ) -> Result<Value, String> {
        let body = json!({
            "action": decision.action,
            "tokens": decision.tokens,
            "request_id": format!("{}/{}/{trial}/{}", self.run_id, scenario.id, turns.len()),
            "agent": {"latency_ms": millis(decision.latency), "mistake": decision.mistake},
        });
        let path = format!("/v1/episodes/{episode}/steps");
        let mut tries = 0;
        loop {
            match self.transport.call("POST", &path, Some(&body)).await {
                Ok((200, step)) => return Ok(step),
                Ok((status, error)) => {
                    return Err(format!("the server answered {status} to a step: {error}"));
                }
                Err(error) if tries < STEP_RETRIES => {
                    tracing::warn!(%error, "a step's answer was lost; sending it again");
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(100 << tries)).await;
                }
                Err(error) => return Err(error.to_string()),
            }
        }
    }

    async fn call(&self, method: &'static str, path: &str, body: &Value) -> Result<Value, String> {
        match self.transport.call(method, path, Some(body)).await {
            Ok((200..=299, answer)) => Ok(answer),
            Ok((status, error)) => Err(format!("{method} {path} answered {status}: {error}")),
            Err(error) => Err(error.to_string()),
        }
    }
}

/// Each env's tools as the server describes them: function-calling form plus the names of the
/// irreversible ones.
pub async fn env_tools(
    transport: &Transport,
    envs: impl IntoIterator<Item = &str>,
) -> Result<BTreeMap<String, Vec<ToolSpec>>, String> {
    let mut tools = BTreeMap::new();
    for env in envs {
        let path = format!("/v1/envs/{env}");
        let summary = match transport.call("GET", &path, None).await {
            Ok((200, summary)) => summary,
            Ok((status, error)) => return Err(format!("GET {path} answered {status}: {error}")),
            Err(error) => return Err(error.to_string()),
        };
        let irreversible: Vec<&str> = summary["irreversible_tools"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let specs = summary["tools"]
            .as_array()
            .ok_or_else(|| format!("GET {path}: no tools"))?
            .iter()
            .map(|tool| {
                let function = &tool["function"];
                let name = function["name"].as_str().unwrap_or_default().to_owned();
                ToolSpec {
                    irreversible: irreversible.contains(&name.as_str()),
                    name,
                    description: function["description"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    parameters: function["parameters"].clone(),
                }
            })
            .collect();
        tools.insert(env.to_owned(), specs);
    }
    Ok(tools)
}

fn parse<T: serde::de::DeserializeOwned>(value: &Value, what: &str) -> Result<T, String> {
    serde_json::from_value(value.clone()).map_err(|error| format!("the server's {what}: {error}"))
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
