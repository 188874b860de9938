//! Subscription fees: the recurring terms a variant is sold on, listed and read with
//! `products.read`, created, changed and deleted with `products.write`.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use domain::subscription::PaymentInterval;
use services::subscription_fees::input::{NewSubscriptionFee, SubscriptionFeeChanges};
use services::subscription_fees::{self as operations};
use storage::sql::Direction;
use storage::subscription_fees::{self, SubscriptionFeeFilter};

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{SubscriptionFeeFields, subscription_fee_resource};

pub static SUBSCRIPTION_FEE_LIST: ListSpec = ListSpec {
    name: "subscription_fees",
    // Subscription lists default to 50 a page.
    default_per_page: 50,
    sort_fields: subscription_fees::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "product_id",
        "variant_id",
        "payment_interval",
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
        SUBSCRIPTION_FEE_LIST.read(query.as_deref(), |params, errors| SubscriptionFeeFilter {
            seller_ids: params.id_list("seller_ids", errors),
            product_ids: params.id_list("product_id", errors),
            variant_ids: params.id_list("variant_id", errors),
            payment_intervals: params.parsed_list::<PaymentInterval>("payment_interval", errors),
            created_on: params.time_range("created_on", errors),
            updated_on: params.time_range("updated_on", errors),
        })?;
    let page = auth
        .tenant_page(|tenant| {
            subscription_fees::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    Ok(request
        .respond(&state, area::SUBSCRIPTION_FEES.pattern(), page, |fee| {
            subscription_fee_resource(&state.urls, auth.scopes, fee)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let fee = auth
        .find(|tenant| subscription_fees::find(&state.db, tenant, id))
        .await?;
    let doc =
        subscription_fee_resource(&state.urls, auth.scopes, &fee).into_json(state.urls.curies());
    Ok(Hal::ok(doc, fee.fee.updated_on).showing(AccountData::own(&auth)))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewSubscriptionFee>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, input).await?;
    let location = state.urls.subscription_fee(made.value.fee.id);
    Ok(Hal::created(
        made.document,
        location,
        made.value.fee.updated_on,
    ))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<SubscriptionFeeChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let expect = IfMatch(&headers);
    let changed = operations::update(
        &state.services,
        &auth.actor()?,
        state.auth.secret_box(),
        id,
        &expect,
        changes,
    )
    .await?;
    Ok(Hal::ok(changed.document, changed.value.fee.updated_on))
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
