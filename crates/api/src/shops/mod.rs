//! Shops: list, read, create under a seller, and change settings.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use domain::shop::Storefront;
use services::shops::input::{NewShop, ShopChanges};
use services::shops::{self as operations};
use storage::shops::{self, Shop, ShopFilter};
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{ShopFields, shop_resource};

pub static SHOP_LIST: ListSpec = ListSpec {
    name: "shops",
    default_per_page: 20,
    sort_fields: shops::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "q",
        "seller_ids",
        "subdomains",
        "storefront",
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
    auth.require(Scope::ShopsRead)?;
    let (request, filter) = SHOP_LIST.read(query.as_deref(), |params, errors| ShopFilter {
        seller_ids: params.id_list("seller_ids", errors),
        subdomains: params.list("subdomains"),
        storefront: params.parsed::<Storefront>("storefront", errors),
        q: params.get("q").map(str::to_owned),
        created_on: params.time_range("created_on", errors),
        updated_on: params.time_range("updated_on", errors),
    })?;
    let page = auth
        .tenant_page(|tenant| {
            shops::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    Ok(request
        .respond(&state, area::SHOPS.pattern(), page, |shop| {
            shop_resource(&state.urls, auth.scopes, shop)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsRead)?;
    let shop = auth
        .find(|tenant| shops::find(&state.db, tenant, id))
        .await?;
    Ok(Hal::ok(document(&state, &auth, &shop), shop.updated_on)
        .showing(Some(AccountData::of([shop.account_id]))))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(seller_id): ResourceId,
    JsonBody(input): JsonBody<NewShop>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, seller_id, input).await?;
    let location = state.urls.shop(made.value.id);
    Ok(Hal::created(made.document, location, made.value.updated_on))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<ShopChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let expect = IfMatch(&headers);
    let changed = operations::update(&state.services, &auth.actor()?, id, &expect, changes).await?;
    Ok(Hal::ok(changed.document, changed.value.updated_on))
}

/// A shop as the principal's GET shows it.
/// One of the principal's account's shops: where the areas of a shop's settings (its
/// admins, shipping tables, exchange rates, payment methods) start. 404 otherwise.
pub(crate) async fn tenant_shop(state: &AppState, auth: &Auth, id: i64) -> ApiResult<Shop> {
    auth.find(|tenant| shops::find(&state.db, tenant, id)).await
}

/// One of a shop's settings rows, found by `find` within the principal's account and kept
/// only when it is the shop's (`shop_of`): a row of another shop is as missing as one of
/// another account (404).
pub(crate) async fn shop_setting<T, F>(
    auth: &Auth,
    shop_id: i64,
    find: impl FnOnce(storage::Tenant) -> F,
    shop_of: impl FnOnce(&T) -> i64,
) -> ApiResult<T>
where
    F: std::future::Future<Output = storage::Result<Option<T>>>,
{
    auth.find(|tenant| async move { Ok(find(tenant).await?.filter(|row| shop_of(row) == shop_id)) })
        .await
}

fn document(state: &AppState, auth: &Auth, shop: &Shop) -> Vec<u8> {
    shop_resource(&state.urls, auth.scopes, shop).into_json(state.urls.curies())
}
