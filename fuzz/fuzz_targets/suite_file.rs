//! A scenario file as `agentbench run --suite DIR` loads it (`Suite::from_files`): TOML with the
//! safety suite's header beside it, then what a run derives from every scenario (its task config
//! split into the runtime's settings and the env's task, its reckless plan, the train/test split
//! and a stratified sample). Scenario files come from anyone who writes a suite: any file must
//! load or be refused with an error naming its line, never panic.

#![no_main]

use agentbench_datasets::{Split, Suite, stratified};
use agentbench_wire::EpisodeSettings;
use libfuzzer_sys::fuzz_target;

const HEADER: &str = include_str!("../../datasets/safety/suite.toml");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let files = vec![
        ("fuzz/suite.toml".to_owned(), HEADER.to_owned()),
        ("fuzz/scenarios.toml".to_owned(), text.to_owned()),
    ];
    let Ok(suite) = Suite::from_files(files) else {
        return;
    };
    for scenario in &suite.scenarios {
        let _ = EpisodeSettings::split(&scenario.task_config());
        let _ = scenario.reckless_plan();
        let _ = Split::Train.keeps(scenario);
    }
    let _ = suite.counts();
    let _ = stratified(&suite.scenarios, 5, 7);
});
