//! Pricing an order: each wanted line checked against what the shop may sell and priced
//! by the price-list rule for its quantity at that instant, then the order's totals.

use domain::catalog::pricing::{BasePrice, Purchase, resolve};
use domain::order::{self, Totals, TotalsError};
use domain::{FieldErrors, Timestamp};
use storage::orders::{self, LineData};
use storage::shops::Shop;
use storage::{Tx, price_lists};

use super::input::WantedLine;
use crate::ServiceResult;

/// The lines for `wanted`: each variant must be the shop's seller's, its product available
/// in the shop and priced in the shop's currency; the unit price is what the price lists
/// give a buyer of that quantity now, else the variant's price. Problems go to `errors`
/// as `lines[i].variant_id`.
pub(super) async fn priced_lines(
    tx: &mut Tx,
    shop: &Shop,
    wanted: &[WantedLine],
    contact_id: Option<i64>,
    now: Timestamp,
    errors: &mut FieldErrors,
) -> ServiceResult<Vec<LineData>> {
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<i64> = wanted.iter().map(|w| w.variant_id).collect();
    let found = orders::sellable(&mut *tx, shop.seller_id, shop.id, &ids).await?;
    let purchase = Purchase {
        at: now,
        currency_code: &shop.currency_code,
        contact_id,
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
pub(super) fn order_totals(
    lines: &mut [LineData],
    shipping_total: i64,
    errors: &mut FieldErrors,
) -> Totals {
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
