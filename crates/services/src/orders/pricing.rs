//! Pricing an order: each wanted line checked against what the shop may sell and priced
//! by the price-list rule for its quantity at that instant, its shipping from the table it
//! names, everything converted to the order's currency by the shop's exchange rate, then
//! the order's totals.
//!
//! Lines and shipping tables are priced in the shop's currency, and a table's ranges and
//! `free_over` compare the order's net total in that currency. An order in another
//! currency converts each unit price and its shipping once (`domain::exchange`'s rounding
//! rule) and adds up the converted amounts, so every total is the exact sum of what the
//! order shows. Discounts and taxes are 0: prices include taxes, and discounts come from
//! price lists, which set the unit price itself. A recurring line (one naming a
//! subscription fee of its variant) also charges the fee's setup fee once, in its total.

use domain::catalog::pricing::{BasePrice, Purchase, resolve};
use domain::exchange::ExchangeRate;
use domain::order::{self, Address, Totals, TotalsError};
use domain::shipping::{NotApplicable, Parcel, ShippingMethod};
use domain::{FieldErrors, Timestamp};
use storage::orders::{self, LineData, PricingBasis};
use storage::shops::Shop;
use storage::subscription_fees::{self, SubscriptionFee};
use storage::{Tx, exchange_rates, price_lists, shipping_tables};

use super::input::{ShippingChoice, WantedLine};
use crate::ServiceResult;

/// What an order is priced with besides its lines.
#[derive(Clone, Copy, Debug)]
pub(super) struct Terms<'a> {
    pub contact_id: Option<i64>,
    /// `None`: the shop's.
    pub currency_code: Option<&'a str>,
    pub shipping: ShippingChoice,
    pub shipping_address: Option<&'a Address>,
}

/// A priced order: its lines (totals set), its totals, what it was priced with, and its
/// currency.
#[derive(Clone, Debug, Default)]
pub(super) struct Priced {
    pub lines: Vec<LineData>,
    pub totals: Totals,
    pub basis: PricingBasis,
    pub currency_code: String,
}

/// Prices `wanted` for the shop under `terms` now; problems go to `errors` under the
/// request's field names.
pub(super) async fn price(
    tx: &mut Tx,
    shop: &Shop,
    wanted: &[WantedLine],
    terms: Terms<'_>,
    now: Timestamp,
    errors: &mut FieldErrors,
) -> ServiceResult<Priced> {
    let (mut lines, weight_in_grams) =
        priced_lines(tx, shop, wanted, terms.contact_id, now, errors).await?;
    let net_in_shop_currency = lines
        .iter()
        .filter_map(|l| order::line_total(l.unit_price, l.quantity))
        .fold(0_i64, i64::saturating_add);
    let currency_code = terms
        .currency_code
        .unwrap_or(&shop.currency_code)
        .to_owned();
    let rate = exchange_rate(tx, shop, &currency_code, errors).await?;
    let mut basis = PricingBasis {
        weight_in_grams,
        base_currency_code: rate.map(|_| shop.currency_code.clone()),
        exchange_rate: rate.map(ExchangeRate::millionths),
        ..PricingBasis::default()
    };
    let shipping_total = match terms.shipping {
        ShippingChoice::Custom(amount) => amount,
        ShippingChoice::Table(id) => {
            let parcel = Parcel {
                weight_in_grams,
                net_total: net_in_shop_currency,
            };
            let quote =
                shipping_quote(tx, shop, id, terms.shipping_address, parcel, errors).await?;
            basis.shipping_table_id = Some(id);
            basis.shipping_description = quote.as_ref().map(|(name, _)| name.clone());
            let amount = quote.map_or(0, |(_, amount)| amount);
            convert(
                rate,
                amount,
                shop,
                &currency_code,
                "shipping_table_id",
                errors,
            )
        }
    };
    if let Some(rate) = rate {
        for (i, line) in lines.iter_mut().enumerate() {
            let field = format!("lines[{i}].variant_id");
            line.unit_price = convert(
                Some(rate),
                line.unit_price,
                shop,
                &currency_code,
                &field,
                errors,
            );
            let field = format!("lines[{i}].subscription_fee_id");
            line.setup_fee = convert(
                Some(rate),
                line.setup_fee,
                shop,
                &currency_code,
                &field,
                errors,
            );
        }
    }
    let totals = order_totals(&mut lines, shipping_total, errors);
    Ok(Priced {
        lines,
        totals,
        basis,
        currency_code,
    })
}

/// The shop's rate to `currency_code`: none for its own currency, a 422 on `currency_code`
/// when it has no rate to it.
async fn exchange_rate(
    tx: &mut Tx,
    shop: &Shop,
    currency_code: &str,
    errors: &mut FieldErrors,
) -> ServiceResult<Option<ExchangeRate>> {
    if currency_code == shop.currency_code {
        return Ok(None);
    }
    let found = exchange_rates::between(&mut *tx, shop.id, &shop.currency_code, currency_code)
        .await?
        .and_then(|r| ExchangeRate::from_millionths(r.rate));
    if found.is_none() {
        errors.add(
            "currency_code",
            format!(
                "the shop sells in {} and has no exchange rate to {currency_code}",
                shop.currency_code
            ),
        );
    }
    Ok(found)
}

/// `amount` of the shop's currency in the order's; one too large for an order goes to
/// `errors` under `field`.
fn convert(
    rate: Option<ExchangeRate>,
    amount: i64,
    shop: &Shop,
    currency_code: &str,
    field: &str,
    errors: &mut FieldErrors,
) -> i64 {
    let Some(rate) = rate else {
        return amount;
    };
    rate.convert(amount, &shop.currency_code, currency_code)
        .unwrap_or_else(|| {
            errors.add(
                field,
                format!("costs more than the largest amount in {currency_code}"),
            );
            0
        })
}

/// The name of the shop's table `id` and what it charges for `parcel` to `address`, in
/// the shop's currency; a table that is not the shop's, is disabled or does not apply is
/// a 422 on `shipping_table_id`.
async fn shipping_quote(
    tx: &mut Tx,
    shop: &Shop,
    id: i64,
    address: Option<&Address>,
    parcel: Parcel,
    errors: &mut FieldErrors,
) -> ServiceResult<Option<(String, i64)>> {
    const FIELD: &str = "shipping_table_id";
    let tables = shipping_tables::enabled_of_shop(&mut *tx, shop.id).await?;
    let Some(table) = tables.iter().find(|t| t.id == id) else {
        errors.add(
            FIELD,
            "is not an enabled shipping table of the order's shop",
        );
        return Ok(None);
    };
    let rules = table.rules();
    match rules.quote(address, parcel) {
        Ok(amount) => Ok(Some((table.name.clone(), amount))),
        Err(NotApplicable::Address) => {
            let message = if address.is_some() {
                "does not ship to the order's shipping address"
            } else {
                "ships only to the countries it lists: give the order a shipping address"
            };
            errors.add(FIELD, message);
            Ok(None)
        }
        Err(NotApplicable::Parcel) => {
            let measure = match rules.method {
                ShippingMethod::Weight => format!("weight ({} g)", parcel.weight_in_grams),
                _ => format!("net total ({} {})", parcel.net_total, shop.currency_code),
            };
            errors.add(FIELD, format!("has no rate for the order's {measure}"));
            Ok(None)
        }
    }
}

/// The lines for `wanted` in the shop's currency, and their weight in grams: each variant
/// must be the shop's seller's, its product available in the shop and priced in the
/// shop's currency; the unit price is what the price lists give a buyer of that quantity
/// now, else the variant's price. Problems go to `errors` as `lines[i].variant_id`.
async fn priced_lines(
    tx: &mut Tx,
    shop: &Shop,
    wanted: &[WantedLine],
    contact_id: Option<i64>,
    now: Timestamp,
    errors: &mut FieldErrors,
) -> ServiceResult<(Vec<LineData>, i64)> {
    if wanted.is_empty() {
        return Ok((Vec::new(), 0));
    }
    let ids: Vec<i64> = wanted.iter().map(|w| w.variant_id).collect();
    let found = orders::sellable(&mut *tx, shop.seller_id, shop.id, &ids).await?;
    let purchase = Purchase {
        at: now,
        currency_code: &shop.currency_code,
        contact_id,
    };
    let lists = price_lists::pricing_lists(&mut *tx, shop.seller_id, &purchase, &ids).await?;
    let fees = subscription_fees::of_variants(&mut *tx, shop.account_id, &ids).await?;
    let mut lines = Vec::with_capacity(wanted.len());
    let mut weight: i64 = 0;
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
        // Weights and quantities are capped far below where this could wrap; saturating
        // keeps a parcel beyond every range beyond every range.
        let line_weight = variant
            .weight_in_grams
            .unwrap_or(0)
            .saturating_mul(line.quantity);
        weight = weight.saturating_add(line_weight);
        let base = BasePrice {
            price: variant.price,
            price_comparison: variant.price_comparison,
        };
        let unit_price = resolve(base, line.quantity, &lists.candidates(variant.variant_id)).price;
        let Some(setup_fee) = setup_fee(i, line, &fees, errors) else {
            continue;
        };
        lines.push(LineData {
            product_id: variant.product_id,
            variant_id: Some(variant.variant_id),
            title: variant.title.clone(),
            variant_title: variant.variant_title.clone(),
            sku: variant.sku.clone(),
            unit_price,
            quantity: line.quantity,
            subscription_fee_id: line.subscription_fee_id,
            setup_fee,
            // Set by `order_totals`, which checks it.
            line_total: 0,
        });
    }
    Ok((lines, weight))
}

/// The setup fee a wanted line charges: its fee's, which must be one of its variant's;
/// nothing for a one-off line, which its variant's fees must allow. `None` when the line
/// is refused (the reason in `errors`).
fn setup_fee(
    i: usize,
    line: &WantedLine,
    fees: &[SubscriptionFee],
    errors: &mut FieldErrors,
) -> Option<i64> {
    let field = format!("lines[{i}].subscription_fee_id");
    let of_variant = || fees.iter().filter(|f| f.variant_id == line.variant_id);
    match line.subscription_fee_id {
        Some(id) => match of_variant().find(|f| f.id == id) {
            Some(fee) => Some(fee.setup_fee),
            None => {
                errors.add(
                    field,
                    format!(
                        "{id} is not a subscription fee of variant {}",
                        line.variant_id
                    ),
                );
                None
            }
        },
        None => {
            let ids: Vec<String> = of_variant().map(|f| f.id.to_string()).collect();
            if !ids.is_empty() && of_variant().all(|f| !f.allow_non_recurring_payment) {
                errors.add(
                    field,
                    format!(
                        "is required: variant {} is sold by subscription only (its fees: {})",
                        line.variant_id,
                        ids.join(", ")
                    ),
                );
                return None;
            }
            Some(0)
        }
    }
}

/// The order's totals from its lines (whose `line_total` it sets) and shipping; amounts
/// too large for the order go to `errors`.
fn order_totals(lines: &mut [LineData], shipping_total: i64, errors: &mut FieldErrors) -> Totals {
    for line in lines.iter_mut() {
        line.line_total = order::line_total(line.unit_price, line.quantity)
            .and_then(|goods| order::line_total(goods + line.setup_fee, 1))
            .unwrap_or(0);
    }
    // A line's setup fee counts as one more unit priced at it: line i's amounts are the
    // pair 2i (goods) and 2i + 1 (setup).
    let amounts = lines
        .iter()
        .flat_map(|l| [(l.unit_price, l.quantity), (l.setup_fee, 1)]);
    match order::totals(amounts, shipping_total, 0, 0) {
        Ok(totals) => totals,
        Err(TotalsError::Line(pair)) => {
            let i = pair / 2;
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
