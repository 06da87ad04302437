//! The scripted baselines: agents without a model, whose behaviour is known in advance, so that
//! a suite and its metrics can be checked against them.
//!
//! - `oracle` takes the scenario's reference actions.
//! - `reckless` does whatever the latest instruction says, injected ones included: the
//!   attacker's actions where the injection is read, or instead of refusing a harmful request.
//! - `cautious` refuses a harmful request, and asks the user before anything irreversible,
//!   going on only with consent.
//! - `random` makes random calls that fit the tools' schemas, seeded by scenario and trial.
//! - `wavering` is torn between the two: at each step a coin (seeded by scenario, trial, step
//!   and sample) picks `reckless`'s next action or `oracle`'s. It stands in for a sampled model
//!   that sometimes falls for an attack, so that Best-of-N and Monte Carlo rollouts have a
//!   stochastic built-in agent to draw from.
//! - `silent` ends every episode at once with an empty reply: what a model that fell over
//!   scores, and the floor every other agent must clear.
//! - `refuser` refuses every task at once: safe, and useless.
//! - `replay` takes the actions recorded in a file of earlier episodes.
//!
//! Each is a pure function of the view: the position in the plan is the number of turns so far,
//! so the same agent can be served statelessly over HTTP (`agentbench agent serve`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use agentbench_env_runtime::UserReply;

use crate::{Access, Action, Agent, AgentError, BoxFuture, Decision, Scenario, View};

/// The baselines by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Baseline {
    Oracle,
    Reckless,
    Cautious,
    Random,
    Wavering,
    Silent,
    Refuser,
}

impl Baseline {
    pub const ALL: [Baseline; 7] = [
        Baseline::Oracle,
        Baseline::Reckless,
        Baseline::Cautious,
        Baseline::Random,
        Baseline::Wavering,
        Baseline::Silent,
        Baseline::Refuser,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Baseline::Oracle => "oracle",
            Baseline::Reckless => "reckless",
            Baseline::Cautious => "cautious",
            Baseline::Random => "random",
            Baseline::Wavering => "wavering",
            Baseline::Silent => "silent",
            Baseline::Refuser => "refuser",
        }
    }
}

impl std::str::FromStr for Baseline {
    type Err = String;

    fn from_str(text: &str) -> Result<Baseline, String> {
        Baseline::ALL
            .into_iter()
            .find(|baseline| baseline.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Baseline::ALL.iter().map(|known| known.as_str()).collect();
                format!("`{text}` is not a baseline ({})", names.join(", "))
            })
    }
}

/// A scripted agent: one of the baselines, or a replay of recorded episodes.
#[derive(Debug)]
pub struct Scripted {
    name: String,
    script: Script,
}

#[derive(Debug)]
enum Script {
    Baseline(Baseline),
    /// Recorded actions by (scenario id, trial).
    Replay(BTreeMap<(String, u32), Vec<Action>>),
}

/// One line of a recorded episodes file (`episodes.jsonl` of a run): the fields a replay needs.
#[derive(Debug, Clone, Deserialize)]
pub struct RecordedEpisode {
    pub scenario: String,
    pub trial: u32,
    pub actions: Vec<Action>,
}

impl Scripted {
    pub fn baseline(baseline: Baseline) -> Scripted {
        Scripted {
            name: baseline.as_str().to_owned(),
            script: Script::Baseline(baseline),
        }
    }

    /// Replays the episodes recorded in `path`, a JSON-lines file whose lines carry
    /// `scenario`, `trial` and `actions` (a run's `episodes.jsonl`).
    pub fn replay(path: &Path) -> Result<Scripted, AgentError> {
        let text = std::fs::read_to_string(path).map_err(|error| {
            AgentError::Other(format!("cannot read {}: {error}", path.display()))
        })?;
        let mut episodes = BTreeMap::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let episode: RecordedEpisode = serde_json::from_str(line).map_err(|error| {
                AgentError::Other(format!("{}:{}: {error}", path.display(), index + 1))
            })?;
            episodes.insert((episode.scenario, episode.trial), episode.actions);
        }
        Ok(Scripted {
            name: format!("replay:{}", path.display()),
            script: Script::Replay(episodes),
        })
    }

    /// The next action, given the view.
    pub fn next_action(&self, view: &View<'_>) -> Result<Action, AgentError> {
        let needs_scenario = || AgentError::NeedsScenario {
            agent: self.name.clone(),
        };
        let step = view.turns.len();
        Ok(match &self.script {
            Script::Baseline(Baseline::Oracle) => {
                let scenario = view.scenario.ok_or_else(needs_scenario)?;
                planned(&scenario.reference, step)
            }
            Script::Baseline(Baseline::Reckless) => {
                let scenario = view.scenario.ok_or_else(needs_scenario)?;
                planned(&scenario.reckless_plan(), step)
            }
            Script::Baseline(Baseline::Cautious) => {
                cautious(view.scenario.ok_or_else(needs_scenario)?, view)
            }
            Script::Baseline(Baseline::Random) => random(view),
            Script::Baseline(Baseline::Wavering) => {
                let scenario = view.scenario.ok_or_else(needs_scenario)?;
                if Rng::new(&seed(view)).below(2) == 0 {
                    planned(&scenario.reference, step)
                } else {
                    planned(&scenario.reckless_plan(), step)
                }
            }
            Script::Baseline(Baseline::Silent) => Action::Message {
                message: String::new(),
            },
            Script::Baseline(Baseline::Refuser) => Action::Message {
                message: "I won't do that.".to_owned(),
            },
            Script::Replay(episodes) => {
                let scenario = view.scenario.ok_or_else(needs_scenario)?;
                let actions = episodes
                    .get(&(scenario.id.clone(), view.trial))
                    .ok_or_else(|| {
                        AgentError::Other(format!(
                            "the replay file records no trial {} of scenario `{}`",
                            view.trial, scenario.id
                        ))
                    })?;
                planned(actions, step)
            }
        })
    }
}

impl Agent for Scripted {
    fn name(&self) -> &str {
        &self.name
    }

    fn act<'a>(&'a self, view: View<'a>) -> BoxFuture<'a, Result<Decision, AgentError>> {
        let decision = self.next_action(&view).map(Decision::plain);
        Box::pin(std::future::ready(decision))
    }
}

/// The plan's action at `step`, or a closing message once the plan is spent.
fn planned(plan: &[Action], step: usize) -> Action {
    plan.get(step).cloned().unwrap_or_else(|| Action::Message {
        message: "I have nothing more to do.".to_owned(),
    })
}

/// `cautious`: the reference, but a refusal for a harmful request, and a question to the user
/// before the first irreversible call, going on only if the reply consents.
fn cautious(scenario: &Scenario, view: &View<'_>) -> Action {
    if scenario.harmful_request {
        return Action::Message {
            message: "I can't help with that: it could cause harm.".to_owned(),
        };
    }
    let mut consented = false;
    let mut done = 0;
    for turn in view.turns {
        let in_reference = scenario.reference.get(done) == Some(&turn.action);
        match &turn.action {
            Action::AskUser { .. } => {
                let reply = turn.observation.get("reply").and_then(Value::as_str);
                consented = reply.is_some_and(|reply| UserReply::Text(reply.to_owned()).consents());
                // A question of the reference's own (a clarifying one) is a step of the plan;
                // cautious's own question before an irreversible call stops it unless consented.
                if in_reference {
                    done += 1;
                } else if !consented {
                    return Action::Message {
                        message: "I did not go ahead: that step cannot be undone, and you did \
                                  not confirm it."
                            .to_owned(),
                    };
                }
            }
            _ => done += 1,
        }
    }
    let next = planned(&scenario.reference, done);
    if let Action::Tool { tool, arguments } = &next {
        let irreversible = view
            .tools
            .iter()
            .any(|spec| &spec.name == tool && spec.irreversible);
        if irreversible && !consented {
            return Action::AskUser {
                question: format!(
                    "I am about to call `{tool}` with {arguments}, which cannot be undone. \
                     Shall I go ahead?"
                ),
            };
        }
    }
    next
}

/// `random`: a call to a tool the mask does not block, with arguments drawn from its schema;
/// one time in eight, a final message instead.
fn random(view: &View<'_>) -> Action {
    let mut rng = Rng::new(&seed(view));
    let open: Vec<_> = view
        .tools
        .iter()
        .filter(|tool| view.mask.get(&tool.name) != Some(&Access::Blocked))
        .collect();
    if open.is_empty() || rng.below(8) == 0 {
        return Action::Message {
            message: "Done.".to_owned(),
        };
    }
    let tool = open[rng.below(open.len())];
    Action::Tool {
        tool: tool.name.clone(),
        arguments: rng.value(&tool.parameters, 0),
    }
}

/// What a stochastic baseline's draw at `view` is seeded by: the scenario, the trial, the step
/// and, past the first, the sample (so that sample 0 draws what a plain episode draws).
fn seed(view: &View<'_>) -> String {
    let scenario = view.scenario.map_or("", |scenario| scenario.id.as_str());
    let (trial, step) = (view.trial, view.turns.len());
    match view.sample {
        0 => format!("{scenario}/{trial}/{step}"),
        sample => format!("{scenario}/{trial}/{step}/{sample}"),
    }
}

/// A small deterministic generator (SplitMix64) seeded by a hash of a string.
struct Rng(u64);

impl Rng {
    fn new(seed: &str) -> Rng {
        let digest = Sha256::digest(seed.as_bytes());
        Rng(u64::from_le_bytes(digest[..8].try_into().expect("8 bytes")))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A value that fits `schema` (types, enums, required properties, bounds); formats and
    /// patterns are not followed, so a string may still be refused by one.
    fn value(&mut self, schema: &Value, depth: usize) -> Value {
        if let Some(choices) = schema.get("enum").and_then(Value::as_array)
            && !choices.is_empty()
        {
            return choices[self.below(choices.len())].clone();
        }
        if let Some(constant) = schema.get("const") {
            return constant.clone();
        }
        if let Some(options) = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
            && !options.is_empty()
        {
            let option = &options[self.below(options.len())];
            return self.value(option, depth + 1);
        }
        let kind = match schema.get("type") {
            Some(Value::String(kind)) => kind.as_str(),
            Some(Value::Array(kinds)) => {
                let kinds: Vec<_> = kinds.iter().filter_map(Value::as_str).collect();
                kinds
                    .iter()
                    .find(|kind| **kind != "null")
                    .copied()
                    .unwrap_or("null")
            }
            _ => "object",
        };
        let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
        match kind {
            "null" => Value::Null,
            "boolean" => json!(self.below(2) == 1),
            "integer" => {
                let low = bound("minimum").unwrap_or(0.0).ceil() as i64;
                let high = bound("maximum").unwrap_or(low as f64 + 10.0).floor() as i64;
                let span = (high - low).max(0) as usize + 1;
                json!(low + self.below(span) as i64)
            }
            "number" => {
                let low = bound("minimum").unwrap_or(0.0);
                let high = bound("maximum").unwrap_or(low + 100.0);
                json!(low + (high - low) * (self.below(1001) as f64 / 1000.0))
            }
            "string" => {
                const WORDS: &[&str] = &[
                    "report",
                    "/docs/notes.md",
                    "hello",
                    "team@example.com",
                    "2026-03-09",
                ];
                let min = bound("minLength").unwrap_or(0.0) as usize;
                let mut text = WORDS[self.below(WORDS.len())].to_owned();
                while text.chars().count() < min {
                    text.push('x');
                }
                json!(text)
            }
            "array" if depth < 4 => {
                let min = bound("minItems").unwrap_or(0.0) as usize;
                let max = bound("maxItems")
                    .map_or(min + 2, |max| max as usize)
                    .max(min);
                let count = min + self.below(max - min + 1);
                let items = schema.get("items").cloned().unwrap_or(json!({}));
                Value::Array((0..count).map(|_| self.value(&items, depth + 1)).collect())
            }
            "array" => json!([]),
            _ => {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut object = Map::new();
                if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                    for (name, property) in properties {
                        let wanted = required.contains(&name.as_str()) || self.below(2) == 1;
                        if wanted && depth < 4 {
                            object.insert(name.clone(), self.value(property, depth + 1));
                        }
                    }
                }
                Value::Object(object)
            }
        }
    }
}
