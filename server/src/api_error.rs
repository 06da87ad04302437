//! The one JSON error body of the REST API, `{"error": {"code", "message", "details"}}`, and the
//! mapping of every failure (ours and axum's request rejections) onto it.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use agentbench_env_runtime::RuntimeError;

use crate::sessions::{RestoreError, SessionError};
use crate::store::StoreError;

/// An error response: a status, a stable machine-readable code and a message for people.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub details: Box<Value>,
    /// Sent as `Retry-After` (seconds), for refusals that pass with time.
    pub retry_after_seconds: Option<u32>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            details: Box::new(Value::Null),
            retry_after_seconds: None,
        }
    }

    pub fn not_found(what: &str, id: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no {what} `{id}`"),
        )
    }

    /// A failure whose cause the client must not see; it is logged instead.
    pub fn internal(error: impl std::fmt::Display) -> ApiError {
        tracing::error!(%error, "internal error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal server error",
        )
    }

    /// A body that parsed as JSON but is not what the request takes.
    pub fn invalid_body(message: String) -> ApiError {
        let code = if message.contains("unknown field") {
            "unknown_field"
        } else {
            "invalid_request"
        };
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }

    /// A request whose body did not arrive in time (see `request_limits::body_deadline`).
    pub fn request_timeout(message: String) -> ApiError {
        ApiError::new(StatusCode::REQUEST_TIMEOUT, "request_timeout", message)
    }

    /// The error body's `error` object: `{"code", "message", "details"}`.
    pub fn detail(&self) -> Value {
        json!({ "code": self.code, "message": self.message, "details": self.details })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({ "error": self.detail() });
        let mut response = (self.status, Json(body)).into_response();
        if let Some(seconds) = self.retry_after_seconds {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        // The rest of a late body may still be on its way: the connection cannot carry another
        // request.
        if self.status == StatusCode::REQUEST_TIMEOUT {
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        let message = rejection.body_text();
        match rejection {
            JsonRejection::MissingJsonContentType(_) => ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "expected a request body with `Content-Type: application/json`",
            ),
            JsonRejection::JsonSyntaxError(_) => {
                ApiError::new(StatusCode::BAD_REQUEST, "malformed_json", message)
            }
            JsonRejection::JsonDataError(_) => ApiError::invalid_body(message),
            JsonRejection::BytesRejection(ref bytes) if crate::request_limits::timed_out(bytes) => {
                ApiError::request_timeout(message)
            }
            JsonRejection::BytesRejection(_) if rejection_is_too_large(&message) => ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                "the request body is over the size limit",
            ),
            _ => ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message),
        }
    }
}

fn rejection_is_too_large(message: &str) -> bool {
    message.contains("length limit") || message.contains("too large")
}

impl From<RuntimeError> for ApiError {
    fn from(error: RuntimeError) -> ApiError {
        match error {
            RuntimeError::InvalidTask(message) => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_task", message)
            }
            RuntimeError::EpisodeOver => {
                ApiError::new(StatusCode::CONFLICT, "episode_over", error.to_string())
            }
            RuntimeError::BadToolSchema { .. }
            | RuntimeError::Policy(_)
            | RuntimeError::Sandbox(_) => ApiError::internal(error),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        if let StoreError::LeaseLost = error {
            // Another node has the episode now: the same request, retried, is answered there
            // (or from the record, when that node recorded it).
            tracing::warn!(%error, "episode taken over mid-request");
            return ApiError {
                retry_after_seconds: Some(1),
                ..ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "episode_moved",
                    error.to_string(),
                )
            };
        }
        tracing::error!(%error, "store error");
        match error {
            // Retrying cannot help: the bytes on disk are damaged. The log names which.
            StoreError::Corrupt { .. } => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "store_corrupt",
                "a record this request needs is damaged in the episode store; nothing of this \
                 request was recorded",
            ),
            _ => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "store_unavailable",
                "the episode store failed; nothing of this request was recorded",
            ),
        }
    }
}

impl From<RestoreError> for ApiError {
    fn from(error: RestoreError) -> ApiError {
        match error {
            RestoreError::Store(error) => error.into(),
            RestoreError::Runtime(error) => error.into(),
            RestoreError::BadRecord { .. } | RestoreError::Diverged { .. } => {
                ApiError::internal(error)
            }
        }
    }
}

impl From<SessionError> for ApiError {
    fn from(error: SessionError) -> ApiError {
        let conflict = |code, error: SessionError| {
            ApiError::new(StatusCode::CONFLICT, code, error.to_string())
        };
        match error {
            SessionError::NotFound { what, id } => ApiError::not_found(what, &id),
            SessionError::Over => conflict("episode_over", error),
            SessionError::Expired => conflict("episode_expired", error),
            SessionError::Abandoned => conflict("episode_abandoned", error),
            SessionError::EnvUnavailable { .. } => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "env_unavailable",
                error.to_string(),
            ),
            // The server is at capacity: 429 with a `Retry-After`.
            SessionError::TooManyEpisodes(_) => ApiError {
                retry_after_seconds: Some(1),
                ..ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_episodes",
                    error.to_string(),
                )
            },
            SessionError::RequestIdReused { ref recorded, .. } => ApiError {
                details: recorded.clone(),
                ..ApiError::new(StatusCode::CONFLICT, "request_id_reused", error.to_string())
            },
            // Another node is acting on the episode, for longer than a request should take.
            SessionError::Busy => ApiError {
                retry_after_seconds: Some(1),
                ..ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "episode_busy",
                    error.to_string(),
                )
            },
            SessionError::RunEvidence { .. } => ApiError::new(
                StatusCode::FORBIDDEN,
                "recorded_run_episode",
                error.to_string(),
            ),
            SessionError::Store(error) => error.into(),
            SessionError::Runtime(error) => error.into(),
            SessionError::Restore(error) => error.into(),
            SessionError::Internal(_) => ApiError::internal(error),
        }
    }
}
