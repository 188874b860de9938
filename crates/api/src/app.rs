//! The whole HTTP application: routes of every area and the shared middleware stack.

use std::any::Any;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::map_request_body::MapRequestBodyLayer;
use tower_http::request_id::{PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use tracing::Span;

use crate::area::{AREAS, Path, Routes};
use crate::kernel::error::ApiError;
use crate::kernel::hal_response::JSON;
use crate::kernel::request_id::RandomRequestId;
use crate::kernel::state::AppState;
use crate::kernel::{
    auth, conditional, framework_errors, idempotency, metrics, observe, query, query_count,
    rate_limit, versioning,
};
use crate::openapi::{self, Answer, Op};
use crate::{assets, authorization, docs, ops, root};

/// The API under `/v2` (and its deprecated `/v1` alias), the curie docs, the operational
/// endpoints and the token endpoint, behind one middleware stack.
pub fn router(state: AppState) -> Router {
    let config = &state.config;
    let mut api = Routes::new("/v2");
    api.get(root::ROOT, root::show, root::operation());
    for area in AREAS {
        (area.routes)(&mut api, config);
    }
    ops::api_routes(&mut api, config);
    let document = Arc::new(OnceLock::new());
    let mut outside = Routes::new("");
    let rel_operations = docs::RelOperations::default();
    docs::routes(&mut outside, rel_operations.clone());
    authorization::routes(&mut outside);
    assets::area::file_routes(&mut outside);
    ops::routes(&mut outside, config);
    outside.get(
        OPENAPI,
        {
            let document = document.clone();
            move || openapi_document(document)
        },
        Op::new(
            "This document: every operation, its parameters, bodies, answers and scopes",
            Answer::json::<serde_json::Value>(),
        )
        .anonymous(),
    );
    let (v2, mut documented) = api.into_parts();
    let (outside, described) = outside.into_parts();
    documented.extend(described);
    let text = serde_json::to_vec(&openapi::document(&documented, state.urls.public()))
        .expect("the document serialises");
    let by_rel = documented
        .iter()
        .flat_map(|route| {
            let name = format!("{} {}", route.method, route.path);
            let href =
                openapi::operation_url(state.urls.public(), route.method.as_str(), &route.path);
            route
                .op
                .rels()
                .iter()
                .map(move |rel| (rel.rel(), (name.clone(), href.clone())))
        })
        .collect();
    rel_operations
        .set(by_rel)
        .expect("the rels' operations are found once");
    if let Some(observer) = &config.observer {
        observer.document(&openapi::document(&documented, state.urls.public()));
    }
    document
        .set(Bytes::from(text))
        .expect("the document is made once");
    let v1 = v2
        .clone()
        .layer(from_fn_with_state(state.clone(), versioning::v1_profile));
    // JSON bodies are held to `max_body_bytes` where they are read; this outer bound also
    // lets image uploads through.
    let limit = state
        .config
        .max_body_bytes
        .max(assets::upload_body_limit(state.config.max_asset_bytes));
    Router::new()
        .nest("/v2", v2)
        .nest("/v1", v1)
        .merge(outside)
        .fallback(not_found)
        .layer(from_fn(query::guard))
        .with_state(state.clone())
        .merge(oauth::routes(
            state.auth.clone(),
            Arc::new(crate::shop_admins::ShopInvitations(state.services.clone())),
        ))
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::x_request_id(RandomRequestId))
                .layer(PropagateRequestIdLayer::x_request_id())
                .layer(
                    TraceLayer::new_for_http()
                        .make_span_with(request_span)
                        .on_request(())
                        .on_response(log_response),
                )
                // Only when something observes: the layer buffers every body.
                .option_layer(
                    state
                        .config
                        .observer
                        .is_some()
                        .then(|| from_fn_with_state(state.clone(), observe::middleware)),
                )
                .layer(from_fn_with_state(state.clone(), metrics::middleware))
                .layer(from_fn_with_state(state.clone(), query_count::middleware))
                .layer(from_fn(framework_errors::middleware))
                .layer(CatchPanicLayer::custom(|panic: Box<dyn Any + Send>| {
                    ApiError::panicked(&*panic).into_response()
                }))
                .layer(RequestBodyLimitLayer::new(limit))
                .layer(MapRequestBodyLayer::new(Body::new))
                .layer(from_fn_with_state(state.clone(), auth::middleware))
                .layer(from_fn_with_state(state.clone(), rate_limit::middleware))
                .layer(from_fn_with_state(state.clone(), idempotency::middleware))
                .layer(from_fn_with_state(state.clone(), conditional::middleware)),
        )
}

/// Where the OpenAPI document is served.
pub const OPENAPI: Path = Path::new("/openapi.json");

async fn openapi_document(document: Arc<OnceLock<Bytes>>) -> Response {
    let body = document.get().cloned().unwrap_or_default();
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(JSON))],
        body,
    )
        .into_response()
}

async fn not_found() -> ApiError {
    ApiError::not_found()
}

/// One span per request: method, path (never the query, which could hold secrets) and id.
/// An internal error's log line is made inside it, so it names the same request id.
pub(crate) fn request_span(request: &Request) -> Span {
    let id = request
        .headers()
        .get("x-request-id")
        .and_then(|v: &HeaderValue| v.to_str().ok())
        .unwrap_or("");
    tracing::info_span!("request", method = %request.method(), path = %request.uri().path(), request_id = %id)
}

fn log_response(response: &Response, latency: Duration, _span: &Span) {
    tracing::info!(
        status = response.status().as_u16(),
        latency_ms = latency.as_secs_f64() * 1000.0,
        "answered"
    );
}

/// Only the operational endpoints (`/healthz`, `/readyz`, `/metrics`), for a node that
/// serves no API (a worker node): probes and scrapers reach it, clients get 404.
pub fn ops_router(state: AppState) -> Router {
    let mut routes = Routes::new("");
    ops::routes(&mut routes, &state.config);
    let (router, _) = routes.into_parts();
    router.fallback(not_found).with_state(state.clone()).layer(
        ServiceBuilder::new()
            .layer(SetRequestIdLayer::x_request_id(RandomRequestId))
            .layer(PropagateRequestIdLayer::x_request_id())
            .layer(from_fn_with_state(state, metrics::middleware)),
    )
}
