//! The curie documentation pages: `{public_url}/docs/rels[/{namespace}[/{rel}]]`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use crate::area::{Path, Routes};
use crate::kernel::error::ApiError;
use crate::kernel::state::AppState;
use crate::openapi::{Answer, Op};
use crate::rels::REGISTRY;

pub const RELS: Path = Path::new("/docs/rels");
pub const NAMESPACE: Path = Path::new("/docs/rels/{namespace}");
pub const REL: Path = Path::new("/docs/rels/{namespace}/{rel}");

/// Each rel's operation, by compact rel (`products:update`): what it is called and where
/// the OpenAPI document describes it. Known once every route is registered.
pub type RelOperations = Arc<OnceLock<HashMap<String, (String, String)>>>;

pub fn routes(routes: &mut Routes, operations: RelOperations) {
    let rel = move |state, path| rel(state, path, operations.clone());
    routes
        .get(
            RELS,
            index,
            Op::new("Every link relation, by namespace", Answer::Html).anonymous(),
        )
        .get(
            NAMESPACE,
            namespace,
            Op::new("The link relations of one namespace", Answer::Html).anonymous(),
        )
        .get(
            REL,
            rel,
            Op::new(
                "One link relation: method, title, what it does and its operation",
                Answer::Html,
            )
            .anonymous(),
        );
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

/// A name that is not even UTF-8 names no page: 404, as any unknown name.
type Names<T> = Result<axum::extract::Path<T>, axum::extract::rejection::PathRejection>;

async fn namespace(
    State(state): State<AppState>,
    path: Names<String>,
) -> Result<Response, ApiError> {
    let axum::extract::Path(ns) = path.map_err(|_| ApiError::not_found())?;
    REGISTRY
        .namespace_page(&ns, state.urls.curies().docs_base())
        .map(html)
        .ok_or_else(ApiError::not_found)
}

async fn rel(
    State(state): State<AppState>,
    path: Names<(String, String)>,
    operations: RelOperations,
) -> Result<Response, ApiError> {
    let axum::extract::Path((ns, name)) = path.map_err(|_| ApiError::not_found())?;
    let def = REGISTRY.get(&ns, &name).ok_or_else(ApiError::not_found)?;
    let operation = operations
        .get()
        .and_then(|by_rel| by_rel.get(&def.rel()))
        .map(|(name, href)| (name.as_str(), href.as_str()));
    Ok(html(REGISTRY.rel_page(
        def,
        state.urls.curies().docs_base(),
        operation,
    )))
}
