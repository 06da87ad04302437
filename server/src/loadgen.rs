//! `agentbench bench`: a load generator that measures a server's episode-creation latency, step
//! throughput and latency, and resident memory per open episode.
//!
//! The bench drives a server over real HTTP/1.1 with keep-alive connections, either one given by
//! URL or one it spawns as a child process (`agentbench serve` on a loopback port), and whose
//! resident memory it can then read from `/proc`.

use std::fmt;
use std::future::Future;
use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::pin::Pin;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1;
use hyper::header::{CONTENT_TYPE, HOST, HeaderValue};
use hyper::http::uri::Authority;
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::store::DbSync;

/// The env every bench episode runs in.
const ENV: &str = "workspace";
/// The read-only action each step sends: cheap, and it never ends the episode.
const STEP_ACTION: &str = r#"{"action":{"tool":"list_files","arguments":{}}}"#;
/// A step budget the measured phase cannot exhaust.
const MAX_STEPS: u64 = 1_000_000;
/// The most requests in flight while opening (phase 3) or deleting episodes.
const BULK_IN_FLIGHT: usize = 64;
/// The longest the bench waits for one answer before counting the request as failed.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest a spawned server may take to report its address.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(120);
/// The memory budget the per-episode footprint is extrapolated to.
const MEMORY_BUDGET_BYTES: u64 = 4 << 30;

/// What to measure and against which server.
#[derive(Debug, Clone)]
pub struct LoadSettings {
    /// The base URL of a running server (`http://host:port`); `None` spawns one.
    pub server: Option<String>,
    /// Clients stepping at once, each with its own episode.
    pub concurrency: usize,
    /// How long steps are measured, after the warm-up.
    pub duration: Duration,
    /// How long clients step before measuring starts.
    pub warmup: Duration,
    /// Extra episodes opened to measure memory per open episode; 0 skips that phase.
    pub open_episodes: usize,
    /// How a spawned server's commits wait for the disk (`serve --db-sync`).
    pub db_sync: DbSync,
}

impl Default for LoadSettings {
    fn default() -> LoadSettings {
        LoadSettings {
            server: None,
            concurrency: 256,
            duration: Duration::from_secs(10),
            warmup: Duration::from_secs(1),
            open_episodes: 10_000,
            db_sync: DbSync::Full,
        }
    }
}

/// What one bench run measured.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    /// The base URL the bench drove.
    pub server: String,
    /// Whether the bench spawned that server itself.
    pub spawned: bool,
    /// The spawned server's `--db-sync`; `None` for a given server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db_sync: Option<&'static str>,
    /// Clients stepping at once.
    pub concurrency: usize,
    /// Creating one episode per client, all at once.
    pub resets: ResetReport,
    /// Stepping the clients' episodes.
    pub steps: StepReport,
    /// Resident memory per open episode.
    pub memory: MemoryReport,
    /// Deleting the clients' episodes at the end.
    pub cleanup: CleanupReport,
}

/// Latency percentiles over a set of requests, in microseconds (nearest rank).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LatencySummary {
    pub count: usize,
    pub p50_us: u32,
    pub p90_us: u32,
    pub p99_us: u32,
    pub max_us: u32,
}

/// Phase 1: `POST /v1/episodes`, one per client, concurrently.
#[derive(Debug, Clone, Serialize)]
pub struct ResetReport {
    /// Wall-clock time until the last episode was created.
    pub seconds: f64,
    pub latency: LatencySummary,
}

/// Phase 2: each client steps its own episode in a loop.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// Successful steps started within the measured window.
    pub count: u64,
    /// Steps answered with a non-2xx status or not answered at all, warm-up included.
    pub errors: u64,
    /// The first of those errors, as the client saw it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// From the end of the warm-up until the last measured step was answered.
    pub seconds: f64,
    pub per_second: f64,
    pub latency: LatencySummary,
    /// Processor time per measured step, over the measured window.
    pub cpu: CpuReport,
}

/// Processor time (user and system, all threads) per measured step, in microseconds: the work a
/// step costs, steadier than steps per second when something else competes for the machine.
/// `None` where it could not be read: the server's for a given server, either without Linux's
/// `/proc`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CpuReport {
    pub server_us_per_step: Option<f64>,
    pub bench_us_per_step: Option<f64>,
}

/// Phase 3: resident memory of the spawned server before and after opening more episodes.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum MemoryReport {
    Measured {
        /// Episodes the bench asked to open.
        requested: usize,
        /// Episodes the server opened; fewer than requested when it refused one.
        opened: usize,
        /// The server's answer to the first refused creation, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        refused: Option<String>,
        rss_before_bytes: u64,
        rss_after_bytes: u64,
        /// The growth in resident memory divided by the episodes opened.
        bytes_per_episode: u64,
        /// How many such episodes fit in 4 GiB, ignoring the server's fixed footprint; `None`
        /// when resident memory did not grow.
        episodes_per_4_gib: Option<u64>,
    },
    Skipped {
        reason: String,
    },
}

/// Deleting the phase-1 episodes, best effort.
#[derive(Debug, Clone, Serialize)]
pub struct CleanupReport {
    pub deleted: usize,
    pub failed: usize,
}

/// Runs the three phases and the cleanup; progress goes to stderr.
pub async fn run(settings: &LoadSettings) -> anyhow::Result<LoadReport> {
    validate(settings)?;
    let (spawned, base) = match &settings.server {
        Some(url) => (None, base_url(url)?),
        None => {
            progress("starting a server");
            let max_open = settings.concurrency + settings.open_episodes + 16;
            let (server, base) = SpawnedServer::start(max_open, settings.db_sync).await?;
            (Some(server), base)
        }
    };
    let api = Api::new(base.clone());

    progress(&format!("creating {} episodes", settings.concurrency));
    let (ids, resets) = create_client_episodes(&api, settings.concurrency).await?;
    progress(&format!(
        "stepping for {:?} of warm-up and {:?} measured",
        settings.warmup, settings.duration
    ));
    let server_pid = spawned.as_ref().map(SpawnedServer::pid);
    let steps = step_all(&api, &ids, server_pid, settings.warmup, settings.duration).await;
    let memory = match &spawned {
        None => MemoryReport::Skipped {
            reason: "the server was not spawned by the bench (--server)".to_owned(),
        },
        Some(_) if settings.open_episodes == 0 => MemoryReport::Skipped {
            reason: "--open-episodes is 0".to_owned(),
        },
        Some(server) => measure_memory(&api, server.pid(), settings).await,
    };
    progress(&format!("deleting {} episodes", ids.len()));
    let cleanup = delete_all(&api, ids).await;
    Ok(LoadReport {
        server: base,
        spawned: spawned.is_some(),
        db_sync: spawned.is_some().then_some(settings.db_sync.as_str()),
        concurrency: settings.concurrency,
        resets,
        steps,
        memory,
        cleanup,
    })
}

fn validate(settings: &LoadSettings) -> anyhow::Result<()> {
    if settings.concurrency == 0 {
        bail!("expected a concurrency of at least 1, got 0");
    }
    if settings.duration.is_zero() {
        bail!("expected a measured duration above zero, got 0s");
    }
    Ok(())
}

fn progress(message: &str) {
    eprintln!("bench: {message}");
}

/// `url` without its trailing slash, checked to be a plain `http://` URL.
fn base_url(url: &str) -> anyhow::Result<String> {
    let uri: Uri = url.parse().with_context(|| {
        format!("expected a server URL such as http://127.0.0.1:8080, got {url:?}")
    })?;
    if uri.scheme_str() != Some("http") || uri.authority().is_none() {
        bail!("expected a server URL such as http://127.0.0.1:8080, got {url:?}");
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// An `agentbench serve` child process on a loopback port with its database in a fresh temporary
/// directory; dropping it kills the process, then removes the directory.
#[derive(Debug)]
struct SpawnedServer {
    child: Child,
    _data_dir: tempfile::TempDir,
}

impl SpawnedServer {
    /// Starts the server; returns it with its base URL.
    async fn start(
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

    fn pid(&self) -> u32 {
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

/// A keep-alive HTTP/1.1 client of one server.
#[derive(Debug, Clone)]
struct Api {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
}

/// A server's answer: its status and its whole body.
#[derive(Debug)]
struct Answer {
    status: StatusCode,
    body: Bytes,
}

impl Answer {
    async fn read(response: Response<Incoming>) -> anyhow::Result<Answer> {
        let status = response.status();
        let body = response.into_body().collect().await?.to_bytes();
        Ok(Answer { status, body })
    }

    /// `status NNN: body`, for error messages.
    fn describe(&self) -> String {
        format!(
            "status {}: {}",
            self.status.as_u16(),
            String::from_utf8_lossy(&self.body)
        )
    }
}

impl Api {
    fn new(base: String) -> Api {
        let mut connector = HttpConnector::new();
        // Requests are small and latency is what we measure, so Nagle's delay must not apply.
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Api { client, base }
    }

    fn uri(&self, path: &str) -> anyhow::Result<Uri> {
        let url = format!("{}{path}", self.base);
        url.parse()
            .with_context(|| format!("cannot form a request URL from {url:?}"))
    }

    async fn send(&self, method: Method, uri: Uri, body: Bytes) -> anyhow::Result<Answer> {
        let request = json_request(method, uri, body)?;
        let exchange = async {
            let response = self.client.request(request).await?;
            Answer::read(response).await
        };
        within_timeout(exchange, &self.base).await
    }

    /// A connection of its own for one stepping client.
    async fn connect(&self) -> anyhow::Result<Connection> {
        let authority = self
            .uri("")?
            .authority()
            .context("the server URL has no host")?
            .clone();
        let open = async {
            // `http://host` names no port: HTTP's own.
            let address = (authority.host(), authority.port_u16().unwrap_or(80));
            let stream = TcpStream::connect(address).await?;
            stream.set_nodelay(true)?;
            let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
            anyhow::Ok(Connection {
                sender,
                connection: Box::pin(connection),
                authority,
            })
        };
        within_timeout(open, &self.base).await
    }

    /// Creates an episode; any answer but 201 is an error carrying the server's body.
    async fn create_episode(&self, seed: u64) -> anyhow::Result<String> {
        let body = json!({"env": ENV, "seed": seed, "task": {"budget": {"max_steps": MAX_STEPS}}});
        let answer = self
            .send(
                Method::POST,
                self.uri("/v1/episodes")?,
                body.to_string().into(),
            )
            .await?;
        if answer.status != StatusCode::CREATED {
            bail!(
                "the server refused to create an episode: {}",
                answer.describe()
            );
        }
        let created: Value = serde_json::from_slice(&answer.body)
            .with_context(|| format!("expected a JSON episode, got {}", answer.describe()))?;
        created["id"]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("expected an episode with an id, got {}", answer.describe()))
    }

    async fn delete_episode(&self, id: &str) -> anyhow::Result<()> {
        let answer = self
            .send(
                Method::DELETE,
                self.uri(&format!("/v1/episodes/{id}"))?,
                Bytes::new(),
            )
            .await?;
        if !answer.status.is_success() {
            bail!("cannot delete episode {id}: {}", answer.describe());
        }
        Ok(())
    }
}

/// One stepping client's own keep-alive connection, driven by the client's task: a step is a
/// write and a read on that task, with no pool to check a connection out of and no hand-off to
/// a connection task and back (each a wake-up, which the bench would count as the server's
/// latency and pay for in processor time the server then lacks).
struct Connection {
    sender: http1::SendRequest<Full<Bytes>>,
    connection: Pin<Box<http1::Connection<TokioIo<TcpStream>, Full<Bytes>>>>,
    authority: Authority,
}

impl Connection {
    /// POSTs `body` to `path`; the connection is polled while the answer comes.
    async fn post(&mut self, path: &Uri, body: Bytes) -> anyhow::Result<Answer> {
        let mut request = json_request(Method::POST, path.clone(), body)?;
        let host = HeaderValue::from_str(self.authority.as_str())?;
        request.headers_mut().insert(HOST, host);
        let Connection {
            sender, connection, ..
        } = self;
        let exchange = async {
            sender.ready().await?;
            Answer::read(sender.send_request(request).await?).await
        };
        let answer = async {
            tokio::select! {
                answer = exchange => answer,
                ended = connection => match ended {
                    Ok(()) => bail!("the server closed the connection"),
                    Err(error) => Err(error.into()),
                },
            }
        };
        within_timeout(answer, &self.authority).await
    }
}

fn json_request(method: Method, uri: Uri, body: Bytes) -> anyhow::Result<Request<Full<Bytes>>> {
    Request::builder()
        .method(method)
        .uri(uri)
        .header(CONTENT_TYPE, "application/json")
        .body(Full::new(body))
        .context("cannot build a request")
}

/// `exchange`'s result, or an error once `REQUEST_TIMEOUT` has passed without one.
async fn within_timeout<T>(
    exchange: impl Future<Output = anyhow::Result<T>>,
    server: impl fmt::Display,
) -> anyhow::Result<T> {
    tokio::time::timeout(REQUEST_TIMEOUT, exchange)
        .await
        .with_context(|| format!("no answer within {REQUEST_TIMEOUT:?}"))?
        .with_context(|| format!("cannot reach the server at {server}"))
}

/// Phase 1: one episode per client, all created at once (seeds `0..n_clients`). If any creation
/// fails, the episodes already created are deleted and the first failure is returned.
async fn create_client_episodes(
    api: &Api,
    n_clients: usize,
) -> anyhow::Result<(Vec<String>, ResetReport)> {
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for seed in 0..n_clients as u64 {
        let api = api.clone();
        tasks.spawn(async move {
            let sent = Instant::now();
            let id = api.create_episode(seed).await?;
            anyhow::Ok((id, micros(sent.elapsed())))
        });
    }
    let mut ids = Vec::with_capacity(n_clients);
    let mut latencies = Vec::with_capacity(n_clients);
    let mut first_error = None;
    while let Some(joined) = tasks.join_next().await {
        match joined.context("an episode-creating task failed") {
            Ok(Ok((id, latency))) => {
                ids.push(id);
                latencies.push(latency);
            }
            Ok(Err(error)) | Err(error) => {
                first_error.get_or_insert(error);
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if let Some(error) = first_error {
        delete_all(api, ids).await;
        return Err(error);
    }
    let latency = summarize(latencies);
    Ok((ids, ResetReport { seconds, latency }))
}

/// What one stepping client saw.
#[derive(Debug, Default)]
struct ClientTally {
    latencies_us: Vec<u32>,
    errors: u64,
    first_error: Option<String>,
}

impl ClientTally {
    fn error(&mut self, message: String) {
        self.errors += 1;
        self.first_error.get_or_insert(message);
    }
}

/// Phase 2: every client steps its own episode until the warm-up and the measured window are
/// over; only steps started inside the window are measured.
async fn step_all(
    api: &Api,
    ids: &[String],
    server_pid: Option<u32>,
    warmup: Duration,
    duration: Duration,
) -> StepReport {
    let measure_from = Instant::now() + warmup;
    let measure_until = measure_from + duration;
    let mut tasks = tokio::task::JoinSet::new();
    for id in ids {
        let api = api.clone();
        let id = id.clone();
        tasks.spawn(async move { step_loop(&api, &id, measure_from, measure_until).await });
    }
    let server_cpu = || server_pid.and_then(|pid| cpu_seconds(&pid.to_string()));
    tokio::time::sleep_until(measure_from.into()).await;
    let (server_before, bench_before) = (server_cpu(), cpu_seconds("self"));
    let mut total = ClientTally::default();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(tally) => {
                total.latencies_us.extend(tally.latencies_us);
                total.errors += tally.errors;
                if let Some(message) = tally.first_error {
                    total.first_error.get_or_insert(message);
                }
            }
            Err(error) => total.error(format!("a stepping task failed: {error}")),
        }
    }
    let seconds = Instant::now()
        .saturating_duration_since(measure_from)
        .as_secs_f64();
    let count = total.latencies_us.len() as u64;
    let per_step = |before: Option<f64>, after: Option<f64>| {
        let spent = after? - before?;
        (count > 0).then(|| spent * 1e6 / count as f64)
    };
    let cpu = CpuReport {
        server_us_per_step: per_step(server_before, server_cpu()),
        bench_us_per_step: per_step(bench_before, cpu_seconds("self")),
    };
    StepReport {
        count,
        errors: total.errors,
        first_error: total.first_error,
        seconds,
        per_second: if seconds > 0.0 {
            count as f64 / seconds
        } else {
            0.0
        },
        latency: summarize(total.latencies_us),
        cpu,
    }
}

/// The processor time process `pid` (or `self`) has used so far, all its threads, user and
/// system, from `/proc/<pid>/stat` (Linux only).
fn cpu_seconds(pid: &str) -> Option<f64> {
    parse_cpu_seconds(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// `utime + stime` of a `/proc/<pid>/stat` line, in seconds. The fields are counted after the
/// command name's closing parenthesis (the name may hold spaces), in clock ticks of `USER_HZ`,
/// which Linux fixes at 100 for `/proc`.
fn parse_cpu_seconds(stat: &str) -> Option<f64> {
    const USER_HZ: f64 = 100.0;
    let (_, fields) = stat.rsplit_once(')')?;
    let mut fields = fields.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((user + system) as f64 / USER_HZ)
}

async fn step_loop(
    api: &Api,
    id: &str,
    measure_from: Instant,
    measure_until: Instant,
) -> ClientTally {
    let mut tally = ClientTally::default();
    let path: Uri = match format!("/v1/episodes/{id}/steps").parse() {
        Ok(path) => path,
        Err(error) => {
            tally.error(format!(
                "cannot form a step path for episode {id:?}: {error}"
            ));
            return tally;
        }
    };
    let body = Bytes::from_static(STEP_ACTION.as_bytes());
    let mut connection = None;
    loop {
        let sent = Instant::now();
        if sent >= measure_until {
            return tally;
        }
        let answer = async {
            if connection.is_none() {
                connection = Some(api.connect().await?);
            }
            let connection = connection.as_mut().expect("connected above");
            connection.post(&path, body.clone()).await
        };
        match answer.await {
            Ok(answer) if answer.status.is_success() => {
                if sent >= measure_from {
                    tally.latencies_us.push(micros(sent.elapsed()));
                }
            }
            Ok(answer) => tally.error(format!("step on {id}: {}", answer.describe())),
            Err(error) => {
                // The connection may be broken; the next step opens another.
                connection = None;
                tally.error(format!("step on {id}: {error:#}"));
            }
        }
    }
}

/// Phase 3: opens `settings.open_episodes` more episodes and reads the server's resident memory
/// before and after. Opening stops at the first refusal (a server's instance pool may be smaller
/// than asked); the footprint is then measured over the episodes that did open.
async fn measure_memory(api: &Api, pid: u32, settings: &LoadSettings) -> MemoryReport {
    let requested = settings.open_episodes;
    let rss_before = match resident_bytes(pid) {
        Ok(bytes) => bytes,
        Err(error) => {
            return MemoryReport::Skipped {
                reason: format!("{error:#}"),
            };
        }
    };
    progress(&format!("opening {requested} more episodes"));
    let first_seed = settings.concurrency as u64;
    let api = api.clone();
    let outcome = run_bulk(requested, Stop::AtFirstError, move |index| {
        let api = api.clone();
        async move {
            api.create_episode(first_seed + index as u64)
                .await
                .map(drop)
        }
    })
    .await;
    let rss_after = match resident_bytes(pid) {
        Ok(bytes) => bytes,
        Err(error) => {
            return MemoryReport::Skipped {
                reason: format!("{error:#}"),
            };
        }
    };
    let refused = outcome.first_error.map(|error| format!("{error:#}"));
    memory_report(requested, outcome.succeeded, refused, rss_before, rss_after)
}

fn memory_report(
    requested: usize,
    opened: usize,
    refused: Option<String>,
    rss_before: u64,
    rss_after: u64,
) -> MemoryReport {
    if opened == 0 {
        let reason = match refused {
            Some(refusal) => format!("the server opened no episode: {refusal}"),
            None => "the server opened no episode".to_owned(),
        };
        return MemoryReport::Skipped { reason };
    }
    let bytes_per_episode = rss_after.saturating_sub(rss_before) / opened as u64;
    MemoryReport::Measured {
        requested,
        opened,
        refused,
        rss_before_bytes: rss_before,
        rss_after_bytes: rss_after,
        bytes_per_episode,
        episodes_per_4_gib: MEMORY_BUDGET_BYTES.checked_div(bytes_per_episode),
    }
}

/// The resident set size of process `pid`, from `/proc/<pid>/status` (Linux only).
fn resident_bytes(pid: u32) -> anyhow::Result<u64> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the server's memory from {path}"))?;
    parse_vm_rss(&status).with_context(|| format!("expected a VmRSS line in {path}"))
}

/// The `VmRSS:  1234 kB` line of a `/proc/<pid>/status`, in bytes.
fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// Deletes `ids`, at most `BULK_IN_FLIGHT` at a time, counting failures instead of stopping.
async fn delete_all(api: &Api, ids: Vec<String>) -> CleanupReport {
    let ids = Arc::new(ids);
    let api = api.clone();
    let outcome = run_bulk(ids.len(), Stop::Never, move |index| {
        let (api, ids) = (api.clone(), ids.clone());
        async move { api.delete_episode(&ids[index]).await }
    })
    .await;
    CleanupReport {
        deleted: outcome.succeeded,
        failed: outcome.failed,
    }
}

/// Whether a bulk run stops starting work after an item fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    AtFirstError,
    Never,
}

/// How a bulk run went.
#[derive(Debug, Default)]
struct BulkOutcome {
    succeeded: usize,
    failed: usize,
    first_error: Option<anyhow::Error>,
}

impl BulkOutcome {
    fn record(&mut self, result: anyhow::Result<()>) {
        match result {
            Ok(()) => self.succeeded += 1,
            Err(error) => {
                self.failed += 1;
                self.first_error.get_or_insert(error);
            }
        }
    }
}

/// Runs `work(0..n_items)` with at most `BULK_IN_FLIGHT` items in flight at once.
async fn run_bulk<F, Fut>(n_items: usize, stop: Stop, work: F) -> BulkOutcome
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = anyhow::Result<()>> + Send,
{
    let work = Arc::new(work);
    let next = Arc::new(AtomicUsize::new(0));
    let stopped = Arc::new(AtomicBool::new(false));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..BULK_IN_FLIGHT.min(n_items) {
        let (work, next, stopped) = (work.clone(), next.clone(), stopped.clone());
        workers.spawn(async move {
            let mut outcome = BulkOutcome::default();
            while !stopped.load(Ordering::Relaxed) {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= n_items {
                    break;
                }
                let result = work(index).await;
                if result.is_err() && stop == Stop::AtFirstError {
                    stopped.store(true, Ordering::Relaxed);
                }
                outcome.record(result);
            }
            outcome
        });
    }
    let mut total = BulkOutcome::default();
    while let Some(joined) = workers.join_next().await {
        match joined {
            Ok(outcome) => {
                total.succeeded += outcome.succeeded;
                total.failed += outcome.failed;
                if let Some(error) = outcome.first_error {
                    total.first_error.get_or_insert(error);
                }
            }
            Err(error) => total.record(Err(error).context("a bulk worker failed")),
        }
    }
    total
}

fn micros(elapsed: Duration) -> u32 {
    u32::try_from(elapsed.as_micros()).unwrap_or(u32::MAX)
}

/// Sorts `latencies_us` and reads its percentiles by nearest rank.
fn summarize(mut latencies_us: Vec<u32>) -> LatencySummary {
    latencies_us.sort_unstable();
    let count = latencies_us.len();
    let at = |fraction: f64| {
        let rank = (fraction * count as f64).ceil() as usize;
        latencies_us
            .get(rank.clamp(1, count.max(1)) - 1)
            .copied()
            .unwrap_or(0)
    };
    LatencySummary {
        count,
        p50_us: at(0.50),
        p90_us: at(0.90),
        p99_us: at(0.99),
        max_us: latencies_us.last().copied().unwrap_or(0),
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let origin = match self.db_sync {
            Some(sync) => format!("spawned, SQLite, --db-sync {sync}"),
            None => "given".to_owned(),
        };
        writeln!(
            f,
            "server   {} ({origin}), env {ENV}, {} clients",
            self.server, self.concurrency
        )?;
        writeln!(
            f,
            "resets   {} in {:.2} s: {}",
            self.resets.latency.count, self.resets.seconds, self.resets.latency
        )?;
        let steps = &self.steps;
        writeln!(
            f,
            "steps    {} in {:.2} s = {:.0} steps/s, {} errors: {}",
            steps.count, steps.seconds, steps.per_second, steps.errors, steps.latency
        )?;
        if let Some(error) = &steps.first_error {
            writeln!(f, "         first error: {error}")?;
        }
        let cpu = |us: Option<f64>| us.map_or("unknown".to_owned(), |us| format!("{us:.0} µs"));
        writeln!(
            f,
            "cpu      per step: server {}, bench {}",
            cpu(steps.cpu.server_us_per_step),
            cpu(steps.cpu.bench_us_per_step)
        )?;
        writeln!(f, "memory   {}", self.memory)?;
        write!(
            f,
            "cleanup  {} episodes deleted, {} failed",
            self.cleanup.deleted, self.cleanup.failed
        )
    }
}

impl fmt::Display for LatencySummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |us: u32| f64::from(us) / 1000.0;
        write!(
            f,
            "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            ms(self.p50_us),
            ms(self.p90_us),
            ms(self.p99_us),
            ms(self.max_us)
        )
    }
}

impl fmt::Display for MemoryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryReport::Skipped { reason } => write!(f, "skipped: {reason}"),
            MemoryReport::Measured {
                requested,
                opened,
                refused,
                rss_before_bytes,
                rss_after_bytes,
                bytes_per_episode,
                episodes_per_4_gib,
            } => {
                let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
                write!(
                    f,
                    "{opened} more open episodes: RSS {:.1} MiB -> {:.1} MiB = {:.1} KiB per episode",
                    mib(*rss_before_bytes),
                    mib(*rss_after_bytes),
                    *bytes_per_episode as f64 / 1024.0,
                )?;
                match episodes_per_4_gib {
                    Some(n_episodes) => write!(f, ", ~{n_episodes} episodes in 4 GiB")?,
                    None => write!(f, " (no growth measured)")?,
                }
                if let Some(refusal) = refused {
                    write!(
                        f,
                        "\n         opened {opened} of {requested}: stopped at the first refusal: {refusal}"
                    )?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_rss_is_read_in_bytes() {
        let status = "Name:\tagentbench\nVmPeak:\t  999 kB\nVmRSS:\t   1234 kB\nThreads:\t4\n";
        assert_eq!(parse_vm_rss(status), Some(1234 * 1024));
        assert_eq!(parse_vm_rss("Name:\tx\n"), None);
        assert_eq!(parse_vm_rss("VmRSS:\tlots kB\n"), None);
    }

    #[test]
    fn cpu_time_is_user_plus_system_after_the_command_name() {
        let stat = "4242 (tokio (rt) x) S 1 4242 4242 0 -1 4194560 2630 0 0 0 250 75 0 0 20 0 \
                    9 0 1234 71541520 27317 18446744073709551615";
        assert_eq!(parse_cpu_seconds(stat), Some(3.25));
        assert_eq!(parse_cpu_seconds("4242 (x) S 1 2"), None);
        assert!(cpu_seconds("self").is_some_and(|seconds| seconds >= 0.0));
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let summary = summarize((1..=100).rev().collect());
        assert_eq!(
            summary,
            LatencySummary {
                count: 100,
                p50_us: 50,
                p90_us: 90,
                p99_us: 99,
                max_us: 100
            }
        );
        assert_eq!(summarize(vec![7]).p50_us, 7);
        assert_eq!(summarize(Vec::new()), LatencySummary::default());
    }

    #[test]
    fn server_urls_must_be_plain_http() {
        assert_eq!(
            base_url("http://127.0.0.1:8080/").unwrap(),
            "http://127.0.0.1:8080"
        );
        assert!(base_url("https://example.invalid").is_err());
        assert!(base_url("127.0.0.1:8080").is_err());
        assert!(base_url("not a url").is_err());
    }

    #[test]
    fn memory_per_episode_divides_the_growth_by_the_episodes_opened() {
        let report = memory_report(10, 4, None, 1000, 5000);
        assert!(
            matches!(
                report,
                MemoryReport::Measured { bytes_per_episode: 1000, episodes_per_4_gib: Some(n), .. }
                    if n == MEMORY_BUDGET_BYTES / 1000
            ),
            "{report:?}"
        );
        let shrunk = memory_report(10, 4, None, 5000, 1000);
        assert!(
            matches!(
                shrunk,
                MemoryReport::Measured {
                    bytes_per_episode: 0,
                    episodes_per_4_gib: None,
                    ..
                }
            ),
            "{shrunk:?}"
        );
        assert!(matches!(
            memory_report(10, 0, Some("no".to_owned()), 0, 0),
            MemoryReport::Skipped { .. }
        ));
    }
}
