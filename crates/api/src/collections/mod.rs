//! Collections: list, read, create, update, delete; their products in the collection's
//! order; and, for manual collections, adding, removing and reordering products.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use domain::catalog::collection::CollectionKind;
use services::collections::input::{CollectionChanges, NewCollection, NewMember, Reorder};
use services::collections::{self as operations};
use storage::collections::{self, Collection, CollectionFilter};
use storage::products;
use storage::sql::Direction;

use crate::catalog::CatalogView;
use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;
use crate::products::product_resource;

pub use representation::{CollectionFields, collection_resource};

pub static COLLECTION_LIST: ListSpec = ListSpec {
    name: "collections",
    default_per_page: 20,
    sort_fields: collections::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "q",
        "kind",
        "product_ids",
        "seller_ids",
        "created_on.gte",
        "created_on.lte",
        "updated_on.gte",
        "updated_on.lte",
    ],
};

/// A collection's products: always in the collection's own order.
pub static MEMBER_LIST: ListSpec = ListSpec {
    name: "products",
    default_per_page: 20,
    sort_fields: &["position"],
    default_sort: ("position", Direction::Asc),
    filters: &[],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let (request, filter) =
        COLLECTION_LIST.read(query.as_deref(), |params, errors| CollectionFilter {
            seller_ids: params.id_list("seller_ids", errors),
            kind: params.parsed::<CollectionKind>("kind", errors),
            product_ids: params.id_list("product_ids", errors),
            q: params.get("q").map(str::to_owned),
            created_on: params.time_range("created_on", errors),
            updated_on: params.time_range("updated_on", errors),
        })?;
    let page = auth
        .tenant_page(|tenant| {
            collections::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    Ok(request
        .respond(&state, area::COLLECTIONS.pattern(), page, |c| {
            collection_resource(&state.urls, auth.scopes, c)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let collection = auth
        .find(|tenant| collections::find(&state.db, tenant, id))
        .await?;
    Ok(
        Hal::ok(document(&state, &auth, &collection), collection.updated_on)
            .showing(AccountData::own(&auth)),
    )
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewCollection>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, input).await?;
    let location = state.urls.collection(made.value.id);
    Ok(Hal::created(made.document, location, made.value.updated_on))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<CollectionChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let expect = IfMatch(&headers);
    let changed = operations::update(&state.services, &auth.actor()?, id, &expect, changes).await?;
    Ok(Hal::ok(changed.document, changed.value.updated_on))
}

async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let expect = IfMatch(&headers);
    let removed = operations::remove(&state.services, &auth.actor()?, id, &expect).await?;
    Ok(Hal::ok(removed.document, state.clock.now()))
}

/// The collection's products in its sort order; its `products_count` is the total.
async fn members(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let tenant = auth.own_tenant()?;
    let (request, ()) = MEMBER_LIST.read(query.as_deref(), |_, _| ())?;
    let collection = auth
        .find(|tenant| collections::find(&state.db, tenant, id))
        .await?;
    let rows = products::list_in_collection(&state.db, id, collection.sort_order, request.window())
        .await?;
    let view = CatalogView::Admin(tenant);
    let total = u64::try_from(collection.products_count).unwrap_or(0);
    let path = area::MEMBERS.with(&[id]);
    Ok(request
        .respond(&state, &path, (rows, total), |p| {
            product_resource(&state.urls, auth.scopes, &view, &p.0, &p.1)
        })
        .showing(view.shows()))
}

async fn add_product(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    JsonBody(input): JsonBody<NewMember>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let actor = auth.actor()?;
    let joined = operations::add_product(&state.services, &actor, id, input).await?;
    Ok(Hal::ok(joined.document, joined.value.collection.updated_on))
}

async fn remove_product(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, product_id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let actor = auth.actor()?;
    let left = operations::remove_product(&state.services, &actor, id, product_id).await?;
    Ok(Hal::ok(left.document, left.value.collection.updated_on))
}

/// Moves the products named, in that order, before the other members.
async fn reorder(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    JsonBody(input): JsonBody<Reorder>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let reordered = operations::reorder(&state.services, &auth.actor()?, id, input).await?;
    Ok(Hal::ok(reordered.document, reordered.value.updated_on))
}

/// A collection as the principal's GET shows it.
fn document(state: &AppState, auth: &Auth, collection: &Collection) -> Vec<u8> {
    collection_resource(&state.urls, auth.scopes, collection).into_json(state.urls.curies())
}
