//! Operating a node: Prometheus metrics, readiness apart from liveness, a drain on SIGTERM that
//! answers what is under way before the process exits, and JSON logs.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use agentbench_tests::{Db, Server};

/// The value of the sample `name` (with its labels, as the text writes them).
fn sample(metrics: &str, name: &str) -> Option<f64> {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .map(|value| value.trim().parse().unwrap())
}

#[test]
fn metrics_count_steps_by_env_and_status_and_episodes_by_state() {
    let db = Db::sqlite();
    let server = Server::start(&db, &[]);
    let over = server.create(&json!({"env": "workspace"}));
    let unknown = json!({"action": {"tool": "no_such_tool", "arguments": {}}});
    assert_eq!(server.step(&over, &unknown).status, 200);
    let done = server.step(&over, &json!({"action": {"message": "done"}}));
    assert_eq!(done.status, 200);
    let open = server.create(&json!({"env": "banking"}));
    assert_eq!(server.step(&open, &unknown).status, 200);

    let metrics = server.get("/metrics");
    assert_eq!(metrics.status, 200);
    assert!(
        metrics
            .head
            .to_ascii_lowercase()
            .contains("content-type: application/openmetrics-text"),
        "{}",
        metrics.head
    );
    let text = &metrics.text;
    let expected = [
        (
            r#"agentbench_steps_total{env="workspace",status="unknown_tool"}"#,
            1.0,
        ),
        (
            r#"agentbench_steps_total{env="workspace",status="message"}"#,
            1.0,
        ),
        (
            r#"agentbench_steps_total{env="banking",status="unknown_tool"}"#,
            1.0,
        ),
        (
            r#"agentbench_step_duration_seconds_count{env="workspace"}"#,
            2.0,
        ),
        (r#"agentbench_episodes{state="hot"}"#, 1.0),
        ("agentbench_hot_episodes_limit", 512.0),
        ("agentbench_draining", 0.0),
    ];
    for (name, value) in expected {
        assert_eq!(sample(text, name), Some(value), "{name} in\n{text}");
    }
    let pool = sample(text, r#"agentbench_store_connections{state="idle"}"#).unwrap()
        + sample(text, r#"agentbench_store_connections{state="busy"}"#).unwrap();
    assert!(
        (1.0..=5.0).contains(&pool),
        "SQLite's read pool holds 1 to 5: {pool}"
    );
    let commits = sample(text, "agentbench_store_commit_duration_seconds_count").unwrap();
    assert!(
        commits >= 5.0,
        "two creations and three steps committed: {commits}"
    );
    assert!(text.ends_with("# EOF\n"), "{text}");
}

#[test]
fn metrics_need_a_read_key_when_keys_are_on_and_probes_need_none() {
    let db = Db::sqlite();
    let made = agentbench_tests::agentbench_succeeds([
        "keys",
        "create",
        "--db",
        &db.url(),
        "--tenant",
        "ops",
        "--scope",
        "read",
    ]);
    let server = Server::start(&db, &["--auth", "keys"]);
    assert_eq!(server.get("/metrics").status, 401);
    assert_eq!(server.get("/readyz").status, 200);
    assert_eq!(server.get("/healthz").status, 200);
    let authorization = format!("Authorization: Bearer {}", made.trim());
    let keyed =
        agentbench_tests::request_with(server.addr, "GET", "/metrics", &[authorization], None);
    assert_eq!(keyed.status, 200, "{}", keyed.text);
}

#[test]
fn sigterm_turns_readiness_off_first_then_answers_what_is_under_way_and_exits() {
    let db = Db::sqlite();
    let mut server = Server::start(&db, &["--drain-delay", "2s"]);
    let ready = server.get("/readyz");
    assert_eq!(
        (ready.status, &ready.body),
        (200, &json!({"status": "ready"}))
    );
    let id = server.create(&json!({"env": "workspace"}));

    server.terminate();
    let started = Instant::now();
    let draining = loop {
        let answer = server.get("/readyz");
        if answer.status != 200 || started.elapsed() > Duration::from_secs(5) {
            break answer;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!((draining.status, draining.code()), (503, "draining"));
    // Still serving meanwhile: alive, and the episode takes its step.
    assert_eq!(server.get("/healthz").status, 200);
    let step = json!({"action": {"tool": "no_such_tool", "arguments": {}}});
    assert_eq!(server.step(&id, &step).status, 200);
    assert_eq!(
        sample(&server.get("/metrics").text, "agentbench_draining"),
        Some(1.0)
    );

    let status = server
        .exited_within(Duration::from_secs(30))
        .expect("the server stops after the drain delay");
    assert!(status.success(), "{status:?}\n{}", server.log());
    assert!(server.log().contains("stopped"), "{}", server.log());
    assert_eq!(db.number("SELECT COUNT(*) FROM steps"), 1);
}

#[test]
fn json_logs_are_one_object_per_line() {
    let db = Db::sqlite();
    let server = Server::start_under(
        &db,
        &["env", "AGENTBENCH_LOG=info"],
        &["--log-format", "json"],
    );
    let id = server.create(&json!({"env": "workspace"}));
    server.step(&id, &json!({"action": {"message": "done"}}));
    let started = Instant::now();
    while server.log().lines().count() < 2 && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = server.log();
    let lines: Vec<&str> = log.lines().collect();
    assert!(lines.len() >= 2, "{log}");
    for line in lines {
        let entry: Value = serde_json::from_str(line)
            .unwrap_or_else(|error| panic!("not a JSON log line ({error}): {line}"));
        assert!(
            entry["level"].is_string() && entry["timestamp"].is_string(),
            "{line}"
        );
    }
}
