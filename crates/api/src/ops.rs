//! Operational endpoints: liveness, readiness, metrics, and the benchmarks' baseline.

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use domain::Timestamp;
use serde::Deserialize;
use serde_json::json;

use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ErrorCode};
use crate::kernel::hal_response::Hal;
use crate::kernel::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
}

/// The process is up.
async fn healthz() -> impl IntoResponse {
    axum::Json(json!({"status": "ok"}))
}

/// The process can serve: its database answers.
async fn readyz(State(state): State<AppState>) -> Response {
    let backend = state.db.backend().as_str();
    match state.db.ping().await {
        Ok(()) => axum::Json(json!({"status": "ready", "database": backend})).into_response(),
        Err(err) => {
            tracing::warn!(error = %err, "readiness check failed");
            let unavailable = ApiError::new(
                ErrorCode::DatabaseUnavailable,
                "the database does not answer",
            );
            // Plain JSON, as the ready answer is: probes read it, not API clients.
            (
                ErrorCode::DatabaseUnavailable.status(),
                axum::Json(unavailable.body()),
            )
                .into_response()
        }
    }
}

async fn metrics(State(state): State<AppState>) -> Response {
    let mut response = state.metrics.render().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    response
}

#[derive(Deserialize)]
pub struct BaselineQuery {
    bytes: Option<usize>,
}

/// A static document of the requested size, served through the whole stack (auth, rate
/// limits, ETag) but touching no data: what the benchmarks divide by.
pub async fn bench_baseline(_auth: Auth, Query(query): Query<BaselineQuery>) -> Hal {
    baseline_document(query.bytes)
}

/// The same document without a bearer token: set beside `bench_baseline`, it shows what
/// verifying the token costs.
pub async fn bench_static(Query(query): Query<BaselineQuery>) -> Hal {
    baseline_document(query.bytes)
}

fn baseline_document(bytes: Option<usize>) -> Hal {
    let size = bytes.unwrap_or(1024).min(1 << 20);
    let skeleton = json!({"_class": ["baseline"], "padding": "", "_links": {}});
    let padding = size.saturating_sub(skeleton.to_string().len());
    let body = json!({"_class": ["baseline"], "padding": "x".repeat(padding), "_links": {}});
    Hal::ok(body, Timestamp::from_secs(1_767_225_600))
}
