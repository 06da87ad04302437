//! Size bounds on tool arguments: every string and array a tool accepts has a largest size, so
//! that no call the host lets through is big enough to run a guest out of fuel or memory.
//!
//! The host validates each call's arguments against its tool's parameter schema before the guest
//! sees them; `maxLength` and `maxItems` there are what stop an oversized call. An author bounds a
//! field with `#[schemars(length(max = N))]` (on a `Vec`, `inner(length(max = N))` bounds its
//! strings); the SDK gives every string and array left unbounded the defaults below.

use schemars::Schema;
use serde_json::{Map, Value};

/// The most characters a string argument may have when its field sets no `maxLength`: ample for
/// ids, names, addresses, paths, dates and search queries. A field that carries real content (a
/// message body, a file, a note) sets its own bound, usually the largest the env accepts.
pub const DEFAULT_MAX_STRING_CHARS: usize = 2_000;

/// The most characters of an email address argument, display name included
/// (`Maya Chen <maya.chen@example.com>`): RFC 5321 allows 254 for the address itself. Address
/// lists are bounded by it (`#[schemars(inner(length(max = MAX_ADDRESS_CHARS)))]`), since a
/// guest does work for every recipient of a call before running it.
pub const MAX_ADDRESS_CHARS: usize = 320;

/// The most items an array argument may have when its field sets no `maxItems`.
pub const DEFAULT_MAX_ARRAY_ITEMS: usize = 100;

/// The bound keywords `schema` lacks: `maxLength` when it admits strings of any length (an enum
/// or a constant does not), `maxItems` when it admits arrays of any length. Only `schema`
/// itself is looked at, not its subschemas.
pub(crate) fn missing_bounds(schema: &Map<String, Value>) -> Vec<&'static str> {
    let fixed = schema.contains_key("enum") || schema.contains_key("const");
    let mut missing = Vec::new();
    if admits(schema, "string") && !fixed && !schema.contains_key("maxLength") {
        missing.push("maxLength");
    }
    if admits(schema, "array") && !fixed && !schema.contains_key("maxItems") {
        missing.push("maxItems");
    }
    missing
}

/// A schemars transform: gives `schema` the default bound it lacks, not its subschemas (wrap it
/// in `schemars::transform::RecursiveTransform` for those).
pub(crate) fn add_default_bounds(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    for keyword in missing_bounds(object) {
        let bound = match keyword {
            "maxLength" => DEFAULT_MAX_STRING_CHARS,
            _ => DEFAULT_MAX_ARRAY_ITEMS,
        };
        object.insert(keyword.to_owned(), bound.into());
    }
}

/// Whether `schema`'s `type` (one name or a list of them) includes `type_name`.
fn admits(schema: &Map<String, Value>, type_name: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(name)) => name == type_name,
        Some(Value::Array(names)) => names.iter().any(|name| name == type_name),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(schema: Value, expected_missing: &[&str]) {
        let object = schema.as_object().unwrap();
        assert_eq!(missing_bounds(object), expected_missing, "{schema}");
    }

    #[test]
    fn strings_and_arrays_need_a_bound_unless_they_are_enums() {
        check(json!({"type": "string"}), &["maxLength"]);
        check(json!({"type": ["string", "null"]}), &["maxLength"]);
        check(json!({"type": "string", "maxLength": 10}), &[]);
        check(json!({"type": "string", "enum": ["a", "b"]}), &[]);
        check(json!({"type": "string", "const": "a"}), &[]);
        check(json!({"type": "array", "items": {}}), &["maxItems"]);
        check(json!({"type": ["array", "null"], "maxItems": 3}), &[]);
        check(json!({"type": "integer"}), &[]);
        check(json!({"type": "object"}), &[]);
    }

    #[test]
    fn the_default_bounds_fill_only_what_is_missing() {
        let mut schema = Schema::try_from(json!({"type": ["string", "array"], "maxItems": 3}))
            .expect("an object is a schema");
        add_default_bounds(&mut schema);
        assert_eq!(
            schema.to_value(),
            json!({"type": ["string", "array"], "maxItems": 3, "maxLength": DEFAULT_MAX_STRING_CHARS})
        );
    }
}
