//! `POST /oauth/revoke` (RFC 7009): a client revokes an access token or a refresh token it
//! was issued (a refresh token takes its whole family along). Unknown tokens are a 200:
//! the answer reveals nothing.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use storage::{refresh_tokens, tokens};

use super::client_auth::Presented;
use super::form::FormRequest;
use crate::error::{OAuthError, no_store};
use crate::secrets;
use crate::service::AuthService;

pub async fn revoke(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    match run(&auth, request).await {
        Ok(()) => {
            let mut response = StatusCode::OK.into_response();
            no_store(&mut response);
            response
        }
        Err(error) => error.into_response(),
    }
}

async fn run(auth: &AuthService, request: Request) -> Result<(), OAuthError> {
    let request = FormRequest::read(request).await?;
    let token = request.form.require("token")?;
    let app = Presented::read(&request.headers, &request.form)?
        .authenticate(auth, true)
        .await?;
    let not_yours = || OAuthError::unauthorized_client("the token was issued to another client");
    let now = auth.clock.now();
    // Whatever `token_type_hint` says, both kinds are looked for.
    if let Ok(claims) = auth.decode_token(token).await {
        if claims.app != app.id {
            return Err(not_yours());
        }
        let mut tx = auth.db.begin().await?;
        let revoked = tokens::revoke(&mut tx, &claims.jti, now).await?;
        tx.commit().await?;
        auth.revoked(revoked.into_iter().collect());
        return Ok(());
    }
    if let Some(refresh) =
        refresh_tokens::find(&auth.db, &secrets::sha256(token.as_bytes())).await?
    {
        if refresh.app_id != app.id {
            return Err(not_yours());
        }
        let mut tx = auth.db.begin().await?;
        let revoked = auth.revoke_family(&mut tx, &refresh.family_id, now).await?;
        tx.commit().await?;
        auth.revoked(revoked);
    }
    Ok(())
}
