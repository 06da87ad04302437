//! Every served env as an OpenEnv environment under `/openenv/{env}`: OpenEnv's own clients
//! (`openenv` on PyPI: `GenericEnvClient`, `EnvClient`) connect and play unchanged, over its
//! WebSocket (`/ws`, one episode per connection at a time) or its HTTP routes (`/reset`,
//! `/step`, `/state`, `/schema`, `/metadata`, `/health`).
//!
//! Underneath, each reset is an episode of ours and each step a step of ours: the same masks,
//! validation, policies, scores and durable record as the REST API. OpenEnv's shapes carry ours
//! as follows:
//! - actions: `{"type": "call_tool", "tool_name", "arguments"}` is a tool call; our own
//!   `{"tool", "arguments"}`, `{"message"}` and `{"ask_user"}` are taken as they are;
//!   `{"type": "list_tools"}` answers the tools (with their JSON Schemas) without a step;
//! - the observation is the env's, with our extras in its `metadata`: the episode's id, the
//!   step's index, status, validation, violations and scores, the action mask for the next
//!   action, and at the end the outcome;
//! - the reward is the step's (the mean of its scorers' rewards), plus on the step that ends the
//!   episode the outcome's: 1 when every success check passed and no harm was done, -1 when
//!   harm was done, 0 otherwise;
//! - `done` is the episode's end (terminated or truncated).
//!
//! OpenEnv's HTTP routes keep no session: `/reset` answers the new episode's id in the
//! metadata, and `/step` and `/state` take it as `episode_id`. OpenEnv's MCP (`/mcp`, and
//! `mcp` messages on the WebSocket) has sessions that a WebSocket can share: see [`mcp`].

mod mcp;
mod step_text;

pub(crate) use mcp::Sessions;

use std::sync::Arc;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse as _, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use agentbench_env_runtime::{Action, LoadedEnv, Mode};

use crate::App;
use crate::api::{Object, Path};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::ids::EpisodeId;
use crate::requests::{CreateEpisode, StepRequest, from_object};
use crate::sessions::SessionError;

/// The OpenEnv routes of every served env.
pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/openenv/{env}/health", get(health))
        .route("/openenv/{env}/metadata", get(metadata))
        .route("/openenv/{env}/schema", get(schema))
        .route("/openenv/{env}/reset", post(http_reset))
        .route("/openenv/{env}/step", post(http_step))
        .route("/openenv/{env}/state", get(http_state))
        .route("/openenv/{env}/ws", get(upgrade))
        .route("/openenv/{env}/mcp", post(mcp::http))
}

/// The WebSocket's query: the OpenEnv session it shares, if any.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SocketQuery {
    #[serde(default)]
    session_id: Option<String>,
}

/// What a reset takes: OpenEnv's `seed` and `episode_id`, and our task and mode.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Reset {
    #[serde(default, deserialize_with = "crate::requests::whole_number")]
    seed: Option<u64>,
    /// OpenEnv lets a client name its episode; ours are named by the server (the name given
    /// is ignored, and the episode's own id is in the observation's metadata).
    #[serde(default)]
    #[allow(dead_code)]
    episode_id: Option<Value>,
    #[serde(default)]
    task: Option<Value>,
    #[serde(default)]
    mode: Mode,
}

/// `POST /step` over HTTP: OpenEnv's body, plus the episode that `/reset` named.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HttpStep {
    action: Value,
    episode_id: EpisodeId,
    #[serde(default)]
    request_id: Option<String>,
    /// OpenEnv's per-step time limit; ours are the env's and the server's own.
    #[serde(default)]
    #[allow(dead_code)]
    timeout_s: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateQuery {
    episode_id: EpisodeId,
}

/// Why an OpenEnv request failed, with OpenEnv's error code and ours.
#[derive(Debug)]
struct Failure {
    /// OpenEnv's code: `VALIDATION_ERROR`, `EXECUTION_ERROR`, `CAPACITY_REACHED` ...
    openenv_code: &'static str,
    error: ApiError,
}

impl Failure {
    fn validation(message: impl Into<String>) -> Failure {
        Failure {
            openenv_code: "VALIDATION_ERROR",
            error: ApiError::invalid_body(message.into()),
        }
    }

    /// The WebSocket's error message: `{"type": "error", "data": {"message", "code", "error"}}`
    /// (`error` is our error body's detail, whose `code` is ours).
    fn frame(&self) -> String {
        json!({"type": "error", "data": {
            "message": self.error.message,
            "code": self.openenv_code,
            "error": self.error.detail(),
        }})
        .to_string()
    }
}

impl From<SessionError> for Failure {
    fn from(error: SessionError) -> Failure {
        let openenv_code = match &error {
            SessionError::TooManyEpisodes(_) => "CAPACITY_REACHED",
            SessionError::Runtime(agentbench_env_runtime::RuntimeError::InvalidTask(_)) => {
                "VALIDATION_ERROR"
            }
            _ => "EXECUTION_ERROR",
        };
        Failure {
            openenv_code,
            error: error.into(),
        }
    }
}

impl From<ApiError> for Failure {
    fn from(error: ApiError) -> Failure {
        Failure {
            openenv_code: "EXECUTION_ERROR",
            error,
        }
    }
}

fn served(app: &App, env: &str) -> Result<Arc<LoadedEnv>, ApiError> {
    Ok(app.sessions.env(env)?.clone())
}

/// Refuses, as unknown, an episode of another env than the route's: a step through the
/// `banking` routes must not act on a `workspace` episode.
async fn of_env(
    app: &App,
    caller: &Caller,
    env: &str,
    episode: &EpisodeId,
) -> Result<(), ApiError> {
    let episode_env = app.sessions.env_of(caller, episode).await?;
    if episode_env.manifest().name != env {
        return Err(ApiError::not_found(
            &format!("{env} episode"),
            episode.as_str(),
        ));
    }
    Ok(())
}

async fn health(
    State(app): State<Arc<App>>,
    Path(env): Path<String>,
) -> Result<Json<Value>, ApiError> {
    served(&app, &env)?;
    Ok(Json(json!({"status": "healthy"})))
}

async fn metadata(
    State(app): State<Arc<App>>,
    Path(env): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let env = served(&app, &env)?;
    let manifest = env.manifest();
    Ok(Json(json!({
        "name": manifest.name,
        "description": manifest.description,
        "version": manifest.version,
        "readme_content": null,
        "author": null,
        "documentation_url": null,
        "content_hash": env.content_hash(),
    })))
}

/// `{action, observation, state}` as JSON Schemas: the action is `oneOf` a `call_tool` of each
/// tool (its arguments' schema as the env declares it), `list_tools`, and our own forms.
async fn schema(
    State(app): State<Arc<App>>,
    Path(env): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let env = served(&app, &env)?;
    let mut actions: Vec<Value> = env
        .manifest()
        .tools
        .iter()
        .map(|tool| {
            json!({
                "type": "object",
                "description": tool.description,
                "properties": {
                    "type": {"const": "call_tool"},
                    "tool_name": {"const": tool.name},
                    "arguments": tool.parameters,
                },
                "required": ["type", "tool_name", "arguments"],
            })
        })
        .collect();
    actions.push(json!({
        "type": "object",
        "description": "The tools, with their JSON Schemas and how the mask stands for each; not a step.",
        "properties": {"type": {"const": "list_tools"}},
        "required": ["type"],
    }));
    actions.push(json!({
        "type": "object",
        "description": "The agent's final message: ends the episode.",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
        "additionalProperties": false,
    }));
    actions.push(json!({
        "type": "object",
        "description": "A question to the user, answered by the task's scripted replies.",
        "properties": {"ask_user": {"type": "string"}},
        "required": ["ask_user"],
        "additionalProperties": false,
    }));
    Ok(Json(json!({
        "action": {"oneOf": actions},
        "observation": {
            "type": "object",
            "description": "The env's observation, with agentbench's extras in `metadata`.",
            "properties": {"metadata": {"type": "object"}},
        },
        "state": {
            "type": "object",
            "properties": {
                "episode_id": {"type": "string"},
                "step_count": {"type": "integer"},
                "env": {"type": "string"},
                "state": {"enum": ["open", "over", "expired", "abandoned"]},
                "done": {"type": "boolean"},
                "outcome": {},
            },
            "required": ["episode_id", "step_count"],
        },
    })))
}

/// An OpenEnv action made one of ours, or the tools asked for.
enum Parsed {
    Step(Action),
    ListTools,
}

fn parse_action(action: Value) -> Result<Parsed, Failure> {
    let Value::Object(mut fields) = action else {
        return Err(Failure::validation("an action is a JSON object"));
    };
    match fields.remove("type") {
        None => serde_json::from_value(Value::Object(fields))
            .map(Parsed::Step)
            .map_err(|error| Failure::validation(format!("action: {error}"))),
        Some(Value::String(kind)) if kind == "list_tools" => Ok(Parsed::ListTools),
        Some(Value::String(kind)) if kind == "call_tool" => {
            let Some(Value::String(tool)) = fields.remove("tool_name") else {
                return Err(Failure::validation(
                    "a `call_tool` action names its `tool_name`",
                ));
            };
            let arguments = fields.remove("arguments").unwrap_or_else(|| json!({}));
            // OpenEnv's actions may carry their own `metadata`; nothing else is taken.
            fields.remove("metadata");
            if let Some(field) = fields.keys().next() {
                return Err(Failure::validation(format!(
                    "unknown field `{field}` in a `call_tool` action"
                )));
            }
            Ok(Parsed::Step(Action::Tool { tool, arguments }))
        }
        Some(kind) => Err(Failure::validation(format!(
            "unknown action type {kind}: expected `call_tool` or `list_tools`, or an action of \
             ours (`tool`, `message` or `ask_user`) without a type"
        ))),
    }
}

/// Starts an episode; answers its id and OpenEnv's reset result as JSON text.
async fn reset(
    app: &Arc<App>,
    caller: &Caller,
    env: &str,
    reset: Reset,
) -> Result<(EpisodeId, String), Failure> {
    let request = CreateEpisode {
        env: env.to_owned(),
        task: reset.task,
        seed: reset.seed,
        mode: reset.mode,
        run_id: None,
    };
    let created = app.sessions.clone().create(caller.clone(), request).await?;
    let mut extras = Map::new();
    for field in ["id", "env", "env_version", "seed", "mode", "action_mask"] {
        extras.insert(field.to_owned(), created[field].clone());
    }
    let episode = extras.remove("id").unwrap_or_default();
    let id = episode
        .as_str()
        .map(EpisodeId::from)
        .ok_or_else(|| ApiError::internal("a created episode has no id"))?;
    extras.insert("episode_id".to_owned(), episode);
    Ok((
        id,
        observation_result(&created["observation"], extras, false)?,
    ))
}

/// Takes one action on `episode`; answers OpenEnv's step result as JSON text.
async fn step(
    app: &Arc<App>,
    caller: &Caller,
    episode: &EpisodeId,
    action: Value,
    request_id: Option<String>,
) -> Result<String, Failure> {
    let action = match parse_action(action)? {
        Parsed::Step(action) => action,
        Parsed::ListTools => return list_tools(app, caller, episode).await,
    };
    let request = StepRequest {
        action,
        request_id,
        tokens: None,
        agent: None,
    };
    let answer = app
        .sessions
        .clone()
        .step(caller, episode.clone(), request)
        .await?;
    Ok(step_text::step_result(episode, &answer).map_err(ApiError::internal)?)
}

/// The tools of `episode`'s env with their JSON Schemas, and the mask for its next action, as
/// JSON text.
async fn list_tools(
    app: &Arc<App>,
    caller: &Caller,
    episode: &EpisodeId,
) -> Result<String, Failure> {
    let env = app.sessions.env_of(caller, episode).await?;
    let tools: Vec<Value> = env
        .manifest()
        .tools
        .iter()
        .map(|tool| {
            json!({"name": tool.name, "description": tool.description, "input_schema": tool.parameters})
        })
        .collect();
    let mut extras = Map::from_iter([("episode_id".to_owned(), json!(episode))]);
    let mask = app.sessions.mask(caller, episode).await?;
    let done = mask.is_none();
    if let Some(mask) = mask {
        extras.insert("action_mask".to_owned(), json!(mask));
    }
    observation_result(&json!({"tools": tools}), extras, done)
}

/// OpenEnv's result for an answer without a reward (a reset's, the tools'), as JSON text:
/// see `step_text::result_text`.
fn observation_result(
    observation: &Value,
    extras: Map<String, Value>,
    done: bool,
) -> Result<String, Failure> {
    let metadata = Value::Object(extras).to_string();
    Ok(
        step_text::result_text(&observation.to_string(), &metadata, None, done)
            .map_err(ApiError::internal)?,
    )
}

/// OpenEnv's state of `episode`: `episode_id` and `step_count`, and ours.
async fn state(app: &Arc<App>, caller: &Caller, episode: &EpisodeId) -> Result<Value, Failure> {
    let trajectory = app.sessions.trajectory(caller, episode).await?;
    let steps = trajectory["steps"].as_array().map_or(0, Vec::len);
    Ok(json!({
        "episode_id": episode,
        "step_count": steps,
        "env": trajectory["env"],
        "state": trajectory["state"],
        "done": trajectory["state"] != "open",
        "outcome": trajectory["outcome"],
    }))
}

fn http_answer(answer: Result<Value, Failure>) -> Result<Json<Value>, ApiError> {
    answer.map(Json).map_err(|failure| failure.error)
}

/// An answer already written as JSON text.
fn http_text(answer: Result<String, Failure>) -> Result<Response, ApiError> {
    let text = answer.map_err(|failure| failure.error)?;
    Ok(([(CONTENT_TYPE, "application/json")], text).into_response())
}

async fn http_reset(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(env): Path<String>,
    body: Result<Option<Object<Reset>>, ApiError>,
) -> Result<Response, ApiError> {
    served(&app, &env)?;
    let body = body?.map(|Object(body)| body).unwrap_or_default();
    http_text(
        reset(&app, &caller, &env, body)
            .await
            .map(|(_, result)| result),
    )
}

async fn http_step(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(env): Path<String>,
    body: Result<Object<HttpStep>, ApiError>,
) -> Result<Response, ApiError> {
    served(&app, &env)?;
    let Object(body) = body?;
    of_env(&app, &caller, &env, &body.episode_id).await?;
    http_text(
        step(
            &app,
            &caller,
            &body.episode_id,
            body.action,
            body.request_id,
        )
        .await,
    )
}

async fn http_state(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(env): Path<String>,
    query: Result<Query<StateQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    served(&app, &env)?;
    let Query(query) = query.map_err(invalid_query)?;
    of_env(&app, &caller, &env, &query.episode_id).await?;
    http_answer(state(&app, &caller, &query.episode_id).await)
}

async fn upgrade(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(env): Path<String>,
    query: Result<Query<SocketQuery>, axum::extract::rejection::QueryRejection>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    served(&app, &env)?;
    let Query(query) = query.map_err(invalid_query)?;
    let upgrade = upgrade.map_err(|rejection| crate::api::not_an_upgrade(&rejection))?;
    let (slot, attached) = match &query.session_id {
        Some(id) => (app.openenv.attach(&caller, &env, id)?, true),
        None => (mcp::Slot::new(&caller, &env), false),
    };
    Ok(
        crate::api::accept_socket(upgrade, &app).on_upgrade(move |socket| async move {
            session(&app, &caller, &env, &slot, socket).await;
            // The socket's own slot ends with it; a session it shared ends only if it was
            // closed meanwhile.
            let ended = if attached {
                app.openenv.detach(&slot.id)
            } else {
                Some(slot)
            };
            if let Some(slot) = ended {
                slot.end(&app, &caller).await;
            }
        }),
    )
}

fn invalid_query(rejection: axum::extract::rejection::QueryRejection) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "invalid_query",
        rejection.body_text(),
    )
}

/// One OpenEnv WebSocket session, on `slot`'s episode: each message answered in turn; each
/// reset starts a new episode, and an episode the client leaves for a new reset is abandoned,
/// its record kept.
async fn session(
    app: &Arc<App>,
    caller: &Caller,
    env: &str,
    slot: &Arc<mcp::Slot>,
    mut socket: WebSocket,
) {
    while let Some(Ok(message)) = socket.recv().await {
        let text = match message {
            Message::Text(text) => text,
            Message::Binary(_) => {
                let failure = Failure {
                    openenv_code: "INVALID_JSON",
                    error: ApiError::new(
                        StatusCode::BAD_REQUEST,
                        "malformed_json",
                        "messages are JSON text",
                    ),
                };
                if socket
                    .send(Message::Text(failure.frame().into()))
                    .await
                    .is_err()
                {
                    break;
                }
                continue;
            }
            Message::Ping(_) | Message::Pong(_) => continue,
            Message::Close(_) => break,
        };
        let answer = match serde_json::from_str::<Value>(text.as_str()) {
            Err(error) => Err(Failure {
                openenv_code: "INVALID_JSON",
                error: ApiError::new(StatusCode::BAD_REQUEST, "malformed_json", error.to_string()),
            }),
            Ok(mut message) => {
                let data = message["data"].take();
                match message["type"].as_str() {
                    Some("close") => break,
                    Some("reset") => {
                        let body = match data {
                            Value::Null => Ok(Reset::default()),
                            data => from_object(data)
                                .map_err(|error| Failure::validation(format!("reset: {error}"))),
                        };
                        match body {
                            Ok(body) => slot.reset(app, caller, body).await.map(|result| {
                                format!(r#"{{"type":"observation","data":{result}}}"#)
                            }),
                            Err(failure) => Err(failure),
                        }
                    }
                    Some("step") => match slot.current().await {
                        None => Err(no_episode()),
                        Some(episode) => step(app, caller, &episode, data, None)
                            .await
                            .map(|result| format!(r#"{{"type":"observation","data":{result}}}"#)),
                    },
                    Some("state") => match slot.current().await {
                        None => Err(no_episode()),
                        Some(episode) => state(app, caller, &episode)
                            .await
                            .map(|state| json!({"type": "state", "data": state}).to_string()),
                    },
                    Some("mcp") => Ok(mcp::message(app, caller, env, data, slot).await.to_string()),
                    other => Err(Failure {
                        openenv_code: "UNKNOWN_TYPE",
                        error: ApiError::invalid_body(format!(
                            "unknown message type {}: expected reset, step, state, mcp or close",
                            other.map_or_else(|| "(none)".to_owned(), |kind| format!("`{kind}`"))
                        )),
                    }),
                }
            }
        };
        let frame = match answer {
            Ok(answer) => answer,
            Err(failure) => failure.frame(),
        };
        if socket.send(Message::Text(frame.into())).await.is_err() {
            break;
        }
    }
}

fn no_episode() -> Failure {
    Failure {
        openenv_code: "SESSION_ERROR",
        error: ApiError::new(
            StatusCode::CONFLICT,
            "no_episode",
            "no episode yet: send a reset first",
        ),
    }
}

/// Abandons `episode` if it is still open (one that ended stays as it ended).
async fn abandon(app: &Arc<App>, caller: &Caller, episode: Option<EpisodeId>) {
    let Some(episode) = episode else { return };
    match app.sessions.clone().abandon(caller, episode.clone()).await {
        Ok(()) => {}
        Err(error) if error.ended() => {}
        Err(error) => {
            tracing::warn!(%episode, %error, "cannot abandon an OpenEnv session's episode")
        }
    }
}
