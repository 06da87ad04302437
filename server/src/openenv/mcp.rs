//! OpenEnv's MCP, as OpenEnv 0.10's `MCPToolClient` speaks it in its "production" mode:
//! JSON-RPC 2.0 over `POST /openenv/{env}/mcp` (and inside its WebSocket, as `{"type": "mcp",
//! "data": REQUEST}` answered `{"type": "mcp", "data": RESPONSE}`).
//!
//! - `openenv/session/create` makes a session and answers its `session_id`; a WebSocket opened
//!   on `/openenv/{env}/ws?session_id=ID` shares it, so its `reset`, `step` and `state` act on
//!   the same episode as the session's `tools/call`s.
//! - `tools/list` (`{session_id?}`) answers the env's tools as our MCP route lists them
//!   (`inputSchema`; how the mask stands for each in `_meta`, once the session has an episode;
//!   the `final_message` and `ask_user` action-tools).
//! - `tools/call` (`{name, arguments, session_id}`) is one step of the session's episode,
//!   recorded, scored and judged as any other. Its result is MCP's `CallToolResult` (the
//!   observation as text content, the recorded step as `structuredContent`) plus `data`, the
//!   env's observation, which is what OpenEnv's client returns. A call that did not do as asked
//!   (invalid arguments, an unknown or blocked tool, a tool error, an episode that is over) is
//!   a JSON-RPC error, as an exception in a tool of OpenEnv's own servers is; its `data` is the
//!   recorded step, and OpenEnv's client raises it as `RuntimeError`.
//! - `openenv/session/close` (`{session_id}`) abandons the session's episode if it is still
//!   open (its record stays) and ends the session; while a WebSocket is attached it answers
//!   `closing` and the session ends when the socket does.
//!
//! A session is a slot for one episode at a time: a reset starts a new episode (abandoning the
//! one before, if still open), and a call made before any reset starts one as a reset without
//! arguments would. Each OpenEnv WebSocket has such a slot too, its own unless it attached to a
//! session.
//!
//! Sessions live in the process that made them: a load balancer in front of several nodes must
//! keep a client on one node, as OpenEnv's own servers need. At most `max_open_episodes` are
//! kept; one idle for longer than the episode TTL is dropped (its episode has expired by then).
//! Requests that are not JSON-RPC requests at all answer the API's own 400 or 422; a request
//! that is, answers 200 with a JSON-RPC result or error, as OpenEnv's servers do.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::App;
use crate::api::{Object, Path};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::ids::EpisodeId;
use crate::mcp::{call_action, did_as_asked, listed_tools, observation_text};
use crate::requests::{StepRequest, from_object};

use super::{Failure, Reset, abandon, served};

/// JSON-RPC's error codes, as OpenEnv's servers use them.
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const SERVER_ERROR: i64 = -32000;

/// A JSON-RPC 2.0 request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Request {
    #[allow(dead_code)]
    jsonrpc: Version,
    method: String,
    #[serde(default)]
    params: Map<String, Value>,
    #[serde(default)]
    id: Option<Id>,
}

#[derive(Debug, Deserialize)]
enum Version {
    #[serde(rename = "2.0")]
    V2,
}

/// A request's id, echoed in its answer.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(untagged)]
enum Id {
    Number(serde_json::Number),
    Text(String),
}

/// A JSON-RPC error.
#[derive(Debug)]
struct RpcError {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    fn with_data(self, data: Value) -> RpcError {
        RpcError {
            data: Some(data),
            ..self
        }
    }

    fn unknown_session(id: &str) -> RpcError {
        RpcError::new(INVALID_PARAMS, format!("Unknown session_id: {id}"))
    }
}

impl From<Failure> for RpcError {
    fn from(failure: Failure) -> RpcError {
        RpcError::new(SERVER_ERROR, failure.error.message.clone())
            .with_data(json!({"code": failure.openenv_code, "error": failure.error.detail()}))
    }
}

/// One episode at a time, for an OpenEnv session or WebSocket.
#[derive(Debug)]
pub(super) struct Slot {
    pub(super) id: Arc<str>,
    env: String,
    tenant: String,
    /// The episode, if one was started; held while one is started or ended, so that a call
    /// and a reset racing on one session start one episode each, not two at once.
    episode: tokio::sync::Mutex<Option<EpisodeId>>,
}

impl Slot {
    /// A slot for episodes of `env` made by `caller`.
    pub(super) fn new(caller: &Caller, env: &str) -> Arc<Slot> {
        Arc::new(Slot {
            id: uuid::Uuid::new_v4().to_string().into(),
            env: env.to_owned(),
            tenant: caller.tenant().to_owned(),
            episode: tokio::sync::Mutex::new(None),
        })
    }

    /// The episode now in the slot, if any.
    pub(super) async fn current(&self) -> Option<EpisodeId> {
        self.episode.lock().await.clone()
    }

    /// Starts a new episode in the slot, abandoning the one before if it is still open;
    /// answers OpenEnv's reset result as JSON text.
    pub(super) async fn reset(
        &self,
        app: &Arc<App>,
        caller: &Caller,
        reset: Reset,
    ) -> Result<String, Failure> {
        let mut episode = self.episode.lock().await;
        let (_, result) = self.start(&mut episode, app, caller, reset).await?;
        Ok(result)
    }

    /// The episode in the slot, started as a reset without arguments would if there is none.
    async fn episode(&self, app: &Arc<App>, caller: &Caller) -> Result<EpisodeId, Failure> {
        let mut episode = self.episode.lock().await;
        match &*episode {
            Some(id) => Ok(id.clone()),
            None => Ok(self
                .start(&mut episode, app, caller, Reset::default())
                .await?
                .0),
        }
    }

    /// `reset` on the slot's episode, held locked; answers the new episode's id and OpenEnv's
    /// reset result as JSON text.
    async fn start(
        &self,
        episode: &mut Option<EpisodeId>,
        app: &Arc<App>,
        caller: &Caller,
        reset: Reset,
    ) -> Result<(EpisodeId, String), Failure> {
        abandon(app, caller, episode.take()).await;
        let (id, result) = super::reset(app, caller, &self.env, reset).await?;
        *episode = Some(id.clone());
        Ok((id, result))
    }

    /// Abandons the slot's episode if it is still open.
    pub(super) async fn end(&self, app: &Arc<App>, caller: &Caller) {
        abandon(app, caller, self.episode.lock().await.take()).await;
    }
}

/// A session in the table.
#[derive(Debug)]
struct Session {
    slot: Arc<Slot>,
    /// A WebSocket shares it.
    attached: bool,
    /// Closed while a WebSocket was attached: it ends when the socket does.
    closing: bool,
    used: Instant,
}

/// The OpenEnv sessions `openenv/session/create` made, by id.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    open: Mutex<HashMap<Arc<str>, Session>>,
}

/// What closing a session found.
enum Closed {
    /// It ended; its slot's episode is to be ended.
    Ended(Arc<Slot>),
    /// A WebSocket is attached: it ends when the socket does.
    Closing,
    Unknown,
}

impl Sessions {
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Session>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new session for `caller` on `env`, after dropping those idle longer than `idle`; or,
    /// with `max` kept already, how many are.
    fn create(
        &self,
        caller: &Caller,
        env: &str,
        max: usize,
        idle: Duration,
    ) -> Result<Arc<Slot>, usize> {
        let mut open = self.open();
        open.retain(|_, session| session.attached || session.used.elapsed() <= idle);
        if open.len() >= max {
            return Err(open.len());
        }
        let slot = Slot::new(caller, env);
        open.insert(
            slot.id.clone(),
            Session {
                slot: slot.clone(),
                attached: false,
                closing: false,
                used: Instant::now(),
            },
        );
        Ok(slot)
    }

    /// The session `id` of `caller`'s tenant on `env` in `open`, marked used; `None` for any
    /// other, and for one that is closing.
    fn seen<'a>(
        open: &'a mut HashMap<Arc<str>, Session>,
        caller: &Caller,
        env: &str,
        id: &str,
    ) -> Option<&'a mut Session> {
        let session = open.get_mut(id).filter(|session| {
            !session.closing && session.slot.tenant == caller.tenant() && session.slot.env == env
        })?;
        session.used = Instant::now();
        Some(session)
    }

    /// The slot of session `id`, as `seen` finds it.
    fn find(&self, caller: &Caller, env: &str, id: &str) -> Option<Arc<Slot>> {
        Self::seen(&mut self.open(), caller, env, id).map(|session| session.slot.clone())
    }

    /// Attaches a WebSocket to the session `id`: refused for an unknown session (404) and for
    /// one that has a socket already (409).
    pub(super) fn attach(
        &self,
        caller: &Caller,
        env: &str,
        id: &str,
    ) -> Result<Arc<Slot>, ApiError> {
        let mut open = self.open();
        let session = Self::seen(&mut open, caller, env, id)
            .ok_or_else(|| ApiError::not_found("OpenEnv session", id))?;
        if session.attached {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "session_attached",
                format!("OpenEnv session {id} already has a WebSocket attached"),
            ));
        }
        session.attached = true;
        Ok(session.slot.clone())
    }

    /// Detaches the WebSocket of session `id`; answers its slot when the session was closed
    /// meanwhile (it has ended now, and its episode is to be ended).
    pub(super) fn detach(&self, id: &str) -> Option<Arc<Slot>> {
        let mut open = self.open();
        let session = open.get_mut(id)?;
        session.attached = false;
        session.used = Instant::now();
        if session.closing {
            return open.remove(id).map(|session| session.slot);
        }
        None
    }

    fn close(&self, caller: &Caller, env: &str, id: &str) -> Closed {
        let mut open = self.open();
        match Self::seen(&mut open, caller, env, id) {
            None => Closed::Unknown,
            Some(session) if session.attached => {
                session.closing = true;
                Closed::Closing
            }
            Some(_) => open
                .remove(id)
                .map_or(Closed::Unknown, |session| Closed::Ended(session.slot)),
        }
    }
}

/// `POST /openenv/{env}/mcp`.
pub(super) async fn http(
    State(app): State<Arc<App>>,
    caller: crate::auth::Caller,
    Path(env): Path<String>,
    body: Result<Object<Request>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    served(&app, &env)?;
    let Object(request) = body?;
    let rpc = Rpc {
        app: &app,
        caller: &caller,
        env: &env,
        socket: None,
    };
    Ok(Json(rpc.answer(request).await))
}

/// The answer to an `mcp` message on an OpenEnv WebSocket whose own slot is `socket`.
pub(super) async fn message(
    app: &Arc<App>,
    caller: &Caller,
    env: &str,
    data: Value,
    socket: &Arc<Slot>,
) -> Value {
    let answer = match from_object::<Request>(data) {
        Ok(request) => {
            let rpc = Rpc {
                app,
                caller,
                env,
                socket: Some(socket),
            };
            rpc.answer(request).await
        }
        Err(error) => response(
            None,
            Err(RpcError::new(
                INVALID_REQUEST,
                format!("Invalid request: {error}"),
            )),
        ),
    };
    json!({"type": "mcp", "data": answer})
}

fn response(id: Option<Id>, result: Result<Value, RpcError>) -> Value {
    match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => {
            let mut body = json!({"code": error.code, "message": error.message});
            if let Some(data) = error.data {
                body["data"] = data;
            }
            json!({"jsonrpc": "2.0", "id": id, "error": body})
        }
    }
}

/// The `session_id` of `params`, if it names one.
fn session_id(params: &Map<String, Value>) -> Result<Option<&str>, RpcError> {
    match params.get("session_id") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(id)) => Ok(Some(id)),
        Some(_) => Err(RpcError::new(INVALID_PARAMS, "`session_id` is a string")),
    }
}

/// A JSON-RPC request's context: made on `env` by `caller`, over a WebSocket whose own slot is
/// `socket` if it came that way.
struct Rpc<'a> {
    app: &'a Arc<App>,
    caller: &'a Caller,
    env: &'a str,
    socket: Option<&'a Arc<Slot>>,
}

impl Rpc<'_> {
    /// JSON-RPC's response to `request`.
    async fn answer(&self, request: Request) -> Value {
        let Request {
            method, params, id, ..
        } = request;
        let result = match method.as_str() {
            "openenv/session/create" => self.create(),
            "openenv/session/close" => self.close(&params).await,
            "tools/list" => self.list(&params).await,
            "tools/call" => self.call(params).await,
            other => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!(
                    "Method not found: {other} (this is OpenEnv's MCP: openenv/session/create, \
                     tools/list, tools/call, openenv/session/close; every episode is a full MCP \
                     server at /v1/episodes/{{id}}/mcp)"
                ),
            )),
        };
        response(id, result)
    }

    fn create(&self) -> Result<Value, RpcError> {
        if let Some(slot) = self.socket {
            return Ok(json!({"session_id": slot.id}));
        }
        let settings = self.app.sessions.settings();
        let max = settings.max_open_episodes;
        match self
            .app
            .openenv
            .create(self.caller, self.env, max, settings.episode_ttl)
        {
            Ok(slot) => Ok(json!({"session_id": slot.id})),
            Err(active) => Err(RpcError::new(
                SERVER_ERROR,
                format!(
                    "at capacity: {active} OpenEnv sessions are open, the most this server keeps"
                ),
            )
            .with_data(json!({"active_sessions": active, "max_sessions": max}))),
        }
    }

    /// The slot a request acts in: the socket's, or the session its params name.
    fn slot(&self, params: &Map<String, Value>) -> Result<Option<Arc<Slot>>, RpcError> {
        if let Some(slot) = self.socket {
            return Ok(Some(slot.clone()));
        }
        match session_id(params)? {
            None => Ok(None),
            Some(id) => self
                .app
                .openenv
                .find(self.caller, self.env, id)
                .map(Some)
                .ok_or_else(|| RpcError::unknown_session(id)),
        }
    }

    async fn close(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let Some(id) = session_id(params)? else {
            return Err(RpcError::new(
                INVALID_PARAMS,
                "Invalid params - 'session_id' is required",
            ));
        };
        if self.socket.is_some_and(|slot| *slot.id == *id) {
            return Err(RpcError::new(
                INVALID_REQUEST,
                "Cannot close active WebSocket-managed session via MCP method",
            ));
        }
        match self.app.openenv.close(self.caller, self.env, id) {
            Closed::Ended(slot) => {
                slot.end(self.app, self.caller).await;
                Ok(json!({"session_id": id, "closed": true}))
            }
            Closed::Closing => Ok(json!({"session_id": id, "closed": false, "closing": true})),
            Closed::Unknown => Err(RpcError::unknown_session(id)),
        }
    }

    async fn list(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let loaded = served(self.app, self.env).map_err(Failure::from)?;
        let episode = match self.slot(params)? {
            Some(slot) => slot.current().await,
            None => None,
        };
        let mask = match episode {
            Some(episode) => self
                .app
                .sessions
                .mask(self.caller, &episode)
                .await
                .map_err(Failure::from)?,
            None => None,
        };
        let tools = listed_tools(&loaded, mask.as_deref());
        Ok(json!({"tools": tools}))
    }

    async fn call(&self, mut params: Map<String, Value>) -> Result<Value, RpcError> {
        let Some(Value::String(name)) = params.remove("name") else {
            return Err(RpcError::new(
                INVALID_PARAMS,
                "Missing 'name' in params (the tool to call, a string)",
            ));
        };
        let arguments = match params.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(arguments)) => arguments,
            Some(_) => {
                return Err(RpcError::new(INVALID_PARAMS, "'arguments' is an object"));
            }
        };
        let Some(slot) = self.slot(&params)? else {
            return Err(RpcError::new(
                INVALID_PARAMS,
                "tools/call acts in a session: pass the `session_id` that \
                 openenv/session/create answered",
            ));
        };
        let episode = slot.episode(self.app, self.caller).await?;
        let loaded = served(self.app, self.env).map_err(Failure::from)?;
        let request = StepRequest {
            action: call_action(&loaded, name.clone(), arguments),
            request_id: None,
            tokens: None,
            agent: None,
        };
        let answer = self
            .app
            .sessions
            .clone()
            .step(self.caller, episode, request)
            .await
            .map_err(|error| RpcError::from(Failure::from(error)))?;
        let step: Value = serde_json::from_str(&answer)
            .map_err(|error| RpcError::from(Failure::from(ApiError::internal(error))))?;
        let text = observation_text(&step);
        if !did_as_asked(&step) {
            let status = step["status"].as_str().unwrap_or("failed");
            return Err(
                RpcError::new(SERVER_ERROR, format!("{name}: {status}: {text}")).with_data(step),
            );
        }
        Ok(json!({
            "content": [{"type": "text", "text": text}],
            "structuredContent": step,
            "isError": false,
            "data": step["observation"],
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Scope;

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn sessions_are_kept_up_to_their_limit_and_dropped_once_idle() {
        let (sessions, alice) = (Sessions::default(), Caller::of_tenant("alice", Scope::Run));
        sessions.create(&alice, "workspace", 2, HOUR).unwrap();
        sessions.create(&alice, "workspace", 2, HOUR).unwrap();
        assert_eq!(
            sessions.create(&alice, "workspace", 2, HOUR).unwrap_err(),
            2
        );
        // Idle longer than the TTL, both go when the next is made.
        std::thread::sleep(Duration::from_millis(5));
        let kept = sessions
            .create(&alice, "workspace", 2, Duration::from_millis(1))
            .unwrap();
        assert_eq!(sessions.open().len(), 1);
        assert!(sessions.find(&alice, "workspace", &kept.id).is_some());
    }

    #[test]
    fn a_session_is_found_only_by_its_tenant_on_its_env() {
        let sessions = Sessions::default();
        let alice = Caller::of_tenant("alice", Scope::Run);
        let slot = sessions.create(&alice, "workspace", 8, HOUR).unwrap();
        assert!(sessions.find(&alice, "workspace", &slot.id).is_some());
        let bob = Caller::of_tenant("bob", Scope::Run);
        assert!(sessions.find(&bob, "workspace", &slot.id).is_none());
        assert!(sessions.find(&alice, "banking", &slot.id).is_none());
        assert!(sessions.find(&alice, "workspace", "no-such-id").is_none());
        assert!(matches!(
            sessions.close(&bob, "workspace", &slot.id),
            Closed::Unknown
        ));
    }

    #[test]
    fn one_socket_attaches_and_a_session_closed_under_it_ends_with_it() {
        let sessions = Sessions::default();
        let alice = Caller::of_tenant("alice", Scope::Run);
        let slot = sessions.create(&alice, "workspace", 8, HOUR).unwrap();
        sessions.attach(&alice, "workspace", &slot.id).unwrap();
        let second = sessions.attach(&alice, "workspace", &slot.id).unwrap_err();
        assert_eq!(
            (second.status, second.code),
            (StatusCode::CONFLICT, "session_attached")
        );
        // An attached session is not dropped for idleness.
        std::thread::sleep(Duration::from_millis(5));
        sessions
            .create(&alice, "workspace", 8, Duration::from_millis(1))
            .unwrap();
        assert!(sessions.find(&alice, "workspace", &slot.id).is_some());

        assert!(matches!(
            sessions.close(&alice, "workspace", &slot.id),
            Closed::Closing
        ));
        // Closing, it takes no new requests; the socket's end ends it.
        assert!(sessions.find(&alice, "workspace", &slot.id).is_none());
        let ended = sessions.detach(&slot.id).unwrap();
        assert!(Arc::ptr_eq(&ended, &slot));
        assert!(!sessions.open().contains_key(&slot.id));

        // A session closed with no socket ends at once; detaching a socket from an open one
        // ends nothing.
        let other = sessions.create(&alice, "workspace", 8, HOUR).unwrap();
        sessions.attach(&alice, "workspace", &other.id).unwrap();
        assert!(sessions.detach(&other.id).is_none());
        assert!(matches!(
            sessions.close(&alice, "workspace", &other.id),
            Closed::Ended(_)
        ));
        assert!(!sessions.open().contains_key(&other.id));
    }
}
