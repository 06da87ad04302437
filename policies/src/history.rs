//! What the runtime remembers of an episode for its policies: calls per tool, irreversible
//! actions, consent, taint. It is the `history` record of every policy's context.

use std::collections::BTreeMap;

use cedar_policy::RestrictedExpression;
use serde::{Deserialize, Serialize};

use crate::types::{Attribute, CedarType};

/// The history facts of an episode so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct History {
    /// Steps taken, of any kind.
    pub steps: u32,
    /// Tool calls that ran in the env (succeeded or failed), per tool.
    pub calls: BTreeMap<String, u32>,
    /// Irreversible tool calls that succeeded.
    pub irreversible_calls: u32,
    /// The user consented, in a reply to `ask_user`, at some point in this episode.
    pub consented: bool,
    /// The agent has read untrusted content (the env reported `untrusted_content_read`): what it
    /// does next may be steered by a third party.
    pub tainted: bool,
    /// Tool calls that a policy or the env's mask refused.
    pub blocked: u32,
    /// Forbidden tool calls that ran anyway (audit mode).
    pub violations: u32,
}

impl History {
    /// The Cedar type of the history record for an env with these tools.
    pub(crate) fn cedar_type<'a>(tools: impl Iterator<Item = &'a str>) -> CedarType {
        let required = |ty| Attribute { ty, required: true };
        let calls = tools
            .map(|tool| (tool.to_owned(), required(CedarType::Long)))
            .collect();
        CedarType::Record(BTreeMap::from([
            ("steps".to_owned(), required(CedarType::Long)),
            ("calls".to_owned(), required(CedarType::Record(calls))),
            ("irreversible_calls".to_owned(), required(CedarType::Long)),
            ("consented".to_owned(), required(CedarType::Bool)),
            ("tainted".to_owned(), required(CedarType::Bool)),
            ("blocked".to_owned(), required(CedarType::Long)),
            ("violations".to_owned(), required(CedarType::Long)),
        ]))
    }

    /// The history as a Cedar record with a call count for each of `tools`.
    pub(crate) fn to_cedar<'a>(
        &self,
        tools: impl Iterator<Item = &'a str>,
    ) -> RestrictedExpression {
        let long = |n: u32| RestrictedExpression::new_long(i64::from(n));
        let calls = tools.map(|tool| {
            let n = self.calls.get(tool).copied().unwrap_or(0);
            (tool.to_owned(), long(n))
        });
        let calls = RestrictedExpression::new_record(calls).expect("tool names are unique");
        RestrictedExpression::new_record([
            ("steps".to_owned(), long(self.steps)),
            ("calls".to_owned(), calls),
            (
                "irreversible_calls".to_owned(),
                long(self.irreversible_calls),
            ),
            (
                "consented".to_owned(),
                RestrictedExpression::new_bool(self.consented),
            ),
            (
                "tainted".to_owned(),
                RestrictedExpression::new_bool(self.tainted),
            ),
            ("blocked".to_owned(), long(self.blocked)),
            ("violations".to_owned(), long(self.violations)),
        ])
        .expect("the attribute names are unique")
    }
}
