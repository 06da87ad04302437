//! From an episode's generations to the sequences a PPO update trains on.
//!
//! Each step of an episode is one chat completion: a prompt (the whole conversation so far, as
//! the worker's template rendered it) and the tokens the policy sampled. A step's sample is its
//! prompt, masked out, followed by its completion, masked in, each completion token carrying
//! the step's advantage and the log-probability it was sampled with. When the next step's
//! prompt begins with this step's prompt and completion token for token (the template rendered
//! the reply back as it was written), the two steps are one sequence: the conversation is then
//! read once rather than once per step.

use crate::policy::Generation;
use crate::worker::TrainSample;

/// The samples of one episode, whose steps are `(generation, advantage)` in order.
pub fn episode_samples(steps: &[(&Generation, f64)]) -> Vec<TrainSample> {
    let mut samples: Vec<TrainSample> = Vec::new();
    for (generation, advantage) in steps {
        if generation.token_ids.is_empty() {
            continue;
        }
        let prompt = &generation.prompt_token_ids;
        let extends = samples.last().is_some_and(|sample| {
            prompt.len() >= sample.token_ids.len() && prompt.starts_with(&sample.token_ids)
        });
        if !extends {
            samples.push(TrainSample {
                token_ids: Vec::new(),
                loss_mask: Vec::new(),
                advantages: Vec::new(),
                old_logprobs: Vec::new(),
            });
        }
        let sample = samples.last_mut().expect("one was pushed");
        let context = &prompt[sample.token_ids.len()..];
        sample.token_ids.extend_from_slice(context);
        sample
            .loss_mask
            .extend(std::iter::repeat_n(0, context.len()));
        sample
            .advantages
            .extend(std::iter::repeat_n(0.0, context.len()));
        sample
            .old_logprobs
            .extend(std::iter::repeat_n(0.0, context.len()));
        sample.token_ids.extend_from_slice(&generation.token_ids);
        sample
            .loss_mask
            .extend(std::iter::repeat_n(1, generation.token_ids.len()));
        sample
            .advantages
            .extend(std::iter::repeat_n(*advantage, generation.token_ids.len()));
        sample.old_logprobs.extend_from_slice(&generation.logprobs);
    }
    // A sequence a worker cannot train on (its first token is never predicted) is left out.
    samples.retain(|sample| sample.loss_mask.first() == Some(&0));
    samples
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation(prompt: &[u32], tokens: &[u32], logprob: f64) -> Generation {
        Generation {
            prompt_token_ids: prompt.to_vec(),
            token_ids: tokens.to_vec(),
            logprobs: vec![logprob; tokens.len()],
            policy_version: 3,
        }
    }

    #[test]
    fn steps_whose_prompts_extend_the_conversation_are_one_sequence() {
        let first = generation(&[1, 2], &[10, 11], -0.5);
        // The next prompt is the first prompt, its reply, and a tool result (20, 21).
        let second = generation(&[1, 2, 10, 11, 20, 21], &[12], -0.25);
        let samples = episode_samples(&[(&first, 1.5), (&second, -1.0)]);
        assert_eq!(
            samples,
            vec![TrainSample {
                token_ids: vec![1, 2, 10, 11, 20, 21, 12],
                loss_mask: vec![0, 0, 1, 1, 0, 0, 1],
                advantages: vec![0.0, 0.0, 1.5, 1.5, 0.0, 0.0, -1.0],
                old_logprobs: vec![0.0, 0.0, -0.5, -0.5, 0.0, 0.0, -0.25],
            }]
        );
    }

    #[test]
    fn a_prompt_that_rewrote_the_reply_starts_a_sequence_of_its_own() {
        let first = generation(&[1, 2], &[10, 11], -0.5);
        // The template wrote the reply back as 10, 19: not the sampled tokens.
        let second = generation(&[1, 2, 10, 19, 20], &[12, 13], -0.25);
        let empty = generation(&[1, 2, 10, 19, 20, 12, 13, 30], &[], 0.0);
        let samples = episode_samples(&[(&first, 1.0), (&second, 2.0), (&empty, 3.0)]);
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0].token_ids, vec![1, 2, 10, 11]);
        assert_eq!(samples[1].token_ids, vec![1, 2, 10, 19, 20, 12, 13]);
        assert_eq!(samples[1].loss_mask, vec![0, 0, 0, 0, 0, 1, 1]);
        assert_eq!(
            samples[1].advantages,
            vec![0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0]
        );
        // The step that sampled nothing adds nothing.
        assert_eq!(
            samples
                .iter()
                .map(TrainSample::masked_tokens)
                .sum::<usize>(),
            4
        );
    }
}
