//! Refunds of a cancelled order's charges. The cancel's transaction writes one refund per
//! approved charge (a unique index on the charge makes a second impossible): a manual
//! method's is `recorded` at once (the merchant owes it and pays it back), a gateway's is
//! `pending`, due at once. Right after the cancel commits, its request makes the pending
//! refunds through their gateway (outside any transaction, keyed by the refund's id, so a
//! repeated call refunds once) and records each outcome under the order's lock.
//!
//! None is lost: a refund still pending (the request died, or the gateway failed) is due
//! again later, and the payments sweep makes it then — after 1 minute, then 5, 30, 120
//! and 360, and after `MAX_ATTEMPTS` calls it is `failed`, for the merchant to refund by
//! hand (its `orders.refunds.created` event says so).

use domain::Timestamp;
use domain::payment::{PaymentKind, PaymentStatus};
use domain::topic;
use storage::orders::{self, Order};
use storage::payment_methods;
use storage::payments::{self as stored, CardShown, NewPayment as NewRow, Outcome, Payment};
use storage::secret_box::SecretBox;
use storage::shops::Shop;
use storage::{ScopedExt, Tx};

use super::gateway::{self, Credentials, Refund};
use super::{attempt_key, credentials_of, record, recorded_outcome, shop_of};
use crate::{Actor, Op, ServiceError, ServiceResult, Services};

/// Gateway calls a refund gets before it is given up.
pub const MAX_ATTEMPTS: i64 = 6;

/// When a pending refund is due (again) after `attempts` calls: the first a minute after
/// the cancel (whose request makes it at once, unless it dies: the sweep leaves it alone
/// meanwhile).
fn next_attempt(now: Timestamp, attempts: i64) -> Timestamp {
    let minutes = match attempts {
        0 | 1 => 1,
        2 => 5,
        3 => 30,
        4 => 120,
        _ => 360,
    };
    now.plus_secs(minutes * 60)
}

/// Writes, in a cancel's transaction, a refund for each approved charge of `order` that
/// none returns yet; the manual ones are recorded (and counted in `refunded_total`) at
/// once.
pub(crate) async fn open(tx: &mut Tx, op: Op<'_>, shop: &Shop, order: &Order) -> ServiceResult<()> {
    let charges = stored::unrefunded_charges(tx, order.id).await?;
    let mut recorded = 0;
    for charge in charges {
        let manual = gateway::of(charge.method_type).is_none();
        let card = charge
            .card_brand
            .clone()
            .zip(charge.card_last4.clone())
            .map(|(brand, last4)| CardShown { brand, last4 });
        let row = NewRow {
            account_id: charge.account_id,
            seller_id: charge.seller_id,
            shop_id: charge.shop_id,
            order_id: charge.order_id,
            payment_method_id: charge.payment_method_id,
            method_type: charge.method_type,
            method_name: &charge.method_name,
            kind: PaymentKind::Refund,
            charge_id: Some(charge.id),
            amount: charge.amount,
            currency_code: &charge.currency_code,
            status: if manual {
                PaymentStatus::Recorded
            } else {
                PaymentStatus::Pending
            },
            reference: None,
            card: card.as_ref(),
            next_attempt_on: (!manual).then(|| next_attempt(op.now, 0)),
            app_id: op.actor.app_id(),
        };
        let refund = stored::insert(tx, &row, op.now).await?;
        if manual {
            recorded += refund.amount;
            record(tx, op, topic::ORDER_REFUNDS_CREATED, shop, &refund).await?;
        }
    }
    if recorded > 0 {
        stored::add_to_order(tx, order.id, 0, recorded, op.now).await?;
    }
    Ok(())
}

/// Makes the order's pending refunds through their gateways; how many were settled
/// (made or given up).
pub async fn settle_refunds(
    services: &Services,
    actor: &Actor,
    secret_box: &SecretBox,
    order_id: i64,
) -> ServiceResult<usize> {
    let pending = stored::pending_refunds(services.db(), order_id).await?;
    let mut settled = 0;
    for refund in pending {
        if settle(services, actor, secret_box, &refund).await? {
            settled += 1;
        }
    }
    Ok(settled)
}

/// Makes one pending refund through its gateway and records the outcome: made, put off
/// (the gateway failed; due again later) or given up. Whether it is final now.
pub async fn settle(
    services: &Services,
    actor: &Actor,
    secret_box: &SecretBox,
    refund: &Payment,
) -> ServiceResult<bool> {
    let db = services.db();
    let charge = match refund.charge_id {
        Some(id) => stored::find_of_order(db, refund.order_id, id).await?,
        None => None,
    };
    let charge_reference = charge.and_then(|c| c.reference);
    let credentials = match refund.payment_method_id {
        Some(id) => method_credentials(services, actor, secret_box, id).await?,
        None => Credentials::new(),
    };
    let outcome = match (gateway::of(refund.method_type), charge_reference) {
        (Some(gateway), Some(reference)) => {
            let key = attempt_key(refund);
            let request = Refund {
                key: &key,
                charge_reference: &reference,
                amount: refund.amount,
                currency_code: &refund.currency_code,
            };
            gateway.refund(&credentials, request).await
        }
        _ => gateway::Outcome::Error {
            code: "no_gateway".into(),
            message: "the charge has no gateway reference to refund".into(),
        },
    };
    let op = Op::new(services, actor);
    let outcome = &outcome;
    services
        .write(|tx| async move { finish(tx, op, refund, outcome).await }.scoped())
        .await
}

/// The credentials of the refund's method, if it still exists (a deleted method's
/// gateway is called without them).
async fn method_credentials(
    services: &Services,
    actor: &Actor,
    secret_box: &SecretBox,
    id: i64,
) -> ServiceResult<Credentials> {
    let mut tx = services.db().begin().await?;
    let credentials = match payment_methods::find(&mut tx, actor.tenant, id).await? {
        Some(method) => credentials_of(&mut tx, secret_box, &method).await?,
        None => Credentials::new(),
    };
    tx.commit().await?;
    Ok(credentials)
}

/// Records a refund's outcome under the order's lock; whether it is final now.
async fn finish(
    tx: &mut Tx,
    op: Op<'_>,
    refund: &Payment,
    outcome: &gateway::Outcome,
) -> ServiceResult<bool> {
    let order = orders::find_for_update(tx, op.actor.tenant, refund.order_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let current = stored::find_of_order(&mut *tx, order.id, refund.id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if current.status.is_final() {
        return Ok(true);
    }
    let mut outcome: Outcome = recorded_outcome(outcome);
    if outcome.status != PaymentStatus::Approved {
        let calls = current.attempts + 1;
        if calls < MAX_ATTEMPTS {
            let message = outcome.failure_message.unwrap_or_default();
            stored::postpone(tx, refund.id, next_attempt(op.now, calls), &message, op.now).await?;
            return Ok(false);
        }
        // Given up: the merchant refunds it by hand.
        outcome.status = PaymentStatus::Failed;
    }
    let Some(finalized) = stored::finalize(tx, refund.id, &outcome, op.now).await? else {
        return Ok(true);
    };
    let shop = shop_of(tx, op, order.shop_id).await?;
    if finalized.status == PaymentStatus::Approved {
        stored::add_to_order(tx, order.id, 0, finalized.amount, op.now).await?;
        super::record_money_change(tx, op, &shop, order.id).await?;
    }
    record(tx, op, topic::ORDER_REFUNDS_CREATED, &shop, &finalized).await?;
    Ok(true)
}
