//! Shipping tables: a shop's ways of shipping, listed and read with `shops.read`,
//! created, changed and deleted with `shops.write`.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use domain::shipping::ShippingMethod;
use services::shipping_tables::input::{NewShippingTable, ShippingTableChanges};
use services::shipping_tables::{self as operations};
use storage::shipping_tables::{self, ShippingTableFilter};
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;
use crate::shops::{shop_setting, tenant_shop};

pub use representation::{ShippingTableFields, shipping_table_resource};

pub static SHIPPING_TABLE_LIST: ListSpec = ListSpec {
    name: "shipping_tables",
    default_per_page: 20,
    sort_fields: shipping_tables::SORT_FIELDS,
    default_sort: ("position", Direction::Asc),
    filters: &["enabled", "method"],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsRead)?;
    let (request, filter) =
        SHIPPING_TABLE_LIST.read(query.as_deref(), |params, errors| ShippingTableFilter {
            enabled: params.parsed("enabled", errors),
            methods: params.parsed_list::<ShippingMethod>("method", errors),
        })?;
    let shop = tenant_shop(&state, &auth, shop_id).await?;
    let page =
        shipping_tables::list(&state.db, shop.id, &filter, request.sort, request.window()).await?;
    let path = area::SHIPPING_TABLES.with(&[shop.id]);
    Ok(request
        .respond(&state, &path, page, |t| {
            shipping_table_resource(&state.urls, auth.scopes, t)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsRead)?;
    let db = &state.db;
    let table = shop_setting(
        &auth,
        shop_id,
        |tenant| shipping_tables::find(db, tenant, id),
        |t| t.shop_id,
    )
    .await?;
    let doc =
        shipping_table_resource(&state.urls, auth.scopes, &table).into_json(state.urls.curies());
    Ok(Hal::ok(doc, table.updated_on).showing(AccountData::own(&auth)))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    JsonBody(input): JsonBody<NewShippingTable>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, shop_id, input).await?;
    let location = state.urls.shipping_table(shop_id, made.value.id);
    Ok(Hal::created(made.document, location, made.value.updated_on))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<ShippingTableChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let expect = IfMatch(&headers);
    let ids = (shop_id, id);
    let changed =
        operations::update(&state.services, &auth.actor()?, ids, &expect, changes).await?;
    Ok(Hal::ok(changed.document, changed.value.updated_on))
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let expect = IfMatch(&headers);
    let ids = (shop_id, id);
    let deleted = operations::delete(&state.services, &auth.actor()?, ids, &expect).await?;
    Ok(Hal::ok(deleted.document, state.clock.now()))
}
