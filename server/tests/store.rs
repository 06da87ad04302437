//! The store on its own: the migrations of recorded steps (the request-id index, compressed
//! records) on a database recorded before them and concurrent writes with a bad one among them,
//! on SQLite and PostgreSQL, and SQLite's WAL under sustained writes.

// The end-to-end tests' support library (tests/src/lib.rs), one copy for both crates' tests;
// this file uses only part of it.
#[allow(dead_code)]
#[path = "../../tests/src/lib.rs"]
mod support;

use agentbench_env_runtime::Mode;
use agentbench_server::store::{DbSync, EpisodeRow, EpisodeState, StepRow, Store, StoreError};
use support::Db;

fn episode(id: &str) -> EpisodeRow {
    EpisodeRow {
        id: id.into(),
        env: "workspace".to_owned(),
        env_version: "1".to_owned(),
        env_hash: "hash".to_owned(),
        seed: 7,
        task: "{}".to_owned(),
        observation: "{}".to_owned(),
        forked_from: None,
        state: EpisodeState::Open,
        outcome: None,
        created_ms: 0,
        mode: Mode::Enforce,
        tenant: "default".to_owned(),
        run_id: None,
    }
}

/// Lays down the schema as the first three migrations left it, with one episode of three steps
/// (the second has a request id) recorded as text, as an earlier agentbench would have.
fn recorded_before_the_request_index(db: &Db) {
    if let Db::Sqlite { dir } = db {
        std::fs::File::create(dir.path().join("test.db")).unwrap();
    }
    db.execute(concat!(
        include_str!("../migrations/0001_episodes.sql"),
        include_str!("../migrations/0002_policy_mode.sql"),
        include_str!("../migrations/0003_runs.sql"),
    ));
    db.execute(
        "CREATE TABLE agentbench_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, \
         applied_ms BIGINT NOT NULL); \
         INSERT INTO agentbench_migrations VALUES (1, 'episodes', 0), (2, 'policy mode', 0), \
         (3, 'runs', 0); \
         INSERT INTO episodes (id, env, env_version, env_hash, seed, task, observation, state, \
         created_ms) VALUES ('e1', 'workspace', '1', 'hash', 7, '{}', '{}', 'open', 0); \
         INSERT INTO steps (episode_id, idx, request_id, record) VALUES \
         ('e1', 0, NULL, '{\"index\":0}'), ('e1', 1, 'r-1', '{\"index\":1}'), \
         ('e1', 2, NULL, '{\"index\":2}');",
    );
}

async fn steps_survive_the_migrations(db: Db) {
    recorded_before_the_request_index(&db);
    let store = Store::open(&db.url(), DbSync::Normal).await.unwrap();
    let steps = store.steps(&"e1".into()).await.unwrap();
    let recorded: Vec<(u32, Option<&str>, &str)> = steps
        .iter()
        .map(|step| (step.index, step.request_id.as_deref(), step.record.as_str()))
        .collect();
    assert_eq!(
        recorded,
        [
            (0, None, r#"{"index":0}"#),
            (1, Some("r-1"), r#"{"index":1}"#),
            (2, None, r#"{"index":2}"#),
        ]
    );
    let by_request = store
        .step_by_request(&"e1".into(), "r-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_request.index, 1);

    // Steps without a request id stay apart, and a request id stays unique per episode.
    let step = |index, request_id: Option<&str>| StepRow {
        index,
        request_id: request_id.map(str::to_owned),
        record: format!(r#"{{"index":{index}}}"#),
    };
    store
        .append_step(&"e1".into(), step(3, None), None, None)
        .await
        .unwrap();
    store
        .append_step(&"e1".into(), step(4, Some("r-2")), None, None)
        .await
        .unwrap();
    let duplicate = store
        .append_step(&"e1".into(), step(5, Some("r-1")), None, None)
        .await;
    assert!(duplicate.is_err(), "a request id was recorded twice");
    let steps = store.steps(&"e1".into()).await.unwrap();
    let indexes: Vec<u32> = steps.iter().map(|step| step.index).collect();
    assert_eq!(indexes, [0, 1, 2, 3, 4]);
    assert_eq!(steps[4].record, r#"{"index":4}"#);

    // The old steps keep their text; the new ones are stored compressed, and only so.
    let count =
        |condition: &str| db.number(&format!("SELECT count(*) FROM steps WHERE {condition}"));
    assert_eq!(count("record IS NOT NULL AND record_lz4 IS NULL"), 3);
    assert_eq!(count("record IS NULL AND record_lz4 IS NOT NULL"), 2);

    // A fork copies steps of both kinds as they are.
    let mut fork = episode("e2");
    fork.forked_from = Some(("e1".into(), 5));
    store
        .create_episode(fork, Some("e1".into()), None)
        .await
        .unwrap();
    let copied: Vec<String> = store
        .steps(&"e2".into())
        .await
        .unwrap()
        .into_iter()
        .map(|step| step.record)
        .collect();
    let original: Vec<String> = steps.into_iter().map(|step| step.record).collect();
    assert_eq!(copied, original);
}

#[tokio::test]
async fn steps_survive_the_migrations_on_sqlite() {
    steps_survive_the_migrations(Db::sqlite()).await;
}

#[tokio::test]
async fn steps_survive_the_migrations_on_postgres() {
    steps_survive_the_migrations(Db::postgres()).await;
}

/// Concurrent writes commit in groups; one that breaks a constraint (a step index recorded
/// twice) fails alone, and every other is recorded once.
async fn a_bad_write_among_concurrent_ones_fails_alone(db: Db) {
    const STEPS: u32 = 300;
    let store = Store::open(&db.url(), DbSync::Normal).await.unwrap();
    store
        .create_episode(episode("e"), None, None)
        .await
        .unwrap();
    let mut writes = tokio::task::JoinSet::new();
    // Step 150 is written twice.
    for index in (0..STEPS).chain([150]) {
        let store = store.clone();
        writes.spawn(async move {
            let step = StepRow {
                index,
                request_id: None,
                record: format!(r#"{{"index":{index}}}"#),
            };
            store
                .append_step(&"e".into(), step, None, None)
                .await
                .is_ok()
        });
    }
    let mut failed = 0;
    while let Some(recorded) = writes.join_next().await {
        failed += usize::from(!recorded.unwrap());
    }
    assert_eq!(failed, 1);
    let steps = store.steps(&"e".into()).await.unwrap();
    let indexes: Vec<u32> = steps.iter().map(|step| step.index).collect();
    assert_eq!(indexes, (0..STEPS).collect::<Vec<_>>());
    assert!(
        steps
            .iter()
            .all(|step| step.record == format!(r#"{{"index":{}}}"#, step.index))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_write_among_concurrent_ones_fails_alone_on_sqlite() {
    a_bad_write_among_concurrent_ones_fails_alone(Db::sqlite()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_write_among_concurrent_ones_fails_alone_on_postgres() {
    a_bad_write_among_concurrent_ones_fails_alone(Db::postgres()).await;
}

/// The writer's connection and the readers' would each see a database of their own.
#[tokio::test]
async fn an_in_memory_sqlite_database_is_refused() {
    for url in ["sqlite::memory:", "sqlite://store.db?mode=memory"] {
        let error = Store::open(url, DbSync::Normal).await.unwrap_err();
        assert!(matches!(error, StoreError::InMemory), "{url}: {error}");
    }
}

/// SQLite's WAL only starts over when a write finds all of it copied into the database, which
/// never happens by itself while commits keep landing during every checkpoint. Without the
/// writer's restarts it would hold every page written here (over 100 MiB); with them it stays
/// near its restart point (32 MiB) and is cut back to 64 MiB when it starts over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sqlite_wal_stays_bounded_under_sustained_writes() {
    const CLIENTS: usize = 64;
    const STEPS_EACH: u32 = 250;
    let db = Db::sqlite();
    let store = Store::open(&db.url(), DbSync::Normal).await.unwrap();
    // About a page per record, and one more per step in the primary key's index. Records are
    // stored compressed, so this one is random hex: LZ4 cannot shrink it.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let noise: String = (0..3_000)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            char::from_digit(u32::try_from(state >> 60).unwrap(), 16).unwrap()
        })
        .collect();
    let record = format!(r#"{{"observation":"{noise}"}}"#);
    let mut clients = tokio::task::JoinSet::new();
    for client in 0..CLIENTS {
        let store = store.clone();
        let record = record.clone();
        clients.spawn(async move {
            let id = format!("episode-{client}");
            store
                .create_episode(episode(&id), None, None)
                .await
                .unwrap();
            let id = id.into();
            for index in 0..STEPS_EACH {
                let step = StepRow {
                    index,
                    request_id: None,
                    record: record.clone(),
                };
                store.append_step(&id, step, None, None).await.unwrap();
            }
        });
    }
    while let Some(done) = clients.join_next().await {
        done.unwrap();
    }
    let Db::Sqlite { dir } = &db else {
        unreachable!()
    };
    let wal = std::fs::metadata(dir.path().join("test.db-wal"))
        .map(|metadata| metadata.len())
        .unwrap_or(0);
    let written = u64::from(STEPS_EACH) * CLIENTS as u64 * 2 * 4096;
    assert!(
        wal < 80 << 20,
        "the WAL grew to {wal} bytes; {written} bytes of pages were written"
    );
    assert_eq!(
        store.steps(&"episode-0".into()).await.unwrap().len(),
        STEPS_EACH as usize
    );
}
