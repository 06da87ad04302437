//! An env ready to run episodes: its sandbox image plus what the runtime derives from its
//! manifest once (compiled argument validators, tools in function-calling form, its policies),
//! and instances made ahead for new episodes (`keep_warm`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use agentbench_env_contract::Manifest;
use agentbench_policies::{Access, EnvPolicies, Mask, PolicyFile};
use agentbench_sandbox::{CallError, EnvImage, Instance};
use sha2::{Digest, Sha256};

use agentbench_wire::{ToolArguments, ValidationIssue};

use crate::RuntimeError;

/// A loaded env; share it between episodes (it is immutable, but for its warm instances).
pub struct LoadedEnv {
    image: EnvImage,
    arguments: ToolArguments,
    function_tools: Vec<Value>,
    policies: EnvPolicies,
    content_hash: String,
    /// Instances made ahead, each instantiated and reset once (its memory touched), so that a
    /// new episode costs a reset and no instantiation.
    warm: Mutex<Vec<Instance>>,
    /// Whether a `keep_warm` is making instances, so that two never race to.
    warming: AtomicBool,
}

impl std::fmt::Debug for LoadedEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedEnv")
            .field("image", &self.image)
            .finish()
    }
}

impl LoadedEnv {
    /// Compiles the argument schema of every tool and loads the env's policies plus `extra`
    /// ones; fails on a schema or a policy that is not valid.
    pub fn new(image: EnvImage, extra: &[PolicyFile]) -> Result<LoadedEnv, RuntimeError> {
        let arguments = ToolArguments::new(image.manifest())?;
        let function_tools = image
            .manifest()
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    },
                })
            })
            .collect();
        let policies = EnvPolicies::new(image.manifest(), extra)?;
        let content_hash = if extra.is_empty() {
            image.content_hash().to_owned()
        } else {
            let mut hasher = Sha256::new();
            hasher.update(image.content_hash());
            for file in extra {
                hasher.update([0]);
                hasher.update(&file.name);
                hasher.update([0]);
                hasher.update(&file.text);
            }
            format!("{:x}", hasher.finalize())
        };
        Ok(LoadedEnv {
            image,
            arguments,
            function_tools,
            policies,
            content_hash,
            warm: Mutex::new(Vec::new()),
            warming: AtomicBool::new(false),
        })
    }

    /// An instance for a new episode: a warm one when one waits, else a new one.
    pub(crate) fn instance(&self) -> Result<Instance, CallError> {
        let warm = self
            .warm
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop();
        match warm {
            Some(instance) => Ok(instance),
            None => self.image.instantiate(),
        }
    }

    /// How many warm instances wait.
    pub fn warm_count(&self) -> usize {
        self.warm
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .len()
    }

    /// Whether fewer than `count` warm instances wait and no `keep_warm` is making more.
    pub fn wants_warming(&self, count: usize) -> bool {
        self.warm_count() < count && !self.warming.load(Ordering::Acquire)
    }

    /// Makes instances ahead until `count` wait, each instantiated and reset once with the
    /// default task (tens of microseconds each: call it off the request path); returns how many
    /// it made. Does nothing while another call is making them.
    pub fn keep_warm(&self, count: usize) -> Result<usize, CallError> {
        if self.warming.swap(true, Ordering::AcqRel) {
            return Ok(0);
        }
        let mut made = 0;
        let outcome = loop {
            if self.warm_count() >= count {
                break Ok(made);
            }
            let mut instance = match self.image.instantiate() {
                Ok(instance) => instance,
                Err(error) => break Err(error),
            };
            match instance.reset(0, "{}") {
                Ok(Ok(_)) => {}
                // An env without a default task starts its episodes cold.
                Ok(Err(_)) => break Ok(made),
                Err(error) => break Err(error),
            }
            self.warm
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push(instance);
            made += 1;
        };
        self.warming.store(false, Ordering::Release);
        outcome
    }

    /// What decides how the env's episodes go: the component's SHA-256 when the env runs under
    /// its own policies alone, else a SHA-256 over that and the added policy files. Episodes are
    /// replayed only under the same hash.
    pub fn content_hash(&self) -> &str {
        &self.content_hash
    }

    pub fn policies(&self) -> &EnvPolicies {
        &self.policies
    }

    /// A JSON Schema of the actions that `mask` leaves open: a `oneOf` over each tool that is not
    /// blocked (its name as a constant and its parameters), a final message and a question to the
    /// user. For constrained decoding.
    pub fn action_schema(&self, mask: &Mask) -> Value {
        let mut actions: Vec<Value> = self
            .manifest()
            .tools
            .iter()
            .filter(|tool| {
                mask.get(&tool.name)
                    .is_some_and(|access| *access != Access::Blocked)
            })
            .map(|tool| {
                json!({
                    "type": "object",
                    "properties": {
                        "tool": {"const": tool.name},
                        "arguments": tool.parameters,
                    },
                    "required": ["tool", "arguments"],
                    "additionalProperties": false,
                })
            })
            .collect();
        for key in ["message", "ask_user"] {
            actions.push(json!({
                "type": "object",
                "properties": {key: {"type": "string"}},
                "required": [key],
                "additionalProperties": false,
            }));
        }
        json!({ "oneOf": actions })
    }

    pub fn image(&self) -> &EnvImage {
        &self.image
    }

    pub fn manifest(&self) -> &Manifest {
        self.image.manifest()
    }

    /// The tools in OpenAI function-calling form (`{"type": "function", "function": {...}}`).
    pub fn function_tools(&self) -> &[Value] {
        &self.function_tools
    }

    /// Validates `arguments` against `tool`'s schema: `None` for an unknown tool, else every
    /// problem found (empty when the arguments are valid). A step runs this before the call; a
    /// suite validator runs it on actions it does not play.
    pub fn validate(&self, tool: &str, arguments: &Value) -> Option<Vec<ValidationIssue>> {
        self.arguments.validate(tool, arguments)
    }
}
