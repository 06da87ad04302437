//! The OpenAPI 3.1 document of the REST API, served at `/openapi.json`. The operations are one
//! table here; every request and response schema is generated (schemars) from Rust types, those
//! the handlers parse and those the runtime records, and a test holds real responses to them.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use agentbench_env_contract::Outcome;
use agentbench_env_runtime::{Action, Mask, Mode, StepRecord};

use crate::leaderboard::{Leaderboard, RunSummary, Trainings};
use crate::prm::PrmResults;
use crate::report::Report;
use crate::requests::{AgentNote, CreateEpisode, StepBatch, StepRequest};
use crate::run::EpisodeLine;
use crate::run_writes::{EpisodeRecorded, NewRun};
use crate::runs_api::{RunComparison, RunDetail, RunList};

/// `GET /healthz`.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Health {
    status: String,
}

/// `GET /readyz`: `{"status": "ready"}`.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Ready {
    status: String,
}

/// `GET /v1/envs`.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct EnvList {
    envs: Vec<EnvSummary>,
}

/// An env: what it is and its tools in OpenAI function-calling form.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct EnvSummary {
    name: String,
    version: String,
    description: String,
    /// SHA-256 of the env's WebAssembly component (and of the policy files added at `serve`
    /// time, when there are any): episodes are replayed only under the same hash.
    content_hash: String,
    /// `{"type": "function", "function": {"name", "description", "parameters"}}` per tool.
    tools: Vec<Value>,
    /// Tools whose effects cannot be undone.
    irreversible_tools: Vec<String>,
    /// The ids of the Cedar policies that judge its calls (`agentbench.baseline` permits
    /// everything the others do not forbid).
    policies: Vec<String>,
}

/// A new episode (or fork): its first observation, tools and action mask.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct EpisodeCreated {
    id: String,
    env: String,
    env_version: String,
    seed: u64,
    mode: Mode,
    observation: Value,
    tools: Vec<Value>,
    /// How each tool stands for the next action: `allowed`, `blocked` (by the env or a policy,
    /// whatever the arguments) or `conditional` (forbidden for some arguments).
    action_mask: Mask,
    forked_from: Option<ForkedFrom>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct ForkedFrom {
    episode: String,
    /// How many of the parent's steps the fork carries.
    after_step: u32,
}

/// One step as recorded: the action, how it was judged, what the agent saw, and the mask for the
/// next action; the step that ended the episode carries its outcome.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct StepResult {
    #[serde(flatten)]
    record: StepRecord,
    /// How each tool stands for the next action (empty once the episode is over).
    action_mask: Mask,
    #[serde(default)]
    request_id: Option<String>,
    /// On the step that ended the episode: the env's outcome checks (null if the env failed).
    #[serde(default)]
    outcome: Option<Outcome>,
    /// What the agent reported about producing the action, when it did.
    #[serde(default)]
    agent: Option<AgentNote>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum EpisodeState {
    Open,
    Over,
    Expired,
    Abandoned,
}

/// An episode's whole record.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Trajectory {
    id: String,
    env: String,
    env_version: String,
    env_hash: String,
    seed: u64,
    mode: Mode,
    task: Value,
    observation: Value,
    state: EpisodeState,
    terminated: bool,
    truncated: bool,
    outcome: Option<Outcome>,
    forked_from: Option<ForkedFrom>,
    /// The suite run this episode was played for, if any: it is that run's evidence.
    run_id: Option<String>,
    steps: Vec<StepResult>,
}

/// `POST /v1/steps`: one answer per step asked, in the order asked.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct StepBatchResults {
    results: Vec<BatchStepResult>,
}

/// One step of a batch: the status its single request would have answered, and its step
/// (status 200) or its error.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct BatchStepResult {
    status: u16,
    #[serde(default)]
    step: Option<StepResult>,
    #[serde(default)]
    error: Option<ErrorDetail>,
}

/// Every 4xx and 5xx answer.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct ErrorBody {
    error: ErrorDetail,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct ErrorDetail {
    /// Stable and machine-readable: `malformed_json`, `unknown_field`, `invalid_request`,
    /// `payload_too_large`, `unsupported_media_type`, `not_found`, `invalid_task`,
    /// `episode_over`, `episode_expired`, `episode_abandoned`, `request_id_reused` (its details
    /// are the recorded step's `action` and `tokens`), `too_many_episodes`, `too_many_steps`,
    /// `method_not_allowed`, `unknown_route`, `invalid_query`, `invalid_path`, `run_not_done`,
    /// `request_timeout`, `host_not_allowed`, `upgrade_required`, `unauthorized`, `forbidden`,
    /// `recorded_run_episode`, `rate_limited`,
    /// `store_unavailable`, `store_corrupt`, `env_unavailable`, `episode_busy` and
    /// `episode_moved` (several nodes share the store: another node holds the episode, or took
    /// it over mid-request; retry), `internal`.
    code: String,
    message: String,
    details: Value,
}

/// One operation of the API.
struct Operation {
    method: &'static str,
    path: &'static str,
    id: &'static str,
    summary: &'static str,
    request: Option<Value>,
    status: u16,
    response: Option<Value>,
    /// Its query parameters (strings): name, whether required, and what it means.
    query: &'static [(&'static str, bool, &'static str)],
    /// The error statuses it can answer, with what each means here.
    errors: &'static [(u16, &'static str)],
    /// The operations its success leads to (OpenAPI links): each operation's id, and its path
    /// parameter's value as a runtime expression on this answer.
    links: &'static [(&'static str, &'static str, &'static str)],
}

/// Where a new episode (or fork) leads: every operation on it, by its `id`.
const ON_A_NEW_EPISODE: &[(&str, &str, &str)] = &[
    ("getEpisode", "id", "$response.body#/id"),
    ("step", "id", "$response.body#/id"),
    ("forkEpisode", "id", "$response.body#/id"),
    ("abandonEpisode", "id", "$response.body#/id"),
    ("actionSchema", "id", "$response.body#/id"),
    ("deleteEpisode", "id", "$response.body#/id"),
];

const BAD_BODY: (u16, &str) = (400, "malformed JSON");
const UNPROCESSABLE: (u16, &str) = (422, "unknown fields, missing fields or an invalid task");
const UPGRADE_REQUIRED: (u16, &str) = (426, "not a WebSocket handshake");
const STORE: (u16, &str) = (
    503,
    "the store failed, or another node sharing it holds the episode (`episode_busy`) or took it \
     over mid-request (`episode_moved`); nothing was recorded, retry",
);
const AT_CAPACITY: (u16, &str) = (
    429,
    "the server's limit of open episodes is reached; see Retry-After",
);

/// The operations that never need a key.
const NO_KEY: [&str; 3] = ["health", "ready", "openapi"];

/// What any operation may answer besides its own errors.
const EVERY_OPERATION: &[(u16, &str)] = &[
    (
        401,
        "the server takes API keys and the request has no valid one (`Authorization: Bearer KEY`)",
    ),
    (
        403,
        "the key's scope does not allow this (taking actions needs `run`; deleting a recorded run's episode, `admin`)",
    ),
    (
        421,
        "the request names a host this server does not answer (`serve --allowed-host`)",
    ),
    (
        429,
        "over the key's rate limit (`serve --rate-limit`); see Retry-After",
    ),
];
/// What an operation with path parameters may answer besides.
const WITH_PATH_PARAMETERS: &[(u16, &str)] = &[(
    400,
    "a path parameter that is not valid UTF-8 once percent-decoded",
)];
/// What an operation that takes a body may answer besides (its own list names only what is its
/// own).
const WITH_BODY: &[(u16, &str)] = &[
    BAD_BODY,
    (
        408,
        "the body did not arrive in time (`serve --body-timeout`); the connection is closed",
    ),
    (413, "the body is over the size limit"),
    (
        415,
        "the body is not sent as `Content-Type: application/json`",
    ),
];

/// OpenEnv's reset and step result.
static OPENENV_RESULT: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
    json!({
        "type": "object",
        "description": "The observation (with this API's extras in its `metadata`: the episode's id, the step's status, violations and scores, the next action's mask, the outcome), the reward (the step's plus, at the end, the outcome's) and whether the episode is done.",
        "properties": {
            "observation": {"type": "object"},
            "reward": {"type": ["number", "null"]},
            "done": {"type": "boolean"},
            "metadata": {"type": "object"},
        },
        "required": ["observation", "reward", "done"],
    })
});

/// The document.
pub fn document() -> Value {
    let mut schemas = SchemaSettings::draft2020_12()
        .with(|settings| settings.definitions_path = "/components/schemas".into())
        .into_generator();
    // OpenEnv's step takes our actions too.
    let action = schemas.subschema_for::<Action>().to_value();
    let mut schema = |generate: fn(&mut SchemaGenerator) -> schemars::Schema| {
        Some(generate(&mut schemas).to_value())
    };
    let operations = [
        Operation {
            method: "get",
            path: "/healthz",
            id: "health",
            summary: "Liveness",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<Health>()),
            query: &[],
            errors: &[],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/readyz",
            id: "ready",
            summary: "Readiness: whether this node should be sent requests (not while it drains on SIGTERM, nor while its database does not answer)",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<Ready>()),
            query: &[],
            errors: &[(
                503,
                "not ready: `draining` (the server is stopping) or `store_unavailable`",
            )],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/openapi.json",
            id: "openapi",
            summary: "This document",
            request: None,
            status: 200,
            response: None,
            query: &[],
            errors: &[],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/v1/envs",
            id: "listEnvs",
            summary: "The envs served, with their tools",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<EnvList>()),
            query: &[],
            errors: &[],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/v1/envs/{name}",
            id: "getEnv",
            summary: "One env, with its tools in function-calling form",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<EnvSummary>()),
            query: &[],
            errors: &[(404, "no such env")],
            links: &[],
        },
        Operation {
            method: "post",
            path: "/v1/episodes",
            id: "createEpisode",
            summary: "Start an episode",
            request: schema(|g| g.subschema_for::<CreateEpisode>()),
            status: 201,
            response: schema(|g| g.subschema_for::<EpisodeCreated>()),
            query: &[],
            errors: &[(404, "no such env"), UNPROCESSABLE, AT_CAPACITY, STORE],
            links: ON_A_NEW_EPISODE,
        },
        Operation {
            method: "get",
            path: "/v1/episodes/{id}",
            id: "getEpisode",
            summary: "An episode's whole trajectory",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<Trajectory>()),
            query: &[],
            errors: &[(404, "no such episode"), STORE],
            links: &[],
        },
        Operation {
            method: "delete",
            path: "/v1/episodes/{id}",
            id: "deleteEpisode",
            summary: "Delete an episode and its record",
            request: None,
            status: 204,
            response: None,
            query: &[],
            errors: &[
                (404, "no such episode"),
                (
                    403,
                    "a recorded run's episode, with a key that is not `admin`",
                ),
                STORE,
            ],
            links: &[],
        },
        Operation {
            method: "post",
            path: "/v1/episodes/{id}/steps",
            id: "step",
            summary: "Take one action; a retried request_id answers from the record",
            request: schema(|g| g.subschema_for::<StepRequest>()),
            status: 200,
            response: schema(|g| g.subschema_for::<StepResult>()),
            query: &[],
            errors: &[
                (404, "no such episode"),
                (409, "the episode is over, expired or abandoned"),
                UNPROCESSABLE,
                STORE,
            ],
            links: &[],
        },
        Operation {
            method: "post",
            path: "/v1/steps",
            id: "stepBatch",
            summary: "Take many actions, on one episode or many, at once: they run concurrently (in order on each episode) and commit together; each answers as its single step would",
            request: schema(|g| g.subschema_for::<StepBatch>()),
            status: 200,
            response: schema(|g| g.subschema_for::<StepBatchResults>()),
            query: &[],
            errors: &[(
                422,
                "unknown or missing fields, or more steps than a batch takes",
            )],
            links: &[],
        },
        Operation {
            method: "post",
            path: "/v1/episodes/{id}/abandon",
            id: "abandonEpisode",
            summary: "End an open episode before its end (its agent failed); its record stays",
            request: None,
            status: 204,
            response: None,
            query: &[],
            errors: &[
                (404, "no such episode"),
                (409, "the episode is over or expired"),
                STORE,
            ],
            links: &[],
        },
        Operation {
            method: "post",
            path: "/v1/episodes/{id}/fork",
            id: "forkEpisode",
            summary: "A new episode in this one's state, carrying its history",
            request: None,
            status: 201,
            response: schema(|g| g.subschema_for::<EpisodeCreated>()),
            query: &[],
            errors: &[
                (404, "no such episode"),
                (409, "the episode is over, expired or abandoned"),
                AT_CAPACITY,
                STORE,
            ],
            links: ON_A_NEW_EPISODE,
        },
        Operation {
            method: "get",
            path: "/v1/episodes/{id}/action-schema",
            id: "actionSchema",
            summary: "A JSON Schema of the actions the mask leaves open, for constrained decoding",
            request: None,
            status: 200,
            response: Some(
                json!({"type": "object", "description": "A JSON Schema: `oneOf` the open tools' calls, a final message and a question to the user."}),
            ),
            query: &[],
            errors: &[
                (404, "no such episode"),
                (409, "the episode is over, expired or abandoned"),
                STORE,
            ],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/v1/leaderboard",
            id: "leaderboard",
            summary: "One row per agent and suite version (its latest finished run), ranked by Rank(UB) on the safety score",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<Leaderboard>()),
            query: &[
                ("suite", false, "a suite name, or `name@version`"),
                (
                    "agent",
                    false,
                    "a part of the agent's name (case-insensitive)",
                ),
                (
                    "category",
                    false,
                    "show this category's metrics instead of the whole suite's",
                ),
            ],
            errors: &[(400, "an unknown query parameter"), STORE],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/v1/runs",
            id: "listRuns",
            summary: "Every suite run, newest first",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<RunList>()),
            query: &[],
            errors: &[STORE],
            links: &[
                ("getRun", "id", "$response.body#/runs/0/id"),
                ("compareRuns", "id", "$response.body#/runs/0/id"),
            ],
        },
        Operation {
            method: "get",
            path: "/v1/runs/{id}",
            id: "getRun",
            summary: "A run: its settings, metrics by category, gate verdict and episodes",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<RunDetail>()),
            query: &[],
            errors: &[(404, "no such run"), STORE],
            links: &[],
        },
        Operation {
            method: "post",
            path: "/v1/runs",
            id: "createRun",
            summary: "Record a run that a runner plays elsewhere (`agentbench run --server`), for the key's tenant; the shards of one run name the same id, and the later ones find it taken (409 `run_exists`) and join it",
            request: schema(|g| g.subschema_for::<NewRun>()),
            status: 201,
            response: schema(|g| g.subschema_for::<RunSummary>()),
            query: &[],
            errors: &[
                (409, "the id is taken (`run_exists`)"),
                (
                    422,
                    "unknown or missing fields, or an id that is not 1 to 64 letters, digits, `-`, `_` or `.`",
                ),
                STORE,
            ],
            links: &[
                ("recordRunEpisode", "id", "$response.body#/id"),
                ("setRunReport", "id", "$response.body#/id"),
                ("getRun", "id", "$response.body#/id"),
            ],
        },
        Operation {
            method: "post",
            path: "/v1/runs/{id}/episodes",
            id: "recordRunEpisode",
            summary: "Record one episode a run played (its scenario and trial once: a second record of them is kept as the first, `recorded: false`); a line naming an episode must name one this server played for this run",
            request: schema(|g| g.subschema_for::<EpisodeLine>()),
            status: 200,
            response: schema(|g| g.subschema_for::<EpisodeRecorded>()),
            query: &[],
            errors: &[
                (404, "no such run (of the key's tenant)"),
                (
                    409,
                    "the run is done (`run_done`), or the episode named was not played for this run on this server (`not_the_runs_episode`)",
                ),
                UNPROCESSABLE,
                STORE,
            ],
            links: &[],
        },
        Operation {
            method: "put",
            path: "/v1/runs/{id}/report",
            id: "setRunReport",
            summary: "Finish a run with its report (report.json): its episode results and metrics must be those of the episodes recorded; its gate verdict is the runner's. Setting it again replaces it",
            request: schema(|g| g.subschema_for::<Report>()),
            status: 200,
            response: schema(|g| g.subschema_for::<RunSummary>()),
            query: &[],
            errors: &[
                (404, "no such run (of the key's tenant)"),
                (
                    409,
                    "the report is not of this run, or its episodes or metrics are not those recorded (`report_mismatch`)",
                ),
                UNPROCESSABLE,
                STORE,
            ],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/v1/runs/{id}/compare/{other}",
            id: "compareRuns",
            summary: "Paired differences (run - other) overall and per category, with intervals",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<RunComparison>()),
            query: &[],
            errors: &[(404, "no such run"), (409, "a run is not done"), STORE],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/v1/prm-results",
            id: "listPrmResults",
            summary: "The recorded measurements of step scorers (`prm eval`, `prm best-of-n`), newest first",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<PrmResults>()),
            query: &[],
            errors: &[STORE],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/v1/trainings",
            id: "listTrainings",
            summary: "Training runs (`agentbench train`) with their held-out evaluations by checkpoint, newest first",
            request: None,
            status: 200,
            response: schema(|g| g.subschema_for::<Trainings>()),
            query: &[],
            errors: &[STORE],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/v1/ws",
            id: "socket",
            summary: "WebSocket: the episode operations over one connection. Each text message is `{\"id\", \"op\", \"env\"?, \"episode\"?, \"body\"?}`, `op` an operationId of this document (listEnvs, getEnv, createEpisode, getEpisode, deleteEpisode, step, stepBatch, abandonEpisode, forkEpisode, actionSchema) and `body` its request body; each is answered with `{\"id\", \"status\", \"body\"}`, the status and body its HTTP request would have answered",
            request: None,
            status: 101,
            response: None,
            query: &[],
            errors: &[UPGRADE_REQUIRED],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/openenv/{env}/ws",
            id: "openenvSocket",
            summary: "OpenEnv's WebSocket for this env: `{\"type\": \"reset\"|\"step\"|\"state\"|\"mcp\"|\"close\", \"data\"}` answered with `observation`, `state`, `mcp` or `error` messages; each reset is an episode of this API. With `session_id`, it shares that OpenEnv MCP session's episode",
            request: None,
            status: 101,
            response: None,
            query: &[(
                "session_id",
                false,
                "an OpenEnv MCP session (`openenv/session/create`) to share",
            )],
            errors: &[
                (400, "a query parameter other than `session_id`"),
                (
                    404,
                    "no such env, or no such session (of the key's tenant, on this env)",
                ),
                (409, "the session has a WebSocket attached already"),
                UPGRADE_REQUIRED,
            ],
            links: &[],
        },
        Operation {
            method: "post",
            path: "/openenv/{env}/mcp",
            id: "openenvMcp",
            summary: "OpenEnv's MCP (JSON-RPC 2.0, as its MCPToolClient speaks it in production mode): `openenv/session/create`, `tools/list`, `tools/call` (a step of the session's episode) and `openenv/session/close`. A JSON-RPC request answers 200 with its result or JSON-RPC error",
            request: Some(
                json!({"type": "object", "properties": {"jsonrpc": {"const": "2.0"}, "method": {"type": "string"}, "params": {"type": "object"}, "id": {"type": ["string", "number", "null"]}}, "required": ["jsonrpc", "method"], "additionalProperties": false}),
            ),
            status: 200,
            response: Some(
                json!({"type": "object", "properties": {"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "number", "null"]}, "result": {}, "error": {"type": "object", "properties": {"code": {"type": "integer"}, "message": {"type": "string"}, "data": {}}, "required": ["code", "message"]}}, "required": ["jsonrpc", "id"]}),
            ),
            query: &[],
            errors: &[(404, "no such env"), UNPROCESSABLE],
            links: &[],
        },
        Operation {
            method: "post",
            path: "/openenv/{env}/reset",
            id: "openenvReset",
            summary: "OpenEnv's reset: starts an episode; its id is `metadata.episode_id`",
            request: Some(
                json!({"type": "object", "properties": {"seed": {"type": "integer", "minimum": 0}, "episode_id": {}, "task": {"type": "object"}, "mode": {"enum": ["enforce", "audit"]}}, "additionalProperties": false}),
            ),
            status: 200,
            response: Some(OPENENV_RESULT.clone()),
            query: &[],
            errors: &[(404, "no such env"), UNPROCESSABLE, AT_CAPACITY, STORE],
            links: &[(
                "openenvState",
                "episode_id",
                "$response.body#/metadata/episode_id",
            )],
        },
        Operation {
            method: "post",
            path: "/openenv/{env}/step",
            id: "openenvStep",
            summary: "OpenEnv's step on the episode `episode_id` names: `{\"type\": \"call_tool\", \"tool_name\", \"arguments\"}`, `{\"type\": \"list_tools\"}`, or an action of this API",
            request: Some(
                json!({"type": "object", "properties": {"action": {"oneOf": [
                    {"type": "object", "properties": {"type": {"const": "call_tool"}, "tool_name": {"type": "string"}, "arguments": {}, "metadata": {}}, "required": ["type", "tool_name"], "additionalProperties": false},
                    {"type": "object", "properties": {"type": {"const": "list_tools"}}, "required": ["type"]},
                    action,
                ]}, "episode_id": {"type": "string"}, "request_id": {"type": "string"}, "timeout_s": {"type": "number"}}, "required": ["action", "episode_id"], "additionalProperties": false}),
            ),
            status: 200,
            response: Some(OPENENV_RESULT.clone()),
            query: &[],
            errors: &[
                (404, "no such env or episode"),
                (409, "the episode is over, expired or abandoned"),
                UNPROCESSABLE,
                STORE,
            ],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/openenv/{env}/state",
            id: "openenvState",
            summary: "OpenEnv's state of an episode: `episode_id`, `step_count`, and whether it is done",
            request: None,
            status: 200,
            response: Some(json!({"type": "object", "required": ["episode_id", "step_count"]})),
            query: &[("episode_id", true, "the episode")],
            errors: &[
                (400, "no `episode_id`"),
                (404, "no such env or episode"),
                STORE,
            ],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/openenv/{env}/schema",
            id: "openenvSchema",
            summary: "OpenEnv's `{action, observation, state}` JSON Schemas for this env",
            request: None,
            status: 200,
            response: Some(
                json!({"type": "object", "required": ["action", "observation", "state"]}),
            ),
            query: &[],
            errors: &[(404, "no such env")],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/openenv/{env}/metadata",
            id: "openenvMetadata",
            summary: "OpenEnv's metadata of this env",
            request: None,
            status: 200,
            response: Some(
                json!({"type": "object", "required": ["name", "description", "version"]}),
            ),
            query: &[],
            errors: &[(404, "no such env")],
            links: &[],
        },
        Operation {
            method: "get",
            path: "/openenv/{env}/health",
            id: "openenvHealth",
            summary: "OpenEnv's health of this env: `{\"status\": \"healthy\"}`",
            request: None,
            status: 200,
            response: Some(json!({"type": "object", "required": ["status"]})),
            query: &[],
            errors: &[(404, "no such env")],
            links: &[],
        },
    ];
    let error = schemas.subschema_for::<ErrorBody>().to_value();
    let mut paths = Map::new();
    for operation in operations {
        let item = paths.entry(operation.path).or_insert_with(|| json!({}));
        item[operation.method] = operation_object(&operation, &error);
    }
    let mut document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "agentbench",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Sandboxed tool environments over HTTP: episodes, steps, forks and their durable record; suite runs (played here or recorded by remote runners) and the leaderboard.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas.take_definitions(true),
            "securitySchemes": {"apiKey": {
                "type": "http",
                "scheme": "bearer",
                "description": "A key from `agentbench keys create`. A server with `--auth keys` (the default on a non-loopback address) needs one on every operation but the health check and this document (with `--public-leaderboard`, not on the leaderboard's reads either); a server in open mode (the default on loopback) needs none.",
            }},
        },
        "security": [{"apiKey": []}],
    });
    bound_integers(&mut document);
    document
}

/// Bounds every integer schema by its Rust type's range (`format: uint32` gets `maximum:
/// 4294967295`), which schemars leaves open: the server refuses a value past it (422), so the
/// document must not offer one as valid.
fn bound_integers(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let range: Option<(i128, i128)> = match object.get("format").and_then(Value::as_str) {
                Some("uint8") => Some((0, u8::MAX.into())),
                Some("uint16") => Some((0, u16::MAX.into())),
                Some("uint32") => Some((0, u32::MAX.into())),
                Some("uint64" | "uint") => Some((0, u64::MAX.into())),
                Some("int32") => Some((i32::MIN.into(), i32::MAX.into())),
                Some("int64" | "int") => Some((i64::MIN.into(), i64::MAX.into())),
                _ => None,
            };
            if let Some((min, max)) = range {
                let number = |bound: i128| match u64::try_from(bound) {
                    Ok(bound) => json!(bound),
                    Err(_) => json!(i64::try_from(bound).expect("an i64 bound")),
                };
                object.entry("minimum").or_insert_with(|| number(min));
                object.entry("maximum").or_insert_with(|| number(max));
            }
            object.values_mut().for_each(bound_integers);
        }
        Value::Array(items) => items.iter_mut().for_each(bound_integers),
        _ => {}
    }
}

fn operation_object(operation: &Operation, error: &Value) -> Value {
    let mut responses = Map::new();
    let success = match &operation.response {
        Some(schema) => json!({
            "description": "success",
            "content": {"application/json": {"schema": schema}},
        }),
        None => json!({"description": "success"}),
    };
    responses.insert(operation.status.to_string(), success);
    let has_path_parameters = operation.path.contains('{');
    let common = [
        (true, EVERY_OPERATION),
        (has_path_parameters, WITH_PATH_PARAMETERS),
        (operation.request.is_some(), WITH_BODY),
    ];
    // An operation's own meaning of a status comes first; the common ones fill the rest.
    let errors = operation.errors.iter().chain(
        common
            .into_iter()
            .filter(|(applies, _)| *applies)
            .flat_map(|(_, errors)| errors),
    );
    for (status, meaning) in errors {
        responses.entry(status.to_string()).or_insert_with(
            || json!({"description": meaning, "content": {"application/json": {"schema": error}}}),
        );
    }
    let mut object = json!({
        "operationId": operation.id,
        "summary": operation.summary,
        "responses": responses,
    });
    if NO_KEY.contains(&operation.id) {
        object["security"] = json!([]);
    }
    let in_path = ["name", "env", "id", "other"]
        .into_iter()
        .filter(|name| operation.path.contains(&format!("{{{name}}}")))
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}));
    let in_query = operation.query.iter().map(|(name, required, meaning)| {
        json!({"name": name, "in": "query", "required": required, "description": meaning, "schema": {"type": "string"}})
    });
    let parameters: Vec<Value> = in_path.chain(in_query).collect();
    if !parameters.is_empty() {
        object["parameters"] = json!(parameters);
    }
    if !operation.links.is_empty() {
        let links: Map<String, Value> = operation
            .links
            .iter()
            .map(|(target, parameter, expression)| {
                let link = json!({"operationId": target, "parameters": {*parameter: expression}});
                ((*target).to_owned(), link)
            })
            .collect();
        object["responses"][operation.status.to_string()]["links"] = Value::Object(links);
    }
    if let Some(schema) = &operation.request {
        object["requestBody"] = json!({
            "required": true,
            "content": {"application/json": {"schema": schema}},
        });
    }
    object
}
