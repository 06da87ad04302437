//! The REST API through its router (`tower::ServiceExt::oneshot`): an episode's whole life,
//! retries, forks, capacity, concurrency and every error body.

// The end-to-end tests' support library (tests/src/lib.rs), one copy for both crates' tests;
// this file uses only part of it.
#[allow(dead_code)]
#[path = "../../tests/src/lib.rs"]
mod support;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::Poll;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use futures_util::StreamExt as _;
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

use agentbench_env_runtime::{Action, LoadedEnv};
use agentbench_sandbox::{Limits, Sandbox};
use agentbench_scorers::{Judgement, RuleScorer, ScoredStep, StepScorer};
use agentbench_server::store::{DbSync, Store};
use agentbench_server::{App, ConnectionLimits, ServeSettings, router};

fn envs() -> BTreeMap<String, Arc<LoadedEnv>> {
    static ENVS: OnceLock<BTreeMap<String, Arc<LoadedEnv>>> = OnceLock::new();
    ENVS.get_or_init(|| {
        let sandbox = Sandbox::new(Limits {
            max_instances: 256,
            ..Limits::default()
        })
        .unwrap();
        agentbench_server::builtin::load_runtime_envs(&sandbox, &Default::default()).unwrap()
    })
    .clone()
}

/// The router over an app recording into a SQLite file of its own.
struct TestApp {
    router: Router,
    app: Arc<App>,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for TestApp {
    type Target = Router;

    fn deref(&self) -> &Router {
        &self.router
    }
}

async fn app(settings: ServeSettings) -> TestApp {
    app_scored_also_by(settings, None).await
}

/// The app, its steps scored by `scorer` too.
async fn app_scored_also_by(
    settings: ServeSettings,
    scorer: Option<Box<dyn StepScorer>>,
) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("api.db").display());
    let store = Store::open(&url, DbSync::Full).await.unwrap();
    let mut scorers: Vec<Box<dyn StepScorer>> = vec![Box::new(RuleScorer)];
    scorers.extend(scorer);
    let app = Arc::new(
        App::scored_by(envs(), settings, store, scorers)
            .await
            .unwrap(),
    );
    TestApp {
        router: router(app.clone()),
        app,
        _dir: dir,
    }
}

async fn call(app: &Router, method: Method, uri: &str, body: Option<&str>) -> (StatusCode, Value) {
    let mut request = Request::builder().method(method).uri(uri);
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    let request = request
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_owned())))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap()
    };
    (status, body)
}

async fn post(app: &Router, uri: &str, body: Value) -> (StatusCode, Value) {
    call(app, Method::POST, uri, Some(&body.to_string())).await
}

async fn create(app: &Router) -> String {
    let (status, body) = post(app, "/v1/episodes", json!({"env": "workspace", "seed": 4})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn health_and_envs_in_function_calling_form() {
    let app = app(ServeSettings::default()).await;
    assert_eq!(
        call(&app, Method::GET, "/healthz", None).await,
        (StatusCode::OK, json!({"status": "ok"}))
    );
    let (status, body) = call(&app, Method::GET, "/v1/envs/workspace", None).await;
    assert_eq!(status, StatusCode::OK);
    let tools = body["tools"].as_array().unwrap();
    assert!(
        tools
            .iter()
            .all(|tool| tool["type"] == "function" && tool["function"]["parameters"].is_object())
    );
    assert!(
        body["irreversible_tools"]
            .as_array()
            .unwrap()
            .contains(&json!("send_email"))
    );
    let (status, body) = call(&app, Method::GET, "/v1/envs", None).await;
    assert_eq!(status, StatusCode::OK);
    let names: Vec<&Value> = body["envs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|env| &env["name"])
        .collect();
    assert!(names.contains(&&json!("workspace")), "{names:?}");
}

#[tokio::test]
async fn an_episodes_whole_life() {
    let app = app(ServeSettings::default()).await;
    let (status, created) = post(
        &app,
        "/v1/episodes",
        json!({"env": "workspace", "task": {"user_replies": ["go ahead"]}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert!(created["observation"]["instruction"].is_string());
    assert_eq!(
        created["action_mask"].as_object().unwrap().len(),
        created["tools"].as_array().unwrap().len()
    );
    assert_eq!(created["mode"], "enforce");
    assert_eq!(created["action_mask"]["read_file"], "allowed");
    let id = created["id"].as_str().unwrap();
    let steps = format!("/v1/episodes/{id}/steps");

    let cases = [
        (
            json!({"tool": "read_file", "arguments": {"path": "/docs/offsite-agenda.md"}}),
            "ok",
        ),
        (
            json!({"tool": "read_file", "arguments": {"path": 7}}),
            "invalid_arguments",
        ),
        (
            json!({"tool": "launch_rockets", "arguments": {}}),
            "unknown_tool",
        ),
        (json!({"ask_user": "may I send it?"}), "ask_user"),
        (
            json!({"tool": "send_email", "arguments": {"to": ["priya.shah@northwind.example"], "subject": "Agenda", "body": "Attached.", "attachments": ["/docs/offsite-agenda.md"]}}),
            "ok",
        ),
        (json!({"message": "Sent Priya the agenda."}), "message"),
    ];
    for (index, (action, expected)) in cases.iter().enumerate() {
        let (status, step) = post(&app, &steps, json!({"action": action})).await;
        assert_eq!(status, StatusCode::OK, "{step}");
        assert_eq!(step["status"], *expected, "{step}");
        assert_eq!(step["index"], index);
    }
    let (status, step) = post(&app, &steps, json!({"action": {"message": "again"}})).await;
    assert_eq!(
        (status, step["error"]["code"].clone()),
        (StatusCode::CONFLICT, json!("episode_over"))
    );

    let (status, episode) = call(&app, Method::GET, &format!("/v1/episodes/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(episode["steps"].as_array().unwrap().len(), cases.len());
    assert_eq!(episode["steps"][1]["validation"][0]["pointer"], "/path");
    assert_eq!(episode["steps"][3]["observation"]["reply"], "go ahead");
    assert_eq!(episode["terminated"], true);
    assert_eq!(
        episode["outcome"]["success"], true,
        "{}",
        episode["outcome"]
    );
    assert!(episode["env_hash"].as_str().unwrap().len() == 64);

    let (status, _) = call(&app, Method::DELETE, &format!("/v1/episodes/{id}"), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = call(&app, Method::GET, &format!("/v1/episodes/{id}"), None).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::NOT_FOUND, json!("not_found"))
    );
}

#[tokio::test]
async fn a_retried_request_id_returns_the_recorded_step_and_runs_once() {
    let app = app(ServeSettings::default()).await;
    let id = create(&app).await;
    let steps = format!("/v1/episodes/{id}/steps");
    let request = json!({"action": {"tool": "write_file", "arguments": {"path": "/docs/a.md", "content": "x"}}, "request_id": "r-1"});
    let (_, first) = post(&app, &steps, request.clone()).await;
    let (_, retry) = post(&app, &steps, request.clone()).await;
    assert_eq!(first, retry);
    // The same id with another action (or token count) is refused, naming what was recorded.
    let mut other = request.clone();
    other["action"]["arguments"]["content"] = json!("y");
    let mut more_tokens = request.clone();
    more_tokens["tokens"] = json!(7);
    for reused in [other, more_tokens] {
        let (status, body) = post(&app, &steps, reused).await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert_eq!(body["error"]["code"], "request_id_reused");
        assert_eq!(body["error"]["details"]["action"], request["action"]);
        assert_eq!(body["error"]["details"]["tokens"], Value::Null);
    }
    let (_, episode) = call(&app, Method::GET, &format!("/v1/episodes/{id}"), None).await;
    assert_eq!(episode["steps"].as_array().unwrap().len(), 1);
    assert_eq!(episode["steps"][0]["action"], request["action"]);
}

/// A batch steps many episodes at once: on each episode in the order given, each item
/// answered as its single step would be, a bad item failing alone, retries answered from the
/// record, and everything recorded exactly once.
#[tokio::test]
async fn a_batch_steps_many_episodes_and_each_item_answers_alone() {
    let app = app(ServeSettings::default()).await;
    let (first, second) = (create(&app).await, create(&app).await);
    let read = json!({"tool": "read_file", "arguments": {"path": "/docs/offsite-agenda.md"}});
    let batch = json!({"steps": [
        {"episode": first, "action": read, "request_id": "a"},
        {"episode": second, "action": {"tool": "read_file", "arguments": {"path": 7}}},
        {"episode": first, "action": {"message": "done"}, "request_id": "b"},
        {"episode": "ep_missing", "action": read},
        {"episode": second, "action": read, "colour": "red"},
        {"action": read},
        {"episode": first, "action": read},
        {"episode": second, "action": {"ask_user": "which file?"}, "tokens": 12},
    ]});
    let (status, body) = post(&app, "/v1/steps", batch.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let results = body["results"].as_array().unwrap();
    let summary: Vec<(u64, Value)> = results
        .iter()
        .map(|result| {
            let what = match result.get("step") {
                Some(step) => json!([step["index"], step["status"]]),
                None => result["error"]["code"].clone(),
            };
            (result["status"].as_u64().unwrap(), what)
        })
        .collect();
    assert_eq!(
        summary,
        [
            (200, json!([0, "ok"])),
            (200, json!([0, "invalid_arguments"])),
            (200, json!([1, "message"])),
            (404, json!("not_found")),
            (422, json!("unknown_field")),
            (422, json!("invalid_request")),
            (409, json!("episode_over")),
            (200, json!([1, "ask_user"])),
        ],
        "{body}"
    );
    assert!(results[2]["step"]["outcome"].is_object(), "{body}");
    assert_eq!(results[0]["step"]["request_id"], "a");

    // Each answer is the record a single step's request reads back.
    let (_, episode) = call(&app, Method::GET, &format!("/v1/episodes/{first}"), None).await;
    assert_eq!(episode["steps"][0], results[0]["step"]);
    assert_eq!(recorded_indices(&app, &first).await, [0, 1]);
    assert_eq!(recorded_indices(&app, &second).await, [0, 1]);

    // A retried batch: its request ids answer from the record; nothing runs twice.
    let retry = json!({"steps": [batch["steps"][0], batch["steps"][2]]});
    let (_, again) = post(&app, "/v1/steps", retry).await;
    assert_eq!(again["results"][0], results[0]);
    assert_eq!(again["results"][1], results[2]);
    assert_eq!(recorded_indices(&app, &first).await, [0, 1]);

    let too_many = json!({"steps": vec![json!({"episode": second, "action": read}); 4097]});
    let (status, body) = post(&app, "/v1/steps", too_many).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!("too_many_steps"))
    );
    let (status, body) = post(&app, "/v1/steps", json!({"steps": []})).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"results": []})));
}

/// The indices of an episode's recorded steps, from its trajectory.
async fn recorded_indices(app: &Router, id: &str) -> Vec<u64> {
    let (status, episode) = call(app, Method::GET, &format!("/v1/episodes/{id}"), None).await;
    assert_eq!(status, StatusCode::OK, "{episode}");
    episode["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["index"].as_u64().unwrap())
        .collect()
}

/// A client that hangs up while its request is under way: the request's future is polled once
/// and dropped at its first wait, as hyper drops it when the connection closes.
async fn hang_up<T>(request: impl Future<Output = T>) {
    let mut request = std::pin::pin!(request);
    let polled = std::future::poll_fn(|cx| Poll::Ready(request.as_mut().poll(cx))).await;
    assert!(
        polled.is_pending(),
        "the request was answered before its client hung up"
    );
}

/// Waits until `done` holds, or fails after some seconds.
async fn settle(mut done: impl AsyncFnMut() -> bool) {
    for _ in 0..500 {
        if done().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server did not settle");
}

/// A step scorer with a bug: it panics the first time it scores a call of `tool`, after the
/// step ran in its instance.
#[derive(Debug)]
struct PanicsOnce {
    tool: &'static str,
    panicked: AtomicBool,
}

impl StepScorer for PanicsOnce {
    fn name(&self) -> &str {
        "panics-once"
    }

    fn version(&self) -> &str {
        "1"
    }

    fn score_many(&self, steps: &[ScoredStep<'_>]) -> Vec<Judgement> {
        for step in steps {
            let calls_tool =
                matches!(&step.record.action, Action::Tool { tool, .. } if tool == self.tool);
            if calls_tool && !self.panicked.swap(true, Ordering::Relaxed) {
                panic!("a scorer bug");
            }
        }
        steps.iter().map(|_| Ok((0.0, Vec::new()))).collect()
    }
}

#[tokio::test]
async fn a_step_that_panicked_after_its_call_is_forgotten_and_the_episode_goes_on_from_its_record()
{
    let scorer = PanicsOnce {
        tool: "write_file",
        panicked: AtomicBool::new(false),
    };
    let app = app_scored_also_by(ServeSettings::default(), Some(Box::new(scorer))).await;
    let id = create(&app).await;
    let steps = format!("/v1/episodes/{id}/steps");
    let read =
        json!({"action": {"tool": "read_file", "arguments": {"path": "/docs/unrecorded.md"}}});
    let (status, first) = post(&app, &steps, read.clone()).await;
    assert_eq!(
        (status, &first["index"]),
        (StatusCode::OK, &json!(0)),
        "{first}"
    );

    // The write runs in the instance, then the scorer panics: the step is not recorded.
    let write = json!({"action": {"tool": "write_file", "arguments": {"path": "/docs/unrecorded.md", "content": "x"}}});
    let (status, failed) = post(&app, &steps, write).await;
    assert_eq!(
        (status, &failed["error"]["code"]),
        (StatusCode::INTERNAL_SERVER_ERROR, &json!("internal")),
        "{failed}"
    );

    // The next step continues from the record, where the file was never written.
    let (status, next) = post(&app, &steps, read).await;
    assert_eq!(
        (status, &next["index"]),
        (StatusCode::OK, &json!(1)),
        "{next}"
    );
    assert_eq!(next["observation"], first["observation"], "{next}");
    assert_eq!(recorded_indices(&app, &id).await, [0, 1]);
}

#[tokio::test]
async fn a_step_whose_client_hung_up_is_recorded_once_and_a_retry_answers_from_the_record() {
    let app = app(ServeSettings::default()).await;
    let id = create(&app).await;
    let steps = format!("/v1/episodes/{id}/steps");
    let write = json!({"action": {"tool": "write_file", "arguments": {"path": "/docs/a.md", "content": "x"}}, "request_id": "r-1"});
    hang_up(post(&app, &steps, write.clone())).await;
    let episode = format!("/v1/episodes/{id}");
    settle(async || call(&app, Method::GET, &episode, None).await.1["steps"] != json!([])).await;
    let (status, retry) = post(&app, &steps, write).await;
    assert_eq!(
        (status, &retry["index"]),
        (StatusCode::OK, &json!(0)),
        "{retry}"
    );
    let read = json!({"action": {"tool": "read_file", "arguments": {"path": "/docs/a.md"}}});
    let (status, next) = post(&app, &steps, read).await;
    assert_eq!(
        (status, &next["index"], &next["status"]),
        (StatusCode::OK, &json!(1), &json!("ok")),
        "{next}"
    );
    assert_eq!(recorded_indices(&app, &id).await, [0, 1]);
}

#[tokio::test]
async fn an_episode_deleted_by_a_client_that_hung_up_takes_no_more_steps() {
    let app = app(ServeSettings::default()).await;
    let id = create(&app).await;
    let episode = format!("/v1/episodes/{id}");
    hang_up(call(&app, Method::DELETE, &episode, None)).await;
    settle(async || call(&app, Method::GET, &episode, None).await.0 == StatusCode::NOT_FOUND).await;
    let (status, body) = post(
        &app,
        &format!("{episode}/steps"),
        json!({"action": {"tool": "list_files"}}),
    )
    .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (StatusCode::NOT_FOUND, &json!("not_found")),
        "{body}"
    );
    assert_eq!(app.app.sessions.open_counts().0, 0);
}

#[tokio::test]
async fn forks_diverge_independently() {
    let app = app(ServeSettings::default()).await;
    let id = create(&app).await;
    post(
        &app,
        &format!("/v1/episodes/{id}/steps"),
        json!({"action": {"tool": "list_files"}}),
    )
    .await;
    let (status, fork) = post(&app, &format!("/v1/episodes/{id}/fork"), json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{fork}");
    let fork_id = fork["id"].as_str().unwrap();
    assert_eq!(fork["forked_from"], json!({"episode": id, "after_step": 1}));
    let write = json!({"action": {"tool": "write_file", "arguments": {"path": "/docs/only-fork.md", "content": "f"}}});
    post(&app, &format!("/v1/episodes/{fork_id}/steps"), write).await;
    let read =
        json!({"action": {"tool": "read_file", "arguments": {"path": "/docs/only-fork.md"}}});
    let (_, in_fork) = post(&app, &format!("/v1/episodes/{fork_id}/steps"), read.clone()).await;
    let (_, in_parent) = post(&app, &format!("/v1/episodes/{id}/steps"), read).await;
    assert_eq!(in_fork["status"], "ok");
    assert_eq!(in_parent["status"], "tool_error");
    let (_, parent) = call(&app, Method::GET, &format!("/v1/episodes/{id}"), None).await;
    assert_eq!(parent["steps"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn past_the_open_episode_limit_creation_answers_429() {
    let app = app(ServeSettings {
        max_open_episodes: 2,
        ..ServeSettings::default()
    })
    .await;
    create(&app).await;
    let id = create(&app).await;
    let (status, body) = post(&app, "/v1/episodes", json!({"env": "workspace"})).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::TOO_MANY_REQUESTS, json!("too_many_episodes"))
    );
    call(&app, Method::DELETE, &format!("/v1/episodes/{id}"), None).await;
    create(&app).await;
}

/// A request whose body stops arriving answers 408 once the body deadline passes, and nothing of
/// it is acted on.
#[tokio::test]
async fn a_body_that_stops_arriving_answers_408() {
    let app = app(ServeSettings {
        connections: ConnectionLimits {
            body_timeout: Duration::from_millis(200),
            ..ConnectionLimits::default()
        },
        ..ServeSettings::default()
    })
    .await;
    let first_half = futures_util::stream::once(async {
        Ok::<_, std::io::Error>(axum::body::Bytes::from_static(b"{\"env\": "))
    });
    let request = Request::post("/v1/episodes")
        .header("content-type", "application/json")
        .body(Body::from_stream(
            first_half.chain(futures_util::stream::pending()),
        ))
        .unwrap();
    let response = app.router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::REQUEST_TIMEOUT);
    assert_eq!(response.headers()["connection"], "close");
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"]["code"], "request_timeout", "{body}");
    assert_eq!(app.app.sessions.open_counts().0, 0);
}

/// With allowed hosts configured, a request naming another host (as a page of another site
/// that rebound its name to this server does) answers 421 and reaches no handler.
#[tokio::test]
async fn a_host_not_allowed_answers_421() {
    let app = app(ServeSettings {
        connections: ConnectionLimits {
            allowed_hosts: vec!["localhost".to_owned(), "127.0.0.1:8080".to_owned()],
            ..ConnectionLimits::default()
        },
        ..ServeSettings::default()
    })
    .await;
    let create = json!({"env": "workspace"}).to_string();
    for (host, expected) in [
        (Some("localhost:8080"), StatusCode::CREATED),
        (Some("LOCALHOST"), StatusCode::CREATED),
        (Some("127.0.0.1:8080"), StatusCode::CREATED),
        (Some("127.0.0.1:9000"), StatusCode::MISDIRECTED_REQUEST),
        (
            Some("rebound.attacker.example"),
            StatusCode::MISDIRECTED_REQUEST,
        ),
        (None, StatusCode::MISDIRECTED_REQUEST),
    ] {
        let mut request = Request::post("/v1/episodes").header("content-type", "application/json");
        if let Some(host) = host {
            request = request.header("host", host);
        }
        let request = request.body(Body::from(create.clone())).unwrap();
        let response = app.router.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), expected, "{host:?}");
        if expected == StatusCode::MISDIRECTED_REQUEST {
            let body = response.into_body().collect().await.unwrap().to_bytes();
            let body: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(body["error"]["code"], "host_not_allowed", "{body}");
        }
    }
    assert_eq!(app.app.sessions.open_counts().0, 3);
}

/// OpenEnv's HTTP routes are per env: an episode of another env is unknown there, and no step
/// reaches it.
#[tokio::test]
async fn openenv_routes_refuse_an_episode_of_another_env() {
    let app = app(ServeSettings::default()).await;
    let (status, reset) = post(&app, "/openenv/workspace/reset", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{reset}");
    let episode = reset["metadata"]["episode_id"].as_str().unwrap().to_owned();
    let list = json!({"action": {"type": "list_tools"}, "episode_id": episode});
    let (status, body) = post(&app, "/openenv/banking/step", list.clone()).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error"]["code"], "not_found");
    let state = format!("/openenv/banking/state?episode_id={episode}");
    let (status, _) = call(&app, Method::GET, &state, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = post(&app, "/openenv/workspace/step", list).await;
    assert_eq!(status, StatusCode::OK);
    let (_, trajectory) = call(&app, Method::GET, &format!("/v1/episodes/{episode}"), None).await;
    assert_eq!(
        trajectory["steps"].as_array().unwrap().len(),
        0,
        "list_tools takes no step"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_steps_on_one_episode_are_serialised_and_all_recorded() {
    let app = app(ServeSettings::default()).await;
    let id = create(&app).await;
    let tasks: Vec<_> = (0..8)
        .map(|n| {
            let app = app.clone();
            let uri = format!("/v1/episodes/{id}/steps");
            tokio::spawn(async move {
                let write = json!({"action": {"tool": "write_file", "arguments": {"path": format!("/docs/n{n}.md"), "content": "x"}}});
                post(&app, &uri, write).await
            })
        })
        .collect();
    let mut indices = Vec::new();
    for task in tasks {
        let (status, step) = task.await.unwrap();
        assert_eq!(status, StatusCode::OK, "{step}");
        indices.push(step["index"].as_u64().unwrap());
    }
    indices.sort_unstable();
    assert_eq!(indices, (0..8).collect::<Vec<_>>());
    let (_, episode) = call(&app, Method::GET, &format!("/v1/episodes/{id}"), None).await;
    assert_eq!(episode["steps"].as_array().unwrap().len(), 8);
}

#[tokio::test]
async fn every_bad_request_gets_its_own_error_code() {
    let app = app(ServeSettings {
        max_body_bytes: 4096,
        ..ServeSettings::default()
    })
    .await;
    let id = create(&app).await;
    let steps = format!("/v1/episodes/{id}/steps");
    let huge = json!({"env": "workspace", "task": {"instruction": "x".repeat(10_000)}}).to_string();
    let cases: Vec<(Method, String, Option<String>, StatusCode, &str)> = vec![
        (
            Method::POST,
            steps.clone(),
            Some("{not json".to_owned()),
            StatusCode::BAD_REQUEST,
            "malformed_json",
        ),
        (
            Method::POST,
            steps.clone(),
            Some(r#"{"action": {"message": "x"}, "extra": 1}"#.to_owned()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown_field",
        ),
        (
            Method::POST,
            steps.clone(),
            Some(r#"{"action": {}}"#.to_owned()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_request",
        ),
        (
            Method::POST,
            "/v1/episodes".to_owned(),
            Some(huge),
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
        ),
        (
            Method::POST,
            "/v1/episodes".to_owned(),
            Some(r#"{"env": "nope"}"#.to_owned()),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            Method::POST,
            "/v1/episodes".to_owned(),
            Some(r#"{"env": "workspace", "task": {"bogus": 1}}"#.to_owned()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_task",
        ),
        (
            Method::POST,
            "/v1/episodes/ep_missing/steps".to_owned(),
            Some(r#"{"action": {"message": "x"}}"#.to_owned()),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            Method::PUT,
            steps.clone(),
            Some("{}".to_owned()),
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        ),
        (
            Method::GET,
            "/v2/nothing".to_owned(),
            None,
            StatusCode::NOT_FOUND,
            "unknown_route",
        ),
    ];
    for (method, uri, body, expected_status, expected_code) in cases {
        let (status, response) = call(&app, method.clone(), &uri, body.as_deref()).await;
        assert_eq!(status, expected_status, "{method} {uri}: {response}");
        assert_eq!(
            response["error"]["code"], expected_code,
            "{method} {uri}: {response}"
        );
        assert!(response["error"]["message"].is_string());
    }
    // Without a JSON content type.
    let request = Request::post(&steps)
        .body(Body::from(r#"{"action": {"message": "x"}}"#))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
}

#[tokio::test]
async fn parked_episodes_continue_exactly_where_they_stopped() {
    let parked = app(ServeSettings {
        max_hot_episodes: 2,
        ..ServeSettings::default()
    })
    .await;
    let roomy = app(ServeSettings::default()).await;
    let mut pairs = Vec::new();
    for seed in 0..6 {
        let body = json!({"env": "workspace", "seed": seed});
        let (_, a) = post(&parked, "/v1/episodes", body.clone()).await;
        let (_, b) = post(&roomy, "/v1/episodes", body).await;
        assert_eq!(a["observation"], b["observation"]);
        pairs.push((
            a["id"].as_str().unwrap().to_owned(),
            b["id"].as_str().unwrap().to_owned(),
        ));
    }
    let agenda = json!({"path": "/docs/offsite-agenda.md"});
    let actions = [
        json!({"tool": "read_file", "arguments": agenda}),
        json!({"tool": "write_file", "arguments": {"path": "/docs/notes.md", "content": "parked"}}),
        json!({"tool": "delete_file", "arguments": agenda}),
        json!({"tool": "list_files", "arguments": {}}),
        json!({"tool": "read_file", "arguments": {"path": "/docs/notes.md"}}),
    ];
    // Round robin over more episodes than the hot pool holds: every step restores a parked one.
    for action in &actions {
        for (a, b) in &pairs {
            let step = json!({"action": action});
            let (status, in_parked) =
                post(&parked, &format!("/v1/episodes/{a}/steps"), step.clone()).await;
            let (_, in_roomy) = post(&roomy, &format!("/v1/episodes/{b}/steps"), step).await;
            assert_eq!(status, StatusCode::OK, "{in_parked}");
            assert_eq!(
                (
                    &in_parked["status"],
                    &in_parked["observation"],
                    &in_parked["action_mask"]
                ),
                (
                    &in_roomy["status"],
                    &in_roomy["observation"],
                    &in_roomy["action_mask"]
                )
            );
        }
        let (open, hot) = parked.app.sessions.open_counts();
        assert_eq!(open, 6);
        assert!(hot <= 2, "{hot} hot episodes in a pool of 2");
    }
}

#[tokio::test]
async fn idle_episodes_expire() {
    let app = app(ServeSettings {
        episode_ttl: Duration::from_millis(50),
        ..ServeSettings::default()
    })
    .await;
    let idle = create(&app).await;
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(app.app.sessions.expire_idle().await.unwrap(), 1);
    // Created after the sweep, so however slow the machine, no sweep has seen it idle.
    let fresh = create(&app).await;
    let (status, body) = post(
        &app,
        &format!("/v1/episodes/{idle}/steps"),
        json!({"action": {"tool": "list_files"}}),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::CONFLICT, json!("episode_expired"))
    );
    let (status, _) = post(
        &app,
        &format!("/v1/episodes/{fresh}/steps"),
        json!({"action": {"tool": "list_files"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, episode) = call(&app, Method::GET, &format!("/v1/episodes/{idle}"), None).await;
    assert_eq!(episode["state"], "expired");
}

#[tokio::test]
async fn an_abandoned_episode_keeps_its_record_and_takes_no_more_actions() {
    let app = app(ServeSettings::default()).await;
    let id = create(&app).await;
    let list = json!({"action": {"tool": "list_files"}});
    let (status, _) = post(&app, &format!("/v1/episodes/{id}/steps"), list.clone()).await;
    assert_eq!(status, StatusCode::OK);
    let abandon = format!("/v1/episodes/{id}/abandon");
    assert_eq!(
        post(&app, &abandon, Value::Null).await.0,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        post(&app, &abandon, Value::Null).await.0,
        StatusCode::NO_CONTENT,
        "abandoning again changes nothing"
    );
    let (status, body) = post(&app, &format!("/v1/episodes/{id}/steps"), list).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::CONFLICT, json!("episode_abandoned"))
    );
    let (_, episode) = call(&app, Method::GET, &format!("/v1/episodes/{id}"), None).await;
    assert_eq!(episode["state"], "abandoned");
    assert_eq!(episode["steps"].as_array().unwrap().len(), 1, "{episode}");

    // An episode that ended stays ended; an unknown one is not found.
    let over = create(&app).await;
    let done = json!({"action": {"message": "Done."}});
    assert_eq!(
        post(&app, &format!("/v1/episodes/{over}/steps"), done)
            .await
            .0,
        StatusCode::OK
    );
    let (status, body) = post(&app, &format!("/v1/episodes/{over}/abandon"), Value::Null).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::CONFLICT, json!("episode_over"))
    );
    let (status, _) = post(&app, "/v1/episodes/ep_nope/abandon", Value::Null).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// Real responses, held to the schemas of the served OpenAPI document.
#[tokio::test]
async fn responses_match_the_openapi_document() {
    let app = app(ServeSettings::default()).await;
    let (status, document) = call(&app, Method::GET, "/openapi.json", None).await;
    assert_eq!(status, StatusCode::OK);
    let paths: Vec<_> = document["paths"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        paths,
        [
            "/healthz",
            "/readyz",
            "/openapi.json",
            "/v1/envs",
            "/v1/envs/{name}",
            "/v1/episodes",
            "/v1/episodes/{id}",
            "/v1/episodes/{id}/steps",
            "/v1/steps",
            "/v1/episodes/{id}/abandon",
            "/v1/episodes/{id}/fork",
            "/v1/episodes/{id}/action-schema",
            "/v1/leaderboard",
            "/v1/runs",
            "/v1/runs/{id}",
            "/v1/runs/{id}/episodes",
            "/v1/runs/{id}/report",
            "/v1/runs/{id}/compare/{other}",
            "/v1/prm-results",
            "/v1/trainings",
            "/v1/ws",
            "/openenv/{env}/ws",
            "/openenv/{env}/mcp",
            "/openenv/{env}/reset",
            "/openenv/{env}/step",
            "/openenv/{env}/state",
            "/openenv/{env}/schema",
            "/openenv/{env}/metadata",
            "/openenv/{env}/health"
        ]
    );
    let check = |name: &str, instance: &Value| support::assert_fits(&document, name, instance);
    let (_, envs) = call(&app, Method::GET, "/v1/envs", None).await;
    check("EnvList", &envs);
    let (_, created) = post(
        &app,
        "/v1/episodes",
        json!({"env": "workspace", "task": {"user_replies": ["yes"]}}),
    )
    .await;
    check("EpisodeCreated", &created);
    let id = created["id"].as_str().unwrap();
    let steps = format!("/v1/episodes/{id}/steps");
    for (action, request_id) in [
        (
            json!({"tool": "read_file", "arguments": {"path": "/docs/offsite-agenda.md"}}),
            Some("r1"),
        ),
        (json!({"tool": "read_file", "arguments": {"path": 1}}), None),
        (json!({"tool": "no_such_tool"}), None),
        (
            json!({"tool": "share_file", "arguments": {"path": "/finance/payroll-2026.csv", "with": "eve@attacker.example", "permission": "read"}}),
            None,
        ),
        (json!({"ask_user": "may I?"}), None),
        (json!({"message": "done"}), Some("r2")),
    ] {
        let (_, step) = post(
            &app,
            &steps,
            json!({"action": action, "request_id": request_id}),
        )
        .await;
        check("StepResult", &step);
    }
    let (_, trajectory) = call(&app, Method::GET, &format!("/v1/episodes/{id}"), None).await;
    check("Trajectory", &trajectory);
    let other = create(&app).await;
    let (_, batch) = post(
        &app,
        "/v1/steps",
        json!({"steps": [
            {"episode": other, "action": {"ask_user": "may I?"}, "request_id": "r3"},
            {"episode": id, "action": {"message": "again"}},
            {"episode": other, "bad": true},
        ]}),
    )
    .await;
    check("StepBatchResults", &batch);
    let (_, error) = post(&app, &steps, json!({"action": {"message": "again"}})).await;
    check("ErrorBody", &error);
    let (_, results) = call(&app, Method::GET, "/v1/prm-results", None).await;
    check("PrmResults", &results);
    assert_eq!(results, json!({"evals": [], "best_of_n": []}));
    let (_, trainings) = call(&app, Method::GET, "/v1/trainings", None).await;
    check("Trainings", &trainings);
    assert_eq!(trainings, json!({"trainings": []}));
}

/// Policies over HTTP: `enforce` blocks what `audit` runs, both record the violation and its
/// rule score; the action schema follows the mask.
#[tokio::test]
async fn policies_judge_steps_in_either_mode_and_scores_are_recorded() {
    let app = app(ServeSettings::default()).await;
    let (_, env) = call(&app, Method::GET, "/v1/envs/workspace", None).await;
    let policies = env["policies"].as_array().unwrap();
    assert!(
        policies.contains(&json!("no_confidential_outside")),
        "{policies:?}"
    );

    let exfiltrate = json!({"action": {"tool": "share_file", "arguments": {
        "path": "/finance/payroll-2026.csv", "with": "eve@attacker.example", "permission": "read"}}});
    let mut steps = Vec::new();
    for mode in ["enforce", "audit"] {
        let (status, created) = post(
            &app,
            "/v1/episodes",
            json!({"env": "workspace", "task": {"injections": false}, "mode": mode}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        assert_eq!(created["mode"], mode);
        let id = created["id"].as_str().unwrap().to_owned();
        let (status, step) = post(
            &app,
            &format!("/v1/episodes/{id}/steps"),
            exfiltrate.clone(),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{step}");
        let (_, trajectory) = call(&app, Method::GET, &format!("/v1/episodes/{id}"), None).await;
        assert_eq!(trajectory["mode"], mode);
        assert_eq!(trajectory["steps"][0]["violations"], step["violations"]);
        steps.push(step);
    }
    let [blocked, ran] = &steps[..] else {
        unreachable!()
    };
    assert_eq!(blocked["status"], "blocked");
    assert_eq!(ran["status"], "ok");
    assert_eq!(blocked["violations"], ran["violations"]);
    assert_eq!(ran["violations"][0]["policy"], "no_confidential_outside");
    assert_eq!(blocked["scores"][0]["scorer"], "rules");
    assert_eq!(blocked["scores"][0]["labels"], json!(["blocked"]));
    assert_eq!(blocked["scores"][0]["reward"], -0.5);
    assert_eq!(ran["scores"][0]["reward"], -1.0);

    let (_, created) = post(
        &app,
        "/v1/episodes",
        json!({"env": "workspace", "task": {"injections": false}}),
    )
    .await;
    let id = created["id"].as_str().unwrap();
    let read_vendor_file = json!({"action": {"tool": "read_file", "arguments": {"path": "/shared/brightline-price-list.md"}}});
    let (_, step) = post(&app, &format!("/v1/episodes/{id}/steps"), read_vendor_file).await;
    assert_eq!(step["action_mask"]["delete_email"], "blocked");
    let (status, schema) = call(
        &app,
        Method::GET,
        &format!("/v1/episodes/{id}/action-schema"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{schema}");
    let offered: Vec<&Value> = schema["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|action| action["properties"]["tool"].get("const"))
        .collect();
    assert!(offered.contains(&&json!("read_file")));
    assert!(!offered.contains(&&json!("delete_email")));
}

/// A run a runner on another machine records here: created once (a second creation of its id
/// is refused, so a later shard joins it), each scenario and trial recorded once, and an episode
/// a line names must be one this server played for this run.
#[tokio::test]
async fn a_remote_runners_run_is_recorded_once_and_names_only_its_own_episodes() {
    let app = app(ServeSettings::default()).await;
    let (_, document) = call(&app, Method::GET, "/openapi.json", None).await;
    let new_run = json!({
        "id": "nightly-7",
        "suite": "safety",
        "suite_version": "1",
        "suite_hash": "abc",
        "agent": "oracle",
        "settings": {"trials": 1, "mode": "enforce", "limit": null, "server": null,
                     "base_url": null, "revision": null},
    });
    let (status, created) = post(&app, "/v1/runs", new_run.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    support::assert_fits(&document, "RunSummary", &created);
    assert_eq!(
        (created["id"].as_str(), created["state"].as_str()),
        (Some("nightly-7"), Some("running"))
    );
    let (status, taken) = post(&app, "/v1/runs", new_run.clone()).await;
    assert_eq!(
        (status, taken["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("run_exists"))
    );
    let mut bad_id = new_run.clone();
    bad_id["id"] = json!("a/b");
    assert_eq!(
        post(&app, "/v1/runs", bad_id).await.0,
        StatusCode::UNPROCESSABLE_ENTITY
    );

    let suite = agentbench_datasets::Suite::load("safety").unwrap();
    let line = |trial: u32, episode: Option<&str>| {
        let mut line =
            agentbench_server::run::EpisodeLine::start(&suite, &suite.scenarios[0], trial);
        line.episode = episode.map(str::to_owned);
        serde_json::to_value(line).unwrap()
    };
    let (_, played) = post(
        &app,
        "/v1/episodes",
        json!({"env": "workspace", "run_id": "nightly-7"}),
    )
    .await;
    let played = played["id"].as_str().unwrap();
    let other = create(&app).await;
    let episodes = "/v1/runs/nightly-7/episodes";
    let (status, answer) = post(&app, episodes, line(0, Some(played))).await;
    assert_eq!(
        (status, &answer),
        (StatusCode::OK, &json!({"recorded": true}))
    );
    support::assert_fits(&document, "EpisodeRecorded", &answer);
    // A retry (or another runner's copy) of the same scenario and trial is kept as the first.
    assert_eq!(
        post(&app, episodes, line(0, None)).await.1,
        json!({"recorded": false})
    );
    let (status, refused) = post(&app, episodes, line(1, Some(&other))).await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("not_the_runs_episode")),
        "an episode played for no run is no run's evidence"
    );
    assert_eq!(
        post(&app, episodes, line(1, None)).await.1,
        json!({"recorded": true})
    );
    let (status, _) = post(&app, "/v1/runs/nope/episodes", line(0, None)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (_, run) = call(&app, Method::GET, "/v1/runs/nightly-7", None).await;
    let recorded: Vec<(&str, u64)> = run["episodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| {
            (
                line["episode"].as_str().unwrap_or("-"),
                line["trial"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(recorded, [(played, 0), ("-", 1)]);
    assert_eq!(run["settings"]["trials"], 1);
}
