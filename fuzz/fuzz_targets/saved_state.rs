//! A parked episode's saved state as a built-in env loads it back (`Harness::load`, the SDK code
//! every guest runs in its `load` export; postcard). The host keeps the bytes a guest saved and
//! hands them back, so a state must load or be refused with an error, never panic or allocate
//! without bound, and a state that loads must save to bytes that load to the same state.
//!
//! The first byte picks the env; its base state is the first safety scenario of that env, just
//! reset. The rest patches it: each 3 bytes write a byte at a position (big-endian u16, modulo
//! the length); 1 or 2 bytes left over cut that many times 8 bytes off the end.

#![no_main]

use std::sync::OnceLock;

use agentbench_datasets::Suite;
use agentbench_env_sdk::{Env, Harness};
use agentbench_wire::EpisodeSettings;
use libfuzzer_sys::fuzz_target;

/// The env's state just after reset to its first safety scenario.
fn base_state<E: Env>() -> Vec<u8> {
    let suite = Suite::builtin("safety").expect("the safety suite loads");
    let scenario = (suite.scenarios.iter())
        .find(|scenario| scenario.env == E::NAME)
        .expect("every built-in env has a safety scenario");
    let (_, task) = EpisodeSettings::split(&scenario.task_config()).expect("a valid task");
    let mut harness = Harness::<E>::new();
    harness
        .reset(0, &task.to_string())
        .expect("a safety scenario's task resets its env");
    harness.save()
}

fn check<E: Env>(base: &OnceLock<Vec<u8>>, patches: &[u8]) {
    let mut state = base.get_or_init(base_state::<E>).clone();
    let mut chunks = patches.chunks_exact(3);
    for patch in &mut chunks {
        let at = usize::from(u16::from_be_bytes([patch[0], patch[1]])) % state.len();
        state[at] = patch[2];
    }
    let cut = chunks.remainder().len() * 8;
    state.truncate(state.len().saturating_sub(cut));

    let mut harness = Harness::<E>::new();
    if harness.load(&state).is_err() {
        return;
    }
    let saved = harness.save();
    let mut again = Harness::<E>::new();
    again.load(&saved).expect("a state the env saved loads");
    assert_eq!(again.save(), saved, "a loaded state saves to other bytes");
}

fuzz_target!(|data: &[u8]| {
    static BASES: [OnceLock<Vec<u8>>; 8] = [const { OnceLock::new() }; 8];
    let Some((&env, patches)) = data.split_first() else {
        return;
    };
    match env % 8 {
        0 => check::<agentbench_env_banking::Banking>(&BASES[0], patches),
        1 => check::<agentbench_env_browsing::Browsing>(&BASES[1], patches),
        2 => check::<agentbench_env_cloud::Cloud>(&BASES[2], patches),
        3 => check::<agentbench_env_crm::Crm>(&BASES[3], patches),
        4 => check::<agentbench_env_messaging::Messaging>(&BASES[4], patches),
        5 => check::<agentbench_env_shell::Shell>(&BASES[5], patches),
        6 => check::<agentbench_env_support::Support>(&BASES[6], patches),
        _ => check::<agentbench_env_workspace::Workspace>(&BASES[7], patches),
    }
});
