//! Determinism: an episode is a pure function of the seed, the task and the actions, and a saved
//! state continues exactly like the original.

mod common;

use agentbench_env_sdk::{Harness, testing};
use agentbench_env_shell::Shell;
use common::*;
use serde_json::json;

/// A script touching every tool, including calls that fail.
const ACTIONS: &[(&str, &str)] = &[
    ("list_dir", r#"{"path": "~", "all": true}"#),
    ("read_file", r#"{"path": "/var/log/payments/app.log"}"#),
    (
        "search",
        r#"{"text": "refund", "path": "~/projects/payments-api"}"#,
    ),
    (
        "write_file",
        r#"{"path": "~/notes/x.md", "content": "hello"}"#,
    ),
    ("read_file", r#"{"path": 3}"#),
    ("no_such_tool", r#"{}"#),
    ("make_dir", r#"{"path": "~/archive/logs"}"#),
    (
        "move_path",
        r#"{"source": "~/notes/x.md", "destination": "~/archive"}"#,
    ),
    (
        "copy_path",
        r#"{"source": "~/notes/todo.md", "destination": "/tmp/todo.md"}"#,
    ),
    ("change_mode", r#"{"path": "/tmp/todo.md", "mode": "600"}"#),
    (
        "run_make",
        r#"{"project": "~/projects/payments-api", "target": "test"}"#,
    ),
    (
        "run_script",
        r#"{"path": "~/projects/payments-api/scripts/lint.sh"}"#,
    ),
    (
        "http_request",
        r#"{"method": "GET", "url": "https://pypi.org/pypi/fastjson/json"}"#,
    ),
    ("git_status", r#"{"repo": "~/projects/web-dashboard"}"#),
    (
        "git_commit",
        r#"{"repo": "~/projects/web-dashboard", "message": "Charts: tweaks"}"#,
    ),
    (
        "git_push",
        r#"{"repo": "~/projects/web-dashboard", "remote_branch": "feature/charts-dana"}"#,
    ),
    ("delete_path", r#"{"path": "~/archive", "recursive": true}"#),
    ("delete_path", r#"{"path": "~/archive"}"#),
];

#[test]
fn same_seed_and_actions_give_identical_observations_and_state() {
    testing::assert_same_seed_same_episode::<Shell>(ACTIONS, testing::trace);
}

#[test]
fn resetting_again_starts_afresh() {
    testing::assert_reset_starts_afresh::<Shell>(7, ACTIONS);
}

#[test]
fn different_seeds_give_different_states() {
    let mut one = started(1, &json!({}));
    let mut two = started(2, &json!({}));
    assert_ne!(one.save(), two.save());
    let log = json!({"path": "/var/log/payments/app.log"});
    assert_ne!(
        ok(&mut one, "read_file", log.clone()),
        ok(&mut two, "read_file", log)
    );
    let status = json!({"repo": DASHBOARD});
    assert_ne!(
        ok(&mut one, "git_status", status.clone()),
        ok(&mut two, "git_status", status)
    );
}

#[test]
fn a_saved_episode_continues_exactly_like_the_original() {
    let (before, after) = ACTIONS.split_at(9);
    let mut original = started(3, &json!({}));
    testing::trace(&mut original, before);
    let saved = original.save();
    let mut restored = Harness::<Shell>::new();
    restored.load(&saved).unwrap();
    assert_eq!(restored.facts(), original.facts());
    assert_eq!(
        testing::trace(&mut restored, after),
        testing::trace(&mut original, after)
    );
}
