//! Service-wide values kept in the database, such as a generated encryption key when none
//! is configured.

use crate::db::{Database, Exec};
use crate::error::Result;

pub async fn get(db: &Database, name: &str) -> Result<Option<Vec<u8>>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_scalar("SELECT value FROM settings WHERE name = $1")
            .bind(name)
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

/// Stores `value` unless the setting exists; returns the value that is stored now (ours,
/// or the one another node stored first).
pub async fn get_or_insert(db: &Database, name: &str, value: &[u8]) -> Result<Vec<u8>> {
    let mut tx = db.begin().await?;
    with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query(
            "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(value)
        .execute(c)
        .await
        .map(|done| done.rows_affected())
    })?;
    tx.commit().await?;
    get(db, name)
        .await?
        .ok_or_else(|| crate::Error::Corrupt(format!("setting {name} vanished")))
}

/// Stores `value`, replacing what the setting held.
pub async fn put(db: &Database, name: &str, value: &[u8]) -> Result<()> {
    let mut tx = db.begin().await?;
    with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query(
            "INSERT INTO settings (name, value) VALUES ($1, $2) \
             ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        )
        .bind(name)
        .bind(value)
        .execute(c)
        .await
        .map(|done| done.rows_affected())
    })?;
    tx.commit().await
}
