//! `agentbench bench` end to end: it spawns its own server, loads it briefly and reports JSON.

use std::process::Command;

use serde_json::Value;

use agentbench_tests::agentbench_binary;

#[test]
fn a_short_bench_steps_without_errors_and_measures_memory() {
    let output = Command::new(agentbench_binary())
        .args(["bench", "--concurrency", "4", "--duration", "300ms"])
        .args(["--warmup", "100ms", "--open-episodes", "50", "--json"])
        .args(["--db-sync", "normal"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["spawned"], true, "{report}");
    assert_eq!(report["db_sync"], "normal", "{report}");
    assert_eq!(report["concurrency"], 4, "{report}");
    assert_eq!(report["resets"]["latency"]["count"], 4, "{report}");
    let steps = &report["steps"];
    assert!(steps["count"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(steps["errors"], 0, "{report}");
    assert!(steps["per_second"].as_f64().unwrap() > 0.0, "{report}");
    for percentile in ["p50_us", "p90_us", "p99_us", "max_us"] {
        assert!(
            steps["latency"][percentile].is_u64(),
            "{percentile}: {report}"
        );
    }
    let memory = &report["memory"];
    assert_eq!(memory["status"], "measured", "{report}");
    assert_eq!(memory["opened"], 50, "{report}");
    assert!(memory["rss_after_bytes"].as_u64().unwrap() > 0, "{report}");
    assert!(memory["bytes_per_episode"].is_u64(), "{report}");
    assert_eq!(report["cleanup"]["deleted"], 4, "{report}");
    assert_eq!(report["cleanup"]["failed"], 0, "{report}");
}

#[test]
fn the_fast_paths_step_every_episode_without_errors() {
    for transport in ["ws", "batch"] {
        let output = Command::new(agentbench_binary())
            .args(["bench", "--concurrency", "6", "--duration", "300ms"])
            .args(["--warmup", "100ms", "--open-episodes", "0", "--json"])
            .args([
                "--db-sync",
                "normal",
                "--transport",
                transport,
                "--connections",
                "2",
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{transport}: {stderr}");
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["transport"], transport, "{report}");
        assert_eq!(report["connections"], 2, "{report}");
        let steps = &report["steps"];
        assert!(steps["count"].as_u64().unwrap() >= 6, "{report}");
        assert_eq!(steps["errors"], 0, "{report}");
        assert_eq!(report["cleanup"]["deleted"], 6, "{report}");
    }
}

#[test]
fn the_openenv_transport_steps_sessions_of_the_servers_openenv_socket() {
    let output = Command::new(agentbench_binary())
        .args(["bench", "--concurrency", "3", "--duration", "300ms"])
        .args(["--warmup", "100ms", "--open-episodes", "0", "--json"])
        .args(["--db-sync", "normal", "--transport", "openenv"])
        // A budget of 2 steps: every session's episode ends and is reset while it is stepped.
        .args([
            "--openenv-reset",
            r#"{"task": {"budget": {"max_steps": 2}}}"#,
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["transport"], "openenv", "{report}");
    assert_eq!(report["openenv_path"], "/openenv/workspace/ws", "{report}");
    assert_eq!(report["resets"]["latency"]["count"], 3, "{report}");
    let steps = &report["steps"];
    assert!(steps["count"].as_u64().unwrap() >= 6, "{report}");
    assert_eq!(steps["errors"], 0, "{report}");
    assert!(steps["cpu"]["server_us_per_step"].is_f64(), "{report}");
    assert!(report.get("cleanup").is_none(), "{report}");

    // An action that is not an object is refused before any session opens.
    let output = Command::new(agentbench_binary())
        .args(["bench", "--transport", "openenv", "--openenv-action", "[1]"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("must be a JSON object"), "{stderr}");
}
