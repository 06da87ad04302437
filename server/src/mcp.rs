//! Every episode as an MCP server (`/v1/episodes/{id}/mcp`: streamable HTTP, JSON-RPC 2.0, by
//! the MCP project's Rust SDK, `rmcp`), so that an agent that speaks MCP plays it unchanged.
//!
//! - `tools/list`: the env's tools with their JSON Schemas, every one listed whatever the mask:
//!   how the mask stands for each is in its `_meta` (`agentbench/mask`: `allowed`, `blocked` or
//!   `conditional`), and irreversible tools carry the `destructiveHint`. Besides them, unless
//!   the env has tools of these names, `final_message` (`{message}`: the agent's final message,
//!   which ends the episode) and `ask_user` (`{question}`), so that an MCP agent can end an
//!   episode and ask its user as any other agent does.
//! - `tools/call`: one step of the episode, recorded, scored and judged as any other. Its
//!   result's text is the observation; its structured content is the step as the REST API
//!   answers it (status, validation, violations, scores, the next action's mask, the outcome).
//!   A step that did not do what was asked (invalid arguments, an unknown or blocked tool, a
//!   tool error) is an MCP tool error (`isError`), as is a call on an episode that is over.
//!
//! The server is stateless (no MCP session; each request stands alone) and answers JSON rather
//! than event streams; the episode is its state. The SDK's Host header check (loopback names
//! only) is off: Host checks belong to the server, for every route alike, and it has none yet.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::response::IntoResponse;
use axum::routing::any;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, MetaObject, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use agentbench_env_runtime::{Action, LoadedEnv, Mask};

use crate::App;
use crate::api::Path;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::ids::EpisodeId;
use crate::requests::StepRequest;

/// The MCP route of every episode.
pub(crate) fn routes(app: &Arc<App>) -> Router<Arc<App>> {
    let handler = Episodes {
        app: Arc::clone(app),
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .disable_allowed_hosts();
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    Router::new().route(
        "/v1/episodes/{id}/mcp",
        any(
            move |State(app): State<Arc<App>>,
                  caller: Caller,
                  Path(id): Path<EpisodeId>,
                  mut request: Request| {
                let service = service.clone();
                async move {
                    // An unknown episode (or another tenant's) is the REST API's 404, before
                    // any MCP.
                    if let Err(error) = app.sessions.env_of(&caller, &id).await {
                        return ApiError::from(error).into_response();
                    }
                    request.extensions_mut().insert(id);
                    service.handle(request).await.into_response()
                }
            },
        ),
    )
}

/// The MCP handler of every episode: which one a request is for travels in its extensions.
#[derive(Debug, Clone)]
struct Episodes {
    app: Arc<App>,
}

/// The tools that stand for our actions that are not tool calls, with what each takes.
const ACTION_TOOLS: [(&str, &str, &str); 2] = [
    (
        "final_message",
        "message",
        "Your final message to the user: ends the episode.",
    ),
    (
        "ask_user",
        "question",
        "Ask the user a question; their reply is the result.",
    ),
];

impl Episodes {
    /// The episode a request is for (put there by the route), and who it acts for (put there
    /// by the API's middleware).
    fn episode(context: &RequestContext<RoleServer>) -> Result<(EpisodeId, Caller), ErrorData> {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let episode = parts.and_then(|parts| parts.extensions.get::<EpisodeId>());
        let caller = parts.and_then(|parts| parts.extensions.get::<Caller>());
        episode
            .cloned()
            .zip(caller.cloned())
            .ok_or_else(|| ErrorData::internal_error("the request names no episode", None))
    }
}

/// The action-tools `env` leaves free: those whose names none of its tools take.
fn action_tools(
    env: &LoadedEnv,
) -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    ACTION_TOOLS
        .into_iter()
        .filter(|(name, _, _)| env.manifest().tools.iter().all(|tool| tool.name != *name))
}

/// What an MCP client is shown of `env`'s tools: every one with its JSON Schema and, given the
/// episode's `mask`, how it stands (`_meta`), then the free action-tools.
pub(crate) fn listed_tools(env: &LoadedEnv, mask: Option<&Mask>) -> Vec<Tool> {
    let mut tools: Vec<Tool> = env
        .manifest()
        .tools
        .iter()
        .map(|tool| {
            let schema: JsonObject = match &tool.parameters {
                Value::Object(schema) => schema.clone(),
                _ => JsonObject::new(),
            };
            let mut listed = Tool::new(tool.name.clone(), tool.description.clone(), schema)
                .annotate(ToolAnnotations::new().destructive(tool.irreversible));
            if let Some(standing) = mask.and_then(|mask| mask.get(&tool.name)) {
                let meta = JsonObject::from_iter([("agentbench/mask".to_owned(), json!(standing))]);
                listed = listed.with_meta(MetaObject(meta));
            }
            listed
        })
        .collect();
    for (name, field, description) in action_tools(env) {
        let schema = json!({
            "type": "object",
            "properties": {field: {"type": "string"}},
            "required": [field],
            "additionalProperties": false,
        });
        let Value::Object(schema) = schema else {
            unreachable!("a JSON object")
        };
        tools.push(Tool::new(name, description, schema));
    }
    tools
}

/// The action a call of the tool `name` with `arguments` stands for, in an episode of `env`.
pub(crate) fn call_action(env: &LoadedEnv, name: String, arguments: JsonObject) -> Action {
    let arguments = Value::Object(arguments);
    let text = |field: &str| arguments[field].as_str().unwrap_or_default().to_owned();
    match action_tools(env).find(|(tool, _, _)| *tool == name) {
        Some(("final_message", field, _)) => Action::Message {
            message: text(field),
        },
        Some((_, field, _)) => Action::AskUser {
            question: text(field),
        },
        None => Action::Tool {
            tool: name,
            arguments,
        },
    }
}

/// Whether a recorded step did what its call asked (a tool that ran, a message, a question);
/// anything else (invalid arguments, an unknown or blocked tool, a tool error) is a tool error.
pub(crate) fn did_as_asked(step: &Value) -> bool {
    matches!(step["status"].as_str(), Some("ok" | "message" | "ask_user"))
}

/// A recorded step's observation as text: itself when it is a string, else its JSON.
pub(crate) fn observation_text(step: &Value) -> String {
    match &step["observation"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn internal(error: impl std::fmt::Display) -> ErrorData {
    tracing::error!(%error, "an MCP request failed");
    ErrorData::internal_error("internal server error", None)
}

impl ServerHandler for Episodes {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("agentbench", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "One agentbench episode: each tool call is a step of it, recorded and judged. \
                 End the episode with `final_message`.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let (episode, caller) = Self::episode(&context)?;
        let sessions = &self.app.sessions;
        let env = sessions.env_of(&caller, &episode).await.map_err(internal)?;
        let mask = sessions.mask(&caller, &episode).await.map_err(internal)?;
        Ok(ListToolsResult::with_all_items(listed_tools(
            &env,
            mask.as_deref(),
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (episode, caller) = Self::episode(&context)?;
        let sessions = &self.app.sessions;
        let env = sessions.env_of(&caller, &episode).await.map_err(internal)?;
        let step = StepRequest {
            action: call_action(
                &env,
                request.name.into_owned(),
                request.arguments.unwrap_or_default(),
            ),
            request_id: None,
            tokens: None,
            agent: None,
        };
        let answer = match sessions.clone().step(&caller, episode, step).await {
            Ok(answer) => answer,
            Err(error) if error.ended() => {
                let result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
                return Ok(result.into());
            }
            Err(error) => return Err(internal(error)),
        };
        let step: Value = serde_json::from_str(&answer).map_err(internal)?;
        let observation = observation_text(&step);
        let mut result = if did_as_asked(&step) {
            CallToolResult::success(vec![ContentBlock::text(observation)])
        } else {
            CallToolResult::error(vec![ContentBlock::text(observation)])
        };
        result.structured_content = Some(step);
        Ok(result.into())
    }
}
