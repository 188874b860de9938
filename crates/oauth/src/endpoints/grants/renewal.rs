//! Renewal by the JWT bearer grant: the subject token gives way to a fresh one with the
//! same scopes. Tokens renewed one from another form a chain that has at most one live
//! token: a renewal supersedes the chain's newest token (revoking it if it still lives),
//! and a client presenting an older token of the chain (a long-running client keeps the
//! one it was given) renews the newest, once that has expired; while it lives, whoever
//! renewed last holds it. The renewal age is counted from the newest token's expiry.
//!
//! Two renewals of one chain at once: each locks the token it presented, then the
//! newest (row locks on PostgreSQL, the writer lock on SQLite), and only the one whose
//! conditional update marks the newest renewed goes on.

use domain::ScopeSet;
use storage::apps::App;
use storage::tokens::{self, AccessToken};
use storage::{Tx, users};

use crate::description::Description;
use crate::error::OAuthError;
use crate::issue::TokenAnswer;
use crate::principal::Subject;
use crate::service::AuthService;
use crate::tokens::{AccessClaims, TokenGrant};

fn refuse(why: &'static str) -> OAuthError {
    OAuthError::invalid_grant(Description::of(&[
        "the subject token cannot be renewed: ",
        why,
    ]))
}

/// Replaces the newest token of the chain of `subject`, an access token issued to
/// `app`, with a fresh one.
pub async fn renew(
    auth: &AuthService,
    app: &App,
    subject: &str,
) -> Result<TokenAnswer, OAuthError> {
    let claims: AccessClaims = auth
        .decode_token(subject)
        .await
        .map_err(|_| refuse("it is not an access token of this service"))?;
    if claims.is_personal() {
        return Err(refuse("personal access tokens are not renewed"));
    }
    if claims.app != app.id {
        return Err(refuse("it was issued to another client"));
    }
    let (subject, user_name) = match claims.sub.split_once(':') {
        Some(("user", id)) => {
            let id: i64 = id.parse().map_err(|_| refuse("its subject is malformed"))?;
            let user = users::find(&auth.db, id)
                .await?
                .ok_or_else(|| refuse("its user no longer exists"))?;
            (
                Subject::User {
                    id,
                    role: user.role,
                },
                Some(user.name),
            )
        }
        Some(("app", _)) => (Subject::App, None),
        // A customer signs in again: a session is not stretched by its storefront app.
        _ => return Err(refuse("only users' and apps' tokens are renewed")),
    };
    let scopes = ScopeSet::parse(&claims.scope).map_err(|_| refuse("its scope is malformed"))?;
    let now = auth.clock.now();
    let mut tx = auth.db.begin().await?;
    let (chain, newest) = newest_of_chain(&mut tx, &claims.jti, now).await?;
    let expires_on = newest
        .expires_on
        .ok_or_else(|| refuse("it has no expiry"))?;
    let max_age = i64::try_from(auth.config.jwt_bearer_max_age.as_secs()).unwrap_or(i64::MAX);
    if now.as_secs().saturating_sub(expires_on.as_secs()) > max_age {
        return Err(refuse("it expired too long ago"));
    }
    if !tokens::mark_renewed(&mut tx, &newest.jti, now).await? {
        return Err(refuse("it was renewed already"));
    }
    // One live token per chain: a newest token still live gives way to its renewal.
    let superseded = if expires_on > now {
        tokens::revoke(&mut tx, &newest.jti, now).await?
    } else {
        None
    };
    let grant = TokenGrant {
        subject,
        user_name,
        app_id: app.id,
        client_id: app.client_id.clone(),
        account_id: claims.acc,
        seller_id: claims.sel,
        scopes,
        family_id: claims.fam,
    };
    let answer = auth.issue_renewal(&mut tx, &grant, &chain, now).await?;
    tx.commit().await?;
    auth.revoked(superseded.into_iter().collect());
    Ok(answer)
}

/// The chain of the token `jti` (its first token's jti) and the chain's newest token,
/// which renewal replaces: the token itself unless it was renewed, locked either way.
async fn newest_of_chain(
    tx: &mut Tx,
    jti: &str,
    now: domain::Timestamp,
) -> Result<(String, AccessToken), OAuthError> {
    let presented = tokens::find_by_jti_for_update(tx, jti)
        .await?
        .ok_or_else(|| refuse("it is unknown"))?;
    if presented.revoked_on.is_some() {
        return Err(refuse("it was revoked"));
    }
    let chain = presented
        .chain_id
        .clone()
        .unwrap_or_else(|| presented.jti.clone());
    if presented.renewed_on.is_none() {
        return Ok((chain, presented));
    }
    let newest = tokens::newest_in_chain_for_update(tx, &chain)
        .await?
        .ok_or_else(|| refuse("it is unknown"))?;
    if newest.revoked_on.is_some() {
        return Err(refuse("its renewal was revoked"));
    }
    if newest.expires_on.is_none_or(|exp| exp > now) {
        return Err(refuse(
            "it was renewed already, and its renewal has not expired",
        ));
    }
    Ok((chain, newest))
}
