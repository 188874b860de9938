//! Shipping tables: a shop's ways of shipping, each a zone, a method and its rates (JSON
//! documents the domain's `ShippingRules` check), kept in the order of `position`.

use domain::Timestamp;
use domain::shipping::{Rate, ShippingMethod, ShippingRules, ZoneCountry};

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::json::{JsonText, to_text};
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::tenant_rows::{self, TenantTable};
use crate::write::Columns;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct ShippingTable {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub name: String,
    #[sqlx(try_from = "String")]
    pub method: ShippingMethod,
    #[sqlx(try_from = "String")]
    pub zone: JsonText<Vec<ZoneCountry>>,
    #[sqlx(try_from = "String")]
    pub rates: JsonText<Vec<Rate>>,
    pub free_over: Option<i64>,
    pub enabled: bool,
    pub position: i64,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, shop_id, name, method, zone, rates, free_over, enabled, position, \
         created_on, updated_on"
    };
}

/// What a client writes of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct ShippingTableData {
    pub name: String,
    pub rules: ShippingRules,
    pub enabled: bool,
    pub position: i64,
}

impl ShippingTable {
    pub fn rules(&self) -> ShippingRules {
        ShippingRules {
            method: self.method,
            zone: self.zone.0.clone(),
            rates: self.rates.0.clone(),
            free_over: self.free_over,
        }
    }

    pub fn data(&self) -> ShippingTableData {
        ShippingTableData {
            name: self.name.clone(),
            rules: self.rules(),
            enabled: self.enabled,
            position: self.position,
        }
    }
}

/// Fields a list of tables may be sorted by.
pub const SORT_FIELDS: &[&str] = &["position", "id", "name", "created_on", "updated_on"];

/// The most tables a shop keeps.
pub const PER_SHOP_MAX: i64 = 100;

#[derive(Clone, Debug, Default)]
pub struct ShippingTableFilter {
    pub enabled: Option<bool>,
    pub methods: Option<Vec<ShippingMethod>>,
}

/// Where its rows are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("shipping_tables");

fn written(data: &ShippingTableData) -> Columns {
    Columns::new()
        .set("name", &data.name)
        .set("method", data.rules.method.as_str())
        .set("zone", to_text(&data.rules.zone))
        .set("rates", to_text(&data.rules.rates))
        .set("free_over", data.rules.free_over)
        .set("enabled", data.enabled)
        .set("position", data.position)
}

/// Adds a table to the shop (`(account_id, seller_id, shop_id)`).
pub async fn insert(
    tx: &mut Tx,
    shop: (i64, i64, i64),
    data: &ShippingTableData,
    now: Timestamp,
) -> Result<ShippingTable> {
    let (account_id, seller_id, shop_id) = shop;
    written(data)
        .set("account_id", account_id)
        .set("seller_id", seller_id)
        .set("shop_id", shop_id)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("shipping_tables")
        .fetch_row(tx, columns!())
        .await
}

pub async fn update(
    tx: &mut Tx,
    id: i64,
    data: &ShippingTableData,
    now: Timestamp,
) -> Result<ShippingTable> {
    written(data)
        .set("updated_on", now)
        .update("shipping_tables", id)
        .fetch_row(tx, columns!())
        .await
}

/// How many tables the shop has, and the last position among them (0 with none).
pub async fn count_and_last_position(tx: &mut Tx, shop_id: i64) -> Result<(i64, i64)> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, (i64, i64)>(
            "SELECT COUNT(*), COALESCE(MAX(position), 0) FROM shipping_tables WHERE shop_id = $1",
        )
        .bind(shop_id)
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    id: i64,
) -> Result<Option<ShippingTable>> {
    tenant_rows::find(exec, "shipping_tables", columns!(), tenant, id).await
}

/// Reads a table and holds it against concurrent writers until the transaction ends.
pub async fn find_for_update(
    tx: &mut Tx,
    tenant: Tenant,
    id: i64,
) -> Result<Option<ShippingTable>> {
    tenant_rows::find_for_update(tx, "shipping_tables", columns!(), tenant, id).await
}

/// The shop's enabled tables, in their order: the ways an order of the shop may ship.
pub async fn enabled_of_shop<'a>(
    exec: impl Into<Exec<'a>>,
    shop_id: i64,
) -> Result<Vec<ShippingTable>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, ShippingTable>(concat!(
            "SELECT ",
            columns!(),
            " FROM shipping_tables WHERE shop_id = $1 AND enabled = $2 ORDER BY position, id"
        ))
        .bind(shop_id)
        .bind(true)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// A page of the shop's tables (the shop checked by the caller to be the tenant's).
pub async fn list(
    db: &Database,
    shop_id: i64,
    filter: &ShippingTableFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<ShippingTable>, u64)> {
    let mut f = Filter::new();
    f.eq("shop_id", Arg::Int(shop_id))
        .eq_opt("enabled", filter.enabled.map(Arg::Bool));
    if let Some(methods) = &filter.methods {
        f.any_of(
            "method",
            methods.iter().map(|m| Arg::Text(m.as_str().into())),
        );
    }
    let sql = list_sql(columns!(), "shipping_tables", &f, sort, window);
    fetch_list!(Exec::Db(db), ShippingTable, sql, f)
}
