//! The trainer worker as a child process: `python -m agentbench_worker` started from the
//! worker's venv, its address read from the line it prints once it listens, and killed when the
//! trainer is done with it.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::Context as _;

/// The line the worker prints, before its address, once it listens.
const LISTENING: &str = "agentbench-worker listening on ";

/// The venv `trainer/setup.sh` makes, relative to the repository root.
pub const DEFAULT_PYTHON: &str = "target/trainer-venv/bin/python";

/// How a worker is started.
#[derive(Debug, Clone)]
pub struct WorkerLaunch {
    /// The venv's Python.
    pub python: PathBuf,
    /// `tiny` or a model folder.
    pub model: String,
    pub name: String,
    pub device: String,
    pub dtype: String,
    pub lr: f64,
    pub seed: u64,
    pub checkpoints: PathBuf,
    /// CPU threads torch may use.
    pub threads: Option<usize>,
    /// Keep no reference policy (no KL penalty possible).
    pub no_reference: bool,
    /// Train rank-N LoRA adapters instead of every weight (0: every weight).
    pub lora: u32,
    /// Environment variables of this worker's process (which cores or devices it may use).
    pub env: Vec<(String, String)>,
}

/// A running worker, killed on drop.
#[derive(Debug)]
pub struct WorkerProcess {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

impl WorkerProcess {
    /// Starts the worker on a free loopback port and waits until it listens (loading a model
    /// takes seconds). Its stderr is the trainer's.
    pub fn spawn(launch: &WorkerLaunch) -> anyhow::Result<WorkerProcess> {
        anyhow::ensure!(
            launch.python.is_file(),
            "there is no worker Python at {} (run `bash trainer/setup.sh`, or give --python)",
            launch.python.display()
        );
        let mut command = Command::new(&launch.python);
        command
            .args([
                "-m",
                "agentbench_worker",
                "--port",
                "0",
                "--host",
                "127.0.0.1",
            ])
            .arg("--model")
            .arg(model_arg(&launch.model))
            .args(["--name", &launch.name])
            .args(["--device", &launch.device])
            .args(["--dtype", &launch.dtype])
            .args(["--lr", &launch.lr.to_string()])
            .args(["--seed", &launch.seed.to_string()])
            .arg("--checkpoints")
            .arg(&launch.checkpoints)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(threads) = launch.threads {
            command.args(["--threads", &threads.to_string()]);
        }
        command.envs(launch.env.iter().map(|(key, value)| (key, value)));
        if launch.lora > 0 {
            command.args(["--lora", &launch.lora.to_string()]);
        }
        if launch.no_reference {
            command.arg("--no-reference");
        }
        let mut child = command
            .spawn()
            .with_context(|| format!("cannot start {}", launch.python.display()))?;
        let stdout = child.stdout.take().expect("piped");
        let mut lines = BufReader::new(stdout).lines();
        let url = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(url) = line.trim().strip_prefix(LISTENING) {
                        break url.to_owned();
                    }
                }
                Some(Err(_)) | None => {
                    let status = child.wait().ok();
                    anyhow::bail!(
                        "the trainer worker exited before it listened ({}); its error is above",
                        status.map_or_else(|| "unknown status".to_owned(), |s| s.to_string())
                    );
                }
            }
        };
        // The worker prints nothing more on stdout; what it might is drained, not left to block it.
        std::thread::spawn(move || lines.for_each(drop));
        Ok(WorkerProcess { child, url })
    }
}

/// A model folder as an absolute path (the worker may run elsewhere); `tiny` as it is.
fn model_arg(model: &str) -> String {
    let path = Path::new(model);
    if model != "tiny"
        && path.exists()
        && let Ok(absolute) = std::path::absolute(path)
    {
        return absolute.display().to_string();
    }
    model.to_owned()
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
