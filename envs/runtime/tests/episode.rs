//! The step pipeline on real envs in the real sandbox: validation, unknown tools, user replies,
//! final messages, budgets, env failures, replay and parking.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use agentbench_env_runtime::testing::{builtin_env, sandbox, unshared_env};
use agentbench_env_runtime::{Action, Episode, LoadedEnv, Mode, RuntimeError, Status, StepRecord};
use agentbench_sandbox::{Limits, Sandbox};

fn workspace() -> Arc<LoadedEnv> {
    builtin_env("workspace")
}

fn tool(name: &str, arguments: Value) -> Action {
    Action::Tool {
        tool: name.to_owned(),
        arguments,
    }
}

fn observation(record: &StepRecord) -> Value {
    serde_json::from_str(record.observation.get()).unwrap()
}

fn start(task: Value) -> Episode {
    Episode::start(workspace(), 1, &task, Mode::Enforce)
        .unwrap()
        .0
}

#[test]
fn a_valid_call_runs_and_reports_the_next_mask() {
    let mut episode = start(json!({}));
    assert_eq!(episode.mask().len(), workspace().manifest().tools.len());
    let record = episode
        .step(
            tool("read_file", json!({"path": "/docs/offsite-agenda.md"})),
            Some(120),
        )
        .unwrap()
        .record;
    assert_eq!(record.status, Status::Ok, "{}", record.observation);
    assert_eq!(record.index, 0);
    assert!(!record.terminated && !record.truncated);
    assert_eq!(record.tokens, Some(120));
    assert!(record.timings.total_us >= record.timings.sandbox_us);
}

#[test]
fn invalid_arguments_are_recorded_with_pointers_and_never_reach_the_env() {
    let mut episode = start(json!({}));
    let before = episode.park().unwrap().state;
    let record = episode
        .step(
            tool(
                "send_email",
                json!({"to": "priya", "subject": 3, "body": "hi", "bcc": []}),
            ),
            None,
        )
        .unwrap()
        .record;
    assert_eq!(record.status, Status::InvalidArguments);
    let pointers: Vec<&str> = record
        .validation
        .iter()
        .map(|issue| issue.pointer.as_str())
        .collect();
    assert!(
        pointers.contains(&"/to") && pointers.contains(&"/subject"),
        "{:?}",
        record.validation
    );
    assert!(
        record
            .validation
            .iter()
            .any(|issue| issue.message.contains("bcc")),
        "{:?}",
        record.validation
    );
    assert_eq!(
        observation(&record)["error"],
        "invalid arguments for `send_email`"
    );
    assert_eq!(
        episode.park().unwrap().state,
        before,
        "the env ran an invalid call"
    );
}

#[test]
fn steps_the_env_never_sees_cost_it_no_work() {
    let mut episode = start(json!({"user_replies": ["yes"]}));
    let fuel = episode.fuel_spent();
    for action in [
        tool("send_email", json!({"to": 3})),
        tool("format_disk", json!({})),
        Action::AskUser {
            question: "May I?".to_owned(),
        },
    ] {
        let record = episode.step(action, None).unwrap().record;
        assert_ne!(record.status, Status::Ok);
    }
    assert_eq!(episode.fuel_spent(), fuel, "the env was called");
    assert_eq!(episode.mask().len(), workspace().manifest().tools.len());
    assert!(episode.history().consented);
    episode.step(tool("list_files", json!({})), None).unwrap();
    assert!(episode.fuel_spent() > fuel);
}

#[test]
fn an_unknown_tool_is_recorded_and_lists_the_tools() {
    let mut episode = start(json!({}));
    let record = episode
        .step(tool("format_disk", json!({})), None)
        .unwrap()
        .record;
    assert_eq!(record.status, Status::UnknownTool);
    let message = observation(&record)["error"].as_str().unwrap().to_owned();
    assert!(
        message.contains("unknown tool `format_disk`") && message.contains("send_email"),
        "{message}"
    );
}

#[test]
fn ask_user_gets_the_scripted_replies_in_order_then_none() {
    let mut episode = start(json!({"user_replies": ["yes, send it", "no"]}));
    let ask = || Action::AskUser {
        question: "may I?".to_owned(),
    };
    let replies: Vec<Value> = (0..3)
        .map(|_| observation(&episode.step(ask(), None).unwrap().record)["reply"].clone())
        .collect();
    assert_eq!(replies, [json!("yes, send it"), json!("no"), Value::Null]);
}

#[test]
fn a_final_message_terminates_and_later_actions_are_refused() {
    let mut episode = start(json!({}));
    let record = episode
        .step(
            Action::Message {
                message: "done".to_owned(),
            },
            None,
        )
        .unwrap()
        .record;
    assert_eq!(record.status, Status::Message);
    assert!(record.terminated && !record.truncated);
    let error = episode
        .step(tool("list_files", json!({})), None)
        .unwrap_err();
    assert!(matches!(error, RuntimeError::EpisodeOver), "{error}");
}

#[test]
fn a_step_returns_the_moments_around_it_and_the_outcome_when_it_ends_the_episode() {
    let mut episode = start(json!({"user_replies": ["yes"]}));
    let asked = episode
        .step(
            Action::AskUser {
                question: "May I?".to_owned(),
            },
            None,
        )
        .unwrap();
    assert!(!asked.before.history.consented && asked.after.history.consented);
    assert_eq!(asked.after.history.steps, 1);
    assert!(asked.outcome.is_none() && !asked.ended());
    let done = episode
        .step(
            Action::Message {
                message: "done".to_owned(),
            },
            None,
        )
        .unwrap();
    assert!(done.ended());
    assert_eq!(done.outcome, Some(episode.outcome().unwrap()));
}

#[test]
fn the_step_budget_truncates() {
    let mut episode = start(json!({"budget": {"max_steps": 2}}));
    assert!(
        !episode
            .step(tool("list_files", json!({})), None)
            .unwrap()
            .record
            .truncated
    );
    let record = episode
        .step(tool("list_files", json!({})), None)
        .unwrap()
        .record;
    assert!(record.truncated && !record.terminated);
    assert!(episode.is_over());
}

#[test]
fn the_token_budget_truncates() {
    let mut episode = start(json!({"budget": {"max_tokens": 1000}}));
    assert!(
        !episode
            .step(tool("list_files", json!({})), Some(600))
            .unwrap()
            .record
            .truncated
    );
    assert!(
        episode
            .step(tool("list_files", json!({})), Some(600))
            .unwrap()
            .record
            .truncated
    );
}

#[test]
fn budgets_are_checked_before_the_action_runs() {
    let delete = || tool("delete_file", json!({"path": "/docs/offsite-agenda.md"}));
    // With a step left, the delete runs: the file exists and the call is allowed.
    let mut allowed = start(json!({"budget": {"max_steps": 1}}));
    let record = allowed.step(delete(), None).unwrap().record;
    assert_eq!(record.status, Status::Ok, "{}", record.observation);
    assert_eq!(record.effects.len(), 1);

    let spent = [
        (json!({"max_steps": 0}), None, "step"),
        (json!({"max_seconds": 0.0}), None, "time"),
        (json!({"max_tokens": 100}), Some(101), "token"),
    ];
    for (budget, tokens, which) in spent {
        let mut episode = start(json!({ "budget": budget }));
        let world = episode.world().unwrap();
        let stepped = episode.step(delete(), tokens).unwrap();
        let record = &stepped.record;
        assert_eq!(record.status, Status::OverBudget, "{budget}");
        assert!(record.effects.is_empty() && record.truncated && !record.terminated);
        let error = observation(record)["error"].as_str().unwrap().to_owned();
        assert!(error.contains(&format!("{which} budget")), "{error}");
        assert_eq!(episode.world().unwrap(), world, "the delete did not run");
        assert!(stepped.outcome.is_some(), "a truncated episode is measured");
        assert!(episode.is_over());
    }
}

#[test]
fn reported_tokens_that_overflow_the_count_saturate() {
    let mut episode = start(json!({"budget": {"max_tokens": u64::MAX}}));
    episode
        .step(tool("list_files", json!({})), Some(5))
        .unwrap();
    let record = episode
        .step(tool("list_files", json!({})), Some(u64::MAX))
        .unwrap()
        .record;
    assert_eq!(record.status, Status::Ok);
    assert_eq!(episode.progress().tokens, u64::MAX);
    assert!(record.truncated, "the saturated count spends the budget");
}

#[test]
fn task_configs_split_between_runtime_and_env_and_bad_ones_are_refused() {
    let mut episode =
        start(json!({"instruction": "Tidy the drive.", "goals": [], "budget": {"max_steps": 3}}));
    assert_eq!(episode.progress().settings.budget.max_steps, Some(3));
    episode.step(tool("list_files", json!({})), None).unwrap();
    for (task, expect) in [
        (
            json!({"budget": {"max_stepz": 3}}),
            "unknown field `max_stepz`",
        ),
        (json!({"no_such_setting": true}), "no_such_setting"),
        (json!([1, 2]), "a task config is a JSON object"),
    ] {
        let error = Episode::start(workspace(), 1, &task, Mode::Enforce).unwrap_err();
        assert!(
            matches!(&error, RuntimeError::InvalidTask(message) if message.contains(expect)),
            "{task}: {error}"
        );
    }
}

#[test]
fn an_env_failure_is_recorded_and_ends_the_episode() {
    let hostile = Arc::new(
        LoadedEnv::new(
            sandbox().load(agentbench_env_fixtures::hostile()).unwrap(),
            &[],
        )
        .unwrap(),
    );
    let (mut episode, _) = Episode::start(hostile, 1, &json!({}), Mode::Enforce).unwrap();
    assert_eq!(
        episode
            .step(tool("echo", json!({})), None)
            .unwrap()
            .record
            .status,
        Status::Ok
    );
    let stepped = episode.step(tool("trap", json!({})), None).unwrap();
    assert!(stepped.outcome.is_none(), "a failed env has no outcome");
    let record = stepped.record;
    assert_eq!(record.status, Status::EnvError);
    assert!(
        observation(&record)["error"]
            .as_str()
            .unwrap()
            .contains("the environment failed")
    );
    assert!(record.truncated);
    assert!(matches!(
        episode.step(tool("echo", json!({})), None),
        Err(RuntimeError::EpisodeOver)
    ));
}

#[test]
fn a_call_past_a_per_call_limit_is_the_agents_error_and_the_episode_goes_on() {
    // Fuel, not the wall clock, must stop the loop: a roomy clock and a small fuel limit.
    let fuel = 50_000_000;
    let limits = Limits {
        fuel_per_call: fuel,
        wall_clock_per_call: Duration::from_secs(60),
        max_memory_bytes: 32 << 20,
        max_instances: 8,
        ..Limits::default()
    };
    let image = Sandbox::new(limits).unwrap();
    let image = image.load(agentbench_env_fixtures::hostile()).unwrap();
    let hostile = Arc::new(LoadedEnv::new(image, &[]).unwrap());
    let (mut episode, _) = Episode::start(hostile.clone(), 1, &json!({}), Mode::Enforce).unwrap();
    let echo = |episode: &mut Episode| {
        let record = episode.step(tool("echo", json!({})), None).unwrap().record;
        observation(&record)["calls"].as_u64().unwrap()
    };
    assert_eq!(echo(&mut episode), 1);
    let mut actions = vec![tool("echo", json!({}))];
    for (misbehaviour, arguments, limit) in [
        ("spin", json!({}), "ran out of fuel"),
        ("grow_memory", json!({}), "memory limit"),
        ("recurse", json!({}), "exhausted its stack"),
        ("huge_output", json!({"bytes": 5 << 20}), "over the limit"),
    ] {
        let fuel_before = episode.fuel_spent();
        let call = tool(misbehaviour, arguments);
        let stepped = episode.step(call.clone(), None).unwrap();
        let record = &stepped.record;
        assert_eq!(record.status, Status::LimitExceeded, "{misbehaviour}");
        let error = observation(record)["error"].as_str().unwrap().to_owned();
        assert!(error.contains(limit), "{misbehaviour}: {error}");
        assert!(!record.truncated && !episode.is_over(), "{misbehaviour}");
        if misbehaviour == "spin" {
            assert!(
                episode.fuel_spent() - fuel_before >= fuel,
                "the replaced instance's fuel still counts"
            );
        }
        actions.push(call);
    }
    // The env is as before the calls: the echo count goes on from 1.
    assert_eq!(echo(&mut episode), 2);
    actions.push(tool("echo", json!({})));
    // Replaying the record meets the same limits (they depend only on the call) and rebuilds
    // the same state.
    let mut replayed = Episode::replay(
        hostile,
        1,
        &json!({}),
        Mode::Enforce,
        actions.iter().map(|action| (action, None)),
    )
    .unwrap();
    let (original, replayed) = (episode.park().unwrap(), replayed.park().unwrap());
    assert_eq!(original.state, replayed.state);
    assert_eq!(original.progress, replayed.progress);
}

const SCRIPT: &[(&str, &str)] = &[
    ("read_email", r#"{"id": 2}"#),
    (
        "write_file",
        r#"{"path": "/docs/notes.md", "content": "call Priya"}"#,
    ),
    ("read_email", r#"{"id": "two"}"#),
    (
        "share_file",
        r#"{"path": "/docs/notes.md", "with": "sam@example.com", "permission": "read"}"#,
    ),
];

fn script() -> Vec<Action> {
    SCRIPT
        .iter()
        .map(|(name, arguments)| tool(name, serde_json::from_str(arguments).unwrap()))
        .collect()
}

#[test]
fn replaying_the_recorded_actions_rebuilds_the_same_state() {
    let mut original = start(json!({}));
    for action in script() {
        original.step(action, Some(10)).unwrap();
    }
    let actions = script();
    let mut replayed = Episode::replay(
        workspace(),
        1,
        &json!({}),
        Mode::Enforce,
        actions.iter().map(|action| (action, Some(10))),
    )
    .unwrap();
    let (original, replayed) = (original.park().unwrap(), replayed.park().unwrap());
    assert_eq!(original.state, replayed.state);
    assert_eq!(original.progress, replayed.progress);
}

#[test]
fn a_parked_episode_continues_exactly_where_it_stopped() {
    let mut uninterrupted = start(json!({}));
    let mut parked_one = start(json!({}));
    let actions = script();
    for action in &actions[..2] {
        uninterrupted.step(action.clone(), None).unwrap();
        parked_one.step(action.clone(), None).unwrap();
    }
    let parked = parked_one.park().unwrap();
    drop(parked_one);
    let mut resumed = Episode::unpark(workspace(), &parked).unwrap();
    for action in &actions[2..] {
        let expected = uninterrupted.step(action.clone(), None).unwrap().record;
        let got = resumed.step(action.clone(), None).unwrap().record;
        assert_eq!(got.observation.get(), expected.observation.get());
        assert_eq!((got.index, got.status), (expected.index, expected.status));
    }
}

/// An episode started on an instance made ahead (instantiated and reset once) plays exactly as
/// one started on a new instance, so that replaying it from its record (on a new one) agrees.
#[test]
fn an_episode_on_a_warm_instance_plays_as_on_a_new_one() {
    let env = unshared_env("workspace");
    assert_eq!(env.keep_warm(1).unwrap(), 1);
    assert_eq!(env.keep_warm(1).unwrap(), 0);
    let task = json!({"user_replies": ["go ahead"]});
    let (mut warm, warm_observation) =
        Episode::start(env.clone(), 3, &task, Mode::Enforce).unwrap();
    assert_eq!(env.warm_count(), 0);
    let (mut new, new_observation) = Episode::start(env, 3, &task, Mode::Enforce).unwrap();
    assert_eq!(warm_observation.get(), new_observation.get());
    for action in script() {
        let (from_warm, from_new) = (
            warm.step(action.clone(), None).unwrap().record,
            new.step(action, None).unwrap().record,
        );
        assert_eq!(from_warm.observation.get(), from_new.observation.get());
        assert_eq!(
            (from_warm.status, from_warm.effects, from_warm.violations),
            (from_new.status, from_new.effects, from_new.violations)
        );
    }
    let (warm, new) = (warm.park().unwrap(), new.park().unwrap());
    assert_eq!(warm.state, new.state);
    assert_eq!(warm.progress, new.progress);
}
