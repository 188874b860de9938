//! Shops: list, read, create under a seller, and change settings.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::shop::Storefront;
use domain::{FieldErrors, Scope};
use serde_json::Value;
use services::shops::input::{NewShop, ShopChanges};
use services::shops::{self as operations};
use storage::shops::{self, Shop, ShopFilter};
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::{ListRequest, ListSpec};
use crate::kernel::query::QueryParams;
use crate::kernel::state::AppState;

pub use representation::shop_resource;

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
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &SHOP_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    let params = &request.params;
    let storefront = params
        .get("storefront")
        .and_then(|v| match v.parse::<Storefront>() {
            Ok(s) => Some(s),
            Err(e) => {
                errors.add("storefront", e.to_string());
                None
            }
        });
    let filter = ShopFilter {
        seller_ids: params.id_list("seller_ids", &mut errors),
        subdomains: params.list("subdomains"),
        storefront,
        q: params.get("q").map(str::to_owned),
        created_on: params.time_range("created_on", &mut errors),
        updated_on: params.time_range("updated_on", &mut errors),
    };
    errors.into_result()?;
    let (rows, total) = auth
        .tenant_page(|tenant| {
            shops::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    let items = rows
        .iter()
        .map(|shop| shop_resource(&state.urls, auth.scopes, shop))
        .collect();
    Ok(request.respond(&SHOP_LIST, &state, area::SHOPS.pattern(), total, items))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsRead)?;
    let tenant = auth.own_tenant()?;
    let shop = shops::find(&state.db, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Hal::ok(document(&state, &auth, &shop), shop.updated_on))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(seller_id): ResourceId,
    JsonBody(input): JsonBody<NewShop>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let shop = operations::create(&state.services, &auth.actor()?, seller_id, input).await?;
    Ok(Hal::created(
        document(&state, &auth, &shop),
        state.urls.shop(shop.id),
        shop.updated_on,
    ))
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
    let shop = operations::update(&state.services, &auth.actor()?, id, &expect, changes).await?;
    Ok(Hal::ok(document(&state, &auth, &shop), shop.updated_on))
}

/// A shop as the principal's GET shows it.
fn document(state: &AppState, auth: &Auth, shop: &Shop) -> Value {
    shop_resource(&state.urls, auth.scopes, shop).into_value(state.urls.curies())
}
