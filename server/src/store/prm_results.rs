//! Recorded measurements of step scorers (`prm eval`, `prm best-of-n`): each one its command's
//! JSON report, kept as written; the web page's PRMs tab reads them.

use sqlx::Row as _;

use super::{Store, StoreError};

/// One recorded measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct PrmResultRow {
    pub id: String,
    /// `eval` or `best_of_n`.
    pub kind: String,
    pub scorer: String,
    pub version: String,
    /// The report as JSON.
    pub report: String,
    pub created_ms: i64,
}

impl Store {
    pub async fn record_prm_result(&self, row: &PrmResultRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO prm_results (id, kind, scorer, version, report, created_ms) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&row.id)
        .bind(&row.kind)
        .bind(&row.scorer)
        .bind(&row.version)
        .bind(&row.report)
        .bind(row.created_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Every recorded measurement, newest first.
    pub async fn prm_results(&self) -> Result<Vec<PrmResultRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, kind, scorer, version, report, created_ms FROM prm_results \
             ORDER BY created_ms DESC, id",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(PrmResultRow {
                    id: row.try_get("id")?,
                    kind: row.try_get("kind")?,
                    scorer: row.try_get("scorer")?,
                    version: row.try_get("version")?,
                    report: row.try_get("report")?,
                    created_ms: row.try_get("created_ms")?,
                })
            })
            .collect()
    }
}
