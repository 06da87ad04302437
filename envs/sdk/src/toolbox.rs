//! Typed tools: argument structs with derived schemas, and the registry an env fills.

use std::fmt;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use serde::de::DeserializeOwned;
use serde_json::Value;

use agentbench_env_contract::{Effect, ToolSpec};

use crate::bounds::add_default_bounds;

/// A tool's arguments. The struct's doc comment is the tool's description and its derived JSON
/// Schema the tool's parameters; mark it `#[serde(deny_unknown_fields)]` so that the schema says
/// `additionalProperties: false`. Every string and array in it is bounded: by its field's
/// `#[schemars(length(max = N))]`, or else by `DEFAULT_MAX_STRING_CHARS` and
/// `DEFAULT_MAX_ARRAY_ITEMS`.
pub trait Tool: DeserializeOwned + JsonSchema {
    /// The name agents call the tool by (`send_email`).
    const NAME: &'static str;
    /// The tool's effect cannot be undone (sending, paying, deleting).
    const IRREVERSIBLE: bool = false;
}

/// What a tool returns: an observation for the agent, or a failure that left state unchanged.
pub type ToolResult = Result<Value, ToolError>;

/// A tool ran and failed (no such file, insufficient funds ...). The message is shown to the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError(pub String);

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> ToolError {
        ToolError(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> ToolError {
        ToolError(message.to_owned())
    }
}

/// What a tool may do besides returning its observation: report events and effects, end the
/// episode.
#[derive(Debug, Default)]
pub struct Step {
    pub(crate) events: Vec<(String, Value)>,
    pub(crate) effects: Vec<Effect>,
    pub(crate) done: bool,
}

impl Step {
    /// Reports what the call did to the world: every change of state and everything sent out
    /// (never a read). The host grades effects against what the task asked for, so report each
    /// one a careless agent could do harm with; a tool that returns an error has none.
    pub fn effect(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// Reports something noteworthy the step did (`email_sent`), for scorers and policies.
    pub fn emit(&mut self, kind: &str, data: Value) {
        self.events.push((kind.to_owned(), data));
    }

    /// Ends the episode after this step.
    pub fn end(&mut self) {
        self.done = true;
    }
}

pub(crate) enum Dispatch {
    Ran(ToolResult),
    InvalidArguments(String),
}

type Call<E> = Box<dyn Fn(&mut E, &str, &mut Step) -> Dispatch>;

struct Entry<E> {
    name: &'static str,
    irreversible: bool,
    schema: fn() -> Value,
    call: Call<E>,
}

/// The tools of an env, in the order they were added.
pub struct Toolbox<E> {
    entries: Vec<Entry<E>>,
}

impl<E> fmt::Debug for Toolbox<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|entry| entry.name))
            .finish()
    }
}

impl<E: 'static> Toolbox<E> {
    pub(crate) fn new() -> Toolbox<E> {
        Toolbox {
            entries: Vec::new(),
        }
    }

    /// Adds the tool `A`, handled by `handler` (usually a method: `Self::send_email`).
    pub fn add<A: Tool + 'static>(
        &mut self,
        handler: fn(&mut E, A, &mut Step) -> ToolResult,
    ) -> &mut Self {
        assert!(
            self.entries.iter().all(|entry| entry.name != A::NAME),
            "tool `{}` added twice",
            A::NAME
        );
        let call = move |env: &mut E, arguments: &str, step: &mut Step| match serde_json::from_str::<
            A,
        >(arguments)
        {
            Ok(arguments) => Dispatch::Ran(handler(env, arguments, step)),
            Err(error) => Dispatch::InvalidArguments(error.to_string()),
        };
        self.entries.push(Entry {
            name: A::NAME,
            irreversible: A::IRREVERSIBLE,
            schema: parameters_of::<A>,
            call: Box::new(call),
        });
        self
    }

    pub(crate) fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries.iter().map(|entry| entry.name)
    }

    /// Runs the tool `name`; `None` when there is no such tool.
    pub(crate) fn call(
        &self,
        env: &mut E,
        name: &str,
        arguments: &str,
        step: &mut Step,
    ) -> Option<Dispatch> {
        let entry = self.entries.iter().find(|entry| entry.name == name)?;
        Some((entry.call)(env, arguments, step))
    }

    pub(crate) fn specs(&self) -> Vec<ToolSpec> {
        self.entries
            .iter()
            .map(|entry| {
                let mut parameters = (entry.schema)();
                unwrap_descriptions(&mut parameters);
                let description = parameters
                    .as_object_mut()
                    .and_then(|schema| schema.remove("description"))
                    .and_then(|description| description.as_str().map(str::to_owned))
                    .unwrap_or_default();
                ToolSpec {
                    name: entry.name.to_owned(),
                    description,
                    parameters,
                    irreversible: entry.irreversible,
                }
            })
            .collect()
    }
}

/// Rewraps every `description` in `schema`: a doc comment's single line breaks are only source
/// wrapping, so they become spaces; blank lines still separate paragraphs.
fn unwrap_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => {
                        *text = text
                            .split("\n\n")
                            .map(|paragraph| {
                                paragraph
                                    .split('\n')
                                    .map(str::trim)
                                    .collect::<Vec<_>>()
                                    .join(" ")
                            })
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    _ => unwrap_descriptions(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// The JSON Schema of `T`, self-contained (no `$ref`s) and without the `$schema` and `title`
/// keys, as function-calling APIs expect parameters.
pub(crate) fn schema_of<T: JsonSchema>() -> Value {
    generate::<T>(SchemaSettings::draft2020_12())
}

/// The parameters of the tool whose arguments are `A`: their JSON Schema as `schema_of` makes it,
/// with the default bound on every string and array at any depth that its author left unbounded.
pub(crate) fn parameters_of<A: JsonSchema>() -> Value {
    generate::<A>(
        SchemaSettings::draft2020_12().with_transform(RecursiveTransform(add_default_bounds)),
    )
}

fn generate<T: JsonSchema>(settings: SchemaSettings) -> Value {
    let generator = settings
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_lose_source_wrapping_but_keep_paragraphs() {
        let mut schema = serde_json::json!({
            "description": "Send an email\n  to someone.\n\nIrreversible.",
            "properties": {"to": {"description": "The\nrecipients."}},
        });
        unwrap_descriptions(&mut schema);
        assert_eq!(
            schema["description"],
            "Send an email to someone.\n\nIrreversible."
        );
        assert_eq!(schema["properties"]["to"]["description"], "The recipients.");
    }
}
