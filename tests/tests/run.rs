//! `agentbench run` as a CI job runs it: the binary, the built-in safety suite, the scripted
//! baselines, the default gate and the files it writes; its exit codes are the point.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use agentbench_tests::{
    AgentServer, Db, Server, agentbench_binary, encoder_dir, explain, number_at, train_learned_prm,
};

fn agentbench(args: &[&str]) -> Output {
    Command::new(agentbench_binary())
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap()
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("an exit code")
}

fn db_url(dir: &Path) -> String {
    format!("sqlite://{}", dir.join("runs.db").display())
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn run_baseline(dir: &Path, agent: &str, extra: &[&str]) -> Output {
    let out = dir.join(agent);
    let db = db_url(dir);
    let mut args = vec![
        "run",
        "--suite",
        "safety",
        "--agent",
        agent,
        "--gate",
        "default",
        "--db",
        &db,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    agentbench(&args)
}

#[test]
fn oracle_passes_the_default_gate_and_writes_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_baseline(dir.path(), "oracle", &[]);
    assert_eq!(code(&output), 0, "{}", explain(&output));
    let out = dir.path().join("oracle");

    let report = read_json(&out.join("report.json"));
    let n_scenarios = report["episodes"].as_array().unwrap().len();
    assert!(n_scenarios >= 10, "{n_scenarios} episodes");
    assert_eq!(report["gate"]["passed"], true);
    assert_eq!(report["metrics"]["unmeasured"], 0);
    assert_eq!(report["metrics"]["overall"]["safety_score"]["value"], 1.0);
    assert_eq!(report["metrics"]["overall"]["harm_rate"]["value"], 0.0);
    assert_eq!(report["run"]["suite"], "safety");
    assert_eq!(report["run"]["suite_hash"].as_str().unwrap().len(), 64);

    let lines = read_lines(&out.join("episodes.jsonl"));
    assert_eq!(lines.len(), n_scenarios);
    for line in &lines {
        assert!(
            line["scenario"].is_string() && line["category"].is_string(),
            "{line}"
        );
        assert_eq!(line["measured"], true, "{line}");
        assert!(
            line["episode"].as_str().unwrap().starts_with("ep_"),
            "{line}"
        );
    }

    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert!(junit.contains("failures=\"0\""), "{junit}");
    assert!(
        junit.contains("<testcase classname=\"gate\" name=\"safety_score &gt;= 0.75\""),
        "{junit}"
    );
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("✅ gate passed"), "{summary}");
    assert!(summary.contains("| safety_score | 1.000"), "{summary}");
}

#[test]
fn reckless_fails_the_default_gate_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_baseline(dir.path(), "reckless", &["--mode", "audit"]);
    assert_eq!(code(&output), 1, "{}", explain(&output));
    let report = read_json(&dir.path().join("reckless/report.json"));
    assert_eq!(report["gate"]["passed"], false);
    assert!(
        report["metrics"]["overall"]["attack_success_rate"]["value"]
            .as_f64()
            .unwrap()
            > 0.5
    );
    let junit = std::fs::read_to_string(dir.path().join("reckless/junit.xml")).unwrap();
    assert!(junit.contains("<failure message="), "{junit}");
    let summary = std::fs::read_to_string(dir.path().join("reckless/summary.md")).unwrap();
    assert!(summary.contains("❌ gate failed"), "{summary}");

    // Its steps, labelled exactly by replay: from the files the run wrote, and from the database.
    let from_file = dir.path().join("labels.jsonl");
    let episodes = dir.path().join("reckless/episodes.jsonl");
    let output = agentbench(&[
        "label",
        episodes.to_str().unwrap(),
        "--out",
        from_file.to_str().unwrap(),
    ]);
    assert_eq!(code(&output), 0, "{}", explain(&output));
    let recorded = read_lines(&episodes);
    let labels = read_lines(&from_file);
    assert_eq!(labels.len(), recorded.len());
    let (mut attacks, mut harmful) = (0, 0);
    for (labels, recorded) in labels.iter().zip(&recorded) {
        attacks += usize::from(recorded["kind"] == "attack");
        assert_eq!(labels["scenario"], recorded["scenario"]);
        // The replay is the episode: it comes to the outcome the run recorded.
        assert_eq!(
            labels["outcome"], recorded["outcome"],
            "{}",
            labels["scenario"]
        );
        let steps = labels["steps"].as_array().unwrap();
        assert_eq!(steps.len() as u64, recorded["steps"].as_u64().unwrap());
        // Harm was done if and only if some step did it, and the first such step is named.
        let harms_done = !labels["outcome"]["harms"].as_array().unwrap().is_empty();
        assert_eq!(labels["first_harmful"].is_u64(), harms_done, "{labels}");
        if let Some(first) = labels["first_harmful"].as_u64() {
            let first = first as usize;
            assert_eq!(steps[first]["harmful"], true);
            assert!(steps[..first].iter().all(|step| step["harmful"] == false));
            harmful += 1;
        }
    }
    assert!(
        harmful * 2 > attacks,
        "{harmful} harmful, {attacks} attacks"
    );

    let from_db = dir.path().join("labels-db.jsonl");
    let run_id = report["run"]["id"].as_str().unwrap();
    let db = db_url(dir.path());
    let output = agentbench(&[
        "label",
        run_id,
        "--db",
        &db,
        "--out",
        from_db.to_str().unwrap(),
    ]);
    assert_eq!(code(&output), 0, "{}", explain(&output));
    let key = |line: &Value| (line["scenario"].to_string(), line["trial"].as_u64());
    let mut by_file = labels.clone();
    let mut by_db = read_lines(&from_db);
    by_file.sort_by_key(key);
    by_db.sort_by_key(key);
    assert_eq!(by_file, by_db);

    // Monte Carlo labels beside the exact ones: four continuations by `wavering` from each step.
    let with_mc = dir.path().join("labels-mc.jsonl");
    let output = agentbench(&[
        "label",
        episodes.to_str().unwrap(),
        "--out",
        with_mc.to_str().unwrap(),
        "--mc",
        "4",
    ]);
    assert_eq!(code(&output), 0, "{}", explain(&output));
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("4 continuations by `wavering`"),
        "{}",
        explain(&output)
    );
    let (mut between, mut steps_valued) = (0, 0);
    for (mut with_mc, exact) in read_lines(&with_mc).into_iter().zip(&labels) {
        assert_eq!(with_mc["monte_carlo"], json!({"agent": "wavering", "k": 4}));
        let first = with_mc["first_harmful"]
            .as_u64()
            .map(|first| first as usize);
        for (index, step) in with_mc["steps"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            let value = step["mc_value"].as_f64().unwrap();
            steps_valued += 1;
            between += usize::from(value > 0.0 && value < 1.0);
            // No continuation undoes harm already done.
            if first.is_some_and(|first| index >= first) {
                assert_eq!(value, 0.0, "{step}");
            }
            let object = step.as_object_mut().unwrap();
            object.remove("mc_value");
            object.remove("mc_measured");
        }
        with_mc.as_object_mut().unwrap().remove("monte_carlo");
        // The exact labels are the same with or without them.
        assert_eq!(&with_mc, exact);
    }
    assert!(
        between > 0,
        "no step of {steps_valued} has a value between 0 and 1"
    );
}

#[test]
fn rescoring_a_run_stores_a_learned_prms_scores_beside_the_recorded_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (head, _) = train_learned_prm(dir.path());
    let encoder = encoder_dir().to_str().unwrap();
    let spec = format!("learned:{}", head.display());
    for db in [Db::sqlite(), Db::postgres()] {
        let url = db.url();
        let out = dir.path().join("out");
        let output = agentbench(&[
            "run",
            "--suite",
            "safety",
            "--agent",
            "reckless",
            "--mode",
            "audit",
            "--limit",
            "12",
            "--db",
            &url,
            "--out",
            out.to_str().unwrap(),
        ]);
        // Passed or failed, the gate is not the point here; every episode was measured.
        assert_ne!(code(&output), 2, "{}", explain(&output));
        let report = read_json(&out.join("report.json"));
        let run_id = report["run"]["id"].as_str().unwrap();
        let rescore = || {
            agentbench(&[
                "rescore",
                "--run",
                run_id,
                "--scorer",
                &spec,
                "--encoder",
                encoder,
                "--db",
                &url,
            ])
        };
        let output = rescore();
        assert_eq!(code(&output), 0, "{}", explain(&output));
        let steps = db.number("SELECT count(*) FROM steps");
        assert_eq!(db.number("SELECT count(*) FROM step_scores"), steps);
        // Scoring again replaces the scores of the same version: nothing doubles.
        assert_eq!(code(&rescore()), 0);
        assert_eq!(db.number("SELECT count(*) FROM step_scores"), steps);

        // The episode's view shows both scorers side by side, the recorded one first.
        let server = Server::start(&db, &[]);
        let mut flagged = 0;
        for line in read_lines(&out.join("episodes.jsonl")) {
            let episode = server.episode(line["episode"].as_str().unwrap());
            for step in episode["steps"].as_array().unwrap() {
                let scores = step["scores"].as_array().unwrap();
                let scorers: Vec<&str> = scores
                    .iter()
                    .map(|s| s["scorer"].as_str().unwrap())
                    .collect();
                assert_eq!(scorers, ["rules", "learned"], "{step}");
                let learned = scores[1]["reward"].as_f64().unwrap();
                assert!((-1.0..=0.0).contains(&learned), "{step}");
                flagged += usize::from(learned < -0.5);
            }
        }
        assert!(flagged > 0, "reckless does harm the learned PRM should see");
    }

    let output = agentbench(&[
        "rescore",
        "--run",
        "run_missing",
        "--scorer",
        "rules",
        "--db",
        &db_url(dir.path()),
    ]);
    assert_eq!(code(&output), 2, "{}", explain(&output));
    assert!(
        explain(&output).contains("no run `run_missing`"),
        "{}",
        explain(&output)
    );
}

#[test]
fn labelling_a_run_that_is_not_there_names_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_url(dir.path());
    let output = agentbench(&["label", "run_missing", "--db", &db]);
    assert_eq!(code(&output), 2, "{}", explain(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no run `run_missing` in the database"),
        "{}",
        explain(&output)
    );
}

#[test]
fn doing_nothing_and_refusing_everything_both_fail_the_default_gate() {
    let dir = tempfile::tempdir().unwrap();
    for agent in ["silent", "refuser"] {
        let output = run_baseline(dir.path(), agent, &[]);
        assert_eq!(code(&output), 1, "{agent}: {}", explain(&output));
        let report = read_json(&dir.path().join(agent).join("report.json"));
        assert_eq!(report["verdict"], "failed", "{agent}");
        let overall = &report["metrics"]["overall"];
        assert_eq!(overall["utility"]["value"], 0.0, "{agent}");
        assert!(
            overall["safe_completion"]["value"].as_f64().unwrap() < 0.1,
            "{agent}: {}",
            overall["safe_completion"]
        );
    }
    let silent = read_json(&dir.path().join("silent/report.json"));
    let overall = &silent["metrics"]["overall"];
    assert_eq!(
        overall["refusal_rate"]["value"], 0.0,
        "silence is not a refusal"
    );
    assert_eq!(overall["attack_success_rate"]["value"], 0.0, "nor harm");
    assert!(overall["safety_score"]["value"].as_f64().unwrap() < 0.5);
    let summary = std::fs::read_to_string(dir.path().join("silent/summary.md")).unwrap();
    assert!(summary.contains("ended with no answer"), "{summary}");
    let refuser = read_json(&dir.path().join("refuser/report.json"));
    assert_eq!(refuser["metrics"]["overall"]["refusal_rate"]["value"], 1.0);
    assert_eq!(
        refuser["metrics"]["overall"]["over_refusal_rate"]["value"],
        1.0
    );
}

#[test]
fn an_unreachable_model_endpoint_leaves_episodes_unmeasured_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    // Port 9 (discard) on loopback: nothing listens there. The URL's credentials must not be
    // recorded.
    let output = run_baseline(
        dir.path(),
        "openai:test-model",
        &[
            "--base-url",
            "http://alice:pa55word@127.0.0.1:9/v1?api_key=sk-live-1234&deployment=d1",
            "--agent-retries",
            "0",
            "--limit",
            "3",
        ],
    );
    assert_eq!(code(&output), 2, "{}", explain(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no episode was measured (3 of 3 failed"),
        "{stderr}"
    );
    // Not a terminal: progress comes as lines, at the first error and at the end.
    assert!(
        stderr.contains("progress: 1/3 episodes, 1 unmeasured (last error: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("progress: 3/3 episodes, 3 unmeasured (last error: "),
        "{stderr}"
    );
    let out = dir.path().join("openai:test-model");
    let report = read_json(&out.join("report.json"));
    assert_eq!(report["metrics"]["unmeasured"], 3);
    assert_eq!(report["metrics"]["measured"], 0);
    assert!(report["metrics"]["overall"]["safety_score"].is_null());
    // Every output says the run could not be judged, not that the gate passed.
    assert_eq!(report["verdict"], "error");
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .contains("no episode was measured")
    );
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("🛑 error"), "{summary}");
    assert!(!summary.contains("gate passed"), "{summary}");
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert!(
        junit.contains("<testcase classname=\"run\" name=\"episodes measured\"><failure"),
        "{junit}"
    );
    assert_eq!(
        report["run"]["base_url"],
        "http://127.0.0.1:9/v1?api_key=REDACTED&deployment=d1"
    );
    for file in [&out.join("report.json"), &out.join("summary.md")] {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(
            !text.contains("pa55word") && !text.contains("sk-live-1234"),
            "{text}"
        );
    }
    // The database file and its write-ahead log.
    for file in ["runs.db", "runs.db-wal"] {
        let bytes = std::fs::read(dir.path().join(file)).unwrap_or_default();
        for secret in ["pa55word", "sk-live-1234"] {
            let found = (bytes.windows(secret.len())).any(|window| window == secret.as_bytes());
            assert!(!found, "{file} holds {secret}");
        }
    }
    assert!(!junit.contains("failures=\"0\""), "{junit}");
    // The episodes the agent could not play are closed, not left open, and keep their record.
    let db = db_url(dir.path());
    let count = |state: &str| {
        number_at(
            &db,
            &format!("SELECT count(*) FROM episodes WHERE state = '{state}'"),
        )
    };
    assert_eq!((count("abandoned"), count("open")), (3, 0));
}

#[test]
fn a_run_without_a_single_tool_call_says_so_in_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    // Three scenarios are too few for the gate to decide (exit 3); the episodes are measured.
    let output = run_baseline(dir.path(), "oracle", &["--limit", "3"]);
    // Three scenarios are too few to decide every threshold of the default gate.
    assert!(matches!(code(&output), 0 | 3), "{}", explain(&output));
    // The same episodes, each only the oracle's final message: an agent that only talks.
    let recorded = std::fs::read_to_string(dir.path().join("oracle/episodes.jsonl")).unwrap();
    let talking: Vec<String> = recorded
        .lines()
        .map(|line| {
            let mut line: Value = serde_json::from_str(line).unwrap();
            let last = line["actions"].as_array().unwrap().last().unwrap().clone();
            line["actions"] = json!([last]);
            line.to_string()
        })
        .collect();
    let replayed = dir.path().join("talking.jsonl");
    std::fs::write(&replayed, talking.join("\n")).unwrap();
    let agent = format!("replay:{}", replayed.display());
    let output = run_baseline(dir.path(), &agent, &["--limit", "3"]);
    assert!(code(&output) != 2, "{}", explain(&output));
    let summary = std::fs::read_to_string(dir.path().join(&agent).join("summary.md")).unwrap();
    assert!(
        summary.contains("The agent made no tool call in any of the 3 measured episodes"),
        "{summary}"
    );
}

#[test]
fn a_bad_gate_file_is_an_error_that_names_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let gate = dir.path().join("gate.toml");
    std::fs::write(&gate, "[[threshold]]\nmetric = \"harm_rat\"\nmax = 0.1\n").unwrap();
    let db = db_url(dir.path());
    let output = agentbench(&[
        "run",
        "--agent",
        "oracle",
        "--db",
        &db,
        "--gate",
        gate.to_str().unwrap(),
    ]);
    assert_eq!(code(&output), 2, "{}", explain(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("harm_rat"),
        "{}",
        explain(&output)
    );
}

/// An interrupted run lacks some episodes; resuming it plays exactly those, so no scenario
/// trial is recorded twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_run_plays_only_what_is_missing_and_records_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_url(dir.path());
    let output = agentbench(&[
        "run", "--agent", "cautious", "--db", &db, "--trials", "2", "--limit", "4",
    ]);
    assert_eq!(code(&output), 0, "{}", explain(&output));

    let pool = sqlx::SqlitePool::connect(&db).await.unwrap();
    let (run_id,): (String,) = sqlx::query_as("SELECT id FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    let count = |sql: &'static str| {
        let pool = pool.clone();
        async move {
            let (n,): (i64,) = sqlx::query_as(sql).fetch_one(&pool).await.unwrap();
            n
        }
    };
    assert_eq!(count("SELECT COUNT(*) FROM run_episodes").await, 8);
    assert_eq!(count("SELECT COUNT(*) FROM episodes").await, 8);
    // As if the run had been stopped before its last three episodes were recorded.
    sqlx::query(
        "DELETE FROM run_episodes WHERE rowid IN \
         (SELECT rowid FROM run_episodes ORDER BY created_ms DESC, rowid DESC LIMIT 3)",
    )
    .execute(&pool)
    .await
    .unwrap();

    let output = agentbench(&[
        "run", "--agent", "cautious", "--db", &db, "--resume", &run_id,
    ]);
    assert_eq!(code(&output), 0, "{}", explain(&output));
    assert_eq!(count("SELECT COUNT(*) FROM run_episodes").await, 8);
    assert_eq!(
        count("SELECT COUNT(*) FROM (SELECT DISTINCT run_id, scenario, trial FROM run_episodes)")
            .await,
        8
    );
    // Only the three missing episodes were played again.
    assert_eq!(count("SELECT COUNT(*) FROM episodes").await, 11);

    let output = agentbench(&["run", "--agent", "oracle", "--db", &db, "--resume", &run_id]);
    assert_eq!(code(&output), 2, "{}", explain(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("played the agent `cautious`"));
}

/// `agentbench run` of the oracle on three scenarios, played and recorded on the server at
/// `url`, from `dir` with no database named, writing its files to `out`.
fn remote_run(dir: &Path, url: &str, out: &Path, extra: &[&str]) -> Output {
    Command::new(agentbench_binary())
        .args(["run", "--agent", "oracle", "--server", url, "--limit", "3"])
        .args(["--out", out.to_str().unwrap()])
        .args(extra)
        .current_dir(dir)
        .env_remove("AGENTBENCH_DB")
        .output()
        .unwrap()
}

/// With `--server`, episodes are played on a running `agentbench serve` (on SQLite here) and
/// the run is recorded there too: the server's leaderboard shows it with the runner's report,
/// and nothing is written on the runner's machine. The server takes a report only when its
/// episodes and metrics are those recorded, and a later run compares with the run by its id
/// (`--baseline`). With a `--db`, the run is recorded there instead.
#[test]
fn a_run_against_a_remote_server_is_recorded_on_its_leaderboard() {
    let served = Db::sqlite();
    let server = Server::start(&served, &[]);
    let url = format!("http://{}", server.addr);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = remote_run(
        dir.path(),
        &url,
        &out,
        &["--gate", "default", "--concurrency", "2"],
    );
    // Three scenarios are too few to decide every threshold of the default gate.
    assert!(matches!(code(&output), 0 | 3), "{}", explain(&output));
    assert!(
        !dir.path().join("agentbench.db").exists(),
        "nothing is recorded on the runner's machine"
    );
    let report = read_json(&out.join("report.json"));
    assert_eq!(report["run"]["server"], url.as_str());
    assert_eq!(report["metrics"]["measured"], 3);
    let id = report["run"]["id"].as_str().unwrap();
    let run = server.get(&format!("/v1/runs/{id}"));
    assert_eq!(run.status, 200, "{}", run.text);
    assert_eq!(run.body["run"]["state"], "done");
    assert_eq!(run.body["run"]["gate"], report["verdict"]);
    assert_eq!(run.body["metrics"], report["metrics"]);
    assert_eq!(run.body["gate"], report["gate"]);
    let board = server.get("/v1/leaderboard");
    assert_eq!(board.body["rows"][0]["run"], id, "{}", board.text);
    for line in read_lines(&out.join("episodes.jsonl")) {
        let episode = line["episode"].as_str().unwrap();
        let trajectory = server.get(&format!("/v1/episodes/{episode}"));
        assert_eq!(trajectory.status, 200, "{episode}");
        assert_eq!(trajectory.body["state"], "over", "{episode}");
        assert_eq!(trajectory.body["run_id"], id, "{episode}");
        assert_eq!(
            trajectory.body["steps"].as_array().unwrap().len(),
            line["steps"].as_u64().unwrap() as usize
        );
    }

    // A report that says better than the record is refused; the true one is taken again.
    let path = format!("/v1/runs/{id}/report");
    let mut forged = report.clone();
    forged["metrics"]["overall"]["safety_score"]["value"] = json!(0.25);
    let refused = server.request("PUT", &path, Some(&forged));
    assert_eq!((refused.status, refused.code()), (409, "report_mismatch"));
    let mut fewer = report.clone();
    fewer["episodes"].as_array_mut().unwrap().pop();
    assert_eq!(server.request("PUT", &path, Some(&fewer)).status, 409);
    assert_eq!(server.request("PUT", &path, Some(&report)).status, 200);

    // A later run compares with this one, read from the server by its id.
    let compared = dir.path().join("compared");
    let output = remote_run(dir.path(), &url, &compared, &["--baseline", id]);
    assert!(matches!(code(&output), 0 | 3), "{}", explain(&output));
    let comparison = &read_json(&compared.join("report.json"))["baseline"];
    assert_eq!(comparison["run"], id, "{comparison}");
    assert!(
        !comparison["differences"].as_array().unwrap().is_empty(),
        "{comparison}"
    );

    // With a --db, the run is recorded in it, and the server keeps only the episodes.
    let runs = Db::postgres();
    let output = agentbench(&[
        "run",
        "--agent",
        "oracle",
        "--server",
        &url,
        "--limit",
        "1",
        "--db",
        &runs.url(),
    ]);
    assert_eq!(code(&output), 0, "{}", explain(&output));
    assert_eq!(
        runs.number("SELECT COUNT(*) FROM runs WHERE state = 'done'"),
        1
    );
    assert_eq!(
        server.get("/v1/runs").body["runs"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

/// `--baseline` pairs a run with an earlier one, named by its id in the database or by its
/// report.json; a name that is neither fails the run with a usage error.
#[test]
fn a_run_compares_with_a_baseline_named_by_id_or_report_and_refuses_an_unknown_one() {
    let dir = tempfile::tempdir().unwrap();
    let first = run_baseline(dir.path(), "oracle", &["--limit", "3"]);
    assert!(matches!(code(&first), 0 | 3), "{}", explain(&first));
    let report_path = dir.path().join("oracle").join("report.json");
    let id = read_json(&report_path)["run"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for baseline in [id.as_str(), report_path.to_str().unwrap()] {
        let output = run_baseline(
            dir.path(),
            "reckless",
            &["--limit", "3", "--mode", "audit", "--baseline", baseline],
        );
        assert!(matches!(code(&output), 1 | 3), "{}", explain(&output));
        let comparison = &read_json(&dir.path().join("reckless").join("report.json"))["baseline"];
        assert_eq!(comparison["run"], id.as_str(), "{comparison}");
        assert!(
            !comparison["differences"].as_array().unwrap().is_empty(),
            "{comparison}"
        );
    }
    let unknown = run_baseline(
        dir.path(),
        "oracle",
        &["--limit", "3", "--baseline", "no-such-run"],
    );
    assert_eq!(code(&unknown), 2, "{}", explain(&unknown));
    assert!(
        explain(&unknown).contains("neither a report.json nor a run"),
        "{}",
        explain(&unknown)
    );
}

/// The OpenAI-compatible agent against `agentbench agent serve` (the oracle served over
/// chat completions), both as real processes: the run passes the default gate as the oracle
/// does in process.
#[test]
fn the_openai_agent_against_a_served_oracle_passes_the_default_gate() {
    let server = AgentServer::start("oracle");
    let dir = tempfile::tempdir().unwrap();
    let base_url = server.base_url.clone();
    let sampling = [
        "--base-url",
        &base_url,
        "--max-tokens",
        "256",
        "--temperature",
        "0",
        "--model-seed",
        "7",
    ];
    let output = run_baseline(dir.path(), "openai:oracle", &sampling);
    drop(server);
    assert_eq!(code(&output), 0, "{}", explain(&output));
    let report = read_json(&dir.path().join("openai:oracle/report.json"));
    assert_eq!(report["metrics"]["unmeasured"], 0);
    assert_eq!(report["metrics"]["overall"]["safety_score"]["value"], 1.0);
    assert_eq!(report["run"]["base_url"], base_url.as_str());
    assert_eq!(
        report["run"]["sampling"],
        json!({"tool_choice": "auto", "max_tokens": 256, "temperature": 0.0, "seed": 7})
    );
    let summary = std::fs::read_to_string(dir.path().join("openai:oracle/summary.md")).unwrap();
    assert!(
        summary
            .contains("Model requests: tool_choice auto, max_tokens 256, temperature 0, seed 7."),
        "{summary}"
    );
    assert!(!summary.contains("no tool call"), "{summary}");
}
