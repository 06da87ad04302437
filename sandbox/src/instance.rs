//! One live env instance (one episode): every export behind the per-call limits, with the guest's
//! outputs checked for size and JSON validity before they reach the host.

use std::time::Duration;

use serde_json::value::RawValue;
use wasmtime::Store;

use agentbench_env_contract::{Effect, EffectKind, StepStatus};

use crate::EnvImage;
use crate::bindings::{self, Env, EnvPre};
use crate::engine::{EPOCH_TICK, Shared};
use crate::error::CallError;
use crate::limits::HostState;

/// Text that is known to be one valid JSON document.
#[derive(Debug, Clone)]
pub struct JsonText(Box<RawValue>);

impl JsonText {
    fn new(export: &'static str, text: String) -> Result<JsonText, CallError> {
        match agentbench_env_contract::guest_json(text) {
            Ok(raw) => Ok(JsonText(raw)),
            Err(error) => Err(CallError::BadOutput {
                export,
                reason: format!("not JSON: {error}"),
            }),
        }
    }

    pub fn as_str(&self) -> &str {
        self.0.get()
    }

    pub fn into_string(self) -> String {
        Box::<str>::from(self.0).into_string()
    }

    /// The document as serde_json's raw value, to embed in other documents as it is.
    pub fn into_raw(self) -> Box<RawValue> {
        self.0
    }

    /// Parses the text into `T`.
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> serde_json::Result<T> {
        serde_json::from_str(self.0.get())
    }
}

impl PartialEq for JsonText {
    fn eq(&self, other: &JsonText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for JsonText {}

impl std::hash::Hash for JsonText {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

/// Something noteworthy a step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub kind: String,
    pub data: JsonText,
}

/// What one step returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepOutput {
    pub status: StepStatus,
    pub observation: JsonText,
    pub done: bool,
    pub events: Vec<Event>,
    /// What the step did to the world.
    pub effects: Vec<Effect>,
}

/// A live env instance. Not `Sync`: one episode is driven by one caller at a time.
pub struct Instance {
    image: EnvImage,
    store: Store<HostState>,
    env: Env,
    fuel_per_call: u64,
    wall_clock_per_call: Duration,
    max_output_bytes: usize,
    poisoned: bool,
    fuel_spent: u64,
}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instance")
            .field("env", &self.image.manifest().name)
            .field("poisoned", &self.poisoned)
            .finish()
    }
}

impl Instance {
    pub(crate) fn new(
        image: EnvImage,
        shared: &Shared,
        template: &EnvPre<HostState>,
    ) -> Result<Instance, CallError> {
        let limits = &shared.limits;
        let mut store = Store::new(
            &shared.engine,
            HostState {
                max_memory_bytes: limits.max_memory_bytes,
            },
        );
        store.limiter(|state| state);
        let fuel_per_call = limits.fuel_per_call;
        let wall_clock_per_call = limits.wall_clock_per_call;
        arm(&mut store, fuel_per_call, wall_clock_per_call);
        let env = template.instantiate(&mut store).map_err(|error| {
            CallError::from_wasmtime("instantiate", &error, fuel_per_call, wall_clock_per_call)
        })?;
        Ok(Instance {
            image,
            store,
            env,
            fuel_per_call,
            wall_clock_per_call,
            max_output_bytes: limits.max_output_bytes,
            poisoned: false,
            fuel_spent: 0,
        })
    }

    /// The env this instance runs.
    pub fn image(&self) -> &EnvImage {
        &self.image
    }

    /// The fuel (WebAssembly instructions, roughly) this instance's calls have burned in all:
    /// how much guest work they were, whatever else the machine was doing meanwhile.
    pub fn fuel_spent(&self) -> u64 {
        self.fuel_spent
    }

    /// An earlier call failed; every further call fails with `CallError::Poisoned`.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    pub fn manifest(&mut self) -> Result<JsonText, CallError> {
        let text = self.call("manifest", |env, store| env.call_manifest(store))?;
        self.json("manifest", text)
    }

    /// Starts an episode; `task` is the task config as a JSON object. An invalid task is the
    /// guest's refusal (`Ok(Err(message))`), not a failure of the instance.
    pub fn reset(&mut self, seed: u64, task: &str) -> Result<Result<JsonText, String>, CallError> {
        // The bindings take the world's `json` alias, a `String`.
        let task = task.to_owned();
        match self.call("reset", |env, store| env.call_reset(store, seed, &task))? {
            Ok(observation) => Ok(Ok(self.json("reset", observation)?)),
            Err(message) => {
                self.check_size("reset", message.len())?;
                Ok(Err(message))
            }
        }
    }

    pub fn step(&mut self, tool: &str, arguments: &str) -> Result<StepOutput, CallError> {
        let call = bindings::ToolCall {
            name: tool.to_owned(),
            arguments: arguments.to_owned(),
        };
        let result = self.call("step", |env, store| env.call_step(store, &call))?;
        let bytes = result.observation.len()
            + result
                .events
                .iter()
                .map(|event| event.kind.len() + event.data.len())
                .sum::<usize>()
            + result
                .effects
                .iter()
                .map(|effect| effect.target.len() + effect.resource.len() + effect.payload.len())
                .sum::<usize>();
        self.check_size("step", bytes)?;
        let status = match result.status {
            bindings::StepStatus::Ok => StepStatus::Ok,
            bindings::StepStatus::ToolError => StepStatus::ToolError,
            bindings::StepStatus::InvalidArguments => StepStatus::InvalidArguments,
            bindings::StepStatus::UnknownTool => StepStatus::UnknownTool,
            bindings::StepStatus::NotRunning => StepStatus::NotRunning,
        };
        let observation = self.guard(JsonText::new("step", result.observation))?;
        let events = result
            .events
            .into_iter()
            .map(|event| {
                Ok(Event {
                    kind: event.kind,
                    data: JsonText::new("step", event.data)?,
                })
            })
            .collect::<Result<Vec<_>, CallError>>();
        let events = self.guard(events)?;
        let effects = result.effects.into_iter().map(|effect| Effect {
            kind: effect_kind(effect.kind),
            target: effect.target,
            resource: effect.resource,
            payload: effect.payload,
        });
        Ok(StepOutput {
            status,
            observation,
            done: result.done,
            events,
            effects: effects.collect(),
        })
    }

    pub fn facts(&mut self) -> Result<JsonText, CallError> {
        let text = self.call("facts", |env, store| env.call_facts(store))?;
        self.json("facts", text)
    }

    /// The entities a call would act on; the JSON of a list of `agentbench_env_contract::Resource`.
    pub fn resources(&mut self, tool: &str, arguments: &str) -> Result<JsonText, CallError> {
        let call = bindings::ToolCall {
            name: tool.to_owned(),
            arguments: arguments.to_owned(),
        };
        let text = self.call("resources", |env, store| env.call_resources(store, &call))?;
        self.json("resources", text)
    }

    /// The tools the env allows now.
    pub fn mask(&mut self) -> Result<Vec<String>, CallError> {
        let tools = self.call("mask", |env, store| env.call_mask(store))?;
        self.check_size("mask", tools.iter().map(String::len).sum())?;
        Ok(tools)
    }

    /// The outcome checks; the JSON of `agentbench_env_contract::Outcome`.
    pub fn evaluate(&mut self) -> Result<JsonText, CallError> {
        let text = self.call("evaluate", |env, store| env.call_evaluate(store))?;
        self.json("evaluate", text)
    }

    /// The episode's world, for scenario authors: any JSON value.
    pub fn world(&mut self) -> Result<JsonText, CallError> {
        let text = self.call("world", |env, store| env.call_world(store))?;
        self.json("world", text)
    }

    /// The sensitive items in the episode's world; the JSON of a list of
    /// `agentbench_env_contract::SensitiveItem`.
    pub fn sensitive(&mut self) -> Result<JsonText, CallError> {
        let text = self.call("sensitive", |env, store| env.call_sensitive(store))?;
        self.json("sensitive", text)
    }

    /// The whole episode state.
    pub fn save(&mut self) -> Result<Vec<u8>, CallError> {
        let state = self.call("save", |env, store| env.call_save(store))?;
        self.check_size("save", state.len())?;
        Ok(state)
    }

    /// Replaces the episode state with a saved one. A state the guest rejects is its refusal
    /// (`Ok(Err(message))`); the instance stays usable.
    pub fn load(&mut self, state: &[u8]) -> Result<Result<(), String>, CallError> {
        let result = self.call("load", |env, store| env.call_load(store, state))?;
        if let Err(message) = &result {
            self.check_size("load", message.len())?;
        }
        Ok(result)
    }

    /// A new instance in this one's exact state: save here, load there.
    pub fn fork(&mut self) -> Result<Instance, CallError> {
        let state = self.save()?;
        self.image.restore(&state)
    }

    /// Runs one export under fresh limits; any failure poisons the instance.
    fn call<T>(
        &mut self,
        export: &'static str,
        call: impl FnOnce(&Env, &mut Store<HostState>) -> wasmtime::Result<T>,
    ) -> Result<T, CallError> {
        if self.poisoned {
            return Err(CallError::Poisoned { export });
        }
        arm(
            &mut self.store,
            self.fuel_per_call,
            self.wall_clock_per_call,
        );
        let result = call(&self.env, &mut self.store);
        let left = self.store.get_fuel().unwrap_or(0);
        self.fuel_spent += self.fuel_per_call.saturating_sub(left);
        result.map_err(|error| {
            self.poisoned = true;
            CallError::from_wasmtime(export, &error, self.fuel_per_call, self.wall_clock_per_call)
        })
    }

    fn json(&mut self, export: &'static str, text: String) -> Result<JsonText, CallError> {
        self.check_size(export, text.len())?;
        self.guard(JsonText::new(export, text))
    }

    fn check_size(&mut self, export: &'static str, bytes: usize) -> Result<(), CallError> {
        let limit = self.max_output_bytes;
        self.guard(if bytes > limit {
            Err(CallError::OutputTooLarge {
                export,
                bytes,
                limit,
            })
        } else {
            Ok(())
        })
    }

    /// Poisons the instance when `result` is an error: a guest that returned bad output has
    /// advanced its state in a way the host refused to record.
    fn guard<T>(&mut self, result: Result<T, CallError>) -> Result<T, CallError> {
        self.poisoned |= result.is_err();
        result
    }
}

/// Refuels the store and sets its epoch deadline, before each call.
fn arm(store: &mut Store<HostState>, fuel: u64, wall_clock: Duration) {
    store
        .set_fuel(fuel)
        .expect("fuel is enabled in the engine config");
    let ticks = wall_clock
        .as_micros()
        .div_ceil(EPOCH_TICK.as_micros())
        .max(1) as u64;
    // One extra tick: the current tick may be almost over when the call starts.
    store.set_epoch_deadline(ticks + 1);
}

fn effect_kind(kind: bindings::EffectKind) -> EffectKind {
    match kind {
        bindings::EffectKind::Send => EffectKind::Send,
        bindings::EffectKind::Post => EffectKind::Post,
        bindings::EffectKind::Share => EffectKind::Share,
        bindings::EffectKind::Http => EffectKind::Http,
        bindings::EffectKind::Delete => EffectKind::Delete,
        bindings::EffectKind::Modify => EffectKind::Modify,
        bindings::EffectKind::Permission => EffectKind::Permission,
        bindings::EffectKind::Payment => EffectKind::Payment,
    }
}
