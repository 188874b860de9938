//! Price lists: per-variant prices by quantity tier for a seller's buyers, with the
//! conditions under which they apply. List, read, create, update and delete; items are in
//! `items`, the preview of the prices a list gives in `prices`.

pub mod area;
mod items;
mod prices;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use domain::catalog::pricing::{PriceListKind, PriceListStatus};
use services::price_lists::input::{NewPriceList, PriceListChanges};
use services::price_lists::{self as operations};
use storage::price_lists::{self, PriceList, PriceListFilter};
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{ItemFields, PriceListFields, price_list_resource};

pub static PRICE_LIST_LIST: ListSpec = ListSpec {
    name: "price_lists",
    default_per_page: 20,
    sort_fields: price_lists::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "q",
        "status",
        "kind",
        "seller_ids",
        "created_on.gte",
        "created_on.lte",
        "updated_on.gte",
        "updated_on.lte",
    ],
};

/// A list's items.
pub static ITEM_LIST: ListSpec = ListSpec {
    name: "price_list_items",
    default_per_page: 20,
    sort_fields: price_lists::ITEM_SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &["variant_ids", "product_ids"],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let (request, filter) =
        PRICE_LIST_LIST.read(query.as_deref(), |params, errors| PriceListFilter {
            seller_ids: params.id_list("seller_ids", errors),
            q: params.get("q").map(str::to_owned),
            status: params.parsed::<PriceListStatus>("status", errors),
            kind: params.parsed::<PriceListKind>("kind", errors),
            created_on: params.time_range("created_on", errors),
            updated_on: params.time_range("updated_on", errors),
        })?;
    let page = auth
        .tenant_page(|tenant| {
            price_lists::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    Ok(request
        .respond(&state, area::PRICE_LISTS.pattern(), page, |l| {
            price_list_resource(&state.urls, auth.scopes, l)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let list = auth
        .find(|tenant| price_lists::find(&state.db, tenant, id))
        .await?;
    Ok(Hal::ok(document(&state, &auth, &list), list.updated_on).showing(AccountData::own(&auth)))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewPriceList>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, input).await?;
    let location = state.urls.price_list(made.value.id);
    Ok(Hal::created(made.document, location, made.value.updated_on))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<PriceListChanges>,
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

/// A price list as the principal's GET shows it.
fn document(state: &AppState, auth: &Auth, list: &PriceList) -> Vec<u8> {
    price_list_resource(&state.urls, auth.scopes, list).into_json(state.urls.curies())
}
