//! Test support for the end-to-end tests in `tests/`: the `agentbench` binary built from this
//! checkout, databases of both kinds (a SQLite file in a temporary folder; a PostgreSQL database
//! created on the local server and dropped afterwards), `agentbench serve` as a real process,
//! and a small HTTP/1.1 client over plain TCP.
//!
//! The server's own tests (`server/tests/api.rs`, `store.rs`) include this file as their
//! `support` module (`#[path]`), so that one copy serves both crates' tests: it names nothing by
//! a `crate::` path, and it uses only crates that the server's tests have too.
//!
//! **Finding the binary.** `CARGO_BIN_EXE_agentbench` is set only for the tests of the package
//! that has the binary, and cargo builds no binaries of a dependency, so `agentbench_binary()`
//! asks cargo: once per test process it runs `cargo test --workspace --no-run`, with the profile
//! this test was built with (read from the folder its executable is in,
//! `target/<profile>/deps`), and takes the binary's path from cargo's JSON messages. That is the
//! README's test command, which builds the binary for the server's own tests, so under it this is
//! a check that takes a moment. A narrower command (`cargo build -p agentbench`) would not be:
//! cargo resolves the dependencies' features for the packages a command selects, so it would
//! compile wasmtime and the rest a second time, and replace the binary the server's tests run.
//! Under `cargo test -p agentbench-tests` alone, the first run builds the workspace's tests too.
//! Either way a test never runs a binary older than the sources, as a path guessed from the
//! target directory could.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The `agentbench` binary built from this checkout's sources (see the module's documentation).
pub fn agentbench_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(build_agentbench)
}

/// Builds the binary as `cargo test --workspace` does (a no-op after it) and returns the path
/// cargo reports.
fn build_agentbench() -> PathBuf {
    let output = workspace_test_build().output().expect("cargo runs");
    assert!(
        output.status.success(),
        "cannot build the agentbench binary:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| {
            message["reason"] == "compiler-artifact"
                && message["target"]["name"] == "agentbench"
                && message["target"]["kind"] == serde_json::json!(["bin"])
                && message["profile"]["test"] == false
        })
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo reports the agentbench binary it built")
}

/// `cargo test --workspace --no-run` in the running test's profile, reporting in JSON.
fn workspace_test_build() -> Command {
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .current_dir(workspace_root())
        .args(["test", "--workspace", "--no-run"])
        .args(["--message-format", "json-render-diagnostics"]);
    match profile_folder().as_str() {
        "debug" => {}
        "release" => {
            cargo.arg("--release");
        }
        profile => {
            cargo.args(["--profile", profile]);
        }
    }
    // Cargo gives a test the variables it gives the crate (`CARGO_PKG_NAME`, `CARGO_MANIFEST_DIR`
    // and the like). Some build scripts (ring's) ask to rerun when those change, and cargo
    // compares its own environment's values, so a cargo that inherited this test's would run
    // them again and rebuild what depends on them, here and in the next `cargo test`.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(describes_the_running_crate) {
            cargo.env_remove(&name);
        }
    }
    cargo
}

/// Whether cargo sets the variable `name` for the crate it runs (the package's metadata).
fn describes_the_running_crate(name: &str) -> bool {
    const NAMES: [&str; 4] = [
        "CARGO_CRATE_NAME",
        "CARGO_BIN_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "OUT_DIR",
    ];
    name.starts_with("CARGO_PKG_") || name.starts_with("CARGO_MANIFEST_") || NAMES.contains(&name)
}

/// The sentence encoder's folder (`models/all-MiniLM-L6-v2`), downloaded by `encoder/setup.sh`
/// the first time a test process asks (it keeps a copy whose digest is right).
pub fn encoder_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = workspace_root();
        let status = Command::new("bash")
            .arg(root.join("encoder/setup.sh"))
            .status()
            .expect("bash runs encoder/setup.sh");
        assert!(status.success(), "encoder/setup.sh failed");
        root.join("models/all-MiniLM-L6-v2")
    })
}

/// The Python venv a set-up script makes (`trainer/setup.sh`, `tests/real-model/setup.sh`: each
/// prints the venv's path, relative to the repository's root, and keeps a complete one).
pub fn python_venv(setup: &str) -> PathBuf {
    let root = workspace_root();
    let output = Command::new("bash")
        .arg(root.join(setup))
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{setup} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    root.join(String::from_utf8_lossy(&output.stdout).trim())
}

/// Trains the learned PRM with `agentbench prm train` (the set `baselines`, split `train`) into
/// `dir/head`; returns the folder and what the command printed.
pub fn train_learned_prm(dir: &Path) -> (PathBuf, String) {
    let head = dir.join("head");
    let stdout = agentbench_succeeds([
        OsStr::new("prm"),
        OsStr::new("train"),
        OsStr::new("--encoder"),
        encoder_dir().as_os_str(),
        OsStr::new("--out"),
        head.as_os_str(),
    ]);
    (head, stdout)
}

/// `agentbench train` on the `tiny` model at the smallest size that still does every stage: two
/// train scenarios, one supervised epoch, two scenarios of two episodes per update, an
/// evaluation after every update; the caller adds where to write, how many updates and what
/// else.
pub const SHORT_TRAINING: [&str; 15] = [
    "train",
    "--model",
    "tiny",
    "--threads",
    "1",
    "--eval-every",
    "1",
    "--train-limit",
    "2",
    "--scenarios-per-update",
    "2",
    "--group",
    "2",
    "--sft-epochs",
    "1",
];

/// The measures `prm eval` reports of a step scorer, each with its interval (null when nothing
/// was measured).
pub const PRM_MEASURES: [&str; 5] = [
    "first_harm_accuracy_harmful",
    "first_harm_accuracy_safe",
    "first_harm_f1",
    "step_auroc",
    "pairwise_accuracy",
];

/// Runs the `agentbench` binary with `args`; its exit status and output.
pub fn agentbench_output<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(args: I) -> Output {
    Command::new(agentbench_binary())
        .args(args)
        .output()
        .unwrap()
}

/// A finished command's stdout and stderr, for an assertion's message.
pub fn explain(output: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs the `agentbench` binary with `args`, asserts that it succeeded (showing its stderr
/// when not) and returns its stdout.
pub fn agentbench_succeeds<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(args: I) -> String {
    let output = Command::new(agentbench_binary())
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Runs the `agentbench` binary with `args` and asserts that it refused them as a set-up error
/// (exit 2) whose message on stderr contains `expected`.
pub fn agentbench_refuses<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(args: I, expected: &str) {
    let output = Command::new(agentbench_binary())
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
}

/// `agentbench agent serve --baseline BASELINE` on a free loopback port: a scripted baseline
/// behind a real OpenAI-compatible endpoint. Killed when dropped.
#[derive(Debug)]
pub struct AgentServer {
    child: Child,
    /// The API root, `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
}

impl AgentServer {
    pub fn start(baseline: &str) -> AgentServer {
        let mut child = Command::new(agentbench_binary())
            .args([
                "agent",
                "serve",
                "--baseline",
                baseline,
                "--addr",
                "127.0.0.1:0",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let addr = agentbench_server::read_listening_address(&mut stderr, |_| {})
            .unwrap()
            .expect("the agent server listens");
        std::thread::spawn(move || {
            let mut sink = String::new();
            let _ = stderr.read_to_string(&mut sink);
        });
        AgentServer {
            child,
            base_url: format!("http://{addr}/v1"),
        }
    }
}

impl Drop for AgentServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The workspace's root: the parent folder of the crate this file is compiled in (`tests/`, or
/// `server/` for the server's tests).
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("a member crate is in the workspace's folder")
}

/// The folder of the profile the running test was built with (`debug` for the `dev` and `test`
/// profiles): its executable is in `<target>/<profile folder>/deps`.
fn profile_folder() -> String {
    let executable = std::env::current_exe().expect("the test's own path");
    executable
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(OsStr::to_str)
        .expect("the test runs from <target>/<profile>/deps")
        .to_owned()
}

/// The PostgreSQL server the tests use; `AGENTBENCH_TEST_POSTGRES` overrides it.
fn postgres_admin_url() -> String {
    std::env::var("AGENTBENCH_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// A database of its own for one test, removed when dropped.
#[derive(Debug)]
pub enum Db {
    Sqlite { dir: tempfile::TempDir },
    Postgres { name: String },
}

impl Db {
    pub fn sqlite() -> Db {
        Db::Sqlite {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// A SQLite file in a new folder under `parent` (for a database kept after the test).
    pub fn sqlite_in(parent: &std::path::Path) -> Db {
        Db::Sqlite {
            dir: tempfile::tempdir_in(parent).unwrap(),
        }
    }

    pub fn postgres() -> Db {
        let name = format!("agentbench_test_{}", uuid::Uuid::new_v4().simple());
        admin(&format!("CREATE DATABASE {name}"));
        Db::Postgres { name }
    }

    pub fn url(&self) -> String {
        match self {
            Db::Sqlite { dir } => format!("sqlite://{}", dir.path().join("test.db").display()),
            Db::Postgres { name } => {
                let admin = postgres_admin_url();
                let base = admin
                    .rsplit_once('/')
                    .map_or(admin.as_str(), |(base, _)| base);
                format!("{base}/{name}")
            }
        }
    }
}

impl Db {
    /// Runs one statement on this database, as an operator with a SQL shell would.
    pub fn execute(&self, statement: &str) {
        run_sql(self.url(), statement.to_owned(), false);
    }

    /// The number in the first column of the first row `query` returns (`SELECT count(*) ...`).
    pub fn number(&self, query: &str) -> i64 {
        number_at(&self.url(), query)
    }
}

/// The number in the first column of the first row `query` returns on the database at `url`.
pub fn number_at(url: &str, query: &str) -> i64 {
    run_sql(url.to_owned(), query.to_owned(), true).expect("a query's number")
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Db::Postgres { name } = self {
            admin(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        }
    }
}

/// Runs one statement on the PostgreSQL server's maintenance database.
fn admin(statement: &str) {
    run_sql(postgres_admin_url(), statement.to_owned(), false);
}

/// Runs one statement on the database at `url`, on a thread of its own so that it works inside
/// and outside a tokio runtime.
/// Runs `statement`; with `number`, returns the first column of its first row.
fn run_sql(url: String, statement: String, number: bool) -> Option<i64> {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                use sqlx::Connection as _;
                sqlx::any::install_default_drivers();
                let mut connection =
                    sqlx::AnyConnection::connect(&url)
                        .await
                        .unwrap_or_else(|error| {
                            panic!(
                                "cannot reach the database at {url} (for PostgreSQL, set \
                             AGENTBENCH_TEST_POSTGRES to another server): {error}"
                            )
                        });
                let statement = sqlx::AssertSqlSafe(statement);
                if number {
                    let query = sqlx::query_scalar::<_, i64>(statement);
                    return Some(query.fetch_one(&mut connection).await.unwrap());
                }
                sqlx::raw_sql(statement)
                    .execute(&mut connection)
                    .await
                    .unwrap();
                None
            })
    })
    .join()
    .unwrap()
}

/// One HTTP/1.1 request to `addr` on a fresh connection; returns the status, the head
/// (lowercased) and the JSON body.
pub fn request_at(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Response {
    request_with(addr, method, path, &[], body)
}

/// `request_at` with more headers (`name: value` lines).
pub fn request_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[String],
    body: Option<&Value>,
) -> Response {
    try_request(addr, method, path, headers, body).unwrap()
}

/// `request_with`, or why no whole answer came (the server is gone, or hung up).
pub fn try_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[String],
    body: Option<&Value>,
) -> std::io::Result<Response> {
    let mut stream = send(addr, method, path, headers, body)?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let broken = || std::io::Error::other(format!("not an HTTP answer: {response:?}"));
    let (head, body) = response.split_once("\r\n\r\n").ok_or_else(broken)?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .ok_or_else(broken)?;
    let head = head.to_ascii_lowercase();
    let json = head.contains("content-type: application/json");
    Ok(Response {
        status,
        body: if json {
            serde_json::from_str(body).map_err(|_| broken())?
        } else {
            Value::Null
        },
        text: body.to_owned(),
        head,
    })
}

/// Writes one HTTP/1.1 request to `addr` on a fresh connection, which the server closes after
/// its answer.
fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[String],
    body: Option<&Value>,
) -> std::io::Result<TcpStream> {
    let mut stream = TcpStream::connect(addr)?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let headers: String = headers.iter().map(|line| format!("{line}\r\n")).collect();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nhost: agentbench\r\nconnection: close\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n{headers}\r\n{body}",
        body.len()
    )?;
    Ok(stream)
}

/// `agentbench serve` as a child process; killed (SIGKILL) when dropped.
#[derive(Debug)]
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    /// What the server wrote to stderr after its listening line.
    log: Arc<Mutex<String>>,
}

impl Server {
    /// Starts a server on a free loopback port with `args`, and waits until it listens. `db`
    /// must outlive the server: a SQLite `Db` removes its folder when dropped, and the server's
    /// new connections to the database then fail (503 `store_unavailable`).
    pub fn start(db: &Db, args: &[&str]) -> Server {
        Server::start_under(db, &[], args)
    }

    /// `start`, the server's command run by `wrapper` (a program and its first arguments, to
    /// which the command is appended), such as a shell that sets a resource limit first.
    pub fn start_under(db: &Db, wrapper: &[&str], args: &[&str]) -> Server {
        let binary = agentbench_binary().as_os_str();
        let (program, before) = match wrapper.split_first() {
            Some((program, rest)) => (OsStr::new(program), rest),
            None => (binary, &[][..]),
        };
        let mut child = Command::new(program)
            .args(before)
            .args((!wrapper.is_empty()).then_some(binary))
            .args(["serve", "--addr", "127.0.0.1:0", "--db", &db.url()])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        // Owned from here on, so that a failing start kills the process too.
        let mut server = Server {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            log: Arc::default(),
        };
        let mut before = Vec::new();
        let addr = agentbench_server::read_listening_address(&mut stderr, |line| {
            before.push(line.to_owned());
        })
        .unwrap()
        .unwrap_or_else(|| panic!("the server exited before it listened: {before:?}"));
        server.addr = addr.parse().unwrap();
        // Keep reading stderr so that the server never blocks on a full pipe.
        let log = Arc::clone(&server.log);
        std::thread::spawn(move || {
            let mut line = String::new();
            while matches!(stderr.read_line(&mut line), Ok(read) if read > 0) {
                log.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        server
    }

    /// What the server wrote to stderr after its listening line, so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Sends SIGTERM, as Kubernetes or a supervisor stops a process.
    pub fn terminate(&self) {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }

    /// Waits up to `within` for the server to exit; its exit status, or `None` if it still runs.
    pub fn exited_within(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends SIGKILL to the server, leaving it to be reaped when dropped: for a kill from
    /// another thread while clients share the server.
    pub fn kill_9(&self) {
        let killed = Command::new("kill")
            .args(["-9", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
    }

    /// Stops the server the hard way, as a crash would.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// One HTTP/1.1 request on a fresh connection (`request_at`).
    pub fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Response {
        request_at(self.addr, method, path, body)
    }

    /// Sends a request and hangs up at once, without reading the answer, as a client that gives
    /// up does: the server may or may not have started on the request when it sees the
    /// connection close.
    pub fn hang_up(&self, method: &str, path: &str, body: &Value) {
        let stream = send(self.addr, method, path, &[], Some(body)).unwrap();
        stream.shutdown(std::net::Shutdown::Both).unwrap();
    }

    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, None)
    }

    pub fn post(&self, path: &str, body: &Value) -> Response {
        self.request("POST", path, Some(body))
    }

    /// Creates an episode and returns its id.
    pub fn create(&self, body: &Value) -> String {
        let created = self.post("/v1/episodes", body);
        assert_eq!(created.status, 201, "{}", created.body);
        created.body["id"].as_str().unwrap().to_owned()
    }

    /// Takes a step and returns the response.
    pub fn step(&self, id: &str, body: &Value) -> Response {
        self.post(&format!("/v1/episodes/{id}/steps"), body)
    }

    pub fn episode(&self, id: &str) -> Value {
        let response = self.get(&format!("/v1/episodes/{id}"));
        assert_eq!(response.status, 200, "{}", response.body);
        response.body
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub head: String,
    /// The body, when it is JSON (`null` otherwise).
    pub body: Value,
    pub text: String,
}

impl Response {
    /// The error code of an error body.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("")
    }

    /// A response header's value (`name` lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head
            .lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
            .map(str::trim)
    }
}

/// A step of the workspace env that always does the same (it lists `/docs`), with request id
/// `request_id`: a retry is the same request.
pub fn list_files_step(request_id: &str) -> Value {
    serde_json::json!({
        "action": {"tool": "list_files", "arguments": {"dir": "/docs"}},
        "request_id": request_id,
    })
}

/// The request ids each episode's record holds, in index order, read from `server`; asserts
/// that the indices run from 0 without a gap and that no request id is recorded twice.
pub fn recorded_request_ids(server: &Server, episodes: &[String]) -> BTreeMap<String, Vec<String>> {
    episodes
        .iter()
        .map(|id| {
            let steps = server.episode(id)["steps"].as_array().unwrap().clone();
            let indices: Vec<u64> = steps.iter().map(|s| s["index"].as_u64().unwrap()).collect();
            assert_eq!(indices, (0..steps.len() as u64).collect::<Vec<_>>(), "{id}");
            let ids: Vec<String> = steps
                .iter()
                .map(|s| s["request_id"].as_str().unwrap().to_owned())
                .collect();
            let distinct: BTreeSet<&String> = ids.iter().collect();
            assert_eq!(distinct.len(), ids.len(), "a step recorded twice in {id}");
            (id.clone(), ids)
        })
        .collect()
}

/// Asserts that `instance` fits the schema `name` of the OpenAPI `document`'s components, and
/// that the schema is not one that fits anything.
pub fn assert_fits(document: &Value, name: &str, instance: &Value) {
    let schema = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": document["components"],
    });
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<_> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{instance}");
    assert!(
        !validator.is_valid(&serde_json::json!({})),
        "{name} must not accept anything"
    );
}
