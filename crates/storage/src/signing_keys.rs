//! Keys that sign access tokens (HS256), identified by `kid` so they can rotate: the
//! newest unretired key signs, every unretired key verifies. Each is stored sealed
//! (`secret_box`): a copy of the database must not let anyone sign a token.

use domain::Timestamp;

use crate::db::{Database, Exec, Tx};
use crate::error::Result;

#[derive(Clone, sqlx::FromRow)]
pub struct SigningKey {
    pub kid: String,
    #[sqlx(rename = "secret")]
    pub sealed_secret: Vec<u8>,
    pub created_on: Timestamp,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// Unretired keys, newest first.
pub async fn active(db: &Database) -> Result<Vec<SigningKey>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, SigningKey>(
            "SELECT kid, secret, created_on FROM signing_keys WHERE retired_on IS NULL ORDER BY created_on DESC, kid",
        )
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// Stores a key unless one with the same id exists (nodes starting together may race).
pub async fn insert(tx: &mut Tx, kid: &str, sealed_secret: &[u8], now: Timestamp) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("INSERT INTO signing_keys (kid, secret, created_on) VALUES ($1, $2, $3) ON CONFLICT (kid) DO NOTHING")
            .bind(kid)
            .bind(sealed_secret)
            .bind(now.as_micros())
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    Ok(())
}

/// Stops a key from signing or verifying; whether an unretired key with that id existed.
pub async fn retire(tx: &mut Tx, kid: &str, now: Timestamp) -> Result<bool> {
    let changed = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("UPDATE signing_keys SET retired_on = $2 WHERE kid = $1 AND retired_on IS NULL")
            .bind(kid)
            .bind(now.as_micros())
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    Ok(changed == 1)
}
