//! A price list's items: listed and read one by one, written in all-or-nothing batches of
//! tiers for the seller's own variants, and deleted one at a time. Each write records one
//! event embedding the items it changed.

use std::collections::HashMap;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::{FieldErrors, Scope, topic};
use storage::price_lists::{self, ItemFilter, NewItem};
use storage::{ScopedExt, variants};

use super::input::ItemBatch;
use super::representation::{item_resource, list_with_items};
use super::{ITEM_LIST, document, locked, record};
use crate::events::WriteCtx;
use crate::kernel::auth::Auth;
use crate::kernel::conditional::check_preconditions;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::ListRequest;
use crate::kernel::query::QueryParams;
use crate::kernel::state::AppState;

pub async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let tenant = auth.own_tenant()?;
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &ITEM_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    let filter = ItemFilter {
        variant_ids: request.params.id_list("variant_ids", &mut errors),
        product_ids: request.params.id_list("product_ids", &mut errors),
    };
    errors.into_result()?;
    let list = price_lists::find(&state.db, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let (rows, total) =
        price_lists::list_items(&state.db, id, &filter, request.sort, request.window()).await?;
    let items = rows
        .iter()
        .map(|i| item_resource(&state.urls, &auth, &list, i))
        .collect();
    let path = format!("/price_lists/{id}/items");
    Ok(request.respond(&ITEM_LIST, &state, &path, total, items))
}

pub async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, item_id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let list = price_lists::find(&state.db, auth.own_tenant()?, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let item = price_lists::find_item(&state.db, id, item_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc = item_resource(&state.urls, &auth, &list, &item).into_value(state.urls.curies());
    Ok(Hal::ok(doc, item.updated_on))
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
    let tenant = auth.own_tenant()?;
    let mut errors = FieldErrors::new();
    let drafts = batch.validate(&mut errors);
    let ctx = WriteCtx::new(&state, &auth);
    let (headers, drafts, found) = (&headers, &drafts, &errors);
    let urls = &state.urls;
    let (list, rows, stored) = state
        .write(|tx| {
            async move {
                let mut errors = found.clone();
                // Variants are held before the list is locked, the order of
                // `storage::locks` (deletes take them in it too).
                let seller_id = price_lists::find(&mut *tx, tenant, id)
                    .await?
                    .ok_or_else(ApiError::not_found)?
                    .seller_id;
                let mut variant_ids: Vec<i64> = drafts.iter().map(|d| d.variant_id).collect();
                variant_ids.sort_unstable();
                variant_ids.dedup();
                let products: HashMap<i64, i64> =
                    variants::hold_of_seller(tx, seller_id, &variant_ids)
                        .await?
                        .into_iter()
                        .map(|v| (v.id, v.product_id))
                        .collect();
                let mut rows = Vec::with_capacity(drafts.len());
                for draft in drafts {
                    match products.get(&draft.variant_id) {
                        Some(&product_id) => rows.push(NewItem {
                            variant_id: draft.variant_id,
                            product_id,
                            min_quantity: draft.min_quantity,
                            price: draft.price,
                            price_comparison: draft.price_comparison,
                        }),
                        None => errors.add(
                            format!("items[{}].variant_id", draft.index),
                            "is not a variant of the price list's seller",
                        ),
                    }
                }
                errors.into_result()?;
                let list = locked(tx, tenant, id).await?;
                check_preconditions(headers, &document(ctx, &list), list.updated_on)?;
                let written = price_lists::upsert_items(tx, id, &rows, ctx.now).await?;
                let list = if written.is_empty() {
                    list
                } else {
                    price_lists::reread(tx, id).await?
                };
                if !written.is_empty() {
                    let event_doc =
                        list_with_items(urls, ctx.auth, &list, &written).into_value(urls.curies());
                    record(tx, ctx, topic::PRICE_LIST_ITEMS_UPSERTED, &list, &event_doc).await?;
                }
                let stored = price_lists::items_of_variants(&mut *tx, id, &variant_ids).await?;
                Ok((list, rows, stored))
            }
            .scoped()
        })
        .await?;
    let batch_items: Vec<_> = rows
        .iter()
        .filter_map(|row| {
            stored
                .iter()
                .find(|i| i.variant_id == row.variant_id && i.min_quantity == row.min_quantity)
                .cloned()
        })
        .collect();
    let doc = list_with_items(urls, &auth, &list, &batch_items).into_value(urls.curies());
    Ok(Hal::ok(doc, list.updated_on))
}

/// Deletes one item; answers it as GET showed it.
pub async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, item_id): NestedIds,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(&state, &auth);
    let (headers, urls) = (&headers, &state.urls);
    let doc = state
        .write(|tx| {
            async move {
                let list = locked(tx, tenant, id).await?;
                let item = price_lists::find_item(&mut *tx, id, item_id)
                    .await?
                    .ok_or_else(ApiError::not_found)?;
                let doc = item_resource(urls, ctx.auth, &list, &item).into_value(urls.curies());
                check_preconditions(headers, &doc, item.updated_on)?;
                price_lists::delete_item(tx, id, item_id, ctx.now).await?;
                let list = price_lists::reread(tx, id).await?;
                let event_doc = list_with_items(urls, ctx.auth, &list, std::slice::from_ref(&item))
                    .into_value(urls.curies());
                record(tx, ctx, topic::PRICE_LIST_ITEMS_DELETED, &list, &event_doc).await?;
                Ok(doc)
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, ctx.now))
}
