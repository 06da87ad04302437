//! The REST API's routes and handlers: envs, and episodes with their steps, forks and
//! trajectories (each handler parses, calls the sessions and maps the result); the runs and
//! leaderboard (`runs_api`) and the runs a remote runner records (`run_writes`); the web page
//! (`web`).

mod socket;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::Poll;

use axum::extract::rejection::PathRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, OptionalFromRequest, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use axum::http::{HeaderName, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router, middleware};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tower::ServiceBuilder;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Instrument as _;

use agentbench_env_runtime::LoadedEnv;

use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::ids::EpisodeId;
use crate::requests::{
    BatchStep, CreateEpisode, MAX_BATCH_STEPS, StepBatch, StepRequest, parse_object,
};
use crate::sessions::SessionError;
use crate::{App, request_limits, run_writes, runs_api};

type Body<T> = Result<Object<T>, ApiError>;

/// The largest report `PUT /v1/runs/{id}/report` takes (when `serve`'s body limit is lower):
/// about 100,000 episodes' results.
const MAX_REPORT_BYTES: usize = 64 << 20;

/// The API's routes over `app`.
pub fn router(app: Arc<App>) -> Router {
    let max_body_bytes = app.sessions.settings().max_body_bytes;
    let limits = Arc::new(app.sessions.settings().connections.clone());
    let page = crate::web::paths().fold(Router::new(), |router, path| {
        router.route(path, get(move || async move { crate::web::asset(path) }))
    });
    let routes = page
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi))
        .route("/v1/envs", get(list_envs))
        .route("/v1/envs/{name}", get(get_env))
        .route("/v1/episodes", post(create_episode))
        .route("/v1/episodes/{id}", get(get_episode).delete(delete_episode))
        .route("/v1/episodes/{id}/steps", post(step_episode))
        .route("/v1/episodes/{id}/fork", post(fork_episode))
        .route("/v1/episodes/{id}/abandon", post(abandon_episode))
        .route("/v1/episodes/{id}/action-schema", get(action_schema))
        .route("/v1/steps", post(step_batch))
        .route("/v1/ws", get(socket::upgrade))
        .route("/v1/leaderboard", get(runs_api::get_leaderboard))
        .route(
            "/v1/runs",
            get(runs_api::list_runs).post(run_writes::create_run),
        )
        .route("/v1/runs/{id}", get(runs_api::get_run))
        .route("/v1/runs/{id}/episodes", post(run_writes::record_episode))
        .route(
            "/v1/runs/{id}/report",
            // A report carries every episode's result: a long run's passes the body limit.
            put(run_writes::set_report)
                .layer(DefaultBodyLimit::max(max_body_bytes.max(MAX_REPORT_BYTES))),
        )
        .route("/v1/runs/{id}/compare/{other}", get(runs_api::compare_runs))
        .route("/v1/prm-results", get(runs_api::list_prm_results))
        .route("/v1/trainings", get(runs_api::list_trainings))
        .merge(crate::openenv::routes())
        .merge(crate::mcp::routes(&app))
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed);
    // Inside the keys' check, so that a request counts against the key it presented.
    let routes = match &app.rate_limiter {
        Some(limiter) => limiter.limit(routes),
        None => routes,
    };
    routes
        .layer(middleware::from_fn_with_state(
            app.clone(),
            crate::auth::authenticate,
        ))
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(REQUEST_ID.clone(), MakeRequestUuid))
                .layer(
                    TraceLayer::new_for_http()
                        .make_span_with(request_span)
                        .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
                )
                .layer(PropagateRequestIdLayer::new(REQUEST_ID.clone()))
                .layer(middleware::from_fn_with_state(
                    limits.clone(),
                    request_limits::check_host,
                ))
                .layer(middleware::from_fn_with_state(
                    limits,
                    request_limits::body_deadline,
                )),
        )
        .with_state(app)
}

/// A route's path parameters: axum's `Path`, refused with the API's JSON error body (a
/// parameter that is not valid UTF-8 after percent-decoding, or not of the type the route
/// takes) rather than axum's plain-text one.
#[derive(Debug)]
pub(crate) struct Path<T>(pub T);

impl<T, S> FromRequestParts<S> for Path<T>
where
    T: serde::de::DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Path<T>, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Path(value)),
            Err(rejection) => Err(path_error(&rejection)),
        }
    }
}

/// A request body that must be a JSON object (`requests::parse_object`), sent as
/// `Content-Type: application/json`, refused with the API's JSON error body: 415 without that
/// type, 413 over the size limit, 400 when it is not JSON, 422 when it is not what the route
/// takes.
#[derive(Debug)]
pub(crate) struct Object<T>(pub T);

impl<T, S> FromRequest<S> for Object<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(
        request: Request<axum::body::Body>,
        state: &S,
    ) -> Result<Object<T>, ApiError> {
        let Json(text) =
            <Json<Box<RawValue>> as FromRequest<S>>::from_request(request, state).await?;
        parse_object(text.get())
            .map(Object)
            .map_err(|error| ApiError::invalid_body(error.to_string()))
    }
}

/// A body that may be absent: none when the request names no content type.
impl<T, S> OptionalFromRequest<S> for Object<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(
        request: Request<axum::body::Body>,
        state: &S,
    ) -> Result<Option<Object<T>>, ApiError> {
        if !request.headers().contains_key(CONTENT_TYPE) {
            return Ok(None);
        }
        <Object<T> as FromRequest<S>>::from_request(request, state)
            .await
            .map(Some)
    }
}

/// What a WebSocket reads before it takes a frame apart. tungstenite zeroes the free part of
/// its read buffer before each read from the socket, up to this; its default (128 KiB) made
/// zeroing a twentieth of the server's time under OpenEnv's one-step-at-a-time load. A frame
/// larger than this is read in several reads.
const SOCKET_READ_BUFFER: usize = 8 * 1024;

/// A WebSocket handshake accepted with the server's settings: messages up to the body limit.
pub(crate) fn accept_socket(upgrade: WebSocketUpgrade, app: &App) -> WebSocketUpgrade {
    upgrade
        .max_message_size(app.sessions.settings().max_body_bytes)
        .read_buffer_size(SOCKET_READ_BUFFER)
}

/// The refusal of a request to a WebSocket route that is not a WebSocket handshake (426).
pub(crate) fn not_an_upgrade(rejection: &WebSocketUpgradeRejection) -> ApiError {
    ApiError::new(
        StatusCode::UPGRADE_REQUIRED,
        "upgrade_required",
        format!(
            "this route is a WebSocket: open it with a WebSocket handshake ({})",
            rejection.body_text()
        ),
    )
}

fn path_error(rejection: &PathRejection) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "invalid_path",
        rejection.body_text(),
    )
}

/// The header that carries a request's id: the client's when it sends one, else a fresh UUID;
/// echoed in the response and named in the request's tracing span.
static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

fn request_span(request: &Request<axum::body::Body>) -> tracing::Span {
    let id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    tracing::info_span!(
        "request",
        id,
        method = %request.method(),
        path = %request.uri().path(),
        episode = tracing::field::Empty,
    )
}

/// Names the episode in the current request's span.
fn record_episode(id: &str) {
    tracing::Span::current().record("episode", id);
}

async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// Whether this node should be sent requests: not while it drains, nor while its database does
/// not answer within a second.
async fn readyz(State(app): State<Arc<App>>) -> Result<Json<Value>, ApiError> {
    let unavailable = |code, message: String| {
        Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            code,
            message,
        ))
    };
    if app.draining.load(std::sync::atomic::Ordering::Acquire) {
        return unavailable("draining", "the server is stopping".to_owned());
    }
    match tokio::time::timeout(std::time::Duration::from_secs(1), app.store.ping()).await {
        Ok(Ok(())) => Ok(Json(json!({"status": "ready"}))),
        Ok(Err(error)) => unavailable(
            "store_unavailable",
            format!("the database does not answer: {error}"),
        ),
        Err(_) => unavailable(
            "store_unavailable",
            "the database did not answer within 1 s".to_owned(),
        ),
    }
}

/// The process's Prometheus metrics, in OpenMetrics text.
async fn metrics(State(app): State<Arc<App>>) -> impl IntoResponse {
    let (open, hot) = app.sessions.open_counts();
    let (connections, idle_connections) = app.store.connections();
    let now = crate::metrics::NodeState {
        open,
        hot,
        hot_limit: app.sessions.settings().max_hot_episodes,
        connections,
        idle_connections,
    };
    (
        [(CONTENT_TYPE, crate::metrics::CONTENT_TYPE)],
        crate::metrics::metrics().render(now),
    )
}

async fn openapi() -> Json<Value> {
    static DOCUMENT: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    Json(DOCUMENT.get_or_init(crate::openapi::document).clone())
}

async fn unknown_route() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "unknown_route", "no such route")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not support that method",
    )
}

fn env_summary(env: &LoadedEnv) -> Value {
    let manifest = env.manifest();
    json!({
        "name": manifest.name,
        "version": manifest.version,
        "description": manifest.description,
        "content_hash": env.content_hash(),
        "tools": env.function_tools(),
        "irreversible_tools": manifest.tools.iter().filter(|t| t.irreversible).map(|t| &t.name).collect::<Vec<_>>(),
        "policies": env.policies().policy_ids().collect::<Vec<_>>(),
    })
}

async fn list_envs(State(app): State<Arc<App>>) -> Json<Value> {
    let envs = app.sessions.envs().values();
    Json(json!({"envs": envs.map(|env| env_summary(env)).collect::<Vec<_>>()}))
}

async fn get_env(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(env_summary(app.sessions.env(&name)?)))
}

async fn create_episode(
    State(app): State<Arc<App>>,
    caller: Caller,
    body: Body<CreateEpisode>,
) -> Result<Response, ApiError> {
    let Object(request) = body?;
    let created = to_completion(app.sessions.clone().create(caller, request)).await?;
    record_episode(created["id"].as_str().unwrap_or_default());
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

async fn step_episode(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(id): Path<EpisodeId>,
    body: Body<StepRequest>,
) -> Result<Response, ApiError> {
    let Object(request) = body?;
    record_episode(id.as_str());
    let sessions = app.sessions.clone();
    let answer = to_completion(async move { sessions.step(&caller, id, request).await }).await?;
    Ok(([(CONTENT_TYPE, "application/json")], answer).into_response())
}

/// Takes many actions at once (see `Sessions::step_many`). The batch answers 200 once it
/// parses; each item carries the status and body its single step would have answered.
async fn step_batch(
    State(app): State<Arc<App>>,
    caller: Caller,
    body: Body<StepBatch>,
) -> Result<Response, ApiError> {
    let Object(batch) = body?;
    if batch.steps.len() > MAX_BATCH_STEPS {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "too_many_steps",
            format!(
                "a batch takes at most {MAX_BATCH_STEPS} steps, not {}",
                batch.steps.len()
            ),
        ));
    }
    let mut parsed = Vec::with_capacity(batch.steps.len());
    let mut valid = Vec::with_capacity(batch.steps.len());
    for item in &batch.steps {
        match BatchStep::parse(item.get()) {
            Ok(step) => {
                valid.push(step);
                parsed.push(None);
            }
            Err(error) => parsed.push(Some(ApiError::invalid_body(error.to_string()))),
        }
    }
    let sessions = app.sessions.clone();
    let mut answers = to_completion(async move { Ok(sessions.step_many(&caller, valid).await) })
        .await?
        .into_iter();
    let mut body = String::from(r#"{"results":["#);
    for (position, invalid) in parsed.into_iter().enumerate() {
        if position > 0 {
            body.push(',');
        }
        let answer = match invalid {
            Some(error) => Err(error),
            None => answers
                .next()
                .expect("a valid item has an answer")
                .map_err(ApiError::from),
        };
        match answer {
            Ok(step) => body.push_str(&format!(r#"{{"status":200,"step":{step}}}"#)),
            Err(error) => body.push_str(
                &json!({"status": error.status.as_u16(), "error": error.detail()}).to_string(),
            ),
        }
    }
    body.push_str("]}");
    Ok(([(CONTENT_TYPE, "application/json")], body).into_response())
}

async fn fork_episode(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(id): Path<EpisodeId>,
) -> Result<Response, ApiError> {
    record_episode(id.as_str());
    let sessions = app.sessions.clone();
    let created = to_completion(async move { sessions.fork(&caller, id).await }).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

/// Deletes an episode, open or not, and its record.
async fn delete_episode(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(id): Path<EpisodeId>,
) -> Result<Response, ApiError> {
    record_episode(id.as_str());
    let sessions = app.sessions.clone();
    to_completion(async move { sessions.delete(&caller, id).await }).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn abandon_episode(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(id): Path<EpisodeId>,
) -> Result<Response, ApiError> {
    record_episode(id.as_str());
    let sessions = app.sessions.clone();
    to_completion(async move { sessions.abandon(&caller, id).await }).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn get_episode(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(id): Path<EpisodeId>,
) -> Result<Json<Value>, ApiError> {
    record_episode(id.as_str());
    Ok(Json(app.sessions.trajectory(&caller, &id).await?))
}

/// The JSON Schema of the actions an open episode's mask leaves open, for constrained decoding.
async fn action_schema(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(id): Path<EpisodeId>,
) -> Result<Json<Value>, ApiError> {
    record_episode(id.as_str());
    Ok(Json(app.sessions.action_schema(&caller, &id).await?))
}

/// Runs a request that changes episodes to its end, even when the request is dropped (its
/// client hung up, and hyper drops the handler's future): a step that ran in its instance must
/// still be recorded and counted, a deletion must still close the episode, or the episodes in
/// memory and their record part ways. The work keeps the request's span; a panic in it answers
/// 500 like any internal error.
///
/// The work runs in place up to its first wait, and only what is left then becomes a task of
/// its own: on a quiet server a step commits in place and is done at once, and a task would
/// cost it a wake-up more (measured: 2 to 3 % of a lone client's steps per second).
async fn to_completion<T: Send + 'static>(
    work: impl Future<Output = Result<T, SessionError>> + Send + 'static,
) -> Result<T, ApiError> {
    let failed = |error: &dyn std::fmt::Display| {
        Err(ApiError::internal(format!(
            "a request's work failed: {error}"
        )))
    };
    let mut work = Box::pin(work.in_current_span());
    let polled = std::future::poll_fn(|cx| {
        Poll::Ready(std::panic::catch_unwind(AssertUnwindSafe(|| {
            work.as_mut().poll(cx)
        })))
    })
    .await;
    match polled {
        Ok(Poll::Ready(done)) => Ok(done?),
        Err(_) => failed(&"it panicked"),
        // Its next poll, the task's first, hands its wakers the task's.
        Ok(Poll::Pending) => match tokio::spawn(work).await {
            Ok(done) => Ok(done?),
            Err(error) => failed(&error),
        },
    }
}
