//! Payments: every attempt to charge an order and every refund of a charge, kept whatever
//! its outcome. A charge through a gateway is written `pending` before the gateway is
//! called and finalized after, each under the order's lock, so that concurrent attempts
//! see each other's amounts; the order's `paid_total` and `refunded_total` follow the
//! finalized rows in the same transactions.

use domain::Timestamp;
use domain::payment::{MethodType, PaymentKind, PaymentStatus};

use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::write::{Columns, execute_bound};

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Payment {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub order_id: i64,
    /// The method, by id only: it may have been deleted since.
    pub payment_method_id: Option<i64>,
    #[sqlx(try_from = "String")]
    pub method_type: MethodType,
    pub method_name: String,
    #[sqlx(try_from = "String")]
    pub kind: PaymentKind,
    /// The charge a refund returns.
    pub charge_id: Option<i64>,
    pub amount: i64,
    pub currency_code: String,
    #[sqlx(try_from = "String")]
    pub status: PaymentStatus,
    pub reference: Option<String>,
    pub card_brand: Option<String>,
    pub card_last4: Option<String>,
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    pub attempts: i64,
    pub next_attempt_on: Option<Timestamp>,
    pub app_id: Option<i64>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, shop_id, order_id, payment_method_id, method_type, method_name, kind, \
         charge_id, amount, currency_code, status, reference, card_brand, card_last4, failure_code, \
         failure_message, attempts, next_attempt_on, app_id, created_on, updated_on"
    };
}

/// Fields an order's payments may be sorted by; the order's index holds them.
pub const SORT_FIELDS: &[&str] = &["id"];

/// The card a charge was made with: all that is kept of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardShown {
    pub brand: String,
    pub last4: String,
}

/// A new payment row.
#[derive(Clone, Debug)]
pub struct NewPayment<'a> {
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub order_id: i64,
    pub payment_method_id: Option<i64>,
    pub method_type: MethodType,
    pub method_name: &'a str,
    pub kind: PaymentKind,
    pub charge_id: Option<i64>,
    pub amount: i64,
    pub currency_code: &'a str,
    pub status: PaymentStatus,
    pub reference: Option<&'a str>,
    pub card: Option<&'a CardShown>,
    /// When a pending refund is first due at its gateway.
    pub next_attempt_on: Option<Timestamp>,
    pub app_id: Option<i64>,
}

pub async fn insert(tx: &mut Tx, new: &NewPayment<'_>, now: Timestamp) -> Result<Payment> {
    Columns::new()
        .set("account_id", new.account_id)
        .set("seller_id", new.seller_id)
        .set("shop_id", new.shop_id)
        .set("order_id", new.order_id)
        .set("payment_method_id", new.payment_method_id)
        .set("method_type", new.method_type.as_str())
        .set("method_name", new.method_name)
        .set("kind", new.kind.as_str())
        .set("charge_id", new.charge_id)
        .set("amount", new.amount)
        .set("currency_code", new.currency_code)
        .set("status", new.status.as_str())
        .set("reference", new.reference)
        .set("card_brand", new.card.map(|c| c.brand.as_str()))
        .set("card_last4", new.card.map(|c| c.last4.as_str()))
        .set("next_attempt_on", new.next_attempt_on)
        .set("app_id", new.app_id)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("payments")
        .fetch_row(tx, columns!())
        .await
}

/// How a pending attempt ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub status: PaymentStatus,
    pub reference: Option<String>,
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    /// The gateway's token of the card it saved for later charges, if it was asked to.
    pub saved_card: Option<String>,
}

/// Records how a pending attempt ended, if it is still pending (a concurrent finalizer
/// may have been first: then nothing changes and `None` is answered).
pub async fn finalize(
    tx: &mut Tx,
    id: i64,
    outcome: &Outcome,
    now: Timestamp,
) -> Result<Option<Payment>> {
    let sql = concat!(
        "UPDATE payments SET status = $2, reference = COALESCE($3, reference), failure_code = $4, \
         failure_message = $5, next_attempt_on = NULL, attempts = attempts + 1, updated_on = $6, \
         saved_card = $7 WHERE id = $1 AND status = 'pending' RETURNING ",
        columns!()
    );
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Payment>(sql)
            .bind(id)
            .bind(outcome.status.as_str())
            .bind(&outcome.reference)
            .bind(&outcome.failure_code)
            .bind(&outcome.failure_message)
            .bind(now.as_micros())
            .bind(&outcome.saved_card)
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

/// Puts off a pending refund its gateway failed to make: tried once more, and due again
/// at `next_attempt_on`.
pub async fn postpone(
    tx: &mut Tx,
    id: i64,
    next_attempt_on: Timestamp,
    failure_message: &str,
    now: Timestamp,
) -> Result<Option<Payment>> {
    let sql = concat!(
        "UPDATE payments SET attempts = attempts + 1, next_attempt_on = $2, failure_message = $3, \
         updated_on = $4 WHERE id = $1 AND status = 'pending' RETURNING ",
        columns!()
    );
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Payment>(sql)
            .bind(id)
            .bind(next_attempt_on.as_micros())
            .bind(failure_message)
            .bind(now.as_micros())
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

/// Adds to an order's paid and refunded totals (the caller holds the order locked).
pub async fn add_to_order(
    tx: &mut Tx,
    order_id: i64,
    paid: i64,
    refunded: i64,
    now: Timestamp,
) -> Result<()> {
    execute_bound(
        tx,
        "UPDATE orders SET paid_total = paid_total + $2, refunded_total = refunded_total + $3, \
         updated_on = $4 WHERE id = $1"
            .to_owned(),
        &[
            Arg::Int(order_id),
            Arg::Int(paid),
            Arg::Int(refunded),
            Arg::from(now),
        ],
    )
    .await
}

/// The amount of the order's charges still waiting for their gateway.
pub async fn pending_charges_total(tx: &mut Tx, order_id: i64) -> Result<i64> {
    // PostgreSQL sums BIGINTs as NUMERIC: cast back.
    let total: i64 = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(
            "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM payments WHERE order_id = $1 \
             AND kind = 'charge' AND status = 'pending'",
        )
        .bind(order_id)
        .fetch_one(c)
        .await
    })?;
    Ok(total)
}

/// The order's charge still waiting for its gateway's answer, if any (the oldest).
pub async fn pending_charge_of_order(tx: &mut Tx, order_id: i64) -> Result<Option<Payment>> {
    let sql = format!(
        "SELECT {} FROM payments WHERE order_id = $1 AND kind = 'charge' AND status = 'pending' \
         ORDER BY id LIMIT 1",
        columns!()
    );
    Ok(
        fetch_all_bound!(Exec::Tx(tx), Payment, sql, &[Arg::Int(order_id)])?
            .into_iter()
            .next(),
    )
}

/// The order's approved charges that no refund returns yet, oldest first.
pub async fn unrefunded_charges(tx: &mut Tx, order_id: i64) -> Result<Vec<Payment>> {
    let sql = format!(
        "SELECT {} FROM payments p WHERE order_id = $1 AND kind = 'charge' AND status = 'approved' \
         AND NOT EXISTS (SELECT 1 FROM payments r WHERE r.charge_id = p.id) ORDER BY id",
        columns!()
    );
    Ok(fetch_all_bound!(
        Exec::Tx(tx),
        Payment,
        sql,
        &[Arg::Int(order_id)]
    )?)
}

/// One payment of an order.
pub async fn find_of_order<'a>(
    exec: impl Into<Exec<'a>>,
    order_id: i64,
    id: i64,
) -> Result<Option<Payment>> {
    let sql = format!(
        "SELECT {} FROM payments WHERE id = $1 AND order_id = $2",
        columns!()
    );
    let mut rows = fetch_all_bound!(
        exec.into(),
        Payment,
        sql,
        &[Arg::Int(id), Arg::Int(order_id)]
    )?;
    Ok(rows.pop())
}

/// A page of an order's payments (the caller checked that the tenant holds the order).
pub async fn of_order<'a>(
    exec: impl Into<Exec<'a>>,
    order_id: i64,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Payment>, u64)> {
    let mut f = Filter::new();
    f.eq("order_id", Arg::Int(order_id));
    let sql = list_sql(columns!(), "payments", &f, sort, window);
    fetch_list!(exec.into(), Payment, sql, f)
}

/// Pending charges written before `before` (their gateway's answer was lost), and pending
/// refunds due by `now`, oldest first: what the payments sweep settles.
pub async fn unsettled(
    db: &Database,
    before: Timestamp,
    now: Timestamp,
    limit: i64,
) -> Result<Vec<Payment>> {
    let sql = format!(
        "SELECT {} FROM payments WHERE status = 'pending' AND ((kind = 'charge' AND created_on < $1 \
         AND NOT EXISTS (SELECT 1 FROM orders o JOIN subscription_purchases sp \
         ON sp.id = o.subscription_purchase_id WHERE o.id = payments.order_id AND sp.state = 'active')) \
         OR (kind = 'refund' AND next_attempt_on <= $2)) ORDER BY id LIMIT $3",
        columns!()
    );
    Ok(fetch_all_bound!(
        Exec::Db(db),
        Payment,
        sql,
        &[Arg::from(before), Arg::from(now), Arg::Int(limit)]
    )?)
}

/// The order's pending refunds, oldest first.
pub async fn pending_refunds<'a>(exec: impl Into<Exec<'a>>, order_id: i64) -> Result<Vec<Payment>> {
    let sql = format!(
        "SELECT {} FROM payments WHERE order_id = $1 AND kind = 'refund' AND status = 'pending' \
         ORDER BY id",
        columns!()
    );
    Ok(fetch_all_bound!(
        exec.into(),
        Payment,
        sql,
        &[Arg::Int(order_id)]
    )?)
}

/// The card the gateway saved on the order's latest approved charge that saved one.
pub async fn saved_card_of_order(tx: &mut Tx, order_id: i64) -> Result<Option<String>> {
    let sql = "SELECT saved_card FROM payments WHERE order_id = $1 AND kind = 'charge' \
               AND status = 'approved' AND saved_card IS NOT NULL ORDER BY id DESC LIMIT 1";
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar::<_, String>(sql)
            .bind(order_id)
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}
