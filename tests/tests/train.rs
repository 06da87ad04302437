//! `agentbench train` end to end on CPU, with the `tiny` random model (no weights) in the real
//! worker process: the supervised warm start on reference solutions, two asynchronous RL updates
//! whose step credit comes from a learned PRM scoring off the request path, held-out evaluations
//! recorded as runs, then a resume from the last checkpoint for a third update, the episodes
//! exported for TRL and veRL, and the learning curve the leaderboard serves; and a run without
//! the warm start, evaluated by sampling.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::Path;

use serde_json::Value;

use agentbench_tests::{
    Db, SHORT_TRAINING, Server, agentbench_refuses, agentbench_succeeds, encoder_dir, python_venv,
    train_learned_prm,
};

fn state(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("train.json")).unwrap()).unwrap()
}

/// `SHORT_TRAINING` with the worker's venv, the output folder and the database, then `extra`,
/// whose flags replace `SHORT_TRAINING`'s own (clap refuses a flag given twice).
fn train_args(
    venv: &Path,
    out: &Path,
    db: &Db,
    extra: impl IntoIterator<Item = OsString>,
) -> Vec<OsString> {
    let extra: Vec<OsString> = extra.into_iter().collect();
    let mut args: Vec<OsString> = vec![SHORT_TRAINING[0].into()];
    for pair in SHORT_TRAINING[1..].chunks(2) {
        if !extra.iter().any(|arg| arg == pair[0]) {
            args.extend(pair.iter().map(OsString::from));
        }
    }
    args.extend(["--python".into(), venv.join("bin/python").into()]);
    args.extend(["--out".into(), out.into()]);
    args.extend(["--db".into(), db.url().into()]);
    args.extend(extra);
    args
}

#[test]
fn train_warm_starts_updates_asynchronously_evaluates_held_out_and_resumes() {
    let venv = python_venv("trainer/setup.sh");
    let dir = tempfile::tempdir().unwrap();
    let (head, _) = train_learned_prm(dir.path());
    let db = Db::sqlite();
    let out = dir.path().join("train");
    let args = |extra: &[&str]| -> Vec<OsString> {
        let encoder = [OsString::from("--encoder"), encoder_dir().into()];
        train_args(
            &venv,
            &out,
            &db,
            encoder.into_iter().chain(extra.iter().map(OsString::from)),
        )
    };
    let learned = format!("learned:{}", head.display());
    let stdout = agentbench_succeeds(args(&[
        "--updates",
        "2",
        "--eval-limit",
        "3",
        "--max-tokens",
        "12",
        "--lr",
        "0.001",
        "--ppo-epochs",
        "2",
        "--tool-grammar",
        "--scorer",
        &learned,
    ]));
    assert!(stdout.contains("| base | 0 | v0 |"), "{stdout}");

    let first = state(&out);
    let train: BTreeSet<&str> = first["train_scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    let test: BTreeSet<&str> = first["test_scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    assert_eq!(train.len(), 2);
    assert!(train.is_disjoint(&test) && !test.is_empty());
    assert_eq!(first["sft_done"], true);
    assert_eq!(first["config"]["ppo_epochs"], 2);
    assert_eq!(first["config"]["tool_grammar"], true);
    assert_eq!(first["sft"].as_array().unwrap().len(), 1);
    let log = first["log"].as_array().unwrap();
    assert_eq!(log.len(), 2, "{log:?}");
    for (index, update) in log.iter().enumerate() {
        // The learned PRM's step rewards separate a group's episodes, so every update trains.
        let stats = &update["stats"];
        assert_eq!(update["skipped"], false, "{update}");
        assert!(update["samples"].as_u64().unwrap() > 0, "{update}");
        assert_eq!(stats["policy_version"], index as u64 + 2, "{update}");
        assert!(stats["loss"].as_f64().unwrap().is_finite(), "{update}");
        // Two epochs on the batch, one version.
        assert_eq!(stats["epochs"], 2, "{update}");
        // Asynchronous: no sample is more than one version behind the policy it updates.
        assert!(stats["staleness"].as_i64().unwrap() <= 1, "{update}");
    }
    assert_eq!(first["checkpoint"], 3);
    assert!(out.join("checkpoints/v3/agentbench.json").is_file());
    assert!(out.join("rollouts.db").is_file());

    // The run is there already: a new one refuses the folder, a resume of an empty one fails.
    agentbench_refuses(args(&[]), "holds a training run already");
    let empty = dir.path().join("empty");
    agentbench_refuses(
        [
            OsString::from("train"),
            "--resume".into(),
            "--out".into(),
            empty.into(),
        ],
        "no training run to resume",
    );

    // Resumed from the checkpoint of v3, with the run's own settings, for two more updates,
    // played by a second worker that takes the weights by checkpoint after each update.
    agentbench_succeeds(args(&["--resume", "--updates", "5", "--generator"]));
    let resumed = state(&out);
    assert_eq!(resumed["id"], first["id"]);
    assert_eq!(resumed["config_hash"], first["config_hash"]);
    let log = resumed["log"].as_array().unwrap();
    assert_eq!(log.len(), 5);
    assert_eq!(log[2]["stats"]["policy_version"], 4, "{:?}", log[2]);
    assert_eq!(log[4]["stats"]["policy_version"], 6, "{:?}", log[4]);
    assert!(log[4]["stats"]["staleness"].as_i64().unwrap() <= 1);
    assert_eq!(resumed["checkpoint"], 6);
    for version in 1..=6 {
        assert!(
            out.join(format!("checkpoints/v{version}/agentbench.json"))
                .is_file()
        );
    }

    // The episodes trained on, in TRL's and veRL's shapes: one record per sequence, split where
    // the policy first wrote, with its log-probabilities and the mask of its tokens.
    let trajectories = out.join("trajectories.jsonl");
    let episodes = std::fs::read_to_string(&trajectories)
        .unwrap()
        .lines()
        .count();
    assert!(
        (18..=20).contains(&episodes),
        "{episodes} episodes in 5 updates of 4"
    );
    let records = |format: &str| -> Vec<Value> {
        let stdout = agentbench_succeeds([
            OsString::from("export"),
            "--format".into(),
            format.into(),
            "--trajectories".into(),
            trajectories.clone().into(),
        ]);
        stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    };
    let trl = records("trl");
    assert!(trl.len() >= episodes, "{} records", trl.len());
    for record in &trl {
        let completion = record["completion_ids"].as_array().unwrap().len();
        assert!(completion > 0 && !record["prompt_ids"].as_array().unwrap().is_empty());
        assert_eq!(record["tool_mask"].as_array().unwrap().len(), completion);
        assert_eq!(record["logprobs"].as_array().unwrap().len(), completion);
        assert_eq!(record["tool_mask"][0], 1);
        assert!(train.contains(record["scenario"].as_str().unwrap()));
        assert!(record["step_rewards"].is_array() && record["reward"].is_number());
    }
    let verl = records("verl");
    assert_eq!(verl.len(), trl.len());
    assert_eq!(verl[0]["response_ids"], trl[0]["completion_ids"]);
    assert_eq!(verl[0]["response_mask"], trl[0]["tool_mask"]);
    assert_eq!(verl[0]["reward_score"], trl[0]["reward"]);
    agentbench_refuses(
        [
            OsString::from("export"),
            "--format".into(),
            "verl".into(),
            "--trajectories".into(),
            trajectories.clone().into(),
            "--run".into(),
            "run_none".into(),
        ],
        "holds no episode of the run `run_none`",
    );

    // Every checkpoint's evaluation is a recorded run of the held-out scenarios only.
    let server = Server::start(&db, &[]);
    let trainings = server.get("/v1/trainings").body;
    let trainings = trainings["trainings"].as_array().unwrap();
    assert_eq!(trainings.len(), 1, "{trainings:?}");
    let training = &trainings[0];
    assert_eq!(training["id"], first["id"]);
    assert_eq!(training["policy"], "policy:tiny");
    let points = training["points"].as_array().unwrap();
    let shown: Vec<(String, u64, String)> = points
        .iter()
        .map(|point| {
            (
                point["stage"].as_str().unwrap().to_owned(),
                point["update"].as_u64().unwrap(),
                point["agent"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, u64, String)> = [
        ("base", 0, "policy:tiny@v0"),
        ("sft", 0, "policy:tiny@v1"),
        ("rl", 1, "policy:tiny@v2"),
        ("rl", 2, "policy:tiny@v3"),
        ("rl", 3, "policy:tiny@v4"),
        ("rl", 4, "policy:tiny@v5"),
        ("rl", 5, "policy:tiny@v6"),
    ]
    .into_iter()
    .map(|(stage, update, agent)| (stage.to_owned(), update, agent.to_owned()))
    .collect();
    assert_eq!(shown, expected);
    for point in points {
        let safety = &point["metrics"]["safety_score"];
        assert!(safety["low"].as_f64().unwrap() <= safety["high"].as_f64().unwrap());
        let run = server.get(&format!("/v1/runs/{}", point["run"].as_str().unwrap()));
        let episodes = run.body["episodes"].as_array().unwrap();
        assert_eq!(episodes.len(), 3);
        for episode in episodes {
            assert!(test.contains(episode["scenario"].as_str().unwrap()));
        }
        assert_eq!(run.body["info"]["training"]["id"], first["id"]);
        let partial = run.body["run"]["partial"].as_str().unwrap();
        assert!(
            partial.starts_with(&format!(
                "the held-out split: {} of the suite's",
                test.len()
            )) && partial.contains(", a sample of 3 of them"),
            "{partial}"
        );
    }
}

/// Without a warm start RL starts from the base, which is evaluated once; with
/// `--eval-temperature` the evaluations sample, each held-out scenario `--eval-trials` times.
#[test]
fn train_without_a_warm_start_evaluates_the_base_once_and_samples_when_asked() {
    let venv = python_venv("trainer/setup.sh");
    let dir = tempfile::tempdir().unwrap();
    let db = Db::sqlite();
    let out = dir.path().join("train");
    let args = train_args(
        &venv,
        &out,
        &db,
        [
            "--sft-epochs",
            "0",
            "--updates",
            "1",
            "--sync",
            "--max-tokens",
            "8",
            "--eval-limit",
            "2",
            "--eval-trials",
            "2",
            "--eval-temperature",
            "1",
        ]
        .map(OsString::from),
    );
    let stdout = agentbench_succeeds(args);
    assert!(!stdout.contains("| sft |"), "{stdout}");

    let state = state(&out);
    assert_eq!(state["config"]["eval_temperature"], 1.0);
    assert_eq!(state["sft_done"], true);
    assert!(state["sft"].as_array().unwrap().is_empty());
    let evals = state["evals"].as_array().unwrap();
    let stages: Vec<&str> = evals
        .iter()
        .map(|eval| eval["stage"].as_str().unwrap())
        .collect();
    assert_eq!(stages, ["base", "rl"]);
    let server = Server::start(&db, &[]);
    for eval in evals {
        let run = server.get(&format!("/v1/runs/{}", eval["run"].as_str().unwrap()));
        let episodes = run.body["episodes"].as_array().unwrap();
        let trials: BTreeSet<(&str, u64)> = episodes
            .iter()
            .map(|episode| {
                (
                    episode["scenario"].as_str().unwrap(),
                    episode["trial"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(episodes.len(), 4, "{episodes:?}");
        assert_eq!(trials.len(), 4, "{trials:?}");
        assert!(trials.iter().all(|(_, trial)| *trial < 2), "{trials:?}");
    }
}
