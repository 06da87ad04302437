//! A scripted baseline served as an OpenAI-compatible chat-completions endpoint
//! (`agentbench agent serve`), so that the OpenAI agent, and any harness that speaks that API,
//! can be checked end to end against an agent whose behaviour is known.
//!
//! The baseline is stateless: each request carries the whole episode, which `agentbench_agents::
//! chat` reads back into the view the baseline acts on. The scenario is found by the
//! instruction (unique in a suite); the tools come from the env's manifest, since the request's
//! function list does not say which tools are irreversible.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

use agentbench_agents::chat::{reply_body, transcript_from_request};
use agentbench_agents::{Access, Agent, Mask, Scripted, View};
use agentbench_datasets::Suite;
use agentbench_env_contract::Manifest;

/// The largest request accepted: a long episode's transcript, with room to spare.
const MAX_BODY_BYTES: usize = 16 << 20;

/// What the handlers share.
#[derive(Debug)]
struct ChatState {
    agent: Arc<Scripted>,
    suite: Arc<Suite>,
    /// Scenario positions in the suite by instruction.
    by_instruction: BTreeMap<String, usize>,
    manifests: BTreeMap<String, Manifest>,
}

/// The routes of a served baseline: `POST /v1/chat/completions` and `GET /v1/models`.
pub fn chat_router(
    agent: Arc<Scripted>,
    suite: Arc<Suite>,
    manifests: BTreeMap<String, Manifest>,
) -> Router {
    let by_instruction = suite
        .scenarios
        .iter()
        .enumerate()
        .map(|(index, scenario)| (scenario.instruction.clone(), index))
        .collect();
    let state = Arc::new(ChatState {
        agent,
        suite,
        by_instruction,
        manifests,
    });
    Router::new()
        .route("/v1/chat/completions", post(complete))
        .route("/v1/models", get(models))
        .fallback(not_found)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

/// Serves `router` on `listener` until `shutdown` completes (Ctrl-C, for the command line).
pub async fn serve_chat(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
}

/// An error in OpenAI's shape, `{"error": {"message", "type", "code"}}`, so that OpenAI clients
/// show it as they show OpenAI's own.
#[derive(Debug)]
struct ChatApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ChatApiError {
    fn invalid(code: &'static str, message: impl Into<String>) -> ChatApiError {
        ChatApiError {
            status: StatusCode::BAD_REQUEST,
            code,
            message: message.into(),
        }
    }
}

impl IntoResponse for ChatApiError {
    fn into_response(self) -> Response {
        let kind = if self.status.is_server_error() {
            "server_error"
        } else {
            "invalid_request_error"
        };
        let body = json!({
            "error": {"message": self.message, "type": kind, "code": self.code},
        });
        (self.status, Json(body)).into_response()
    }
}

async fn complete(
    State(state): State<Arc<ChatState>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ChatApiError> {
    let body = body.map_err(|rejection| ChatApiError {
        status: rejection.status(),
        code: "invalid_body",
        message: rejection.body_text(),
    })?;
    let request: Value = serde_json::from_slice(&body).map_err(|error| {
        ChatApiError::invalid("invalid_json", format!("the body is not JSON: {error}"))
    })?;
    let transcript = transcript_from_request(&request).map_err(|error| {
        ChatApiError::invalid(
            "invalid_request",
            format!("not a request this baseline can read: {error}"),
        )
    })?;
    let scenario = state
        .by_instruction
        .get(&transcript.instruction)
        .map(|&index| &state.suite.scenarios[index])
        .ok_or_else(|| {
            let shown: String = transcript.instruction.chars().take(200).collect();
            ChatApiError::invalid(
                "unknown_instruction",
                format!(
                    "no scenario of the suite `{}` has the instruction `{shown}`; a scripted \
                     baseline plays only its suite's scenarios",
                    state.suite.name
                ),
            )
        })?;
    let Some(manifest) = state.manifests.get(&scenario.env) else {
        tracing::error!(
            scenario = scenario.id,
            env = scenario.env,
            "the scenario's env is not among the manifests the chat endpoint was given"
        );
        return Err(ChatApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            code: "internal",
            message: "the server cannot play this scenario".to_owned(),
        });
    };
    // The baseline is shown every tool as allowed: the request does not carry the mask, and the
    // runtime judges every call anyway.
    let mask: Mask = manifest
        .tools
        .iter()
        .map(|tool| (tool.name.clone(), Access::Allowed))
        .collect();
    let view = View {
        scenario: Some(scenario),
        trial: 0,
        sample: 0,
        instruction: &transcript.instruction,
        observation: &transcript.observation,
        tools: &manifest.tools,
        mask: &mask,
        turns: &transcript.turns,
    };
    let decision = state
        .agent
        .act(view)
        .await
        .map_err(|error| ChatApiError::invalid("agent_error", error.to_string()))?;
    Ok(Json(reply_body(&decision.action, state.agent.name())))
}

async fn models(State(state): State<Arc<ChatState>>) -> Json<Value> {
    Json(json!({
        "object": "list",
        "data": [{
            "id": state.agent.name(),
            "object": "model",
            "created": 0,
            "owned_by": "agentbench",
        }],
    }))
}

async fn not_found() -> ChatApiError {
    ChatApiError {
        status: StatusCode::NOT_FOUND,
        code: "not_found",
        message: "no such route; this server answers POST /v1/chat/completions and GET /v1/models"
            .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;

    use agentbench_agents::Baseline;
    use agentbench_env_contract::ToolSpec;

    use super::*;

    /// A router for the built-in safety suite, with a hand-written manifest for its env (no
    /// sandbox needed).
    fn router() -> Router {
        let suite = Suite::builtin("safety").unwrap();
        let tools = ["read_file", "send_email"]
            .map(|name| ToolSpec {
                name: name.to_owned(),
                description: String::new(),
                parameters: json!({"type": "object"}),
                irreversible: name == "send_email",
            })
            .to_vec();
        let manifest = Manifest {
            name: "workspace".to_owned(),
            version: "0".to_owned(),
            description: String::new(),
            tools,
            facts: json!({"type": "object"}),
            task: json!({"type": "object"}),
            policy: None,
        };
        chat_router(
            Arc::new(Scripted::baseline(Baseline::Oracle)),
            Arc::new(suite),
            BTreeMap::from([("workspace".to_owned(), manifest)]),
        )
    }

    async fn call(method: &str, uri: &str, body: &str) -> (StatusCode, Value) {
        let request = axum::http::Request::builder()
            .method(method)
            .uri(uri)
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body.to_owned()))
            .unwrap();
        let response = router().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    fn check_error(answer: (StatusCode, Value), status: StatusCode, code: &str, message: &str) {
        let (got_status, body) = answer;
        assert_eq!(got_status, status, "{body}");
        assert_eq!(body["error"]["code"], code, "{body}");
        let text = body["error"]["message"].as_str().unwrap();
        assert!(text.contains(message), "{text}");
    }

    fn request(instruction: &str) -> String {
        json!({
            "model": "oracle",
            "messages": [
                {"role": "system", "content": "..."},
                {"role": "user", "content": format!("{instruction}\n\nInitial observation:\n{{}}")},
            ],
        })
        .to_string()
    }

    #[tokio::test]
    async fn bad_requests_are_answered_in_openai_error_shape() {
        let completions = "/v1/chat/completions";
        check_error(
            call("POST", completions, "{").await,
            StatusCode::BAD_REQUEST,
            "invalid_json",
            "the body is not JSON",
        );
        check_error(
            call("POST", completions, "{\"messages\": 3}").await,
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "messages: expected an array",
        );
        check_error(
            call("POST", completions, &request("Order pizza.")).await,
            StatusCode::BAD_REQUEST,
            "unknown_instruction",
            "no scenario of the suite `safety` has the instruction `Order pizza.`",
        );
        check_error(
            call("GET", "/v1/nothing", "").await,
            StatusCode::NOT_FOUND,
            "not_found",
            "POST /v1/chat/completions",
        );
    }

    #[tokio::test]
    async fn the_oracle_answers_its_first_reference_action() {
        let suite = Suite::builtin("safety").unwrap();
        let scenario = suite.scenario("workspace/utility/offsite-agenda").unwrap();
        let (status, reply) = call(
            "POST",
            "/v1/chat/completions",
            &request(&scenario.instruction),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{reply}");
        let function = &reply["choices"][0]["message"]["tool_calls"][0]["function"];
        assert_eq!(function["name"], "read_file");
        assert_eq!(reply["model"], "oracle");

        let (status, models) = call("GET", "/v1/models", "").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(models["data"][0]["id"], "oracle");
    }
}
