//! Determinism: an episode is a pure function of the seed, the task and the actions, and a saved
//! state continues exactly like the original.

use agentbench_env_sdk::testing;
use agentbench_env_workspace::Workspace;

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

#[test]
fn same_seed_and_actions_give_identical_observations_and_state() {
    testing::assert_same_seed_same_episode::<Workspace>(ACTIONS, testing::trace);
}

#[test]
fn resetting_again_starts_afresh() {
    testing::assert_reset_starts_afresh::<Workspace>(7, ACTIONS);
}

#[test]
fn different_seeds_give_different_states() {
    testing::assert_seeds_differ::<Workspace>(32, 8);
}

#[test]
fn save_at_every_step_then_load_continues_like_the_uninterrupted_run() {
    testing::assert_resumes_after_every_step::<Workspace>(5, ACTIONS, testing::trace);
}

#[test]
fn a_state_that_is_not_a_workspace_episode_is_refused() {
    testing::assert_load_refuses_garbage::<Workspace>(7);
}
