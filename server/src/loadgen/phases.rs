//! The bench's phases: create one episode per client, step them all, open more episodes to
//! measure memory, and delete what was created; each phase's requests run concurrently, a bulk
//! phase's at most `BULK_IN_FLIGHT` at a time.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use hyper::Uri;
use hyper::body::Bytes;

use super::client::{Api, Reconnecting};
use super::fast_paths::{batch_loop, socket_loop};
use super::openenv::{Socket, session_loop};
use super::procfs::{cpu_seconds, resident_bytes};
use super::report::{CleanupReport, CpuReport, MemoryReport, ResetReport, StepReport, summarize};
use super::{BULK_IN_FLIGHT, LoadSettings, MEMORY_BUDGET_BYTES, STEP_ACTION, Transport, progress};

/// Phase 1: one episode per client, all created at once (seeds `0..n_clients`). If any creation
/// fails, the episodes already created are deleted and the first failure is returned.
pub(super) async fn create_client_episodes(
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
    let (ids, latencies, first_error) = join_opened(tasks, "an episode-creating task").await;
    let seconds = started.elapsed().as_secs_f64();
    if let Some(error) = first_error {
        delete_all(api, ids).await;
        return Err(error);
    }
    let latency = summarize(latencies);
    Ok((ids, ResetReport { seconds, latency }))
}

/// Waits for every task of `tasks` (each opening one client's episode or session and timing it);
/// returns what they opened, their latencies, and the first failure.
pub(super) async fn join_opened<T: 'static>(
    mut tasks: tokio::task::JoinSet<anyhow::Result<(T, u32)>>,
    what: &str,
) -> (Vec<T>, Vec<u32>, Option<anyhow::Error>) {
    let (mut opened, mut latencies, mut first_error) = (Vec::new(), Vec::new(), None);
    while let Some(joined) = tasks.join_next().await {
        match joined.with_context(|| format!("{what} failed")) {
            Ok(Ok((item, latency))) => {
                opened.push(item);
                latencies.push(latency);
            }
            Ok(Err(error)) | Err(error) => {
                first_error.get_or_insert(error);
            }
        }
    }
    (opened, latencies, first_error)
}

/// What one stepping client saw.
#[derive(Debug, Default)]
pub(super) struct ClientTally {
    pub latencies_us: Vec<u32>,
    errors: u64,
    first_error: Option<String>,
}

impl ClientTally {
    pub fn error(&mut self, message: String) {
        self.errors += 1;
        self.first_error.get_or_insert(message);
    }
}

/// What phase 1 opened for the clients to step.
pub(super) enum Clients {
    /// Episodes created over REST, by id.
    Episodes(Vec<String>),
    /// OpenEnv sessions, each reset.
    Sessions(Vec<Socket>),
}

/// Phase 2: every client steps its own episode (over HTTP or its OpenEnv session), or the
/// clients' episodes are shared out among the connections of the fast path, until the warm-up
/// and the measured window are over; only steps started inside the window are measured.
/// Returns the report and the ids of the episodes created over REST, which are the bench's to
/// delete.
pub(super) async fn step_all(
    api: &Api,
    clients: Clients,
    server_pid: Option<u32>,
    settings: &LoadSettings,
) -> (StepReport, Vec<String>) {
    let measure_from = Instant::now() + settings.warmup;
    let measure_until = measure_from + settings.duration;
    let mut tasks = tokio::task::JoinSet::new();
    let ids = match clients {
        Clients::Episodes(ids) => ids,
        Clients::Sessions(sessions) => {
            for socket in sessions {
                let load = settings.openenv.clone();
                tasks.spawn(session_loop(socket, load, measure_from, measure_until));
            }
            Vec::new()
        }
    };
    let shares = ids.chunks(ids.len().div_ceil(settings.connections.max(1)).max(1));
    match settings.transport {
        // The sessions are stepping already.
        Transport::OpenEnv => {}
        Transport::Http => {
            for id in &ids {
                let api = api.clone();
                let id = id.clone();
                tasks.spawn(async move { step_loop(&api, &id, measure_from, measure_until).await });
            }
        }
        Transport::Socket => {
            let url = format!("{}/v1/ws", api.base().replacen("http://", "ws://", 1));
            for share in shares {
                let task = socket_loop(url.clone(), share.to_vec(), measure_from, measure_until);
                tasks.spawn(task);
            }
        }
        Transport::Batch => {
            for share in shares {
                let task = batch_loop(api.clone(), share.to_vec(), measure_from, measure_until);
                tasks.spawn(task);
            }
        }
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
    let report = StepReport {
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
    };
    (report, ids)
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
    let mut connection = Reconnecting::new(api.clone());
    loop {
        let sent = Instant::now();
        if sent >= measure_until {
            return tally;
        }
        match connection.post(&path, body.clone()).await {
            Ok(answer) if answer.status.is_success() => {
                if sent >= measure_from {
                    tally.latencies_us.push(micros(sent.elapsed()));
                }
            }
            Ok(answer) => tally.error(format!("step on {id}: {}", answer.describe())),
            Err(error) => tally.error(format!("step on {id}: {error:#}")),
        }
    }
}

/// Phase 3: opens `settings.open_episodes` more episodes and reads the server's resident memory
/// before and after. Opening stops at the first refusal (a server's instance pool may be smaller
/// than asked); the footprint is then measured over the episodes that did open.
pub(super) async fn measure_memory(api: &Api, pid: u32, settings: &LoadSettings) -> MemoryReport {
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

/// Deletes `ids`, at most `BULK_IN_FLIGHT` at a time, counting failures instead of stopping.
pub(super) async fn delete_all(api: &Api, ids: Vec<String>) -> CleanupReport {
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

pub(super) fn micros(elapsed: Duration) -> u32 {
    u32::try_from(elapsed.as_micros()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::{MEMORY_BUDGET_BYTES, MemoryReport, memory_report};

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
