//! Hands every answer, with the route that made it, to an observer the embedding program
//! installs (`ApiConfig::observer`). The test suite installs one that checks each answer
//! against the OpenAPI document, so the code and the document cannot drift apart.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::BodyExt;
use serde_json::Value;

use crate::kernel::state::AppState;

/// An answer as the observer sees it.
pub struct Observed<'a> {
    pub method: &'a Method,
    /// The route's path template (`/v2/products/{id}`); `None` when no route matched.
    pub route: Option<&'a str>,
    pub path: &'a str,
    pub status: StatusCode,
    pub content_type: Option<&'a str>,
    pub body: &'a [u8],
}

pub trait ObserveResponse: Send + Sync + std::fmt::Debug + 'static {
    /// Called once, with the OpenAPI document of the router being built.
    fn document(&self, document: &Value);

    fn observe(&self, answer: Observed<'_>);
}

/// The observer, if any, as the configuration holds it.
pub type Observer = Option<Arc<dyn ObserveResponse>>;

pub async fn middleware(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let Some(observer) = state.config.observer.clone() else {
        return next.run(request).await;
    };
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned());
    let response = next.run(request).await;
    let (parts, body) = response.into_parts();
    let Ok(collected) = body.collect().await else {
        return Response::from_parts(parts, Body::empty());
    };
    let bytes = collected.to_bytes();
    observer.observe(Observed {
        method: &method,
        route: route.as_deref(),
        path: &path,
        status: parts.status,
        content_type: parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
        body: &bytes,
    });
    Response::from_parts(parts, Body::from(bytes))
}
