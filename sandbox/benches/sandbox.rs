//! Sandbox benchmarks on the built-in workspace env: instantiate + reset, one step call, fork
//! (save + load into a fresh instance), and memory per live instance.
//!
//! Run: `cargo bench -p agentbench-sandbox`. Prints p50 and p99 per operation; set
//! `AGENTBENCH_BENCH_ITERATIONS` (default 20000) and `AGENTBENCH_BENCH_INSTANCES` (default 10000)
//! to change the sample sizes. Targets (2-core machine): reset < 25 µs, step < 10 µs,
//! fork < 100 µs p50, and at least 2,500 live instances per GiB.

use std::hint::black_box;
use std::time::Instant;

use agentbench_sandbox::{EnvImage, Limits, Sandbox};

mod timing;
use timing::{env_number, report, time};

fn main() {
    let iterations = env_number("AGENTBENCH_BENCH_ITERATIONS", 20_000);
    let n_instances = env_number("AGENTBENCH_BENCH_INSTANCES", 10_000);
    let sandbox = Sandbox::new(Limits {
        max_instances: u32::try_from(n_instances).unwrap() + 16,
        ..Limits::default()
    })
    .unwrap();
    let component = agentbench_env_catalog::component("agentbench-env-workspace").unwrap();
    let started = Instant::now();
    let image = sandbox.load(component).unwrap();
    println!(
        "compile + load the workspace env: {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );

    report(
        "instantiate",
        time(iterations, || {
            black_box(image.instantiate().unwrap());
        }),
    );
    report(
        "instantiate + reset",
        time(iterations, || {
            let mut instance = image.instantiate().unwrap();
            black_box(instance.reset(7, "{}").unwrap().unwrap());
        }),
    );

    let mut instance = image.instantiate().unwrap();
    report(
        "reset a warm instance",
        time(iterations, || {
            black_box(instance.reset(7, "{}").unwrap().unwrap());
        }),
    );
    report(
        "step read_email",
        time(iterations, || {
            black_box(instance.step("read_email", r#"{"id": 3}"#).unwrap());
        }),
    );
    report(
        "step list_files",
        time(iterations, || {
            black_box(instance.step("list_files", r#"{}"#).unwrap());
        }),
    );
    report(
        "facts",
        time(iterations, || {
            black_box(instance.facts().unwrap());
        }),
    );
    report(
        "mask",
        time(iterations, || {
            black_box(instance.mask().unwrap());
        }),
    );
    report(
        "step search_emails (10 results)",
        time(iterations, || {
            black_box(instance.step("search_emails", r#"{"limit": 10}"#).unwrap());
        }),
    );
    report(
        "step with invalid arguments",
        time(iterations, || {
            black_box(instance.step("read_email", r#"{"id": "three"}"#).unwrap());
        }),
    );

    let state = instance.save().unwrap();
    println!("saved state: {} bytes", state.len());
    report(
        "save",
        time(iterations, || {
            black_box(instance.save().unwrap());
        }),
    );
    report(
        "fork (save + instantiate + load)",
        time(iterations, || {
            black_box(instance.fork().unwrap());
        }),
    );

    memory_per_instance(&image, n_instances);
}

fn memory_per_instance(image: &EnvImage, n_instances: usize) {
    let before = resident_bytes();
    let mut live = Vec::with_capacity(n_instances);
    for seed in 0..n_instances as u64 {
        let mut instance = image.instantiate().unwrap();
        instance.reset(seed, "{}").unwrap().unwrap();
        instance.step("read_email", r#"{"id": 1}"#).unwrap();
        live.push(instance);
    }
    let per_instance = (resident_bytes().saturating_sub(before)) as f64 / n_instances as f64;
    println!(
        "memory: {n_instances} live instances (reset + one step each), {:.0} KiB resident each, \
         {:.0} instances per GiB",
        per_instance / 1024.0,
        (1u64 << 30) as f64 / per_instance
    );
    drop(live);
}

fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let resident_pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    resident_pages * 4096
}
