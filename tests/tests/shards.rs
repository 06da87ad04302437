//! A suite run split into shards played into one run on a shared PostgreSQL database (the
//! machine's): the shards run in any order, one run again plays nothing more, the run cannot be
//! judged before every shard has played, and the shard that finds every pair recorded judges it
//! with the same metrics and verdict as one unsharded run of the same sample. Shards that play
//! on one `agentbench serve` (`--server`) share its record instead, with no database of their
//! own.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use agentbench_tests::{Db, Server, agentbench_output, agentbench_refuses, explain};

/// `agentbench run` of a 12-scenario sample, twice each, by `reckless` (which does harm, so the
/// gate has something to judge), into `db`, writing its files to `out`.
fn run(db: &Db, out: &Path, extra: &[&str]) -> Output {
    let (db, out) = (db.url(), out.to_str().unwrap().to_owned());
    let mut args = vec![
        "run", "--suite", "safety", "--agent", "reckless", "--limit", "12", "--trials", "2",
        "--gate", "default", "--db", &db, "--out", &out,
    ];
    args.extend_from_slice(extra);
    agentbench_output(&args)
}

fn report(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

#[test]
fn a_run_split_in_three_shards_is_judged_as_one_run() {
    let db = Db::postgres();
    let dir = tempfile::tempdir().unwrap();
    let whole = run(&db, &dir.path().join("whole"), &[]);
    let whole_code = whole.status.code();
    assert!(matches!(whole_code, Some(0 | 1)), "{}", explain(&whole));
    let whole = report(&dir.path().join("whole"));

    let shard = |index: &str| {
        let out = dir.path().join(format!("shard-{}", &index[..1]));
        let output = run(&db, &out, &["--run-id", "nightly-7", "--shard", index]);
        (output, out)
    };
    let recorded = || db.number("SELECT count(*) FROM run_episodes WHERE run_id = 'nightly-7'");
    // Out of order; neither judges the run.
    for index in ["2/3", "0/3"] {
        let (output, out) = shard(index);
        assert_eq!(output.status.code(), Some(0), "{}", explain(&output));
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(
            said.contains(&format!("shard {index} of run nightly-7")),
            "{said}"
        );
        assert!(!out.join("report.json").exists());
    }
    let before = recorded();
    assert!(before > 0 && before < 24, "{before} of 24 recorded");

    // Judging it now is refused, naming what is missing.
    let early = run(&db, &dir.path().join("early"), &["--finish", "nightly-7"]);
    assert_eq!(early.status.code(), Some(2), "{}", explain(&early));
    assert!(String::from_utf8_lossy(&early.stderr).contains("cannot be judged"));

    // A shard run again (as after it died) plays nothing it recorded.
    let (again, _) = shard("0/3");
    assert_eq!(again.status.code(), Some(0), "{}", explain(&again));
    assert_eq!(recorded(), before);

    // The last shard judges the run: the metrics and verdict of the unsharded run.
    let (last, out) = shard("1/3");
    assert_eq!(last.status.code(), whole_code, "{}", explain(&last));
    assert_eq!(recorded(), 24);
    let sharded = report(&out);
    assert_eq!(sharded["run"]["id"], "nightly-7");
    assert_eq!(sharded["metrics"], whole["metrics"]);
    assert_eq!(sharded["gate"], whole["gate"]);
    assert_eq!(sharded["verdict"], whole["verdict"]);

    // `--finish` judges it again, the same.
    let finished = run(&db, &dir.path().join("finish"), &["--finish", "nightly-7"]);
    assert_eq!(finished.status.code(), whole_code, "{}", explain(&finished));
    assert_eq!(
        report(&dir.path().join("finish"))["metrics"],
        whole["metrics"]
    );
}

/// Shards on machines that share only the server they play on: the run is recorded there, the
/// last shard judges it, and the server keeps the verdict.
#[test]
fn shards_playing_on_one_server_record_one_run_there() {
    let served = Db::sqlite();
    let server = Server::start(&served, &[]);
    let url = format!("http://{}", server.addr);
    let dir = tempfile::tempdir().unwrap();
    let shard = |index: &str| {
        let out = dir.path().join(index.replace('/', "-"));
        let output = agentbench_output([
            "run",
            "--suite",
            "safety",
            "--agent",
            "reckless",
            "--limit",
            "6",
            "--gate",
            "default",
            "--server",
            &url,
            "--run-id",
            "nightly-8",
            "--shard",
            index,
            "--out",
            out.to_str().unwrap(),
        ]);
        (output, out)
    };
    let (first, _) = shard("1/2");
    assert_eq!(first.status.code(), Some(0), "{}", explain(&first));
    let running = server.get("/v1/runs/nightly-8");
    assert_eq!(running.body["run"]["state"], "running", "{}", running.text);
    let (last, out) = shard("0/2");
    assert!(
        matches!(last.status.code(), Some(0 | 1 | 3)),
        "{}",
        explain(&last)
    );
    let report = report(&out);
    let run = server.get("/v1/runs/nightly-8");
    assert_eq!(run.body["run"]["state"], "done");
    assert_eq!(run.body["episodes"].as_array().unwrap().len(), 6);
    assert_eq!(run.body["metrics"], report["metrics"]);
    assert_eq!(run.body["run"]["gate"], report["verdict"]);
    assert_eq!(served.number("SELECT COUNT(*) FROM run_episodes"), 6);
}

#[test]
fn shard_arguments_are_checked() {
    for (args, expected) in [
        (&["--shard", "3/3", "--run-id", "r"][..], "not a shard"),
        (&["--shard", "1/3"][..], "--run-id"),
        (&["--run-id", "no spaces"][..], "not a run id"),
    ] {
        let mut all = vec!["run", "--agent", "oracle"];
        all.extend_from_slice(args);
        agentbench_refuses(&all, expected);
    }
}
