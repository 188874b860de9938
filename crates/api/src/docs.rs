//! The curie documentation pages: `{public_url}/docs/rels[/{namespace}[/{rel}]]`.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::kernel::error::ApiError;
use crate::kernel::state::AppState;
use crate::rels::REGISTRY;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/docs/rels", get(index))
        .route("/docs/rels/{namespace}", get(namespace))
        .route("/docs/rels/{namespace}/{rel}", get(rel))
}

fn html(page: String) -> Response {
    let mut response = page.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

async fn index(State(state): State<AppState>) -> Response {
    html(REGISTRY.index_page(state.urls.curies().docs_base()))
}

async fn namespace(
    State(state): State<AppState>,
    Path(ns): Path<String>,
) -> Result<Response, ApiError> {
    REGISTRY
        .namespace_page(&ns, state.urls.curies().docs_base())
        .map(html)
        .ok_or_else(ApiError::not_found)
}

async fn rel(
    State(state): State<AppState>,
    Path((ns, name)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let def = REGISTRY.get(&ns, &name).ok_or_else(ApiError::not_found)?;
    Ok(html(
        REGISTRY.rel_page(def, state.urls.curies().docs_base()),
    ))
}
