//! The ids of episodes, runs and recorded step-scorer measurements: newtypes over their text, so
//! that one is never passed where another is meant.

use std::borrow::Borrow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// Defines an id type: a newtype over a `String` that (de)serialises as the bare text.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(
            Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
            schemars::JsonSchema,
        )]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// A new id: the prefix, `_` and a random UUID's 32 hex digits.
            pub fn fresh() -> $name {
                $name(format!(concat!($prefix, "_{}"), uuid::Uuid::new_v4().simple()))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> $name {
                $name(text)
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> $name {
                $name(text.to_owned())
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(
    /// An episode's id: `ep_` and 32 hex digits for the episodes a server starts; whatever a
    /// client names in a path otherwise (it is then looked up, never trusted).
    EpisodeId,
    "ep"
);

id_type!(
    /// A suite run's id: `run_` and 32 hex digits.
    RunId,
    "run"
);

id_type!(
    /// A recorded step-scorer measurement's id: `prm_` and 32 hex digits.
    PrmResultId,
    "prm"
);
