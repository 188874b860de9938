//! Subscription purchases: opened when an order with recurring lines is paid, one per line,
//! each in the transaction that records the payment, with its event.
//!
//! A purchase copies its fee's terms as they are when it opens (the fee may change or go
//! later): the interval, the day renewals keep to, and the renewal price of its units in
//! the order's currency. The opening order paid the first cycle and the setup fee; the
//! first renewal is set by the fee's `on_first_renewal`.

use domain::order::OrderStatus;
use domain::subscription::billing::Billing;
use domain::{CalendarDate, ScopeSet, topic};
use serde_json::Value;
use storage::orders::{Order, OrderLine};
use storage::shops::Shop;
use storage::subscription_fees;
use storage::subscription_purchases::{self as stored, NewPurchase, SubscriptionPurchase};
use storage::{Tx, payments};

use crate::events::Change;
use crate::{Op, ServiceResult};

/// How a purchase looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn subscription_purchase(&self, viewer: ScopeSet, purchase: &SubscriptionPurchase) -> Value;
}

/// Opens a purchase for each recurring line of an order just paid in full (locked by the
/// caller) that has none yet; a line whose fee was deleted since opens none.
pub(crate) async fn open_for_paid_order(
    tx: &mut Tx,
    op: Op<'_>,
    shop: &Shop,
    order: &Order,
    lines: &[OrderLine],
) -> ServiceResult<()> {
    let recurring: Vec<&OrderLine> = lines
        .iter()
        .filter(|l| l.sold.subscription_fee_id.is_some())
        .collect();
    if recurring.is_empty() || order.status == OrderStatus::Cancelled {
        return Ok(());
    }
    let opened = stored::of_order(tx, order.id).await?;
    let variant_ids: Vec<i64> = recurring.iter().filter_map(|l| l.sold.variant_id).collect();
    let fees = subscription_fees::of_variants(&mut *tx, order.account_id, &variant_ids).await?;
    let fees = subscription_fees::priced(&mut *tx, fees).await?;
    let saved_card = payments::saved_card_of_order(tx, order.id).await?;
    let start = CalendarDate::of(op.now);
    for line in recurring {
        if opened.iter().any(|p| p.original_line_id == line.id) {
            continue;
        }
        let Some(priced) = fees
            .iter()
            .find(|f| Some(f.fee.id) == line.sold.subscription_fee_id)
        else {
            tracing::warn!(
                order = order.id,
                line = line.id,
                "a recurring line's subscription fee was deleted before the order was paid: no purchase opened"
            );
            continue;
        };
        let unit_price = in_order_currency(order, priced.renewal_fee_price());
        let billing = Billing::opening(&priced.fee.terms(), line.sold.quantity, unit_price, start);
        let new = NewPurchase {
            account_id: order.account_id,
            seller_id: order.seller_id,
            shop_id: order.shop_id,
            contact_id: order.contact_id,
            original_order_id: order.id,
            original_line_id: line.id,
            product_id: line.sold.product_id,
            variant_id: line.sold.variant_id,
            product_name: &line.sold.title,
            subscription_fee_id: priced.fee.id,
            currency_code: &order.currency_code,
            units: line.sold.quantity,
            paid_setup_fee: line.sold.setup_fee > 0,
            start_date: start,
            payment_method_id: order.payment_method_id,
            saved_card: saved_card.as_deref(),
            billing,
        };
        let purchase = stored::insert(tx, &new, op.now).await?;
        record(
            tx,
            op,
            topic::SUBSCRIPTION_PURCHASES_CREATED,
            shop,
            &purchase,
        )
        .await?;
    }
    Ok(())
}

/// `amount` of the shop's currency in the order's, at the rate the order was priced with.
fn in_order_currency(order: &Order, amount: i64) -> i64 {
    let rate = order
        .basis
        .exchange_rate
        .and_then(domain::exchange::ExchangeRate::from_millionths);
    match (rate, order.basis.base_currency_code.as_deref()) {
        (Some(rate), Some(base)) => rate
            .convert(amount, base, &order.currency_code)
            .unwrap_or(amount),
        _ => amount,
    }
}

/// The purchase as a GET by the actor shows it.
pub(crate) fn show(op: Op<'_>, purchase: &SubscriptionPurchase) -> Value {
    op.present()
        .subscription_purchase(op.actor.scopes, purchase)
}

/// Records a change of the purchase, heard in its shop, with the purchase as a GET by the
/// actor shows it; returns that document.
pub(crate) async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    shop: &Shop,
    purchase: &SubscriptionPurchase,
) -> ServiceResult<Value> {
    let doc = show(op, purchase);
    let change = Change::in_shop(
        topic,
        shop,
        "subscription_purchase",
        purchase.id,
        None,
        &doc,
    );
    op.record(tx, change).await?;
    Ok(doc)
}
