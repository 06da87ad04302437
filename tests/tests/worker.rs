//! The trainer's device-side worker (`trainer/worker`, Python and PyTorch) on CPU with the `tiny`
//! random model, which needs no weights: its own unit tests (the clipped loss against
//! hand-computed values, updates, checkpoints), then the real process on loopback, played by
//! `agentbench run` through the unchanged `openai:` agent, and asked directly for what a trainer
//! keeps (token ids and log-probabilities) and for an update.
//!
//! The venv comes from `trainer/setup.sh` (under `target/`); `.ci/run` runs it first, and this
//! test runs it again (a no-op once set up).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use agentbench_server::train::{WorkerLaunch, WorkerProcess};
use agentbench_tests::{agentbench_binary, python_venv, request_at, workspace_root};

/// The worker's venv, set up (once per machine) by `trainer/setup.sh`.
fn venv() -> PathBuf {
    python_venv("trainer/setup.sh")
}

/// A worker process serving the `tiny` model, started as `agentbench train` starts one and
/// killed when dropped.
struct Worker {
    process: WorkerProcess,
    addr: SocketAddr,
}

impl Worker {
    fn start(venv: &Path, checkpoints: &Path) -> Worker {
        let process = WorkerProcess::spawn(&WorkerLaunch {
            python: venv.join("bin/python"),
            model: "tiny".to_owned(),
            name: "tiny".to_owned(),
            device: "cpu".to_owned(),
            dtype: "float32".to_owned(),
            lr: 0.01,
            seed: 0,
            checkpoints: checkpoints.to_owned(),
            threads: Some(1),
            no_reference: false,
            lora: 0,
            env: Vec::new(),
        })
        .unwrap();
        Worker {
            addr: process.url.trim_start_matches("http://").parse().unwrap(),
            process,
        }
    }

    fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let response = request_at(self.addr, "POST", path, Some(body));
        (response.status, response.body)
    }
}

#[test]
fn the_workers_own_tests_pass() {
    let output = Command::new(venv().join("bin/python"))
        .args(["-m", "unittest", "discover", "-s", "trainer/worker/tests"])
        .current_dir(workspace_root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("OK"), "{stderr}");
}

#[test]
fn a_run_plays_the_worker_through_the_openai_agent_and_the_worker_trains() {
    let dir = tempfile::tempdir().unwrap();
    let worker = Worker::start(&venv(), &dir.path().join("checkpoints"));

    // `agentbench run` plays it as any OpenAI-compatible endpoint: a random model writes noise,
    // which ends each episode as a final message, but every episode is measured.
    let out = dir.path().join("out");
    let output = Command::new(agentbench_binary())
        .args(["run", "--suite", "safety", "--agent", "openai:tiny"])
        .args(["--base-url", &format!("{}/v1", worker.process.url)])
        .args(["--limit", "3", "--max-tokens", "8", "--model-seed", "1"])
        .args(["--out", out.to_str().unwrap()])
        .arg("--db")
        .arg(format!("sqlite://{}", dir.path().join("runs.db").display()))
        .env("OPENAI_API_KEY", "unused")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(2), "{stderr}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["metrics"]["measured"], 3, "{report:#}");
    assert_eq!(report["metrics"]["unmeasured"], 0, "{report:#}");
    let episodes = std::fs::read_to_string(out.join("episodes.jsonl")).unwrap();
    for line in episodes.lines() {
        let episode: Value = serde_json::from_str(line).unwrap();
        assert!(episode["tokens"].as_u64().unwrap() > 0, "{episode}");
    }

    // What a trainer keeps: the sampled token ids, each with its log-probability.
    let request = json!({
        "model": "tiny",
        "messages": [{"role": "user", "content": "Say something."}],
        "tools": [{"type": "function", "function": {
            "name": "read_file", "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}],
        "max_tokens": 6,
        "seed": 3,
    });
    let (status, reply) = worker.post("/v1/chat/completions", &request);
    assert_eq!(status, 200, "{reply}");
    let choice = &reply["choices"][0];
    let ids = choice["token_ids"].as_array().unwrap();
    let logprobs = choice["logprobs"]["content"].as_array().unwrap();
    assert_eq!(ids.len(), logprobs.len());
    assert_eq!(json!(ids.len()), reply["usage"]["completion_tokens"]);
    assert!(
        logprobs
            .iter()
            .all(|token| token["logprob"].as_f64().unwrap() <= 0.0)
    );
    let prompt = reply["prompt_token_ids"].as_array().unwrap();
    // The tool reached the prompt.
    assert!(prompt.len() > 100, "{}", prompt.len());

    // One update on it: rewarded, so its tokens grow likelier, and the version moves on.
    let tokens: Vec<Value> = prompt.iter().chain(ids).cloned().collect();
    let mask: Vec<u8> = (0..tokens.len())
        .map(|index| u8::from(index >= prompt.len()))
        .collect();
    let old: Vec<f64> = std::iter::repeat_n(0.0, prompt.len())
        .chain(
            logprobs
                .iter()
                .map(|token| token["logprob"].as_f64().unwrap()),
        )
        .collect();
    let advantages: Vec<f64> = mask.iter().map(|&m| f64::from(m)).collect();
    let sample = json!({"token_ids": tokens, "loss_mask": mask, "advantages": advantages,
                        "old_logprobs": old});
    let batch = json!({"samples": [sample], "policy_version": 0});
    let (status, trained) = worker.post("/v1/train", &batch);
    assert_eq!(status, 200, "{trained}");
    assert_eq!(trained["policy_version"], 1);
    assert_eq!(trained["tokens"], json!(ids.len()));
    let (_, after) = worker.post("/v1/logprobs", &json!({"sequences": [tokens]}));
    let after: f64 = after["logprobs"][0].as_array().unwrap()[prompt.len()..]
        .iter()
        .map(|p| p.as_f64().unwrap())
        .sum();
    assert!(after > old.iter().sum::<f64>(), "{after}");

    // Bad input is refused with the reason, and the worker goes on.
    let bad = json!({"samples": [{"token_ids": [1, 2], "loss_mask": [1, 1],
                                  "advantages": [0, 1], "old_logprobs": [0, 0]}]});
    let (status, error) = worker.post("/v1/train", &bad);
    assert_eq!(status, 400);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("0 on token 0"),
        "{error}"
    );
    let (status, error) = worker.post("/v1/chat/completions", &json!({"messages": []}));
    assert_eq!(status, 400, "{error}");

    // Supervised fine-tuning on a conversation: rendered with the assistant's turn masked in.
    let conversation = json!({"messages": [
        {"role": "user", "content": "Say ok."},
        {"role": "assistant", "content": "ok"},
    ]});
    let (status, rendered) = worker.post("/v1/render", &conversation);
    assert_eq!(status, 200, "{rendered}");
    let masked = rendered["loss_mask"].as_array().unwrap();
    assert!(
        masked.iter().any(|m| m == 1) && masked[0] == 0,
        "{rendered}"
    );
    let (status, tuned) = worker.post("/v1/sft", &json!({"samples": [rendered]}));
    assert_eq!(status, 200, "{tuned}");
    assert_eq!(tuned["policy_version"], 2);

    let (status, saved) = worker.post("/v1/weights/save", &json!({}));
    assert_eq!((status, &saved["policy_version"]), (200, &json!(2)));

    // The bench command measures it.
    let bench = Command::new(venv().join("bin/python"))
        .args(["-m", "agentbench_worker.bench", &worker.process.url])
        .args([
            "--requests",
            "1",
            "--max-tokens",
            "4",
            "--prompt-chars",
            "200",
        ])
        .args(["--updates", "1", "--batch", "1", "--tokens", "64"])
        .output()
        .unwrap();
    assert!(
        bench.status.success(),
        "{}",
        String::from_utf8_lossy(&bench.stderr)
    );
    let measured: Value = serde_json::from_slice(&bench.stdout).unwrap();
    assert!(
        measured["generation"]["completion_tokens_per_second_with_prefill"].as_f64() > Some(0.0)
    );
    assert_eq!(measured["update"]["tokens_each"], 64);
}
