//! Authorization codes: single-use, short-lived, kept as SHA-256 digests with everything
//! the token request must match (client, redirect URI, PKCE challenge).

use domain::Timestamp;

use crate::db::{Exec, Tx};
use crate::error::Result;
use crate::write::Columns;

pub struct NewCode<'a> {
    pub digest: &'a [u8],
    pub family_id: &'a str,
    pub app_id: i64,
    pub user_id: i64,
    pub account_id: i64,
    pub seller_id: Option<i64>,
    pub scopes: &'a str,
    pub redirect_uri: &'a str,
    /// Whether the authorization request named the redirect URI (then the token request
    /// must name it too).
    pub redirect_uri_given: bool,
    /// The S256 PKCE challenge, when the client sent one.
    pub code_challenge: Option<&'a str>,
    pub expires_on: Timestamp,
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Code {
    pub id: i64,
    pub family_id: String,
    pub app_id: i64,
    pub user_id: i64,
    pub account_id: i64,
    pub seller_id: Option<i64>,
    pub scopes: String,
    pub redirect_uri: String,
    pub redirect_uri_given: bool,
    pub code_challenge: Option<String>,
    pub expires_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, family_id, app_id, user_id, account_id, seller_id, scopes, redirect_uri, redirect_uri_given, \
         code_challenge, expires_on"
    };
}

pub async fn insert(tx: &mut Tx, code: &NewCode<'_>, now: Timestamp) -> Result<()> {
    Columns::new()
        .set("digest", code.digest)
        .set("family_id", code.family_id)
        .set("app_id", code.app_id)
        .set("user_id", code.user_id)
        .set("account_id", code.account_id)
        .set("seller_id", code.seller_id)
        .set("scopes", code.scopes)
        .set("redirect_uri", code.redirect_uri)
        .set("redirect_uri_given", code.redirect_uri_given)
        .set("code_challenge", code.code_challenge)
        .set("created_on", now)
        .set("expires_on", code.expires_on)
        .insert_into("authorization_codes")
        .execute(tx)
        .await
}

/// The outcome of presenting a code.
#[derive(Debug)]
pub enum Redemption {
    /// First presentation: the code is now spent.
    Fresh(Code),
    /// The code was spent before: a replay.
    Replayed(Code),
    Unknown,
}

/// Spends a code atomically: of two concurrent presentations exactly one is `Fresh`.
pub async fn redeem(tx: &mut Tx, digest: &[u8], now: Timestamp) -> Result<Redemption> {
    let fresh = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Code>(concat!(
            "UPDATE authorization_codes SET used_on = $2 WHERE digest = $1 AND used_on IS NULL RETURNING ",
            columns!()
        ))
        .bind(digest)
        .bind(now.as_micros())
        .fetch_optional(c)
        .await
    })?;
    if let Some(code) = fresh {
        return Ok(Redemption::Fresh(code));
    }
    let spent = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Code>(concat!(
            "SELECT ",
            columns!(),
            " FROM authorization_codes WHERE digest = $1"
        ))
        .bind(digest)
        .fetch_optional(c)
        .await
    })?;
    Ok(spent.map_or(Redemption::Unknown, Redemption::Replayed))
}
