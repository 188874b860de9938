//! Sellers: read-only, `GET /v2/sellers` and `GET /v2/sellers/{id}`.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use domain::Scope;
use storage::sellers::{self, SellerFilter};
use storage::shops;
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::ResourceId;
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{SellerFields, seller_resource};

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
    let (request, filter) = SELLER_LIST.read(query.as_deref(), |params, errors| SellerFilter {
        q: params.get("q").map(str::to_owned),
        created_on: params.time_range("created_on", errors),
        updated_on: params.time_range("updated_on", errors),
    })?;
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
    Ok(request
        .respond(&state, area::SELLERS.pattern(), (rows, total), |seller| {
            let own = shops.iter().filter(|s| s.seller_id == seller.id);
            seller_resource(&state.urls, &auth, seller, Some(own))
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::SellersRead)?;
    let seller = auth
        .find(|tenant| sellers::find(&state.db, tenant, id))
        .await?;
    let shops = if auth.has(Scope::ShopsRead) {
        shops::of_sellers(&state.db, &[seller.id]).await?
    } else {
        Vec::new()
    };
    let doc = seller_resource(&state.urls, &auth, &seller, Some(shops.iter()))
        .into_json(state.urls.curies());
    Ok(Hal::ok(doc, seller.updated_on).showing(AccountData::own(&auth)))
}
