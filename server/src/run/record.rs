//! Where a run is recorded: a database the runner opens (`--db`), or the `agentbench serve` it
//! plays on (`--server`), through that server's runs API, so that a runner's run, metrics and
//! verdict reach the shared leaderboard. Both keep the same record: the run, its episodes (each
//! pair once) and its report.

use std::time::Duration;

use anyhow::Context as _;
use serde_json::{Value, json};

use super::play::EpisodeLine;
use super::transport::Transport;
use crate::ids::RunId;
use crate::report::Report;
use crate::store::{RunRow, Store};

/// Where a run is recorded.
#[derive(Debug, Clone)]
pub enum RunRecord {
    /// A database the runner opened: `url` as named (for messages), `store` opened on it.
    Database { store: Store, url: String },
    /// The server the run plays on: `POST /v1/runs`, `POST /v1/runs/{id}/episodes`,
    /// `PUT /v1/runs/{id}/report` and `GET /v1/runs/{id}`, with the runner's key.
    Server(Transport),
}

/// How often a call to the server is tried when it gets no answer or a 5xx (every call here is
/// idempotent: a run is created once, an episode recorded once, a report set again the same).
const TRIES: u32 = 4;

impl RunRecord {
    /// Where it is, for messages: the database's URL, or the server's.
    pub fn place(&self) -> String {
        match self {
            RunRecord::Database { url, .. } => url.clone(),
            RunRecord::Server(transport) => transport.describe(),
        }
    }

    /// Run `id`, when it is recorded (and, on a server, the key's tenant sees it).
    pub async fn run(&self, id: &RunId) -> anyhow::Result<Option<RunRow>> {
        match self {
            RunRecord::Database { store, .. } => Ok(store.run(id).await?),
            RunRecord::Server(transport) => {
                let Some(detail) = self.detail(transport, id).await? else {
                    return Ok(None);
                };
                let summary = &detail["run"];
                let text = |field: &str| {
                    summary[field]
                        .as_str()
                        .map(str::to_owned)
                        .with_context(|| format!("the server's run `{id}` has no `{field}`"))
                };
                Ok(Some(RunRow {
                    id: id.clone(),
                    suite: text("suite")?,
                    suite_version: text("suite_version")?,
                    suite_hash: text("suite_hash")?,
                    agent: text("agent")?,
                    settings: detail["settings"].to_string(),
                    state: text("state")?,
                    report: None,
                    created_ms: summary["created_ms"].as_i64().unwrap_or_default(),
                    ended_ms: summary["ended_ms"].as_i64(),
                    // The server keeps it: the key's, which is the only one that sees it.
                    tenant: String::new(),
                }))
            }
        }
    }

    /// Records a new run; false when its id is taken (another shard made it first, or it is
    /// another tenant's).
    pub async fn create(&self, run: &RunRow) -> anyhow::Result<bool> {
        match self {
            RunRecord::Database { store, .. } => match store.create_run(run).await {
                Ok(()) => Ok(true),
                Err(_) if store.run(&run.id).await?.is_some() => Ok(false),
                Err(error) => Err(error.into()),
            },
            RunRecord::Server(transport) => {
                let settings: Value = serde_json::from_str(&run.settings)?;
                let body = json!({
                    "id": run.id,
                    "suite": run.suite,
                    "suite_version": run.suite_version,
                    "suite_hash": run.suite_hash,
                    "agent": run.agent,
                    "settings": settings,
                });
                match call(transport, "POST", "/v1/runs", Some(&body)).await? {
                    (201, _) => Ok(true),
                    (409, answer) if answer["error"]["code"] == "run_exists" => Ok(false),
                    (status, answer) => Err(refused("POST /v1/runs", status, &answer)),
                }
            }
        }
    }

    /// Records one played episode of run `id`; one already recorded for its scenario and trial
    /// is kept as it is.
    pub async fn record(&self, id: &RunId, line: &EpisodeLine) -> anyhow::Result<()> {
        match self {
            RunRecord::Database { store, .. } => {
                let text = serde_json::to_string(line)?;
                store
                    .record_run_episode(id, &line.scenario, line.trial, &text)
                    .await?;
                Ok(())
            }
            RunRecord::Server(transport) => {
                let path = format!("/v1/runs/{id}/episodes");
                send(transport, "POST", &path, serde_json::to_value(line)?).await
            }
        }
    }

    /// Every episode run `id` recorded (every shard's), in scenario and trial order; `None`
    /// when there is no such run. From a server, one request reads both.
    pub async fn lines(&self, id: &RunId) -> anyhow::Result<Option<Vec<EpisodeLine>>> {
        match self {
            RunRecord::Database { store, .. } => {
                if store.run(id).await?.is_none() {
                    return Ok(None);
                }
                super::stored_lines(store, id).await.map(Some)
            }
            RunRecord::Server(transport) => {
                let Some(detail) = self.detail(transport, id).await? else {
                    return Ok(None);
                };
                serde_json::from_value(detail["episodes"].clone())
                    .map(Some)
                    .with_context(|| format!("the episodes of the server's run `{id}`"))
            }
        }
    }

    /// Every episode run `id`, which exists, recorded.
    pub async fn lines_of(&self, id: &RunId) -> anyhow::Result<Vec<EpisodeLine>> {
        self.lines(id)
            .await?
            .with_context(|| format!("there is no run `{id}` in {}", self.place()))
    }

    /// Marks run `id` done with its report. A server checks the report's episodes and metrics
    /// against the episodes it recorded.
    pub async fn finish(&self, id: &RunId, report: &Report) -> anyhow::Result<()> {
        match self {
            RunRecord::Database { store, .. } => {
                store
                    .finish_run(id, &serde_json::to_string(report)?)
                    .await?;
                Ok(())
            }
            RunRecord::Server(transport) => {
                let path = format!("/v1/runs/{id}/report");
                send(transport, "PUT", &path, serde_json::to_value(report)?).await
            }
        }
    }

    /// `GET /v1/runs/{id}`; none when the server has no such run (for this key).
    async fn detail(&self, transport: &Transport, id: &RunId) -> anyhow::Result<Option<Value>> {
        let path = format!("/v1/runs/{id}");
        match call(transport, "GET", &path, None).await? {
            (200, detail) => Ok(Some(detail)),
            (404, _) => Ok(None),
            (status, answer) => Err(refused(&format!("GET {path}"), status, &answer)),
        }
    }
}

/// One call, tried again (after 0.5, 1 and 2 s) while it gets no answer or a 5xx.
async fn call(
    transport: &Transport,
    method: &'static str,
    path: &str,
    body: Option<&Value>,
) -> anyhow::Result<(u16, Value)> {
    let mut wait = Duration::from_millis(500);
    for _ in 1..TRIES {
        match transport.call(method, path, body).await {
            Ok((status, answer)) if status < 500 => return Ok((status, answer)),
            Ok((status, answer)) => {
                tracing::warn!(method, path, status, %answer, "the server failed; trying again");
            }
            Err(error) => tracing::warn!(%error, "no answer; trying again"),
        }
        tokio::time::sleep(wait).await;
        wait *= 2;
    }
    Ok(transport.call(method, path, body).await?)
}

/// A write that the server answers 200 when it took it.
async fn send(
    transport: &Transport,
    method: &'static str,
    path: &str,
    body: Value,
) -> anyhow::Result<()> {
    match call(transport, method, path, Some(&body)).await? {
        (200, _) => Ok(()),
        (status, answer) => Err(refused(&format!("{method} {path}"), status, &answer)),
    }
}

fn refused(call: &str, status: u16, answer: &Value) -> anyhow::Error {
    let error = &answer["error"];
    match error["message"].as_str() {
        Some(message) => anyhow::anyhow!(
            "the server refused {call} ({status} {}): {message}",
            error["code"].as_str().unwrap_or("?")
        ),
        None => anyhow::anyhow!("the server answered {status} to {call}: {answer}"),
    }
}
