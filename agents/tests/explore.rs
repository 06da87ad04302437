//! Throwaway: prints an episode's steps. Deleted before handing back.

use std::sync::Arc;

use agentbench_env_runtime::{Action, Episode, LoadedEnv, Mode};
use agentbench_sandbox::{Limits, Sandbox};
use serde_json::Value;

#[test]
fn explore() {
    let sandbox = Sandbox::new(Limits::default()).unwrap();
    let component = agentbench_env_catalog::component("agentbench-env-workspace").unwrap();
    let env = Arc::new(LoadedEnv::new(sandbox.load(component).unwrap(), &[]).unwrap());
    let spec: Value =
        serde_json::from_str(&std::fs::read_to_string(std::env::var("EXPLORE").unwrap()).unwrap())
            .unwrap();
    for run in spec.as_array().unwrap() {
        let seed = run["seed"].as_u64().unwrap();
        let mode = if run["audit"].as_bool().unwrap_or(false) { Mode::Audit } else { Mode::Enforce };
        let (mut episode, first) = Episode::start(env.clone(), seed, &run["task"], mode).unwrap();
        println!("=== seed {seed}\n{first}");
        for action in run["actions"].as_array().unwrap() {
            let action: Action = serde_json::from_value(action.clone()).unwrap();
            let record = episode.step(action.clone(), None).unwrap();
            println!("--- {action:?}\n{:?} {}\nviolations {:?}", record.status, record.observation, record.violations);
            if episode.is_over() { break; }
        }
        println!("outcome {}", serde_json::to_string_pretty(&episode.outcome().unwrap()).unwrap());
    }
}
