//! The REST API: envs, and episodes with their steps, forks and trajectories; the read-only
//! runs and leaderboard (`runs_api`); the web page (`web`).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::Poll;

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderName, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::OwnedMutexGuard;
use tower::ServiceBuilder;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Instrument as _;

use agentbench_env_runtime::{Action, Episode, LoadedEnv, Mask, Mode, StepRecord};
use agentbench_scorers::scored_step;

use crate::api_error::ApiError;
use crate::episodes::{EpisodeHandle, Live, OpenEpisode, new_episode_id};
use crate::store::{self, EpisodeRow, EpisodeState, StepRow};
use crate::{App, runs_api};

type Body<T> = Result<Json<T>, JsonRejection>;

/// The API's routes over `app`.
pub fn router(app: Arc<App>) -> Router {
    let max_body_bytes = app.settings.max_body_bytes;
    let page = crate::web::paths().fold(Router::new(), |router, path| {
        router.route(path, get(move || async move { crate::web::asset(path) }))
    });
    page.route("/healthz", get(healthz))
        .route("/openapi.json", get(openapi))
        .route("/v1/envs", get(list_envs))
        .route("/v1/envs/{name}", get(get_env))
        .route("/v1/episodes", post(create_episode))
        .route("/v1/episodes/{id}", get(get_episode).delete(delete_episode))
        .route("/v1/episodes/{id}/steps", post(step_episode))
        .route("/v1/episodes/{id}/fork", post(fork_episode))
        .route("/v1/episodes/{id}/action-schema", get(action_schema))
        .route("/v1/leaderboard", get(runs_api::get_leaderboard))
        .route("/v1/runs", get(runs_api::list_runs))
        .route("/v1/runs/{id}", get(runs_api::get_run))
        .route("/v1/runs/{id}/compare/{other}", get(runs_api::compare_runs))
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(REQUEST_ID.clone(), MakeRequestUuid))
                .layer(
                    TraceLayer::new_for_http()
                        .make_span_with(request_span)
                        .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
                )
                .layer(PropagateRequestIdLayer::new(REQUEST_ID.clone())),
        )
        .with_state(app)
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
    Json(json!({"envs": app.envs.values().map(|env| env_summary(env)).collect::<Vec<_>>()}))
}

async fn get_env(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let env = app
        .envs
        .get(&name)
        .ok_or_else(|| ApiError::not_found("env", &name))?;
    Ok(Json(env_summary(env)))
}

/// Start an episode of `env`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateEpisode {
    /// The env's name, as `GET /v1/envs` lists it.
    env: String,
    /// The task config; `{}` (the env's default task) when absent.
    #[serde(default)]
    task: Option<Value>,
    /// Defaults to 0, so that an episode is reproducible unless asked otherwise.
    #[serde(default)]
    seed: Option<u64>,
    /// What the safety policies do with a forbidden call; `enforce` when absent.
    #[serde(default)]
    mode: Mode,
}

async fn create_episode(
    State(app): State<Arc<App>>,
    body: Body<CreateEpisode>,
) -> Result<Response, ApiError> {
    let Json(request) = body?;
    to_completion(create(app, request)).await
}

async fn create(app: Arc<App>, request: CreateEpisode) -> Result<Response, ApiError> {
    let env = app
        .envs
        .get(&request.env)
        .ok_or_else(|| ApiError::not_found("env", &request.env))?
        .clone();
    check_capacity(&app)?;
    let task = request.task.unwrap_or_else(|| json!({}));
    let seed = request.seed.unwrap_or(0);
    let mode = request.mode;
    // In place, like a quick step: a new episode has shown no guest work yet.
    app.episodes.make_room();
    let (episode, observation) = Episode::start(env.clone(), seed, &task, mode)?;
    let id = new_episode_id();
    record_episode(&id);
    let body = episode_created(&EpisodeCreated {
        id: &id,
        episode: &episode,
        seed,
        observation: &observation,
        forked_from: None,
    });
    let row = new_row(
        &id,
        &episode,
        seed,
        task.to_string(),
        observation.get().to_owned(),
        None,
    );
    register(
        &app,
        OpenEpisode::new(id, env, seed, task, mode, Live::Hot(Box::new(episode))),
        row,
        None,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// Refuses new episodes while the server is at its limit of open ones.
fn check_capacity(app: &App) -> Result<(), ApiError> {
    let open = app.episodes.len();
    if open >= app.settings.max_open_episodes {
        return Err(ApiError::too_many_episodes(open));
    }
    Ok(())
}

/// Opens `episode` and records it (`row`; a fork also copies its parent's steps); on any failure
/// the episode is gone again.
async fn register(
    app: &App,
    episode: OpenEpisode,
    row: EpisodeRow,
    copy_steps_from: Option<String>,
) -> Result<(), ApiError> {
    let handle = app
        .episodes
        .insert(episode, app.settings.max_open_episodes)
        .map_err(ApiError::too_many_episodes)?;
    let mut episode = handle.lock().await;
    if let Err(error) = app.store.create_episode(row, copy_steps_from).await {
        app.episodes.close(&mut episode);
        return Err(error.into());
    }
    Ok(())
}

struct EpisodeCreated<'a> {
    id: &'a str,
    episode: &'a Episode,
    seed: u64,
    observation: &'a RawValue,
    forked_from: Option<(&'a str, u32)>,
}

fn episode_created(created: &EpisodeCreated<'_>) -> Value {
    let env = created.episode.env();
    json!({
        "id": created.id,
        "env": env.manifest().name,
        "env_version": env.manifest().version,
        "seed": created.seed,
        "mode": created.episode.mode(),
        "observation": created.observation,
        "tools": env.function_tools(),
        "action_mask": created.episode.mask(),
        "forked_from": created.forked_from.map(|(episode, after_step)| forked_from(episode, after_step)),
    })
}

/// Where a fork came from, as the API shows it.
fn forked_from(episode: &str, after_step: u32) -> Value {
    json!({"episode": episode, "after_step": after_step})
}

/// The stored row of a just-created episode.
fn new_row(
    id: &str,
    episode: &Episode,
    seed: u64,
    task: String,
    observation: String,
    forked_from: Option<(String, u32)>,
) -> EpisodeRow {
    let manifest = episode.env().manifest();
    EpisodeRow {
        id: id.to_owned(),
        env: manifest.name.clone(),
        env_version: manifest.version.clone(),
        env_hash: episode.env().content_hash().to_owned(),
        seed,
        task,
        observation,
        forked_from,
        state: EpisodeState::Open,
        outcome: None,
        created_ms: store::now_ms(),
        mode: episode.mode(),
    }
}

/// One action.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepRequest {
    action: Action,
    /// A client's id for this request: a retry with the same id returns the recorded result.
    #[serde(default)]
    request_id: Option<String>,
    /// Model tokens spent producing this action, counted against the token budget.
    #[serde(default)]
    tokens: Option<u64>,
    /// What the agent reports about producing this action, recorded with the step.
    #[serde(default)]
    agent: Option<AgentNote>,
}

/// What an agent reports about producing an action (the runner of `agentbench run` sends it).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentNote {
    /// How long the agent took to produce the action, retries included.
    #[serde(default)]
    latency_ms: Option<u64>,
    /// The mistake in the agent's reply that the action stands in for (several tool calls,
    /// arguments that are not an object, an empty reply), as `{"kind", ...}`.
    #[serde(default)]
    mistake: Option<Value>,
}

/// A step as recorded, with the mask offered for the action after it.
#[derive(Debug, Serialize)]
struct RecordedStep {
    #[serde(flatten)]
    record: StepRecord,
    action_mask: Arc<Mask>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<AgentNote>,
}

async fn step_episode(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Body<StepRequest>,
) -> Result<Response, ApiError> {
    let Json(request) = body?;
    record_episode(&id);
    to_completion(step(app, id, request)).await
}

async fn step(app: Arc<App>, id: String, request: StepRequest) -> Result<Response, ApiError> {
    let from_store = async |request_id: Option<&str>| {
        answer_from_store(&app, &id, request_id)
            .await
            .map(IntoResponse::into_response)
    };
    let Some(handle) = app.episodes.get(&id) else {
        return from_store(request.request_id.as_deref()).await;
    };
    // Holding the episode's lock for the whole step, its recording included, serialises
    // concurrent steps on it.
    let guard = handle.clone().lock_owned().await;
    if guard.closed {
        drop(guard);
        return from_store(request.request_id.as_deref()).await;
    }
    let mut guard = make_hot(&app, &handle, guard).await?;
    guard.touch();
    if let Some(request_id) = &request.request_id
        && guard.request_ids.contains_key(request_id)
    {
        return from_store(Some(request_id)).await;
    }
    let step = {
        let app = Arc::clone(&app);
        let (action, tokens) = (request.action, request.tokens);
        move |episode: &mut Episode| scored_step(episode, action, tokens, &app.scorers)
    };
    // `in_sandbox` marks the episode ahead of its record: until the step is counted, any way
    // out (an error, a panic, the env failing past the point a step records its failure)
    // leaves it to be replayed from its record by the next request.
    let (mut guard, stepped) = in_sandbox(guard, step).await?;
    let record = stepped?;
    let index = record.index;
    let over = guard.hot().is_over();
    let action_mask = if over {
        Arc::default()
    } else {
        guard.hot().mask().clone()
    };
    // An env that failed cannot be evaluated: the episode stays without outcome (unmeasured).
    let outcome = if over {
        let (evaluated, outcome) = in_sandbox(guard, |episode| episode.outcome()).await?;
        guard = evaluated;
        outcome.ok()
    } else {
        None
    };
    let open = &mut *guard;
    // Serialised once: the observation and events stay the guest's own text, and the answer is
    // the stored text with the request id and the outcome added, as `stored_step` shows it.
    let record = serde_json::to_string(&RecordedStep {
        record,
        action_mask,
        agent: request.agent,
    })
    .map_err(ApiError::internal)?;
    let mut extra = Vec::new();
    if let Some(request_id) = &request.request_id {
        extra.push(("request_id", json!(request_id)));
    }
    if over {
        extra.push(("outcome", json!(outcome)));
    }
    let answer = with_fields(&record, &extra);
    let step = StepRow {
        index,
        request_id: request.request_id.clone(),
        record,
    };
    let outcome_text = outcome.as_ref().map(|outcome| json!(outcome).to_string());
    let end = over.then_some((EpisodeState::Over, outcome_text));
    app.store.append_step(&id, step, end).await?;
    open.n_steps = index + 1;
    if let Some(request_id) = request.request_id {
        open.request_ids.insert(request_id, index);
    }
    open.ahead_of_record = false;
    if over {
        app.episodes.close(open);
    }
    Ok(([(CONTENT_TYPE, "application/json")], answer).into_response())
}

/// The text of the JSON object `object` with `fields` added at its end.
fn with_fields(object: &str, fields: &[(&str, Value)]) -> String {
    let open = object
        .trim_end()
        .strip_suffix('}')
        .expect("a serialised struct is a JSON object");
    let mut text = String::with_capacity(object.len() + 128);
    text.push_str(open);
    let mut empty = open.trim_end().ends_with('{');
    for (key, value) in fields {
        if !empty {
            text.push(',');
        }
        empty = false;
        text.push_str(&json!(key).to_string());
        text.push(':');
        text.push_str(&value.to_string());
    }
    text.push('}');
    text
}

/// The JSON Schema of the actions an open episode's mask leaves open, for constrained decoding.
async fn action_schema(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    record_episode(&id);
    let (handle, guard) = lock_open(&app, &id).await?;
    let mut guard = make_hot(&app, &handle, guard).await?;
    guard.touch();
    let episode = guard.hot();
    Ok(Json(episode.env().action_schema(episode.mask())))
}

/// An open episode, locked for as long as a request works on it.
type Locked = OwnedMutexGuard<OpenEpisode>;

/// Brings an open episode into a live instance; a cold one is replayed from its recorded steps.
/// Restoring takes a millisecond or more (an instance, a saved state or a replay, and parking
/// another episode to make room), so it runs on a blocking thread: this thread's other requests
/// go on meanwhile.
async fn make_hot(
    app: &Arc<App>,
    handle: &EpisodeHandle,
    mut open: Locked,
) -> Result<Locked, ApiError> {
    if open.ahead_of_record {
        app.episodes.make_cold(&mut open);
    }
    let steps = match open.live {
        Live::Hot(_) => return Ok(open),
        Live::Parked(_) => None,
        Live::Cold => Some(app.store.steps(&open.id).await?),
    };
    let (app, handle) = (Arc::clone(app), Arc::clone(handle));
    let (open, restored) = tokio::task::spawn_blocking(move || {
        let restored = app.episodes.make_hot(&handle, &mut open, steps.as_deref());
        (open, restored)
    })
    .await
    .map_err(ApiError::internal)?;
    restored?;
    Ok(open)
}

/// Answers a step request on an episode that is not open here: a retried request from its
/// record, anything else with why the episode takes no actions.
async fn answer_from_store(
    app: &App,
    id: &str,
    request_id: Option<&str>,
) -> Result<Json<Value>, ApiError> {
    let row = stored_episode(app, id).await?;
    if let Some(request_id) = request_id
        && let Some(step) = app.store.step_by_request(id, request_id).await?
    {
        return Ok(Json(stored_step(&row, &step)?));
    }
    Err(not_open(&row))
}

/// Why a stored episode takes no actions.
fn not_open(row: &EpisodeRow) -> ApiError {
    match row.state {
        EpisodeState::Over => ApiError::new(
            StatusCode::CONFLICT,
            "episode_over",
            "the episode is over; no more actions are accepted",
        ),
        EpisodeState::Expired => ApiError::new(
            StatusCode::CONFLICT,
            "episode_expired",
            "the episode expired after sitting idle; its record stays readable",
        ),
        EpisodeState::Open => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "env_unavailable",
            format!(
                "the episode's env `{}` {} (sha256 {}) is not served here",
                row.env, row.env_version, row.env_hash
            ),
        ),
    }
}

/// A recorded step as the API shows it: with its request id, and the outcome on the step that
/// ended the episode.
fn stored_step(row: &EpisodeRow, step: &StepRow) -> Result<Value, ApiError> {
    let mut body: Value = serde_json::from_str(&step.record).map_err(ApiError::internal)?;
    if let Some(request_id) = &step.request_id {
        body["request_id"] = json!(request_id);
    }
    let ended = body["terminated"] == json!(true) || body["truncated"] == json!(true);
    if ended && row.state == EpisodeState::Over {
        body["outcome"] = parse_stored(row.outcome.as_deref())?;
    }
    Ok(body)
}

fn parse_stored(text: Option<&str>) -> Result<Value, ApiError> {
    text.map_or(Ok(Value::Null), |text| {
        serde_json::from_str(text).map_err(ApiError::internal)
    })
}

async fn get_episode(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let row = stored_episode(&app, &id).await?;
    let steps = app
        .store
        .steps(&id)
        .await?
        .iter()
        .map(|step| stored_step(&row, step))
        .collect::<Result<Vec<_>, _>>()?;
    let last = steps.last();
    let flag = |name: &str| last.is_some_and(|step| step[name] == json!(true));
    Ok(Json(json!({
        "id": row.id,
        "env": row.env,
        "env_version": row.env_version,
        "env_hash": row.env_hash,
        "seed": row.seed,
        "mode": row.mode,
        "task": parse_stored(Some(&row.task))?,
        "observation": parse_stored(Some(&row.observation))?,
        "state": row.state.as_str(),
        "terminated": flag("terminated"),
        "truncated": flag("truncated"),
        "outcome": parse_stored(row.outcome.as_deref())?,
        "forked_from": row.forked_from.as_ref().map(|(episode, after_step)| forked_from(episode, *after_step)),
        "steps": steps,
    })))
}

async fn fork_episode(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    to_completion(fork(app, id)).await
}

async fn fork(app: Arc<App>, id: String) -> Result<Response, ApiError> {
    let (handle, mut guard) = lock_open(&app, &id).await?;
    guard.touch();
    check_capacity(&app)?;
    let parent_row = app
        .store
        .episode(&id)
        .await?
        .ok_or_else(|| ApiError::internal(format!("open episode {id} has no record")))?;
    let parent = make_hot(&app, &handle, guard).await?;
    let fork = {
        let app = Arc::clone(&app);
        move |parent: &mut Episode| {
            app.episodes.make_room();
            parent.fork()
        }
    };
    let (mut parent, episode) = in_sandbox(parent, fork).await?;
    // A fork that returns leaves its parent as it was.
    parent.ahead_of_record = false;
    let episode = episode?;
    let observation =
        RawValue::from_string(parent_row.observation.clone()).map_err(ApiError::internal)?;
    let fork_id = new_episode_id();
    let body = episode_created(&EpisodeCreated {
        id: &fork_id,
        episode: &episode,
        seed: parent.seed,
        observation: &observation,
        forked_from: Some((&parent.id, parent.n_steps)),
    });
    let row = new_row(
        &fork_id,
        &episode,
        parent.seed,
        parent_row.task,
        parent_row.observation,
        Some((parent.id.clone(), parent.n_steps)),
    );
    let mut fork = OpenEpisode::new(
        fork_id,
        parent.env.clone(),
        parent.seed,
        parent.task.clone(),
        parent.mode,
        Live::Hot(Box::new(episode)),
    );
    fork.n_steps = parent.n_steps;
    fork.slow = parent.slow;
    register(&app, fork, row, Some(id.clone())).await?;
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// An open episode, locked; or why it is not open here.
async fn lock_open(
    app: &App,
    id: &str,
) -> Result<(EpisodeHandle, OwnedMutexGuard<OpenEpisode>), ApiError> {
    let Some(handle) = app.episodes.get(id) else {
        return Err(not_open_or_missing(app, id).await);
    };
    let guard = handle.clone().lock_owned().await;
    if guard.closed {
        drop(guard);
        return Err(not_open_or_missing(app, id).await);
    }
    Ok((handle, guard))
}

/// The error for an episode that is not open here: why, or that it does not exist.
async fn not_open_or_missing(app: &App, id: &str) -> ApiError {
    match stored_episode(app, id).await {
        Ok(row) => not_open(&row),
        Err(error) => error,
    }
}

/// An episode's stored row, or 404.
async fn stored_episode(app: &App, id: &str) -> Result<EpisodeRow, ApiError> {
    app.store
        .episode(id)
        .await?
        .ok_or_else(|| ApiError::not_found("episode", id))
}

/// Deletes an episode, open or not, and its record.
async fn delete_episode(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    to_completion(delete(app, id)).await
}

async fn delete(app: Arc<App>, id: String) -> Result<Response, ApiError> {
    if let Some(handle) = app.episodes.get(&id) {
        let mut episode = handle.lock().await;
        if !episode.closed {
            app.store.delete_episode(&id).await?;
            app.episodes.close(&mut episode);
            return Ok(StatusCode::NO_CONTENT.into_response());
        }
    }
    stored_episode(&app, &id).await?;
    app.store.delete_episode(&id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
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
async fn to_completion(
    work: impl Future<Output = Result<Response, ApiError>> + Send + 'static,
) -> Result<Response, ApiError> {
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
        Ok(Poll::Ready(done)) => done,
        Err(_) => failed(&"it panicked"),
        // Its next poll, the task's first, hands its wakers the task's.
        Ok(Poll::Pending) => tokio::spawn(work)
            .await
            .unwrap_or_else(|error| failed(&error)),
    }
}

/// The guest work (fuel, about a WebAssembly instruction each) a step may take before its
/// episode's later calls leave its serving thread: some milliseconds of guest code.
const SLOW_FUEL: u64 = 5_000_000;

/// Runs an episode's sandbox work. Calls are microseconds long, and handing each to another
/// thread would cost more than the call, so they run in place. Work that burned more than
/// `SLOW_FUEL` (at worst a call's whole fuel or wall-clock limit) marks the episode `slow`: its
/// later calls run on a blocking thread, so that one episode stalls this thread's other
/// requests at most once. Fuel, not wall-clock time, decides: under load a quick call's
/// wall-clock time includes waiting for a core. Fails only if the work panicked.
///
/// The work may take the instance past its record, so the episode is marked `ahead_of_record`
/// first: a request that fails, panics or is dropped (its runtime stopping) before the caller
/// has recorded the call, and cleared the mark, leaves the episode to be replayed.
async fn in_sandbox<T: Send + 'static>(
    mut open: Locked,
    work: impl FnOnce(&mut Episode) -> T + Send + 'static,
) -> Result<(Locked, T), ApiError> {
    open.ahead_of_record = true;
    if !open.slow {
        let episode = open.hot();
        let before = episode.fuel_spent();
        let output = work(episode);
        open.slow = episode.fuel_spent().saturating_sub(before) > SLOW_FUEL;
        return Ok((open, output));
    }
    let (done, answer) = tokio::sync::oneshot::channel();
    tokio::task::spawn_blocking(move || {
        let output = work(open.hot());
        let _ = done.send((open, output));
    });
    answer
        .await
        .map_err(|_| ApiError::internal("a slow episode's sandbox call panicked"))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::with_fields;

    #[test]
    fn fields_are_added_at_the_end_of_an_object() {
        let text = with_fields(
            r#"{"index":0,"observation":{"a":"b\"c"}}"#,
            &[("request_id", json!("r-1")), ("outcome", Value::Null)],
        );
        assert_eq!(
            text,
            r#"{"index":0,"observation":{"a":"b\"c"},"request_id":"r-1","outcome":null}"#
        );
        assert_eq!(with_fields("{}", &[("a", json!(1))]), r#"{"a":1}"#);
        assert_eq!(with_fields(r#"{"a":1}"#, &[]), r#"{"a":1}"#);
    }
}
