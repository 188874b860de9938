//! Product types: list, read, create, update (name, attribute schema) and delete (refused
//! while products use the type).

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use services::product_types::input::{NewProductType, ProductTypeChanges};
use services::product_types::{self as operations};
use storage::product_types::{self, ProductType, ProductTypeFilter};
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{ProductTypeFields, product_type_resource};

pub static PRODUCT_TYPE_LIST: ListSpec = ListSpec {
    name: "product_types",
    default_per_page: 20,
    sort_fields: product_types::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "q",
        "names",
        "seller_ids",
        "created_on.gte",
        "created_on.lte",
        "updated_on.gte",
        "updated_on.lte",
    ],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let (request, filter) =
        PRODUCT_TYPE_LIST.read(query.as_deref(), |params, errors| ProductTypeFilter {
            seller_ids: params.id_list("seller_ids", errors),
            q: params.get("q").map(str::to_owned),
            names: params.list("names"),
            created_on: params.time_range("created_on", errors),
            updated_on: params.time_range("updated_on", errors),
        })?;
    let page = auth
        .tenant_page(|tenant| {
            product_types::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    Ok(request
        .respond(&state, area::PRODUCT_TYPES.pattern(), page, |t| {
            product_type_resource(&state.urls, auth.scopes, t)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let product_type = auth
        .find(|tenant| product_types::find(&state.db, tenant, id))
        .await?;
    Ok(Hal::ok(
        document(&state, &auth, &product_type),
        product_type.updated_on,
    )
    .showing(AccountData::own(&auth)))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewProductType>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, input).await?;
    let location = state.urls.product_type(made.value.id);
    Ok(Hal::created(made.document, location, made.value.updated_on))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<ProductTypeChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let expect = IfMatch(&headers);
    let changed = operations::update(&state.services, &auth.actor()?, id, &expect, changes).await?;
    Ok(Hal::ok(changed.document, changed.value.updated_on))
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let expect = IfMatch(&headers);
    let deleted = operations::delete(&state.services, &auth.actor()?, id, &expect).await?;
    Ok(Hal::ok(deleted.document, state.clock.now()))
}

/// A type as the principal's GET shows it.
fn document(state: &AppState, auth: &Auth, product_type: &ProductType) -> Vec<u8> {
    product_type_resource(&state.urls, auth.scopes, product_type).into_json(state.urls.curies())
}
