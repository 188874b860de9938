//! Bearer authentication. The middleware verifies the token once per request and leaves
//! the outcome in the request; handlers that need a principal take `Auth`, which answers
//! 401 with the RFC 6750 challenge when there is none. Tokens in the query string are
//! refused outright.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::Scope;
use oauth::{Principal, Subject};
use services::{Actor, Who};

use super::error::{ApiError, ErrorCode};
use super::query::QueryParams;
use crate::kernel::state::AppState;

/// What the middleware found out about the caller.
#[derive(Clone, Debug)]
pub enum Authentication {
    Anonymous,
    Principal(Arc<Principal>),
    /// Why, in the service's own words.
    Refused(&'static str),
}

impl Authentication {
    pub fn principal(&self) -> Option<&Arc<Principal>> {
        match self {
            Authentication::Principal(p) => Some(p),
            _ => None,
        }
    }
}

pub async fn middleware(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    if QueryParams::parse(request.uri().query())
        .pairs()
        .iter()
        .any(|(name, _)| name == "access_token")
    {
        return ApiError::new(
            ErrorCode::InvalidRequest,
            "access tokens are accepted only in the Authorization header",
        )
        .with_header(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"commerce\", error=\"invalid_request\""),
        )
        .into_response();
    }
    let authentication = match request.headers().get(header::AUTHORIZATION) {
        None => Authentication::Anonymous,
        Some(value) => match bearer_token(value) {
            Some(token) => match state.auth.verify_access_token(token).await {
                Ok(principal) => Authentication::Principal(principal),
                Err(err) => Authentication::Refused(err.description()),
            },
            None => Authentication::Refused("the Authorization header must carry a Bearer token"),
        },
    };
    request.extensions_mut().insert(authentication);
    next.run(request).await
}

fn bearer_token(value: &HeaderValue) -> Option<&str> {
    let (scheme, token) = value.to_str().ok()?.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The authenticated principal of a request.
pub struct Auth(pub Arc<Principal>);

impl Auth {
    /// The data this principal may see. A token bound to no account sees no account's
    /// resources, so for it they do not exist (404).
    pub fn own_tenant(&self) -> Result<storage::Tenant, ApiError> {
        self.0.tenant().ok_or_else(ApiError::not_found)
    }

    /// The principal as the actor of a service operation on its own account's data; a
    /// token bound to no account finds nothing to act on (404).
    pub fn actor(&self) -> Result<Actor, ApiError> {
        let principal = &self.0;
        let who = match principal.subject {
            Subject::User { id, .. } => Who::User {
                id,
                name: principal.user_name.clone(),
                app_id: principal.app_id,
            },
            Subject::App => Who::App {
                app_id: principal.app_id,
            },
            // A customer has no tenant: `own_tenant` below finds nothing to act on.
            Subject::Customer { id } => Who::Customer {
                id,
                app_id: principal.app_id,
            },
        };
        Ok(Actor {
            who,
            tenant: self.own_tenant()?,
            scopes: principal.scopes,
        })
    }

    /// One of the principal's own account's resources, looked up by `fetch` within that
    /// account: 404 when the token is bound to no account or the resource is not there.
    pub async fn find<T, F>(&self, fetch: impl FnOnce(storage::Tenant) -> F) -> Result<T, ApiError>
    where
        F: std::future::Future<Output = storage::Result<Option<T>>>,
    {
        fetch(self.own_tenant()?)
            .await?
            .ok_or_else(ApiError::not_found)
    }

    /// A page of a tenant's list; a token bound to no account has an empty one.
    pub async fn tenant_page<T, F>(
        &self,
        fetch: impl FnOnce(storage::Tenant) -> F,
    ) -> Result<(Vec<T>, u64), ApiError>
    where
        F: std::future::Future<Output = storage::Result<(Vec<T>, u64)>>,
    {
        match self.0.tenant() {
            Some(tenant) => Ok(fetch(tenant).await?),
            None => Ok((Vec::new(), 0)),
        }
    }

    /// Refuses with 403 unless the token holds `scope`.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        if self.0.has(scope) {
            Ok(())
        } else {
            Err(ApiError::insufficient_scope(scope))
        }
    }
}

impl std::ops::Deref for Auth {
    type Target = Principal;
    fn deref(&self) -> &Principal {
        &self.0
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        match parts.extensions.get::<Authentication>() {
            Some(Authentication::Principal(p)) => Ok(Auth(p.clone())),
            Some(Authentication::Refused(reason)) => Err(ApiError::invalid_token(reason)),
            Some(Authentication::Anonymous) => Err(ApiError::unauthenticated()),
            None => Err(ApiError::internal(
                "a handler needing a principal runs without the auth middleware",
            )),
        }
    }
}
