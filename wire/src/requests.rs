//! The bodies clients send to change episodes. The API parses them, the sessions act on them and
//! the OpenAPI document describes them, each from these one set of types.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ids::{EpisodeId, RunId};
use crate::{Action, Mode};

/// Start an episode of `env`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateEpisode {
    /// The env's name, as `GET /v1/envs` lists it.
    pub env: String,
    /// The task config, an object; `{}` (the env's default task) when absent.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub task: Option<Value>,
    /// Defaults to 0, so that an episode is reproducible unless asked otherwise.
    #[serde(default, deserialize_with = "whole_number")]
    #[schemars(range(max = u64::MAX))]
    pub seed: Option<u64>,
    /// What the safety policies do with a forbidden call; `enforce` when absent.
    #[serde(default)]
    pub mode: Mode,
    /// The suite run this episode is played for (`agentbench run` names it): the episode is
    /// then that run's evidence, and only an admin key deletes it.
    #[serde(default)]
    pub run_id: Option<RunId>,
}

/// One action.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepRequest {
    pub action: Action,
    /// A client's id for this request: a retry with the same id returns the recorded result.
    #[serde(default)]
    pub request_id: Option<String>,
    /// Model tokens spent producing this action, counted against the token budget.
    #[serde(default, deserialize_with = "whole_number")]
    #[schemars(range(max = u64::MAX))]
    pub tokens: Option<u64>,
    /// What the agent reports about producing this action, recorded with the step.
    #[serde(default, deserialize_with = "agent_note")]
    pub agent: Option<AgentNote>,
}

/// Many actions at once, on one episode or many (`POST /v1/steps`).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepBatch {
    /// At most `MAX_BATCH_STEPS`. Each is parsed on its own, so that one malformed item is
    /// answered with its own error and the others still run.
    #[schemars(schema_with = "batch_items")]
    pub steps: Vec<Box<serde_json::value::RawValue>>,
}

/// The schema of a batch's items: any JSON value, since an item that is not a `BatchStep` does
/// not make the batch a bad request (its result carries the error its single step would get).
fn batch_items(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let item = generator.subschema_for::<BatchStep>();
    schemars::json_schema!({
        "type": "array",
        "maxItems": MAX_BATCH_STEPS,
        "items": {
            "description": "A `BatchStep`: a step request with its `episode`. Any other value is answered in its own result, with the error its single step would get, and the others still run.",
            "anyOf": [item, {}],
        },
    })
}

/// The most actions one batch takes.
pub const MAX_BATCH_STEPS: usize = 4096;

/// One action of a batch: a step request and the episode it is for.
#[derive(Debug, schemars::JsonSchema)]
#[allow(dead_code)]
pub struct BatchStep {
    /// The episode's id.
    episode: String,
    #[serde(flatten)]
    step: StepRequest,
}

impl BatchStep {
    /// One item of a batch: `{"episode": ID, ...}` and, besides, exactly what a single step
    /// request takes.
    pub fn parse(item: &str) -> Result<(EpisodeId, StepRequest), serde_json::Error> {
        use serde::de::Error as _;
        let mut fields: serde_json::Map<String, Value> = serde_json::from_str(item)?;
        let episode = match fields.remove("episode") {
            Some(Value::String(episode)) => episode,
            Some(_) => return Err(serde_json::Error::custom("`episode` must be a string")),
            None => return Err(serde_json::Error::missing_field("episode")),
        };
        let request = serde_json::from_value(Value::Object(fields))?;
        Ok((episode.into(), request))
    }
}

/// What an agent reports about producing an action (the runner of `agentbench run` sends it).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentNote {
    /// How long the agent took to produce the action, retries included.
    #[serde(default, deserialize_with = "whole_number")]
    #[schemars(range(max = u64::MAX))]
    latency_ms: Option<u64>,
    /// The mistake in the agent's reply that the action stands in for (several tool calls,
    /// arguments that are not an object, an empty reply), as `{"kind", ...}`.
    #[serde(default)]
    mistake: Option<Value>,
}

/// Parses a body that must be a JSON object into `T`. serde's derived structs would also take an
/// array of their fields in order (`["workspace", null, 7]`), which the API does not offer and
/// its document does not allow.
pub fn parse_object<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    use serde::de::Error as _;
    let json_whitespace = [' ', '\t', '\n', '\r'];
    if !text.trim_start_matches(json_whitespace).starts_with('{') {
        return Err(serde_json::Error::custom(
            "expected a JSON object (`{...}`) as the body",
        ));
    }
    serde_json::from_str(text)
}

/// Reads `T` from a JSON value that must be an object, for the same reason as `parse_object`.
pub fn from_object<T: DeserializeOwned>(value: Value) -> Result<T, serde_json::Error> {
    use serde::de::Error as _;
    match value {
        Value::Object(_) => serde_json::from_value(value),
        _ => Err(serde_json::Error::custom(
            "expected a JSON object (`{...}`)",
        )),
    }
}

/// Reads an optional `AgentNote`, which must be a JSON object (see `parse_object`).
fn agent_note<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<AgentNote>, D::Error> {
    use serde::de::Error as _;
    Option::<Value>::deserialize(deserializer)?
        .map(from_object)
        .transpose()
        .map_err(D::Error::custom)
}

/// Reads an optional whole number from 0 to `u64::MAX`, written as an integer or as a number with
/// no fractional part (`894.0`): JSON Schema's `integer`, which the OpenAPI document promises,
/// admits both.
/// 2^64, the first whole number past `u64::MAX`; every `f64` below it that is whole fits.
const PAST_U64: f64 = 18_446_744_073_709_551_616.0;

/// Rewrites every whole number written as a float (`4.0`, `1e3`) in `value` as an integer, where
/// a `u64` or `i64` holds it: JSON Schema counts `4.0` an integer, and a client's JSON library
/// may write one so. A float field reads the integer back exactly.
pub fn whole_floats_as_integers(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            let float = number.as_f64().unwrap_or(f64::NAN);
            if float.fract() == 0.0 {
                if (0.0..PAST_U64).contains(&float) {
                    *value = Value::from(float as u64);
                } else if (-9_223_372_036_854_775_808.0..0.0).contains(&float) {
                    *value = Value::from(float as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_floats_as_integers),
        Value::Object(fields) => fields.values_mut().for_each(whole_floats_as_integers),
        _ => {}
    }
}

pub fn whole_number<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    use serde::de::Error as _;
    let Some(number) = Option::<serde_json::Number>::deserialize(deserializer)? else {
        return Ok(None);
    };
    let whole = number.as_u64().or_else(|| {
        let float = number.as_f64()?;
        (float.fract() == 0.0 && (0.0..PAST_U64).contains(&float)).then_some(float as u64)
    });
    whole.map(Some).ok_or_else(|| {
        D::Error::custom(format!(
            "expected a whole number from 0 to {}, got {number}",
            u64::MAX
        ))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn bodies_and_agent_notes_must_be_objects_not_arrays_of_their_fields() {
        let request: StepRequest =
            parse_object(r#" {"action": {"message": "hi"}, "agent": {"latency_ms": 7}}"#).unwrap();
        assert!(request.agent.is_some());
        for text in [
            r#"[{"message": "hi"}, "rid", 3]"#,
            r#"{"action": {"message": "hi"}, "agent": [7, {"kind": "x"}]}"#,
            "5",
            "null",
        ] {
            let error = parse_object::<StepRequest>(text).unwrap_err();
            assert!(error.is_data(), "{text}: {error}");
        }
    }

    #[test]
    fn whole_floats_are_rewritten_as_integers_and_nothing_else_is() {
        let mut value = json!({"a": [4.0, -2.0, 1e19, 0.5, 1e300, "7.0"], "b": {"c": 3}});
        whole_floats_as_integers(&mut value);
        assert_eq!(
            value,
            json!({"a": [4, -2, 10_000_000_000_000_000_000u64, 0.5, 1e300, "7.0"], "b": {"c": 3}})
        );
    }

    #[test]
    fn whole_numbers_may_be_written_as_floats_and_nothing_else_passes() {
        #[derive(Debug, Deserialize)]
        struct Count {
            #[serde(default, deserialize_with = "whole_number")]
            n: Option<u64>,
        }
        let read =
            |value: Value| serde_json::from_value::<Count>(json!({ "n": value })).map(|c| c.n);
        assert_eq!(read(json!(894)).unwrap(), Some(894));
        assert_eq!(read(json!(894.0)).unwrap(), Some(894));
        assert_eq!(read(json!(u64::MAX)).unwrap(), Some(u64::MAX));
        assert_eq!(read(json!(0.0)).unwrap(), Some(0));
        assert_eq!(read(Value::Null).unwrap(), None);
        for bad in [
            json!(-1),
            json!(0.5),
            json!(1.8446744073709552e19),
            json!("7"),
            json!(-0.5),
        ] {
            let error = read(bad.clone()).unwrap_err().to_string();
            assert!(
                error.contains("expected a whole number") || error.contains("invalid type"),
                "{bad}: {error}"
            );
        }
    }
}
