//! The check every tool call's arguments pass before the call reaches a guest: each tool's JSON
//! Schema from the manifest, compiled once.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use agentbench_env_contract::Manifest;

/// The compiled argument schemas of an env's tools.
pub struct ToolArguments {
    validators: BTreeMap<String, jsonschema::Validator>,
}

impl std::fmt::Debug for ToolArguments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.validators.keys()).finish()
    }
}

/// A tool's `parameters` that are not a JSON Schema.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the env's schema for `{tool}` is not a valid JSON Schema: {message}")]
pub struct BadToolSchema {
    pub tool: String,
    pub message: String,
}

/// One problem with a tool call's arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ValidationIssue {
    /// A JSON pointer into the arguments (`""` for the whole object).
    pub pointer: String,
    pub message: String,
}

impl ToolArguments {
    /// Compiles the argument schema of every tool of `manifest`; fails on one that is not valid.
    pub fn new(manifest: &Manifest) -> Result<ToolArguments, BadToolSchema> {
        let mut validators = BTreeMap::new();
        for tool in &manifest.tools {
            let validator =
                jsonschema::validator_for(&tool.parameters).map_err(|error| BadToolSchema {
                    tool: tool.name.clone(),
                    message: error.to_string(),
                })?;
            validators.insert(tool.name.clone(), validator);
        }
        Ok(ToolArguments { validators })
    }

    /// Validates `arguments` against `tool`'s schema: `None` for an unknown tool, else every
    /// problem found (empty when the arguments are valid).
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
