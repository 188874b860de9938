//! A price list's items: written in all-or-nothing batches of tiers for the seller's own
//! variants, and deleted one at a time. Each write records one event embedding the items
//! it changed.

use std::collections::HashMap;

use domain::{FieldErrors, topic};
use storage::price_lists::{self as stored, NewItem, PriceList, PriceListItem};
use storage::{ScopedExt, variants};

use super::input::ItemBatch;
use super::{expect_list, locked, record};
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services};

/// A list after a batch, with the batch's items as stored, in the batch's order.
#[derive(Debug)]
pub struct ListWithItems {
    pub list: PriceList,
    pub items: Vec<PriceListItem>,
}

/// A deleted item, and its list as it was when the item was deleted.
#[derive(Debug)]
pub struct RemovedItem {
    pub list: PriceList,
    pub item: PriceListItem,
}

/// Writes a batch of tiers: each new (variant, min_quantity) is added, an existing one
/// gets the new prices.
pub async fn upsert_items(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    batch: ItemBatch,
) -> ServiceResult<ListWithItems> {
    let mut errors = FieldErrors::new();
    let drafts = batch.validate(&mut errors);
    let op = Op::new(services, actor);
    let (drafts, found) = (&drafts, &errors);
    let (list, rows, stored) = services
        .write(|tx| {
            async move {
                let tenant = op.actor.tenant;
                let mut errors = found.clone();
                // Variants are held before the list is locked, the order of
                // `storage::locks` (deletes take them in it too).
                let seller_id = stored::find(&mut *tx, tenant, id)
                    .await?
                    .ok_or(ServiceError::NotFound)?
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
                expect_list(op, &list, expect)?;
                let written = stored::upsert_items(tx, id, &rows, op.now).await?;
                let list = if written.is_empty() {
                    list
                } else {
                    stored::reread(tx, id).await?
                };
                if !written.is_empty() {
                    let doc = op
                        .present()
                        .price_list_with_items(op.actor.scopes, &list, &written);
                    record(tx, op, topic::PRICE_LIST_ITEMS_UPSERTED, &list, &doc).await?;
                }
                let stored = stored::items_of_variants(&mut *tx, id, &variant_ids).await?;
                Ok((list, rows, stored))
            }
            .scoped()
        })
        .await?;
    let items = rows
        .iter()
        .filter_map(|row| {
            stored
                .iter()
                .find(|i| i.variant_id == row.variant_id && i.min_quantity == row.min_quantity)
                .cloned()
        })
        .collect();
    Ok(ListWithItems { list, items })
}

/// Deletes one item.
pub async fn remove_item(
    services: &Services,
    actor: &Actor,
    id: i64,
    item_id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<RemovedItem> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let list = locked(tx, op.actor.tenant, id).await?;
                let item = stored::find_item(&mut *tx, id, item_id)
                    .await?
                    .ok_or(ServiceError::NotFound)?;
                let shown = || op.present().price_list_item(op.actor.scopes, &list, &item);
                expect.check(&shown, item.updated_on)?;
                stored::delete_item(tx, id, item_id, op.now).await?;
                let after = stored::reread(tx, id).await?;
                let doc = op.present().price_list_with_items(
                    op.actor.scopes,
                    &after,
                    std::slice::from_ref(&item),
                );
                record(tx, op, topic::PRICE_LIST_ITEMS_DELETED, &after, &doc).await?;
                Ok(RemovedItem { list, item })
            }
            .scoped()
        })
        .await
}
