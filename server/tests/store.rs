//! The store on its own: the request-id index migration (on a database recorded before it, on
//! SQLite and PostgreSQL) and SQLite's WAL under sustained writes.

mod support;

use agentbench_env_runtime::Mode;
use agentbench_server::store::{DbSync, EpisodeRow, EpisodeState, StepRow, Store};
use support::Db;

fn episode(id: &str) -> EpisodeRow {
    EpisodeRow {
        id: id.to_owned(),
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
    }
}

/// Lays down the schema as the first three migrations left it, with one episode of three steps
/// (the second has a request id), as a database recorded by an earlier agentbench would be.
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

async fn steps_survive_the_request_index_migration(db: Db) {
    recorded_before_the_request_index(&db);
    let store = Store::open(&db.url(), DbSync::Normal).await.unwrap();
    let steps = store.steps("e1").await.unwrap();
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
    let by_request = store.step_by_request("e1", "r-1").await.unwrap().unwrap();
    assert_eq!(by_request.index, 1);

    // Steps without a request id stay apart, and a request id stays unique per episode.
    let step = |index, request_id: Option<&str>| StepRow {
        index,
        request_id: request_id.map(str::to_owned),
        record: format!(r#"{{"index":{index}}}"#),
    };
    store.append_step("e1", step(3, None), None).await.unwrap();
    store
        .append_step("e1", step(4, Some("r-2")), None)
        .await
        .unwrap();
    let duplicate = store.append_step("e1", step(5, Some("r-1")), None).await;
    assert!(duplicate.is_err(), "a request id was recorded twice");
    let indexes: Vec<u32> = store
        .steps("e1")
        .await
        .unwrap()
        .iter()
        .map(|step| step.index)
        .collect();
    assert_eq!(indexes, [0, 1, 2, 3, 4]);
}

#[tokio::test]
async fn steps_survive_the_request_index_migration_on_sqlite() {
    steps_survive_the_request_index_migration(Db::sqlite()).await;
}

#[tokio::test]
async fn steps_survive_the_request_index_migration_on_postgres() {
    steps_survive_the_request_index_migration(Db::postgres()).await;
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
    // About a page per record, and one more per step in the primary key's index.
    let record = format!(r#"{{"observation":"{}"}}"#, "x".repeat(3_000));
    let mut clients = tokio::task::JoinSet::new();
    for client in 0..CLIENTS {
        let store = store.clone();
        let record = record.clone();
        clients.spawn(async move {
            let id = format!("episode-{client}");
            store.create_episode(episode(&id), None).await.unwrap();
            for index in 0..STEPS_EACH {
                let step = StepRow {
                    index,
                    request_id: None,
                    record: record.clone(),
                };
                store.append_step(&id, step, None).await.unwrap();
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
        store.steps("episode-0").await.unwrap().len(),
        STEPS_EACH as usize
    );
}
