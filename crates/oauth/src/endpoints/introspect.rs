//! `POST /oauth/introspect` (RFC 7662): an authenticated client asks whether a token it
//! was issued is active. Anything else — expired, revoked, unknown, another client's — is
//! `{"active": false}` and nothing more.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Serialize;
use storage::{refresh_tokens, tokens};

use super::client_auth::Presented;
use super::form::FormRequest;
use crate::error::{OAuthError, no_store};
use crate::secrets;
use crate::service::AuthService;

pub async fn introspect(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    match run(&auth, request).await {
        Ok(answer) => {
            let mut response = axum::Json(answer).into_response();
            no_store(&mut response);
            response
        }
        Err(error) => error.into_response(),
    }
}

/// What an introspection answers (RFC 7662 section 2.2).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Introspection {
    /// Expired, revoked, unknown or another client's: nothing more is said.
    Inactive(Inactive),
    /// A live access token (or personal access token) of the client.
    Access(ActiveAccess),
    /// A live, unused refresh token of the client.
    Refresh(ActiveRefresh),
}

/// `{"active": false}`.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "IntrospectionInactive")]
pub struct Inactive {
    #[schemars(extend("const" = false))]
    active: bool,
}

/// What an access token grants.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "IntrospectionAccessToken")]
pub struct ActiveAccess {
    #[schemars(extend("const" = true))]
    active: bool,
    #[schemars(extend("enum" = ["access_token", "personal_access_token"]))]
    token_type: &'static str,
    /// The granted scopes, comma-separated.
    scope: String,
    client_id: String,
    /// `user:{id}` or `app:{id}`.
    sub: String,
    iss: String,
    iat: i64,
    jti: String,
    /// Absent on personal access tokens that never expire.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    exp: Option<i64>,
    /// The user's name, on tokens issued to a user.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    username: Option<String>,
}

/// What a refresh token grants.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "IntrospectionRefreshToken")]
pub struct ActiveRefresh {
    #[schemars(extend("const" = true))]
    active: bool,
    #[schemars(extend("const" = "refresh_token"))]
    token_type: &'static str,
    /// The scopes a refreshed token may have, comma-separated.
    scope: String,
    client_id: String,
    /// `user:{id}`.
    sub: String,
    exp: i64,
    iat: i64,
}

async fn run(auth: &AuthService, request: Request) -> Result<Introspection, OAuthError> {
    let request = FormRequest::read(request).await?;
    let presented = Presented::read(&request.headers, &request.form)?;
    if matches!(presented, Presented::Nothing) {
        // RFC 7662 section 2.1: never answer anonymous callers (token scanning).
        return Err(OAuthError::invalid_client(
            "client authentication is required",
            true,
        ));
    }
    let app = presented.authenticate(auth, false).await?;
    let token = request.form.require("token")?;
    let inactive = Introspection::Inactive(Inactive { active: false });
    let now = auth.clock.now();
    if let Ok(claims) = auth.decode_token(token).await {
        let live = claims.app == app.id
            && claims.exp.is_none_or(|exp| exp > now.as_secs())
            && tokens::find_by_jti(&auth.db, &claims.jti)
                .await?
                .is_some_and(|row| row.revoked_on.is_none());
        if !live {
            return Ok(inactive);
        }
        return Ok(Introspection::Access(ActiveAccess {
            active: true,
            token_type: if claims.is_personal() {
                "personal_access_token"
            } else {
                "access_token"
            },
            scope: claims.scope,
            client_id: claims.cid,
            sub: claims.sub,
            iss: claims.iss,
            iat: claims.iat,
            jti: claims.jti,
            exp: claims.exp,
            username: claims.name,
        }));
    }
    if let Some(refresh) =
        refresh_tokens::find(&auth.db, &secrets::sha256(token.as_bytes())).await?
        && refresh.app_id == app.id
        && refresh.revoked_on.is_none()
        && refresh.used_on.is_none()
        && refresh.expires_on > now
    {
        return Ok(Introspection::Refresh(ActiveRefresh {
            active: true,
            token_type: "refresh_token",
            scope: refresh.scopes,
            client_id: app.client_id,
            sub: format!("user:{}", refresh.user_id),
            exp: refresh.expires_on.as_secs(),
            iat: refresh.created_on.as_secs(),
        }));
    }
    Ok(inactive)
}
