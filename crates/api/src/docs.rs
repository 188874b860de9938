//! The curie documentation pages: `{public_url}/docs/rels[/{namespace}[/{rel}]]`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use crate::area::{Path, Routes};
use crate::kernel::error::ApiError;
use crate::kernel::state::AppState;
use crate::kernel::versioning::profile;
use crate::openapi::{Answer, Op};
use crate::rels::REGISTRY;

pub const RELS: Path = Path::new("/docs/rels");
pub const NAMESPACE: Path = Path::new("/docs/rels/{namespace}");
pub const REL: Path = Path::new("/docs/rels/{namespace}/{rel}");
/// The v1 profile's relations (the `btc` curie's documentation).
pub const V1: Path = Path::new("/docs/v1");

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
            V1,
            v1,
            Op::new(
                "The v1 profile served under /v1: each relation's v1 name",
                Answer::Html,
            )
            .anonymous(),
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

/// What `/v1` serves, and each relation's name there.
const V1_INTRODUCTION: &str = "Under /v1 the API serves the resources of /v2 in the profile \
    of the v1 clients: links stay under /v1, link relations take their v1 names under the \
    btc curie, and templates name range filters as v1 did (created_on_gte; /v2 reads both \
    spellings). The root also links every product as btc:all_products. Each relation's v1 \
    name is below; its meaning is the v2 relation's.";

async fn v1(State(state): State<AppState>) -> Response {
    let page = REGISTRY.renamed_page(
        "The v1 profile",
        V1_INTRODUCTION,
        state.urls.curies().docs_base(),
        |rel| profile::v1_rel(&rel.rel()).into_owned(),
        profile::ROOT_ALIASES,
    );
    html(page)
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
