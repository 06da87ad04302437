//! 95% confidence intervals: Wilson's score interval for a proportion of independent trials, and
//! a deterministic percentile bootstrap that resamples clusters (scenarios) for everything else.

/// The standard normal quantile for a two-sided 95% interval.
pub const Z_95: f64 = 1.959964;

/// The number of resamples a default `Bootstrap` draws.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// The seed a default `Bootstrap` starts from: any fixed value makes a run's intervals
/// reproducible.
pub const BOOTSTRAP_SEED: u64 = 0x5eed_a9e7_be9c_0001;

/// Wilson's score interval at 95% for `successes` out of `n` independent trials, as
/// `(low, high)` within [0, 1].
///
/// With no trials (`n == 0`) nothing is known and the interval is the whole of [0, 1]. A count of
/// successes above `n` is taken as `n`.
pub fn wilson(successes: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let trials = n as f64;
    let share = successes.min(n) as f64 / trials;
    let z_squared = Z_95 * Z_95;
    let denominator = 1.0 + z_squared / trials;
    let centre = (share + z_squared / (2.0 * trials)) / denominator;
    let half_width = Z_95 / denominator
        * (share * (1.0 - share) / trials + z_squared / (4.0 * trials * trials)).sqrt();
    (
        (centre - half_width).clamp(0.0, 1.0),
        (centre + half_width).clamp(0.0, 1.0),
    )
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a small, fast generator whose whole state is one
/// `u64`, so that a seed fixes every draw. Not for cryptography.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut mixed = self.state;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        mixed ^ (mixed >> 31)
    }

    /// A uniform index in `0..bound` (Lemire's multiply-shift; its bias is below 2^-32 for any
    /// bound this crate meets). A `bound` of 0 gives 0.
    pub fn next_index(&mut self, bound: usize) -> usize {
        ((u128::from(self.next_u64()) * bound as u128) >> 64) as usize
    }
}

/// A clustered percentile bootstrap: resample the clusters (scenarios, whose trials are not
/// independent of each other) with replacement, recompute the statistic on each resample, and
/// take the 2.5th and 97.5th percentiles of what comes out.
///
/// The statistic is any function of a set of clusters: a proportion or a mean (clusters carrying
/// sums and counts), a ratio estimator, pass^k, or the mean of paired differences. Resampling
/// is seeded, so the same clusters in the same order give the same interval.
///
/// A single cluster gives a degenerate interval, equal to the statistic on that cluster: every
/// resample is that cluster again, and a bootstrap cannot see variation between scenarios that
/// it was never shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bootstrap {
    pub resamples: usize,
    pub seed: u64,
}

impl Default for Bootstrap {
    fn default() -> Bootstrap {
        Bootstrap {
            resamples: BOOTSTRAP_RESAMPLES,
            seed: BOOTSTRAP_SEED,
        }
    }
}

impl Bootstrap {
    /// The 95% interval `(low, high)` of `statistic` over resamples of `clusters`.
    ///
    /// A resample on which the statistic is undefined (`None`, say a ratio whose denominator
    /// came out 0) is left out. `None` when there are no clusters, no resamples, or no resample
    /// with a defined statistic.
    pub fn interval<Cluster>(
        &self,
        clusters: &[Cluster],
        statistic: impl Fn(&[&Cluster]) -> Option<f64>,
    ) -> Option<(f64, f64)> {
        if clusters.is_empty() {
            return None;
        }
        let mut random = SplitMix64::new(self.seed);
        let mut resample: Vec<&Cluster> = Vec::with_capacity(clusters.len());
        let mut statistics = Vec::with_capacity(self.resamples);
        for _ in 0..self.resamples {
            resample.clear();
            resample
                .extend((0..clusters.len()).map(|_| &clusters[random.next_index(clusters.len())]));
            if let Some(value) = statistic(&resample).filter(|value| !value.is_nan()) {
                statistics.push(value);
            }
        }
        statistics.sort_by(f64::total_cmp);
        Some((
            percentile(&statistics, 0.025)?,
            percentile(&statistics, 0.975)?,
        ))
    }
}

/// The `fraction` quantile of sorted values, interpolating linearly between the two nearest
/// (Hyndman and Fan's type 7, the default of R and NumPy). `None` for no values.
pub fn percentile(sorted: &[f64], fraction: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = fraction.clamp(0.0, 1.0) * last as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(last);
    let weight = position - below as f64;
    Some(sorted[below] + (sorted[above] - sorted[below]) * weight)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_wilson(successes: usize, n: usize, expect: (f64, f64)) {
        let (low, high) = wilson(successes, n);
        assert!(
            (low - expect.0).abs() < 5e-5 && (high - expect.1).abs() < 5e-5,
            "wilson({successes}, {n}) = ({low:.4}, {high:.4}), expected {expect:?}"
        );
    }

    #[test]
    fn wilson_matches_known_values() {
        check_wilson(8, 10, (0.4902, 0.9433));
        check_wilson(0, 10, (0.0, 0.2775));
        check_wilson(10, 10, (0.7225, 1.0));
        check_wilson(5, 10, (0.2366, 0.7634));
        check_wilson(0, 0, (0.0, 1.0));
        check_wilson(12, 10, (0.7225, 1.0));
    }

    /// Clusters as (successes, trials); the statistic is the pooled proportion.
    fn pooled_share(clusters: &[&(f64, f64)]) -> Option<f64> {
        let successes: f64 = clusters.iter().map(|cluster| cluster.0).sum();
        let trials: f64 = clusters.iter().map(|cluster| cluster.1).sum();
        (trials > 0.0).then(|| successes / trials)
    }

    fn half_successful(n_clusters: usize) -> Vec<(f64, f64)> {
        (0..n_clusters)
            .map(|cluster_idx| ((cluster_idx % 2) as f64 * 3.0, 3.0))
            .collect()
    }

    #[test]
    fn bootstrap_is_deterministic() {
        let clusters = half_successful(30);
        let first = Bootstrap::default().interval(&clusters, pooled_share);
        let second = Bootstrap::default().interval(&clusters, pooled_share);
        assert_eq!(first, second);
        let (low, high) = first.unwrap();
        assert!(low < 0.5 && 0.5 < high, "({low}, {high})");
    }

    #[test]
    fn bootstrap_narrows_as_the_sample_grows() {
        let width = |n_clusters| {
            let (low, high) = Bootstrap::default()
                .interval(&half_successful(n_clusters), pooled_share)
                .unwrap();
            high - low
        };
        let (small, large) = (width(20), width(200));
        assert!(large < small / 2.0, "20 clusters: {small}, 200: {large}");
    }

    #[test]
    fn bootstrap_of_one_cluster_is_degenerate_and_of_none_is_absent() {
        assert_eq!(
            Bootstrap::default().interval(&[(2.0, 3.0)], pooled_share),
            Some((2.0 / 3.0, 2.0 / 3.0))
        );
        assert_eq!(
            Bootstrap::default().interval(&[] as &[(f64, f64)], pooled_share),
            None
        );
        assert_eq!(
            Bootstrap::default().interval(&[(0.0, 0.0)], pooled_share),
            None
        );
    }

    #[test]
    fn percentile_interpolates_between_neighbours() {
        assert_eq!(percentile(&[], 0.5), None);
        assert_eq!(percentile(&[4.0], 0.975), Some(4.0));
        assert_eq!(percentile(&[0.0, 10.0], 0.25), Some(2.5));
        assert_eq!(percentile(&[0.0, 1.0, 2.0, 3.0, 4.0], 1.0), Some(4.0));
    }
}
