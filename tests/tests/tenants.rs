//! API keys and tenants against a real `agentbench serve`, on SQLite and on PostgreSQL: keys made,
//! listed and revoked by `agentbench keys`; no tenant reads, steps, forks, abandons or deletes
//! another's episode on any path (REST, batch, WebSocket, OpenEnv, MCP); scopes; a recorded
//! run's episodes deleted by an admin only; the public leaderboard; the refusal to serve a
//! non-loopback address without keys; `agentbench run` and `train` sending their key.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;

use agentbench_tests::{
    Db, Response, SHORT_TRAINING, Server, agentbench_binary, agentbench_output,
    agentbench_succeeds, explain, python_venv, request_with,
};

/// Makes a key with `agentbench keys create`; returns it.
fn key(db: &Db, tenant: &str, scope: &str) -> String {
    let printed = agentbench_succeeds([
        "keys",
        "create",
        "--db",
        &db.url(),
        "--tenant",
        tenant,
        "--scope",
        scope,
    ]);
    let key = printed.trim().to_owned();
    assert!(key.starts_with("abk_"), "{printed}");
    key
}

/// One request as the holder of `key` (none: anonymous).
fn call(
    server: &Server,
    key: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Response {
    let headers: Vec<String> = key
        .map(|key| format!("authorization: Bearer {key}"))
        .into_iter()
        .collect();
    request_with(server.addr, method, path, &headers, body)
}

/// The status and error code of a request.
fn answer(
    server: &Server,
    key: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (u16, String) {
    let response = call(server, key, method, path, body);
    (response.status, response.code().to_owned())
}

const LIST_FILES: &str = r#"{"action": {"tool": "list_files", "arguments": {"dir": "/docs"}}}"#;

/// One operation over the WebSocket `/v1/ws` as the holder of `key`: its answer, or the
/// handshake's refusal status.
fn over_socket(server: &Server, key: &str, operation: Value) -> Result<Value, u16> {
    let url = format!("ws://{}/v1/ws", server.addr);
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async move {
            let mut request = url.into_client_request().unwrap();
            request
                .headers_mut()
                .insert("authorization", format!("Bearer {key}").parse().unwrap());
            let (mut socket, _) = match tokio_tungstenite::connect_async(request).await {
                Ok(connected) => connected,
                Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                    return Err(response.status().as_u16());
                }
                Err(error) => panic!("{error}"),
            };
            socket
                .send(Message::Text(operation.to_string().into()))
                .await
                .unwrap();
            loop {
                match socket.next().await.unwrap().unwrap() {
                    Message::Text(text) => return Ok(serde_json::from_str(&text).unwrap()),
                    _ => continue,
                }
            }
        })
}

fn tenants_are_kept_apart(db: &Db) {
    let alice = key(db, "alice", "run");
    let alice_reads = key(db, "alice", "read");
    let alice_admin = key(db, "alice", "admin");
    let bob = key(db, "bob", "run");
    let server = Server::start(db, &["--auth", "keys"]);
    let (alice, alice_reads, alice_admin, bob) = (
        Some(alice.as_str()),
        Some(alice_reads.as_str()),
        Some(alice_admin.as_str()),
        Some(bob.as_str()),
    );

    // No key, a malformed one, a made-up one: 401, with the scheme to use.
    let anonymous = call(&server, None, "GET", "/v1/envs", None);
    assert_eq!((anonymous.status, anonymous.code()), (401, "unauthorized"));
    assert_eq!(anonymous.header("www-authenticate"), Some("bearer"));
    let made_up = format!("abk_{}_{}", "0".repeat(16), "0".repeat(64));
    for wrong in ["abk_nonsense", made_up.as_str()] {
        assert_eq!(answer(&server, Some(wrong), "GET", "/v1/envs", None).0, 401);
    }
    // The health check and the API document need none.
    assert_eq!(answer(&server, None, "GET", "/healthz", None).0, 200);
    assert_eq!(answer(&server, None, "GET", "/openapi.json", None).0, 200);

    let create = json!({"env": "workspace", "seed": 1});
    let episode = call(&server, alice, "POST", "/v1/episodes", Some(&create));
    assert_eq!(episode.status, 201, "{}", episode.body);
    let id = episode.body["id"].as_str().unwrap().to_owned();
    let step: Value = serde_json::from_str(LIST_FILES).unwrap();

    // Bob sees nothing of it, on any path: each answers as for an episode that does not exist.
    let not_found = (404, "not_found".to_owned());
    let paths = [
        ("GET", format!("/v1/episodes/{id}"), None),
        (
            "POST",
            format!("/v1/episodes/{id}/steps"),
            Some(step.clone()),
        ),
        ("POST", format!("/v1/episodes/{id}/fork"), None),
        ("POST", format!("/v1/episodes/{id}/abandon"), None),
        ("GET", format!("/v1/episodes/{id}/action-schema"), None),
        ("DELETE", format!("/v1/episodes/{id}"), None),
        (
            "GET",
            format!("/openenv/workspace/state?episode_id={id}"),
            None,
        ),
        (
            "POST",
            "/openenv/workspace/step".to_owned(),
            Some(json!({"episode_id": id, "action": step["action"]})),
        ),
        (
            "POST",
            format!("/v1/episodes/{id}/mcp"),
            Some(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
        ),
    ];
    for (method, path, body) in &paths {
        assert_eq!(
            answer(&server, bob, method, path, body.as_ref()),
            not_found,
            "bob: {method} {path}"
        );
    }
    let batch = json!({"steps": [{"episode": id, "action": step["action"]}]});
    let batch = call(&server, bob, "POST", "/v1/steps", Some(&batch));
    assert_eq!(batch.body["results"][0]["status"], 404, "{}", batch.body);
    let socket = over_socket(
        &server,
        bob.unwrap(),
        json!({"id": 1, "op": "getEpisode", "episode": id}),
    );
    assert_eq!(socket.unwrap()["status"], 404);
    let socket = over_socket(
        &server,
        bob.unwrap(),
        json!({"id": 2, "op": "step", "episode": id, "body": step}),
    );
    assert_eq!(socket.unwrap()["status"], 404);
    // Bob's attempts changed nothing.
    assert_eq!(
        call(&server, alice, "GET", &format!("/v1/episodes/{id}"), None).body["steps"],
        json!([])
    );

    // Alice does all of it, over HTTP and over the socket.
    let stepped = call(
        &server,
        alice,
        "POST",
        &format!("/v1/episodes/{id}/steps"),
        Some(&step),
    );
    assert_eq!(stepped.status, 200, "{}", stepped.body);
    let socket = over_socket(
        &server,
        alice.unwrap(),
        json!({"id": 3, "op": "getEpisode", "episode": id}),
    );
    assert_eq!(
        socket.unwrap()["body"]["steps"].as_array().unwrap().len(),
        1
    );
    let state = call(
        &server,
        alice,
        "GET",
        &format!("/openenv/workspace/state?episode_id={id}"),
        None,
    );
    assert_eq!(state.body["step_count"], 1, "{}", state.body);
    let fork = call(
        &server,
        alice,
        "POST",
        &format!("/v1/episodes/{id}/fork"),
        None,
    );
    assert_eq!(fork.status, 201, "{}", fork.body);
    let fork = fork.body["id"].as_str().unwrap().to_owned();
    assert_eq!(
        answer(&server, bob, "GET", &format!("/v1/episodes/{fork}"), None),
        not_found
    );

    // A read key reads, and takes no action.
    assert_eq!(
        answer(
            &server,
            alice_reads,
            "GET",
            &format!("/v1/episodes/{id}"),
            None
        )
        .0,
        200
    );
    for (method, path, body) in [
        ("POST", "/v1/episodes".to_owned(), Some(create.clone())),
        (
            "POST",
            format!("/v1/episodes/{id}/steps"),
            Some(step.clone()),
        ),
        ("DELETE", format!("/v1/episodes/{fork}"), None),
    ] {
        assert_eq!(
            answer(&server, alice_reads, method, &path, body.as_ref()),
            (403, "forbidden".to_owned()),
            "read key: {method} {path}"
        );
    }
    assert_eq!(
        over_socket(&server, alice_reads.unwrap(), json!({"op": "listEnvs"})),
        Err(403)
    );

    // A recorded run's episode is its evidence: a run key cannot delete it, an admin key can.
    let for_a_run = json!({"env": "workspace", "run_id": "run_evidence"});
    let evidence = call(&server, alice, "POST", "/v1/episodes", Some(&for_a_run));
    let evidence = evidence.body["id"].as_str().unwrap().to_owned();
    let delete = format!("/v1/episodes/{evidence}");
    assert_eq!(
        answer(&server, alice, "DELETE", &delete, None),
        (403, "recorded_run_episode".to_owned())
    );
    assert_eq!(answer(&server, bob, "DELETE", &delete, None), not_found);
    assert_eq!(answer(&server, alice_admin, "DELETE", &delete, None).0, 204);
    // An episode of no run, the run key deletes.
    assert_eq!(
        answer(
            &server,
            alice,
            "DELETE",
            &format!("/v1/episodes/{fork}"),
            None
        )
        .0,
        204
    );

    // The record names each episode's tenant.
    assert_eq!(
        db.number("SELECT COUNT(*) FROM episodes WHERE tenant = 'alice'"),
        1
    );
    assert_eq!(
        db.number("SELECT COUNT(*) FROM episodes WHERE tenant <> 'alice'"),
        0
    );

    // Revoked, a key stops working within seconds, on a running server.
    let listed = agentbench_succeeds(["keys", "list", "--json", "--db", &db.url()]);
    let bob_id = bob.unwrap()[4..20].to_owned();
    assert!(listed.contains(&bob_id), "{listed}");
    assert!(
        !listed.contains(&bob.unwrap()[21..]),
        "a secret is never listed"
    );
    agentbench_succeeds(["keys", "revoke", &bob_id, "--db", &db.url()]);
    let revoked = Instant::now();
    while answer(&server, bob, "GET", "/v1/envs", None).0 != 401 {
        assert!(
            revoked.elapsed() < Duration::from_secs(15),
            "the revoked key still works"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_eq!(answer(&server, alice, "GET", "/v1/envs", None).0, 200);
}

#[test]
fn tenants_are_kept_apart_on_sqlite() {
    tenants_are_kept_apart(&Db::sqlite());
}

#[test]
fn tenants_are_kept_apart_on_postgres() {
    tenants_are_kept_apart(&Db::postgres());
}

#[test]
fn a_public_leaderboard_shows_runs_and_their_episodes_only() {
    let db = Db::sqlite();
    let runner = key(&db, "alice", "run");
    let server = Server::start(&db, &["--auth", "keys", "--public-leaderboard"]);
    let runner = Some(runner.as_str());
    let recorded = call(
        &server,
        runner,
        "POST",
        "/v1/episodes",
        Some(&json!({"env": "workspace", "run_id": "run_public"})),
    );
    let private = call(
        &server,
        runner,
        "POST",
        "/v1/episodes",
        Some(&json!({"env": "workspace"})),
    );
    let (recorded, private) = (
        recorded.body["id"].as_str().unwrap(),
        private.body["id"].as_str().unwrap(),
    );

    for path in [
        "/v1/runs",
        "/v1/leaderboard",
        "/v1/envs",
        "/v1/prm-results",
        "/v1/trainings",
        "/",
    ] {
        assert_eq!(answer(&server, None, "GET", path, None).0, 200, "{path}");
    }
    // Without a key: a run's episode reads, any other does not exist, and nothing else is open.
    let create = json!({"env": "workspace"});
    for (method, path, body, status) in [
        ("GET", format!("/v1/episodes/{recorded}"), None, 200),
        ("GET", format!("/v1/episodes/{private}"), None, 404),
        (
            "GET",
            format!("/v1/episodes/{recorded}/action-schema"),
            None,
            401,
        ),
        ("POST", "/v1/episodes".to_owned(), Some(&create), 401),
        ("DELETE", format!("/v1/episodes/{recorded}"), None, 401),
    ] {
        let answered = answer(&server, None, method, &path, body).0;
        assert_eq!(answered, status, "{method} {path}");
    }
}

#[test]
fn serving_a_public_address_needs_keys_unless_open_is_asked_for() {
    let db = Db::sqlite();
    let refused = std::process::Command::new(agentbench_binary())
        .args(["serve", "--addr", "0.0.0.0:0", "--db", &db.url()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    assert!(stderr.contains("agentbench keys create"), "{stderr}");
    // `--auth keys` on loopback without a key is refused alike.
    let refused = std::process::Command::new(agentbench_binary())
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--auth",
            "keys",
            "--db",
            &db.url(),
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    // Asked for by name, open mode serves anywhere; on loopback it is the default.
    let open = Server::start(&db, &["--auth", "open"]);
    assert_eq!(
        answer(
            &open,
            None,
            "POST",
            "/v1/episodes",
            Some(&json!({"env": "workspace"}))
        )
        .0,
        201
    );
}

/// A run on a keyed server sends its key, and its run is recorded there for the key's tenant:
/// that tenant's keys see it on the leaderboard, another tenant's do not, and a key that may
/// only read records nothing.
#[test]
fn a_run_on_a_keyed_server_is_recorded_there_for_the_keys_tenant() {
    let db = Db::sqlite();
    let runner = key(&db, "alice", "run");
    let reader = key(&db, "alice", "read");
    let other = key(&db, "bob", "read");
    let server = Server::start(&db, &["--auth", "keys"]);
    let url = format!("http://{}", server.addr);
    let args = [
        "run", "--suite", "safety", "--agent", "oracle", "--limit", "2", "--server", &url,
    ];
    let refused = agentbench_output(args);
    assert_eq!(
        refused.status.code(),
        Some(2),
        "a run without the key is not measured: {}",
        explain(&refused)
    );
    let read_only = agentbench_output(args.iter().copied().chain(["--api-key", reader.as_str()]));
    assert_eq!(read_only.status.code(), Some(2), "{}", explain(&read_only));
    assert!(
        String::from_utf8_lossy(&read_only.stderr).contains("403"),
        "{}",
        explain(&read_only)
    );
    agentbench_succeeds(args.iter().copied().chain(["--api-key", runner.as_str()]));
    let episodes =
        db.number("SELECT COUNT(*) FROM episodes WHERE run_id IS NOT NULL AND tenant = 'alice'");
    assert!(episodes >= 2, "{episodes}");
    assert_eq!(
        db.number("SELECT COUNT(*) FROM runs WHERE tenant = 'alice' AND state = 'done'"),
        1
    );
    let runs: Value = call(&server, Some(&reader), "GET", "/v1/runs", None).body;
    assert_eq!(runs["runs"].as_array().unwrap().len(), 1, "{runs}");
    assert_eq!(runs["runs"][0]["agent"], "oracle");
    let id = runs["runs"][0]["id"].as_str().unwrap();
    let board: Value = call(&server, Some(&reader), "GET", "/v1/leaderboard", None).body;
    assert_eq!(board["rows"][0]["run"], id, "{board}");
    let unseen: Value = call(&server, Some(&other), "GET", "/v1/runs", None).body;
    assert_eq!(unseen["runs"], json!([]), "another tenant's key");
    let hidden = call(
        &server,
        Some(&other),
        "GET",
        &format!("/v1/runs/{id}"),
        None,
    );
    assert_eq!(hidden.status, 404);
}

#[test]
fn each_key_has_its_own_rate_limit() {
    let db = Db::sqlite();
    let (first, second) = (key(&db, "alice", "read"), key(&db, "bob", "read"));
    let server = Server::start(
        &db,
        &["--auth", "keys", "--rate-limit", "1", "--rate-burst", "3"],
    );
    let statuses: Vec<u16> = (0..3)
        .map(|_| answer(&server, Some(&first), "GET", "/v1/envs", None).0)
        .collect();
    assert_eq!(statuses, [200, 200, 200]);
    let limited = call(&server, Some(&first), "GET", "/v1/envs", None);
    assert_eq!((limited.status, limited.code()), (429, "rate_limited"));
    assert!(limited.header("retry-after").is_some(), "{}", limited.head);
    // Another key keeps its own quota.
    assert_eq!(
        answer(&server, Some(&second), "GET", "/v1/envs", None).0,
        200
    );
}

#[test]
fn a_training_on_a_keyed_server_sends_its_key_and_records_its_evaluations_there() {
    let venv = python_venv("trainer/setup.sh");
    let db = Db::sqlite();
    let trainer = key(&db, "alice", "run");
    let server = Server::start(&db, &["--auth", "keys"]);
    let out = tempfile::tempdir().unwrap();
    let url = format!("http://{}", server.addr);
    let python = venv.join("bin/python");
    let folder = out.path().join("train");
    let mut args: Vec<OsString> = SHORT_TRAINING.into_iter().map(OsString::from).collect();
    args.extend(
        [
            "--updates",
            "1",
            "--eval-limit",
            "1",
            "--max-tokens",
            "8",
            "--server",
            &url,
        ]
        .map(OsString::from),
    );
    args.extend(["--python".into(), python.into_os_string()]);
    args.extend(["--out".into(), folder.into_os_string()]);
    let refused = std::process::Command::new(agentbench_binary())
        .args(&args)
        .output()
        .unwrap();
    assert!(!refused.status.success(), "a training without the key");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("401"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    // Whatever the refused start left in the folder goes, so the next one starts afresh.
    let _ = std::fs::remove_dir_all(out.path().join("train"));
    agentbench_succeeds(
        args.into_iter()
            .chain(["--api-key".into(), trainer.clone().into()]),
    );
    let episodes = db.number("SELECT COUNT(*) FROM episodes WHERE tenant = 'alice'");
    assert!(
        episodes >= 4,
        "{episodes} episodes played for the key's tenant"
    );
    assert_eq!(
        db.number("SELECT COUNT(*) FROM episodes WHERE tenant <> 'alice'"),
        0
    );
    // Its held-out evaluations are recorded on the server, for the key's tenant: the
    // learning curve is on the shared leaderboard.
    let trainings: Value = call(&server, Some(&trainer), "GET", "/v1/trainings", None).body;
    assert!(
        !trainings["trainings"][0]["points"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{trainings}"
    );
    assert_eq!(
        db.number("SELECT COUNT(*) FROM runs WHERE tenant <> 'alice'"),
        0
    );
}
