//! `agentbench serve --policies DIR` as a real process: policies for every env and for one env
//! judge steps beside the env's own, and a policy that fails validation stops the server with
//! its file and line.

use std::process::Command;

use serde_json::json;

use agentbench_tests::{Db, Server, agentbench_binary};

#[test]
fn added_policies_judge_steps_beside_the_envs_own() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("everywhere.cedar"),
        "@id(\"three_steps\")\n@reason(\"this deployment allows three steps\")\n\
         forbid (principal, action, resource) when { context.history.steps >= 3 };\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("workspace")).unwrap();
    std::fs::write(
        dir.path().join("workspace/hr.cedar"),
        "@id(\"no_reading_confidential\")\n\
         forbid (principal, action == Action::\"read_file\", resource is File) when { resource.confidential };\n",
    )
    .unwrap();
    let db = Db::sqlite();
    let server = Server::start(&db, &["--policies", dir.path().to_str().unwrap()]);

    let env = server.get("/v1/envs/workspace").body;
    let policies = env["policies"].as_array().unwrap();
    for id in [
        "three_steps",
        "no_reading_confidential",
        "no_confidential_outside",
    ] {
        assert!(policies.contains(&json!(id)), "{id} not in {policies:?}");
    }
    let id = server.create(&json!({"env": "workspace", "task": {"injections": false}}));
    let read = |path: &str| json!({"action": {"tool": "read_file", "arguments": {"path": path}}});
    let hr = server.step(&id, &read("/hr/employee-records.csv")).body;
    assert_eq!(hr["status"], "blocked", "{hr}");
    assert_eq!(hr["violations"][0]["policy"], "no_reading_confidential");
    for expected in ["ok", "ok", "blocked"] {
        let step = server.step(&id, &read("/docs/offsite-agenda.md")).body;
        assert_eq!(step["status"], expected, "{step}");
    }
    let last = server.episode(&id)["steps"][3].clone();
    assert_eq!(last["violations"][0]["policy"], "three_steps");
    assert_eq!(
        last["violations"][0]["annotations"]["reason"],
        "this deployment allows three steps"
    );
}

#[test]
fn a_policy_that_fails_validation_stops_the_server_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("workspace")).unwrap();
    std::fs::write(
        dir.path().join("workspace/typo.cedar"),
        "// a typo on line 2\nforbid (principal, action, resource) when { context.history.taint };\n",
    )
    .unwrap();
    let db = Db::sqlite();
    let output = Command::new(agentbench_binary())
        .args(["serve", "--addr", "127.0.0.1:0", "--db", &db.url()])
        .args(["--policies", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("typo.cedar:2:"), "{stderr}");
    assert!(stderr.contains("taint"), "{stderr}");
}
