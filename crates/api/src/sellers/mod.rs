//! Sellers: read-only, `GET /v2/sellers` and `GET /v2/sellers/{id}`.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use domain::{FieldErrors, Scope};
use storage::sellers::{self, SellerFilter};
use storage::shops;
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::ResourceId;
use crate::kernel::list::{ListRequest, ListSpec};
use crate::kernel::query::QueryParams;
use crate::kernel::state::AppState;

pub use representation::seller_resource;

pub static SELLER_LIST: ListSpec = ListSpec {
    name: "sellers",
    default_per_page: 20,
    sort_fields: sellers::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "q",
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
    auth.require(Scope::SellersRead)?;
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &SELLER_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    let filter = SellerFilter {
        q: request.params.get("q").map(str::to_owned),
        created_on: request.params.time_range("created_on", &mut errors),
        updated_on: request.params.time_range("updated_on", &mut errors),
    };
    errors.into_result()?;
    let (rows, total) = auth
        .tenant_page(|tenant| {
            sellers::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    let shops = if auth.has(Scope::ShopsRead) {
        let ids: Vec<i64> = rows.iter().map(|s| s.id).collect();
        shops::of_sellers(&state.db, &ids).await?
    } else {
        Vec::new()
    };
    let items = rows
        .iter()
        .map(|seller| {
            let own = shops.iter().filter(|s| s.seller_id == seller.id);
            seller_resource(&state.urls, &auth, seller, Some(own))
        })
        .collect();
    Ok(request.respond(&SELLER_LIST, &state, area::SELLERS.pattern(), total, items))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::SellersRead)?;
    let tenant = auth.own_tenant()?;
    let seller = sellers::find(&state.db, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let shops = if auth.has(Scope::ShopsRead) {
        shops::of_sellers(&state.db, &[seller.id]).await?
    } else {
        Vec::new()
    };
    let doc = seller_resource(&state.urls, &auth, &seller, Some(shops.iter()))
        .into_value(state.urls.curies());
    Ok(Hal::ok(doc, seller.updated_on))
}
