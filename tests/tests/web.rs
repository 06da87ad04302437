//! The leaderboard: its read-only API over HTTP, and the page in a real browser (Debian's
//! Chromium driven by playwright-core, `web/tests/leaderboard.mjs`), against `agentbench serve`
//! on a database filled by real runs of the scripted baselines, and the Training tab on one
//! holding a short `agentbench train` run of the `tiny` model.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{Value, json};

use agentbench_tests::{
    Db, SHORT_TRAINING, Server, agentbench_binary, agentbench_succeeds, assert_fits, python_venv,
};

/// The baselines that fill the database, with their extra `agentbench run` flags.
const BASELINES: [(&str, &[&str]); 6] = [
    ("oracle", &[]),
    ("cautious", &[]),
    ("random", &[]),
    ("reckless", &["--mode", "audit"]),
    ("silent", &[]),
    ("refuser", &[]),
];

/// A partial run, made last: a sample of the oracle's, which must not replace its complete run.
const SAMPLE: (&str, &str, &[&str]) = ("oracle-sample", "oracle", &["--limit", "12"]);

/// A SQLite database with one finished run of each baseline on the safety suite, the sample
/// run, and two measurements of the rule scorer (`prm eval`, `prm best-of-n`), made once per test
/// binary under the target's temporary folder; the run ids by name.
struct Filled {
    db: Db,
    runs: BTreeMap<&'static str, String>,
}

fn filled() -> &'static Filled {
    static FILLED: OnceLock<Filled> = OnceLock::new();
    FILLED.get_or_init(|| {
        let dir = work_dir("runs");
        let db = Db::sqlite_in(&dir);
        let runs = BASELINES
            .iter()
            .map(|(agent, extra)| (*agent, *agent, *extra))
            .chain([SAMPLE])
            .map(|(name, agent, extra)| {
                let out = dir.join(name);
                let output = Command::new(agentbench_binary())
                    .args([
                        "run", "--suite", "safety", "--agent", agent, "--gate", "default",
                    ])
                    .args(["--db", &db.url(), "--out", out.to_str().unwrap()])
                    .args(extra)
                    .output()
                    .unwrap();
                // The gate passes (0), fails (1) or, on the small sample, is inconclusive (3);
                // an error (2) is not expected.
                assert!(
                    matches!(output.status.code(), Some(0 | 1 | 3)),
                    "{agent}: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
                let report: Value = serde_json::from_str(
                    &std::fs::read_to_string(out.join("report.json")).unwrap(),
                )
                .unwrap();
                (name, report["run"]["id"].as_str().unwrap().to_owned())
            })
            .collect();
        // The PRMs tab's: the rule scorer measured against exact labels, and as the ranker of
        // Best-of-4 for `wavering`.
        let url = db.url();
        for command in [
            &["eval", "--scorer", "rules"][..],
            &["best-of-n", "--agent", "wavering", "--scorer", "rules"],
        ] {
            let args = [&["prm"][..], command, &["--db", &url, "safety"]];
            agentbench_succeeds(args.concat());
        }
        Filled { db, runs }
    })
}

/// A SQLite database holding one short `agentbench train` run of the `tiny` model (its
/// held-out evaluations), made once per test binary.
fn trained() -> &'static Db {
    static TRAINED: OnceLock<Db> = OnceLock::new();
    TRAINED.get_or_init(|| {
        let dir = work_dir("training");
        let db = Db::sqlite_in(&dir);
        let python = python_venv("trainer/setup.sh").join("bin/python");
        let out = dir.join("out");
        let extra = [
            "--updates",
            "2",
            "--eval-limit",
            "4",
            "--max-tokens",
            "8",
            "--python",
            python.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--db",
            &db.url(),
        ];
        agentbench_succeeds(SHORT_TRAINING.iter().chain(&extra));
        db
    })
}

/// A fresh folder of this test binary's under the target directory (emptied first).
fn work_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("web")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_leaderboard_ranks_the_baselines_by_rank_ub_on_safe_completion() {
    let filled = filled();
    let server = Server::start(&filled.db, &[]);
    let board = server.get("/v1/leaderboard?suite=safety");
    assert_eq!(board.status, 200, "{}", board.body);
    let board = board.body;
    assert_eq!(board["ranked_by"], "safe_completion");
    let rows = board["rows"].as_array().unwrap();
    assert_eq!(rows.len(), BASELINES.len());
    let row = |agent: &str| rows.iter().find(|row| row["agent"] == agent).unwrap();
    let rank = |agent: &str| row(agent)["rank"].as_u64().unwrap();
    assert_eq!(rank("oracle"), 1);
    for worse in ["reckless", "random", "silent", "refuser"] {
        for better in ["oracle", "cautious"] {
            assert!(rank(worse) > rank(better), "{worse} ranks below {better}");
        }
    }
    // Doing nothing is not safety: an empty reply on an attack is not counted safe.
    let safety = |agent: &str| {
        row(agent)["metrics"]["safety_score"]["value"]
            .as_f64()
            .unwrap()
    };
    assert!(safety("silent") < 0.5, "{}", safety("silent"));
    assert_eq!(safety("refuser"), 1.0, "refusing harms no one");
    // The oracle's complete run stands for it, not the later sample.
    assert_eq!(row("oracle")["run"], filled.runs["oracle"]);
    assert_eq!(row("oracle")["partial"], Value::Null);
    assert_eq!(row("oracle")["runs"], 2);
    assert_eq!(row("oracle")["metrics"]["harm_rate"]["value"], 0.0);
    assert!(
        row("reckless")["metrics"]["harm_rate"]["value"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    // Rank(UB): 1 + the rows whose lower bound is above this row's upper bound.
    for row in rows {
        let headline = &row["metrics"]["safe_completion"];
        let better = rows
            .iter()
            .filter(|other| {
                other["metrics"]["safe_completion"]["low"].as_f64() > headline["high"].as_f64()
            })
            .count();
        assert_eq!(row["rank"], json!(1 + better), "{}", row["agent"]);
        assert_eq!(row["run"], filled.runs[row["agent"].as_str().unwrap()]);
    }
    assert!(
        board["categories"]
            .as_array()
            .unwrap()
            .contains(&json!("prompt_injection"))
    );

    let injection = server.get("/v1/leaderboard?suite=safety&category=prompt_injection");
    assert_eq!(injection.status, 200);
    let injection = &injection.body["rows"];
    let attack_success = |agent: &str| {
        injection
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["agent"] == agent)
            .unwrap()["metrics"]["attack_success_rate"]["value"]
            .clone()
    };
    assert_eq!(attack_success("reckless"), 1.0);
    assert_eq!(attack_success("oracle"), 0.0);

    let filtered = server.get("/v1/leaderboard?agent=ORAC");
    assert_eq!(filtered.body["rows"].as_array().unwrap().len(), 1);
    assert_eq!(
        server.get("/v1/leaderboard?suite=safety@9.9.9").body["rows"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let document = server.get("/openapi.json").body;
    assert_fits(&document, "Leaderboard", &board);
    let unknown = server.get("/v1/leaderboard?color=red");
    assert_eq!(unknown.status, 400);
    assert_eq!(unknown.code(), "invalid_query");
}

#[test]
fn runs_run_details_and_comparisons_are_served() {
    let filled = filled();
    let server = Server::start(&filled.db, &[]);
    let document = server.get("/openapi.json").body;
    let runs = server.get("/v1/runs");
    assert_eq!(runs.status, 200);
    assert_fits(&document, "RunList", &runs.body);
    let listed = runs.body["runs"].as_array().unwrap();
    assert_eq!(listed.len(), BASELINES.len() + 1);
    let sample = listed
        .iter()
        .find(|run| run["id"] == filled.runs["oracle-sample"])
        .unwrap();
    assert!(
        sample["partial"]
            .as_str()
            .unwrap()
            .starts_with("a sample of 12 of the suite's"),
        "{sample}"
    );
    let oracle = listed
        .iter()
        .find(|run| run["id"] == filled.runs["oracle"])
        .unwrap();
    assert_eq!(oracle["partial"], Value::Null);

    let reckless = server.get(&format!("/v1/runs/{}", filled.runs["reckless"]));
    assert_eq!(reckless.status, 200, "{}", reckless.body);
    let reckless = reckless.body;
    assert_fits(&document, "RunDetail", &reckless);
    assert_eq!(reckless["run"]["agent"], "reckless");
    assert_eq!(reckless["info"]["mode"], "audit");
    assert_eq!(reckless["settings"]["mode"], "audit");
    assert_eq!(reckless["gate"]["passed"], false);
    let episodes = reckless["episodes"].as_array().unwrap();
    assert_eq!(json!(episodes.len()), reckless["run"]["episodes"]);
    // Every episode's trajectory is on the same server.
    let first = episodes[0]["episode"].as_str().unwrap();
    let trajectory = server.episode(first);
    assert_eq!(
        trajectory["steps"].as_array().unwrap().len(),
        episodes[0]["steps"].as_u64().unwrap() as usize
    );

    let comparison = server.get(&format!(
        "/v1/runs/{}/compare/{}",
        filled.runs["oracle"], filled.runs["reckless"]
    ));
    assert_eq!(comparison.status, 200, "{}", comparison.body);
    assert_fits(&document, "RunComparison", &comparison.body);
    assert_eq!(comparison.body["same_suite"], true);
    let groups = comparison.body["categories"].as_array().unwrap();
    assert_eq!(groups[0]["category"], Value::Null, "overall first");
    let harm = groups[0]["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|difference| difference["metric"] == "harm_rate")
        .unwrap();
    assert!(harm["difference"].as_f64().unwrap() < 0.0, "{harm}");
    assert!(harm["high"].as_f64().unwrap() < 0.0, "beyond noise: {harm}");
    assert!(
        groups
            .iter()
            .any(|group| group["category"] == "prompt_injection")
    );

    let missing = server.get("/v1/runs/run_nope");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.code(), "not_found");
    let missing = server.get(&format!(
        "/v1/runs/{}/compare/run_nope",
        filled.runs["oracle"]
    ));
    assert_eq!(missing.status, 404);
}

#[test]
fn measurements_of_step_scorers_are_recorded_and_served_on_both_stores() {
    let filled = filled();
    for db in [Db::sqlite(), Db::postgres()] {
        let printed: Value = serde_json::from_str(&agentbench_succeeds([
            "prm",
            "best-of-n",
            "--agent",
            "random",
            "--n",
            "2",
            "--json",
            "--db",
            &db.url(),
            "safety",
        ]))
        .unwrap();
        let server = Server::start(&db, &[]);
        let results = server.get("/v1/prm-results");
        assert_eq!(results.status, 200, "{}", results.body);
        assert_fits(
            &server.get("/openapi.json").body,
            "PrmResults",
            &results.body,
        );
        // Newest first: the one just recorded, exactly as the command printed it.
        assert_eq!(results.body["best_of_n"][0]["report"], printed);
        assert!(
            results.body["best_of_n"][0]["id"]
                .as_str()
                .unwrap()
                .starts_with("prm_")
        );
    }
    let evals = Server::start(&filled.db, &[]).get("/v1/prm-results").body["evals"].clone();
    assert_eq!(evals.as_array().unwrap().len(), 1, "{evals}");
    assert_eq!(evals[0]["report"]["scorer"], "rules");
    assert_eq!(evals[0]["report"]["set"], "baselines");
}

#[test]
fn the_page_is_served_from_the_binary_with_a_strict_content_policy() {
    let db = Db::sqlite();
    let server = Server::start(&db, &[]);
    let page = server.get("/");
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(page.text.contains("/assets/app.js"));
    assert!(
        page.header("content-security-policy")
            .unwrap()
            .starts_with("default-src 'self'")
    );
    let script = server.get("/assets/app.js");
    assert_eq!(script.status, 200);
    assert_eq!(
        script.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(server.get("/assets/app.css").status, 200);
    assert_eq!(server.get("/assets/nope.js").status, 404);
    // An empty database has an empty leaderboard, not an error.
    let board = server.get("/v1/leaderboard");
    assert_eq!(board.status, 200);
    assert_eq!(board.body["rows"], json!([]));
}

#[test]
fn the_page_works_in_chromium() {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/tests");
    let setup = Command::new("bash")
        .arg(web.join("setup.sh"))
        .output()
        .unwrap();
    assert!(
        setup.status.success(),
        "web/tests/setup.sh could not install Chromium and playwright-core:\n{}{}",
        String::from_utf8_lossy(&setup.stdout),
        String::from_utf8_lossy(&setup.stderr)
    );
    let filled = filled();
    let server = Server::start(&filled.db, &[]);
    let training = Server::start(trained(), &[]);
    let shots = work_dir("screenshots");
    let output = Command::new("node")
        .arg(web.join("leaderboard.mjs"))
        .arg(format!("http://{}", server.addr))
        .arg(&shots)
        .arg(serde_json::to_string(&filled.runs).unwrap())
        .arg(format!("http://{}", training.addr))
        .current_dir(&web)
        .output()
        .unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{report}");
    println!("{report}screenshots in {}", shots.display());
    for shot in [
        "leaderboard.png",
        "run.png",
        "episode.png",
        "compare.png",
        "training.png",
    ] {
        assert!(shots.join(shot).is_file(), "no {shot}");
    }
}
