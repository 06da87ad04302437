//! How episodes and steps look to clients and in the record: a new episode's answer and row, a
//! step's recorded text, and a recorded step or a whole trajectory as the API shows them.

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use agentbench_env_runtime::{Episode, Mask, StepRecord, StepScore};

use super::SessionError;
use super::pool::Owner;
use crate::ids::EpisodeId;
use crate::requests::AgentNote;
use crate::store::{self, EpisodeRow, EpisodeState, StepRow};

/// A step as recorded, with the mask offered for the action after it.
#[derive(Debug, Serialize)]
pub(super) struct RecordedStep {
    #[serde(flatten)]
    pub record: StepRecord,
    pub action_mask: Arc<Mask>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentNote>,
}

/// A just-started episode (or fork).
pub(super) struct Created<'a> {
    pub id: &'a EpisodeId,
    pub episode: &'a Episode,
    pub seed: u64,
    pub observation: &'a RawValue,
    pub forked_from: Option<(&'a EpisodeId, u32)>,
}

impl Created<'_> {
    /// What the API answers: its first observation, tools and action mask.
    pub fn body(&self) -> Value {
        let env = self.episode.env();
        json!({
            "id": self.id,
            "env": env.manifest().name,
            "env_version": env.manifest().version,
            "seed": self.seed,
            "mode": self.episode.mode(),
            "observation": self.observation,
            "tools": env.function_tools(),
            "action_mask": self.episode.mask(),
            "forked_from": self.forked_from.map(|(episode, after_step)| forked_from(episode, after_step)),
        })
    }

    /// Its stored row, with the task config's text.
    pub fn row(&self, task: String, owner: &Owner) -> EpisodeRow {
        let env = self.episode.env();
        let manifest = env.manifest();
        EpisodeRow {
            id: self.id.clone(),
            env: manifest.name.clone(),
            env_version: manifest.version.clone(),
            env_hash: env.content_hash().to_owned(),
            seed: self.seed,
            task,
            observation: self.observation.get().to_owned(),
            forked_from: self
                .forked_from
                .map(|(episode, after_step)| (episode.clone(), after_step)),
            state: EpisodeState::Open,
            outcome: None,
            created_ms: store::now_ms(),
            mode: self.episode.mode(),
            tenant: owner.tenant.to_string(),
            run_id: owner.run_id.clone(),
        }
    }
}

/// Where a fork came from, as the API shows it.
fn forked_from(episode: &EpisodeId, after_step: u32) -> Value {
    json!({"episode": episode, "after_step": after_step})
}

/// The text of the JSON object `object` with `fields` added at its end.
pub(super) fn with_fields(object: &str, fields: &[(&str, Value)]) -> String {
    let open = object
        .trim_end()
        .strip_suffix('}')
        .expect("a serialised struct is a JSON object");
    let mut text = String::with_capacity(object.len() + 128);
    text.push_str(open);
    let mut empty = open.trim_end().ends_with('{');
    for (key, value) in fields {
        if !empty {
            text.push(',');
        }
        empty = false;
        text.push_str(&json!(key).to_string());
        text.push(':');
        text.push_str(&value.to_string());
    }
    text.push('}');
    text
}

/// A recorded step as the API shows it: with its request id, and the outcome on the step that
/// ended the episode.
pub(super) fn stored_step(row: &EpisodeRow, step: &StepRow) -> Result<Value, SessionError> {
    let mut body: Value = serde_json::from_str(&step.record).map_err(SessionError::internal)?;
    if let Some(request_id) = &step.request_id {
        body["request_id"] = json!(request_id);
    }
    let ended = body["terminated"] == json!(true) || body["truncated"] == json!(true);
    if ended && row.state == EpisodeState::Over {
        body["outcome"] = parse_stored(row.outcome.as_deref())?;
    }
    Ok(body)
}

/// Adds the scores given after the fact (`Store::scores`) to the steps as shown, after the
/// scores each step was recorded with; a score of a scorer version the record already has is
/// not repeated.
pub(super) fn add_later_scores(
    steps: &mut [Value],
    scores: Vec<store::ScoreRow>,
) -> Result<(), SessionError> {
    for score in scores {
        let Some(step) = steps.get_mut(score.index as usize) else {
            continue;
        };
        let list = step
            .as_object_mut()
            .ok_or_else(|| SessionError::internal("a stored step is not an object"))?
            .entry("scores")
            .or_insert_with(|| json!([]));
        let Some(list) = list.as_array_mut() else {
            continue;
        };
        let known = list.iter().any(|old| {
            old["scorer"] == score.scorer.as_str() && old["version"] == score.version.as_str()
        });
        if !known {
            let score = StepScore {
                labels: serde_json::from_str(&score.labels).map_err(SessionError::internal)?,
                scorer: score.scorer,
                version: score.version,
                reward: score.reward,
                unmeasured: score.unmeasured,
            };
            list.push(serde_json::to_value(score).map_err(SessionError::internal)?);
        }
    }
    Ok(())
}

/// An episode's whole record as the API shows it, from its row and its steps as shown.
pub(super) fn trajectory(row: &EpisodeRow, steps: Vec<Value>) -> Result<Value, SessionError> {
    let last = steps.last();
    let flag = |name: &str| last.is_some_and(|step| step[name] == json!(true));
    Ok(json!({
        "id": row.id,
        "env": row.env,
        "env_version": row.env_version,
        "env_hash": row.env_hash,
        "seed": row.seed,
        "mode": row.mode,
        "task": parse_stored(Some(&row.task))?,
        "observation": parse_stored(Some(&row.observation))?,
        "state": row.state.as_str(),
        "terminated": flag("terminated"),
        "truncated": flag("truncated"),
        "outcome": parse_stored(row.outcome.as_deref())?,
        "forked_from": row.forked_from.as_ref().map(|(episode, after_step)| forked_from(episode, *after_step)),
        "run_id": row.run_id,
        "steps": steps,
    }))
}

/// A step's reward as the API shows the step: the mean of its scorers' rewards, leaving out the
/// scorers that could not judge it (`unmeasured`); `None` when none did.
pub fn step_reward(step: &Value) -> Option<f64> {
    scores_reward(&step["scores"])
}

/// The reward of a step whose `scores` are `scores`: see `step_reward`.
pub fn scores_reward(scores: &Value) -> Option<f64> {
    let rewards: Vec<f64> = scores
        .as_array()
        .into_iter()
        .flatten()
        .filter(|score| score["unmeasured"].is_null())
        .filter_map(|score| score["reward"].as_f64())
        .collect();
    (!rewards.is_empty()).then(|| rewards.iter().sum::<f64>() / rewards.len() as f64)
}

fn parse_stored(text: Option<&str>) -> Result<Value, SessionError> {
    text.map_or(Ok(Value::Null), |text| {
        serde_json::from_str(text).map_err(SessionError::internal)
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::with_fields;

    #[test]
    fn fields_are_added_at_the_end_of_an_object() {
        let text = with_fields(
            r#"{"index":0,"observation":{"a":"b\"c"}}"#,
            &[("request_id", json!("r-1")), ("outcome", Value::Null)],
        );
        assert_eq!(
            text,
            r#"{"index":0,"observation":{"a":"b\"c"},"request_id":"r-1","outcome":null}"#
        );
        assert_eq!(with_fields("{}", &[("a", json!(1))]), r#"{"a":1}"#);
        assert_eq!(with_fields(r#"{"a":1}"#, &[]), r#"{"a":1}"#);
    }
}
