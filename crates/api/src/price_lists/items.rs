//! A price list's items: listed and read one by one, written in batches and deleted one at
//! a time (the writes are `services::price_lists`).

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::Scope;
use services::price_lists::input::ItemBatch;
use services::price_lists::{self as operations};
use storage::price_lists::{self, ItemFilter};

use super::ITEM_LIST;
use super::representation::{item_resource, list_with_items};
use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let (request, filter) = ITEM_LIST.read(query.as_deref(), |params, errors| ItemFilter {
        variant_ids: params.id_list("variant_ids", errors),
        product_ids: params.id_list("product_ids", errors),
    })?;
    let list = auth
        .find(|tenant| price_lists::find(&state.db, tenant, id))
        .await?;
    let page =
        price_lists::list_items(&state.db, id, &filter, request.sort, request.window()).await?;
    let path = super::area::ITEMS.with(&[id]);
    Ok(request
        .respond(&state, &path, page, |i| {
            item_resource(&state.urls, auth.scopes, &list, i)
        })
        .showing(AccountData::own(&auth)))
}

pub async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, item_id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let list = auth
        .find(|tenant| price_lists::find(&state.db, tenant, id))
        .await?;
    let item = price_lists::find_item(&state.db, id, item_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc = item_resource(&state.urls, auth.scopes, &list, &item).into_value(state.urls.curies());
    Ok(Hal::ok(doc, item.updated_on).showing(AccountData::own(&auth)))
}

/// Writes a batch of tiers: each new (variant, min_quantity) is added, an existing one
/// gets the new prices. Answers the list with every item of the batch embedded.
pub async fn upsert(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(batch): JsonBody<ItemBatch>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let expect = IfMatch(&headers);
    let actor = auth.actor()?;
    let written = operations::upsert_items(&state.services, &actor, id, &expect, batch).await?;
    let urls = &state.urls;
    let doc =
        list_with_items(urls, auth.scopes, &written.list, &written.items).into_value(urls.curies());
    Ok(Hal::ok(doc, written.list.updated_on))
}

/// Deletes one item; answers it as GET showed it.
pub async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, item_id): NestedIds,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let expect = IfMatch(&headers);
    let actor = auth.actor()?;
    let removed = operations::remove_item(&state.services, &actor, id, item_id, &expect).await?;
    let urls = &state.urls;
    let doc =
        item_resource(urls, auth.scopes, &removed.list, &removed.item).into_value(urls.curies());
    Ok(Hal::ok(doc, state.clock.now()))
}
