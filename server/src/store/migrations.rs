//! The store's schema: the migrations in `server/migrations/`, each applied once per database by
//! a small runner that records them in `agentbench_migrations`.

use sqlx::{AnyPool, Row as _};

use super::{StoreError, now_ms};

/// The migrations, in order; each runs once per database, in its own transaction.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "episodes",
        include_str!("../../migrations/0001_episodes.sql"),
    ),
    (
        2,
        "policy mode",
        include_str!("../../migrations/0002_policy_mode.sql"),
    ),
    (3, "runs", include_str!("../../migrations/0003_runs.sql")),
    (
        4,
        "steps request index",
        include_str!("../../migrations/0004_steps_request_index.sql"),
    ),
    (
        5,
        "steps record lz4",
        include_str!("../../migrations/0005_steps_record_lz4.sql"),
    ),
    (
        6,
        "step scores",
        include_str!("../../migrations/0006_step_scores.sql"),
    ),
    (
        7,
        "PRM results",
        include_str!("../../migrations/0007_prm_results.sql"),
    ),
    (
        8,
        "keys and tenants",
        include_str!("../../migrations/0008_keys_and_tenants.sql"),
    ),
    (
        9,
        "episode leases",
        include_str!("../../migrations/0009_episode_leases.sql"),
    ),
];

/// Applies the migrations the database lacks, each in its own transaction.
pub(super) async fn migrate(pool: &AnyPool) -> Result<(), StoreError> {
    sqlx::raw_sql(
        "CREATE TABLE IF NOT EXISTS agentbench_migrations (\
         version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_ms BIGINT NOT NULL)",
    )
    .execute(pool)
    .await?;
    let applied: Vec<i64> = sqlx::query("SELECT version FROM agentbench_migrations")
        .fetch_all(pool)
        .await?
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()?;
    for &(version, name, sql) in MIGRATIONS {
        if applied.contains(&version) {
            continue;
        }
        let failed = |source| StoreError::Migrate {
            version,
            name,
            source,
        };
        let mut tx = pool.begin().await.map_err(failed)?;
        sqlx::raw_sql(sql).execute(&mut *tx).await.map_err(failed)?;
        sqlx::query(
            "INSERT INTO agentbench_migrations (version, name, applied_ms) VALUES ($1, $2, $3)",
        )
        .bind(version)
        .bind(name)
        .bind(now_ms())
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
        tx.commit().await.map_err(failed)?;
    }
    Ok(())
}
