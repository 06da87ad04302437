//! Step scorers beyond the rule scorer, end to end: a learned PRM trained with `agentbench prm
//! train` and run by `agentbench serve --scorer` off the request path, and a judge PRM asking a
//! real OpenAI-compatible server.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use agentbench_datasets::{Kind, Suite};
use agentbench_tests::{
    AgentServer, Db, PRM_MEASURES, Server, agentbench_binary, agentbench_refuses,
    agentbench_succeeds, encoder_dir, train_learned_prm,
};

#[test]
fn a_served_episode_is_scored_by_the_learned_prm_after_its_steps_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    let (head, _) = train_learned_prm(dir.path());
    let encoder = encoder_dir().to_str().unwrap();

    let db = Db::sqlite();
    let spec = format!("learned:{}", head.display());
    let server = Server::start(&db, &["--scorer", &spec, "--encoder", encoder]);
    let suite = Suite::builtin("safety").unwrap();
    let scenario = suite
        .scenarios
        .iter()
        .find(|scenario| scenario.kind == Kind::Attack && scenario.env == "workspace")
        .unwrap();
    let id = server.create(&json!({
        "env": scenario.env,
        "seed": scenario.seed,
        "task": scenario.task_config(),
        "mode": "audit",
    }));
    let plan = scenario.reckless_plan();
    for action in &plan {
        let answer = server.step(&id, &json!({"action": action}));
        assert_eq!(answer.status, 200, "{}", answer.body);
        // The answer carries the inline scores only: it did not wait for the learned PRM.
        let scorers: Vec<&Value> = answer.body["scores"]
            .as_array()
            .unwrap()
            .iter()
            .map(|score| &score["scorer"])
            .collect();
        assert_eq!(scorers, ["rules"], "{}", answer.body);
        if answer.body["terminated"] == true {
            break;
        }
    }

    // The background scorer catches up; every step then has both scores.
    let started = Instant::now();
    let episode = loop {
        let episode = server.episode(&id);
        let scored = episode["steps"].as_array().unwrap().iter().all(|step| {
            step["scores"]
                .as_array()
                .is_some_and(|scores| scores.iter().any(|score| score["scorer"] == "learned"))
        });
        if scored {
            break episode;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no learned scores after two minutes: {episode:#}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let steps = episode["steps"].as_array().unwrap();
    assert!(!steps.is_empty());
    let learned: Vec<f64> = steps
        .iter()
        .map(|step| step["scores"][1]["reward"].as_f64().unwrap())
        .collect();
    assert!(learned.iter().all(|reward| (-1.0..=0.0).contains(reward)));
    // Following the attack did harm somewhere, and the learned PRM saw it.
    assert!(
        learned.iter().any(|reward| *reward < -0.5),
        "{learned:?}: {episode:#}"
    );
    assert_eq!(
        db.number("SELECT count(*) FROM step_scores"),
        steps.len() as i64
    );
}

#[test]
fn serve_refuses_a_scorer_it_cannot_run_off_the_request_path() {
    for (spec, expected) in [
        ("rules", "scores every step inline already"),
        ("oracle", "is not a step scorer"),
    ] {
        agentbench_refuses(
            ["serve", "--addr", "127.0.0.1:0", "--scorer", spec],
            expected,
        );
    }
}

/// `agentbench agent serve` is a real OpenAI-compatible server, but a scripted baseline, not a
/// judge: it answers the judge's questions with a 400 (no scenario has that instruction). Every
/// step must then be unmeasured by the judge, with the server's reason, and none counted safe.
#[test]
fn a_judge_that_gets_no_verdicts_leaves_every_step_unmeasured_never_safe() {
    let server = AgentServer::start("oracle");
    let report: Value = serde_json::from_str(&agentbench_succeeds([
        "prm",
        "eval",
        "--scorer",
        "judge:openai:oracle",
        "--judge-base-url",
        &server.base_url,
        "--json",
        "safety",
    ]))
    .unwrap();
    assert_eq!(report["scorer"], "judge");
    assert_eq!(report["version"], "1:oracle");
    assert!(report["steps"].as_u64().unwrap() > 100, "{report:#}");
    assert_eq!(report["unmeasured_steps"], report["steps"], "{report:#}");
    // Nothing measured, so nothing to report: no accuracy, no AUROC, no pairs.
    for key in PRM_MEASURES {
        assert!(report[key].is_null(), "{key}: {report:#}");
    }
    assert_eq!(report["pairs"], 0);

    // Rescoring a run with it stores every step as unmeasured, with why.
    let db = Db::sqlite();
    let url = db.url();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = std::process::Command::new(agentbench_binary())
        .args([
            "run", "--suite", "safety", "--agent", "oracle", "--limit", "4", "--db", &url,
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_ne!(
        run.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    agentbench_succeeds([
        "rescore",
        "--run",
        report["run"]["id"].as_str().unwrap(),
        "--scorer",
        "judge:openai:oracle",
        "--db",
        &url,
        "--judge-base-url",
        &server.base_url,
    ]);
    let steps = db.number("SELECT count(*) FROM steps");
    assert!(steps > 0);
    assert_eq!(
        db.number("SELECT count(*) FROM step_scores WHERE unmeasured LIKE '%400%'"),
        steps
    );
}
