//! `POST /oauth/token`: every grant, behind one request reader and one client check.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};

use super::client_auth::Presented;
use super::form::FormRequest;
use super::grants;
use crate::description::Description;
use crate::error::{OAuthError, no_store};
use crate::grant::{GrantType, JWT_BEARER_URN};
use crate::issue::TokenAnswer;
use crate::service::AuthService;

pub async fn token(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    match answer(&auth, request).await {
        Ok(answer) => {
            let mut response = axum::Json(answer).into_response();
            no_store(&mut response);
            response
        }
        Err(error) => error.into_response(),
    }
}

async fn answer(auth: &AuthService, request: Request) -> Result<TokenAnswer, OAuthError> {
    let request = FormRequest::read(request).await?;
    let form = &request.form;
    let grant = match form.require("grant_type")? {
        "authorization_code" => GrantType::AuthorizationCode,
        "client_credentials" => GrantType::ClientCredentials,
        "password" => GrantType::Password,
        "refresh_token" => GrantType::RefreshToken,
        JWT_BEARER_URN => GrantType::JwtBearer,
        // The pre-RFC form some clients still send.
        "assertion" if form.get("assertion_type") == Some(JWT_BEARER_URN) => GrantType::JwtBearer,
        _ => {
            return Err(OAuthError::unsupported_grant_type(
                "the grant_type is not one this server supports",
            ));
        }
    };
    let presented = Presented::read(&request.headers, form)?;
    if grant == GrantType::JwtBearer {
        // Client authentication is optional here: the assertion names and proves the client.
        return grants::jwt_bearer::exchange(auth, &presented, form).await;
    }
    let public_allowed = matches!(
        grant,
        GrantType::AuthorizationCode | GrantType::RefreshToken
    );
    let app = presented.authenticate(auth, public_allowed).await?;
    if !app.allows_grant(grant.as_str()) {
        return Err(OAuthError::unauthorized_client(Description::of(&[
            "this client may not use the ",
            grant.as_str(),
            " grant",
        ])));
    }
    match grant {
        GrantType::ClientCredentials => {
            grants::client_credentials::exchange(auth, &app, form).await
        }
        GrantType::Password => {
            grants::password::exchange(auth, &app, form, request.client_ip).await
        }
        GrantType::RefreshToken => grants::refresh::exchange(auth, &app, form).await,
        GrantType::AuthorizationCode => {
            grants::authorization_code::exchange(auth, &app, form).await
        }
        GrantType::JwtBearer | GrantType::Implicit => Err(OAuthError::unsupported_grant_type(
            "this grant is not served here",
        )),
    }
}
