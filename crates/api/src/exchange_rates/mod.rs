//! Exchange rates: what one unit of a shop's currency buys of others, listed and read with
//! `shops.read`, created, changed and deleted with `shops.write`.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::{FieldErrors, Scope, validation};
use services::exchange_rates::input::{ExchangeRateChanges, NewExchangeRate};
use services::exchange_rates::{self as operations};
use storage::exchange_rates::{self, RateFilter};
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::query::QueryParams;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;
use crate::shops::{shop_setting, tenant_shop};

pub use representation::{ExchangeRateFields, exchange_rate_resource};

pub static EXCHANGE_RATE_LIST: ListSpec = ListSpec {
    name: "exchange_rates",
    default_per_page: 20,
    sort_fields: exchange_rates::SORT_FIELDS,
    default_sort: ("to_currency", Direction::Asc),
    filters: &["from_currency", "to_currency"],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsRead)?;
    let (request, filter) =
        EXCHANGE_RATE_LIST.read(query.as_deref(), |params, errors| RateFilter {
            from_currencies: currencies(params, "from_currency", errors),
            to_currencies: currencies(params, "to_currency", errors),
        })?;
    let shop = tenant_shop(&state, &auth, shop_id).await?;
    let page =
        exchange_rates::list(&state.db, shop.id, &filter, request.sort, request.window()).await?;
    let path = area::EXCHANGE_RATES.with(&[shop.id]);
    Ok(request
        .respond(&state, &path, page, |r| {
            exchange_rate_resource(&state.urls, auth.scopes, r)
        })
        .showing(AccountData::own(&auth)))
}

/// Currency codes a filter names, each checked.
fn currencies(params: &QueryParams, name: &str, errors: &mut FieldErrors) -> Option<Vec<String>> {
    let codes = params.list(name)?;
    for code in &codes {
        if let Err(message) = validation::currency_code(code) {
            errors.add(name, format!("`{code}` {message}"));
        }
    }
    Some(codes)
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsRead)?;
    let db = &state.db;
    let rate = shop_setting(
        &auth,
        shop_id,
        |tenant| exchange_rates::find(db, tenant, id),
        |r| r.shop_id,
    )
    .await?;
    let doc =
        exchange_rate_resource(&state.urls, auth.scopes, &rate).into_json(state.urls.curies());
    Ok(Hal::ok(doc, rate.updated_on).showing(AccountData::own(&auth)))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    JsonBody(input): JsonBody<NewExchangeRate>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, shop_id, input).await?;
    let location = state.urls.exchange_rate(shop_id, made.value.id);
    Ok(Hal::created(made.document, location, made.value.updated_on))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<ExchangeRateChanges>,
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
