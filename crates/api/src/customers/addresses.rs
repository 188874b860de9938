//! A customer's addresses: listed and read one by one, added, changed and deleted (the
//! writes are `services::customers`, which answer the customer they belong to).

use axum::extract::{RawQuery, State};
use domain::Scope;
use services::customers::input::{AddressChanges, NewAddress};
use services::customers::{self as operations, FullCustomer};
use storage::customers::CustomerAddress;
use storage::sql::Direction;

use super::ADDRESS_LIST;
use super::representation::{View, address_in_view, address_resource};
use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::ListRequest;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersRead)?;
    let full = super::find(&state, &auth, id).await?;
    let (request, page) = address_page(query.as_deref(), &full)?;
    let path = super::area::ADDRESSES.with(&[id]);
    Ok(request
        .respond(&state, &path, page, |a| {
            address_resource(&state.urls, auth.scopes, &full.customer, a)
        })
        .showing(AccountData::own(&auth)))
}

/// The page of a customer's addresses the query asks for (they are few: never more than
/// one page of the default size).
pub fn address_page(
    query: Option<&str>,
    full: &FullCustomer,
) -> ApiResult<(ListRequest, (Vec<CustomerAddress>, u64))> {
    let (request, ()) = ADDRESS_LIST.read(query, |_, _| ())?;
    let mut addresses = full.addresses.clone();
    if request.sort.direction == Direction::Desc {
        addresses.reverse();
    }
    let window = request.window();
    let total = addresses.len() as u64;
    let page = addresses
        .into_iter()
        .skip(usize::try_from(window.offset).unwrap_or(usize::MAX))
        .take(usize::try_from(window.limit).unwrap_or(usize::MAX))
        .collect();
    Ok((request, (page, total)))
}

pub async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, address_id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersRead)?;
    let full = super::find(&state, &auth, id).await?;
    let (doc, updated_on) = address_document(&state, View::Staff(auth.scopes), &full, address_id)?;
    Ok(Hal::ok(doc, updated_on).showing(AccountData::own(&auth)))
}

pub async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    JsonBody(input): JsonBody<NewAddress>,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersWrite)?;
    let (written, address_id) =
        operations::create_address(&state.services, &auth.actor()?, id, input).await?;
    let (doc, updated_on) =
        address_document(&state, View::Staff(auth.scopes), &written.value, address_id)?;
    let location = state.urls.customer_address(id, address_id);
    Ok(Hal::created(doc, location, updated_on))
}

pub async fn update(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, address_id): NestedIds,
    JsonBody(changes): JsonBody<AddressChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersWrite)?;
    let written =
        operations::update_address(&state.services, &auth.actor()?, id, address_id, changes)
            .await?;
    let (doc, updated_on) =
        address_document(&state, View::Staff(auth.scopes), &written.value, address_id)?;
    Ok(Hal::ok(doc, updated_on))
}

/// Deletes the address; answers it as it was (the defaults it held included).
pub async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, address_id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::CustomersWrite)?;
    let (_, before) =
        operations::delete_address(&state.services, &auth.actor()?, id, address_id).await?;
    let (doc, _) = address_document(&state, View::Staff(auth.scopes), &before, address_id)?;
    Ok(Hal::ok(doc, state.clock.now()))
}

/// One of the customer's addresses as `view` shows it, with its last change; 404 when the
/// customer has no such address.
pub fn address_document(
    state: &AppState,
    view: View,
    full: &FullCustomer,
    address_id: i64,
) -> ApiResult<(serde_json::Value, domain::Timestamp)> {
    let address = full
        .addresses
        .iter()
        .find(|a| a.id == address_id)
        .ok_or_else(ApiError::not_found)?;
    let doc =
        address_in_view(&state.urls, view, &full.customer, address).into_value(state.urls.curies());
    Ok((doc, address.updated_on))
}
