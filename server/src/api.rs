//! The REST API: envs, and episodes with their steps, forks and trajectories.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use agentbench_env_runtime::{Action, Episode, LoadedEnv};

use crate::App;
use crate::api_error::ApiError;
use crate::episodes::{ForkedFrom, OpenEpisode, RecordedStep, new_episode_id};

type Body<T> = Result<Json<T>, JsonRejection>;

/// The API's routes over `app`.
pub fn router(app: Arc<App>) -> Router {
    let max_body_bytes = app.settings.max_body_bytes;
    Router::new()
        .route("/healthz", get(healthz))
        .route("/v1/envs", get(list_envs))
        .route("/v1/envs/{name}", get(get_env))
        .route("/v1/episodes", post(create_episode))
        .route("/v1/episodes/{id}", get(get_episode).delete(delete_episode))
        .route("/v1/episodes/{id}/steps", post(step_episode))
        .route("/v1/episodes/{id}/fork", post(fork_episode))
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .with_state(app)
}

async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
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
        "content_hash": env.image().content_hash(),
        "tools": env.function_tools(),
        "irreversible_tools": manifest.tools.iter().filter(|t| t.irreversible).map(|t| &t.name).collect::<Vec<_>>(),
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateEpisode {
    env: String,
    /// The task config; `{}` (the env's default task) when absent.
    #[serde(default)]
    task: Option<Value>,
    /// Defaults to 0, so that an episode is reproducible unless asked otherwise.
    #[serde(default)]
    seed: Option<u64>,
}

async fn create_episode(
    State(app): State<Arc<App>>,
    body: Body<CreateEpisode>,
) -> Result<Response, ApiError> {
    let Json(request) = body?;
    let env = app
        .envs
        .get(&request.env)
        .ok_or_else(|| ApiError::not_found("env", &request.env))?
        .clone();
    let task = request.task.unwrap_or_else(|| json!({}));
    let seed = request.seed.unwrap_or(0);
    let (episode, observation) = blocking(|| Episode::start(env.clone(), seed, &task))?;
    let open = OpenEpisode {
        id: new_episode_id(),
        seed,
        task,
        observation,
        episode,
        steps: Vec::new(),
        by_request: Default::default(),
        outcome: None,
        forked_from: None,
    };
    let body = episode_created(&open);
    app.episodes
        .insert(open, app.settings.max_open_episodes)
        .map_err(ApiError::too_many_episodes)?;
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

fn episode_created(open: &OpenEpisode) -> Value {
    let env = open.episode.env();
    json!({
        "id": open.id,
        "env": env.manifest().name,
        "env_version": env.manifest().version,
        "seed": open.seed,
        "observation": open.observation,
        "tools": env.function_tools(),
        "action_mask": open.episode.mask(),
        "forked_from": open.forked_from,
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepRequest {
    action: Action,
    /// A client's id for this request: a retry with the same id returns the recorded result.
    #[serde(default)]
    request_id: Option<String>,
    /// Model tokens spent producing this action, counted against the token budget.
    #[serde(default)]
    tokens: Option<u64>,
}

async fn step_episode(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Body<StepRequest>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body?;
    let handle = app
        .episodes
        .get(&id)
        .ok_or_else(|| ApiError::not_found("episode", &id))?;
    // Holding the episode's lock for the whole step serialises concurrent steps on it.
    let mut guard = handle.lock().await;
    let open = &mut *guard;
    if let Some(index) = request
        .request_id
        .as_ref()
        .and_then(|rid| open.by_request.get(rid))
    {
        return Ok(Json(step_body(open, *index)));
    }
    let record = blocking(|| open.episode.step(request.action, request.tokens))?;
    let over = open.episode.is_over();
    let action_mask = if over {
        Vec::new()
    } else {
        open.episode.mask().to_vec()
    };
    if over {
        // An env that failed cannot be evaluated: the episode stays without outcome (unmeasured).
        open.outcome = blocking(|| open.episode.outcome()).ok();
    }
    let index = open.steps.len();
    if let Some(request_id) = &request.request_id {
        open.by_request.insert(request_id.clone(), index);
    }
    open.steps.push(RecordedStep {
        record,
        action_mask,
        request_id: request.request_id,
    });
    Ok(Json(step_body(open, index)))
}

fn step_body(open: &OpenEpisode, index: usize) -> Value {
    let mut body = serde_json::to_value(&open.steps[index]).expect("records serialize");
    let last = index + 1 == open.steps.len();
    if last && open.episode.is_over() {
        body["outcome"] = serde_json::to_value(&open.outcome).expect("outcomes serialize");
    }
    body
}

async fn get_episode(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let handle = app
        .episodes
        .get(&id)
        .ok_or_else(|| ApiError::not_found("episode", &id))?;
    let open = handle.lock().await;
    let env = open.episode.env();
    let progress = open.episode.progress();
    Ok(Json(json!({
        "id": open.id,
        "env": env.manifest().name,
        "env_version": env.manifest().version,
        "env_hash": env.image().content_hash(),
        "seed": open.seed,
        "task": open.task,
        "observation": open.observation,
        "steps": open.steps,
        "terminated": progress.terminated,
        "truncated": progress.truncated,
        "outcome": open.outcome,
        "forked_from": open.forked_from,
    })))
}

async fn fork_episode(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let handle = app
        .episodes
        .get(&id)
        .ok_or_else(|| ApiError::not_found("episode", &id))?;
    let mut parent = handle.lock().await;
    let episode = blocking(|| parent.episode.fork())?;
    let fork = OpenEpisode {
        id: new_episode_id(),
        seed: parent.seed,
        task: parent.task.clone(),
        observation: parent.observation.clone(),
        episode,
        steps: parent.steps.clone(),
        by_request: Default::default(),
        outcome: parent.outcome.clone(),
        forked_from: Some(ForkedFrom {
            episode: parent.id.clone(),
            after_step: parent.steps.len(),
        }),
    };
    drop(parent);
    let body = episode_created(&fork);
    app.episodes
        .insert(fork, app.settings.max_open_episodes)
        .map_err(ApiError::too_many_episodes)?;
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

async fn delete_episode(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    app.episodes
        .remove(&id)
        .ok_or_else(|| ApiError::not_found("episode", &id))?;
    Ok(StatusCode::NO_CONTENT)
}

/// Runs sandbox work (synchronous, normally microseconds, at worst a call's wall-clock limit)
/// without stalling the other tasks of a multi-threaded runtime.
fn blocking<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|handle| handle.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}
