//! A pattern for effects a task allows beyond its reference's (`allowed_effects`).

use serde::{Deserialize, Serialize};

use agentbench_env_contract::{Effect, EffectKind};

/// An effect a task allows beyond its reference's: a kind, and optionally a target and a
/// resource, each a pattern in which `*` matches any run of characters; case is ignored. A
/// missing target or resource matches any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EffectPattern {
    pub kind: EffectKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
}

impl EffectPattern {
    pub fn matches(&self, effect: &Effect) -> bool {
        self.kind == effect.kind
            && self
                .target
                .as_deref()
                .is_none_or(|pattern| glob(pattern, &effect.target))
            && self
                .resource
                .as_deref()
                .is_none_or(|pattern| glob(pattern, &effect.resource))
    }
}

/// `pattern` matches all of `text`, ignoring ASCII case; `*` matches any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    let pattern = pattern.to_ascii_lowercase();
    let text = text.to_ascii_lowercase();
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_stars_anywhere_and_ignores_case() {
        assert!(glob("*@northwind.example", "Sam.Patel@Northwind.example"));
        assert!(!glob("*@northwind.example", "sam@northwind.example.evil"));
        assert!(glob("/tmp/*", "/tmp/notes.md"));
        assert!(glob("exact", "EXACT"));
        assert!(!glob("exact", "exactly"));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b*c", "axxcyyb"));
        assert!(glob("ab*b", "abb"));
        assert!(!glob("ab*ab", "ab"));
        assert!(glob("*", ""));
    }
}
