//! `authorization_code`: a code from the authorization endpoint for tokens. The code is
//! spent at the first presentation, whatever follows, so a wrong PKCE verifier cannot be
//! retried; a code presented twice revokes the tokens it issued.

use storage::apps::App;
use storage::authorization_codes::{self, Code, Redemption};
use storage::users;

use crate::endpoints::form::Form;
use crate::error::OAuthError;
use crate::grant::GrantType;
use crate::issue::TokenAnswer;
use crate::principal::Subject;
use crate::service::AuthService;
use crate::tokens::TokenGrant;
use crate::{pkce, secrets};

pub async fn exchange(
    auth: &AuthService,
    app: &App,
    form: &Form,
) -> Result<TokenAnswer, OAuthError> {
    let raw = form.require("code")?;
    let now = auth.clock.now();
    let mut tx = auth.db.begin().await?;
    let code =
        match authorization_codes::redeem(&mut tx, &secrets::sha256(raw.as_bytes()), now).await? {
            Redemption::Unknown => return Err(OAuthError::invalid_grant("the code is invalid")),
            Redemption::Replayed(code) => {
                let revoked = auth.revoke_family(&mut tx, &code.family_id, now).await?;
                tx.commit().await?;
                auth.revoked(revoked);
                return Err(OAuthError::invalid_grant(
                    "the code was already used; the tokens it issued are revoked",
                ));
            }
            Redemption::Fresh(code) => code,
        };
    if let Err(refusal) = check(&code, app, form, now) {
        tx.commit().await?;
        return Err(refusal);
    }
    let user = users::find(&auth.db, code.user_id)
        .await?
        .ok_or_else(|| OAuthError::invalid_grant("the user no longer exists"))?;
    let scopes = domain::ScopeSet::parse(&code.scopes).map_err(|_| OAuthError::server_error())?;
    let grant = TokenGrant {
        subject: Subject::User {
            id: user.id,
            role: user.role,
        },
        user_name: Some(user.name),
        app_id: app.id,
        client_id: app.client_id.clone(),
        account_id: Some(code.account_id),
        seller_id: code.seller_id,
        scopes,
        family_id: Some(code.family_id.clone()),
    };
    let answer = auth
        .issue(
            &mut tx,
            &grant,
            GrantType::AuthorizationCode,
            Some(scopes),
            now,
        )
        .await?;
    tx.commit().await?;
    Ok(answer)
}

/// Everything the token request must agree with the code on.
fn check(code: &Code, app: &App, form: &Form, now: domain::Timestamp) -> Result<(), OAuthError> {
    if code.app_id != app.id {
        return Err(OAuthError::invalid_grant(
            "the code was issued to another client",
        ));
    }
    if code.expires_on <= now {
        return Err(OAuthError::invalid_grant("the code expired"));
    }
    match (form.get("redirect_uri"), code.redirect_uri_given) {
        (None, true) => {
            return Err(OAuthError::invalid_grant(
                "redirect_uri must repeat the one of the authorization request",
            ));
        }
        (Some(given), _) if !same_redirect(given, &code.redirect_uri) => {
            return Err(OAuthError::invalid_grant(
                "redirect_uri differs from the authorization request's",
            ));
        }
        _ => {}
    }
    match (code.code_challenge.as_deref(), form.get("code_verifier")) {
        (Some(challenge), Some(verifier)) if pkce::verifies(verifier, challenge) => Ok(()),
        (Some(_), Some(_)) => Err(OAuthError::invalid_grant(
            "the code_verifier does not match",
        )),
        (Some(_), None) => Err(OAuthError::invalid_grant("code_verifier is required")),
        (None, Some(_)) => Err(OAuthError::invalid_grant(
            "a code_verifier was sent but the authorization request had no code_challenge",
        )),
        (None, None) if app.public => {
            Err(OAuthError::invalid_grant("public clients must use PKCE"))
        }
        (None, None) => Ok(()),
    }
}

/// Exact match, except that a query string added at the code exchange is ignored (older
/// clients append one).
fn same_redirect(given: &str, issued: &str) -> bool {
    given == issued
        || (!issued.contains('?')
            && given
                .split_once('?')
                .is_some_and(|(base, _)| base == issued))
}

#[cfg(test)]
mod tests {
    use super::same_redirect;

    #[test]
    fn redirect_comparison() {
        assert!(same_redirect(
            "https://a.example/cb",
            "https://a.example/cb"
        ));
        assert!(same_redirect(
            "https://a.example/cb?x=1",
            "https://a.example/cb"
        ));
        assert!(!same_redirect(
            "https://a.example/cb/",
            "https://a.example/cb"
        ));
        assert!(!same_redirect(
            "https://A.example/cb",
            "https://a.example/cb"
        ));
        assert!(!same_redirect(
            "https://a.example/cb?y=2",
            "https://a.example/cb?x=1"
        ));
    }
}
