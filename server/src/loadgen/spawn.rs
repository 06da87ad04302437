//! The server a bench spawns when given none: `agentbench serve` as a child process on a loopback
//! port, its database in a fresh temporary directory.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};

use anyhow::Context as _;

use super::STARTUP_TIMEOUT;
use crate::store::DbSync;

/// An `agentbench serve` child process on a loopback port with its database in a fresh temporary
/// directory; dropping it kills the process, then removes the directory.
#[derive(Debug)]
pub(super) struct SpawnedServer {
    child: Child,
    _data_dir: tempfile::TempDir,
}

impl SpawnedServer {
    /// Starts the server; returns it with its base URL.
    pub async fn start(
        max_open_episodes: usize,
        db_sync: DbSync,
    ) -> anyhow::Result<(SpawnedServer, String)> {
        let data_dir = tempfile::Builder::new()
            .prefix("agentbench-bench-")
            .tempdir()
            .context("cannot create a temporary directory for the server's database")?;
        let child = spawn_serve(data_dir.path(), max_open_episodes, db_sync)?;
        let mut server = SpawnedServer {
            child,
            _data_dir: data_dir,
        };
        let stderr = server
            .child
            .stderr
            .take()
            .context("the server's stderr was not captured")?;
        let addr = tokio::time::timeout(
            STARTUP_TIMEOUT,
            tokio::task::spawn_blocking(move || read_address_then_forward(stderr)),
        )
        .await
        .with_context(|| {
            format!("the server did not report its address within {STARTUP_TIMEOUT:?}")
        })?
        .context("the thread reading the server's stderr failed")??;
        let base = format!("http://{addr}");
        Ok((server, base))
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for SpawnedServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn_serve(
    data_dir: &Path,
    max_open_episodes: usize,
    db_sync: DbSync,
) -> anyhow::Result<Child> {
    let exe = std::env::current_exe().context("cannot find the agentbench executable")?;
    let db = format!("sqlite://{}", data_dir.join("bench.db").display());
    Command::new(&exe)
        .args(["serve", "--addr", "127.0.0.1:0", "--db", &db])
        .args(["--db-sync", db_sync.as_str()])
        .args(["--max-open-episodes", &max_open_episodes.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {} serve", exe.display()))
}

/// Reads the server's address from its stderr, then keeps forwarding what it prints to ours,
/// so that its pipe never fills up.
fn read_address_then_forward(stderr: ChildStderr) -> anyhow::Result<String> {
    let mut reader = BufReader::new(stderr);
    let forward = |line: &str| eprintln!("server: {line}");
    let addr = crate::read_listening_address(&mut reader, forward)
        .context("cannot read the server's stderr")?
        .context("the server exited before it listened (its messages are above)")?;
    std::thread::Builder::new()
        .name("bench-server-stderr".to_owned())
        .spawn(move || {
            for line in reader.lines().map_while(Result::ok) {
                forward(&line);
            }
        })
        .context("cannot start a thread to forward the server's stderr")?;
    Ok(addr)
}
