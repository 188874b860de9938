//! Subscription fees: the recurring terms one variant is sold on. A fee keeps its variant's
//! product and seller beside the variant, for filters and tenancy, and goes with the
//! variant (or its product) by foreign-key cascade. Its renewal price depends on the
//! variant's price now, so reads answer each fee with that price (`PricedFee`), a page's
//! prices read in one query.

use std::collections::HashMap;

use domain::Timestamp;
use domain::subscription::{FeeTerms, FirstRenewal, PaymentInterval};

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter, Sort, TimeRange, Window, list_sql};
use crate::tenant_rows::{self, TenantTable};
use crate::variants;
use crate::write::Columns;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct SubscriptionFee {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub product_id: i64,
    pub variant_id: i64,
    #[sqlx(try_from = "String")]
    pub payment_interval: PaymentInterval,
    pub renewal_fee: i64,
    pub by_percentage: bool,
    pub setup_fee: i64,
    pub number_of_payments: i64,
    pub payment_day: Option<i64>,
    pub allow_non_recurring_payment: bool,
    pub min_days_for_cancellation: i64,
    pub allow_changing_day: bool,
    pub extend_on_reenable: bool,
    #[sqlx(try_from = "String")]
    pub on_first_renewal: FirstRenewal,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, product_id, variant_id, payment_interval, renewal_fee, by_percentage, \
         setup_fee, number_of_payments, payment_day, allow_non_recurring_payment, \
         min_days_for_cancellation, allow_changing_day, extend_on_reenable, on_first_renewal, \
         created_on, updated_on"
    };
}

impl SubscriptionFee {
    pub fn terms(&self) -> FeeTerms {
        FeeTerms {
            payment_interval: self.payment_interval,
            renewal_fee: self.renewal_fee,
            by_percentage: self.by_percentage,
            setup_fee: self.setup_fee,
            number_of_payments: self.number_of_payments,
            payment_day: self.payment_day,
            allow_non_recurring_payment: self.allow_non_recurring_payment,
            min_days_for_cancellation: self.min_days_for_cancellation,
            allow_changing_day: self.allow_changing_day,
            extend_on_reenable: self.extend_on_reenable,
            on_first_renewal: self.on_first_renewal,
        }
    }
}

/// A fee with its variant's price as read with it.
#[derive(Clone, Debug, PartialEq)]
pub struct PricedFee {
    pub fee: SubscriptionFee,
    pub variant_price: i64,
}

impl PricedFee {
    /// What one unit renews for now, in minor units.
    pub fn renewal_fee_price(&self) -> i64 {
        self.fee.terms().renewal_fee_price(self.variant_price)
    }
}

/// The variant a fee belongs to, with its owners.
#[derive(Clone, Copy, Debug)]
pub struct Owner {
    pub account_id: i64,
    pub seller_id: i64,
    pub product_id: i64,
    pub variant_id: i64,
}

/// Fields a fee list may be sorted by; each is indexed with the account.
pub const SORT_FIELDS: &[&str] = &["id", "created_on", "updated_on"];

#[derive(Clone, Debug, Default)]
pub struct SubscriptionFeeFilter {
    pub seller_ids: Option<Vec<i64>>,
    pub product_ids: Option<Vec<i64>>,
    pub variant_ids: Option<Vec<i64>>,
    pub payment_intervals: Option<Vec<PaymentInterval>>,
    pub created_on: TimeRange,
    pub updated_on: TimeRange,
}

/// Where its rows are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("subscription_fees");

/// The columns the terms write, on insert and update alike.
fn written(terms: &FeeTerms) -> Columns {
    Columns::new()
        .set("payment_interval", terms.payment_interval.as_str())
        .set("renewal_fee", terms.renewal_fee)
        .set("by_percentage", terms.by_percentage)
        .set("setup_fee", terms.setup_fee)
        .set("number_of_payments", terms.number_of_payments)
        .set("payment_day", terms.payment_day)
        .set(
            "allow_non_recurring_payment",
            terms.allow_non_recurring_payment,
        )
        .set("min_days_for_cancellation", terms.min_days_for_cancellation)
        .set("allow_changing_day", terms.allow_changing_day)
        .set("extend_on_reenable", terms.extend_on_reenable)
        .set("on_first_renewal", terms.on_first_renewal.as_str())
}

pub async fn insert(
    tx: &mut Tx,
    owner: Owner,
    terms: &FeeTerms,
    now: Timestamp,
) -> Result<SubscriptionFee> {
    written(terms)
        .set("account_id", owner.account_id)
        .set("seller_id", owner.seller_id)
        .set("product_id", owner.product_id)
        .set("variant_id", owner.variant_id)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("subscription_fees")
        .fetch_row(tx, columns!())
        .await
}

/// Writes `terms` over a fee the caller has locked.
pub async fn update(
    tx: &mut Tx,
    id: i64,
    terms: &FeeTerms,
    now: Timestamp,
) -> Result<SubscriptionFee> {
    written(terms)
        .set("updated_on", now)
        .update("subscription_fees", id)
        .fetch_row(tx, columns!())
        .await
}

/// The tenant's fee with this id, with its variant's price.
pub async fn find(db: &Database, tenant: Tenant, id: i64) -> Result<Option<PricedFee>> {
    let found = tenant_rows::find(db, "subscription_fees", columns!(), tenant, id).await?;
    match found {
        Some(fee) => Ok(priced(Exec::Db(db), vec![fee]).await?.pop()),
        None => Ok(None),
    }
}

/// The account's fees of these variants, in id order.
pub async fn of_variants<'a>(
    exec: impl Into<Exec<'a>>,
    account_id: i64,
    variant_ids: &[i64],
) -> Result<Vec<SubscriptionFee>> {
    if variant_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(account_id))
        .any_of("variant_id", variant_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT {} FROM subscription_fees{} ORDER BY id",
        columns!(),
        f.where_sql()
    );
    Ok(fetch_all_bound!(
        exec.into(),
        SubscriptionFee,
        sql,
        f.args()
    )?)
}

/// Reads a fee and holds it against concurrent writers until the transaction ends.
pub async fn find_for_update(
    tx: &mut Tx,
    tenant: Tenant,
    id: i64,
) -> Result<Option<SubscriptionFee>> {
    tenant_rows::find_for_update(tx, "subscription_fees", columns!(), tenant, id).await
}

/// The fees with their variants' prices, in their order; the prices read in one query.
pub async fn priced<'a>(
    exec: impl Into<Exec<'a>>,
    fees: Vec<SubscriptionFee>,
) -> Result<Vec<PricedFee>> {
    let mut ids: Vec<i64> = fees.iter().map(|f| f.variant_id).collect();
    ids.sort_unstable();
    ids.dedup();
    let prices: HashMap<i64, i64> = variants::prices_of(exec, &ids).await?;
    Ok(fees
        .into_iter()
        .map(|fee| {
            // A fee's variant goes with it, so its price is there; 0 only if a variant
            // were deleted between the two reads.
            let variant_price = prices.get(&fee.variant_id).copied().unwrap_or(0);
            PricedFee { fee, variant_price }
        })
        .collect())
}

/// A page of the tenant's fees, with their variants' prices, and their total.
pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &SubscriptionFeeFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<PricedFee>, u64)> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
    for (column, ids) in [
        ("seller_id", &filter.seller_ids),
        ("product_id", &filter.product_ids),
        ("variant_id", &filter.variant_ids),
    ] {
        if let Some(ids) = ids {
            f.any_of(column, ids.iter().copied().map(Arg::Int));
        }
    }
    if let Some(intervals) = &filter.payment_intervals {
        f.any_of(
            "payment_interval",
            intervals.iter().map(|i| Arg::Text(i.as_str().into())),
        );
    }
    f.range("created_on", filter.created_on.0, filter.created_on.1)
        .range("updated_on", filter.updated_on.0, filter.updated_on.1);
    let sql = list_sql(columns!(), "subscription_fees", &f, sort, window);
    let (fees, total): (Vec<SubscriptionFee>, u64) =
        fetch_list!(Exec::Db(db), SubscriptionFee, sql, f)?;
    Ok((priced(db, fees).await?, total))
}
