//! Policy evaluation per step for the workspace env's policy set: judging one call and
//! computing the next mask (13 tools), on facts and resources from a real episode (the env run
//! natively through the SDK's `Harness`).
//!
//! Judgements and mask entries are cached by what the policies read, so a server evaluates each
//! combination once; the last row shows a step whose send_email combination is new.
//!
//! Run: `cargo bench -p agentbench-policies`. Prints p50 and p99 per operation;
//! `AGENTBENCH_BENCH_ITERATIONS` (default 20000) sets the sample size. Target: judge + mask
//! under 20 µs per step.

use std::hint::black_box;

use serde_json::json;

use agentbench_env_sdk::Harness;
use agentbench_env_workspace::Workspace;
use agentbench_policies::{EnvPolicies, History, Situation};

#[path = "../../sandbox/benches/timing.rs"]
mod timing;
use timing::{env_number, report, time};

fn main() {
    let iterations = env_number("AGENTBENCH_BENCH_ITERATIONS", 20_000);
    // The env runs natively (the guest crate as plain Rust): policies know no sandbox.
    let mut env = Harness::<Workspace>::new();
    let policies = EnvPolicies::new(&env.manifest(), &[]).unwrap();
    env.reset(7, "{}").unwrap();
    let facts = env.facts();
    let env_mask = env.mask();
    let send = json!({"to": ["priya.shah@northwind.example", "marco@brightline-supplies.example"],
                      "subject": "Prices", "body": "See attached.",
                      "attachments": ["/docs/offsite-agenda.md"]});
    let resources = env.resources("send_email", &send.to_string());
    let read = json!({"path": "/docs/offsite-agenda.md"});

    for (name, history) in [
        ("clean", History::default()),
        (
            "tainted",
            History {
                tainted: true,
                ..History::default()
            },
        ),
    ] {
        let now = Situation {
            facts: &facts,
            history: &history,
        };
        report(
            &format!("judge send_email, 2 recipients ({name})"),
            time(iterations, || {
                black_box(policies.judge("send_email", &send, &resources, now));
            }),
        );
        report(
            &format!("judge read_file ({name})"),
            time(iterations, || {
                black_box(policies.judge("read_file", &read, &[], now));
            }),
        );
        report(
            &format!("mask, 13 tools ({name})"),
            time(iterations, || {
                black_box(policies.mask(&env_mask, now));
            }),
        );
        report(
            &format!("judge send_email + mask ({name})"),
            time(iterations, || {
                black_box(policies.judge("send_email", &send, &resources, now));
                black_box(policies.mask(&env_mask, now));
            }),
        );
    }

    // Every iteration a send count never seen: the send_email judgement and mask entry miss the
    // cache and go through Cedar (the other tools' entries still hit).
    let mut sent = 0;
    report(
        "judge send_email + mask (uncached)",
        time(iterations, || {
            sent += 1;
            let history = History {
                calls: [("send_email".to_owned(), sent)].into(),
                ..History::default()
            };
            let now = Situation {
                facts: &facts,
                history: &history,
            };
            black_box(policies.judge("send_email", &send, &resources, now));
            black_box(policies.mask(&env_mask, now));
        }),
    );
}
