//! The authorization service's HTTP endpoints.

mod client_auth;
mod form;
mod grants;
mod introspect;
mod revoke;
mod token;

use std::sync::Arc;

use axum::Router;
use axum::routing::post;

use crate::service::AuthService;

pub fn routes(auth: Arc<AuthService>) -> Router {
    Router::new()
        .route("/oauth/token", post(token::token))
        .route("/oauth/revoke", post(revoke::revoke))
        .route("/oauth/introspect", post(introspect::introspect))
        .with_state(auth)
}
