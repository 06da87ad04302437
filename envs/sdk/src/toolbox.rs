//! Typed tools: argument structs with derived schemas, and the registry an env fills.

use std::fmt;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::Value;

use agentbench_env_contract::ToolSpec;

/// A tool's arguments. The struct's doc comment is the tool's description and its derived JSON
/// Schema the tool's parameters; mark it `#[serde(deny_unknown_fields)]` so that the schema says
/// `additionalProperties: false`.
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

/// What a tool may do besides returning its observation: report events, end the episode.
#[derive(Debug, Default)]
pub struct Step {
    pub(crate) events: Vec<(String, Value)>,
    pub(crate) done: bool,
}

impl Step {
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
            schema: schema_of::<A>,
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

/// The JSON Schema of `T`, self-contained (no `$ref`s) and without the `$schema` and `title`
/// keys, as function-calling APIs expect parameters.
pub(crate) fn schema_of<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    schema
}
