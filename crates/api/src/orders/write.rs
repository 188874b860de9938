//! Writing orders: the checks that need the database (variants the shop may sell, their
//! prices by the price-list rule), the moves of the state machine with their stock
//! changes, and each write's event, all in one transaction.

use std::collections::BTreeSet;

use axum::http::HeaderMap;
use domain::catalog::pricing::{BasePrice, Purchase, resolve};
use domain::order::{self, StockEffect, Totals, TotalsError, Transition};
use domain::{FieldErrors, Timestamp, topic};
use serde_json::Value;
use storage::locks::{self, Catalog};
use storage::orders::{self, LineData, NewOrder, Order, OrderLine};
use storage::shops::{self, Shop};
use storage::variants::{self, StockChange, Variant};
use storage::{ScopedExt, Tenant, Tx, collections, price_lists, products, tenant_rows};

use super::input::{self, OrderChanges, ShipInput, WantedLine};
use super::representation::order_resource;
use crate::events::{Change, WriteCtx};
use crate::kernel::auth::Auth;
use crate::kernel::conditional::check_preconditions;
use crate::kernel::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Creates an order in checkout in the shop; answers it as a GET would show it.
pub async fn create(
    state: &AppState,
    auth: &Auth,
    shop_id: i64,
    input: input::NewOrder,
) -> ApiResult<(Order, Value)> {
    let tenant = auth.own_tenant()?;
    let mut errors = FieldErrors::new();
    let draft = input.validate(&mut errors);
    let ctx = WriteCtx::new(state, auth);
    let (draft, found) = (&draft, &errors);
    state
        .write(|tx| {
            async move {
                let mut errors = found.clone();
                let shop = shops::find(&mut *tx, tenant, shop_id)
                    .await?
                    .ok_or_else(ApiError::not_found)?;
                let wanted = draft.lines.as_deref().unwrap_or_default();
                let mut lines = priced_lines(tx, &shop, wanted, ctx.now, &mut errors).await?;
                let totals = order_totals(&mut lines, draft.shipping_total, &mut errors);
                errors.into_result()?;

                let code = orders::next_code(tx, shop.id).await?;
                let new = NewOrder {
                    account_id: shop.account_id,
                    seller_id: shop.seller_id,
                    shop_id: shop.id,
                    code,
                    currency_code: &shop.currency_code,
                    details: &draft.details,
                    totals,
                    app_id: Some(auth.app_id),
                };
                let id = orders::insert(tx, &new, ctx.now).await?;
                orders::write_lines(tx, id, &lines).await?;
                let (order, doc) = reload(tx, state, auth, tenant, id).await?;
                record(tx, ctx, topic::ORDERS_CREATED_CHECKOUT, &shop, &order, &doc).await?;
                Ok((order, doc))
            }
            .scoped()
        })
        .await
}

/// Applies changes to an order; answers it as a GET would show it.
pub async fn update(
    state: &AppState,
    auth: &Auth,
    id: i64,
    headers: &HeaderMap,
    changes: OrderChanges,
) -> ApiResult<(Order, Value)> {
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(state, auth);
    let changes = &changes;
    state
        .write(|tx| {
            async move {
                let (current, current_lines, current_doc) =
                    locked(tx, state, auth, tenant, id).await?;
                check_preconditions(headers, &current_doc, current.updated_on)?;
                let mut errors = FieldErrors::new();
                let draft = changes.clone().apply(&current, &mut errors);
                let shop = shop_of(tx, tenant, &current).await?;
                let before: Vec<LineData> = current_lines.iter().map(|l| l.sold.clone()).collect();
                let mut lines = match &draft.lines {
                    Some(wanted) => priced_lines(tx, &shop, wanted, ctx.now, &mut errors).await?,
                    None => before.clone(),
                };
                let totals = order_totals(&mut lines, draft.shipping_total, &mut errors);
                errors.into_result()?;

                let mut order = current.clone();
                order.set_details(draft.details);
                order.set_totals(totals);
                if order == current && lines == before {
                    return Ok((current, current_doc));
                }
                orders::save(tx, &order, ctx.now).await?;
                if lines != before {
                    orders::write_lines(tx, id, &lines).await?;
                }
                let (order, doc) = reload(tx, state, auth, tenant, id).await?;
                record(tx, ctx, topic::ORDERS_UPDATED, &shop, &order, &doc).await?;
                Ok((order, doc))
            }
            .scoped()
        })
        .await
}

/// Moves an order along the state machine, taking or giving back its stock as the move
/// says; answers it as a GET would show it. `ship` carries the tracking.
pub async fn transition(
    state: &AppState,
    auth: &Auth,
    id: i64,
    headers: &HeaderMap,
    transition: Transition,
    shipment: Option<ShipInput>,
) -> ApiResult<(Order, Value)> {
    let tenant = auth.own_tenant()?;
    let mut errors = FieldErrors::new();
    let tracking = shipment.map(|s| s.validate(&mut errors));
    let ctx = WriteCtx::new(state, auth);
    let (tracking, found) = (&tracking, &errors);
    state
        .write(|tx| {
            async move {
                let mut errors = found.clone();
                let (current, lines, current_doc) = locked(tx, state, auth, tenant, id).await?;
                check_preconditions(headers, &current_doc, current.updated_on)?;
                let (to, effect) = match order::transition(current.status, transition) {
                    Ok(outcome) => outcome,
                    Err(refused) => {
                        errors.add("status", refused.to_string());
                        return Err(errors.into());
                    }
                };
                errors.into_result()?;
                if effect != StockEffect::None {
                    move_stock(tx, ctx, tenant, &current, &lines, effect).await?;
                }
                let mut order = current.clone();
                order.enter(to, ctx.now);
                if let Some(tracking) = tracking {
                    order.set_tracking(tracking.clone());
                }
                orders::save(tx, &order, ctx.now).await?;
                let shop = shop_of(tx, tenant, &order).await?;
                let (order, doc) = reload(tx, state, auth, tenant, id).await?;
                record(tx, ctx, transition.topic(), &shop, &order, &doc).await?;
                Ok((order, doc))
            }
            .scoped()
        })
        .await
}

/// Deletes an order still in checkout; answers it as a GET showed it before.
pub async fn delete(
    state: &AppState,
    auth: &Auth,
    id: i64,
    headers: &HeaderMap,
) -> ApiResult<Value> {
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(state, auth);
    state
        .write(|tx| {
            async move {
                let (current, _, doc) = locked(tx, state, auth, tenant, id).await?;
                check_preconditions(headers, &doc, current.updated_on)?;
                if !current.status.is_editable() {
                    return Err(ApiError::invalid_field(
                        "status",
                        format!(
                            "only an order in checkout can be deleted (it is {}); cancel it instead",
                            current.status
                        ),
                    ));
                }
                let shop = shop_of(tx, tenant, &current).await?;
                tenant_rows::delete(tx, orders::TABLE, tenant, id).await?;
                record(tx, ctx, topic::ORDERS_DELETED, &shop, &current, &doc).await?;
                Ok(doc)
            }
            .scoped()
        })
        .await
}

/// The order with its lines, locked, and as the principal would GET it.
async fn locked(
    tx: &mut Tx,
    state: &AppState,
    auth: &Auth,
    tenant: Tenant,
    id: i64,
) -> ApiResult<(Order, Vec<OrderLine>, Value)> {
    let order = orders::find_for_update(tx, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let lines = orders::lines_of(&mut *tx, &[id]).await?;
    let doc = order_resource(&state.urls, auth, &order, &lines).into_value(state.urls.curies());
    Ok((order, lines, doc))
}

/// The order as a GET by its tenant shows it, read inside the transaction.
async fn reload(
    tx: &mut Tx,
    state: &AppState,
    auth: &Auth,
    tenant: Tenant,
    id: i64,
) -> ApiResult<(Order, Value)> {
    let order = orders::find(&mut *tx, tenant, id)
        .await?
        .ok_or_else(|| ApiError::internal(format!("order {id}, just written, is not found")))?;
    let lines = orders::lines_of(&mut *tx, &[id]).await?;
    let doc = order_resource(&state.urls, auth, &order, &lines).into_value(state.urls.curies());
    Ok((order, doc))
}

async fn shop_of(tx: &mut Tx, tenant: Tenant, order: &Order) -> ApiResult<Shop> {
    shops::find(&mut *tx, tenant, order.shop_id)
        .await?
        .ok_or_else(|| ApiError::internal(format!("order {}'s shop is not found", order.id)))
}

/// Records an order event, heard by the subscriptions of the order's shop.
async fn record(
    tx: &mut Tx,
    ctx: WriteCtx<'_>,
    topic: &'static str,
    shop: &Shop,
    order: &Order,
    doc: &Value,
) -> ApiResult<i64> {
    let code = order.code.to_string();
    let change = Change::in_shop(topic, shop, "order", order.id, Some(&code), doc);
    ctx.record(tx, change).await
}

/// The lines for `wanted`: each variant must be the shop's seller's, its product available
/// in the shop and priced in the shop's currency; the unit price is what the price lists
/// give a buyer of that quantity now, else the variant's price. Problems go to `errors`
/// as `lines[i].variant_id`.
async fn priced_lines(
    tx: &mut Tx,
    shop: &Shop,
    wanted: &[WantedLine],
    now: Timestamp,
    errors: &mut FieldErrors,
) -> ApiResult<Vec<LineData>> {
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<i64> = wanted.iter().map(|w| w.variant_id).collect();
    let found = orders::sellable(&mut *tx, shop.seller_id, shop.id, &ids).await?;
    let purchase = Purchase {
        at: now,
        currency_code: &shop.currency_code,
        contact_id: None,
    };
    let lists = price_lists::pricing_lists(&mut *tx, shop.seller_id, &purchase, &ids).await?;
    let mut lines = Vec::with_capacity(wanted.len());
    for (i, line) in wanted.iter().enumerate() {
        let field = format!("lines[{i}].variant_id");
        let Some(variant) = found.iter().find(|v| v.variant_id == line.variant_id) else {
            errors.add(
                field,
                format!("{} is not a variant of the shop's seller", line.variant_id),
            );
            continue;
        };
        if !variant.in_shop {
            errors.add(
                field,
                format!(
                    "{}'s product is not available in this shop",
                    line.variant_id
                ),
            );
            continue;
        }
        if variant.currency_code != shop.currency_code {
            errors.add(
                field,
                format!(
                    "{}'s product is priced in {}, and the shop sells in {}",
                    line.variant_id, variant.currency_code, shop.currency_code
                ),
            );
            continue;
        }
        let base = BasePrice {
            price: variant.price,
            price_comparison: variant.price_comparison,
        };
        let unit_price = resolve(base, line.quantity, &lists.candidates(variant.variant_id)).price;
        lines.push(LineData {
            product_id: variant.product_id,
            variant_id: Some(variant.variant_id),
            title: variant.title.clone(),
            variant_title: variant.variant_title.clone(),
            sku: variant.sku.clone(),
            unit_price,
            quantity: line.quantity,
            // Set by `order_totals`, which checks it.
            line_total: 0,
        });
    }
    Ok(lines)
}

/// The order's totals from its lines (whose `line_total` it sets) and shipping; amounts
/// too large for the order go to `errors`.
fn order_totals(lines: &mut [LineData], shipping_total: i64, errors: &mut FieldErrors) -> Totals {
    for line in lines.iter_mut() {
        line.line_total = order::line_total(line.unit_price, line.quantity).unwrap_or(0);
    }
    match order::totals(
        lines.iter().map(|l| (l.unit_price, l.quantity)),
        shipping_total,
        0,
        0,
    ) {
        Ok(totals) => totals,
        Err(TotalsError::Line(i)) => {
            errors.add(
                format!("lines[{i}].quantity"),
                "makes the line's total larger than the largest amount",
            );
            Totals::default()
        }
        Err(TotalsError::Total) => {
            errors.add(
                "lines",
                "make the order's total larger than the largest amount",
            );
            Totals::default()
        }
    }
}

/// Takes each line's quantity from its variant's stock, in variant order (so that
/// concurrent placements lock rows in the same order). A variant without enough stock, not
/// sold on backorder, or gone, makes the whole placement a 422 naming every such line.
async fn take_stock(tx: &mut Tx, lines: &[OrderLine], now: Timestamp) -> ApiResult<Vec<Variant>> {
    let mut errors = FieldErrors::new();
    let mut changed = Vec::with_capacity(lines.len());
    let mut order: Vec<(usize, &OrderLine)> = lines.iter().enumerate().collect();
    order.sort_by_key(|(_, l)| l.sold.variant_id);
    for (i, line) in order {
        let Some(variant_id) = line.sold.variant_id else {
            continue;
        };
        match variants::adjust_stock(
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
) -> ApiResult<Vec<Variant>> {
    let mut order: Vec<&OrderLine> = lines.iter().collect();
    order.sort_by_key(|l| l.sold.variant_id);
    let mut changed = Vec::with_capacity(lines.len());
    for line in order {
        if let Some(variant_id) = line.sold.variant_id
            && let StockChange::Applied(variant) = variants::adjust_stock(
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
async fn move_stock(
    tx: &mut Tx,
    ctx: WriteCtx<'_>,
    tenant: Tenant,
    order: &Order,
    lines: &[OrderLine],
    effect: StockEffect,
) -> ApiResult<()> {
    locks::seller_catalog(tx, order.seller_id, Catalog::Shared).await?;
    let product_ids: BTreeSet<i64> = lines.iter().map(|l| l.sold.product_id).collect();
    let mut locked = Vec::with_capacity(product_ids.len());
    for id in product_ids {
        locked.extend(products::find_for_update(tx, tenant, id).await?);
    }
    let changed = match effect {
        StockEffect::Take => take_stock(tx, lines, ctx.now).await?,
        StockEffect::Restore => restore_stock(tx, lines, ctx.now).await?,
        StockEffect::None => Vec::new(),
    };
    for product in &locked {
        products::touch(tx, product.id, ctx.now).await?;
        collections::refresh_product(tx, product.seller_id, product.id).await?;
    }
    for variant in &changed {
        let Some(product) = locked.iter().find(|p| p.id == variant.product_id) else {
            continue;
        };
        let doc = crate::variants::document(ctx, tenant, variant);
        crate::variants::record(tx, ctx, topic::VARIANTS_UPDATED, product, variant, &doc).await?;
    }
    Ok(())
}
