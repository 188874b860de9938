//! The renewal engine: bills each due cycle of each active purchase exactly once.
//!
//! For one due purchase, under its lock:
//! 1. a `cancel_at` that has come cancels it, and nothing is billed;
//! 2. a cycle to skip passes (`payments_to_skip`), with no order;
//! 3. otherwise the cycle's renewal order is found, or written and placed: once per
//!    (purchase, cycle date), which a unique index keeps even against a second node. With
//!    a card the gateway saved, a charge is written `pending` in the same transaction.
//!
//! The gateway is then called outside every transaction, under the charge's key (the same
//! charge is charged once however often it is called). A last transaction, under the
//! purchase's lock again, records the outcome on the order (closing it when paid, even when
//! the purchase was paused or cancelled meanwhile) and moves the purchase on: renewed (next
//! date, one payment fewer, finished after the last), or a failed attempt retried after 1,
//! 3 and 7 days, then failed.
//!
//! A crash anywhere leaves either nothing (the first transaction rolled back), or the order
//! with its pending charge: the next pass finds that charge and calls the gateway again
//! under the same key, so the cycle is billed once. The payments sweep leaves an active
//! purchase's pending charges to this engine for that reason (giving one up could let a
//! second charge follow a first the gateway made). Both transactions lock the purchase
//! before the order, so two nodes never deadlock, and the last one acts only if the
//! purchase is still at the cycle and attempt it started from.
//!
//! A pass renews a few of its purchases at once (`at_once`), each as above on its own:
//! they share only their shop's order codes, their product's stock and their customer,
//! whose locks their transactions take in turn.

use domain::payment::PaymentStatus;
use domain::subscription::billing::{AfterFailure, CycleCharge};
use domain::subscription::purchase::PurchaseState;
use domain::{CalendarDate, topic};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use storage::orders;
use storage::payments::{Outcome, Payment};
use storage::secret_box::SecretBox;
use storage::subscription_purchases::{self as stored, Due, SubscriptionPurchase};
use storage::{ScopedExt, Tx};

use crate::orders::payments::finalize_charge;
use crate::orders::payments::saved_card::{
    SavedCardCharge, charge_saved_card, credentials_of_charge, start_saved_card_charge,
};
use crate::orders::renewals::{self, Cycle};
use crate::orders::{FullOrder, locked_order};
use crate::payments::gateway::Credentials;
use crate::payments::{balance_of, recorded_outcome};
use crate::subscription_purchases::{record, shop_of};
use crate::{Actor, Op, ServiceError, ServiceResult, Services};

/// The job's name, as events name the system actor.
const JOB: &str = "subscription_renewals";

/// How many due purchases one pass takes.
pub const PASS: i64 = 100;

/// The most purchases renewed at once, whatever the pool.
const MAX_AT_ONCE: usize = 8;

/// What a pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Renewed {
    /// Purchases looked at.
    pub seen: usize,
    /// Cycles charged (or issued for payment by hand).
    pub billed: usize,
    pub skipped: usize,
    pub failed_attempts: usize,
    pub cancelled: usize,
}

/// Takes up to `PASS` purchases due today after `after` and bills them; answers what it
/// did and where the next pass goes on from (`None`: nothing more is due).
pub async fn run_pass(
    services: &Services,
    secret_box: &SecretBox,
    after: Option<&Due>,
) -> ServiceResult<(Renewed, Option<Due>)> {
    let today = CalendarDate::of(services.now());
    let due = stored::due(services.db(), today, after, PASS).await?;
    let mut renewed = Renewed {
        seen: due.len(),
        ..Renewed::default()
    };
    let mut waiting = due.iter();
    let mut running = FuturesUnordered::new();
    running.extend(
        waiting
            .by_ref()
            .take(at_once(services))
            .map(|p| renew_one(services, secret_box, p)),
    );
    while let Some(step) = running.next().await {
        if let Some(step) = step {
            step.count(&mut renewed);
        }
        running.extend(waiting.next().map(|p| renew_one(services, secret_box, p)));
    }
    Ok((renewed, due.last().cloned()))
}

/// How many purchases a pass renews at once. Each holds a pooled connection during its
/// transactions (and none while the gateway answers), so overlapping them hides round
/// trips, commits and gateway time; half the pool stays for everything else.
fn at_once(services: &Services) -> usize {
    (services.db().max_connections() / 2).clamp(1, MAX_AT_ONCE)
}

/// Renews one purchase, logging what stopped it.
async fn renew_one(services: &Services, secret_box: &SecretBox, due: &Due) -> Option<Step> {
    renew(services, secret_box, due)
        .await
        .inspect_err(
            |err| tracing::warn!(purchase = due.id, error = %err, "cannot renew a purchase"),
        )
        .ok()
}

/// What renewing one purchase came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    NotDue,
    Billed,
    Skipped,
    AttemptFailed,
    Cancelled,
}

impl Step {
    fn count(self, renewed: &mut Renewed) {
        match self {
            Step::NotDue => {}
            Step::Billed => renewed.billed += 1,
            Step::Skipped => renewed.skipped += 1,
            Step::AttemptFailed => renewed.failed_attempts += 1,
            Step::Cancelled => renewed.cancelled += 1,
        }
    }
}

/// What the first transaction left to do.
enum Started {
    Done(Step),
    /// A pending charge to send to the gateway, for the purchase at this cycle and attempt.
    Charge {
        payment: Box<Payment>,
        credentials: Credentials,
        token: String,
        at: Attempt,
    },
}

/// Where a purchase stood when its charge was started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Attempt {
    cycle: CalendarDate,
    failed_attempts: i64,
}

impl Attempt {
    fn of(purchase: &SubscriptionPurchase) -> Self {
        Self {
            cycle: purchase.next_payment_on,
            failed_attempts: purchase.failed_attempts,
        }
    }
}

/// Renews one due purchase (see the module's documentation).
async fn renew(services: &Services, secret_box: &SecretBox, due: &Due) -> ServiceResult<Step> {
    let actor = Actor::system(JOB, due.account_id, due.seller_id);
    let op = Op::new(services, &actor);
    let id = due.id;
    let started = services
        .write(|tx| async move { start(tx, op, secret_box, id).await }.scoped())
        .await;
    let started = match started {
        Ok(started) => started,
        // The order could not be placed (its variant out of stock, say): a failed attempt.
        Err(ServiceError::Invalid(errors)) => {
            let why = errors.to_string();
            return services
                .write(|tx| {
                    let why = why.clone();
                    async move { not_placed(tx, op, id, &why).await }.scoped()
                })
                .await;
        }
        Err(err) => return Err(err),
    };
    let Started::Charge {
        payment,
        credentials,
        token,
        at,
    } = started
    else {
        let Started::Done(step) = started else {
            unreachable!()
        };
        return Ok(step);
    };
    let outcome = charge_saved_card(&payment, &credentials, &token).await;
    // Recorded at the time the answer came.
    let op = Op::new(services, &actor);
    let (payment, outcome) = (&payment, &outcome);
    services
        .write(|tx| {
            async move {
                let Some(purchase) = stored::find_for_update(tx, op.actor.tenant, id).await? else {
                    return Ok(Step::NotDue);
                };
                // The answer is the order's whatever became of the purchase meanwhile: money
                // the gateway took is recorded (a charge recorded already stays as it is).
                let recorded = finalize_charge(tx, op, payment, &recorded_outcome(outcome)).await?;
                if Attempt::of(&purchase) != at || purchase.state != PurchaseState::Active {
                    // Paused or cancelled meanwhile, or moved on by another run: the
                    // purchase stays as it is.
                    return Ok(Step::NotDue);
                }
                let order = locked_order(tx, op, payment.order_id).await?;
                if balance_of(&order.order).is_paid() {
                    billed(tx, op, purchase).await
                } else {
                    tracing::info!(
                        purchase = id,
                        payment = recorded.value.id,
                        status = %recorded.value.status,
                        "a renewal charge was not approved"
                    );
                    attempt_failed(tx, op, purchase, Some(order)).await
                }
            }
            .scoped()
        })
        .await
}

/// The first transaction: cancel, skip, or find or write the cycle's order and its charge.
async fn start(tx: &mut Tx, op: Op<'_>, secret_box: &SecretBox, id: i64) -> ServiceResult<Started> {
    let Some(mut purchase) = stored::find_for_update(tx, op.actor.tenant, id).await? else {
        return Ok(Started::Done(Step::NotDue));
    };
    let today = CalendarDate::of(op.now);
    if purchase.cancel_at.0.is_some_and(|on| on <= today) && !purchase.state.is_final() {
        let on = purchase.cancel_at.0.unwrap_or(today);
        purchase.state = PurchaseState::Cancelled;
        purchase.end_date = stored::MaybeDate(Some(on));
        return save(tx, op, purchase, topic::SUBSCRIPTION_PURCHASES_CANCELLED)
            .await
            .map(|()| Started::Done(Step::Cancelled));
    }
    let mut billing = purchase.billing();
    if billing.due_on().is_none_or(|on| on > today) {
        return Ok(Started::Done(Step::NotDue));
    }
    let cycle = purchase.next_payment_on;
    let (amount, discount) = match billing.cycle_charge() {
        CycleCharge::Skip => {
            billing.skipped();
            purchase.set_billing(&billing);
            save(tx, op, purchase, topic::SUBSCRIPTION_PURCHASES_UPDATED).await?;
            return Ok(Started::Done(Step::Skipped));
        }
        CycleCharge::Charge { amount, discount } => (amount, discount),
    };
    let (order, written_before) = match orders::renewal_of(tx, purchase.id, cycle).await? {
        Some(order) => (locked_order(tx, op, order.id).await?, true),
        None => {
            let shop = shop_of(tx, op, &purchase).await?;
            let cycle = Cycle {
                on: cycle,
                discount,
            };
            (
                renewals::place(tx, op, &shop, &purchase, cycle).await?,
                false,
            )
        }
    };
    if amount == 0 {
        renewals::close_free(tx, op, order).await?;
        return billed(tx, op, purchase).await.map(Started::Done);
    }
    if balance_of(&order.order).is_paid() {
        return billed(tx, op, purchase).await.map(Started::Done);
    }
    let at = Attempt::of(&purchase);
    // A charge left pending by a run that stopped: sent again under its own key (an
    // order this run placed has none).
    let pending = if written_before {
        storage::payments::pending_charge_of_order(tx, order.order.id).await?
    } else {
        None
    };
    if let Some(payment) = pending {
        let credentials = credentials_of_charge(tx, op, secret_box, &payment).await?;
        return match (credentials, purchase.saved_card.clone()) {
            (Some(credentials), Some(token)) => Ok(Started::Charge {
                payment: Box::new(payment),
                credentials,
                token,
                at,
            }),
            // Its method is gone: nothing can be charged, so the charge is given up here
            // (the payments sweep leaves an active purchase's charges to this engine).
            _ => {
                finalize_charge(tx, op, &payment, &no_method()).await?;
                attempt_failed(tx, op, purchase, Some(order))
                    .await
                    .map(Started::Done)
            }
        };
    }
    let Some(token) = purchase.saved_card.clone() else {
        // No saved card: the order waits to be paid by hand, and the cycle is billed.
        return billed(tx, op, purchase).await.map(Started::Done);
    };
    match start_saved_card_charge(tx, op, secret_box, &order.order, order.order.total).await? {
        Some(SavedCardCharge {
            payment,
            credentials,
        }) => Ok(Started::Charge {
            payment: Box::new(payment),
            credentials,
            token,
            at,
        }),
        // The method is gone or takes no card now: a failed attempt.
        None => attempt_failed(tx, op, purchase, Some(order))
            .await
            .map(Started::Done),
    }
}

/// How a pending charge whose method is gone is recorded.
fn no_method() -> Outcome {
    Outcome {
        status: PaymentStatus::Failed,
        reference: None,
        failure_code: Some("no_method".into()),
        failure_message: Some("the purchase's payment method is gone: nothing was charged".into()),
        saved_card: None,
    }
}

/// The cycle was billed: the purchase moves on (finished after its last payment).
async fn billed(
    tx: &mut Tx,
    op: Op<'_>,
    mut purchase: SubscriptionPurchase,
) -> ServiceResult<Step> {
    let mut billing = purchase.billing();
    billing.charged();
    purchase.set_billing(&billing);
    let finished = purchase.state == PurchaseState::Finished;
    if finished {
        purchase.end_date = stored::MaybeDate(billing.last_payment_on);
    }
    let saved = stored::save(tx, &purchase, op.now).await?;
    let shop = shop_of(tx, op, &saved).await?;
    record(tx, op, topic::SUBSCRIPTION_PURCHASES_RENEWED, &shop, &saved).await?;
    if finished {
        record(
            tx,
            op,
            topic::SUBSCRIPTION_PURCHASES_FINISHED,
            &shop,
            &saved,
        )
        .await?;
    }
    Ok(Step::Billed)
}

/// An attempt at the cycle failed: retried later, or the purchase failed and the cycle's
/// unpaid order cancelled (its stock given back).
async fn attempt_failed(
    tx: &mut Tx,
    op: Op<'_>,
    mut purchase: SubscriptionPurchase,
    order: Option<FullOrder>,
) -> ServiceResult<Step> {
    let mut billing = purchase.billing();
    let after = billing.attempt_failed();
    purchase.set_billing(&billing);
    match after {
        AfterFailure::RetryOn(_) => {
            save(tx, op, purchase, topic::SUBSCRIPTION_PURCHASES_UPDATED).await?;
        }
        AfterFailure::Failed => {
            save(tx, op, purchase, topic::SUBSCRIPTION_PURCHASES_FAILED).await?;
            if let Some(order) = order {
                renewals::cancel_unpaid(tx, op, order).await?;
            }
        }
    }
    Ok(Step::AttemptFailed)
}

/// The cycle's order could not be placed (`why`): a failed attempt.
async fn not_placed(tx: &mut Tx, op: Op<'_>, id: i64, why: &str) -> ServiceResult<Step> {
    let Some(purchase) = stored::find_for_update(tx, op.actor.tenant, id).await? else {
        return Ok(Step::NotDue);
    };
    if purchase.billing().due_on().is_none() {
        return Ok(Step::NotDue);
    }
    tracing::info!(
        purchase = id,
        reason = why,
        "a renewal order could not be placed"
    );
    attempt_failed(tx, op, purchase, None).await
}

/// Saves the purchase and records `topic` with it.
async fn save(
    tx: &mut Tx,
    op: Op<'_>,
    purchase: SubscriptionPurchase,
    topic: &'static str,
) -> ServiceResult<()> {
    let saved = stored::save(tx, &purchase, op.now).await?;
    let shop = shop_of(tx, op, &saved).await?;
    record(tx, op, topic, &shop, &saved).await?;
    Ok(())
}
