//! The held-out split: a third of the scenario families, by a hash of the family's name, kept out
//! of everything that learns (`prm train`, the trainer), so that `prm eval` and held-out
//! evaluation measure on scenarios never trained on. The split depends on scenario ids alone, so
//! it is the same on every machine and in every release that keeps the ids.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::Scenario;

/// Which scenarios a set keeps. Scenarios are split into families (a scenario with its twin),
/// and a third of the families, chosen by a hash of the family's name, are held out for testing,
/// so that what learns from the train split (a learned scorer, a trained policy) is measured on
/// scenarios it never saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    All,
    Train,
    Test,
}

impl Split {
    pub fn as_str(self) -> &'static str {
        match self {
            Split::All => "all",
            Split::Train => "train",
            Split::Test => "test",
        }
    }

    /// `scenario` is in this split.
    pub fn keeps(self, scenario: &Scenario) -> bool {
        let family = match &scenario.twin {
            Some(twin) if *twin < scenario.id => twin,
            _ => &scenario.id,
        };
        let test = Sha256::digest(family.as_bytes())[0] % 3 == 0;
        match self {
            Split::All => true,
            Split::Train => !test,
            Split::Test => test,
        }
    }
}

impl std::str::FromStr for Split {
    type Err = String;

    fn from_str(text: &str) -> Result<Split, String> {
        match text {
            "all" => Ok(Split::All),
            "train" => Ok(Split::Train),
            "test" => Ok(Split::Test),
            _ => Err(format!("`{text}` is not a split (all, train, test)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Suite;

    #[test]
    fn the_splits_part_the_scenarios_and_keep_twins_together() {
        let scenarios: Vec<Scenario> = crate::builtin_names()
            .into_iter()
            .flat_map(|name| Suite::builtin(name).unwrap().scenarios)
            .collect();
        let test = scenarios.iter().filter(|s| Split::Test.keeps(s)).count();
        for scenario in &scenarios {
            assert!(Split::All.keeps(scenario));
            assert_ne!(Split::Train.keeps(scenario), Split::Test.keeps(scenario));
            if let Some(twin) = scenarios
                .iter()
                .find(|other| Some(&other.id) == scenario.twin.as_ref())
            {
                assert_eq!(Split::Test.keeps(scenario), Split::Test.keeps(twin));
            }
        }
        // A third of the families, give or take the hash's luck.
        assert!(test * 4 > scenarios.len() && test * 5 / 2 < scenarios.len());
    }
}
