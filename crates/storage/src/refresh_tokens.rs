//! Refresh tokens: opaque random values kept as SHA-256 digests, grouped in families. Each
//! refresh spends one token and issues the next of the same family; presenting a spent
//! token revokes the whole family.

use domain::Timestamp;

use crate::db::{Backend, Database, Exec, Tx};
use crate::error::Result;
use crate::write::Columns;

pub struct NewRefreshToken<'a> {
    pub digest: &'a [u8],
    pub family_id: &'a str,
    pub app_id: i64,
    pub user_id: i64,
    pub account_id: i64,
    pub seller_id: Option<i64>,
    pub scopes: &'a str,
    pub expires_on: Timestamp,
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RefreshToken {
    pub id: i64,
    pub family_id: String,
    pub app_id: i64,
    pub user_id: i64,
    pub account_id: i64,
    pub seller_id: Option<i64>,
    pub scopes: String,
    pub created_on: Timestamp,
    pub expires_on: Timestamp,
    pub used_on: Option<Timestamp>,
    pub revoked_on: Option<Timestamp>,
}

macro_rules! columns {
    () => {
        "id, family_id, app_id, user_id, account_id, seller_id, scopes, created_on, expires_on, used_on, revoked_on"
    };
}

pub async fn insert(tx: &mut Tx, token: &NewRefreshToken<'_>, now: Timestamp) -> Result<()> {
    Columns::new()
        .set("digest", token.digest)
        .set("family_id", token.family_id)
        .set("app_id", token.app_id)
        .set("user_id", token.user_id)
        .set("account_id", token.account_id)
        .set("seller_id", token.seller_id)
        .set("scopes", token.scopes)
        .set("created_on", now)
        .set("expires_on", token.expires_on)
        .insert_into("refresh_tokens")
        .execute(tx)
        .await
}

pub async fn find(db: &Database, digest: &[u8]) -> Result<Option<RefreshToken>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, RefreshToken>(concat!(
            "SELECT ",
            columns!(),
            " FROM refresh_tokens WHERE digest = $1"
        ))
        .bind(digest)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Reads a token and holds it until the transaction ends, so two refreshes with the same
/// token are serialised.
pub async fn find_for_update(tx: &mut Tx, digest: &[u8]) -> Result<Option<RefreshToken>> {
    let lock = match tx.backend() {
        Backend::Sqlite => "",
        Backend::Postgres => " FOR UPDATE",
    };
    let sql = format!(
        "SELECT {} FROM refresh_tokens WHERE digest = $1{lock}",
        columns!()
    );
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, RefreshToken>(sqlx::AssertSqlSafe(sql))
            .bind(digest)
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

pub async fn mark_used(tx: &mut Tx, id: i64, now: Timestamp) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("UPDATE refresh_tokens SET used_on = $2 WHERE id = $1")
            .bind(id)
            .bind(now.as_micros())
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    Ok(())
}

/// Revokes every refresh token of a family.
pub async fn revoke_family(tx: &mut Tx, family_id: &str, now: Timestamp) -> Result<u64> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE refresh_tokens SET revoked_on = $2 WHERE family_id = $1 AND revoked_on IS NULL",
        )
        .bind(family_id)
        .bind(now.as_micros())
        .execute(c)
        .await
        .map(|done| done.rows_affected())
    })
    .map_err(Into::into)
}
