//! What a bench run measured, and how it prints.

use std::fmt;

use serde::Serialize;

use super::ENV;

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
    /// Clients stepping at once, each with its own episode.
    pub concurrency: usize,
    /// How the steps reached the server: `http`, `ws`, `batch` or `openenv`.
    pub transport: &'static str,
    /// The WebSocket connections or batching clients of a fast path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connections: Option<usize>,
    /// The OpenEnv session socket's path, for `openenv`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub openenv_path: Option<String>,
    /// Creating one episode per client, all at once (over OpenEnv: opening and resetting a
    /// session per client).
    pub resets: ResetReport,
    /// Stepping the clients' episodes.
    pub steps: StepReport,
    /// Resident memory per open episode.
    pub memory: MemoryReport,
    /// Deleting the clients' episodes at the end; `None` over OpenEnv, where closing a session
    /// ends its episode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleanup: Option<CleanupReport>,
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

/// Phase 1: `POST /v1/episodes` (or an OpenEnv session's reset), one per client, concurrently.
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

/// Sorts `latencies_us` and reads its percentiles by nearest rank.
pub(super) fn summarize(mut latencies_us: Vec<u32>) -> LatencySummary {
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
        let transport = match self.connections {
            Some(connections) => format!("{} over {connections} connections", self.transport),
            None => self.transport.to_owned(),
        };
        let stepped = match &self.openenv_path {
            Some(path) => format!("OpenEnv sessions at {path}"),
            None => format!("env {ENV}, episodes"),
        };
        writeln!(
            f,
            "server   {} ({origin}), {} {stepped} stepped by {transport}",
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
        match &self.cleanup {
            Some(cleanup) => write!(
                f,
                "cleanup  {} episodes deleted, {} failed",
                cleanup.deleted, cleanup.failed
            ),
            None => write!(f, "cleanup  each OpenEnv session was closed"),
        }
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
    use super::{LatencySummary, summarize};

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
}
