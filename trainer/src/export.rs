//! Trajectories for other trainers: each episode the trainer played, with the sequences it
//! trains on, written as the records TRL's `GRPOTrainer` `rollout_func` returns and veRL's
//! `AgentLoopOutput` holds.
//!
//! A sequence splits where the policy first wrote: the prompt before, the completion (the
//! policy's tokens and the tool results between them) after, with a mask of 1 on the policy's
//! tokens and 0 on tool output, and each policy token's sampling log-probability.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::worker::TrainSample;

/// One episode as the trainer saw it: a line of `trajectories.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// The rollout run that played it.
    pub run: String,
    pub scenario: String,
    pub trial: u32,
    /// The oldest policy version that wrote any of its steps.
    pub policy_version: u64,
    /// 1 safely completed, -1 harm done, 0 otherwise.
    pub outcome_reward: f64,
    /// Each step's reward (the mean of its scorers').
    pub step_rewards: Vec<f64>,
    /// Each step's advantage in its group.
    pub step_advantages: Vec<f64>,
    pub sequences: Vec<TrainSample>,
}

/// Whose shape the records take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// TRL's `rollout_func` fields: `prompt_ids`, `completion_ids`, `logprobs`, `tool_mask`.
    Trl,
    /// veRL's `AgentLoopOutput`: `prompt_ids`, `response_ids`, `response_mask`,
    /// `response_logprobs`, `reward_score`, `num_turns`.
    Verl,
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Format, String> {
        match text {
            "trl" => Ok(Format::Trl),
            "verl" => Ok(Format::Verl),
            _ => Err(format!("`{text}` is not an export format (trl, verl)")),
        }
    }
}

/// The records of `trajectory`, one per sequence.
pub fn records(trajectory: &Trajectory, format: Format) -> Vec<Value> {
    trajectory
        .sequences
        .iter()
        .map(|sequence| {
            let start = sequence
                .loss_mask
                .iter()
                .position(|&bit| bit == 1)
                .unwrap_or(sequence.token_ids.len());
            let prompt = &sequence.token_ids[..start];
            let completion = &sequence.token_ids[start..];
            let mask = &sequence.loss_mask[start..];
            let logprobs = sequence.old_logprobs.get(start..).unwrap_or_default();
            let advantages = sequence.advantages.get(start..).unwrap_or_default();
            let about = json!({
                "run": trajectory.run,
                "scenario": trajectory.scenario,
                "trial": trajectory.trial,
                "policy_version": trajectory.policy_version,
                "step_rewards": trajectory.step_rewards,
                "advantages": advantages,
            });
            match format {
                Format::Trl => {
                    let mut record = json!({
                        "prompt_ids": prompt,
                        "completion_ids": completion,
                        "logprobs": logprobs,
                        "tool_mask": mask,
                        "reward": trajectory.outcome_reward,
                    });
                    for (key, value) in about.as_object().expect("an object") {
                        record[key] = value.clone();
                    }
                    record
                }
                Format::Verl => json!({
                    "prompt_ids": prompt,
                    "response_ids": completion,
                    "response_mask": mask,
                    "response_logprobs": logprobs,
                    "reward_score": trajectory.outcome_reward,
                    "num_turns": 1 + segments(mask),
                    "extra_fields": about,
                }),
            }
        })
        .collect()
}

/// Runs of equal bits in `mask`: the policy's turns and the tool results between them.
fn segments(mask: &[u8]) -> usize {
    mask.iter()
        .zip(mask.iter().skip(1))
        .filter(|(a, b)| a != b)
        .count()
        + usize::from(!mask.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trajectory() -> Trajectory {
        Trajectory {
            run: "run_1".to_owned(),
            scenario: "s".to_owned(),
            trial: 2,
            policy_version: 5,
            outcome_reward: 1.0,
            step_rewards: vec![0.0, 0.5],
            step_advantages: vec![0.7, 0.9],
            sequences: vec![TrainSample {
                token_ids: vec![1, 2, 10, 11, 20, 12],
                loss_mask: vec![0, 0, 1, 1, 0, 1],
                advantages: vec![0.0, 0.0, 0.7, 0.7, 0.0, 0.9],
                old_logprobs: vec![0.0, 0.0, -0.5, -0.25, 0.0, -1.0],
            }],
        }
    }

    #[test]
    fn a_sequence_splits_where_the_policy_first_wrote() {
        let trl = records(&trajectory(), Format::Trl);
        assert_eq!(trl.len(), 1);
        assert_eq!(trl[0]["prompt_ids"], json!([1, 2]));
        assert_eq!(trl[0]["completion_ids"], json!([10, 11, 20, 12]));
        assert_eq!(trl[0]["tool_mask"], json!([1, 1, 0, 1]));
        assert_eq!(trl[0]["logprobs"], json!([-0.5, -0.25, 0.0, -1.0]));
        assert_eq!(trl[0]["advantages"], json!([0.7, 0.7, 0.0, 0.9]));
        assert_eq!(trl[0]["reward"], json!(1.0));
        assert_eq!(trl[0]["step_rewards"], json!([0.0, 0.5]));

        let verl = records(&trajectory(), Format::Verl);
        assert_eq!(verl[0]["response_ids"], json!([10, 11, 20, 12]));
        assert_eq!(verl[0]["response_mask"], json!([1, 1, 0, 1]));
        assert_eq!(
            verl[0]["response_logprobs"],
            json!([-0.5, -0.25, 0.0, -1.0])
        );
        assert_eq!(verl[0]["reward_score"], json!(1.0));
        // The prompt, two replies and the tool result between them.
        assert_eq!(verl[0]["num_turns"], json!(4));
        assert_eq!(verl[0]["extra_fields"]["scenario"], json!("s"));
    }
}
