//! Subscription purchases: what a paid order's recurring lines start, one per line. A
//! purchase keeps a copy of its fee's terms as they were (the fee may change or go), its
//! billing figures and dates, and how its renewals are charged. `due_on` is what the
//! renewal engine scans: the date it is next to act on a billed purchase, kept by every
//! save from the figures themselves.

use domain::subscription::PaymentInterval;
use domain::subscription::billing::Billing;
use domain::subscription::purchase::{PausedBy, PurchaseState};
use domain::{CalendarDate, Timestamp};

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter, Sort, TimeRange, Window, list_sql};
use crate::tenant_rows;
use crate::write::Columns;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct SubscriptionPurchase {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub contact_id: Option<i64>,
    pub original_order_id: Option<i64>,
    pub original_line_id: i64,
    pub product_id: i64,
    pub variant_id: Option<i64>,
    pub product_name: String,
    pub subscription_fee_id: Option<i64>,
    #[sqlx(try_from = "String")]
    pub state: PurchaseState,
    #[sqlx(try_from = "Option<String>")]
    pub paused_by: MaybePausedBy,
    pub last_pause_at: Option<Timestamp>,
    pub currency_code: String,
    pub units: i64,
    pub total_renewal_fee: i64,
    #[sqlx(try_from = "String")]
    pub payment_interval: PaymentInterval,
    pub payment_day: i64,
    pub paid_setup_fee: bool,
    #[sqlx(try_from = "String")]
    pub start_date: CalendarDate,
    #[sqlx(try_from = "Option<String>")]
    pub last_payment_on: MaybeDate,
    #[sqlx(try_from = "String")]
    pub next_payment_on: CalendarDate,
    #[sqlx(try_from = "Option<String>")]
    pub end_date: MaybeDate,
    #[sqlx(try_from = "Option<String>")]
    pub cancel_at: MaybeDate,
    pub total_payments: i64,
    pub remaining_payments: i64,
    pub failed_attempts: i64,
    #[sqlx(try_from = "Option<String>")]
    pub retry_on: MaybeDate,
    pub payments_to_skip: i64,
    pub renewal_discount: i64,
    pub discount_num_charges: i64,
    pub prorated_days: Option<i64>,
    pub prorated_of: Option<i64>,
    pub payment_method_id: Option<i64>,
    pub saved_card: Option<String>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, shop_id, contact_id, original_order_id, original_line_id, product_id, \
         variant_id, product_name, subscription_fee_id, state, paused_by, last_pause_at, currency_code, units, \
         total_renewal_fee, payment_interval, payment_day, paid_setup_fee, start_date, last_payment_on, \
         next_payment_on, end_date, cancel_at, total_payments, remaining_payments, failed_attempts, retry_on, \
         payments_to_skip, renewal_discount, discount_num_charges, prorated_days, prorated_of, \
         payment_method_id, saved_card, created_on, updated_on"
    };
}

/// A nullable date column, decoded from its text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaybeDate(pub Option<CalendarDate>);

impl TryFrom<Option<String>> for MaybeDate {
    type Error = String;

    fn try_from(text: Option<String>) -> std::result::Result<Self, Self::Error> {
        text.map(CalendarDate::try_from).transpose().map(MaybeDate)
    }
}

/// The nullable `paused_by` column, decoded from its text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaybePausedBy(pub Option<PausedBy>);

impl TryFrom<Option<String>> for MaybePausedBy {
    type Error = domain::text_enum::UnknownValue;

    fn try_from(text: Option<String>) -> std::result::Result<Self, Self::Error> {
        text.map(|t| t.parse()).transpose().map(MaybePausedBy)
    }
}

impl SubscriptionPurchase {
    /// Its billing figures, as the renewal rules read them.
    pub fn billing(&self) -> Billing {
        Billing {
            state: self.state,
            interval: self.payment_interval,
            payment_day: u8::try_from(self.payment_day).unwrap_or(1),
            next_payment_on: self.next_payment_on,
            last_payment_on: self.last_payment_on.0,
            total_renewal_fee: self.total_renewal_fee,
            total_payments: self.total_payments,
            remaining_payments: self.remaining_payments,
            payments_to_skip: self.payments_to_skip,
            renewal_discount: self.renewal_discount,
            discount_num_charges: self.discount_num_charges,
            failed_attempts: self.failed_attempts,
            retry_on: self.retry_on.0,
            prorated: self.prorated_days.zip(self.prorated_of),
        }
    }

    /// Takes the figures of `billing` over.
    pub fn set_billing(&mut self, billing: &Billing) {
        self.state = billing.state;
        self.payment_interval = billing.interval;
        self.payment_day = i64::from(billing.payment_day);
        self.next_payment_on = billing.next_payment_on;
        self.last_payment_on = MaybeDate(billing.last_payment_on);
        self.total_renewal_fee = billing.total_renewal_fee;
        self.total_payments = billing.total_payments;
        self.remaining_payments = billing.remaining_payments;
        self.payments_to_skip = billing.payments_to_skip;
        self.renewal_discount = billing.renewal_discount;
        self.discount_num_charges = billing.discount_num_charges;
        self.failed_attempts = billing.failed_attempts;
        self.retry_on = MaybeDate(billing.retry_on);
        self.prorated_days = billing.prorated.map(|p| p.0);
        self.prorated_of = billing.prorated.map(|p| p.1);
    }
}

/// What a new purchase is written with besides its billing figures.
pub struct NewPurchase<'a> {
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub contact_id: Option<i64>,
    pub original_order_id: i64,
    pub original_line_id: i64,
    pub product_id: i64,
    pub variant_id: Option<i64>,
    pub product_name: &'a str,
    pub subscription_fee_id: i64,
    pub currency_code: &'a str,
    pub units: i64,
    pub paid_setup_fee: bool,
    pub start_date: CalendarDate,
    pub payment_method_id: Option<i64>,
    pub saved_card: Option<&'a str>,
    pub billing: Billing,
}

/// The columns a save writes: everything that changes after the purchase opens.
fn changing(purchase: &SubscriptionPurchase) -> Columns {
    let billing = purchase.billing();
    Columns::new()
        .set("subscription_fee_id", purchase.subscription_fee_id)
        .set("state", purchase.state.as_str())
        .set("paused_by", purchase.paused_by.0.map(PausedBy::as_str))
        .set("last_pause_at", purchase.last_pause_at)
        .set("total_renewal_fee", purchase.total_renewal_fee)
        .set("payment_interval", purchase.payment_interval.as_str())
        .set("payment_day", purchase.payment_day)
        .set("last_payment_on", purchase.last_payment_on.0)
        .set("next_payment_on", purchase.next_payment_on)
        .set("end_date", purchase.end_date.0)
        .set("cancel_at", purchase.cancel_at.0)
        .set("total_payments", purchase.total_payments)
        .set("remaining_payments", purchase.remaining_payments)
        .set("failed_attempts", purchase.failed_attempts)
        .set("retry_on", purchase.retry_on.0)
        .set("payments_to_skip", purchase.payments_to_skip)
        .set("renewal_discount", purchase.renewal_discount)
        .set("discount_num_charges", purchase.discount_num_charges)
        .set("prorated_days", purchase.prorated_days)
        .set("prorated_of", purchase.prorated_of)
        .set("payment_method_id", purchase.payment_method_id)
        .set("saved_card", purchase.saved_card.as_deref())
        .set("due_on", due_on(&billing, purchase.cancel_at.0))
}

/// When the engine is next to act on a purchase: its due date, or a pending cancel's date
/// when that comes first (a paused or failed purchase is due on its cancel's date only).
pub fn due_on(billing: &Billing, cancel_at: Option<CalendarDate>) -> Option<CalendarDate> {
    let cancel = cancel_at.filter(|_| !billing.state.is_final());
    match (billing.due_on(), cancel) {
        (Some(due), Some(cancel)) => Some(due.min(cancel)),
        (due, cancel) => due.or(cancel),
    }
}

pub async fn insert(
    tx: &mut Tx,
    new: &NewPurchase<'_>,
    now: Timestamp,
) -> Result<SubscriptionPurchase> {
    let b = &new.billing;
    Columns::new()
        .set("account_id", new.account_id)
        .set("seller_id", new.seller_id)
        .set("shop_id", new.shop_id)
        .set("contact_id", new.contact_id)
        .set("original_order_id", new.original_order_id)
        .set("original_line_id", new.original_line_id)
        .set("product_id", new.product_id)
        .set("variant_id", new.variant_id)
        .set("product_name", new.product_name)
        .set("subscription_fee_id", new.subscription_fee_id)
        .set("state", b.state.as_str())
        .set("currency_code", new.currency_code)
        .set("units", new.units)
        .set("total_renewal_fee", b.total_renewal_fee)
        .set("payment_interval", b.interval.as_str())
        .set("payment_day", i64::from(b.payment_day))
        .set("paid_setup_fee", new.paid_setup_fee)
        .set("start_date", new.start_date)
        // A purchase of one payment is finished as it opens: it ends on its start.
        .set(
            "end_date",
            (b.state == PurchaseState::Finished).then_some(new.start_date),
        )
        .set("last_payment_on", b.last_payment_on)
        .set("next_payment_on", b.next_payment_on)
        .set("total_payments", b.total_payments)
        .set("remaining_payments", b.remaining_payments)
        .set("payments_to_skip", b.payments_to_skip)
        .set("prorated_days", b.prorated.map(|p| p.0))
        .set("prorated_of", b.prorated.map(|p| p.1))
        .set("payment_method_id", new.payment_method_id)
        .set("saved_card", new.saved_card)
        .set("due_on", due_on(b, None))
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("subscription_purchases")
        .fetch_row(tx, columns!())
        .await
}

/// Writes a purchase the caller has locked, as it now is.
pub async fn save(
    tx: &mut Tx,
    purchase: &SubscriptionPurchase,
    now: Timestamp,
) -> Result<SubscriptionPurchase> {
    changing(purchase)
        .set("updated_on", now)
        .update("subscription_purchases", purchase.id)
        .fetch_row(tx, columns!())
        .await
}

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    id: i64,
) -> Result<Option<SubscriptionPurchase>> {
    tenant_rows::find(exec, "subscription_purchases", columns!(), tenant, id).await
}

/// Reads a purchase and holds it against concurrent writers until the transaction ends
/// (`FOR NO KEY UPDATE`: its renewal orders hold it `FOR KEY SHARE`; see `locks`).
pub async fn find_for_update(
    tx: &mut Tx,
    tenant: Tenant,
    id: i64,
) -> Result<Option<SubscriptionPurchase>> {
    let lock = " FOR NO KEY UPDATE";
    tenant_rows::find_locked(tx, "subscription_purchases", columns!(), tenant, id, lock).await
}

/// The purchases an order's lines started.
pub async fn of_order(tx: &mut Tx, order_id: i64) -> Result<Vec<SubscriptionPurchase>> {
    let sql = concat!(
        "SELECT ",
        columns!(),
        " FROM subscription_purchases WHERE original_order_id = $1 ORDER BY id"
    );
    Ok(fetch_all_bound!(
        Exec::Tx(tx),
        SubscriptionPurchase,
        sql.to_owned(),
        &[Arg::Int(order_id)]
    )?)
}

/// The ids of a fee's purchases in `state`, in id order.
pub async fn ids_of_fee(tx: &mut Tx, fee_id: i64, state: PurchaseState) -> Result<Vec<i64>> {
    let sql = "SELECT id FROM subscription_purchases WHERE subscription_fee_id = $1 AND state = $2 ORDER BY id";
    with_conn!(Exec::Tx(tx), |c| {
        Ok(sqlx::query_scalar::<_, i64>(sql)
            .bind(fee_id)
            .bind(state.as_str())
            .fetch_all(&mut *c)
            .await?)
    })
}

/// A due purchase, as the renewal engine finds it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Due {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    /// Where the scan goes on from: (due_on, id).
    pub due_on: String,
}

/// Up to `limit` purchases due on or before `today`, in (due date, id) order after
/// `after` (a previous page's last), so that one the engine could not move is passed.
pub async fn due(
    db: &Database,
    today: CalendarDate,
    after: Option<&Due>,
    limit: i64,
) -> Result<Vec<Due>> {
    let (after_on, after_id) = after.map_or((String::new(), 0), |d| (d.due_on.clone(), d.id));
    let sql = "SELECT id, account_id, seller_id, due_on FROM subscription_purchases \
               WHERE due_on <= $1 AND (due_on > $2 OR (due_on = $2 AND id > $3)) \
               ORDER BY due_on, id LIMIT $4";
    with_conn!(Exec::Db(db), |c| {
        Ok(sqlx::query_as::<_, Due>(sql)
            .bind(today.to_string())
            .bind(after_on)
            .bind(after_id)
            .bind(limit)
            .fetch_all(&mut *c)
            .await?)
    })
}

/// Fields a purchase list may be sorted by; each is indexed with the account.
pub const SORT_FIELDS: &[&str] = &["id", "next_payment_on", "created_on", "updated_on"];

#[derive(Clone, Debug, Default)]
pub struct PurchaseFilter {
    pub states: Option<Vec<PurchaseState>>,
    pub shop_ids: Option<Vec<i64>>,
    pub contact_ids: Option<Vec<i64>>,
    pub product_ids: Option<Vec<i64>>,
    pub subscription_fee_ids: Option<Vec<i64>>,
    pub next_payment_on: (Option<CalendarDate>, Option<CalendarDate>),
    pub created_on: TimeRange,
    pub updated_on: TimeRange,
}

/// A page of the tenant's purchases and their total.
pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &PurchaseFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<SubscriptionPurchase>, u64)> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
    if let Some(states) = &filter.states {
        f.any_of("state", states.iter().map(|s| Arg::Text(s.as_str().into())));
    }
    for (column, ids) in [
        ("shop_id", &filter.shop_ids),
        ("contact_id", &filter.contact_ids),
        ("product_id", &filter.product_ids),
        ("subscription_fee_id", &filter.subscription_fee_ids),
    ] {
        if let Some(ids) = ids {
            f.any_of(column, ids.iter().copied().map(Arg::Int));
        }
    }
    f.range(
        "next_payment_on",
        filter.next_payment_on.0,
        filter.next_payment_on.1,
    )
    .range("created_on", filter.created_on.0, filter.created_on.1)
    .range("updated_on", filter.updated_on.0, filter.updated_on.1);
    let sql = list_sql(columns!(), "subscription_purchases", &f, sort, window);
    fetch_list!(Exec::Db(db), SubscriptionPurchase, sql, f)
}
