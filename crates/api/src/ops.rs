//! Operational endpoints: liveness, readiness, metrics, and the benchmarks' baseline.

use axum::extract::{Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use domain::Timestamp;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::area::{Path, Routes};
use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ErrorCode};
use crate::kernel::hal_response::Hal;
use crate::kernel::state::{ApiConfig, AppState};
use crate::openapi::{Answer, Op, QueryParam, schema};

pub const HEALTHZ: Path = Path::new("/healthz");
pub const READYZ: Path = Path::new("/readyz");
pub const METRICS: Path = Path::new("/metrics");
/// Under `/v2`: the baseline goes through the API's whole stack.
pub const BENCH_BASELINE: Path = Path::new("/_bench/baseline");
pub const BENCH_STATIC: Path = Path::new("/bench/static");

/// The operational endpoints, outside the API's versions.
pub fn routes(routes: &mut Routes, config: &ApiConfig) {
    routes
        .get(
            HEALTHZ,
            healthz,
            Op::new("Liveness: the process is up", Answer::json::<Health>()).anonymous(),
        )
        .get(
            READYZ,
            readyz,
            Op::new(
                "Readiness: the database answers",
                Answer::json::<Readiness>(),
            )
            .anonymous(),
        )
        .get(
            METRICS,
            metrics,
            Op::new("Metrics in the OpenMetrics text format", Answer::Text).anonymous(),
        );
    if config.bench_baseline {
        routes.get(
            BENCH_STATIC,
            bench_static,
            Op::new(
                "A static document of the requested size, without a token",
                Answer::resource::<Baseline>(),
            )
            .anonymous()
            .query(BYTES),
        );
    }
}

/// The benchmarks' baseline under `/v2`, when configured.
pub fn api_routes(routes: &mut Routes, config: &ApiConfig) {
    if config.bench_baseline {
        routes.get(
            BENCH_BASELINE,
            bench_baseline,
            Op::new(
                "A static document of the requested size, through the whole stack",
                Answer::resource::<Baseline>(),
            )
            .query(BYTES),
        );
    }
}

const BYTES: QueryParam = QueryParam {
    name: "bytes",
    description: "The document's size in bytes (at most 1 MiB)",
    required: false,
    schema: schema::<usize>(),
};

#[derive(Serialize, JsonSchema)]
struct Health {
    status: &'static str,
}

#[derive(Serialize, JsonSchema)]
struct Readiness {
    status: &'static str,
    database: &'static str,
}

/// The baseline's one property.
#[derive(Serialize, JsonSchema)]
struct Baseline {
    padding: String,
}

/// The process is up.
async fn healthz() -> impl IntoResponse {
    axum::Json(Health { status: "ok" })
}

/// The process can serve: its database answers.
async fn readyz(State(state): State<AppState>) -> Response {
    let backend = state.db.backend().as_str();
    match state.db.ping().await {
        Ok(()) => axum::Json(Readiness {
            status: "ready",
            database: backend,
        })
        .into_response(),
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
