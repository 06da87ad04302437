//! The OpenAI agent against served baselines over real loopback HTTP, playing scenarios through
//! the episode runtime in process; and its retries against endpoints that fail.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

use agentbench_agents::chat::reply_body;
use agentbench_agents::{
    Action, Agent, AgentError, Baseline, OpenAiAgent, OpenAiSettings, Sampling, Scripted, Turn,
    View,
};
use agentbench_datasets::{Scenario, Suite};
use agentbench_env_contract::Outcome;
use agentbench_env_runtime::testing::builtin_env;
use agentbench_env_runtime::{Episode, LoadedEnv, Mode};
use agentbench_server::chat_api::{chat_router, serve_chat};

fn workspace() -> Arc<LoadedEnv> {
    builtin_env("workspace")
}

fn safety() -> Arc<Suite> {
    static SUITE: OnceLock<Arc<Suite>> = OnceLock::new();
    SUITE
        .get_or_init(|| Arc::new(Suite::builtin("safety").unwrap()))
        .clone()
}

fn scenario(id: &str) -> Scenario {
    safety().scenario(id).unwrap().clone()
}

/// Serves `router` on a free loopback port; returns its `/v1` root.
async fn spawn(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve_chat(listener, router, std::future::pending()));
    format!("http://{addr}/v1")
}

/// Serves `baseline` for the safety suite, with the workspace env's manifest.
async fn serve_baseline(baseline: Baseline) -> String {
    let manifest = workspace().manifest().clone();
    let manifests = BTreeMap::from([(manifest.name.clone(), manifest)]);
    spawn(chat_router(
        Arc::new(Scripted::baseline(baseline)),
        safety(),
        manifests,
    ))
    .await
}

fn settings(base_url: &str) -> OpenAiSettings {
    OpenAiSettings {
        model: "served".to_owned(),
        base_url: base_url.to_owned(),
        api_key: Some("test-key".to_owned()),
        timeout: Duration::from_secs(10),
        max_retries: 2,
        first_backoff: Duration::from_millis(1),
        sampling: Sampling::default(),
    }
}

/// Plays `scenario` to its end with `agent`, as a runner would, with the agent never shown the
/// scenario; returns the turns and the outcome.
async fn play(agent: &dyn Agent, scenario: &Scenario) -> (Vec<Turn>, Outcome) {
    let env = workspace();
    let (mut episode, first) = Episode::start(
        env.clone(),
        scenario.seed,
        &scenario.task_config(),
        Mode::Enforce,
    )
    .unwrap();
    let observation: Value = serde_json::from_str(first.get()).unwrap();
    let mut turns: Vec<Turn> = Vec::new();
    while !episode.is_over() {
        let mask = episode.mask().clone();
        let view = View {
            scenario: None,
            trial: 0,
            sample: 0,
            instruction: &scenario.instruction,
            observation: &observation,
            tools: &env.manifest().tools,
            mask: &mask,
            turns: &turns,
        };
        let decision = agent.act(view).await.unwrap();
        assert_eq!(decision.mistake, None, "{decision:?}");
        let record = episode
            .step(decision.action, decision.tokens)
            .unwrap()
            .record;
        turns.push(Turn::from_record(&record));
        assert!(turns.len() <= 20, "the episode does not end: {turns:?}");
    }
    (turns, episode.outcome().unwrap())
}

#[tokio::test]
async fn the_served_oracle_succeeds_through_the_openai_agent() {
    let base_url = serve_baseline(Baseline::Oracle).await;
    let agent = OpenAiAgent::new(settings(&base_url)).unwrap();
    assert_eq!(agent.name(), "openai:served");
    let scenario = scenario("workspace/utility/offsite-agenda");

    let (turns, outcome) = play(&agent, &scenario).await;

    let actions: Vec<Action> = turns.iter().map(|turn| turn.action.clone()).collect();
    assert_eq!(actions, scenario.reference);
    assert!(
        turns[..turns.len() - 1]
            .iter()
            .all(|turn| turn.status == "ok"),
        "{turns:?}"
    );
    assert!(outcome.success, "{outcome:?}");
    assert!(outcome.harms.is_empty(), "{outcome:?}");
}

#[tokio::test]
async fn the_served_cautious_baseline_asks_before_sending_email() {
    let base_url = serve_baseline(Baseline::Cautious).await;
    let agent = OpenAiAgent::new(settings(&base_url)).unwrap();
    let scenario = scenario("workspace/utility/offsite-agenda");

    let (turns, _) = play(&agent, &scenario).await;

    let (asked, question) = turns
        .iter()
        .enumerate()
        .find_map(|(index, turn)| match &turn.action {
            Action::AskUser { question } => Some((index, question)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("cautious never asked the user: {turns:?}"));
    assert!(question.contains("send_email"), "{question}");
    assert_eq!(turns[asked].status, "ask_user");
    // The scenario scripts the user's consent, so the email goes out, after the question.
    let sent = turns
        .iter()
        .position(|turn| matches!(&turn.action, Action::Tool { tool, .. } if tool == "send_email"))
        .unwrap_or_else(|| panic!("cautious never sent the email after consent: {turns:?}"));
    assert!(sent > asked, "{turns:?}");
    assert_eq!(turns[sent].status, "ok");
    assert!(matches!(
        turns.last().map(|turn| &turn.action),
        Some(Action::Message { .. })
    ));
}

/// A view of the scenario's start, for single requests.
async fn act_once(agent: &OpenAiAgent) -> Result<agentbench_agents::Decision, AgentError> {
    let scenario = scenario("workspace/utility/offsite-agenda");
    let mask = BTreeMap::new();
    let view = View {
        scenario: None,
        trial: 0,
        sample: 0,
        instruction: &scenario.instruction,
        observation: &json!({}),
        tools: &[],
        mask: &mask,
        turns: &[],
    };
    agent.act(view).await
}

#[tokio::test]
async fn an_endpoint_with_nothing_listening_is_unreachable_after_the_retries() {
    // A port that was just free: nothing listens there once the listener is dropped.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let agent = OpenAiAgent::new(settings(&format!("http://{addr}/v1"))).unwrap();

    match act_once(&agent).await {
        Err(AgentError::Unreachable { url, .. }) => {
            assert_eq!(url, format!("http://{addr}/v1/chat/completions"));
        }
        other => panic!("expected the endpoint to be unreachable, got {other:?}"),
    }
}

/// An endpoint that answers the statuses of `script` in turn (then 200 with a final message),
/// and counts the requests and the bearer tokens it saw.
#[derive(Debug, Default)]
struct Flaky {
    requests: AtomicUsize,
    authorized: AtomicUsize,
}

async fn flaky(script: &'static [(u16, Option<&'static str>)]) -> (String, Arc<Flaky>) {
    let seen = Arc::new(Flaky::default());
    let counter = seen.clone();
    let router = Router::new().route(
        "/v1/chat/completions",
        post(move |headers: axum::http::HeaderMap| {
            let counter = counter.clone();
            async move {
                let index = counter.requests.fetch_add(1, Ordering::SeqCst);
                if headers
                    .get("authorization")
                    .and_then(|value| value.to_str().ok())
                    == Some("Bearer test-key")
                {
                    counter.authorized.fetch_add(1, Ordering::SeqCst);
                }
                let response: Response = match script.get(index) {
                    Some(&(status, retry_after)) => {
                        let status = StatusCode::from_u16(status).unwrap();
                        let mut response =
                            (status, format!("{{\"error\": \"attempt {index}\"}}")).into_response();
                        if let Some(seconds) = retry_after {
                            response
                                .headers_mut()
                                .insert("retry-after", seconds.parse().unwrap());
                        }
                        response
                    }
                    None => axum::Json(reply_body(
                        &Action::Message {
                            message: "done".to_owned(),
                        },
                        "flaky",
                    ))
                    .into_response(),
                };
                response
            }
        }),
    );
    (spawn(router).await, seen)
}

#[tokio::test]
async fn server_errors_and_rate_limits_are_retried_until_an_answer() {
    let (base_url, seen) = flaky(&[(500, None), (429, Some("0")), (503, None)]).await;
    let agent = OpenAiAgent::new(OpenAiSettings {
        max_retries: 3,
        ..settings(&base_url)
    })
    .unwrap();

    let decision = act_once(&agent).await.unwrap();

    assert_eq!(
        decision.action,
        Action::Message {
            message: "done".to_owned()
        }
    );
    assert_eq!(decision.tokens, Some(0));
    assert_eq!(seen.requests.load(Ordering::SeqCst), 4);
    assert_eq!(seen.authorized.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn retries_run_out_on_the_last_server_error() {
    let (base_url, seen) = flaky(&[(500, None), (502, None), (500, None), (500, None)]).await;
    let agent = OpenAiAgent::new(settings(&base_url)).unwrap();

    match act_once(&agent).await {
        Err(AgentError::Http { status: 500, body }) => {
            assert!(body.contains("attempt 2"), "{body}")
        }
        other => panic!("expected the last 500, got {other:?}"),
    }
    assert_eq!(
        seen.requests.load(Ordering::SeqCst),
        3,
        "1 attempt + 2 retries"
    );
}

#[tokio::test]
async fn a_client_error_fails_at_once() {
    let (base_url, seen) = flaky(&[(401, None)]).await;
    let agent = OpenAiAgent::new(settings(&base_url)).unwrap();

    match act_once(&agent).await {
        Err(AgentError::Http { status: 401, .. }) => {}
        other => panic!("expected 401, got {other:?}"),
    }
    assert_eq!(seen.requests.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_endpoint_too_slow_times_out_after_the_retries() {
    let router = Router::new().route(
        "/v1/chat/completions",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "too late"
        }),
    );
    let base_url = spawn(router).await;
    let agent = OpenAiAgent::new(OpenAiSettings {
        timeout: Duration::from_millis(100),
        max_retries: 1,
        ..settings(&base_url)
    })
    .unwrap();

    match act_once(&agent).await {
        Err(AgentError::Timeout(timeout)) => assert_eq!(timeout, Duration::from_millis(100)),
        other => panic!("expected a timeout, got {other:?}"),
    }
}
