//! `refresh_token`: spends a refresh token for a new access token and the next refresh
//! token of the same family. A spent token presented again means a copy is in other
//! hands: the whole family is revoked. All in one transaction, the token row locked.

use domain::ScopeSet;
use storage::apps::App;
use storage::{refresh_tokens, users};

use crate::endpoints::form::Form;
use crate::error::OAuthError;
use crate::grant::GrantType;
use crate::issue::TokenAnswer;
use crate::principal::Subject;
use crate::service::AuthService;
use crate::tokens::TokenGrant;
use crate::{scope_policy, secrets};

pub async fn exchange(
    auth: &AuthService,
    app: &App,
    form: &Form,
) -> Result<TokenAnswer, OAuthError> {
    let raw = form.require("refresh_token")?;
    let requested = scope_policy::parse_requested(form.get("scope"))?;
    let digest = secrets::sha256(raw.as_bytes());
    let now = auth.clock.now();
    let mut tx = auth.db.begin().await?;
    let unusable = || OAuthError::invalid_grant("the refresh token is invalid, expired or revoked");
    let Some(token) = refresh_tokens::find_for_update(&mut tx, &digest).await? else {
        return Err(unusable());
    };
    if token.app_id != app.id || token.revoked_on.is_some() {
        return Err(unusable());
    }
    if token.used_on.is_some() {
        let revoked = auth.revoke_family(&mut tx, &token.family_id, now).await?;
        tx.commit().await?;
        auth.revoked(revoked);
        return Err(OAuthError::invalid_grant(
            "the refresh token was already used; every token of its grant is now revoked",
        ));
    }
    if token.expires_on <= now {
        return Err(unusable());
    }
    let original = ScopeSet::parse(&token.scopes).map_err(|_| OAuthError::server_error())?;
    let scopes = match requested {
        Some(narrower) if narrower.within(original) => narrower,
        Some(_) => {
            return Err(OAuthError::invalid_scope(
                "the scope exceeds what the refresh token grants",
            ));
        }
        None => original,
    };
    let user = users::find(&auth.db, token.user_id)
        .await?
        .ok_or_else(unusable)?;
    let grant = TokenGrant {
        // The user's current role: a downgrade takes effect at the next refresh.
        subject: Subject::User {
            id: user.id,
            role: user.role,
        },
        user_name: Some(user.name),
        app_id: app.id,
        client_id: app.client_id.clone(),
        account_id: Some(token.account_id),
        seller_id: token.seller_id,
        scopes,
        family_id: Some(token.family_id.clone()),
    };
    refresh_tokens::mark_used(&mut tx, token.id, now).await?;
    let answer = auth
        .issue(
            &mut tx,
            &grant,
            GrantType::RefreshToken,
            Some(original),
            now,
        )
        .await?;
    tx.commit().await?;
    Ok(answer)
}
