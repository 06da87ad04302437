//! `agentbench serve` as a real process over loopback HTTP, on a SQLite file and on PostgreSQL:
//! an episode's whole life, retries, concurrency, kill -9 and restart, forks, expiry and the
//! capacity limit. Every scenario runs once per database.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use agentbench_tests::{Db, Server};

/// Runs each scenario against both databases, as `sqlite::NAME` and `postgres::NAME`.
macro_rules! on_both_databases {
    ($($scenario:ident),* $(,)?) => {
        mod sqlite {
            $(#[test] fn $scenario() { super::$scenario(super::Db::sqlite()) })*
        }
        mod postgres {
            $(#[test] fn $scenario() { super::$scenario(super::Db::postgres()) })*
        }
    };
}

on_both_databases!(
    an_episodes_whole_life,
    concurrent_clients_lose_and_interleave_nothing,
    clients_that_hang_up_leave_every_step_recorded_once,
    after_kill_9_a_restarted_server_continues_every_open_episode,
    with_relaxed_sync_too_every_step_survives_kill_9,
    an_episode_whose_env_changed_is_not_replayed,
    a_damaged_step_record_is_reported_as_damaged,
    forks_diverge_independently,
    idle_episodes_expire_and_their_record_stays,
    past_the_open_limit_creation_answers_429_with_retry_after,
);

fn tool(name: &str, arguments: Value) -> Value {
    json!({"action": {"tool": name, "arguments": arguments}})
}

fn with_request_id(mut step: Value, request_id: &str) -> Value {
    step["request_id"] = json!(request_id);
    step
}

fn an_episodes_whole_life(db: Db) {
    let server = Server::start(&db, &[]);
    let id = server.create(&json!({"env": "workspace", "seed": 2}));

    let list = with_request_id(tool("list_files", json!({})), "r1");
    let first = server.step(&id, &list);
    assert_eq!(
        (first.status, &first.body["status"]),
        (200, &json!("ok")),
        "{}",
        first.body
    );
    let retried = server.step(&id, &list);
    assert_eq!(retried.body, first.body, "a retry answers from the record");
    let request_ids: Vec<_> = [&first, &retried]
        .iter()
        .filter_map(|response| response.header("x-request-id"))
        .collect();
    assert_eq!(request_ids.len(), 2, "every response names its request");
    assert_ne!(request_ids[0], request_ids[1]);

    let invalid = server.step(&id, &tool("read_file", json!({"path": 5})));
    assert_eq!(
        invalid.body["status"], "invalid_arguments",
        "{}",
        invalid.body
    );
    assert_eq!(invalid.body["validation"][0]["pointer"], "/path");

    let unknown = server.step(&id, &tool("format_disk", json!({})));
    assert_eq!(unknown.body["status"], "unknown_tool");
    assert!(
        unknown.body["observation"]["error"]
            .as_str()
            .unwrap()
            .contains("read_file")
    );

    let last = server.step(&id, &json!({"action": {"message": "I could not do it."}}));
    assert_eq!(last.body["terminated"], true);
    assert_eq!(last.body["outcome"]["success"], false, "{}", last.body);
    let after = server.step(&id, &tool("list_files", json!({})));
    assert_eq!((after.status, after.code()), (409, "episode_over"));

    let episode = server.episode(&id);
    assert_eq!(episode["state"], "over");
    assert_eq!(episode["terminated"], true);
    let statuses: Vec<_> = episode["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["ok", "invalid_arguments", "unknown_tool", "message"]
    );
    assert_eq!(episode["steps"][0]["request_id"], "r1");
    assert_eq!(episode["outcome"], last.body["outcome"]);

    let missing = server.step("ep_missing", &list);
    assert_eq!((missing.status, missing.code()), (404, "not_found"));
}

fn concurrent_clients_lose_and_interleave_nothing(db: Db) {
    let server = Server::start(&db, &[]);
    let read = tool("read_file", json!({"path": "/docs/offsite-agenda.md"}));
    std::thread::scope(|scope| {
        for client in 0..32 {
            let (server, read) = (&server, &read);
            scope.spawn(move || {
                let id = server.create(&json!({"env": "workspace", "seed": client}));
                for n in 0..4 {
                    let step = server.step(&id, read);
                    assert_eq!((step.status, step.body["index"].as_u64()), (200, Some(n)));
                }
            });
        }
    });

    let shared = server.create(&json!({"env": "workspace", "seed": 9}));
    std::thread::scope(|scope| {
        for client in 0..8 {
            let (server, shared, read) = (&server, &shared, &read);
            scope.spawn(move || {
                for n in 0..5 {
                    let step = server.step(
                        shared,
                        &with_request_id(read.clone(), &format!("c{client}-{n}")),
                    );
                    assert_eq!(step.status, 200, "{}", step.body);
                }
            });
        }
    });
    let episode = server.episode(&shared);
    let steps = episode["steps"].as_array().unwrap();
    let indexes: Vec<_> = steps
        .iter()
        .map(|step| step["index"].as_u64().unwrap())
        .collect();
    assert_eq!(
        indexes,
        (0..40).collect::<Vec<_>>(),
        "every step recorded once, in order"
    );
    let request_ids: BTreeSet<_> = steps
        .iter()
        .map(|step| step["request_id"].as_str().unwrap())
        .collect();
    assert_eq!(request_ids.len(), 40);
}

/// Half the steps' clients hang up before their answer; every one is then retried with its
/// request id. A step that ran must be recorded and counted even though its client is gone, so
/// that its retry answers from the record (before, some retries failed with 503 as the step was
/// recorded but not counted), and one that did not run runs on its retry.
fn clients_that_hang_up_leave_every_step_recorded_once(db: Db) {
    let server = Server::start(&db, &[]);
    let id = server.create(&json!({"env": "workspace", "task": {"budget": {"max_steps": 1000}}}));
    let path = format!("/v1/episodes/{id}/steps");
    let write = |n: u32| {
        let file = json!({"path": format!("/docs/n{n}.md"), "content": "x"});
        with_request_id(tool("write_file", file), &format!("w{n}"))
    };
    for n in 0..200 {
        if n % 2 == 0 {
            server.hang_up("POST", &path, &write(n));
        } else {
            let step = server.step(&id, &write(n));
            assert_eq!(step.status, 200, "{}", step.body);
        }
    }
    for n in (0..200).step_by(2) {
        let retry = server.step(&id, &write(n));
        assert_eq!(retry.status, 200, "{}", retry.body);
        assert_eq!(retry.body["request_id"], json!(format!("w{n}")));
    }
    let steps = server.episode(&id)["steps"].as_array().unwrap().clone();
    let indexes: Vec<_> = steps
        .iter()
        .map(|step| step["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, (0..200).collect::<Vec<_>>());
    let request_ids: BTreeSet<_> = steps
        .iter()
        .map(|step| step["request_id"].as_str().unwrap())
        .collect();
    assert_eq!(request_ids.len(), 200, "every step recorded once");
}

fn after_kill_9_a_restarted_server_continues_every_open_episode(db: Db) {
    kill_9_and_restart(&db, &[]);
}

/// `--db-sync normal` gives up durability against a machine crash, not against a process crash.
fn with_relaxed_sync_too_every_step_survives_kill_9(db: Db) {
    kill_9_and_restart(&db, &["--db-sync", "normal"]);
}

fn kill_9_and_restart(db: &Db, args: &[&str]) {
    let task = json!({"env": "workspace", "seed": 5, "task": {"budget": {"max_steps": 10}}});
    let read = |path: &str| tool("read_file", json!({"path": path}));
    let server = Server::start(db, args);
    let id = server.create(&task);
    let before = server.step(&id, &with_request_id(read("/docs/offsite-agenda.md"), "a"));
    server.step(
        &id,
        &tool("delete_file", json!({"path": "/docs/offsite-agenda.md"})),
    );
    let fork = server.post(&format!("/v1/episodes/{id}/fork"), &json!({}));
    assert_eq!(fork.status, 201, "{}", fork.body);
    let fork = fork.body["id"].as_str().unwrap().to_owned();
    server.kill();

    let server = Server::start(db, args);
    let retried = server.step(&id, &with_request_id(read("/docs/offsite-agenda.md"), "a"));
    assert_eq!(
        retried.body, before.body,
        "the recorded step, not a second run"
    );
    // The replayed episode remembers the deletion, and counts on from the recorded steps.
    let after = server.step(&id, &read("/docs/offsite-agenda.md"));
    assert_eq!(
        (after.body["index"].as_u64(), &after.body["status"]),
        (Some(2), &json!("tool_error")),
        "{}",
        after.body
    );

    // A fresh episode fed the same actions answers identically: replay is exact.
    let control = server.create(&task);
    server.step(&control, &read("/docs/offsite-agenda.md"));
    server.step(
        &control,
        &tool("delete_file", json!({"path": "/docs/offsite-agenda.md"})),
    );
    let expected = server.step(&control, &read("/docs/offsite-agenda.md"));
    assert_eq!(after.body["observation"], expected.body["observation"]);

    let forked = server.step(&fork, &tool("list_files", json!({})));
    assert_eq!(forked.body["index"], 2, "{}", forked.body);
    assert_eq!(server.episode(&fork)["steps"].as_array().unwrap().len(), 3);
}

fn an_episode_whose_env_changed_is_not_replayed(db: Db) {
    let server = Server::start(&db, &[]);
    let id = server.create(&json!({"env": "workspace"}));
    server.step(&id, &tool("list_files", json!({})));
    server.kill();
    // As if the episode had run in another build of the env.
    db.execute(&format!(
        "UPDATE episodes SET env_hash = 'another-build' WHERE id = '{id}'"
    ));

    let server = Server::start(&db, &[]);
    let refused = server.step(&id, &tool("list_files", json!({})));
    assert_eq!(
        (refused.status, refused.code()),
        (503, "env_unavailable"),
        "{}",
        refused.body
    );
    assert!(
        refused.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another-build")
    );
    let episode = server.episode(&id);
    assert_eq!(
        (
            episode["state"].as_str(),
            episode["steps"].as_array().map(Vec::len)
        ),
        (Some("open"), Some(1))
    );
}

fn a_damaged_step_record_is_reported_as_damaged(db: Db) {
    let server = Server::start(&db, &[]);
    let damaged = server.create(&json!({"env": "workspace"}));
    let sound = server.create(&json!({"env": "workspace"}));
    for id in [&damaged, &sound] {
        server.step(id, &tool("list_files", json!({})));
    }
    // A torn write, as a disk or a hand with a SQL shell might leave it: the compressed record
    // cut short after its length prefix.
    db.execute(&format!(
        "UPDATE steps SET record_lz4 = substr(record_lz4, 1, 6) WHERE episode_id = '{damaged}'"
    ));

    let refused = server.get(&format!("/v1/episodes/{damaged}"));
    assert_eq!(
        (refused.status, refused.code()),
        (500, "store_corrupt"),
        "{}",
        refused.body
    );
    // Nothing else is touched: the other episode reads back, and both keep stepping.
    assert_eq!(server.episode(&sound)["steps"].as_array().unwrap().len(), 1);
    for id in [&damaged, &sound] {
        assert_eq!(server.step(id, &tool("list_files", json!({}))).status, 200);
    }
}

fn forks_diverge_independently(db: Db) {
    let server = Server::start(&db, &[]);
    let id = server.create(&json!({"env": "workspace", "seed": 3}));
    server.step(&id, &tool("list_files", json!({})));
    let fork = server.post(&format!("/v1/episodes/{id}/fork"), &json!({}));
    assert_eq!(fork.status, 201);
    assert_eq!(
        fork.body["forked_from"],
        json!({"episode": id, "after_step": 1})
    );
    let fork = fork.body["id"].as_str().unwrap().to_owned();

    let path = json!({"path": "/docs/offsite-agenda.md"});
    let deleted = server.step(&fork, &tool("delete_file", path.clone()));
    assert_eq!(deleted.body["status"], "ok", "{}", deleted.body);
    assert_eq!(
        server.step(&fork, &tool("read_file", path.clone())).body["status"],
        "tool_error"
    );
    assert_eq!(
        server.step(&id, &tool("read_file", path)).body["status"],
        "ok"
    );

    let (parent, child) = (server.episode(&id), server.episode(&fork));
    assert_eq!(parent["steps"].as_array().unwrap().len(), 2);
    assert_eq!(child["steps"].as_array().unwrap().len(), 3);
    assert_eq!(
        child["steps"][0], parent["steps"][0],
        "the fork carries its parent's history"
    );
}

fn idle_episodes_expire_and_their_record_stays(db: Db) {
    let server = Server::start(&db, &["--episode-ttl", "1s"]);
    let id = server.create(&json!({"env": "workspace"}));
    server.step(&id, &tool("list_files", json!({})));
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let late = server.step(&id, &tool("list_files", json!({})));
    assert_eq!(
        (late.status, late.code()),
        (409, "episode_expired"),
        "{}",
        late.body
    );
    let episode = server.episode(&id);
    assert_eq!(episode["state"], "expired");
    assert_eq!(episode["steps"].as_array().unwrap().len(), 1);
}

fn past_the_open_limit_creation_answers_429_with_retry_after(db: Db) {
    let server = Server::start(&db, &["--max-open-episodes", "2"]);
    let first = server.create(&json!({"env": "workspace"}));
    server.create(&json!({"env": "workspace"}));
    let refused = server.post("/v1/episodes", &json!({"env": "workspace"}));
    assert_eq!((refused.status, refused.code()), (429, "too_many_episodes"));
    assert!(
        refused.head.contains("\r\nretry-after: 1"),
        "{}",
        refused.head
    );
    // A finished episode frees its place.
    server.step(&first, &json!({"action": {"message": "done"}}));
    server.create(&json!({"env": "workspace"}));
}
