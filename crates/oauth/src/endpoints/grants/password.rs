//! `password`: trusted apps sign a user in with e-mail and password (throttled).

use std::net::IpAddr;

use storage::apps::App;

use super::seller_binding;
use crate::endpoints::form::Form;
use crate::error::OAuthError;
use crate::grant::GrantType;
use crate::issue::{TokenAnswer, new_family_id};
use crate::principal::Subject;
use crate::scope_policy;
use crate::service::AuthService;
use crate::sign_in::SignInError;
use crate::tokens::TokenGrant;

pub async fn exchange(
    auth: &AuthService,
    app: &App,
    form: &Form,
    ip: Option<IpAddr>,
) -> Result<TokenAnswer, OAuthError> {
    if !app.trusted {
        return Err(OAuthError::unauthorized_client(
            "only trusted clients may use the password grant",
        ));
    }
    let username = form.require("username")?;
    let secret = form.require("password")?;
    let requested = scope_policy::parse_requested(form.get("scope"))?;
    let wrong = || OAuthError::invalid_grant("the username or password is wrong");
    let user = match auth.sign_in(username, secret, ip).await {
        Ok(user) => user,
        Err(SignInError::Throttled(secs)) => return Err(OAuthError::slow_down(secs)),
        Err(SignInError::Wrong) => return Err(wrong()),
        Err(SignInError::Storage(err)) => return Err(err.into()),
    };
    // An app of one account signs in only that account's users.
    if app.account_id.is_some_and(|a| a != user.account_id) {
        return Err(wrong());
    }
    let scopes = scope_policy::for_user(app, user.role, requested)?;
    let grant = TokenGrant {
        subject: Subject::User {
            id: user.id,
            role: user.role,
        },
        user_name: Some(user.name.clone()),
        app_id: app.id,
        client_id: app.client_id.clone(),
        account_id: Some(user.account_id),
        seller_id: seller_binding(auth, form, Some(user.account_id)).await?,
        scopes,
        family_id: Some(new_family_id()),
    };
    let now = auth.clock.now();
    let mut tx = auth.db.begin().await?;
    let answer = auth
        .issue(
            &mut tx,
            &grant,
            GrantType::Password,
            Some(grant.scopes),
            now,
        )
        .await?;
    tx.commit().await?;
    Ok(answer)
}
