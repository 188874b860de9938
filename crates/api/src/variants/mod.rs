//! Variants under `/products/{product_id}/variants`: list, read, add, change, delete (never
//! the last one) and atomic stock adjustments.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use schemars::JsonSchema;
use serde::Deserialize;
use services::variants::input::{NewVariant, VariantChanges};
use services::variants::{self as operations};
use storage::sql::Direction;
use storage::variants::{self};

use crate::catalog::CatalogView;
use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::query::QueryParams;
use crate::kernel::state::AppState;

pub use representation::{VariantFields, variant_resource};

pub static VARIANT_LIST: ListSpec = ListSpec {
    name: "variants",
    default_per_page: 20,
    sort_fields: variants::SORT_FIELDS,
    default_sort: ("position", Direction::Asc),
    filters: &[],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(product_id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let (request, errors) = VARIANT_LIST.begin(query.as_deref());
    let view = CatalogView::resolve(&state, &auth, &request.params).await?;
    errors.into_result()?;
    view.product(&state, product_id).await?;
    let page = variants::list(&state.db, product_id, request.sort, request.window()).await?;
    let path = area::VARIANTS.with(&[product_id]);
    Ok(request
        .respond(&state, &path, page, |v| {
            variant_resource(&state.urls, auth.scopes, &view, v)
        })
        .showing(view.shows()))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(product_id, id): NestedIds,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let view = CatalogView::resolve(&state, &auth, &QueryParams::parse(query.as_deref())).await?;
    view.product(&state, product_id).await?;
    let variant = variants::find(&state.db, product_id, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc =
        variant_resource(&state.urls, auth.scopes, &view, &variant).into_json(state.urls.curies());
    Ok(Hal::ok(doc, variant.updated_on).showing(view.shows()))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(product_id): ResourceId,
    JsonBody(input): JsonBody<NewVariant>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, product_id, input).await?;
    let location = state.urls.variant(product_id, made.value.id);
    Ok(Hal::created(made.document, location, made.value.updated_on))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(product_id, id): NestedIds,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<VariantChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let actor = auth.actor()?;
    let expect = IfMatch(&headers);
    let changed =
        operations::update(&state.services, &actor, product_id, id, &expect, changes).await?;
    Ok(Hal::ok(changed.document, changed.value.updated_on))
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(product_id, id): NestedIds,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let actor = auth.actor()?;
    let expect = IfMatch(&headers);
    let deleted = operations::delete(&state.services, &actor, product_id, id, &expect).await?;
    Ok(Hal::ok(deleted.document, state.clock.now()))
}

/// A change of stock.
#[derive(Debug, Deserialize, JsonSchema)]
struct StockAdjustment {
    /// Added to the stock (negative to take).
    delta: i64,
}

/// Adds `delta` to the stock in one conditional update (see `storage::variants`).
async fn adjust_stock(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(product_id, id): NestedIds,
    JsonBody(input): JsonBody<StockAdjustment>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let actor = auth.actor()?;
    let adjusted =
        operations::adjust_stock(&state.services, &actor, product_id, id, input.delta).await?;
    Ok(Hal::ok(adjusted.document, adjusted.value.updated_on))
}
