//! The staleness bound of asynchronous training: generation of batch k + 1 overlaps training on
//! batch k, so a sample may have been produced by a policy a few versions behind the one it
//! updates. A sample more than `max` versions behind is not trained on (AReaL's bounded
//! staleness); `max` 0 is synchronous training.

/// At most this many policy versions between a sample's and the policy's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Staleness {
    pub max: u64,
}

impl Staleness {
    /// A sample produced by `produced_by` may update the policy at `current`. A sample from a
    /// version the policy has not reached yet is refused too: it cannot be this policy's.
    pub fn admits(self, produced_by: u64, current: u64) -> bool {
        current
            .checked_sub(produced_by)
            .is_some_and(|behind| behind <= self.max)
    }

    /// The samples of `batch` (each with the version that produced it) that may update the policy
    /// at `current`, in order, and how many were dropped.
    pub fn admitted<T>(self, batch: Vec<(u64, T)>, current: u64) -> (Vec<T>, usize) {
        let total = batch.len();
        let kept: Vec<T> = batch
            .into_iter()
            .filter(|(produced_by, _)| self.admits(*produced_by, current))
            .map(|(_, sample)| sample)
            .collect();
        let dropped = total - kept.len();
        (kept, dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_older_than_the_bound_or_from_the_future_are_dropped() {
        let bound = Staleness { max: 2 };
        assert!(bound.admits(5, 5));
        assert!(bound.admits(3, 5));
        assert!(!bound.admits(2, 5));
        assert!(!bound.admits(6, 5));
        let (kept, dropped) = bound.admitted(vec![(1, 'a'), (3, 'b'), (4, 'c'), (6, 'd')], 5);
        assert_eq!((kept, dropped), (vec!['b', 'c'], 2));
        // Synchronous: only the current version's samples.
        let sync = Staleness { max: 0 };
        assert_eq!(sync.admitted(vec![(4, 'a'), (5, 'b')], 5), (vec!['b'], 1));
    }
}
