//! A shop's payment methods, read with `shops.read` and added, changed and deleted with
//! `shops.write` (the writes are `services::payment_methods`; secret settings go through
//! the secret box and never come back).

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use services::payment_methods::input::{NewPaymentMethod, PaymentMethodChanges};
use services::payment_methods::{self as operations};
use storage::payment_methods;
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

pub use representation::{PaymentMethodFields, payment_method_resource};

/// A shop's methods: at most `services::payment_methods::METHODS_MAX`.
pub static METHOD_LIST: ListSpec = ListSpec {
    name: "payment_methods",
    default_per_page: 50,
    sort_fields: payment_methods::SORT_FIELDS,
    default_sort: ("position", Direction::Asc),
    filters: &[],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsRead)?;
    let (request, ()) = METHOD_LIST.read(query.as_deref(), |_, _| ())?;
    tenant_shop(&state, &auth, shop_id).await?;
    let page = payment_methods::of_shop(&state.db, shop_id, request.sort, request.window()).await?;
    let path = area::METHODS.with(&[shop_id]);
    Ok(request
        .respond(&state, &path, page, |m| {
            payment_method_resource(&state.urls, auth.scopes, m)
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
    let method = shop_setting(
        &auth,
        shop_id,
        |tenant| payment_methods::find(db, tenant, id),
        |m| m.shop_id,
    )
    .await?;
    let doc =
        payment_method_resource(&state.urls, auth.scopes, &method).into_value(state.urls.curies());
    Ok(Hal::ok(doc, method.updated_on).showing(AccountData::own(&auth)))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    JsonBody(input): JsonBody<NewPaymentMethod>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let made = operations::create(
        &state.services,
        &auth.actor()?,
        state.auth.secret_box(),
        shop_id,
        input,
    )
    .await?;
    let method = &made.value;
    Ok(Hal::created(
        made.document,
        state.urls.payment_method(shop_id, method.id),
        method.updated_on,
    ))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<PaymentMethodChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let changed = operations::update(
        &state.services,
        &auth.actor()?,
        state.auth.secret_box(),
        (shop_id, id),
        &IfMatch(&headers),
        changes,
    )
    .await?;
    Ok(Hal::ok(changed.document, changed.value.updated_on))
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let deleted = operations::delete(
        &state.services,
        &auth.actor()?,
        (shop_id, id),
        &IfMatch(&headers),
    )
    .await?;
    Ok(Hal::ok(deleted.document, state.clock.now()))
}
