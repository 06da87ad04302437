//! The worker's HTTP API as the trainer calls it (`trainer/worker`, documented in the README):
//! health, rendering a conversation, supervised and PPO updates, and checkpoints by policy
//! version. Chat completions go through the policy agent (`policy.rs`) instead.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A worker that failed a call, or could not be reached.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("cannot reach the trainer worker at {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("the trainer worker answered {status} to {path}: {message}")]
    Failed {
        path: String,
        status: u16,
        message: String,
    },
    #[error("the trainer worker's answer to {path} is not what it documents: {reason}")]
    BadAnswer { path: String, reason: String },
}

/// What `GET /health` says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    pub model: String,
    pub device: String,
    pub dtype: String,
    pub parameters: u64,
    pub policy_version: u64,
}

/// One sequence to train on: token ids, a loss mask (1 on the tokens the policy wrote), and for
/// a PPO update each token's advantage and its log-probability when it was sampled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainSample {
    pub token_ids: Vec<u32>,
    pub loss_mask: Vec<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advantages: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub old_logprobs: Vec<f64>,
}

impl TrainSample {
    /// Tokens the update trains on.
    pub fn masked_tokens(&self) -> usize {
        self.loss_mask.iter().filter(|&&bit| bit == 1).count()
    }
}

/// What a PPO update asks beyond its samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PpoSettings {
    /// PPO's ratio clip ε.
    pub clip: f64,
    /// The weight of the KL to the starting policy (0: none).
    pub kl_coef: f64,
    /// The temperature the samples were drawn at, under which the new log-probabilities are
    /// computed.
    pub temperature: f64,
    /// Optimizer steps on the batch within the update (PPO's epochs; TRL's `num_iterations`):
    /// more learning per rollout, which is what costs most. One new version whatever their
    /// number.
    pub epochs: u32,
}

/// What an update (`/v1/sft` or `/v1/train`) reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UpdateStats {
    pub loss: f64,
    /// The KL estimate to the starting policy (PPO with `kl_coef` > 0 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kl: Option<f64>,
    /// The share of masked tokens whose ratio was clipped (PPO only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip_fraction: Option<f64>,
    /// The approximate KL between the sampling and the updated policy (PPO only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approx_kl: Option<f64>,
    pub grad_norm: f64,
    /// Optimizer steps the update took on its batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epochs: Option<u32>,
    pub tokens: u64,
    pub samples: u64,
    pub policy_version: u64,
    pub seconds: f64,
    /// Versions between the sampling policy and the one updated (PPO only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staleness: Option<i64>,
}

/// A worker on loopback, by its root URL (`http://127.0.0.1:8100`).
#[derive(Debug, Clone)]
pub struct WorkerClient {
    root: String,
    http: reqwest::Client,
}

/// How long an update or checkpoint may take: a PPO step on a CPU over a large batch takes
/// minutes.
const CALL_TIMEOUT: Duration = Duration::from_secs(3600);

impl WorkerClient {
    pub fn new(root: &str) -> WorkerClient {
        WorkerClient {
            root: root.trim_end_matches('/').to_owned(),
            http: reqwest::Client::new(),
        }
    }

    /// The worker's root URL.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The chat-completions API root an `openai:`-style client is given.
    pub fn api_base(&self) -> String {
        format!("{}/v1", self.root)
    }

    pub async fn health(&self) -> Result<Health, WorkerError> {
        self.call("/health", None).await
    }

    /// `messages` (chat-completions form) with `tools` as the template renders them: token ids
    /// and the mask of what the assistant wrote.
    pub async fn render(
        &self,
        messages: &[Value],
        tools: &[Value],
    ) -> Result<TrainSample, WorkerError> {
        self.call(
            "/v1/render",
            Some(&json!({"messages": messages, "tools": tools})),
        )
        .await
    }

    /// One supervised step on `samples` (token ids and loss masks).
    pub async fn sft(&self, samples: &[TrainSample]) -> Result<UpdateStats, WorkerError> {
        self.call("/v1/sft", Some(&json!({"samples": samples})))
            .await
    }

    /// One PPO update on `samples` (`settings.epochs` steps), drawn by the oldest policy version
    /// `produced_by`.
    pub async fn train(
        &self,
        samples: &[TrainSample],
        settings: PpoSettings,
        produced_by: u64,
    ) -> Result<UpdateStats, WorkerError> {
        let body = json!({
            "samples": samples,
            "clip": settings.clip,
            "kl_coef": settings.kl_coef,
            "temperature": settings.temperature,
            "epochs": settings.epochs,
            "policy_version": produced_by,
        });
        self.call("/v1/train", Some(&body)).await
    }

    /// Saves the current weights, and the optimizer's state when `optimizer` (a checkpoint to
    /// resume from, rather than weights for a generating worker), as the folder of its version;
    /// returns the version.
    pub async fn save(&self, optimizer: bool) -> Result<u64, WorkerError> {
        let answer: Value = self
            .call("/v1/weights/save", Some(&json!({"optimizer": optimizer})))
            .await?;
        version_of(&answer, "/v1/weights/save")
    }

    /// Loads the checkpoint of `version`.
    pub async fn load(&self, version: u64) -> Result<u64, WorkerError> {
        let answer: Value = self
            .call(
                "/v1/weights/load",
                Some(&json!({"policy_version": version})),
            )
            .await?;
        version_of(&answer, "/v1/weights/load")
    }

    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: Option<&Value>,
    ) -> Result<T, WorkerError> {
        let url = format!("{}{path}", self.root);
        let request = match body {
            Some(body) => self.http.post(&url).json(body),
            None => self.http.get(&url),
        };
        let unreachable = |error: reqwest::Error| WorkerError::Unreachable {
            url: url.clone(),
            reason: error.to_string(),
        };
        let response = request
            .timeout(CALL_TIMEOUT)
            .send()
            .await
            .map_err(unreachable)?;
        let status = response.status().as_u16();
        let bytes = response.bytes().await.map_err(unreachable)?;
        let bad = |reason: String| WorkerError::BadAnswer {
            path: path.to_owned(),
            reason,
        };
        if status != 200 {
            let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            let message = answer["error"]["message"].as_str().map_or_else(
                || String::from_utf8_lossy(&bytes).into_owned(),
                str::to_owned,
            );
            return Err(WorkerError::Failed {
                path: path.to_owned(),
                status,
                message,
            });
        }
        serde_json::from_slice(&bytes).map_err(|error| bad(error.to_string()))
    }
}

fn version_of(answer: &Value, path: &str) -> Result<u64, WorkerError> {
    answer["policy_version"]
        .as_u64()
        .ok_or_else(|| WorkerError::BadAnswer {
            path: path.to_owned(),
            reason: format!("no policy_version in {answer}"),
        })
}
