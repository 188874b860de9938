//! Idempotency keys: the first request with a key claims it, later ones with the same key
//! replay its stored answer, and a different request under the same key is refused.

use domain::Timestamp;

use crate::db::{Database, Exec};
use crate::error::{Error, Result};

/// An answer kept for replay. Its body is sealed by the caller: it may hold a secret
/// shown once (a new app's client secret, a personal access token).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub sealed_body: Vec<u8>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Claim {
    /// The key is ours: run the request, then `complete` or `release`.
    Acquired,
    /// Another request with this key is still running.
    InProgress,
    /// The key was used for a different request.
    Mismatch,
    /// The same request ran before: replay this.
    Completed(StoredResponse),
}

#[derive(sqlx::FromRow)]
struct Row {
    fingerprint: Vec<u8>,
    state: String,
    response_status: Option<i64>,
    response_headers: Option<String>,
    response_body: Option<Vec<u8>>,
    created_on: Timestamp,
}

/// A claim older than this is taken to belong to a request that died.
const ABANDONED_AFTER_SECS: i64 = 300;

pub async fn claim(
    db: &Database,
    key: &[u8],
    fingerprint: &[u8],
    now: Timestamp,
    ttl_secs: i64,
) -> Result<Claim> {
    let mut tx = db.begin().await?;
    let expires = now.plus_secs(ttl_secs).as_micros();
    let inserted: Option<Vec<u8>> = with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query("DELETE FROM idempotency_keys WHERE key_digest = $1 AND expires_on <= $2")
            .bind(key)
            .bind(now.as_micros())
            .execute(&mut *c)
            .await
            .map(|done| done.rows_affected())?;
        crate::query_count::note(1);
        sqlx::query_scalar(
            "INSERT INTO idempotency_keys (key_digest, fingerprint, state, created_on, expires_on) \
             VALUES ($1, $2, 'started', $3, $4) ON CONFLICT (key_digest) DO NOTHING RETURNING key_digest",
        )
        .bind(key)
        .bind(fingerprint)
        .bind(now.as_micros())
        .bind(expires)
        .fetch_optional(&mut *c)
        .await
    })?;
    if inserted.is_some() {
        tx.commit().await?;
        return Ok(Claim::Acquired);
    }
    let row: Row = with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query_as::<_, Row>(
            "SELECT fingerprint, state, response_status, response_headers, response_body, created_on \
             FROM idempotency_keys WHERE key_digest = $1",
        )
        .bind(key)
        .fetch_one(c)
        .await
    })?;
    let outcome = if row.fingerprint != fingerprint {
        Claim::Mismatch
    } else if row.state == "completed" {
        Claim::Completed(stored_response(row)?)
    } else if row.created_on <= now.plus_secs(-ABANDONED_AFTER_SECS) {
        with_conn!(Exec::Tx(&mut tx), |c| {
            sqlx::query("UPDATE idempotency_keys SET created_on = $2, expires_on = $3 WHERE key_digest = $1")
                .bind(key)
                .bind(now.as_micros())
                .bind(expires)
                .execute(c)
                .await
                .map(|done| done.rows_affected())
        })?;
        Claim::Acquired
    } else {
        Claim::InProgress
    };
    tx.commit().await?;
    Ok(outcome)
}

fn stored_response(row: Row) -> Result<StoredResponse> {
    let corrupt = || Error::Corrupt("completed idempotency key without its response".into());
    let status = row
        .response_status
        .and_then(|s| u16::try_from(s).ok())
        .ok_or_else(corrupt)?;
    let headers = serde_json::from_str(row.response_headers.as_deref().ok_or_else(corrupt)?)
        .map_err(|e| Error::Corrupt(format!("idempotency headers: {e}")))?;
    Ok(StoredResponse {
        status,
        headers,
        sealed_body: row.response_body.unwrap_or_default(),
    })
}

/// Stores the answer of the request that claimed `key`.
pub async fn complete(db: &Database, key: &[u8], response: &StoredResponse) -> Result<()> {
    let headers =
        serde_json::to_string(&response.headers).map_err(|e| Error::Corrupt(e.to_string()))?;
    let mut tx = db.begin().await?;
    with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query(
            "UPDATE idempotency_keys SET state = 'completed', response_status = $2, response_headers = $3, \
             response_body = $4 WHERE key_digest = $1",
        )
        .bind(key)
        .bind(i64::from(response.status))
        .bind(headers)
        .bind(&response.sealed_body)
        .execute(c)
        .await
        .map(|done| done.rows_affected())
    })?;
    tx.commit().await
}

/// Frees a key whose request failed on our side, so the client may retry.
pub async fn release(db: &Database, key: &[u8]) -> Result<()> {
    let mut tx = db.begin().await?;
    with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query("DELETE FROM idempotency_keys WHERE key_digest = $1 AND state = 'started'")
            .bind(key)
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    tx.commit().await
}

/// Deletes expired keys; returns how many.
pub async fn purge_expired(db: &Database, now: Timestamp) -> Result<u64> {
    let mut tx = db.begin().await?;
    let done = with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query("DELETE FROM idempotency_keys WHERE expires_on <= $1")
            .bind(now.as_micros())
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    tx.commit().await?;
    Ok(done)
}
