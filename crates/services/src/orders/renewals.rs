//! Renewal orders: the order that bills one cycle of a subscription purchase. It is placed
//! at once (taking its stock, with the events of an order created and placed), priced by
//! the purchase rather than the catalog: one line of the purchase's units for
//! `total_renewal_fee`, less the cycle's discount. It ships where the opening order
//! shipped, names the purchase's payment method, and charges no shipping.

use domain::CalendarDate;
use domain::order::{self, Transition};
use domain::{FieldErrors, topic};
use storage::Tx;
use storage::orders::{
    self as stored, LineData, OrderDetails, PaymentChoice, PricingBasis, RenewalOf,
};
use storage::payment_methods;
use storage::shops::Shop;
use storage::subscription_purchases::SubscriptionPurchase;

use super::{FullOrder, apply_move, record, reload};
use crate::{Op, ServiceError, ServiceResult};

/// What one cycle of a purchase bills.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cycle {
    pub on: CalendarDate,
    /// Minor units taken off `total_renewal_fee`.
    pub discount: i64,
}

/// Writes and places the renewal order of `purchase` for `cycle`, marked as that cycle's
/// (a second for the same cycle is refused by the unique index). A variant out of stock
/// and not sold on backorder refuses the placement (422), and nothing is written.
pub(crate) async fn place(
    tx: &mut Tx,
    op: Op<'_>,
    shop: &Shop,
    purchase: &SubscriptionPurchase,
    cycle: Cycle,
) -> ServiceResult<FullOrder> {
    let opening = match purchase.original_order_id {
        Some(id) => stored::find(&mut *tx, op.actor.tenant, id).await?,
        None => None,
    };
    let opening_line = match &opening {
        Some(o) => stored::lines_of(&mut *tx, &[o.id])
            .await?
            .into_iter()
            .find(|l| l.id == purchase.original_line_id),
        None => None,
    };
    let details = OrderDetails {
        contact_id: purchase.contact_id,
        email: opening.as_ref().and_then(|o| o.email.clone()),
        contact_name: opening.as_ref().and_then(|o| o.contact_name.clone()),
        phone_number: opening.as_ref().and_then(|o| o.phone_number.clone()),
        shipping_address: opening.as_ref().and_then(|o| o.shipping_address.0.clone()),
        billing_address: opening.as_ref().and_then(|o| o.billing_address.0.clone()),
        note: String::new(),
        payment_method: payment_choice(tx, op, purchase).await?,
    };
    let fee = purchase.total_renewal_fee;
    // Whole units when the fee divides by them; else the cycle as one line.
    let (unit_price, quantity) = if purchase.units > 0 && fee % purchase.units == 0 {
        (fee / purchase.units, purchase.units)
    } else {
        (fee, 1)
    };
    let line = LineData {
        product_id: purchase.product_id,
        variant_id: purchase.variant_id,
        title: purchase.product_name.clone(),
        variant_title: opening_line
            .as_ref()
            .map(|l| l.sold.variant_title.clone())
            .unwrap_or_default(),
        sku: opening_line.and_then(|l| l.sold.sku),
        unit_price,
        quantity,
        subscription_fee_id: None,
        setup_fee: 0,
        line_total: fee,
    };
    let totals = order::totals([(unit_price, quantity)], 0, cycle.discount, 0)
        .map_err(|_| ServiceError::internal("a renewal's amounts out of range"))?;
    let code = stored::next_code(tx, shop.id).await?;
    let new = stored::NewOrder {
        account_id: purchase.account_id,
        seller_id: purchase.seller_id,
        shop_id: purchase.shop_id,
        code,
        currency_code: &purchase.currency_code,
        details: &details,
        basis: &PricingBasis::default(),
        totals,
        app_id: None,
        renewal: Some(RenewalOf {
            purchase_id: purchase.id,
            on: cycle.on,
        }),
    };
    let id = stored::insert(tx, &new, op.now).await?;
    stored::insert_lines(tx, id, &[line]).await?;
    let written = reload(tx, op, id).await?;
    record(tx, op, topic::ORDERS_CREATED_CHECKOUT, shop, &written).await?;
    let placed = apply_move(tx, op, written, Transition::Place, None, FieldErrors::new()).await?;
    Ok(placed.value)
}

/// Closes a renewal order that charges nothing (a cycle discounted in full).
pub(crate) async fn close_free(tx: &mut Tx, op: Op<'_>, order: FullOrder) -> ServiceResult<()> {
    apply_move(tx, op, order, Transition::Close, None, FieldErrors::new()).await?;
    Ok(())
}

/// Cancels a renewal order left unpaid when its purchase failed, giving its stock back.
pub(crate) async fn cancel_unpaid(tx: &mut Tx, op: Op<'_>, order: FullOrder) -> ServiceResult<()> {
    if order.order.status == domain::order::OrderStatus::Placed && order.order.paid_total == 0 {
        apply_move(tx, op, order, Transition::Cancel, None, FieldErrors::new()).await?;
    }
    Ok(())
}

/// The purchase's payment method, as an order names it, if it still exists.
async fn payment_choice(
    tx: &mut Tx,
    op: Op<'_>,
    purchase: &SubscriptionPurchase,
) -> ServiceResult<Option<PaymentChoice>> {
    let Some(id) = purchase.payment_method_id else {
        return Ok(None);
    };
    let method = payment_methods::find(&mut *tx, op.actor.tenant, id)
        .await?
        .filter(|m| m.shop_id == purchase.shop_id);
    Ok(method.map(|m| PaymentChoice {
        id: m.id,
        method_type: m.method_type,
        name: m.name,
    }))
}
