//! The codes that bring a new user onto shops' rosters: mailed once, kept only as digests,
//! single-use and good for a week. Accepting one voids the user's others, and so does
//! withdrawing the user's last invitation.

use domain::Timestamp;

use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::write::Columns;

/// An invitation sent: the code's digest, for whom, and until when it holds.
pub struct NewInvitation<'a> {
    pub digest: &'a [u8],
    pub user_id: i64,
    pub account_id: i64,
    pub expires_on: Timestamp,
}

pub async fn insert(tx: &mut Tx, invitation: &NewInvitation<'_>, now: Timestamp) -> Result<()> {
    Columns::new()
        .set("digest", invitation.digest)
        .set("user_id", invitation.user_id)
        .set("account_id", invitation.account_id)
        .set("created_on", now)
        .set("expires_on", invitation.expires_on)
        .insert_into("shop_admin_invitations")
        .execute(tx)
        .await
}

/// What a code is worth now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeState {
    /// Unused and unexpired: the user it invites.
    Usable { user_id: i64 },
    /// Used (or voided), or past its expiry.
    Spent,
    /// No code has this digest.
    Unknown,
}

/// What the code with this digest is worth at `now`, without using it.
pub async fn state(db: &Database, digest: &[u8], now: Timestamp) -> Result<CodeState> {
    let found: Option<(i64, Timestamp, Option<Timestamp>)> = with_conn!(Exec::Db(db), |c| {
        sqlx::query_as(
            "SELECT user_id, expires_on, used_on FROM shop_admin_invitations WHERE digest = $1",
        )
        .bind(digest)
        .fetch_optional(c)
        .await
    })?;
    Ok(match found {
        None => CodeState::Unknown,
        Some((user_id, expires_on, None)) if expires_on > now => CodeState::Usable { user_id },
        Some(_) => CodeState::Spent,
    })
}

/// Uses the code with this digest if it is unused and unexpired: answers its user, and
/// marks it used in the same statement, so that two uses at once find it once.
pub async fn take(tx: &mut Tx, digest: &[u8], now: Timestamp) -> Result<Option<i64>> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(
            "UPDATE shop_admin_invitations SET used_on = $2 \
             WHERE digest = $1 AND used_on IS NULL AND expires_on > $2 RETURNING user_id",
        )
        .bind(digest)
        .bind(now.as_micros())
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Voids every unused code of the user (they accepted, or nothing invites them any more).
pub async fn void_all(tx: &mut Tx, user_id: i64, now: Timestamp) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE shop_admin_invitations SET used_on = $2 \
             WHERE user_id = $1 AND used_on IS NULL",
        )
        .bind(user_id)
        .bind(now.as_micros())
        .execute(c)
        .await
        .map(|_| ())
    })
    .map_err(Into::into)
}
