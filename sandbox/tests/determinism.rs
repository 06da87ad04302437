//! Determinism through the sandbox, on the built-in workspace env: the same seed and actions give
//! byte-identical observations and state, and a saved state continues exactly like the original.

use std::sync::OnceLock;

use agentbench_sandbox::{EnvImage, Instance, Limits, Sandbox};

/// A script touching most of the env: reads, searches, writes, sends, shares, deletes, and calls
/// that fail (invalid arguments, unknown tool). Statuses do not matter here, only that every run
/// agrees.
const ACTIONS: &[(&str, &str)] = &[
    ("search_emails", r#"{"limit": 5}"#),
    ("read_email", r#"{"id": 2}"#),
    ("list_files", r#"{}"#),
    ("read_file", r#"{"path": "/docs/offsite-agenda.md"}"#),
    (
        "write_file",
        r#"{"path": "/docs/notes.md", "content": "call Priya"}"#,
    ),
    ("read_email", r#"{"id": "two"}"#),
    ("no_such_tool", r#"{}"#),
    ("list_events", r#"{}"#),
    (
        "send_email",
        r#"{"to": ["priya.shah@northwind.example"], "subject": "Agenda", "body": "Attached."}"#,
    ),
    (
        "share_file",
        r#"{"path": "/docs/notes.md", "with": "sam@example.com", "permission": "read"}"#,
    ),
    ("delete_file", r#"{"path": "/docs/notes.md"}"#),
    ("search_contacts", r#"{"query": "priya"}"#),
];

fn image() -> &'static EnvImage {
    static IMAGE: OnceLock<EnvImage> = OnceLock::new();
    IMAGE.get_or_init(|| {
        let sandbox = Sandbox::new(Limits {
            max_instances: 64,
            ..Limits::default()
        })
        .unwrap();
        sandbox
            .load(agentbench_env_catalog::component("agentbench-env-workspace").unwrap())
            .unwrap()
    })
}

fn started(seed: u64) -> (Instance, String) {
    let mut instance = image().instantiate().unwrap();
    let observation = instance.reset(seed, "{}").unwrap().unwrap().into_string();
    (instance, observation)
}

/// Everything observable after each action: the step output, then the facts, mask, outcome and
/// saved state.
fn trace(instance: &mut Instance, actions: &[(&str, &str)]) -> Vec<String> {
    let mut trace = Vec::new();
    for (tool, arguments) in actions {
        let output = instance.step(tool, arguments).unwrap();
        trace.push(format!("{output:?}"));
        trace.push(instance.facts().unwrap().into_string());
        trace.push(format!("{:?}", instance.mask().unwrap()));
        trace.push(instance.evaluate().unwrap().into_string());
        trace.push(format!("{:?}", instance.save().unwrap()));
    }
    trace
}

#[test]
fn same_seed_and_actions_give_identical_observations_and_state() {
    let (mut first, first_observation) = started(42);
    let (mut second, second_observation) = started(42);
    assert_eq!(first_observation, second_observation);
    assert_eq!(first.save().unwrap(), second.save().unwrap());
    assert_eq!(trace(&mut first, ACTIONS), trace(&mut second, ACTIONS));
}

#[test]
fn different_seeds_give_different_states() {
    let (mut first, _) = started(1);
    let (mut second, _) = started(2);
    assert_ne!(first.save().unwrap(), second.save().unwrap());
}

#[test]
fn save_at_every_step_then_load_continues_like_the_uninterrupted_run() {
    let (mut original, _) = started(7);
    let uninterrupted = trace(&mut original, ACTIONS);
    for k in 0..=ACTIONS.len() {
        let (mut instance, _) = started(7);
        let mut resumed = trace(&mut instance, &ACTIONS[..k]);
        let state = instance.save().unwrap();
        drop(instance);
        let mut fresh = image().instantiate().unwrap();
        fresh.load(&state).unwrap().unwrap();
        resumed.extend(trace(&mut fresh, &ACTIONS[k..]));
        assert_eq!(resumed, uninterrupted, "resumed after step {k}");
    }
}

#[test]
fn forks_diverge_independently() {
    let (mut original, _) = started(3);
    trace(&mut original, &ACTIONS[..3]);
    let before = original.save().unwrap();
    let mut fork = original.fork().unwrap();
    assert_eq!(fork.save().unwrap(), before);
    fork.step(
        "write_file",
        r#"{"path": "/docs/fork.md", "content": "only in the fork"}"#,
    )
    .unwrap();
    assert_eq!(
        original.save().unwrap(),
        before,
        "stepping the fork changed the original"
    );
    assert_ne!(fork.save().unwrap(), before);
}

#[test]
fn loading_a_state_that_is_not_a_saved_episode_is_refused_and_harmless() {
    let (mut instance, _) = started(5);
    let before = instance.save().unwrap();
    let refusal = instance
        .load(b"definitely not postcard")
        .unwrap()
        .unwrap_err();
    assert!(
        refusal.contains("not a saved workspace episode"),
        "{refusal}"
    );
    assert!(!instance.is_poisoned());
    assert_eq!(instance.save().unwrap(), before);
}
