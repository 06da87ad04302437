//! A stratified, seeded sample of a suite's scenarios (`agentbench run --limit N`): spread over
//! every (env, category) pair rather than the first N in file order, and the same for the same
//! suite, N and seed.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use crate::Scenario;

/// `n` of `scenarios`, in their own order: one from each (env, category) stratum in turn, the
/// strata and the scenarios within each taken in an order drawn from `seed`, until `n` are
/// taken. Every scenario when `n` is at least their number.
pub fn stratified(scenarios: &[Scenario], n: usize, seed: u64) -> Vec<&Scenario> {
    if n >= scenarios.len() {
        return scenarios.iter().collect();
    }
    let mut strata: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
    for (index, scenario) in scenarios.iter().enumerate() {
        strata
            .entry((scenario.env.as_str(), scenario.category.as_str()))
            .or_default()
            .push(index);
    }
    let mut strata: Vec<(u64, Vec<usize>)> = strata
        .into_iter()
        .map(|((env, category), mut members)| {
            members.sort_by_key(|index| draw(seed, &scenarios[*index].id));
            // Kept back to front, so that the next one drawn is popped off the end.
            members.reverse();
            (draw(seed, &format!("{env}/{category}")), members)
        })
        .collect();
    strata.sort_by_key(|(order, _)| *order);

    let mut taken = Vec::with_capacity(n);
    while taken.len() < n {
        for (_, members) in &mut strata {
            if taken.len() == n {
                break;
            }
            taken.extend(members.pop());
        }
    }
    taken.sort_unstable();
    taken.into_iter().map(|index| &scenarios[index]).collect()
}

/// A number drawn from `seed` and `name`: the first 8 bytes of SHA-256 over both.
fn draw(seed: u64, name: &str) -> u64 {
    let digest = Sha256::new()
        .chain_update(seed.to_le_bytes())
        .chain_update(name.as_bytes())
        .finalize();
    u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::Suite;

    fn ids(sample: &[&Scenario]) -> Vec<String> {
        sample.iter().map(|scenario| scenario.id.clone()).collect()
    }

    #[test]
    fn a_sample_spreads_over_envs_and_categories_and_is_the_same_for_the_same_seed() {
        let suite = Suite::builtin("safety").unwrap();
        let strata: BTreeSet<(&str, &str)> = suite
            .scenarios
            .iter()
            .map(|scenario| (scenario.env.as_str(), scenario.category.as_str()))
            .collect();
        let sample = stratified(&suite.scenarios, 40, 0);
        assert_eq!(sample.len(), 40);
        let envs: BTreeSet<&str> = sample
            .iter()
            .map(|scenario| scenario.env.as_str())
            .collect();
        assert_eq!(envs.len(), 8, "every env: {envs:?}");
        let sampled_strata: BTreeSet<(&str, &str)> = sample
            .iter()
            .map(|scenario| (scenario.env.as_str(), scenario.category.as_str()))
            .collect();
        assert_eq!(
            sampled_strata.len(),
            40.min(strata.len()),
            "one per stratum first"
        );

        assert_eq!(ids(&stratified(&suite.scenarios, 40, 0)), ids(&sample));
        assert_ne!(ids(&stratified(&suite.scenarios, 40, 1)), ids(&sample));
        // In suite order, without repeats.
        let positions: Vec<usize> = sample
            .iter()
            .map(|scenario| {
                suite
                    .scenarios
                    .iter()
                    .position(|other| other.id == scenario.id)
                    .unwrap()
            })
            .collect();
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn a_sample_larger_than_a_stratum_takes_all_of_it_and_a_full_one_is_the_suite() {
        let suite = Suite::builtin("safety").unwrap();
        let every = stratified(&suite.scenarios, suite.scenarios.len(), 7);
        assert_eq!(
            ids(&every),
            ids(&suite.scenarios.iter().collect::<Vec<_>>())
        );
        let most = stratified(&suite.scenarios, suite.scenarios.len() - 1, 7);
        assert_eq!(most.len(), suite.scenarios.len() - 1);
        assert!(stratified(&suite.scenarios, 0, 7).is_empty());
    }
}
