//! Timing helpers shared by the benchmarks: run an operation many times, report percentiles.

use std::time::{Duration, Instant};

/// Runs `operation` a tenth of `iterations` to warm up, then `iterations` times; the sorted
/// durations.
pub fn time(iterations: usize, mut operation: impl FnMut()) -> Vec<Duration> {
    for _ in 0..iterations / 10 {
        operation();
    }
    let mut samples: Vec<Duration> = (0..iterations)
        .map(|_| {
            let started = Instant::now();
            operation();
            started.elapsed()
        })
        .collect();
    samples.sort_unstable();
    samples
}

/// Prints p50 and p99 of sorted durations.
pub fn report(name: &str, sorted: Vec<Duration>) {
    let at = |quantile: f64| sorted[((sorted.len() - 1) as f64 * quantile) as usize];
    println!(
        "{name:34} p50 {:8.2} µs   p99 {:8.2} µs   (n = {})",
        at(0.50).as_secs_f64() * 1e6,
        at(0.99).as_secs_f64() * 1e6,
        sorted.len()
    );
}

/// A number from the environment, or `default`.
pub fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}
