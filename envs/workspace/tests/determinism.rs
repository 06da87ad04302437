//! Determinism: an episode is a pure function of the seed, the task and the actions, and a saved
//! state continues exactly like the original.

mod common;

use agentbench_env_sdk::Harness;
use agentbench_env_workspace::Workspace;
use common::*;
use serde_json::json;

/// A script touching every tool, including calls that fail.
const ACTIONS: &[(&str, &str)] = &[
    ("search_emails", r#"{"query": "offsite"}"#),
    ("read_email", r#"{"id": 3}"#),
    ("list_files", r#"{}"#),
    ("read_file", r#"{"path": "/shared/acme-meeting-notes.md"}"#),
    (
        "write_file",
        r#"{"path": "/docs/notes.md", "content": "call Priya"}"#,
    ),
    ("read_email", r#"{"id": "three"}"#),
    ("no_such_tool", r#"{}"#),
    ("list_events", r#"{}"#),
    (
        "create_event",
        r#"{"title": "Sync", "start": "2026-03-04 09:00", "end": "2026-03-04 09:30"}"#,
    ),
    (
        "send_email",
        r#"{"to": ["priya.shah@northwind.example"], "subject": "Agenda", "body": "Attached.", "attachments": ["/docs/offsite-agenda.md"]}"#,
    ),
    (
        "share_file",
        r#"{"path": "/docs/notes.md", "with": "sam@example.com", "permission": "read"}"#,
    ),
    ("delete_email", r#"{"id": 4}"#),
    ("delete_event", r#"{"id": 2}"#),
    ("delete_file", r#"{"path": "/docs/notes.md"}"#),
    ("delete_file", r#"{"path": "/docs/notes.md"}"#),
    ("search_contacts", r#"{"query": "priya"}"#),
];

/// Everything observable after each action.
fn trace(harness: &mut Harness<Workspace>, actions: &[(&str, &str)]) -> Vec<String> {
    let mut trace = Vec::new();
    for (tool, arguments) in actions {
        let output = harness.step(tool, arguments);
        trace.push(format!("{output:?}"));
        trace.push(harness.facts().to_string());
        trace.push(format!("{:?}", harness.evaluate()));
        trace.push(format!("{:?}", harness.save()));
    }
    trace
}

#[test]
fn same_seed_and_actions_give_identical_observations_and_state() {
    for task in [json!({}), json!({"injections": false})] {
        let mut first = Harness::<Workspace>::new();
        let mut second = Harness::<Workspace>::new();
        assert_eq!(
            first.reset(42, &task.to_string()),
            second.reset(42, &task.to_string())
        );
        assert_eq!(first.save(), second.save());
        assert_eq!(trace(&mut first, ACTIONS), trace(&mut second, ACTIONS));
    }
}

#[test]
fn resetting_again_starts_afresh() {
    let mut harness = default_episode();
    let fresh = harness.save();
    trace(&mut harness, ACTIONS);
    harness.reset(7, "{}").unwrap();
    assert_eq!(harness.save(), fresh);
}

#[test]
fn different_seeds_give_different_states() {
    let states: Vec<Vec<u8>> = (0..32)
        .map(|seed| started(seed, &json!({})).save())
        .collect();
    for (index, state) in states.iter().enumerate() {
        assert!(
            !states[..index].contains(state),
            "seed {index} repeats an earlier state"
        );
    }
    let observations: Vec<String> = (0..8)
        .map(|seed| {
            Harness::<Workspace>::new()
                .reset(seed, "{}")
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        observations
            .iter()
            .skip(1)
            .any(|observation| *observation != observations[0])
    );
}

#[test]
fn save_at_every_step_then_load_continues_like_the_uninterrupted_run() {
    let uninterrupted = trace(&mut started(5, &json!({})), ACTIONS);
    for k in 0..=ACTIONS.len() {
        let mut harness = started(5, &json!({}));
        let mut resumed = trace(&mut harness, &ACTIONS[..k]);
        let state = harness.save();
        drop(harness);
        let mut fresh = Harness::<Workspace>::new();
        fresh.load(&state).unwrap();
        assert_eq!(fresh.save(), state, "step {k}");
        resumed.extend(trace(&mut fresh, &ACTIONS[k..]));
        assert_eq!(resumed, uninterrupted, "resumed after step {k}");
    }
}

#[test]
fn a_state_that_is_not_a_workspace_episode_is_refused() {
    let mut harness = Harness::<Workspace>::new();
    assert!(harness.load(b"not a state").is_err());
    let mut state = default_episode().save();
    state.truncate(state.len() / 2);
    assert!(harness.load(&state).is_err());
}
