//! Sessions of people signed in on the authorization pages, kept as digests of the
//! random cookie value.

use domain::Timestamp;

use crate::db::{Database, Exec, Tx};
use crate::error::Result;

pub async fn insert(
    tx: &mut Tx,
    digest: &[u8],
    user_id: i64,
    now: Timestamp,
    expires: Timestamp,
) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("INSERT INTO web_sessions (digest, user_id, created_on, expires_on) VALUES ($1, $2, $3, $4)")
            .bind(digest)
            .bind(user_id)
            .bind(now.as_micros())
            .bind(expires.as_micros())
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    Ok(())
}

/// The user of a live session.
pub async fn user_of(db: &Database, digest: &[u8], now: Timestamp) -> Result<Option<i64>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_scalar("SELECT user_id FROM web_sessions WHERE digest = $1 AND expires_on > $2")
            .bind(digest)
            .bind(now.as_micros())
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

pub async fn delete(tx: &mut Tx, digest: &[u8]) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("DELETE FROM web_sessions WHERE digest = $1")
            .bind(digest)
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    Ok(())
}

/// Deletes expired sessions; returns how many.
pub async fn purge_expired(db: &Database, now: Timestamp) -> Result<u64> {
    let mut tx = db.begin().await?;
    let deleted = with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query("DELETE FROM web_sessions WHERE expires_on <= $1")
            .bind(now.as_micros())
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    tx.commit().await?;
    Ok(deleted)
}
