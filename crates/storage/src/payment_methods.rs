//! Payment methods: the ways a shop's buyers pay (a gateway, a bank transfer, cash on
//! delivery), in the order the shop lists them. Public settings are JSON text; secret
//! settings are one sealed JSON object read only where a gateway needs them, and never
//! with the row (`secrets_set` names the keys it holds).

use std::collections::BTreeMap;

use domain::Timestamp;
use domain::payment::MethodType;

use crate::Tenant;
use crate::db::{Exec, Tx};
use crate::error::Result;
use crate::json::{JsonText, to_text};
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::tenant_rows::{self, TenantTable};
use crate::write::Columns;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct PaymentMethod {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    #[sqlx(try_from = "String")]
    pub method_type: MethodType,
    pub name: String,
    pub instructions: String,
    pub enabled: bool,
    pub position: i64,
    /// The public settings.
    #[sqlx(try_from = "String")]
    pub settings: JsonText<BTreeMap<String, String>>,
    /// The names of the secret settings that are set (their values are sealed apart).
    #[sqlx(try_from = "String")]
    pub secrets_set: JsonText<Vec<String>>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, shop_id, method_type, name, instructions, enabled, position, settings, \
         secrets_set, created_on, updated_on"
    };
}

/// Fields a shop's methods may be sorted by; the shop's index holds both.
pub const SORT_FIELDS: &[&str] = &["position", "id"];

/// What a method is written with.
#[derive(Clone, Debug, PartialEq)]
pub struct MethodData {
    pub name: String,
    pub instructions: String,
    pub enabled: bool,
    pub position: i64,
    pub settings: BTreeMap<String, String>,
    pub secrets_set: Vec<String>,
}

impl PaymentMethod {
    pub fn data(&self) -> MethodData {
        MethodData {
            name: self.name.clone(),
            instructions: self.instructions.clone(),
            enabled: self.enabled,
            position: self.position,
            settings: self.settings.0.clone(),
            secrets_set: self.secrets_set.0.clone(),
        }
    }
}

/// The shop a new method belongs to, with its owners.
#[derive(Clone, Copy, Debug)]
pub struct Owner {
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
}

/// The columns `data` and the sealed secrets write, on insert and update alike.
fn written(data: &MethodData, secrets_sealed: Option<&[u8]>) -> Columns {
    Columns::new()
        .set("name", &data.name)
        .set("instructions", &data.instructions)
        .set("enabled", data.enabled)
        .set("position", data.position)
        .set("settings", to_text(&data.settings))
        .set("secrets_set", to_text(&data.secrets_set))
        .set("secrets_sealed", secrets_sealed)
}

pub async fn insert(
    tx: &mut Tx,
    owner: Owner,
    method_type: MethodType,
    data: &MethodData,
    secrets_sealed: Option<&[u8]>,
    now: Timestamp,
) -> Result<PaymentMethod> {
    written(data, secrets_sealed)
        .set("account_id", owner.account_id)
        .set("seller_id", owner.seller_id)
        .set("shop_id", owner.shop_id)
        .set("method_type", method_type.as_str())
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("payment_methods")
        .fetch_row(tx, columns!())
        .await
}

/// Writes `data` and the sealed secrets over a method the caller has locked.
pub async fn update(
    tx: &mut Tx,
    id: i64,
    data: &MethodData,
    secrets_sealed: Option<&[u8]>,
    now: Timestamp,
) -> Result<PaymentMethod> {
    written(data, secrets_sealed)
        .set("updated_on", now)
        .update("payment_methods", id)
        .fetch_row(tx, columns!())
        .await
}

/// Where methods are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("payment_methods");

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    id: i64,
) -> Result<Option<PaymentMethod>> {
    tenant_rows::find(exec, "payment_methods", columns!(), tenant, id).await
}

/// Reads a method and holds it against concurrent writers until the transaction ends.
pub async fn find_for_update(
    tx: &mut Tx,
    tenant: Tenant,
    id: i64,
) -> Result<Option<PaymentMethod>> {
    tenant_rows::find_for_update(tx, "payment_methods", columns!(), tenant, id).await
}

/// The sealed secret settings of a method (read only to hand them to its gateway, or to
/// merge new ones in).
pub async fn secrets_sealed<'a>(exec: impl Into<Exec<'a>>, id: i64) -> Result<Option<Vec<u8>>> {
    let found: Option<Option<Vec<u8>>> = with_conn!(exec.into(), |c| {
        sqlx::query_scalar("SELECT secrets_sealed FROM payment_methods WHERE id = $1")
            .bind(id)
            .fetch_optional(c)
            .await
    })?;
    Ok(found.flatten())
}

/// The next position in the shop's list (after its last method).
pub async fn next_position(tx: &mut Tx, shop_id: i64) -> Result<i64> {
    let last: Option<i64> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar("SELECT MAX(position) FROM payment_methods WHERE shop_id = $1")
            .bind(shop_id)
            .fetch_one(c)
            .await
    })?;
    Ok(last.unwrap_or(0) + 1)
}

/// How many methods the shop has.
pub async fn count_of_shop(tx: &mut Tx, shop_id: i64) -> Result<i64> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar("SELECT COUNT(*) FROM payment_methods WHERE shop_id = $1")
            .bind(shop_id)
            .fetch_one(c)
            .await
    })
    .map_err(Into::into)
}

/// A page of a shop's methods (the caller checked that the tenant holds the shop).
pub async fn of_shop<'a>(
    exec: impl Into<Exec<'a>>,
    shop_id: i64,
    sort: Sort,
    window: Window,
) -> Result<(Vec<PaymentMethod>, u64)> {
    let mut f = Filter::new();
    f.eq("shop_id", Arg::Int(shop_id));
    let sql = list_sql(columns!(), "payment_methods", &f, sort, window);
    fetch_list!(exec.into(), PaymentMethod, sql, f)
}
