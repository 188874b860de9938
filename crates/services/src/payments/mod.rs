//! Payments as records: the gateways charges and refunds go through, the request a
//! payment is made with, the refunds a cancel opens and their settlement, and the
//! `orders.payments.created` / `orders.refunds.created` events. Paying an order (which
//! may close it) is `orders::payments`, built on this.

pub mod gateway;
pub mod input;
pub mod refunds;

use domain::order::OrderStatus;
use domain::payment::{Balance, PaymentStatus};
use domain::{ScopeSet, topic};
use serde_json::Value;
use storage::Tx;
use storage::orders::{self, Order};
use storage::payment_methods::{self, PaymentMethod};
use storage::payments::{Outcome, Payment};
use storage::secret_box::SecretBox;
use storage::shops::{self, Shop};

use self::gateway::Credentials;
use crate::events::Change;
use crate::{Op, ServiceError, ServiceResult};

pub use refunds::settle_refunds;

/// How a payment looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn payment(&self, viewer: ScopeSet, payment: &Payment) -> Value;
}

/// An order's money as its row holds it (pending charges aside).
pub fn balance_of(order: &Order) -> Balance {
    Balance {
        total: order.total,
        paid_total: order.paid_total,
        refunded_total: order.refunded_total,
        pending_total: 0,
        cancelled: order.status == OrderStatus::Cancelled,
    }
}

/// The method's settings and opened secrets, as its gateway reads them.
pub(crate) async fn credentials_of(
    tx: &mut Tx,
    secret_box: &SecretBox,
    method: &PaymentMethod,
) -> ServiceResult<Credentials> {
    let sealed = payment_methods::secrets_sealed(&mut *tx, method.id).await?;
    let mut credentials = crate::payment_methods::secrets_of(secret_box, sealed.as_deref())?;
    for (key, value) in &method.settings.0 {
        credentials.insert(key.clone(), value.clone());
    }
    Ok(credentials)
}

/// The key a gateway knows an attempt by: the same attempt, the same key.
pub(crate) fn attempt_key(payment: &Payment) -> String {
    format!("payment-{}", payment.id)
}

/// How a gateway's answer is recorded.
pub(crate) fn recorded_outcome(outcome: &gateway::Outcome) -> Outcome {
    match outcome {
        gateway::Outcome::Approved {
            reference,
            saved_card,
        } => Outcome {
            status: PaymentStatus::Approved,
            reference: Some(reference.clone()),
            failure_code: None,
            failure_message: None,
            saved_card: saved_card.clone(),
        },
        gateway::Outcome::Declined { code, message } => Outcome {
            status: PaymentStatus::Declined,
            reference: None,
            failure_code: Some(code.clone()),
            failure_message: Some(message.clone()),
            saved_card: None,
        },
        gateway::Outcome::Error { code, message } => Outcome {
            status: PaymentStatus::Failed,
            reference: None,
            failure_code: Some(code.clone()),
            failure_message: Some(message.clone()),
            saved_card: None,
        },
    }
}

pub(crate) async fn shop_of(tx: &mut Tx, op: Op<'_>, shop_id: i64) -> ServiceResult<Shop> {
    shops::find(&mut *tx, op.actor.tenant, shop_id)
        .await?
        .ok_or_else(|| ServiceError::internal(format!("shop {shop_id} is not found")))
}

/// The payment as a GET by the actor shows it.
pub(crate) fn show(op: Op<'_>, payment: &Payment) -> Value {
    op.present().payment(op.actor.scopes, payment)
}

/// Records a payment's event, heard by its order's shop's subscriptions; answers the
/// document it carried.
pub(crate) async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    shop: &Shop,
    payment: &Payment,
) -> ServiceResult<Value> {
    let doc = show(op, payment);
    let change = Change::in_shop(topic, shop, "payment", payment.id, None, &doc);
    op.record(tx, change).await?;
    Ok(doc)
}

/// Records `orders.updated` for a change of the order's money (a payment or a refund)
/// that made no move: subscribers keeping `paid_total`, `refunded_total` or `outstanding`
/// hear of it, with the order as a GET by the actor shows it now.
pub(crate) async fn record_money_change(
    tx: &mut Tx,
    op: Op<'_>,
    shop: &Shop,
    order_id: i64,
) -> ServiceResult<()> {
    let order = orders::find(&mut *tx, op.actor.tenant, order_id)
        .await?
        .ok_or_else(|| ServiceError::internal(format!("order {order_id} is not found")))?;
    let lines = orders::lines_of(&mut *tx, &[order_id]).await?;
    let doc = op.present().order(op.actor.scopes, &order, &lines);
    let code = order.code.to_string();
    let change = Change::in_shop(
        topic::ORDERS_UPDATED,
        shop,
        "order",
        order.id,
        Some(&code),
        &doc,
    );
    op.record(tx, change).await?;
    Ok(())
}
