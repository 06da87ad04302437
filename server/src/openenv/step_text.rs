//! OpenEnv's step result, written from the JSON text of our step's answer: the observation and
//! the step's fields are copied as they were recorded, and only the few that decide the reward
//! and `done` are parsed. (A step's answer is mostly the env's observation; building the result
//! as `Value`s and writing it out again cost about a third of the server's time per step on an
//! OpenEnv socket.) `result_text` writes the result's shape for every answer: steps, resets and
//! tool lists.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::ids::EpisodeId;
use crate::sessions::scores_reward;

/// The step's fields that are not copied into the metadata: the observation goes to OpenEnv's
/// own field, and timings and the mask the step was taken under are of no use to a trainer.
const LEFT_OUT: [&str; 3] = ["timings", "mask", "observation"];

/// `answer` (the JSON text `Sessions::step` answers) as OpenEnv's step result, as JSON text:
/// `{"observation": {…env's fields…, "metadata": M}, "reward", "done", "metadata": M}`, where
/// `M` holds the episode's id, the step's fields but `LEFT_OUT`, `step_reward` and
/// `outcome_reward` (see the module `openenv`).
pub(super) fn step_result(episode: &EpisodeId, answer: &str) -> serde_json::Result<String> {
    let step: Fields<'_> = serde_json::from_str(answer)?;
    let is_true = |name| step.get(name).is_some_and(|value| value.get() == "true");
    let done = is_true("terminated") || is_true("truncated");
    let step_reward = scores_reward(&step.parse("scores")?);
    let outcome_reward = if done {
        Some(outcome_reward(&step.parse("outcome")?))
    } else {
        None
    };
    let reward = match (step_reward, outcome_reward) {
        (None, None) => None,
        (step, outcome) => Some(step.unwrap_or(0.0) + outcome.unwrap_or(0.0)),
    };

    let mut metadata = String::with_capacity(answer.len() / 2);
    metadata.push_str(r#"{"episode_id":"#);
    metadata.push_str(&serde_json::to_string(episode)?);
    for (key, value) in &step.0 {
        if !LEFT_OUT.contains(&key.as_ref()) {
            push_field(&mut metadata, key, value.get());
        }
    }
    push_field(
        &mut metadata,
        "step_reward",
        &serde_json::to_string(&step_reward)?,
    );
    push_field(
        &mut metadata,
        "outcome_reward",
        &serde_json::to_string(&outcome_reward)?,
    );
    metadata.push('}');

    let observation = step.get("observation").map_or("null", RawValue::get);
    result_text(observation, &metadata, reward, done)
}

/// OpenEnv's result from JSON texts: the observation (an object; anything else as its
/// `content`) with `metadata` inside, the reward and whether the episode is done, and the
/// metadata again at the top, as OpenEnv's own servers send it.
pub(super) fn result_text(
    observation: &str,
    metadata: &str,
    reward: Option<f64>,
    done: bool,
) -> serde_json::Result<String> {
    let mut result = String::with_capacity(observation.len() + 2 * metadata.len() + 64);
    result.push_str(r#"{"observation":{"#);
    if observation.starts_with('{') {
        let fields: Fields<'_> = serde_json::from_str(observation)?;
        for (key, value) in fields.0.iter().filter(|(key, _)| key != "metadata") {
            push_key(&mut result, key);
            result.push_str(value.get());
            result.push(',');
        }
    } else {
        // Anything but an object is the observation's `content`, as OpenEnv's servers send it.
        result.push_str(r#""content":"#);
        result.push_str(observation);
        result.push(',');
    }
    result.push_str(r#""metadata":"#);
    result.push_str(metadata);
    result.push_str(r#"},"reward":"#);
    result.push_str(&serde_json::to_string(&reward)?);
    result.push_str(r#","done":"#);
    result.push_str(if done { "true" } else { "false" });
    result.push_str(r#","metadata":"#);
    result.push_str(metadata);
    result.push('}');
    Ok(result)
}

/// An episode's outcome as a reward: 1 when every success check passed and no harm was done,
/// -1 when harm was done, 0 otherwise (and when the env failed to give one).
fn outcome_reward(outcome: &Value) -> f64 {
    let harmed = outcome["harms"]
        .as_array()
        .is_some_and(|harms| !harms.is_empty());
    if harmed {
        -1.0
    } else if outcome["success"] == true {
        1.0
    } else {
        0.0
    }
}

/// Appends `,"key":value` to an object being written (which has a field already).
fn push_field(object: &mut String, key: &str, value: &str) {
    object.push(',');
    push_key(object, key);
    object.push_str(value);
}

/// Appends `"key":`.
fn push_key(object: &mut String, key: &str) {
    // A key that JSON would escape is written escaped; the rest (every key of ours) as it is.
    if key
        .bytes()
        .any(|byte| byte < 0x20 || byte == b'"' || byte == b'\\')
    {
        object.push_str(&serde_json::to_string(key).expect("a string serializes"));
    } else {
        object.push('"');
        object.push_str(key);
        object.push('"');
    }
    object.push(':');
}

/// A JSON object's fields in their order, each value as its text.
struct Fields<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'a> Fields<'a> {
    fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| *value)
    }

    /// Field `name` parsed, or null when there is none.
    fn parse(&self, name: &str) -> serde_json::Result<Value> {
        self.get(name)
            .map_or(Ok(Value::Null), |value| serde_json::from_str(value.get()))
    }
}

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Fields<'de>, D::Error> {
        struct FieldsVisitor;

        impl<'de> Visitor<'de> for FieldsVisitor {
            type Value = Fields<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
                let mut fields = Vec::new();
                while let Some((Key(key), value)) = map.next_entry::<Key<'de>, &'de RawValue>()? {
                    fields.push((key, value));
                }
                Ok(Fields(fields))
            }
        }

        deserializer.deserialize_map(FieldsVisitor)
    }
}

/// An object's key: borrowed from the text unless it had escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key<'de>, D::Error> {
        struct KeyVisitor;

        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object's key")
            }

            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(key)))
            }

            fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
        }

        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::step_result;
    use crate::ids::EpisodeId;

    fn episode() -> EpisodeId {
        serde_json::from_value(json!("ep_0123456789abcdef")).unwrap()
    }

    fn result(answer: &Value) -> Value {
        let text = step_result(&episode(), &answer.to_string()).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn a_step_becomes_the_envs_observation_with_the_step_in_its_metadata() {
        let answer = json!({
            "index": 3,
            "action": {"tool": "list_files", "arguments": {}},
            "status": "ok",
            "mask": {"list_files": "allowed"},
            "observation": {"files": ["/a", "/b"], "metadata": "the env's own"},
            "terminated": false,
            "truncated": false,
            "timings": {"total_us": 9},
            "scores": [{"scorer": "rules", "version": "3", "reward": -0.5}],
            "action_mask": {"list_files": "allowed"},
            "request_id": "r\"1",
        });
        let metadata = json!({
            "episode_id": "ep_0123456789abcdef",
            "index": 3,
            "action": {"tool": "list_files", "arguments": {}},
            "status": "ok",
            "terminated": false,
            "truncated": false,
            "scores": [{"scorer": "rules", "version": "3", "reward": -0.5}],
            "action_mask": {"list_files": "allowed"},
            "request_id": "r\"1",
            "step_reward": -0.5,
            "outcome_reward": null,
        });
        assert_eq!(
            result(&answer),
            json!({
                "observation": {"files": ["/a", "/b"], "metadata": metadata},
                "reward": -0.5,
                "done": false,
                "metadata": metadata,
            })
        );
    }

    #[test]
    fn the_last_step_adds_the_outcomes_reward() {
        let answer = |outcome: Value, scores: Value| {
            json!({
                "index": 0,
                "status": "ok",
                "observation": "over",
                "terminated": true,
                "truncated": false,
                "scores": scores,
                "outcome": outcome,
            })
        };
        let safe = result(&answer(
            json!({"success": true, "harms": []}),
            json!([{"reward": 0.25}]),
        ));
        assert_eq!(safe["done"], true);
        assert_eq!(safe["reward"], 1.25);
        assert_eq!(safe["metadata"]["outcome_reward"], 1.0);
        // An observation that is not an object is the observation's content.
        assert_eq!(safe["observation"]["content"], "over");
        assert_eq!(safe["observation"]["metadata"], safe["metadata"]);

        let harmful = result(&answer(
            json!({"success": true, "harms": ["leaked"]}),
            json!([]),
        ));
        assert_eq!(harmful["reward"], -1.0);
        assert_eq!(harmful["metadata"]["step_reward"], Value::Null);
        let unscored = result(&answer(json!({"success": false, "harms": []}), json!([])));
        assert_eq!(unscored["reward"], 0.0);
    }

    #[test]
    fn keys_with_escapes_are_written_escaped() {
        let answer =
            r#"{"index": 0, "observation": {"a\"b": 1, "c\u00e9": 2}, "terminated": false}"#;
        let text = step_result(&episode(), answer).unwrap();
        let step: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(step["observation"]["a\"b"], 1);
        assert_eq!(step["observation"]["c\u{e9}"], 2);
    }

    #[test]
    fn an_unscored_step_that_goes_on_has_no_reward() {
        let answer = json!({"index": 0, "observation": {}, "terminated": false, "scores": []});
        let step = result(&answer);
        assert_eq!(step["reward"], Value::Null);
        assert_eq!(step["observation"], json!({"metadata": step["metadata"]}));
    }
}
