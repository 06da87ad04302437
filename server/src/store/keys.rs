//! API keys' queries: a key made, listed, looked up by its public id and revoked. The store keeps
//! each key's secret only as a slow hash (`auth.rs` makes and checks it).

use sqlx::Row as _;
use sqlx::any::AnyRow;

use super::{Store, StoreError, now_ms};

/// An API key as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRow {
    /// The key's public part, written in the key itself.
    pub id: String,
    pub tenant: String,
    /// `read`, `run` or `admin`.
    pub scope: String,
    /// What its maker called it.
    pub label: String,
    /// The secret's Argon2id hash, as a PHC string.
    pub secret_hash: String,
    pub created_ms: i64,
    pub revoked_ms: Option<i64>,
}

/// The columns of a `KeyRow`, as a literal for `concat!` (sqlx takes only static queries).
macro_rules! select_keys {
    () => {
        "SELECT id, tenant, scope, label, secret_hash, created_ms, revoked_ms FROM api_keys"
    };
}

impl Store {
    pub async fn create_key(&self, key: &KeyRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO api_keys (id, tenant, scope, label, secret_hash, created_ms, revoked_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&key.id)
        .bind(&key.tenant)
        .bind(&key.scope)
        .bind(&key.label)
        .bind(&key.secret_hash)
        .bind(key.created_ms)
        .bind(key.revoked_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The key with public id `id`, revoked or not.
    pub async fn key(&self, id: &str) -> Result<Option<KeyRow>, StoreError> {
        let row = sqlx::query(concat!(select_keys!(), " WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(key_row).transpose()
    }

    /// Every key, revoked ones included, oldest first.
    pub async fn keys(&self) -> Result<Vec<KeyRow>, StoreError> {
        let rows = sqlx::query(concat!(select_keys!(), " ORDER BY created_ms, id"))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(key_row).collect()
    }

    /// Whether any key is not revoked.
    pub async fn has_live_keys(&self) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) FROM api_keys WHERE revoked_ms IS NULL")
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get::<i64, _>(0)? > 0)
    }

    /// Revokes a key; returns whether a live key of that id was revoked.
    pub async fn revoke_key(&self, id: &str) -> Result<bool, StoreError> {
        let done =
            sqlx::query("UPDATE api_keys SET revoked_ms = $1 WHERE id = $2 AND revoked_ms IS NULL")
                .bind(now_ms())
                .bind(id)
                .execute(&self.pool)
                .await?;
        Ok(done.rows_affected() == 1)
    }
}

fn key_row(row: &AnyRow) -> Result<KeyRow, StoreError> {
    Ok(KeyRow {
        id: row.try_get("id")?,
        tenant: row.try_get("tenant")?,
        scope: row.try_get("scope")?,
        label: row.try_get("label")?,
        secret_hash: row.try_get("secret_hash")?,
        created_ms: row.try_get("created_ms")?,
        revoked_ms: row.try_get("revoked_ms")?,
    })
}
