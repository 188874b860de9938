//! Shops: list, read, create under a seller, and change settings.

pub mod area;
mod input;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::shop::Storefront;
use domain::{FieldErrors, Scope, topic};
use storage::shops::{self, ShopFilter};
use storage::sql::Direction;
use storage::{ScopedExt, sellers};

use crate::events::{self, Change};
use crate::kernel::auth::Auth;
use crate::kernel::conditional::check_preconditions;
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
        .map(|shop| shop_resource(&state.urls, &auth, shop))
        .collect();
    Ok(request.respond(&SHOP_LIST, &state, "/shops", total, items))
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
    let doc = shop_resource(&state.urls, &auth, &shop).into_value(state.urls.curies());
    Ok(Hal::ok(doc, shop.updated_on))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(seller_id): ResourceId,
    JsonBody(input): JsonBody<input::NewShop>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let tenant = auth.own_tenant()?;
    let seller = sellers::find(&state.db, tenant, seller_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let (subdomain, settings) = input.validate(&seller)?;
    let now = state.clock.now();
    let (seller, subdomain, settings) = (&seller, &subdomain, &settings);
    let (urls, auth) = (&state.urls, &auth);
    let (shop, doc) = state
        .write(|tx| {
            async move {
                let shop =
                    shops::insert(tx, seller.account_id, seller.id, subdomain, settings, now)
                        .await?;
                let doc = shop_resource(urls, auth, &shop).into_value(urls.curies());
                events::record(
                    tx,
                    auth,
                    Change::of_shop(topic::SHOPS_CREATED, &shop, &doc),
                    now,
                )
                .await?;
                Ok((shop, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::created(doc, state.urls.shop(shop.id), shop.updated_on))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<input::ShopChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let tenant = auth.own_tenant()?;
    let now = state.clock.now();
    let (headers, changes) = (&headers, &changes);
    let (urls, auth) = (&state.urls, &auth);
    let (shop, doc) = state
        .write(|tx| {
            async move {
                let current = shops::find_for_update(tx, tenant, id)
                    .await?
                    .ok_or_else(ApiError::not_found)?;
                let current_doc = shop_resource(urls, auth, &current).into_value(urls.curies());
                check_preconditions(headers, &current_doc, current.updated_on)?;
                let settings = changes.clone().apply(&current)?;
                if settings == current.settings() {
                    return Ok((current, current_doc));
                }
                let shop = shops::update(tx, id, &settings, now).await?;
                let doc = shop_resource(urls, auth, &shop).into_value(urls.curies());
                events::record(
                    tx,
                    auth,
                    Change::of_shop(topic::SHOPS_UPDATED, &shop, &doc),
                    now,
                )
                .await?;
                Ok((shop, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, shop.updated_on))
}
