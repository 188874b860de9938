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

pub use introspect::Introspection;
pub use metadata::Metadata;

use crate::pages::invitations::{InvitationPages, Invitations};
use crate::service::AuthService;
use crate::{control, pages, paths};

/// The endpoints and the pages, each behind the guard that answers in its own format;
/// `invitations` are the operations behind the invitation page.
pub fn routes(auth: Arc<AuthService>, invitations: Arc<dyn Invitations>) -> Router {
    let endpoints = Router::new()
        .route(paths::TOKEN, post(token::token))
        .route(paths::REVOKE, post(revoke::revoke))
        .route(paths::INTROSPECT, post(introspect::introspect))
        .route(paths::METADATA, get(metadata::metadata))
        .layer(from_fn(control::endpoint_guard));
    let pages = Router::new()
        .route(
            paths::AUTHORIZE,
            get(pages::authorize::show).post(pages::authorize::decide),
        )
        .route(
            paths::LOGIN,
            get(pages::login::show).post(pages::login::submit),
        )
        .route(paths::LOGOUT, post(pages::login::sign_out))
        .route(paths::CREDENTIALS, get(pages::credentials::show))
        .route(
            paths::CREDENTIALS_TOKENS,
            post(pages::credentials::create_token),
        )
        .route(
            paths::CREDENTIALS_REVOKE_TOKEN,
            post(pages::credentials::revoke_token),
        )
        .route(
            paths::CREDENTIALS_APPS,
            post(pages::credentials::register_app),
        )
        .layer(from_fn(pages::guard));
    let invitation_pages = Router::new()
        .route(
            paths::INVITATIONS,
            get(pages::invitations::show).post(pages::invitations::accept),
        )
        .layer(from_fn(pages::guard))
        .with_state(InvitationPages {
            auth: auth.clone(),
            invitations,
        });
    endpoints
        .merge(pages)
        .with_state(auth)
        .merge(invitation_pages)
}
