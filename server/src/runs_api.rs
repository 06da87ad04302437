//! The read-only API behind the web page: the leaderboard, the runs, one run with its episodes,
//! the comparison of two runs, the recorded measurements of step scorers, and training runs'
//! learning curves.

use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use schemars::JsonSchema;
use serde::Serialize;

use agentbench_scorers::RunMetrics;

use crate::App;
use crate::api::Path;
use crate::api_error::ApiError;
use crate::auth::{Access, Caller};
use crate::gate::GateVerdict;
use crate::ids::RunId;
use crate::leaderboard::{
    self, CategoryDifferences, Leaderboard, LeaderboardQuery, RunSummary, StoredRun,
};
use crate::report::{Comparison, RunInfo};
use crate::run::EpisodeLine;
use crate::store::RunRow;

/// `GET /v1/runs`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunList {
    /// Newest first.
    pub runs: Vec<RunSummary>,
}

/// `GET /v1/runs/{id}`: a run, its settings, metrics by category, and its episodes.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunDetail {
    pub run: RunSummary,
    /// What ran and how, once done (agent, trials, mode, base URL, git revision...).
    pub info: Option<RunInfo>,
    /// The settings the run was started with, as stored (a running run has only these).
    pub settings: serde_json::Value,
    pub metrics: Option<RunMetrics>,
    pub gate: Option<GateVerdict>,
    /// The comparison with the baseline run it was gated against, if any.
    pub baseline: Option<Comparison>,
    /// Every episode recorded so far, in scenario and trial order.
    pub episodes: Vec<EpisodeLine>,
}

/// `GET /v1/runs/{id}/compare/{other}`: the run against another, paired by scenario.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunComparison {
    pub run: RunSummary,
    pub other: RunSummary,
    /// Both runs played the same suite files (same hash). Otherwise only the scenarios they
    /// share are paired.
    pub same_suite: bool,
    /// Overall first, then each category: `run - other`.
    pub categories: Vec<CategoryDifferences>,
}

pub async fn get_leaderboard(
    State(app): State<Arc<App>>,
    caller: Caller,
    query: Result<Query<LeaderboardQuery>, QueryRejection>,
) -> Result<Json<Leaderboard>, ApiError> {
    let Query(query) = query.map_err(invalid_query)?;
    let runs = stored_runs(&app, &caller).await?;
    Ok(Json(leaderboard::leaderboard(&runs, &query)))
}

pub async fn list_prm_results(
    State(app): State<Arc<App>>,
) -> Result<Json<crate::prm::PrmResults>, ApiError> {
    Ok(Json(crate::prm::recorded(&app.store).await?))
}

pub async fn list_trainings(
    State(app): State<Arc<App>>,
    caller: Caller,
) -> Result<Json<leaderboard::Trainings>, ApiError> {
    let runs = stored_runs(&app, &caller).await?;
    Ok(Json(leaderboard::trainings(&runs)))
}

pub async fn list_runs(
    State(app): State<Arc<App>>,
    caller: Caller,
) -> Result<Json<RunList>, ApiError> {
    let runs = stored_runs(&app, &caller).await?;
    Ok(Json(RunList {
        runs: runs.iter().map(StoredRun::summary).collect(),
    }))
}

pub async fn get_run(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path(id): Path<RunId>,
) -> Result<Json<RunDetail>, ApiError> {
    let run = stored_run(&app, &caller, &id).await?;
    let episodes = recorded_lines(&app, &id).await?;
    let settings = serde_json::from_str(&run.row.settings).map_err(ApiError::internal)?;
    let report = run.report.clone();
    Ok(Json(RunDetail {
        run: run.summary(),
        settings,
        info: report.as_ref().map(|report| report.run.clone()),
        metrics: report.as_ref().map(|report| report.metrics.clone()),
        gate: report.as_ref().and_then(|report| report.gate.clone()),
        baseline: report.and_then(|report| report.baseline),
        episodes,
    }))
}

pub async fn compare_runs(
    State(app): State<Arc<App>>,
    caller: Caller,
    Path((id, other)): Path<(RunId, RunId)>,
) -> Result<Json<RunComparison>, ApiError> {
    let run = stored_run(&app, &caller, &id).await?;
    let other = stored_run(&app, &caller, &other).await?;
    let (Some(report), Some(other_report)) = (&run.report, &other.report) else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "run_not_done",
            "both runs must be done to be compared",
        ));
    };
    Ok(Json(RunComparison {
        same_suite: run.row.suite_hash == other.row.suite_hash,
        categories: leaderboard::compare_runs(report, other_report),
        run: run.summary(),
        other: other.summary(),
    }))
}

/// The episodes run `id` recorded, in scenario and trial order.
pub(crate) async fn recorded_lines(app: &App, id: &RunId) -> Result<Vec<EpisodeLine>, ApiError> {
    app.store
        .run_episodes(id)
        .await?
        .iter()
        .map(|(_, _, line)| serde_json::from_str(line).map_err(ApiError::internal))
        .collect()
}

/// The runs `caller` sees, newest first.
async fn stored_runs(app: &App, caller: &Caller) -> Result<Vec<StoredRun>, ApiError> {
    Ok(app
        .store
        .runs()
        .await?
        .into_iter()
        .filter(|run| sees_run(app, caller, run))
        .map(StoredRun::new)
        .collect())
}

/// Run `id`, when `caller` sees it: another tenant's is as unknown as one that does not exist.
async fn stored_run(app: &App, caller: &Caller, id: &RunId) -> Result<StoredRun, ApiError> {
    let row = app
        .store
        .run(id)
        .await?
        .filter(|run| sees_run(app, caller, run))
        .ok_or_else(|| ApiError::not_found("run", id.as_str()))?;
    Ok(StoredRun::new(row))
}

/// Whether `caller` sees `run`: its tenant's, or every run on a public leaderboard.
fn sees_run(app: &App, caller: &Caller, run: &RunRow) -> bool {
    let public = app.sessions.settings().access
        == (Access::Keys {
            public_leaderboard: true,
        });
    public || caller.sees_run(&run.tenant)
}

fn invalid_query(rejection: QueryRejection) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "invalid_query",
        rejection.body_text(),
    )
}
