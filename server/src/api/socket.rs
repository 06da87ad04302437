//! The REST API's episode operations over one WebSocket (`GET /v1/ws`): a client drives one
//! episode or many through one connection, without an HTTP request per step.
//!
//! Each text message is one operation, named by its OpenAPI `operationId`, with what its REST
//! request would carry: `{"id", "op", "env"?, "episode"?, "body"?}`. Each is answered once with
//! `{"id", "status", "body"}`: the status and JSON body its REST request would have answered
//! (the same handler answers both). Operations run concurrently, up to `MAX_IN_FLIGHT`, and are
//! answered as they finish; those on one episode take effect in the order sent.

use std::sync::Arc;

use axum::extract::State;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt as _;
use futures_util::future::BoxFuture;
use futures_util::stream::FuturesUnordered;
use http_body_util::BodyExt as _;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::{Object, Path};
use crate::App;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::ids::EpisodeId;
use crate::requests::parse_object;

/// The most operations of one connection that run at once; past it the connection's next
/// messages wait to be read.
const MAX_IN_FLIGHT: usize = 1024;

/// One operation sent over the socket.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// The client's name for the operation, echoed in its answer (any JSON; null if absent).
    #[serde(default)]
    id: Option<Box<RawValue>>,
    op: Op,
    /// The env of `getEnv`.
    #[serde(default)]
    env: Option<String>,
    /// The episode of the operations on one episode.
    #[serde(default)]
    episode: Option<EpisodeId>,
    /// The request body of `createEpisode`, `step` and `stepBatch`.
    #[serde(default)]
    body: Option<Box<RawValue>>,
}

/// The operations, by their OpenAPI `operationId`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Op {
    ListEnvs,
    GetEnv,
    CreateEpisode,
    GetEpisode,
    DeleteEpisode,
    Step,
    StepBatch,
    AbandonEpisode,
    ForkEpisode,
    ActionSchema,
}

pub(super) async fn upgrade(
    State(app): State<Arc<App>>,
    caller: Caller,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = upgrade.map_err(|rejection| super::not_an_upgrade(&rejection))?;
    Ok(super::accept_socket(upgrade, &app).on_upgrade(move |socket| serve(app, caller, socket)))
}

/// Reads operations and writes answers until the client closes or the connection fails. Every
/// operation acts for the caller that opened the socket.
async fn serve(app: Arc<App>, caller: Caller, mut socket: WebSocket) {
    let mut in_flight: FuturesUnordered<BoxFuture<'static, String>> = FuturesUnordered::new();
    loop {
        tokio::select! {
            message = socket.recv(), if in_flight.len() < MAX_IN_FLIGHT => {
                let text = match message {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Binary(_))) => {
                        let refusal = ApiError::new(
                            StatusCode::BAD_REQUEST,
                            "malformed_json",
                            "operations are sent as text messages of JSON",
                        );
                        in_flight.push(Box::pin(async move { answer(None, refusal.into_response()).await }));
                        continue;
                    }
                    // Pings are answered by axum; pongs need nothing.
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                };
                let (app, caller) = (Arc::clone(&app), caller.clone());
                in_flight.push(Box::pin(async move {
                    let (id, response) = run(app, caller, text.as_str()).await;
                    answer(id, response).await
                }));
            }
            Some(answered) = in_flight.next(), if !in_flight.is_empty() => {
                if socket.send(Message::Text(answered.into())).await.is_err() {
                    break;
                }
            }
        }
    }
    // What was sent before the connection ended still runs, its answer going nowhere.
    while in_flight.next().await.is_some() {}
}

/// Runs one operation through the REST handler that answers it.
async fn run(app: Arc<App>, caller: Caller, text: &str) -> (Option<Box<RawValue>>, Response) {
    let request: Request = match serde_json::from_str(text) {
        Ok(request) => request,
        Err(error) if error.is_data() => {
            // Still answered under its id, when it has one.
            #[derive(Deserialize)]
            struct Named {
                id: Option<Box<RawValue>>,
            }
            let id = serde_json::from_str::<Named>(text)
                .ok()
                .and_then(|named| named.id);
            return (
                id,
                ApiError::invalid_body(error.to_string()).into_response(),
            );
        }
        Err(error) => {
            let error = ApiError::new(StatusCode::BAD_REQUEST, "malformed_json", error.to_string());
            return (None, error.into_response());
        }
    };
    let id = request.id.clone();
    let response = match dispatch(app, caller, request).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    };
    (id, response)
}

async fn dispatch(app: Arc<App>, caller: Caller, request: Request) -> Result<Response, ApiError> {
    let op = request.op;
    let episode = || request.episode.clone().ok_or_else(|| missing("episode"));
    let response = match op {
        Op::ListEnvs => super::list_envs(State(app)).await.into_response(),
        Op::GetEnv => {
            let env = request.env.clone().ok_or_else(|| missing("env"))?;
            super::get_env(State(app), Path(env)).await.into_response()
        }
        Op::CreateEpisode => super::create_episode(State(app), caller, Ok(Object(body(&request)?)))
            .await
            .into_response(),
        Op::GetEpisode => super::get_episode(State(app), caller, Path(episode()?))
            .await
            .into_response(),
        Op::DeleteEpisode => super::delete_episode(State(app), caller, Path(episode()?))
            .await
            .into_response(),
        Op::Step => {
            let (episode, body) = (episode()?, body(&request)?);
            super::step_episode(State(app), caller, Path(episode), Ok(Object(body)))
                .await
                .into_response()
        }
        Op::StepBatch => super::step_batch(State(app), caller, Ok(Object(body(&request)?)))
            .await
            .into_response(),
        Op::AbandonEpisode => super::abandon_episode(State(app), caller, Path(episode()?))
            .await
            .into_response(),
        Op::ForkEpisode => super::fork_episode(State(app), caller, Path(episode()?))
            .await
            .into_response(),
        Op::ActionSchema => super::action_schema(State(app), caller, Path(episode()?))
            .await
            .into_response(),
    };
    Ok(response)
}

/// The refusal of an operation that lacks a field it needs.
fn missing(field: &str) -> ApiError {
    ApiError::invalid_body(format!("this operation needs `{field}`"))
}

/// An operation's body, parsed as its REST request's body is.
fn body<T: DeserializeOwned>(request: &Request) -> Result<T, ApiError> {
    let text = request.body.as_ref().map_or("null", |body| body.get());
    parse_object(text).map_err(|error| ApiError::invalid_body(format!("body: {error}")))
}

/// The answer's text: `{"id", "status", "body"}`, the body as the REST response's JSON (null
/// when it has none).
async fn answer(id: Option<Box<RawValue>>, response: Response) -> String {
    let status = response.status().as_u16();
    let body = match response.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Default::default(),
    };
    let body = if body.is_empty() {
        "null"
    } else {
        std::str::from_utf8(&body).unwrap_or("null")
    };
    let id = id.as_ref().map_or("null", |id| id.get());
    format!(r#"{{"id":{id},"status":{status},"body":{body}}}"#)
}
