//! The authorization service's HTTP endpoints.

mod client_auth;
mod form;
mod grants;
mod introspect;
mod metadata;
mod revoke;
mod token;

use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn;
use axum::routing::{get, post};

use crate::service::AuthService;
use crate::{control, pages};

/// The endpoints and the pages, each behind the guard that answers in its own format.
pub fn routes(auth: Arc<AuthService>) -> Router {
    let endpoints = Router::new()
        .route("/oauth/token", post(token::token))
        .route("/oauth/revoke", post(revoke::revoke))
        .route("/oauth/introspect", post(introspect::introspect))
        .route(
            "/.well-known/oauth-authorization-server",
            get(metadata::metadata),
        )
        .layer(from_fn(control::endpoint_guard));
    let pages = Router::new()
        .route(
            "/oauth/authorize",
            get(pages::authorize::show).post(pages::authorize::decide),
        )
        .route(
            "/oauth/login",
            get(pages::login::show).post(pages::login::submit),
        )
        .route("/oauth/logout", post(pages::login::sign_out))
        .route("/oauth/credentials", get(pages::credentials::show))
        .route(
            "/oauth/credentials/tokens",
            post(pages::credentials::create_token),
        )
        .route(
            "/oauth/credentials/tokens/revoke",
            post(pages::credentials::revoke_token),
        )
        .route(
            "/oauth/credentials/apps",
            post(pages::credentials::register_app),
        )
        .layer(from_fn(pages::guard));
    endpoints.merge(pages).with_state(auth)
}
