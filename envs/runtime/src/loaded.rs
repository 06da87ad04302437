//! An env ready to run episodes: its sandbox image plus what the runtime derives from its
//! manifest once (compiled argument validators, tools in function-calling form).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use agentbench_env_contract::Manifest;
use agentbench_sandbox::EnvImage;

use crate::RuntimeError;
use crate::episode::ValidationIssue;

/// A loaded env; share it between episodes (it is immutable).
pub struct LoadedEnv {
    image: EnvImage,
    validators: BTreeMap<String, jsonschema::Validator>,
    function_tools: Vec<Value>,
}

impl std::fmt::Debug for LoadedEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedEnv")
            .field("image", &self.image)
            .finish()
    }
}

impl LoadedEnv {
    /// Compiles the argument schema of every tool; fails on a schema that is not valid.
    pub fn new(image: EnvImage) -> Result<LoadedEnv, RuntimeError> {
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
        Ok(LoadedEnv {
            image,
            validators,
            function_tools,
        })
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
    /// problem found (empty when the arguments are valid).
    pub(crate) fn validate(&self, tool: &str, arguments: &Value) -> Option<Vec<ValidationIssue>> {
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
