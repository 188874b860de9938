//! An order's payments: charges through the order's payment method, recorded whatever
//! their outcome; paying the total closes a placed order; refunds when a paid order is
//! cancelled.
//!
//! A charge through a gateway is made exactly once however many requests ask at once, as
//! payment systems do it: a first transaction locks the order (level 1 of
//! `storage::locks`), checks the amount against what is outstanding less the charges
//! still waiting for their gateway, and writes the attempt `pending`; the gateway is
//! called outside any transaction, with the attempt's id as its idempotency key; a second
//! transaction, under the order's lock again, records the outcome, the order's
//! `paid_total`, the close of a placed order paid in full (through the order state
//! machine, with its event and the customer's figures) and the payment's event. A request
//! that finds its amount held by a pending attempt is told so (`Attempt::InProgress`)
//! rather than charged.
//!
//! A crash between the two leaves the attempt `pending`: it still holds its amount (no
//! second charge can overlap one whose outcome is unknown), and the sweep (`sweep`) marks
//! it `failed` (`abandoned`) once `CHARGE_TIMEOUT_SECS` have passed. The card is not kept,
//! so it is never charged again behind the buyer's back; the test gateway keeps nothing to
//! ask, and a real gateway's adapter would look the charge up by its key before it is
//! given up. A gateway's late answer never overwrites what the sweep recorded (it is
//! logged when it was an approval).
//!
//! Manual methods (bank transfer, cash on delivery) take no card: a payment is the
//! merchant recording money received, approved and written in one transaction.

pub mod saved_card;
pub mod sweep;

use domain::order::{OrderStatus, Transition};
use domain::payment::{
    AmountRefused, Balance, PaymentKind, PaymentStatus, card_brand, charge_amount, last4,
};
use domain::{FieldErrors, topic};
use storage::orders::{self, Order};
use storage::payment_methods::{self, PaymentMethod};
use storage::payments::{self as stored, CardShown, NewPayment as NewRow, Outcome, Payment};
use storage::secret_box::SecretBox;
use storage::{ScopedExt, Tx};

use super::FullOrder;
use crate::payments::gateway::{self, Charge, Credentials, Source};
use crate::payments::input::{NewPayment, PaymentDraft};
use crate::payments::{
    attempt_key, balance_of, credentials_of, record, recorded_outcome, refunds, settle_refunds,
    shop_of, show,
};
use crate::{Actor, Op, ServiceError, ServiceResult, Services, Shown, Unconditional};

/// How long a charge may wait for its gateway's answer before the sweep gives it up.
pub const CHARGE_TIMEOUT_SECS: i64 = 15 * 60;

/// What a payment request came to.
#[derive(Debug)]
pub enum Attempt {
    /// Recorded, whatever its status (approved, declined, failed), with its document.
    Recorded(Box<Shown<Payment>>),
    /// The amount is held by charges still waiting for their gateway (this much): asking
    /// again in a moment finds them settled.
    InProgress { pending: i64 },
}

/// Pays an order through its payment method (see the module's documentation).
pub async fn pay(
    services: &Services,
    actor: &Actor,
    secret_box: &SecretBox,
    order_id: i64,
    input: NewPayment,
) -> ServiceResult<Attempt> {
    let draft = input.validate(services.now())?;
    let op = Op::new(services, actor);
    let draft = &draft;
    let started = services
        .write(|tx| async move { start(tx, op, secret_box, order_id, draft).await }.scoped())
        .await?;
    let (payment, credentials, save_card) = match started {
        Started::Done(attempt) => return Ok(attempt),
        Started::Pending {
            payment,
            credentials,
            save_card,
        } => (payment, credentials, save_card),
    };
    let card = draft
        .card
        .as_ref()
        .ok_or_else(|| ServiceError::internal("a pending charge without its card"))?;
    let source = Source::Card {
        card,
        save: save_card,
    };
    let outcome = call_gateway(&payment, &credentials, source).await;
    // The outcome is recorded at the time it came.
    let op = Op::new(services, actor);
    let payment = &payment;
    let outcome = &outcome;
    let recorded = services
        .write(|tx| async move { finish(tx, op, payment, outcome).await }.scoped())
        .await?;
    if recorded.value.status == PaymentStatus::Approved {
        // Approved after the order was cancelled: its refund was opened; make it now.
        settle_refunds(services, actor, secret_box, order_id).await?;
    }
    Ok(Attempt::Recorded(Box::new(recorded)))
}

/// What the first transaction came to.
enum Started {
    Done(Attempt),
    /// Written `pending`; the gateway is to be called with these credentials.
    Pending {
        payment: Box<Payment>,
        credentials: Credentials,
        /// The order has recurring lines: the gateway keeps the card for their renewals.
        save_card: bool,
    },
}

async fn start(
    tx: &mut Tx,
    op: Op<'_>,
    secret_box: &SecretBox,
    order_id: i64,
    draft: &PaymentDraft,
) -> ServiceResult<Started> {
    let order = orders::find_for_update(tx, op.actor.tenant, order_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let mut errors = FieldErrors::new();
    match order.status {
        OrderStatus::Checkout => errors.add(
            "status",
            "an order in checkout takes no payment: place it first",
        ),
        OrderStatus::Cancelled => errors.add("status", "a cancelled order takes no payment"),
        OrderStatus::Placed | OrderStatus::Closed | OrderStatus::Shipped => {}
    }
    let method = method_of(tx, op, &order, &mut errors).await?;
    if let Some(method) = &method {
        let kind = method.method_type;
        if kind.takes_cards() {
            if draft.card.is_none() {
                errors.add("card", format!("is required to pay with a {kind} method"));
            }
            if draft.reference.is_some() {
                errors.add("reference", "is the gateway's to give: leave it out");
            }
        } else if draft.card.is_some() {
            errors.add(
                "card",
                format!(
                    "a {kind} method takes no card: record the money received, with a reference if any"
                ),
            );
        }
    }
    let pending = stored::pending_charges_total(tx, order.id).await?;
    let balance = Balance {
        total: order.total,
        paid_total: order.paid_total,
        refunded_total: order.refunded_total,
        pending_total: pending,
        cancelled: order.status == OrderStatus::Cancelled,
    };
    let amount = match charge_amount(balance, draft.amount) {
        Ok(amount) => Some(amount),
        Err(AmountRefused::InProgress { pending }) => {
            errors.into_result()?;
            return Ok(Started::Done(Attempt::InProgress { pending }));
        }
        Err(AmountRefused::Exceeds { outstanding }) => {
            if !errors.has("status") {
                errors.add(
                    "amount",
                    if outstanding == 0 {
                        "cannot be charged: the order has nothing outstanding".to_owned()
                    } else {
                        format!("must be from 1 to {outstanding}, the amount outstanding")
                    },
                );
            }
            None
        }
    };
    errors.into_result()?;
    let (Some(method), Some(amount)) = (method, amount) else {
        return Err(ServiceError::internal(
            "a payment checked without its method",
        ));
    };
    let card = draft.card.as_ref().map(|card| CardShown {
        brand: card_brand(&card.number).as_str().to_owned(),
        last4: last4(&card.number),
    });
    let manual = gateway::of(method.method_type).is_none();
    let status = if manual {
        PaymentStatus::Approved
    } else {
        PaymentStatus::Pending
    };
    let row = NewRow {
        reference: draft.reference.as_deref(),
        card: card.as_ref(),
        app_id: op.actor.app_id(),
        ..charge_row(&order, &method, amount, status)
    };
    let payment = stored::insert(tx, &row, op.now).await?;
    if manual {
        let recorded = settle_charge(tx, op, &order, payment).await?;
        return Ok(Started::Done(Attempt::Recorded(Box::new(recorded))));
    }
    let credentials = credentials_of(tx, secret_box, &method).await?;
    let save_card = orders::has_recurring_lines(&mut *tx, order.id).await?;
    Ok(Started::Pending {
        payment: Box::new(payment),
        credentials,
        save_card,
    })
}

/// The order's payment method, which must still exist and, to charge a card, be enabled
/// (else a 422 on `payment_method_id`, added to `errors`).
async fn method_of(
    tx: &mut Tx,
    op: Op<'_>,
    order: &Order,
    errors: &mut FieldErrors,
) -> ServiceResult<Option<PaymentMethod>> {
    let Some(id) = order.payment_method_id else {
        errors.add(
            "payment_method_id",
            "the order names no payment method (one is chosen while it is in checkout)",
        );
        return Ok(None);
    };
    let method = payment_methods::find(&mut *tx, op.actor.tenant, id)
        .await?
        .filter(|m| m.shop_id == order.shop_id);
    match &method {
        None => errors.add(
            "payment_method_id",
            "the order's payment method was deleted: it takes no new payment",
        ),
        // A disabled gateway charges nothing; money a buyer already sent by hand is
        // still recorded.
        Some(m) if !m.enabled && m.method_type.takes_cards() => errors.add(
            "payment_method_id",
            "the order's payment method is disabled: it charges no card until it is enabled",
        ),
        Some(_) => {}
    }
    Ok(method)
}

/// Calls the payment's gateway for it, under its key, taking the money from `source`.
async fn call_gateway(
    payment: &Payment,
    credentials: &Credentials,
    source: Source<'_>,
) -> gateway::Outcome {
    let Some(gateway) = gateway::of(payment.method_type) else {
        return gateway::Outcome::Error {
            code: "no_gateway".into(),
            message: "the method has no gateway".into(),
        };
    };
    let key = attempt_key(payment);
    let request = Charge {
        key: &key,
        amount: payment.amount,
        currency_code: &payment.currency_code,
        source,
    };
    gateway.charge(credentials, request).await
}

/// A charge of `amount` on the order through `method`, as written (no card, reference
/// or app unless the caller sets them).
fn charge_row<'a>(
    order: &'a Order,
    method: &'a PaymentMethod,
    amount: i64,
    status: PaymentStatus,
) -> NewRow<'a> {
    NewRow {
        account_id: order.account_id,
        seller_id: order.seller_id,
        shop_id: order.shop_id,
        order_id: order.id,
        payment_method_id: Some(method.id),
        method_type: method.method_type,
        method_name: &method.name,
        kind: PaymentKind::Charge,
        charge_id: None,
        amount,
        currency_code: &order.currency_code,
        status,
        reference: None,
        card: None,
        next_attempt_on: None,
        app_id: None,
    }
}

/// Records a pending charge's outcome under the order's lock.
async fn finish(
    tx: &mut Tx,
    op: Op<'_>,
    payment: &Payment,
    outcome: &gateway::Outcome,
) -> ServiceResult<Shown<Payment>> {
    finalize_charge(tx, op, payment, &recorded_outcome(outcome)).await
}

/// Finalizes a pending charge with `outcome` (unless another finalizer was first: then it
/// is answered as that one left it).
pub(crate) async fn finalize_charge(
    tx: &mut Tx,
    op: Op<'_>,
    payment: &Payment,
    outcome: &Outcome,
) -> ServiceResult<Shown<Payment>> {
    let order = orders::find_for_update(tx, op.actor.tenant, payment.order_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let Some(finalized) = stored::finalize(tx, payment.id, outcome, op.now).await? else {
        let current = stored::find_of_order(&mut *tx, order.id, payment.id)
            .await?
            .ok_or(ServiceError::NotFound)?;
        if outcome.status == PaymentStatus::Approved && current.status != PaymentStatus::Approved {
            tracing::error!(
                payment = payment.id,
                status = %current.status,
                "a gateway approved a charge given up meanwhile: check it at the gateway"
            );
        }
        let shown = show(op, &current);
        return Ok(Shown::new(current, shown));
    };
    settle_charge(tx, op, &order, finalized).await
}

/// What a charge's final status does to its order (locked by the caller): an approved
/// one counts towards `paid_total`, closes a placed order paid in full (its close is the
/// order's event), else records `orders.updated`, and is refunded at once when the order
/// was cancelled meanwhile; every one records its payment's event.
async fn settle_charge(
    tx: &mut Tx,
    op: Op<'_>,
    order: &Order,
    payment: Payment,
) -> ServiceResult<Shown<Payment>> {
    let shop = shop_of(tx, op, order.shop_id).await?;
    if payment.status == PaymentStatus::Approved {
        stored::add_to_order(tx, order.id, payment.amount, 0, op.now).await?;
        let current = super::locked(tx, op, order.id, &Unconditional).await?;
        let balance = balance_of(&current.order);
        if balance.is_paid() {
            crate::subscription_purchases::open_for_paid_order(
                tx,
                op,
                &shop,
                &current.order,
                &current.lines,
            )
            .await?;
        }
        match current.order.status {
            OrderStatus::Placed if balance.is_paid() => {
                close(tx, op, current).await?;
            }
            OrderStatus::Cancelled => {
                refunds::open(tx, op, &shop, &current.order).await?;
                crate::payments::record_money_change(tx, op, &shop, order.id).await?;
            }
            _ => crate::payments::record_money_change(tx, op, &shop, order.id).await?,
        }
    }
    let shown = record(tx, op, topic::ORDER_PAYMENTS_CREATED, &shop, &payment).await?;
    Ok(Shown::new(payment, shown))
}

/// Closes a placed order paid in full, as its close link would.
async fn close(tx: &mut Tx, op: Op<'_>, current: FullOrder) -> ServiceResult<()> {
    super::apply_move(tx, op, current, Transition::Close, None, FieldErrors::new()).await?;
    Ok(())
}

/// Cancels an order as `orders::transition` does, then makes the refunds the cancel
/// opened through their gateways, and answers the order as it is then.
pub async fn cancel(
    services: &Services,
    actor: &Actor,
    secret_box: &SecretBox,
    id: i64,
    expect: &dyn crate::Precondition,
) -> ServiceResult<Shown<FullOrder>> {
    let cancelled =
        super::transition(services, actor, id, expect, Transition::Cancel, None).await?;
    if settle_refunds(services, actor, secret_box, id).await? == 0 {
        return Ok(cancelled);
    }
    let order = orders::find(services.db(), actor.tenant, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let lines = orders::lines_of(services.db(), &[id]).await?;
    let shown = Op::new(services, actor)
        .present()
        .order(actor.scopes, &order, &lines);
    Ok(Shown::new(FullOrder { order, lines }, shown))
}
