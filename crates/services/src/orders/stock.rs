//! An order's stock: taken when it is placed, given back when it is cancelled, told of as
//! a stock adjustment tells of it.

use std::collections::BTreeSet;

use domain::order::StockEffect;
use domain::{FieldErrors, Timestamp, topic};
use storage::locks::{self, Catalog};
use storage::orders::{Order, OrderLine};
use storage::variants::{self as stored_variants, StockChange, Variant};
use storage::{Tx, collections, products};

use crate::{Op, ServiceResult, variants};

/// Takes each line's quantity from its variant's stock, in variant order (so that
/// concurrent placements lock rows in the same order). A variant without enough stock, not
/// sold on backorder, or gone, makes the whole placement a 422 naming every such line.
async fn take_stock(
    tx: &mut Tx,
    lines: &[OrderLine],
    now: Timestamp,
) -> ServiceResult<Vec<Variant>> {
    let mut errors = FieldErrors::new();
    let mut changed = Vec::with_capacity(lines.len());
    let mut order: Vec<(usize, &OrderLine)> = lines.iter().enumerate().collect();
    order.sort_by_key(|(_, l)| l.sold.variant_id);
    for (i, line) in order {
        let Some(variant_id) = line.sold.variant_id else {
            continue;
        };
        match stored_variants::adjust_stock(
            tx,
            line.sold.product_id,
            variant_id,
            -line.sold.quantity,
            now,
        )
        .await?
        {
            StockChange::Applied(variant) => changed.push(*variant),
            StockChange::Insufficient(stock) => errors.add(
                format!("lines[{i}].quantity"),
                format!(
                    "{} asked and {stock} in stock, and the variant is not sold on backorder",
                    line.sold.quantity
                ),
            ),
            StockChange::OutOfRange(stock) => errors.add(
                format!("lines[{i}].quantity"),
                format!(
                    "{} asked would take the stock ({stock}) out of range",
                    line.sold.quantity
                ),
            ),
            StockChange::NotFound => errors.add(
                format!("lines[{i}].variant_id"),
                format!("{variant_id} no longer exists"),
            ),
        }
    }
    errors.into_result()?;
    Ok(changed)
}

/// Gives each line's quantity back to its variant (those since deleted, or whose stock
/// is at its ceiling, are skipped).
async fn restore_stock(
    tx: &mut Tx,
    lines: &[OrderLine],
    now: Timestamp,
) -> ServiceResult<Vec<Variant>> {
    let mut order: Vec<&OrderLine> = lines.iter().collect();
    order.sort_by_key(|l| l.sold.variant_id);
    let mut changed = Vec::with_capacity(lines.len());
    for line in order {
        if let Some(variant_id) = line.sold.variant_id
            && let StockChange::Applied(variant) = stored_variants::adjust_stock(
                tx,
                line.sold.product_id,
                variant_id,
                line.sold.quantity,
                now,
            )
            .await?
        {
            changed.push(*variant);
        }
    }
    Ok(changed)
}

/// Takes or gives back the lines' stock and tells of it as a stock adjustment does: each
/// changed variant's `products.updated.variants.updated` event (subscribers keeping stock
/// levels hear of sales), its product's `updated_on` and smart collections. Locks are
/// taken in the order of `storage::locks`, as a stock adjustment takes them: the seller's
/// catalog, then the products in id order, then their variants.
pub(super) async fn move_stock(
    tx: &mut Tx,
    op: Op<'_>,
    order: &Order,
    lines: &[OrderLine],
    effect: StockEffect,
) -> ServiceResult<()> {
    locks::seller_catalog(tx, order.seller_id, Catalog::Shared).await?;
    let product_ids: BTreeSet<i64> = lines.iter().map(|l| l.sold.product_id).collect();
    let mut locked = Vec::with_capacity(product_ids.len());
    for id in product_ids {
        locked.extend(products::find_for_update(tx, op.actor.tenant, id).await?);
    }
    let changed = match effect {
        StockEffect::Take => take_stock(tx, lines, op.now).await?,
        StockEffect::Restore => restore_stock(tx, lines, op.now).await?,
        StockEffect::None => Vec::new(),
    };
    for product in &locked {
        products::touch(tx, product.id, op.now).await?;
        collections::refresh_product(tx, product.seller_id, product.id).await?;
    }
    for variant in &changed {
        let Some(product) = locked.iter().find(|p| p.id == variant.product_id) else {
            continue;
        };
        variants::record(tx, op, topic::VARIANTS_UPDATED, product, variant).await?;
    }
    Ok(())
}
