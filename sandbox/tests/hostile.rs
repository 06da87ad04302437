//! Hostile guests: each misbehaviour ends in its own typed error, in bounded time, for the
//! misbehaving instance only.

use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use agentbench_sandbox::{CallError, EnvImage, Limits, LoadError, Sandbox};

/// Generous: the limits below stop every hostile call in well under a second; this only keeps a
/// broken limit from hanging the suite.
const BOUND: Duration = Duration::from_secs(20);

fn limits() -> Limits {
    Limits {
        fuel_per_call: 50_000_000,
        wall_clock_per_call: Duration::from_secs(5),
        max_memory_bytes: 32 << 20,
        max_output_bytes: 1 << 20,
        max_stack_bytes: 256 << 10,
        max_instances: 64,
    }
}

fn hostile() -> &'static EnvImage {
    static IMAGE: OnceLock<EnvImage> = OnceLock::new();
    IMAGE.get_or_init(|| load(limits()))
}

fn load(limits: Limits) -> EnvImage {
    Sandbox::new(limits)
        .unwrap()
        .load(agentbench_env_fixtures::hostile())
        .unwrap()
}

/// Resets a fresh hostile instance, runs `tool` on it and returns the error, checking on the way
/// that it came in bounded time, poisoned the instance, and left a healthy instance beside it
/// stepping normally throughout.
fn misbehave(image: &EnvImage, tool: &str) -> CallError {
    let healthy_image = hostile().clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let healthy = {
        let stop = stop.clone();
        thread::spawn(move || {
            let mut healthy = healthy_image.instantiate().unwrap();
            healthy.reset(1, "{}").unwrap().unwrap();
            let mut calls = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) || calls < 3 {
                let output = healthy.step("echo", "{}").unwrap();
                calls += 1;
                assert_eq!(
                    output.observation.as_str(),
                    format!(r#"{{"calls":{calls}}}"#)
                );
            }
            calls
        })
    };
    let mut instance = image.instantiate().unwrap();
    instance.reset(1, "{}").unwrap().unwrap();
    let started = Instant::now();
    let error = instance.step(tool, r#"{"bytes": 104857600}"#).unwrap_err();
    assert!(
        started.elapsed() < BOUND,
        "{tool} took {:?}",
        started.elapsed()
    );
    assert!(instance.is_poisoned());
    assert_eq!(
        instance.step("echo", "{}").unwrap_err(),
        CallError::Poisoned { export: "step" }
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(healthy.join().unwrap() >= 3);
    error
}

#[test]
fn infinite_loop_runs_out_of_fuel() {
    let error = misbehave(hostile(), "spin");
    assert_eq!(
        error,
        CallError::OutOfFuel {
            export: "step",
            fuel: 50_000_000
        }
    );
}

#[test]
fn infinite_loop_without_a_fuel_limit_times_out_on_the_wall_clock() {
    let image = load(Limits {
        fuel_per_call: u64::MAX,
        wall_clock_per_call: Duration::from_millis(100),
        ..limits()
    });
    let started = Instant::now();
    let error = misbehave(&image, "spin");
    assert_eq!(
        error,
        CallError::Timeout {
            export: "step",
            limit: Duration::from_millis(100)
        }
    );
    assert!(started.elapsed() >= Duration::from_millis(100));
}

#[test]
fn memory_growth_bomb_hits_the_memory_limit() {
    let error = misbehave(hostile(), "grow_memory");
    assert_eq!(
        error,
        CallError::MemoryLimit {
            export: "step",
            limit: 32 << 20
        }
    );
}

#[test]
fn deep_recursion_overflows_the_stack() {
    let error = misbehave(hostile(), "recurse");
    assert_eq!(error, CallError::StackOverflow { export: "step" });
}

/// Runs `tool` through `misbehave` and checks that it trapped in `step` with a message naming
/// `cause`.
fn traps_in_step(tool: &str, cause: &str) {
    let error = misbehave(hostile(), tool);
    assert!(
        matches!(&error, CallError::Trap { export: "step", message } if message.contains(cause)),
        "{error:?}"
    );
}

#[test]
fn trap_in_step_is_a_trap() {
    traps_in_step("trap", "unreachable");
}

#[test]
fn reading_past_the_memory_is_a_trap() {
    // Memories are not bounds-checked in code: the read faults in the inaccessible pages of the
    // memory's 4 GiB reservation, and the fault must come back as this call's trap, not bring
    // the process down.
    traps_in_step("read_out_of_bounds", "out of bounds");
}

#[test]
fn trap_in_reset_is_a_trap_and_poisons_the_instance() {
    let mut instance = hostile().instantiate().unwrap();
    let error = instance.reset(1, r#"{"trap_in_reset": true}"#).unwrap_err();
    assert!(
        matches!(
            error,
            CallError::Trap {
                export: "reset",
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        instance.facts().unwrap_err(),
        CallError::Poisoned { export: "facts" }
    );
}

#[test]
fn loop_in_reset_runs_out_of_fuel() {
    let mut instance = hostile().instantiate().unwrap();
    let error = instance.reset(1, r#"{"spin_in_reset": true}"#).unwrap_err();
    assert_eq!(
        error,
        CallError::OutOfFuel {
            export: "reset",
            fuel: 50_000_000
        }
    );
}

#[test]
fn hundred_megabyte_output_is_refused() {
    // With room in memory for it, the output limit refuses it ...
    let roomy = load(Limits {
        max_memory_bytes: 256 << 20,
        fuel_per_call: 10_000_000_000,
        ..limits()
    });
    let error = misbehave(&roomy, "huge_output");
    assert_eq!(
        error,
        CallError::OutputTooLarge {
            export: "step",
            bytes: (100 << 20) + 2,
            limit: 1 << 20
        }
    );
    // ... and without, the memory limit stops it before it is built.
    let error = misbehave(hostile(), "huge_output");
    assert_eq!(
        error,
        CallError::MemoryLimit {
            export: "step",
            limit: 32 << 20
        }
    );
}

#[test]
fn output_that_is_not_json_is_bad_output() {
    let error = misbehave(hostile(), "bad_json");
    assert!(
        matches!(&error, CallError::BadOutput { export: "step", reason } if reason.starts_with("not JSON")),
        "{error:?}"
    );
}

#[test]
fn json_whose_numbers_no_f64_holds_is_bad_output() {
    let error = misbehave(hostile(), "unreadable_number");
    assert!(
        matches!(&error, CallError::BadOutput { export: "step", reason } if reason.contains("number out of range")),
        "{error:?}"
    );
}

#[test]
fn many_failures_leave_the_pool_usable() {
    // Every instance above returned its pool slot when dropped; so do a pool's worth more.
    for _ in 0..2 * limits().max_instances {
        let mut instance = hostile().instantiate().unwrap();
        instance.reset(1, "{}").unwrap().unwrap();
        instance.step("trap", "{}").unwrap_err();
    }
    let mut instance = hostile().instantiate().unwrap();
    instance.reset(1, "{}").unwrap().unwrap();
    instance.step("echo", "{}").unwrap();
}

#[test]
fn bytes_that_are_not_a_component_are_refused() {
    let sandbox = Sandbox::new(limits()).unwrap();
    let error = sandbox.load(b"not wasm at all").unwrap_err();
    assert!(matches!(error, LoadError::Compile(_)), "{error}");
    // A core module is not a component either.
    let error = sandbox.load(b"\0asm\x01\0\0\0").unwrap_err();
    assert!(matches!(error, LoadError::Compile(_)), "{error}");
}
