//! Customers: a seller's contacts with their addresses, listed and read with
//! `customers.read`, created, changed and deleted with `customers.write`; and each
//! customer's orders.

mod addresses;

pub use addresses::{address_document, address_page};
pub mod area;
pub mod rels;
mod representation;

use std::future::Future;
use std::pin::Pin;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use domain::customer::{ADDRESSES_MAX, CustomerStatus};
use services::customers::input::{CustomerChanges, NewCustomer};
use services::customers::{self as operations, FullCustomer};
use storage::customers::{self, CustomerFilter};
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{
    AddressFields, CustomerFields, View, address_in_view, customer_in_view, customer_resource,
};

pub static CUSTOMER_LIST: ListSpec = ListSpec {
    name: "customers",
    default_per_page: 20,
    sort_fields: customers::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "q",
        "email",
        "tags",
        "status",
        "seller_ids",
        "created_on.gte",
        "created_on.lte",
        "updated_on.gte",
        "updated_on.lte",
    ],
};

/// A customer's addresses: never more than `ADDRESSES_MAX`, so one page holds them all.
pub static ADDRESS_LIST: ListSpec = ListSpec {
    name: "addresses",
    default_per_page: ADDRESSES_MAX as u64,
    sort_fields: &["id"],
    default_sort: ("id", Direction::Asc),
    filters: &[],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersRead)?;
    let (request, filter) = CUSTOMER_LIST.read(query.as_deref(), |params, errors| {
        let status = params.get("status").and_then(|s| {
            s.parse::<CustomerStatus>()
                .map_err(|e| errors.add("status", e.to_string()))
                .ok()
        });
        CustomerFilter {
            seller_ids: params.id_list("seller_ids", errors),
            q: params.get("q").map(str::to_owned),
            emails: params.list("email"),
            tags: params.list("tags"),
            status,
            created_on: params.time_range("created_on", errors),
            updated_on: params.time_range("updated_on", errors),
        }
    })?;
    let (rows, total) = auth
        .tenant_page(|tenant| {
            customers::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    let page = (FullCustomer::load_all(&state.db, rows).await?, total);
    Ok(request
        .respond(&state, area::CUSTOMERS.pattern(), page, |c| {
            customer_resource(&state.urls, auth.scopes, c)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersRead)?;
    let full = find(&state, &auth, id).await?;
    Ok(
        Hal::ok(document(&state, &auth, &full), full.customer.updated_on)
            .showing(AccountData::own(&auth)),
    )
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewCustomer>,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, input, hash_password).await?;
    let location = state.urls.customer(made.value.customer.id);
    Ok(Hal::created(
        made.document,
        location,
        made.value.customer.updated_on,
    ))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<CustomerChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersWrite)?;
    let expect = IfMatch(&headers);
    let ends_sessions = changes.gives_password();
    let actor = auth.actor()?;
    let changed =
        operations::update(&state.services, &actor, id, &expect, changes, hash_password).await?;
    if ends_sessions || !changed.value.customer.status.may_sign_in() {
        sessions_ended(&state).await?;
    }
    Ok(Hal::ok(changed.document, changed.value.customer.updated_on))
}

/// Makes the sessions a write just ended refused on this node at once (other nodes
/// read the revocations within a quarter of a second).
async fn sessions_ended(state: &AppState) -> ApiResult<()> {
    state.auth.refresh_revocations().await?;
    Ok(())
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersWrite)?;
    let expect = IfMatch(&headers);
    let deleted = operations::delete(&state.services, &auth.actor()?, id, &expect).await?;
    sessions_ended(&state).await?;
    Ok(Hal::ok(deleted.document, state.clock.now()))
}

/// The customer's orders: the order list narrowed to them.
async fn orders(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersRead)?;
    auth.require(Scope::OrdersRead)?;
    auth.find(|tenant| customers::find(&state.db, tenant, id))
        .await?;
    let path = area::CUSTOMER_ORDERS.with(&[id]);
    crate::orders::respond_list(
        &state,
        &auth,
        query.as_deref(),
        &path,
        crate::orders::Whose::Customer(id),
    )
    .await
}

/// How the operations hash a password: the auth service's argon2id, on its bounded pool.
pub(crate) fn hash_password(password: String) -> Pin<Box<dyn Future<Output = String> + Send>> {
    Box::pin(oauth::password::hash(password))
}

/// The customer with what it embeds, if the principal's tenant holds it.
pub(crate) async fn find(state: &AppState, auth: &Auth, id: i64) -> ApiResult<FullCustomer> {
    let customer = auth
        .find(|tenant| customers::find(&state.db, tenant, id))
        .await?;
    Ok(FullCustomer::load(&state.db, customer).await?)
}

/// A customer as the principal's GET shows it.
fn document(state: &AppState, auth: &Auth, full: &FullCustomer) -> Vec<u8> {
    customer_resource(&state.urls, auth.scopes, full).into_json(state.urls.curies())
}
