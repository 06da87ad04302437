//! An env ready to run episodes: its sandbox image plus what the runtime derives from its
//! manifest once (compiled argument validators, tools in function-calling form, its policies).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use agentbench_env_contract::Manifest;
use agentbench_policies::{Access, EnvPolicies, Mask, PolicyFile};
use agentbench_sandbox::EnvImage;
use sha2::{Digest, Sha256};

use crate::RuntimeError;
use crate::ValidationIssue;

/// A loaded env; share it between episodes (it is immutable).
pub struct LoadedEnv {
    image: EnvImage,
    validators: BTreeMap<String, jsonschema::Validator>,
    function_tools: Vec<Value>,
    policies: EnvPolicies,
    content_hash: String,
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
        let mut validators = BTreeMap::new();
        for tool in &image.manifest().tools {
            let validator = jsonschema::validator_for(&tool.parameters).map_err(|error| {
                RuntimeError::BadToolSchema {
                    tool: tool.name.clone(),
                    message: error.to_string(),
                }
            })?;
            validators.insert(tool.name.clone(), validator);
        }
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
            validators,
            function_tools,
            policies,
            content_hash,
        })
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
        let validator = self.validators.get(tool)?;
        Some(
            validator
                .iter_errors(arguments)
                .map(|error| ValidationIssue {
                    pointer: error.instance_path().to_string(),
                    message: error.masked().to_string(),
                })
                .collect(),
        )
    }
}
