//! The runs API's writes: a runner on another machine (`agentbench run --server`) records its
//! run here, so that its metrics and verdict reach this server's leaderboard. It creates the run
//! (or finds it taken, by another shard), records each episode it played once, and sets the
//! report, which must agree with the episodes recorded.

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequest, Request, State};
use axum::http::StatusCode;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use agentbench_scorers::{EpisodeResult, run_metrics};

use crate::App;
use crate::api::{Object, Path};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::ids::{EpisodeId, RunId};
use crate::leaderboard::{RunSummary, StoredRun};
use crate::report::Report;
use crate::requests::whole_floats_as_integers;
use crate::run::{EpisodeLine, StoredSettings, parse_run_id};
use crate::store::{RunRow, now_ms};

/// `POST /v1/runs`: a run that a runner records here.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRun {
    /// 1 to 64 letters, digits, `-`, `_` or `.` (the shards of one run name the same id); a
    /// fresh id when absent.
    #[serde(default)]
    #[schemars(regex(pattern = r"^[A-Za-z0-9._-]{1,64}$"))]
    pub id: Option<String>,
    pub suite: String,
    pub suite_version: String,
    /// SHA-256 over the suite's files, as the runner loaded them.
    pub suite_hash: String,
    pub agent: String,
    /// How the run is played; a resumed run or another shard keeps them.
    pub settings: StoredSettings,
}

/// `POST /v1/runs/{id}/episodes`: whether this episode was recorded now (false: its scenario
/// and trial were recorded before, and that record stands).
#[derive(Debug, Serialize, JsonSchema)]
pub struct EpisodeRecorded {
    pub recorded: bool,
}

/// A body as `Object` takes it, its whole numbers written as floats (`4.0`) read as integers:
/// a report or an episode line is made of many counts, which a runner's JSON library may write
/// so.
pub struct Counts<T>(T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Counts<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Counts<T>, ApiError> {
        let Object(mut value) = Object::<Value>::from_request(request, state).await?;
        whole_floats_as_integers(&mut value);
        serde_json::from_value(value)
            .map(Counts)
            .map_err(|error| ApiError::invalid_body(error.to_string()))
    }
}

pub async fn create_run(
    State(app): State<Arc<App>>,
    caller: Caller,
    Counts(new): Counts<NewRun>,
) -> Result<(StatusCode, Json<RunSummary>), ApiError> {
    let id = match new.id {
        Some(id) => RunId::from(parse_run_id(&id).map_err(ApiError::invalid_body)?),
        None => RunId::fresh(),
    };
    let row = RunRow {
        id,
        suite: new.suite,
        suite_version: new.suite_version,
        suite_hash: new.suite_hash,
        agent: new.agent,
        settings: serde_json::to_string(&new.settings).map_err(ApiError::internal)?,
        state: "running".to_owned(),
        report: None,
        created_ms: now_ms(),
        ended_ms: None,
        tenant: caller.tenant().to_owned(),
    };
    if let Err(error) = app.store.create_run(&row).await {
        if app.store.run(&row.id).await?.is_some() {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "run_exists",
                format!("a run `{}` is recorded already", row.id),
            ));
        }
        return Err(error.into());
    }
    Ok((StatusCode::CREATED, Json(StoredRun::new(row).summary())))
}

pub async fn record_episode(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(id): Path<RunId>,
    Counts(line): Counts<EpisodeLine>,
) -> Result<Json<EpisodeRecorded>, ApiError> {
    let run = own_run(&app, &caller, &id).await?;
    if run.state != "running" {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "run_done",
            format!("run `{id}` is done: it records no more episodes"),
        ));
    }
    // A measured episode is evidence: it must be one this server played for this run.
    if let Some(episode) = &line.episode {
        let played = app
            .store
            .episode(&EpisodeId::from(episode.as_str()))
            .await?;
        if !played.is_some_and(|played| {
            played.run_id.as_ref() == Some(&id) && played.tenant == run.tenant
        }) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "not_the_runs_episode",
                format!("episode `{episode}` is not one this server played for run `{id}`"),
            ));
        }
    }
    let text = serde_json::to_string(&line).map_err(ApiError::internal)?;
    let recorded = app
        .store
        .record_run_episode(&id, &line.scenario, line.trial, &text)
        .await?;
    Ok(Json(EpisodeRecorded { recorded }))
}

/// Sets a run's report (again, when a run is finished twice). Its episodes and metrics must be
/// those of the episodes recorded; its verdict is the runner's, by the gate it was given.
pub async fn set_report(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(id): Path<RunId>,
    Counts(report): Counts<Report>,
) -> Result<Json<RunSummary>, ApiError> {
    let run = own_run(&app, &caller, &id).await?;
    let disagrees = |what: String| {
        ApiError::new(
            StatusCode::CONFLICT,
            "report_mismatch",
            format!("the report disagrees with run `{id}` as recorded: {what}"),
        )
    };
    if report.run.id != id
        || report.run.suite_hash != run.suite_hash
        || report.run.agent != run.agent
    {
        return Err(disagrees(format!(
            "it is of run `{}` (agent `{}`, suite hash {}), not of this one (agent `{}`, suite \
             hash {})",
            report.run.id, report.run.agent, report.run.suite_hash, run.agent, run.suite_hash
        )));
    }
    let results: Vec<EpisodeResult> = crate::runs_api::recorded_lines(&app, &id)
        .await?
        .iter()
        .map(EpisodeLine::result)
        .collect();
    if report.episodes != results {
        return Err(disagrees(format!(
            "its {} episode results are not the {} recorded",
            report.episodes.len(),
            results.len()
        )));
    }
    // Compared as JSON, as the report is stored and read.
    let metrics = |value| serde_json::to_value(value).map_err(ApiError::internal);
    if metrics(&report.metrics)? != metrics(&run_metrics(&results))? {
        return Err(disagrees(
            "its metrics are not those of the recorded episodes".to_owned(),
        ));
    }
    let text = serde_json::to_string(&report).map_err(ApiError::internal)?;
    app.store.finish_run(&id, &text).await?;
    let row = app
        .store
        .run(&id)
        .await?
        .ok_or_else(|| ApiError::not_found("run", id.as_str()))?;
    Ok(Json(StoredRun::new(row).summary()))
}

/// Run `id`, when it is of `caller`'s tenant (on a public leaderboard too): another tenant's is
/// as unknown as one that does not exist.
async fn own_run(app: &App, caller: &Caller, id: &RunId) -> Result<RunRow, ApiError> {
    app.store
        .run(id)
        .await?
        .filter(|run| caller.sees_run(&run.tenant))
        .ok_or_else(|| ApiError::not_found("run", id.as_str()))
}
