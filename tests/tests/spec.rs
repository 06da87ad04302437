//! The OpenAPI document matches the server: schemathesis (`tests/schemathesis/run.sh`) generates
//! requests from a real server's `/openapi.json` (boundary and invalid values, fuzzing, and the
//! stateful phase that chains operations through the document's links), and every answer must be
//! one the document allows.

use std::process::Command;

use agentbench_tests::{Db, Server, workspace_root};

#[test]
fn schemathesis_finds_no_answer_the_document_does_not_allow() {
    // The database lives as long as the server: its folder is removed when `db` is dropped.
    let db = Db::sqlite();
    let server = Server::start(&db, &[]);
    let output = Command::new("bash")
        .arg(workspace_root().join("tests/schemathesis/run.sh"))
        .arg(format!("http://{}", server.addr))
        .current_dir(workspace_root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "schemathesis failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("passed"), "{stdout}");
}
