//! The record of every access token and personal access token issued: what it grants, to
//! whom, until when, and whether it was revoked. The token itself is a signed JWT naming
//! its row by `jti`; personal tokens also keep the digest of the raw token.

use domain::Timestamp;

use crate::db::{Backend, Database, Exec, Tx};
use crate::error::Result;
use crate::write::Columns;

/// `access` tokens come from grants; `personal` ones are created by users and live long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Access,
    Personal,
}

impl TokenKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TokenKind::Access => "access",
            TokenKind::Personal => "personal",
        }
    }
}

pub struct NewAccessToken<'a> {
    pub jti: &'a str,
    pub kind: TokenKind,
    pub app_id: i64,
    pub user_id: Option<i64>,
    /// The customer a customer session's token speaks for.
    pub customer_id: Option<i64>,
    pub account_id: Option<i64>,
    pub seller_id: Option<i64>,
    pub grant_type: &'a str,
    pub scopes: &'a str,
    pub expires_on: Option<Timestamp>,
    /// The refresh-token family or authorization code the token came from.
    pub family_id: Option<&'a str>,
    /// The renewal chain the token continues: the jti of the chain's first token.
    pub chain_id: Option<&'a str>,
    pub name: Option<&'a str>,
    pub token_digest: Option<&'a [u8]>,
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AccessToken {
    pub id: i64,
    pub jti: String,
    pub kind: String,
    pub app_id: i64,
    pub user_id: Option<i64>,
    pub account_id: Option<i64>,
    pub seller_id: Option<i64>,
    pub grant_type: String,
    pub scopes: String,
    pub name: Option<String>,
    pub family_id: Option<String>,
    pub chain_id: Option<String>,
    pub created_on: Timestamp,
    pub expires_on: Option<Timestamp>,
    pub revoked_on: Option<Timestamp>,
    pub renewed_on: Option<Timestamp>,
    pub last_used_on: Option<Timestamp>,
}

impl AccessToken {
    pub fn is_personal(&self) -> bool {
        self.kind == TokenKind::Personal.as_str()
    }
}

macro_rules! columns {
    () => {
        "id, jti, kind, app_id, user_id, account_id, seller_id, grant_type, scopes, name, family_id, chain_id, \
         created_on, expires_on, revoked_on, renewed_on, last_used_on"
    };
}

pub async fn insert(tx: &mut Tx, token: &NewAccessToken<'_>, now: Timestamp) -> Result<i64> {
    Columns::new()
        .set("jti", token.jti)
        .set("kind", token.kind.as_str())
        .set("app_id", token.app_id)
        .set("user_id", token.user_id)
        .set("customer_id", token.customer_id)
        .set("account_id", token.account_id)
        .set("seller_id", token.seller_id)
        .set("grant_type", token.grant_type)
        .set("scopes", token.scopes)
        .set("created_on", now)
        .set("expires_on", token.expires_on)
        .set("family_id", token.family_id)
        .set("chain_id", token.chain_id)
        .set("name", token.name)
        .set("token_digest", token.token_digest)
        .insert_into("access_tokens")
        .fetch_id(tx)
        .await
}

pub async fn find_by_jti<'a>(exec: impl Into<Exec<'a>>, jti: &str) -> Result<Option<AccessToken>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, AccessToken>(concat!(
            "SELECT ",
            columns!(),
            " FROM access_tokens WHERE jti = $1"
        ))
        .bind(jti)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// A personal token by the digest of its raw value.
pub async fn find_personal_by_digest(db: &Database, digest: &[u8]) -> Result<Option<AccessToken>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, AccessToken>(concat!(
            "SELECT ",
            columns!(),
            " FROM access_tokens WHERE token_digest = $1 AND kind = 'personal'"
        ))
        .bind(digest)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// A revoked token: its id and when it would have expired (microseconds; `None`: never).
pub type Revoked = (String, Option<i64>);

/// Revokes one token; it is returned if it was live.
pub async fn revoke(tx: &mut Tx, jti: &str, now: Timestamp) -> Result<Option<Revoked>> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Revoked>(
            "UPDATE access_tokens SET revoked_on = $2 WHERE jti = $1 AND revoked_on IS NULL RETURNING jti, expires_on",
        )
        .bind(jti)
        .bind(now.as_micros())
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Revokes every live token of a customer's sessions but the one `kept` (the session
/// that changed the password, say).
pub async fn revoke_customer(
    tx: &mut Tx,
    customer_id: i64,
    kept: Option<&str>,
    now: Timestamp,
) -> Result<Vec<Revoked>> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Revoked>(
            "UPDATE access_tokens SET revoked_on = $2 WHERE customer_id = $1 AND revoked_on IS NULL \
             AND ($3 IS NULL OR jti <> $3) RETURNING jti, expires_on",
        )
        .bind(customer_id)
        .bind(now.as_micros())
        .bind(kept)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// Revokes every token that came from one refresh family or authorization code.
pub async fn revoke_family(tx: &mut Tx, family_id: &str, now: Timestamp) -> Result<Vec<Revoked>> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Revoked>(
            "UPDATE access_tokens SET revoked_on = $2 WHERE family_id = $1 AND revoked_on IS NULL \
             RETURNING jti, expires_on",
        )
        .bind(family_id)
        .bind(now.as_micros())
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// The newest token of the renewal chain whose first token is `chain` (that token itself
/// while it was never renewed), locked for the rest of the transaction on PostgreSQL.
/// A concurrent renewal that wins the lock has marked it renewed by the time it is
/// returned here, which `mark_renewed` then tells.
pub async fn newest_in_chain_for_update(tx: &mut Tx, chain: &str) -> Result<Option<AccessToken>> {
    macro_rules! newest {
        () => {
            concat!(
                "SELECT ",
                columns!(),
                " FROM access_tokens WHERE jti = $1 OR chain_id = $1 ORDER BY id DESC LIMIT 1"
            )
        };
    }
    let sql = match tx.backend() {
        Backend::Sqlite => newest!(),
        Backend::Postgres => concat!(newest!(), " FOR UPDATE"),
    };
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, AccessToken>(sql)
            .bind(chain)
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

/// Marks a token as renewed by the JWT bearer grant; false when it already was.
pub async fn mark_renewed(tx: &mut Tx, jti: &str, now: Timestamp) -> Result<bool> {
    let changed = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE access_tokens SET renewed_on = $2 WHERE jti = $1 AND renewed_on IS NULL",
        )
        .bind(jti)
        .bind(now.as_micros())
        .execute(c)
        .await
        .map(|done| done.rows_affected())
    })?;
    Ok(changed == 1)
}

/// Tokens revoked at or after `since` that have not expired by `now`: what a node's
/// revocation list must hold.
pub async fn revoked_since(
    db: &Database,
    since: Timestamp,
    now: Timestamp,
) -> Result<Vec<Revoked>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Revoked>(
            "SELECT jti, expires_on FROM access_tokens WHERE revoked_on IS NOT NULL AND revoked_on >= $1 \
             AND (expires_on IS NULL OR expires_on > $2)",
        )
        .bind(since.as_micros())
        .bind(now.as_micros())
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// A user's personal tokens, newest first.
pub async fn personal_of_user(db: &Database, user_id: i64) -> Result<Vec<AccessToken>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, AccessToken>(concat!(
            "SELECT ",
            columns!(),
            " FROM access_tokens WHERE user_id = $1 AND kind = 'personal' ORDER BY id DESC"
        ))
        .bind(user_id)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// Records when tokens were last used (written in batches, not per request).
pub async fn record_use(db: &Database, uses: &[(String, Timestamp)]) -> Result<()> {
    if uses.is_empty() {
        return Ok(());
    }
    let mut tx = db.begin().await?;
    for (jti, at) in uses {
        with_conn!(Exec::Tx(&mut tx), |c| {
            sqlx::query(
                "UPDATE access_tokens SET last_used_on = $2 WHERE jti = $1 \
                 AND (last_used_on IS NULL OR last_used_on < $2)",
            )
            .bind(jti)
            .bind(at.as_micros())
            .execute(c)
            .await
            .map(|done| done.rows_affected())
        })?;
    }
    tx.commit().await
}

/// Locks a token row for the rest of the transaction (PostgreSQL; SQLite's writer lock
/// already serialises).
pub async fn find_by_jti_for_update(tx: &mut Tx, jti: &str) -> Result<Option<AccessToken>> {
    match tx.backend() {
        Backend::Sqlite => find_by_jti(&mut *tx, jti).await,
        Backend::Postgres => with_conn!(Exec::Tx(tx), |c| {
            sqlx::query_as::<_, AccessToken>(concat!(
                "SELECT ",
                columns!(),
                " FROM access_tokens WHERE jti = $1 FOR UPDATE"
            ))
            .bind(jti)
            .fetch_optional(c)
            .await
        })
        .map_err(Into::into),
    }
}
