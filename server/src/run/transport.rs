//! How the runner reaches the episode API: the router of an in-process `App` (no socket), or a
//! remote `agentbench serve` over HTTP. Both speak the same REST API, so a run is played the
//! same way either way.

use axum::Router;
use axum::body::Body;
use http_body_util::BodyExt as _;
use serde_json::Value;
use tower::ServiceExt as _;

use std::sync::Arc;

use agentbench_sandbox::Limits;
use agentbench_scorers::StepScorer;

use crate::auth::{Caller, DEFAULT_TENANT, Scope};
use crate::builtin::AddedPolicies;
use crate::store::Store;
use crate::{App, ServeSettings};

/// Where episodes are played.
#[derive(Debug, Clone)]
pub enum Transport {
    /// Every request acts for `caller`.
    InProcess { router: Router, caller: Caller },
    Remote {
        client: reqwest::Client,
        /// The server's base URL, without a trailing slash.
        base: String,
        /// Sent as `Authorization: Bearer KEY` to a server that takes keys.
        api_key: Option<String>,
    },
}

/// Who a run acts for: on a remote server, the API key it sends; in process, the tenant its
/// episodes and run are recorded for.
#[derive(Debug, Clone)]
pub struct Identity {
    pub tenant: String,
    pub api_key: Option<String>,
}

impl Default for Identity {
    fn default() -> Identity {
        Identity {
            tenant: DEFAULT_TENANT.to_owned(),
            api_key: None,
        }
    }
}

/// A call that got no JSON answer at all (the server is unreachable, or not agentbench).
#[derive(Debug, thiserror::Error)]
#[error("{method} {path}: {reason}")]
pub struct TransportError {
    method: &'static str,
    path: String,
    reason: String,
}

impl Transport {
    /// A remote server's, when `server` names one; otherwise an in-process server of the
    /// built-in envs (with `policies` added) recording into `store`.
    /// In process, `later` scorers score every step off the request path, as `serve --scorer`'s
    /// do; a remote server scores with its own.
    pub async fn for_run(
        server: Option<&str>,
        identity: &Identity,
        policies: &AddedPolicies,
        store: &Store,
        later: Vec<Box<dyn StepScorer>>,
    ) -> anyhow::Result<Transport> {
        Ok(match server {
            Some(url) => Transport::remote(url, identity.api_key.clone()),
            None => {
                let sandbox = crate::builtin::sandbox(Limits::default())?;
                let app = App::with_builtin_envs(
                    &sandbox,
                    policies,
                    ServeSettings::default(),
                    store.clone(),
                )
                .await?;
                if !later.is_empty() {
                    app.sessions.score_later(later);
                }
                Transport::in_process(app, Caller::of_tenant(&identity.tenant, Scope::Admin))
            }
        })
    }

    /// `app`'s router, called without a socket, each request acting for `caller`.
    pub fn in_process(app: App, caller: Caller) -> Transport {
        Transport::InProcess {
            router: crate::router(Arc::new(app)),
            caller,
        }
    }

    pub fn remote(base: &str, api_key: Option<String>) -> Transport {
        Transport::Remote {
            client: reqwest::Client::new(),
            base: base.trim_end_matches('/').to_owned(),
            api_key,
        }
    }

    /// Where requests go, for messages: the server's URL (without credentials), or `the
    /// in-process server`.
    pub fn describe(&self) -> String {
        match self {
            Transport::InProcess { .. } => "the in-process server".to_owned(),
            Transport::Remote { base, .. } => agentbench_agents::secrets::recordable_url(base),
        }
    }

    /// Sends one request; returns the status and the JSON body.
    pub async fn call(
        &self,
        method: &'static str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value), TransportError> {
        let failed = |reason: String| TransportError {
            method,
            path: path.to_owned(),
            reason,
        };
        let (status, bytes) = match self {
            Transport::InProcess { router, caller } => {
                let mut request = axum::http::Request::builder()
                    .method(method)
                    .uri(path)
                    .header("content-type", "application/json")
                    .body(body.map_or_else(Body::empty, |body| Body::from(body.to_string())))
                    .map_err(|error| failed(error.to_string()))?;
                request.extensions_mut().insert(caller.clone());
                let response = router
                    .clone()
                    .oneshot(request)
                    .await
                    .map_err(|error| failed(error.to_string()))?;
                let status = response.status().as_u16();
                let bytes = response
                    .into_body()
                    .collect()
                    .await
                    .map_err(|error| failed(error.to_string()))?
                    .to_bytes();
                (status, bytes)
            }
            Transport::Remote {
                client,
                base,
                api_key,
            } => {
                let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
                let mut request = client.request(method, format!("{base}{path}"));
                if let Some(key) = api_key {
                    request = request.bearer_auth(key);
                }
                if let Some(body) = body {
                    request = request
                        .header("content-type", "application/json")
                        .body(body.to_string());
                }
                let response = request
                    .send()
                    .await
                    .map_err(|error| failed(format!("{error:#}")))?;
                let status = response.status().as_u16();
                let bytes = response
                    .bytes()
                    .await
                    .map_err(|error| failed(error.to_string()))?;
                (status, bytes)
            }
        };
        let value = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .map_err(|error| failed(format!("the answer ({status}) is not JSON: {error}")))?
        };
        Ok((status, value))
    }
}
