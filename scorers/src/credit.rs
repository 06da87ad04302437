//! Credit assignment: turning an episode's step rewards (from any step scorer) into the per-step
//! returns a trainer learns from, and normalising them across a group of episodes.
//!
//! - `discounted_returns`: the sum form, the discounted return-to-go `G_t = r_t + γ G_{t+1}`.
//!   One bad step is averaged away by good ones around it.
//! - `min_returns`: the min form of PURE (Cheng et al., 2025, "Stop Summation: Min-Form Credit
//!   Assignment Is All Process Reward Model Needs"): `G_t = min(r_t, …, r_T)`, the worst step
//!   still ahead. A trajectory is only as good as its worst step, so a policy cannot collect
//!   reward for many harmless steps around one harmful one (the reward hacking the sum form
//!   invites); every step before a harmful one shares its penalty.
//! - `group_normalized`: GRPO's group-relative advantage, `(x - mean) / std` over the episodes
//!   sampled for one prompt, all zero when they are all alike.
//!
//! Each is a pure function of its input; none reads an episode.

/// The discounted return-to-go of each step: `G_t = r_t + gamma * G_{t+1}`, with `G` after the
/// last step 0. `gamma` is in [0, 1]; 1 sums every later reward, 0 keeps each step's own.
pub fn discounted_returns(rewards: &[f64], gamma: f64) -> Vec<f64> {
    assert!(
        (0.0..=1.0).contains(&gamma),
        "a discount of {gamma} is not in [0, 1]"
    );
    let mut returns = vec![0.0; rewards.len()];
    let mut later = 0.0;
    for (index, reward) in rewards.iter().enumerate().rev() {
        later = reward + gamma * later;
        returns[index] = later;
    }
    returns
}

/// The min-form return of each step: the smallest reward from that step to the end (PURE).
pub fn min_returns(rewards: &[f64]) -> Vec<f64> {
    let mut returns = vec![0.0; rewards.len()];
    let mut worst = f64::INFINITY;
    for (index, reward) in rewards.iter().enumerate().rev() {
        worst = worst.min(*reward);
        returns[index] = worst;
    }
    returns
}

/// How far below which a group's standard deviation counts as none: the values are all alike,
/// and nothing in the group is better or worse than the rest.
const ALIKE: f64 = 1e-9;

/// Group-relative advantages: each value minus the group's mean, over the group's (population)
/// standard deviation. A group whose values are all alike, or of one value, gets zeros: no
/// member did better than another, so none is pushed either way.
pub fn group_normalized(values: &[f64]) -> Vec<f64> {
    if values.is_empty() {
        return Vec::new();
    }
    let count = values.len() as f64;
    let mean = values.iter().sum::<f64>() / count;
    let variance = values
        .iter()
        .map(|value| (value - mean).powi(2))
        .sum::<f64>()
        / count;
    let deviation = variance.sqrt();
    if deviation < ALIKE {
        return vec![0.0; values.len()];
    }
    values
        .iter()
        .map(|value| (value - mean) / deviation)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(left: &[f64], right: &[f64]) -> bool {
        left.len() == right.len()
            && left
                .iter()
                .zip(right)
                .all(|(left, right)| (left - right).abs() < 1e-12)
    }

    #[test]
    fn the_sum_form_discounts_later_rewards() {
        assert!(close(
            &discounted_returns(&[0.0, 0.5, -1.0], 1.0),
            &[-0.5, -0.5, -1.0]
        ));
        assert!(close(
            &discounted_returns(&[1.0, 1.0, 1.0], 0.5),
            &[1.75, 1.5, 1.0]
        ));
        assert!(close(&discounted_returns(&[0.2, -0.3], 0.0), &[0.2, -0.3]));
        assert!(discounted_returns(&[], 0.9).is_empty());
    }

    #[test]
    #[should_panic(expected = "not in [0, 1]")]
    fn a_discount_above_one_is_refused() {
        discounted_returns(&[1.0], 1.5);
    }

    #[test]
    fn the_min_form_carries_the_worst_step_ahead_back_to_every_earlier_step() {
        // Three harmless steps of progress, then a harmful one, then more progress.
        let rewards = [0.25, 0.25, 0.25, -1.0, 0.25];
        assert!(close(
            &min_returns(&rewards),
            &[-1.0, -1.0, -1.0, -1.0, 0.25]
        ));
        // The sum form lets the harmless steps outweigh the harmful one from the start.
        assert!(discounted_returns(&rewards, 1.0)[0] > -1.0);
        assert!(min_returns(&[]).is_empty());
        // A trajectory with no bad step keeps each step's own worst-ahead reward.
        assert!(close(&min_returns(&[0.5, 0.1, 0.3]), &[0.1, 0.1, 0.3]));
    }

    #[test]
    fn group_advantages_have_zero_mean_and_unit_spread() {
        let advantages = group_normalized(&[1.0, 0.0, 0.0, 1.0]);
        assert!(close(&advantages, &[1.0, -1.0, -1.0, 1.0]));
        let advantages = group_normalized(&[0.3, -0.7, 0.9, 0.1, 0.0]);
        let mean = advantages.iter().sum::<f64>() / 5.0;
        let variance = advantages.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / 5.0;
        assert!(mean.abs() < 1e-12, "{mean}");
        assert!((variance - 1.0).abs() < 1e-12, "{variance}");
        // Order is kept: the best member has the largest advantage.
        assert!(advantages[2] > advantages[0] && advantages[0] > advantages[3]);
    }

    #[test]
    fn a_group_with_nothing_to_tell_apart_gets_no_advantage() {
        assert!(close(&group_normalized(&[0.4, 0.4, 0.4]), &[0.0, 0.0, 0.0]));
        assert!(close(&group_normalized(&[-1.0]), &[0.0]));
        assert!(group_normalized(&[]).is_empty());
    }
}
