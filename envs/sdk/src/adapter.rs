//! Runs an `Env` behind the world's exports: episode bookkeeping, dispatch, save and load.
//!
//! `Harness` holds one episode and does all the work in plain Rust, so env authors can unit-test
//! natively; `Adapter` exports a thread-local `Harness` through the generated bindings.

use std::any::Any;
use std::cell::RefCell;
use std::marker::PhantomData;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use agentbench_env_contract::{
    Check, CheckKind, Effect, EffectKind, EnvPolicy, Manifest, Outcome, Resource, SensitiveItem,
    StepStatus,
};

use crate::bindings;
use crate::json;
use crate::toolbox::{Dispatch, Step, Toolbox, schema_of};
use crate::{Env, Rng};

/// The result of one step, as plain Rust.
#[derive(Debug, Clone, PartialEq)]
pub struct StepOutput {
    pub status: StepStatus,
    pub observation: Value,
    pub done: bool,
    pub events: Vec<(String, Value)>,
    /// What the step did to the world; empty unless the tool ran.
    pub effects: Vec<Effect>,
}

/// What `save` writes: the env's state plus the episode bookkeeping, tagged with the env's
/// identity so that a state is never loaded into another env.
#[derive(Serialize, Deserialize)]
struct Saved<S> {
    env_name: String,
    env_version: String,
    steps: u32,
    done: bool,
    state: S,
}

struct Episode<E> {
    env: E,
    steps: u32,
    done: bool,
}

/// One env episode, run natively: exactly what the exported component does, minus the
/// WebAssembly boundary, so env authors can unit-test their env in plain Rust.
pub struct Harness<E: Env> {
    toolbox: Toolbox<E>,
    episode: Option<Episode<E>>,
}

impl<E: Env> std::fmt::Debug for Harness<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Harness")
            .field("env", &E::NAME)
            .field("running", &self.episode.is_some())
            .finish()
    }
}

impl<E: Env> Default for Harness<E> {
    fn default() -> Self {
        Harness::new()
    }
}

impl<E: Env> Harness<E> {
    pub fn new() -> Harness<E> {
        let mut toolbox = Toolbox::new();
        E::tools(&mut toolbox);
        Harness {
            toolbox,
            episode: None,
        }
    }

    /// The env's state, when an episode is running; for tests that inspect it directly.
    pub fn env(&self) -> Option<&E> {
        self.episode.as_ref().map(|episode| &episode.env)
    }

    pub fn manifest(&self) -> Manifest {
        Manifest {
            name: E::NAME.to_owned(),
            version: E::VERSION.to_owned(),
            description: E::DESCRIPTION.to_owned(),
            tools: self.toolbox.specs(),
            facts: schema_of::<E::Facts>(),
            task: schema_of::<E::Task>(),
            policy: E::POLICY.map(|policy| EnvPolicy {
                policies: policy.policies.to_owned(),
                schema: policy.schema.to_owned(),
            }),
        }
    }

    pub fn reset(&mut self, seed: u64, task: &str) -> Result<Value, String> {
        let task: E::Task =
            serde_json::from_str(task).map_err(|error| format!("invalid task config: {error}"))?;
        let env = E::reset(&mut Rng::new(seed), task)?;
        let observation = env.observation();
        self.episode = Some(Episode {
            env,
            steps: 0,
            done: false,
        });
        Ok(observation)
    }

    pub fn step(&mut self, tool: &str, arguments: &str) -> StepOutput {
        let Some(episode) = self.episode.as_mut() else {
            return refusal(
                StepStatus::NotRunning,
                "the episode has not been reset".to_owned(),
            );
        };
        if episode.done {
            return refusal(StepStatus::NotRunning, "the episode has ended".to_owned());
        }
        if !episode.env.allows(tool) && self.toolbox.names().any(|name| name == tool) {
            return refusal(
                StepStatus::ToolError,
                format!("`{tool}` is not available now"),
            );
        }
        let mut step = Step::default();
        let output = match self
            .toolbox
            .call(&mut episode.env, tool, arguments, &mut step)
        {
            None => {
                let tools = self.toolbox.names().collect::<Vec<_>>().join(", ");
                return refusal(
                    StepStatus::UnknownTool,
                    format!("unknown tool `{tool}`; the tools are: {tools}"),
                );
            }
            Some(Dispatch::InvalidArguments(message)) => {
                return refusal(
                    StepStatus::InvalidArguments,
                    format!("invalid arguments for `{tool}`: {message}"),
                );
            }
            Some(Dispatch::Ran(Ok(observation))) => (StepStatus::Ok, observation),
            Some(Dispatch::Ran(Err(error))) => {
                // A tool that fails leaves the world as it was, whatever it reported.
                step.effects.clear();
                (StepStatus::ToolError, json!({ "error": error.0 }))
            }
        };
        episode.steps += 1;
        episode.done |= step.done;
        StepOutput {
            status: output.0,
            observation: output.1,
            done: episode.done,
            events: step.events,
            effects: step.effects,
        }
    }

    pub fn facts(&self) -> Value {
        match &self.episode {
            Some(episode) => to_value(&episode.env.facts()),
            None => json!({}),
        }
    }

    /// The entities a call would act on; none when the episode is not running or the arguments
    /// are not JSON.
    pub fn resources(&self, tool: &str, arguments: &str) -> Vec<Resource> {
        let Some(episode) = &self.episode else {
            return Vec::new();
        };
        match serde_json::from_str(arguments) {
            Ok(arguments) => episode.env.resources(tool, &arguments),
            Err(_) => Vec::new(),
        }
    }

    pub fn mask(&self) -> Vec<String> {
        let Some(episode) = self.episode.as_ref().filter(|episode| !episode.done) else {
            return Vec::new();
        };
        self.toolbox
            .names()
            .filter(|name| episode.env.allows(name))
            .map(str::to_owned)
            .collect()
    }

    pub fn evaluate(&self) -> Outcome {
        let checks = match &self.episode {
            Some(episode) => episode.env.evaluate(),
            None => vec![Check {
                name: "episode_started".to_owned(),
                kind: CheckKind::Success,
                passed: false,
                detail: "the episode has not been reset".to_owned(),
            }],
        };
        Outcome::from_checks(checks)
    }

    /// The sensitive items in the episode's world (`Env::sensitive`); none when the episode is
    /// not running.
    pub fn sensitive(&self) -> Vec<SensitiveItem> {
        self.episode
            .as_ref()
            .map_or_else(Vec::new, |episode| episode.env.sensitive())
    }

    /// The episode's world (`Env::world`); `null` when the episode is not running.
    pub fn world(&self) -> Value {
        self.episode
            .as_ref()
            .map_or(Value::Null, |episode| episode.env.world())
    }

    pub fn save(&self) -> Vec<u8> {
        let saved = self.episode.as_ref().map(|episode| Saved {
            env_name: E::NAME.to_owned(),
            env_version: E::VERSION.to_owned(),
            steps: episode.steps,
            done: episode.done,
            state: &episode.env,
        });
        postcard::to_allocvec(&saved).expect("env state serializes with postcard")
    }

    pub fn load(&mut self, bytes: &[u8]) -> Result<(), String> {
        let saved: Option<Saved<E>> = postcard::from_bytes(bytes)
            .map_err(|error| format!("state is not a saved {} episode: {error}", E::NAME))?;
        self.episode = match saved {
            None => None,
            Some(saved) => {
                if saved.env_name != E::NAME || saved.env_version != E::VERSION {
                    return Err(format!(
                        "state was saved by {} {}, this env is {} {}",
                        saved.env_name,
                        saved.env_version,
                        E::NAME,
                        E::VERSION
                    ));
                }
                Some(Episode {
                    env: saved.state,
                    steps: saved.steps,
                    done: saved.done,
                })
            }
        };
        Ok(())
    }
}

fn refusal(status: StepStatus, message: String) -> StepOutput {
    StepOutput {
        status,
        observation: json!({ "error": message }),
        done: false,
        events: Vec::new(),
        effects: Vec::new(),
    }
}

fn effect(effect: Effect) -> bindings::Effect {
    bindings::Effect {
        kind: match effect.kind {
            EffectKind::Send => bindings::EffectKind::Send,
            EffectKind::Post => bindings::EffectKind::Post,
            EffectKind::Share => bindings::EffectKind::Share,
            EffectKind::Http => bindings::EffectKind::Http,
            EffectKind::Delete => bindings::EffectKind::Delete,
            EffectKind::Modify => bindings::EffectKind::Modify,
            EffectKind::Permission => bindings::EffectKind::Permission,
            EffectKind::Payment => bindings::EffectKind::Payment,
        },
        target: effect.target,
        resource: effect.resource,
        payload: effect.payload,
    }
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("env values serialize to JSON")
}

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("env values serialize to JSON")
}

thread_local! {
    // The guest is single-threaded; the harness lives for the instance's lifetime. It is stored
    // type-erased because a static cannot be generic over the env type.
    static HARNESS: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

fn with_harness<E: Env, T>(f: impl FnOnce(&mut Harness<E>) -> T) -> T {
    HARNESS.with(|slot| {
        let mut slot = slot.borrow_mut();
        let harness = slot.get_or_insert_with(|| Box::new(Harness::<E>::new()));
        f(harness
            .downcast_mut::<Harness<E>>()
            .expect("one env type per component"))
    })
}

/// Exports `E` through the generated bindings; named by `export_env!`.
#[derive(Debug)]
pub struct Adapter<E>(PhantomData<E>);

impl<E: Env> bindings::Guest for Adapter<E> {
    fn manifest() -> bindings::Json {
        with_harness::<E, _>(|harness| to_json(&harness.manifest()))
    }

    fn reset(seed: u64, task: bindings::Json) -> Result<bindings::Json, String> {
        with_harness::<E, _>(|harness| harness.reset(seed, &task).map(|value| to_json(&value)))
    }

    fn step(call: bindings::ToolCall) -> bindings::StepResult {
        let output = with_harness::<E, _>(|harness| harness.step(&call.name, &call.arguments));
        bindings::StepResult {
            status: match output.status {
                StepStatus::Ok => bindings::StepStatus::Ok,
                StepStatus::ToolError => bindings::StepStatus::ToolError,
                StepStatus::InvalidArguments => bindings::StepStatus::InvalidArguments,
                StepStatus::UnknownTool => bindings::StepStatus::UnknownTool,
                StepStatus::NotRunning => bindings::StepStatus::NotRunning,
            },
            observation: json::to_text(&output.observation),
            done: output.done,
            events: output
                .events
                .into_iter()
                .map(|(kind, data)| bindings::Event {
                    kind,
                    data: json::to_text(&data),
                })
                .collect(),
            effects: output.effects.into_iter().map(effect).collect(),
        }
    }

    fn facts() -> bindings::Json {
        with_harness::<E, _>(|harness| json::to_text(&harness.facts()))
    }

    fn resources(call: bindings::ToolCall) -> bindings::Json {
        with_harness::<E, _>(|harness| to_json(&harness.resources(&call.name, &call.arguments)))
    }

    fn mask() -> Vec<String> {
        with_harness::<E, _>(|harness| harness.mask())
    }

    fn evaluate() -> bindings::Json {
        with_harness::<E, _>(|harness| to_json(&harness.evaluate()))
    }

    fn world() -> bindings::Json {
        with_harness::<E, _>(|harness| to_json(&harness.world()))
    }

    fn sensitive() -> bindings::Json {
        with_harness::<E, _>(|harness| to_json(&harness.sensitive()))
    }

    fn save() -> Vec<u8> {
        with_harness::<E, _>(|harness| harness.save())
    }

    fn load(state: Vec<u8>) -> Result<(), String> {
        with_harness::<E, _>(|harness| harness.load(&state))
    }
}
