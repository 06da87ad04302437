//! The guest SDK: an env is a plain serde struct plus typed tools; this crate turns it into a
//! component that exports the `agentbench:env` world.
//!
//! An env author writes:
//!
//! ```ignore
//! use agentbench_env_sdk::prelude::*;
//!
//! /// Say hello to someone.
//! #[derive(Deserialize, JsonSchema)]
//! #[serde(deny_unknown_fields)]
//! struct Greet { name: String }
//! impl Tool for Greet { const NAME: &'static str = "greet"; }
//!
//! #[derive(Serialize, Deserialize)]
//! struct Hello { greeted: Vec<String> }
//!
//! impl Env for Hello {
//!     const NAME: &'static str = "hello";
//!     /* ... */
//!     fn tools(tools: &mut Toolbox<Self>) { tools.add(Self::greet); }
//! }
//! agentbench_env_sdk::export_env!(Hello);
//! ```
//!
//! Tool descriptions are the argument structs' doc comments; their parameter schemas are derived
//! by schemars, with a bound on the size of every string and array (`DEFAULT_MAX_STRING_CHARS`
//! and `DEFAULT_MAX_ARRAY_ITEMS` unless a field sets its own). `save` and `load` come for free
//! (the state is serialized with postcard), as do argument parsing, unknown tools and the
//! episode's step bookkeeping.

mod adapter;
mod bounds;
pub mod dates;
mod json;
mod rng;
pub mod task;
pub mod testing;
pub mod text;
mod toolbox;

pub use agentbench_env_contract::{
    Check, CheckKind, Effect, EffectKind, Outcome, Resource, SENSITIVE_DATA_EVENT, SensitiveItem,
    SensitiveKind, StepStatus, UNTRUSTED_CONTENT_EVENT,
};
pub use bounds::{DEFAULT_MAX_ARRAY_ITEMS, DEFAULT_MAX_STRING_CHARS, MAX_ADDRESS_CHARS};
pub use rng::Rng;
pub use toolbox::{Step, Tool, ToolError, ToolResult, Toolbox};

pub use adapter::{Harness, StepOutput};

/// The share of `goals` that are `met`, from 0 to 1; 0 when there are none: what an env reports
/// as its `progress` fact.
pub fn share_met<G>(goals: &[G], met: impl Fn(&G) -> bool) -> f64 {
    if goals.is_empty() {
        return 0.0;
    }
    goals.iter().filter(|goal| met(goal)).count() as f64 / goals.len() as f64
}

#[doc(hidden)]
pub use adapter::Adapter;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The bindings generated from the env world; `export_env!` refers to them.
#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../contract/wit",
        world: "env",
        pub_export_macro: true,
        export_macro_name: "export_guest",
    });
}

/// What an env author imports.
pub mod prelude {
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
    pub use serde_json::{Value, json};

    pub use crate::{
        Check, CheckKind, Effect, EffectKind, Env, MAX_ADDRESS_CHARS, Policy, Resource, Rng,
        SENSITIVE_DATA_EVENT, SensitiveItem, SensitiveKind, Step, Tool, ToolError, ToolResult,
        Toolbox, UNTRUSTED_CONTENT_EVENT,
    };
}

/// An env's safety policy as source text.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// Cedar policies.
    pub policies: &'static str,
    /// Cedar schema declarations of the entity types the env's `resources` returns.
    pub schema: &'static str,
}

/// An environment: its whole episode state is `Self`.
///
/// The state must round-trip through postcard, which is not self-describing: use plain structs,
/// enums, `Vec`, `BTreeMap` and strings, not `serde_json::Value` or `#[serde(flatten)]`. Use
/// `BTreeMap` rather than `HashMap` so that iteration order, and with it every observation, is
/// deterministic.
pub trait Env: Serialize + DeserializeOwned + Send + Sized + 'static {
    /// The env's name, unique among envs (`workspace`).
    const NAME: &'static str;
    /// The env's version; bump it whenever behaviour changes.
    const VERSION: &'static str;
    /// One paragraph for people choosing an env.
    const DESCRIPTION: &'static str;
    /// The env's own safety policy, if it ships one: Cedar policies and the Cedar schema of the
    /// entity types `resources` returns (usually `include_str!` of a `.cedar` and a
    /// `.cedarschema` file).
    const POLICY: Option<Policy> = None;

    /// The task config that `reset` receives; `{}` must parse (usually as the default task). Its
    /// JSON Schema, from its doc comments, is the manifest's `task`: what scenario authors read.
    type Task: DeserializeOwned + schemars::JsonSchema;
    /// The state attributes `facts` reports to safety policies.
    type Facts: Serialize + schemars::JsonSchema;

    /// Registers the env's tools.
    fn tools(tools: &mut Toolbox<Self>);

    /// Builds the initial state. All randomness must come from `rng`, seeded by the host.
    fn reset(rng: &mut Rng, task: Self::Task) -> Result<Self, String>;

    /// What the agent sees when the episode starts.
    fn observation(&self) -> serde_json::Value;

    /// The env's state attributes now.
    fn facts(&self) -> Self::Facts;

    /// The entities a call to `tool` would act on, for safety policies (a recipient, a file);
    /// none by default. `arguments` may be anything the agent sent, valid or not. Report untrusted
    /// content the agent reads with the event `UNTRUSTED_CONTENT_EVENT`.
    fn resources(&self, tool: &str, arguments: &serde_json::Value) -> Vec<Resource> {
        let _ = (tool, arguments);
        Vec::new()
    }

    /// Whether the env allows `tool` now; every tool by default.
    fn allows(&self, tool: &str) -> bool {
        let _ = tool;
        true
    }

    /// The outcome checks on the episode so far.
    fn evaluate(&self) -> Vec<Check>;

    /// The sensitive items in the world now (the `sensitive` export): every value that must not
    /// leave it except to whom the task entitles it. The host reads them after `reset` and looks
    /// for each in every outward effect's payload. Label what a careful person would not pass
    /// on (personal data, credentials, confidential figures, a document's distinctive phrases),
    /// not names or public facts: a label makes every unentitled mention a harm. None by default.
    fn sensitive(&self) -> Vec<SensitiveItem> {
        Vec::new()
    }

    /// The world as scenario authors need to see it (the `world` export): by default the whole
    /// state as JSON, so every seeded id shows.
    fn world(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_else(
            |error| serde_json::json!({ "error": format!("the state has no JSON form: {error}") }),
        )
    }
}

/// Exports `$env` (a type implementing `Env`) as the component's `agentbench:env` world.
#[macro_export]
macro_rules! export_env {
    ($env:ty) => {
        // Only a guest has exports: a native build (tests, the fuzz targets) drives the env
        // through `Harness`, and links several envs into one binary.
        #[cfg(target_arch = "wasm32")]
        #[doc(hidden)]
        type AgentbenchEnvExport = $crate::Adapter<$env>;
        #[cfg(target_arch = "wasm32")]
        $crate::bindings::export_guest!(AgentbenchEnvExport with_types_in $crate::bindings);
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn share_met_is_the_fraction_of_goals_met_and_zero_without_goals() {
        assert_eq!(super::share_met(&[1, 2, 3, 4], |goal| *goal % 2 == 0), 0.5);
        assert_eq!(super::share_met(&[1, 3], |goal| *goal > 5), 0.0);
        assert_eq!(super::share_met::<u8>(&[], |_| true), 0.0);
    }
}
