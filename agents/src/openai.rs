//! An agent that asks a model behind an OpenAI-compatible chat-completions endpoint (OpenAI,
//! vLLM, a served baseline), retrying what passes with time.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::header::RETRY_AFTER;
use serde_json::Value;

use crate::chat::{
    DEFAULT_CHARS_PER_TOKEN, Sampling, decision_from_reply, prompt_density, request_body,
};
use crate::secrets::recordable_url;
use crate::{Agent, AgentError, BoxFuture, Decision, View};

/// OpenAI's own endpoint.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The longest wait between two attempts, whatever the backoff or a `Retry-After` says.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// How much of an error body an `AgentError::Http` keeps.
const MAX_ERROR_BODY_CHARS: usize = 2000;

/// Where the model is and how to talk to it.
#[derive(Clone)]
pub struct OpenAiSettings {
    pub model: String,
    /// The API's root, such as `http://127.0.0.1:8000/v1`; requests go to
    /// `{base_url}/chat/completions`.
    pub base_url: String,
    /// Sent as a bearer token when present.
    pub api_key: Option<String>,
    /// How long one attempt may take, from connecting to the reply's last byte.
    pub timeout: Duration,
    /// Attempts after the first, for connection errors, timeouts, 429 and 5xx.
    pub max_retries: u32,
    /// The wait before the first retry; it doubles for each later one (up to `MAX_BACKOFF`).
    pub first_backoff: Duration,
    /// What every request asks of the model besides the conversation.
    pub sampling: Sampling,
}

/// The key stays out of logs.
impl std::fmt::Debug for OpenAiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSettings")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("first_backoff", &self.first_backoff)
            .field("sampling", &self.sampling)
            .finish()
    }
}

/// A model behind a chat-completions endpoint, named `openai:<model>`.
#[derive(Debug)]
pub struct OpenAiAgent {
    name: String,
    client: ChatClient,
    /// How many characters of a conversation the server counts as one prompt token: the
    /// densest it has reported so far (`prompt_density`), which `--context-tokens` fits
    /// conversations by.
    chars_per_token: Mutex<f64>,
}

/// One attempt's failure, and whether another attempt may fare better.
struct Failure {
    error: AgentError,
    retry: bool,
    /// What the server's `Retry-After` asked for.
    retry_after: Option<Duration>,
}

impl OpenAiAgent {
    pub fn new(settings: OpenAiSettings) -> Result<OpenAiAgent, AgentError> {
        Ok(OpenAiAgent {
            name: format!("openai:{}", settings.model),
            client: ChatClient::new(settings)?,
            chars_per_token: Mutex::new(DEFAULT_CHARS_PER_TOKEN),
        })
    }
}

/// The HTTP side of a chat-completions endpoint: posts request bodies to
/// `{base_url}/chat/completions` with the key, retrying what passes with time. Shared by the
/// agent and by a judge that asks a model about steps.
#[derive(Debug)]
pub struct ChatClient {
    url: String,
    settings: OpenAiSettings,
    client: reqwest::Client,
}

/// `{base_url}/chat/completions`, the path joined before any query the base URL carries (an
/// `?api-version=` some gateways need stays a query).
fn completions_url(base_url: &str) -> Result<String, AgentError> {
    // The text itself is left out: it may hold a key.
    let mut url = reqwest::Url::parse(base_url)
        .map_err(|error| AgentError::Other(format!("the base URL is not a URL: {error}")))?;
    let path = format!("{}/chat/completions", url.path().trim_end_matches('/'));
    url.set_path(&path);
    Ok(url.to_string())
}

impl ChatClient {
    pub fn new(settings: OpenAiSettings) -> Result<ChatClient, AgentError> {
        let client = reqwest::Client::builder()
            .connect_timeout(settings.timeout)
            .build()
            .map_err(|error| AgentError::Other(format!("cannot build an HTTP client: {error}")))?;
        Ok(ChatClient {
            url: completions_url(&settings.base_url)?,
            settings,
            client,
        })
    }

    pub fn settings(&self) -> &OpenAiSettings {
        &self.settings
    }

    /// Posts `body`, retrying connection errors, timeouts, 429 and 5xx with exponential backoff
    /// (or the server's `Retry-After`); returns the reply's JSON.
    pub async fn complete(&self, body: &Value) -> Result<Value, AgentError> {
        let mut backoff = self.settings.first_backoff.min(MAX_BACKOFF);
        let mut retries = 0;
        loop {
            let failure = match self.attempt(body).await {
                Ok(reply) => return Ok(reply),
                Err(failure) => failure,
            };
            if !failure.retry || retries >= self.settings.max_retries {
                return Err(failure.error);
            }
            let wait = failure.retry_after.unwrap_or(backoff).min(MAX_BACKOFF);
            tokio::time::sleep(wait).await;
            backoff = backoff.saturating_mul(2).min(MAX_BACKOFF);
            retries += 1;
        }
    }

    async fn attempt(&self, body: &Value) -> Result<Value, Failure> {
        let mut request = self
            .client
            .post(&self.url)
            .timeout(self.settings.timeout)
            .json(body);
        if let Some(key) = &self.settings.api_key {
            request = request.bearer_auth(key);
        }
        let response = request
            .send()
            .await
            .map_err(|error| self.transport_failure(error))?;
        let status = response.status();
        if status.is_success() {
            let bytes = response
                .bytes()
                .await
                .map_err(|error| self.transport_failure(error))?;
            return serde_json::from_slice(&bytes).map_err(|error| Failure {
                error: AgentError::BadReply(format!("the body is not JSON: {error}")),
                retry: false,
                retry_after: None,
            });
        }
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        // The body only explains the failure; one that cannot be read explains nothing.
        let text = response.text().await.unwrap_or_default();
        Err(Failure {
            error: AgentError::Http {
                status: status.as_u16(),
                body: text.chars().take(MAX_ERROR_BODY_CHARS).collect(),
            },
            retry: status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error(),
            retry_after,
        })
    }

    /// A failure to get an answer at all: a timeout, or no connection (both worth retrying),
    /// or a request that could not be built (not). Neither names the URL with its credentials:
    /// the error is recorded with the episode.
    fn transport_failure(&self, error: reqwest::Error) -> Failure {
        let (error, retry) = if error.is_timeout() {
            (AgentError::Timeout(self.settings.timeout), true)
        } else {
            let retry = !error.is_builder();
            let unreachable = AgentError::Unreachable {
                url: recordable_url(&self.url),
                reason: with_sources(&error.without_url()),
            };
            (unreachable, retry)
        };
        Failure {
            error,
            retry,
            retry_after: None,
        }
    }
}

/// An error with its chain of causes (`error sending request: tcp connect error: refused`).
fn with_sources(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl Agent for OpenAiAgent {
    fn name(&self) -> &str {
        &self.name
    }

    fn act<'a>(&'a self, view: View<'a>) -> BoxFuture<'a, Result<Decision, AgentError>> {
        Box::pin(async move {
            let started = Instant::now();
            let chars_per_token = *self.chars_per_token.lock().expect("never poisoned");
            let settings = self.client.settings();
            let body = request_body(&view, &settings.model, &settings.sampling, chars_per_token);
            let reply = self.client.complete(&body).await?;
            if let Some(density) = prompt_density(&body, &reply) {
                let mut chars_per_token = self.chars_per_token.lock().expect("never poisoned");
                *chars_per_token = chars_per_token.min(density);
            }
            let (action, mistake, tokens) = decision_from_reply(&reply)
                .map_err(|error| AgentError::BadReply(error.to_string()))?;
            Ok(Decision {
                action,
                tokens,
                latency: started.elapsed(),
                mistake,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::completions_url;

    #[test]
    fn the_completions_path_goes_before_the_base_urls_query() {
        let url = |base: &str| completions_url(base).unwrap();
        assert_eq!(
            url("http://127.0.0.1:8000/v1"),
            "http://127.0.0.1:8000/v1/chat/completions"
        );
        assert_eq!(
            url("https://api.example/v1/"),
            "https://api.example/v1/chat/completions"
        );
        assert_eq!(
            url("https://gw.example/openai/v1?api-version=2024-10-21"),
            "https://gw.example/openai/v1/chat/completions?api-version=2024-10-21"
        );
        let refused = completions_url("not a url?api_key=sk-secret").unwrap_err();
        assert!(!refused.to_string().contains("sk-secret"), "{refused}");
    }
}
