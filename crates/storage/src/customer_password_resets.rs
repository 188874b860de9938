//! The tokens a customer sets a new password with: mailed once, kept only as digests,
//! single-use and short-lived. A completed reset voids the customer's other tokens.

use domain::Timestamp;

use crate::db::{Exec, Tx};
use crate::error::Result;
use crate::write::Columns;

/// A reset asked for: the token's digest, for whom, and until when it holds.
pub struct NewReset<'a> {
    pub digest: &'a [u8],
    pub customer_id: i64,
    pub account_id: i64,
    pub expires_on: Timestamp,
}

pub async fn insert(tx: &mut Tx, reset: &NewReset<'_>, now: Timestamp) -> Result<()> {
    Columns::new()
        .set("digest", reset.digest)
        .set("customer_id", reset.customer_id)
        .set("account_id", reset.account_id)
        .set("created_on", now)
        .set("expires_on", reset.expires_on)
        .insert_into("customer_password_resets")
        .execute(tx)
        .await
}

/// Uses the token with this digest if it is unused and unexpired: answers its customer,
/// and marks it used in the same statement, so that two uses at once find it once.
pub async fn take(tx: &mut Tx, digest: &[u8], now: Timestamp) -> Result<Option<i64>> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(
            "UPDATE customer_password_resets SET used_on = $2 \
             WHERE digest = $1 AND used_on IS NULL AND expires_on > $2 RETURNING customer_id",
        )
        .bind(digest)
        .bind(now.as_micros())
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Voids every unused token of the customer (their password was just set).
pub async fn void_all(tx: &mut Tx, customer_id: i64, now: Timestamp) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE customer_password_resets SET used_on = $2 \
             WHERE customer_id = $1 AND used_on IS NULL",
        )
        .bind(customer_id)
        .bind(now.as_micros())
        .execute(c)
        .await
        .map(|_| ())
    })
    .map_err(Into::into)
}
