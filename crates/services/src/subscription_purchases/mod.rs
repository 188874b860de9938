//! Subscription purchases: opened when an order with recurring lines is paid, one per line,
//! each in the transaction that records the payment, with its event.
//!
//! A purchase copies its fee's terms as they are when it opens (the fee may change or go
//! later): the interval, the day renewals keep to, and the renewal price of its units in
//! the order's currency. The opening order paid the first cycle and the setup fee; the
//! first renewal is set by the fee's `on_first_renewal`.

pub mod input;

use domain::order::OrderStatus;
use domain::subscription::billing::Billing;
use domain::subscription::purchase::{self as moves, PausedBy, PurchaseMove, PurchaseState};
use domain::subscription::schedule::Schedule;
use domain::{CalendarDate, FieldErrors, Patch, ScopeSet, topic};
use serde_json::Value;
use storage::mail_outbox::{self, NewMail};
use storage::orders::{self, Order, OrderLine};
use storage::secret_box::SecretBox;
use storage::shops::{self, Shop};
use storage::subscription_fees::{self, PricedFee};
use storage::subscription_purchases::{
    self as stored, MaybeDate, MaybePausedBy, NewPurchase, SubscriptionPurchase,
};
use storage::{ScopedExt, Tx, customers, payments};

use self::input::{Changes, PurchaseChanges};
use crate::events::Change;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

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

/// Changes a purchase as a merchant may (see `input` for the fields): its state by the
/// purchase's moves, its dates, figures and fee. A change that changes nothing writes
/// nothing; otherwise it records `paused`, `resumed` or `cancelled` for a move, else
/// `updated`.
pub async fn update(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    changes: PurchaseChanges,
) -> ServiceResult<Shown<SubscriptionPurchase>> {
    let changes = changes.checked()?;
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let current = stored::find_for_update(tx, op.actor.tenant, id)
                    .await?
                    .ok_or(ServiceError::NotFound)?;
                expect.check(&|| show(op, &current), current.updated_on)?;
                let fee = fee_of(tx, op, &current, changes).await?;
                let mut purchase = current.clone();
                let made = changed(op, &mut purchase, changes, fee.as_ref())?;
                if let Some(fee) = fee
                    .as_ref()
                    .filter(|_| changes.subscription_fee_id.is_some())
                {
                    let price = renewal_price(tx, op, &purchase, fee).await?;
                    switch_fee(&mut purchase, fee, price, changes);
                }
                if purchase == current {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                let saved = stored::save(tx, &purchase, op.now).await?;
                let topic = match made {
                    Some(PurchaseMove::Pause) => topic::SUBSCRIPTION_PURCHASES_PAUSED,
                    Some(PurchaseMove::Resume) => topic::SUBSCRIPTION_PURCHASES_RESUMED,
                    Some(PurchaseMove::Cancel) => topic::SUBSCRIPTION_PURCHASES_CANCELLED,
                    _ => topic::SUBSCRIPTION_PURCHASES_UPDATED,
                };
                let shop = shop_of(tx, op, &saved).await?;
                let shown = record(tx, op, topic, &shop, &saved).await?;
                Ok(Shown::new(saved, shown))
            }
            .scoped()
        })
        .await
}

/// The fee the change is checked against: the one it names (which must be a fee of the
/// purchase's variant), else the purchase's own, if it still exists.
async fn fee_of(
    tx: &mut Tx,
    op: Op<'_>,
    purchase: &SubscriptionPurchase,
    changes: &Changes,
) -> ServiceResult<Option<PricedFee>> {
    let Some(id) = changes.subscription_fee_id.or(purchase.subscription_fee_id) else {
        return Ok(None);
    };
    let found = subscription_fees::find_for_update(tx, op.actor.tenant, id).await?;
    let found = match found {
        Some(fee) => subscription_fees::priced(&mut *tx, vec![fee]).await?.pop(),
        None => None,
    };
    if changes.subscription_fee_id.is_some()
        && found
            .as_ref()
            .is_none_or(|f| Some(f.fee.variant_id) != purchase.variant_id)
    {
        let mut errors = FieldErrors::new();
        errors.add(
            "subscription_fee_id",
            format!("{id} is not a subscription fee of the purchase's variant"),
        );
        return Err(errors.into());
    }
    Ok(found)
}

/// Applies `changes` to `purchase` as of today; the move made, if any. Every refusal is
/// a 422 naming its field.
fn changed(
    op: Op<'_>,
    purchase: &mut SubscriptionPurchase,
    changes: &Changes,
    fee: Option<&PricedFee>,
) -> ServiceResult<Option<PurchaseMove>> {
    let today = CalendarDate::of(op.now);
    let mut errors = FieldErrors::new();
    let terms = fee.map(|f| f.fee.terms());
    if let Some(on) = changes.next_payment_on {
        set_next_payment(purchase, on, today, terms.as_ref(), &mut errors);
    }
    if let Some(fee) = changes.total_renewal_fee {
        purchase.total_renewal_fee = fee;
    }
    if let Some(remaining) = changes.remaining_payments {
        purchase.remaining_payments = remaining;
    }
    if let Some(skip) = changes.payments_to_skip {
        purchase.payments_to_skip = skip;
    }
    if let Some(discount) = changes.renewal_discount {
        purchase.renewal_discount = discount;
    }
    if let Some(count) = changes.discount_num_charges {
        purchase.discount_num_charges = count;
    }
    match changes.end_date {
        Patch::Absent => {}
        Patch::Null => purchase.end_date = MaybeDate(None),
        Patch::Value(on) => purchase.end_date = MaybeDate(Some(on)),
    }
    let min_days = terms.as_ref().map_or(0, |t| t.min_days_for_cancellation);
    match changes.cancel_at {
        Patch::Absent => {}
        Patch::Null => purchase.cancel_at = MaybeDate(None),
        Patch::Value(on) => {
            if purchase.state.is_final() {
                errors.add(
                    "cancel_at",
                    format!("a {} purchase has nothing left to cancel", purchase.state),
                );
            } else if on < today {
                errors.add("cancel_at", "must be today or later");
            } else if let Err(message) = notice(purchase, on, today, min_days) {
                errors.add("cancel_at", message);
            }
            purchase.cancel_at = MaybeDate(Some(on));
        }
    }
    let made = match changes.state {
        Some(state) => moved(
            purchase,
            state,
            changes,
            today,
            op,
            terms.as_ref(),
            min_days,
            &mut errors,
        ),
        None => None,
    };
    for (field, given) in [
        ("paused_by", changes.paused_by.is_some()),
        ("last_pause_at", changes.last_pause_at.is_some()),
    ] {
        if given && purchase.state != PurchaseState::Paused {
            errors.add(
                field,
                "is set on a paused purchase only (pause it with state: paused)",
            );
        }
    }
    if made != Some(PurchaseMove::Pause) && purchase.state == PurchaseState::Paused {
        if let Some(by) = changes.paused_by {
            purchase.paused_by = MaybePausedBy(Some(by));
        }
        if let Some(at) = changes.last_pause_at {
            purchase.last_pause_at = Some(at);
        }
    }
    errors.into_result()?;
    Ok(made)
}

/// Moves the purchase to `state` (a move of its state machine), with what the move does.
#[allow(clippy::too_many_arguments)]
fn moved(
    purchase: &mut SubscriptionPurchase,
    state: PurchaseState,
    changes: &Changes,
    today: CalendarDate,
    op: Op<'_>,
    terms: Option<&domain::subscription::FeeTerms>,
    min_days: i64,
    errors: &mut FieldErrors,
) -> Option<PurchaseMove> {
    let from = purchase.state;
    let Some(by) = PurchaseMove::to_reach(from, state) else {
        if state != from {
            errors.add(
                "state",
                format!("{state} is reached by renewals only, not set"),
            );
        }
        return None;
    };
    if let Err(refused) = moves::apply(from, by) {
        errors.add("state", refused.to_string());
        return None;
    }
    match by {
        PurchaseMove::Pause => {
            purchase.paused_by = MaybePausedBy(Some(changes.paused_by.unwrap_or(PausedBy::Admin)));
            purchase.last_pause_at = Some(changes.last_pause_at.unwrap_or(op.now));
        }
        PurchaseMove::Resume if from == PurchaseState::Paused => {
            let extend = terms.is_some_and(|t| t.extend_on_reenable);
            resume(purchase, today, extend);
        }
        PurchaseMove::Resume => {
            // A failed purchase is billed its failed cycle again on the next run.
            purchase.failed_attempts = 0;
            purchase.retry_on = MaybeDate(None);
        }
        PurchaseMove::Cancel => {
            if from == PurchaseState::Active
                && let Err(message) = notice(purchase, today, today, min_days)
            {
                errors.add("state", message);
                return None;
            }
            purchase.end_date = MaybeDate(Some(purchase.end_date.0.unwrap_or(today)));
            purchase.cancel_at = MaybeDate(None);
            purchase.paused_by = MaybePausedBy(None);
        }
        PurchaseMove::Renew | PurchaseMove::Finish | PurchaseMove::Fail => {}
    }
    purchase.state = by.target();
    Some(by)
}

/// A paused purchase resumed today: with `extend`, its dates move by the days it was
/// paused; without, the renewals that fell in the pause are passed (it was not billed
/// while paused) and it renews on its next date from today.
fn resume(purchase: &mut SubscriptionPurchase, today: CalendarDate, extend: bool) {
    let paused_on = purchase.last_pause_at.map_or(today, CalendarDate::of);
    let days = paused_on.days_until(today).max(0);
    if extend {
        purchase.next_payment_on = purchase.next_payment_on.plus_days(days);
        purchase.retry_on = MaybeDate(purchase.retry_on.0.map(|d| d.plus_days(days)));
        purchase.end_date = MaybeDate(purchase.end_date.0.map(|d| d.plus_days(days)));
    } else if purchase.next_payment_on < today {
        let schedule = purchase.billing().schedule();
        purchase.next_payment_on = CalendarDate::new(schedule.on_or_after(today.date()));
        purchase.retry_on = MaybeDate(None);
        purchase.failed_attempts = 0;
    }
    purchase.paused_by = MaybePausedBy(None);
}

/// Whether a cancel taking effect on `on`, asked today, gives the notice the fee asks
/// before the next payment: a cancel that would stop the next payment must come
/// `min_days` days or more before it.
fn notice(
    purchase: &SubscriptionPurchase,
    on: CalendarDate,
    today: CalendarDate,
    min_days: i64,
) -> Result<(), String> {
    let next = purchase.next_payment_on;
    if min_days > 0 && on <= next && today.days_until(next) < min_days {
        Err(format!(
            "comes less than {min_days} days before the next payment (on {next}), which the fee's \
             min_days_for_cancellation asks: cancel after that payment (cancel_at later than {next})"
        ))
    } else {
        Ok(())
    }
}

/// Moves the next payment to `on` (today or later). A date off the schedule's day
/// changes the day renewals keep to, which the fee must allow (`allow_changing_day`).
fn set_next_payment(
    purchase: &mut SubscriptionPurchase,
    on: CalendarDate,
    today: CalendarDate,
    terms: Option<&domain::subscription::FeeTerms>,
    errors: &mut FieldErrors,
) {
    if on < today {
        errors.add("next_payment_on", "must be today or later");
        return;
    }
    let schedule = purchase.billing().schedule();
    if schedule.on_or_after(on.date()) != on.date() {
        if !terms.is_some_and(|t| t.allow_changing_day) {
            errors.add(
                "next_payment_on",
                format!(
                    "falls on another day than the purchase's payment day ({}), which its fee does \
                     not allow (allow_changing_day)",
                    schedule.day
                ),
            );
            return;
        }
        purchase.payment_day = i64::from(Schedule::new(schedule.interval, None, on.date()).day);
    }
    purchase.next_payment_on = on;
    purchase.retry_on = MaybeDate(None);
    purchase.failed_attempts = 0;
}

/// The purchase moved to another fee of its variant: the fee's interval and payment day,
/// and (unless given) its renewal price for the purchase's units and the next payment on
/// the new schedule.
fn switch_fee(
    purchase: &mut SubscriptionPurchase,
    fee: &PricedFee,
    unit_price: i64,
    changes: &Changes,
) {
    let terms = fee.fee.terms();
    purchase.subscription_fee_id = Some(fee.fee.id);
    purchase.payment_interval = terms.payment_interval;
    let schedule = Schedule::new(
        terms.payment_interval,
        terms.payment_day,
        purchase.next_payment_on.date(),
    );
    purchase.payment_day = i64::from(schedule.day);
    if changes.next_payment_on.is_none() {
        purchase.next_payment_on =
            CalendarDate::new(schedule.on_or_after(purchase.next_payment_on.date()));
    }
    if changes.total_renewal_fee.is_none() {
        purchase.total_renewal_fee = unit_price.saturating_mul(purchase.units);
    }
}

/// What one unit of the purchase renews for on `fee`, in the purchase's currency (at the
/// rate its opening order was priced with).
async fn renewal_price(
    tx: &mut Tx,
    op: Op<'_>,
    purchase: &SubscriptionPurchase,
    fee: &PricedFee,
) -> ServiceResult<i64> {
    let price = fee.renewal_fee_price();
    let opening = match purchase.original_order_id {
        Some(id) => orders::find(&mut *tx, op.actor.tenant, id).await?,
        None => None,
    };
    Ok(opening.map_or(price, |order| in_order_currency(&order, price)))
}

/// The purchase's shop.
pub(crate) async fn shop_of(
    tx: &mut Tx,
    op: Op<'_>,
    purchase: &SubscriptionPurchase,
) -> ServiceResult<Shop> {
    shops::find(&mut *tx, op.actor.tenant, purchase.shop_id)
        .await?
        .ok_or(ServiceError::NotFound)
}

/// What a buyer told of a fee's new terms is recorded as.
pub const TERMS_MAIL: &str = "subscription_terms_changed";

/// Applies a fee's terms to its active purchases, each locked in id order and recording
/// `updated` when it changes: the fee's interval and payment day (its next payment moved
/// onto the new schedule), its renewal price for the purchase's units, and, for a fee of
/// limited payments, the payments left (at least the one due). With `notify`, each buyer
/// whose purchase changed is mailed the new terms. Answers how many purchases changed.
pub(crate) async fn apply_fee_terms(
    tx: &mut Tx,
    op: Op<'_>,
    secret_box: &SecretBox,
    fee: &PricedFee,
    notify: bool,
) -> ServiceResult<usize> {
    let terms = fee.fee.terms();
    let mut changed = 0;
    for id in stored::ids_of_fee(tx, fee.fee.id, PurchaseState::Active).await? {
        let Some(current) = stored::find_for_update(tx, op.actor.tenant, id).await? else {
            continue;
        };
        let mut purchase = current.clone();
        let price = renewal_price(tx, op, &purchase, fee).await?;
        let schedule = match terms.payment_day {
            Some(day) => Schedule::new(
                terms.payment_interval,
                Some(day),
                purchase.next_payment_on.date(),
            ),
            None => Schedule::new(
                terms.payment_interval,
                Some(purchase.payment_day),
                purchase.next_payment_on.date(),
            ),
        };
        purchase.payment_interval = terms.payment_interval;
        purchase.payment_day = i64::from(schedule.day);
        purchase.next_payment_on =
            CalendarDate::new(schedule.on_or_after(purchase.next_payment_on.date()));
        purchase.total_renewal_fee = price.saturating_mul(purchase.units);
        purchase.remaining_payments = match terms.number_of_payments {
            0 => 0,
            payments => (payments - purchase.total_payments).max(1),
        };
        if purchase == current {
            continue;
        }
        let saved = stored::save(tx, &purchase, op.now).await?;
        let shop = shop_of(tx, op, &saved).await?;
        record(tx, op, topic::SUBSCRIPTION_PURCHASES_UPDATED, &shop, &saved).await?;
        if notify {
            mail_terms(tx, op, secret_box, &shop, &saved).await?;
        }
        changed += 1;
    }
    Ok(changed)
}

/// Mails the buyer of `purchase` its new terms, to the opening order's email, else its
/// customer's; nothing when neither is known.
async fn mail_terms(
    tx: &mut Tx,
    op: Op<'_>,
    secret_box: &SecretBox,
    shop: &Shop,
    purchase: &SubscriptionPurchase,
) -> ServiceResult<()> {
    let opening = match purchase.original_order_id {
        Some(id) => orders::find(&mut *tx, op.actor.tenant, id).await?,
        None => None,
    };
    let mut to = opening.and_then(|o| o.email);
    if to.is_none()
        && let Some(contact) = purchase.contact_id
    {
        to = customers::find(&mut *tx, op.actor.tenant, contact)
            .await?
            .and_then(|c| c.email);
    }
    let Some(to) = to else {
        return Ok(());
    };
    let text = format!(
        "The terms of your subscription to {product} from {shop} have changed.\n\
         Each renewal: {fee} (minor units of {currency}), every {interval}.\n\
         Next payment: {next}.\n",
        product = purchase.product_name,
        shop = shop.name,
        fee = purchase.total_renewal_fee,
        currency = purchase.currency_code,
        interval = purchase.payment_interval.as_str().replace('_', " "),
        next = purchase.next_payment_on,
    );
    let mail = NewMail {
        account_id: Some(purchase.account_id),
        purpose: TERMS_MAIL,
        to: &to,
        subject: &format!(
            "Your subscription to {} has new terms",
            purchase.product_name
        ),
        text: &text,
    };
    mail_outbox::enqueue(tx, secret_box, &mail, op.now).await?;
    Ok(())
}

/// Cancels the purchases an order opened when the order is cancelled (its payments are
/// refunded): each that may still renew ends today, recording `cancelled`.
pub(crate) async fn cancel_of_order(
    tx: &mut Tx,
    op: Op<'_>,
    shop: &Shop,
    order: &Order,
) -> ServiceResult<()> {
    for opened in stored::of_order(tx, order.id).await? {
        let Some(mut purchase) = stored::find_for_update(tx, op.actor.tenant, opened.id).await?
        else {
            continue;
        };
        if purchase.state.is_final() {
            continue;
        }
        purchase.state = PurchaseState::Cancelled;
        purchase.end_date = MaybeDate(Some(CalendarDate::of(op.now)));
        purchase.cancel_at = MaybeDate(None);
        purchase.paused_by = MaybePausedBy(None);
        let saved = stored::save(tx, &purchase, op.now).await?;
        record(
            tx,
            op,
            topic::SUBSCRIPTION_PURCHASES_CANCELLED,
            shop,
            &saved,
        )
        .await?;
    }
    Ok(())
}

/// How many of a fee's purchases may still renew (active, paused or failed).
pub(crate) async fn renewing_of_fee(tx: &mut Tx, fee_id: i64) -> ServiceResult<usize> {
    let mut count = 0;
    for state in [
        PurchaseState::Active,
        PurchaseState::Paused,
        PurchaseState::Failed,
    ] {
        count += stored::ids_of_fee(tx, fee_id, state).await?.len();
    }
    Ok(count)
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
