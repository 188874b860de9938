//! `GET /.well-known/oauth-authorization-server` (RFC 8414): what this authorization
//! service offers, as served.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use domain::Scope;
use schemars::JsonSchema;
use serde::Serialize;

use crate::grant::GrantType;
use crate::paths;
use crate::service::AuthService;

/// What this authorization service offers (RFC 8414 section 2).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "AuthorizationServerMetadata")]
pub struct Metadata {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    revocation_endpoint: String,
    introspection_endpoint: String,
    response_types_supported: [&'static str; 2],
    response_modes_supported: [&'static str; 2],
    grant_types_supported: Vec<&'static str>,
    token_endpoint_auth_methods_supported: [&'static str; 3],
    revocation_endpoint_auth_methods_supported: [&'static str; 3],
    introspection_endpoint_auth_methods_supported: [&'static str; 2],
    code_challenge_methods_supported: [&'static str; 1],
    scopes_supported: Vec<&'static str>,
    service_documentation: String,
}

pub async fn metadata(State(auth): State<Arc<AuthService>>) -> Response {
    let issuer = &auth.config.issuer;
    let client_auth = ["client_secret_basic", "client_secret_post"];
    let body = Metadata {
        issuer: issuer.clone(),
        authorization_endpoint: format!("{issuer}{}", paths::AUTHORIZE),
        token_endpoint: format!("{issuer}{}", paths::TOKEN),
        revocation_endpoint: format!("{issuer}{}", paths::REVOKE),
        introspection_endpoint: format!("{issuer}{}", paths::INTROSPECT),
        response_types_supported: ["code", "token"],
        response_modes_supported: ["query", "fragment"],
        grant_types_supported: GrantType::ALL.iter().map(|g| g.as_str()).collect(),
        token_endpoint_auth_methods_supported: [
            "client_secret_basic",
            "client_secret_post",
            "none",
        ],
        revocation_endpoint_auth_methods_supported: [
            "client_secret_basic",
            "client_secret_post",
            "none",
        ],
        introspection_endpoint_auth_methods_supported: client_auth,
        code_challenge_methods_supported: ["S256"],
        scopes_supported: Scope::ALL.iter().map(|s| s.as_str()).collect(),
        service_documentation: format!("{issuer}/docs/rels"),
    };
    let mut response = axum::Json(body).into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}
