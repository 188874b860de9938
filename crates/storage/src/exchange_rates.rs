//! Exchange rates: what one unit of a shop's currency buys of another, as millionths
//! (`domain::exchange::ExchangeRate`). One rate per shop and pair of currencies.

use domain::Timestamp;

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::tenant_rows::{self, TenantTable};
use crate::write::Columns;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct StoredRate {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub from_currency: String,
    pub to_currency: String,
    /// Millionths.
    pub rate: i64,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, shop_id, from_currency, to_currency, rate, created_on, updated_on"
    };
}

/// Fields a list of rates may be sorted by.
pub const SORT_FIELDS: &[&str] = &["to_currency", "id", "created_on", "updated_on"];

#[derive(Clone, Debug, Default)]
pub struct RateFilter {
    pub from_currencies: Option<Vec<String>>,
    pub to_currencies: Option<Vec<String>>,
}

/// Where its rows are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("exchange_rates");

/// Adds the shop's (`(account_id, seller_id, shop_id)`) rate from `from` to `to`.
pub async fn insert(
    tx: &mut Tx,
    shop: (i64, i64, i64),
    (from, to): (&str, &str),
    rate: i64,
    now: Timestamp,
) -> Result<StoredRate> {
    let (account_id, seller_id, shop_id) = shop;
    Columns::new()
        .set("account_id", account_id)
        .set("seller_id", seller_id)
        .set("shop_id", shop_id)
        .set("from_currency", from)
        .set("to_currency", to)
        .set("rate", rate)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("exchange_rates")
        .fetch_row(tx, columns!())
        .await
}

pub async fn set_rate(tx: &mut Tx, id: i64, rate: i64, now: Timestamp) -> Result<StoredRate> {
    Columns::new()
        .set("rate", rate)
        .set("updated_on", now)
        .update("exchange_rates", id)
        .fetch_row(tx, columns!())
        .await
}

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    id: i64,
) -> Result<Option<StoredRate>> {
    tenant_rows::find(exec, "exchange_rates", columns!(), tenant, id).await
}

/// Reads a rate and holds it against concurrent writers until the transaction ends.
pub async fn find_for_update(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<StoredRate>> {
    tenant_rows::find_for_update(tx, "exchange_rates", columns!(), tenant, id).await
}

/// The shop's rate from `from` to `to`, if it has one.
pub async fn between<'a>(
    exec: impl Into<Exec<'a>>,
    shop_id: i64,
    from: &str,
    to: &str,
) -> Result<Option<StoredRate>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, StoredRate>(concat!(
            "SELECT ",
            columns!(),
            " FROM exchange_rates WHERE shop_id = $1 AND from_currency = $2 AND to_currency = $3"
        ))
        .bind(shop_id)
        .bind(from)
        .bind(to)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// A page of the shop's rates (the shop checked by the caller to be the tenant's).
pub async fn list(
    db: &Database,
    shop_id: i64,
    filter: &RateFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<StoredRate>, u64)> {
    let mut f = Filter::new();
    f.eq("shop_id", Arg::Int(shop_id));
    if let Some(codes) = &filter.from_currencies {
        f.any_of("from_currency", codes.iter().cloned().map(Arg::Text));
    }
    if let Some(codes) = &filter.to_currencies {
        f.any_of("to_currency", codes.iter().cloned().map(Arg::Text));
    }
    let sql = list_sql(columns!(), "exchange_rates", &f, sort, window);
    fetch_list!(Exec::Db(db), StoredRate, sql, f)
}
