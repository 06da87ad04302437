//! The serving process's Prometheus metrics (`GET /metrics`, OpenMetrics text): steps by env and
//! status, step latency, guest time per env, store commit latency, and at each scrape the
//! episodes hot and parked, the hot limit, the database pool's connections in use and idle, and
//! whether the node is draining.
//!
//! One registry per process, as Prometheus scrapes a process: the counters are process-wide
//! statics (`metrics()`), so the store's writers and the sessions record without a handle passed
//! through every layer. Recording is a few atomic adds and, for latencies, one short mutex.

use std::sync::LazyLock;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

/// The process's metrics.
pub fn metrics() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct StepLabels {
    env: String,
    status: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct EnvLabel {
    env: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct StateLabel {
    state: &'static str,
}

/// Latency buckets from 50 µs to about 13 s, doubling.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(50e-6, 2.0, 19))
}

pub struct Metrics {
    registry: Registry,
    steps: Family<StepLabels, Counter>,
    step_seconds: Family<EnvLabel, Histogram, fn() -> Histogram>,
    guest_seconds: Family<EnvLabel, Counter<f64, std::sync::atomic::AtomicU64>>,
    commit_seconds: Histogram,
    commit_failures: Counter,
    episodes: Family<StateLabel, Gauge>,
    hot_limit: Gauge,
    connections: Family<StateLabel, Gauge>,
    draining: Gauge,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// What a scrape reads of the node's state.
#[derive(Debug, Clone, Copy)]
pub struct NodeState {
    /// Open episodes, and how many of them are hot.
    pub open: usize,
    pub hot: usize,
    pub hot_limit: usize,
    /// The database read pool's connections, and how many of them are idle.
    pub connections: u32,
    pub idle_connections: usize,
}

impl Metrics {
    fn new() -> Metrics {
        let mut registry = Registry::with_prefix("agentbench");
        let steps = Family::<StepLabels, Counter>::default();
        registry.register("steps", "Steps recorded, by env and status", steps.clone());
        let step_seconds: Family<EnvLabel, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(latency_histogram);
        registry.register_with_unit(
            "step_duration",
            "Time from a step's arrival to its recorded answer (lock, guest, scoring, commit)",
            Unit::Seconds,
            step_seconds.clone(),
        );
        let guest_seconds = Family::<EnvLabel, Counter<f64, _>>::default();
        registry.register_with_unit(
            "guest",
            "Time spent in guest calls by steps, per env",
            Unit::Seconds,
            guest_seconds.clone(),
        );
        let commit_seconds = latency_histogram();
        registry.register_with_unit(
            "store_commit_duration",
            "Time to commit one group of records to the database",
            Unit::Seconds,
            commit_seconds.clone(),
        );
        let commit_failures = Counter::default();
        registry.register(
            "store_commit_failures",
            "Groups of records the database refused or could not take",
            commit_failures.clone(),
        );
        let episodes = Family::<StateLabel, Gauge>::default();
        registry.register(
            "episodes",
            "Open episodes on this node: hot (in a sandbox instance) or parked (saved state)",
            episodes.clone(),
        );
        let hot_limit = Gauge::default();
        registry.register(
            "hot_episodes_limit",
            "The most episodes this node keeps in sandbox instances (--max-hot-episodes)",
            hot_limit.clone(),
        );
        let connections = Family::<StateLabel, Gauge>::default();
        registry.register(
            "store_connections",
            "The database read pool's connections: busy (lent out) or idle",
            connections.clone(),
        );
        let draining = Gauge::default();
        registry.register(
            "draining",
            "1 once the node is draining (SIGTERM or Ctrl-C): readiness is off and it stops soon",
            draining.clone(),
        );
        Metrics {
            registry,
            steps,
            step_seconds,
            guest_seconds,
            commit_seconds,
            commit_failures,
            episodes,
            hot_limit,
            connections,
            draining,
        }
    }

    /// A step recorded on `env` with `status`, `took` from arrival to answer, `guest` of it in
    /// the sandbox.
    pub fn step(&self, env: &str, status: &'static str, took: Duration, guest: Duration) {
        let env = EnvLabel {
            env: env.to_owned(),
        };
        self.steps
            .get_or_create(&StepLabels {
                env: env.env.clone(),
                status,
            })
            .inc();
        self.step_seconds
            .get_or_create(&env)
            .observe(took.as_secs_f64());
        self.guest_seconds
            .get_or_create(&env)
            .inc_by(guest.as_secs_f64());
    }

    /// One group of records committed (or not) in `took`.
    pub fn commit(&self, took: Duration, committed: bool) {
        self.commit_seconds.observe(took.as_secs_f64());
        if !committed {
            self.commit_failures.inc();
        }
    }

    /// The node stopped taking connections.
    pub fn drain(&self) {
        self.draining.set(1);
    }

    /// The OpenMetrics text of every metric, with the gauges set from `now`.
    pub fn render(&self, now: NodeState) -> String {
        let gauge = |count: usize| i64::try_from(count).unwrap_or(i64::MAX);
        let parked = now.open.saturating_sub(now.hot);
        for (state, count) in [("hot", now.hot), ("parked", parked)] {
            self.episodes
                .get_or_create(&StateLabel { state })
                .set(gauge(count));
        }
        self.hot_limit.set(gauge(now.hot_limit));
        let open = usize::try_from(now.connections).unwrap_or(usize::MAX);
        let busy = open.saturating_sub(now.idle_connections);
        for (state, count) in [("busy", busy), ("idle", now.idle_connections)] {
            self.connections
                .get_or_create(&StateLabel { state })
                .set(gauge(count));
        }
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .expect("writing to a String cannot fail");
        text
    }
}

/// The content type of `render`'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
