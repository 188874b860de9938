//! `GET /.well-known/oauth-authorization-server` (RFC 8414): what this authorization
//! service offers, as served.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use domain::Scope;
use serde_json::json;

use crate::grant::GrantType;
use crate::paths;
use crate::service::AuthService;

pub async fn metadata(State(auth): State<Arc<AuthService>>) -> Response {
    let issuer = &auth.config.issuer;
    let client_auth = ["client_secret_basic", "client_secret_post"];
    let body = json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}{}", paths::AUTHORIZE),
        "token_endpoint": format!("{issuer}{}", paths::TOKEN),
        "revocation_endpoint": format!("{issuer}{}", paths::REVOKE),
        "introspection_endpoint": format!("{issuer}{}", paths::INTROSPECT),
        "response_types_supported": ["code", "token"],
        "response_modes_supported": ["query", "fragment"],
        "grant_types_supported": GrantType::ALL.iter().map(|g| g.as_str()).collect::<Vec<_>>(),
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "introspection_endpoint_auth_methods_supported": client_auth,
        "code_challenge_methods_supported": ["S256"],
        "scopes_supported": Scope::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "service_documentation": format!("{issuer}/docs/rels"),
    });
    let mut response = axum::Json(body).into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}
