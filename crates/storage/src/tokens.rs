//! The record of every access token issued: what it grants, to whom, until when, and
//! whether it was revoked. The token itself is a signed JWT naming this row by `jti`.

use domain::Timestamp;

use crate::db::{Exec, Tx};
use crate::error::Result;

pub struct NewAccessToken<'a> {
    pub jti: &'a str,
    pub app_id: i64,
    pub user_id: Option<i64>,
    pub account_id: Option<i64>,
    pub seller_id: Option<i64>,
    pub grant_type: &'a str,
    pub scopes: &'a str,
    pub expires_on: Option<Timestamp>,
}

pub async fn insert(tx: &mut Tx, token: &NewAccessToken<'_>, now: Timestamp) -> Result<i64> {
    let id: i64 = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(
            "INSERT INTO access_tokens (jti, app_id, user_id, account_id, seller_id, grant_type, scopes, \
             created_on, expires_on) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
        )
        .bind(token.jti)
        .bind(token.app_id)
        .bind(token.user_id)
        .bind(token.account_id)
        .bind(token.seller_id)
        .bind(token.grant_type)
        .bind(token.scopes)
        .bind(now.as_micros())
        .bind(token.expires_on.map(Timestamp::as_micros))
        .fetch_one(c)
        .await
    })?;
    Ok(id)
}
