//! The OpenAPI document matches the server: schemathesis (`tests/schemathesis/run.sh`) generates
//! requests from a real server's `/openapi.json` (boundary and invalid values, fuzzing, and the
//! stateful phase that chains operations through the document's links), and every answer must be
//! one the document allows.

use std::process::Command;

use agentbench_tests::{Db, Server, agentbench_succeeds, workspace_root};

#[test]
fn schemathesis_finds_no_answer_the_document_does_not_allow() {
    // The database lives as long as the server: its folder is removed when `db` is dropped.
    let db = Db::sqlite();
    // With keys, as a shared server runs: schemathesis sends the key, and checks (ignored_auth)
    // that every operation the document says needs one refuses a request without it.
    let key = agentbench_succeeds(["keys", "create", "--scope", "admin", "--db", &db.url()]);
    let server = Server::start(&db, &["--auth", "keys"]);
    let output = Command::new("bash")
        .arg(workspace_root().join("tests/schemathesis/run.sh"))
        .arg(format!("http://{}", server.addr))
        .arg("--header")
        .arg(format!("Authorization: Bearer {}", key.trim()))
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
