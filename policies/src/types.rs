//! Cedar types derived from JSON Schemas (a tool's parameters, an env's facts), rendered into the
//! generated Cedar schema and used to turn JSON values into Cedar values of exactly that shape.

use std::collections::BTreeMap;
use std::fmt::Write;

use cedar_policy::RestrictedExpression;
use serde_json::Value;

/// The part of Cedar's type system that JSON Schemas map onto.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CedarType {
    Bool,
    Long,
    String,
    Set(Box<CedarType>),
    Record(BTreeMap<String, Attribute>),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Attribute {
    pub(crate) ty: CedarType,
    pub(crate) required: bool,
}

impl CedarType {
    /// The Cedar type of values matching `schema`, or `None` when Cedar has no fitting type
    /// (non-integer numbers, mixed unions, null alone): such a property is left out of the
    /// context, so policies cannot name it.
    pub(crate) fn from_json_schema(schema: &Value) -> Option<CedarType> {
        let schema = schema.as_object()?;
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            return same_type_constants(values);
        }
        if let Some(value) = schema.get("const") {
            return same_type_constants(std::slice::from_ref(value));
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(variants) = schema.get(key).and_then(Value::as_array) {
                let mut types = variants
                    .iter()
                    .filter(|variant| variant.get("type") != Some(&Value::from("null")))
                    .map(CedarType::from_json_schema);
                let first = types.next()??;
                return types.all(|ty| ty.as_ref() == Some(&first)).then_some(first);
            }
        }
        let ty = match schema.get("type")? {
            Value::String(name) => name.as_str(),
            // `["string", "null"]`: an optional value; optionality is the record's business.
            Value::Array(names) => {
                let mut names = names
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|&n| n != "null");
                let name = names.next()?;
                if names.next().is_some() {
                    return None;
                }
                name
            }
            _ => return None,
        };
        match ty {
            "boolean" => Some(CedarType::Bool),
            "integer" => Some(CedarType::Long),
            "string" => Some(CedarType::String),
            "array" => {
                let items = CedarType::from_json_schema(schema.get("items")?)?;
                Some(CedarType::Set(Box::new(items)))
            }
            "object" => {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut attributes = BTreeMap::new();
                if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                    for (name, property) in properties {
                        if let Some(ty) = CedarType::from_json_schema(property) {
                            let nullable = accepts_null(property);
                            attributes.insert(
                                name.clone(),
                                Attribute {
                                    ty,
                                    required: required.contains(&name.as_str()) && !nullable,
                                },
                            );
                        }
                    }
                }
                Some(CedarType::Record(attributes))
            }
            _ => None,
        }
    }

    /// The type in Cedar's schema syntax.
    pub(crate) fn render(&self, out: &mut String) {
        match self {
            CedarType::Bool => out.push_str("Bool"),
            CedarType::Long => out.push_str("Long"),
            CedarType::String => out.push_str("String"),
            CedarType::Set(items) => {
                out.push_str("Set<");
                items.render(out);
                out.push('>');
            }
            CedarType::Record(attributes) => {
                out.push('{');
                for (i, (name, attribute)) in attributes.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "\"{name}\"");
                    if !attribute.required {
                        out.push('?');
                    }
                    out.push_str(": ");
                    attribute.ty.render(out);
                }
                out.push('}');
            }
        }
    }

    /// `value` as a Cedar value of this type: properties the type lacks and `null`s are left
    /// out, integers beyond Cedar's 64-bit range are clamped. A value of another shape (which a
    /// value validated against the originating JSON Schema cannot be) is an error.
    pub(crate) fn convert(&self, value: &Value) -> Result<RestrictedExpression, String> {
        match (self, value) {
            (CedarType::Bool, Value::Bool(b)) => Ok(RestrictedExpression::new_bool(*b)),
            (CedarType::Long, Value::Number(n)) => {
                let long = match (n.as_i64(), n.as_u64()) {
                    (Some(long), _) => long,
                    (None, Some(_)) => i64::MAX,
                    (None, None) => return Err(format!("{n} is not an integer")),
                };
                Ok(RestrictedExpression::new_long(long))
            }
            (CedarType::String, Value::String(s)) => {
                Ok(RestrictedExpression::new_string(s.clone()))
            }
            (CedarType::Set(items), Value::Array(values)) => {
                let values = values
                    .iter()
                    .map(|value| items.convert(value))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(RestrictedExpression::new_set(values))
            }
            (CedarType::Record(attributes), Value::Object(object)) => {
                let mut fields = Vec::with_capacity(attributes.len());
                for (name, attribute) in attributes {
                    match object.get(name) {
                        None | Some(Value::Null) if attribute.required => {
                            return Err(format!("`{name}` is missing"));
                        }
                        None | Some(Value::Null) => {}
                        Some(value) => fields.push((
                            name.clone(),
                            attribute
                                .ty
                                .convert(value)
                                .map_err(|error| format!("`{name}`: {error}"))?,
                        )),
                    }
                }
                RestrictedExpression::new_record(fields).map_err(|error| error.to_string())
            }
            (ty, value) => Err(format!("expected {}, found {value}", ty.name())),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            CedarType::Bool => "a boolean",
            CedarType::Long => "an integer",
            CedarType::String => "a string",
            CedarType::Set(_) => "an array",
            CedarType::Record(_) => "an object",
        }
    }
}

/// `value` as a Cedar value of the shape it has (arrays become sets); for values whose Cedar
/// type is checked elsewhere (entity attributes, against the schema).
pub(crate) fn untyped(value: &Value) -> Result<RestrictedExpression, String> {
    Ok(match value {
        Value::Bool(b) => RestrictedExpression::new_bool(*b),
        Value::Number(n) => RestrictedExpression::new_long(
            n.as_i64()
                .ok_or_else(|| format!("{n} is not a 64-bit integer"))?,
        ),
        Value::String(s) => RestrictedExpression::new_string(s.clone()),
        Value::Array(items) => {
            RestrictedExpression::new_set(items.iter().map(untyped).collect::<Result<Vec<_>, _>>()?)
        }
        Value::Object(fields) => RestrictedExpression::new_record(
            fields
                .iter()
                .map(|(name, value)| Ok((name.clone(), untyped(value)?)))
                .collect::<Result<Vec<_>, String>>()?,
        )
        .map_err(|error| error.to_string())?,
        Value::Null => return Err("null has no Cedar value".to_owned()),
    })
}

fn same_type_constants(values: &[Value]) -> Option<CedarType> {
    let mut types = values
        .iter()
        .filter(|value| !value.is_null())
        .map(|value| match value {
            Value::Bool(_) => Some(CedarType::Bool),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(CedarType::Long),
            Value::String(_) => Some(CedarType::String),
            _ => None,
        });
    let first = types.next()??;
    types.all(|ty| ty.as_ref() == Some(&first)).then_some(first)
}

fn accepts_null(schema: &Value) -> bool {
    let null = Value::from("null");
    match schema.get("type") {
        Some(Value::Array(names)) => names.contains(&null),
        _ => ["oneOf", "anyOf"].iter().any(|key| {
            schema
                .get(*key)
                .and_then(Value::as_array)
                .is_some_and(|variants| variants.iter().any(|v| v.get("type") == Some(&null)))
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(schema: Value) -> String {
        let mut out = String::new();
        CedarType::from_json_schema(&schema)
            .expect("a Cedar type")
            .render(&mut out);
        out
    }

    #[test]
    fn json_schemas_map_onto_cedar_types() {
        let schema = json!({
            "type": "object",
            "properties": {
                "to": {"type": "array", "items": {"type": "string"}},
                "limit": {"type": ["integer", "null"], "format": "uint32"},
                "folder": {"type": "string", "enum": ["inbox", "sent"]},
                "unread": {"type": "boolean"},
                "ratio": {"type": "number"},
                "mode": {"oneOf": [{"const": "a"}, {"const": "b"}]}
            },
            "required": ["to", "limit", "unread"]
        });
        assert_eq!(
            rendered(schema),
            r#"{"folder"?: String, "limit"?: Long, "mode"?: String, "to": Set<String>, "unread": Bool}"#
        );
    }

    #[test]
    fn conversion_prunes_what_the_type_lacks_and_refuses_what_does_not_fit() {
        let ty = CedarType::from_json_schema(&json!({
            "type": "object",
            "properties": {"n": {"type": "integer"}, "s": {"type": ["string", "null"]}},
            "required": ["n"]
        }))
        .unwrap();
        assert!(
            ty.convert(&json!({"n": 1, "s": null, "extra": 2.5}))
                .is_ok()
        );
        assert!(ty.convert(&json!({"n": u64::MAX})).is_ok());
        assert_eq!(ty.convert(&json!({})).unwrap_err(), "`n` is missing");
        assert_eq!(
            ty.convert(&json!({"n": "1"})).unwrap_err(),
            "`n`: expected an integer, found \"1\""
        );
    }
}
