//! Subscription purchases: customers' subscriptions, opened by paid recurring orders, listed
//! and read with `orders.read`, changed with `orders.write`.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use domain::subscription::purchase::PurchaseState;
use storage::sql::Direction;
use storage::subscription_purchases::{self, PurchaseFilter};

use services::subscription_purchases::{self as operations, input::PurchaseChanges};

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{SubscriptionPurchaseFields, subscription_purchase_resource};

pub static SUBSCRIPTION_PURCHASE_LIST: ListSpec = ListSpec {
    name: "subscription_purchases",
    // Subscription lists default to 50 a page.
    default_per_page: 50,
    sort_fields: subscription_purchases::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "state",
        "shop_id",
        "contact_id",
        "product_id",
        "subscription_fee_id",
        "next_payment_on.gte",
        "next_payment_on.lte",
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
    auth.require(Scope::OrdersRead)?;
    let (request, filter) =
        SUBSCRIPTION_PURCHASE_LIST.read(query.as_deref(), |params, errors| PurchaseFilter {
            states: params.parsed_list::<PurchaseState>("state", errors),
            shop_ids: params.id_list("shop_id", errors),
            contact_ids: params.id_list("contact_id", errors),
            product_ids: params.id_list("product_id", errors),
            subscription_fee_ids: params.id_list("subscription_fee_id", errors),
            next_payment_on: params.date_range("next_payment_on", errors),
            created_on: params.time_range("created_on", errors),
            updated_on: params.time_range("updated_on", errors),
        })?;
    let page = auth
        .tenant_page(|tenant| {
            subscription_purchases::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    Ok(request
        .respond(&state, area::SUBSCRIPTION_PURCHASES.pattern(), page, |p| {
            subscription_purchase_resource(&state.urls, auth.scopes, p)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersRead)?;
    let purchase = auth
        .find(|tenant| subscription_purchases::find(&state.db, tenant, id))
        .await?;
    let doc = subscription_purchase_resource(&state.urls, auth.scopes, &purchase)
        .into_json(state.urls.curies());
    Ok(Hal::ok(doc, purchase.updated_on).showing(AccountData::own(&auth)))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<PurchaseChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersWrite)?;
    let expect = IfMatch(&headers);
    let changed = operations::update(&state.services, &auth.actor()?, id, &expect, changes).await?;
    Ok(Hal::ok(changed.document, changed.value.updated_on))
}
