//! Shops: the storefronts of a seller. `account_id` is kept on the row so that every
//! tenancy filter is one indexed comparison.

use domain::Timestamp;
use domain::shop::Storefront;

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::tenant_rows;
use crate::write::Columns;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Shop {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub subdomain: String,
    pub name: String,
    pub description: String,
    pub locale: String,
    pub currency_code: String,
    pub timezone: String,
    pub contact_email: Option<String>,
    #[sqlx(try_from = "String")]
    pub storefront: Storefront,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, subdomain, name, description, locale, currency_code, timezone, \
         contact_email, storefront, created_on, updated_on"
    };
}

/// Fields a shop list may be sorted by; each is indexed with the account.
pub const SORT_FIELDS: &[&str] = &["id", "name", "created_on", "updated_on"];

/// The settings a shop is created with or changed to.
#[derive(Clone, Debug, PartialEq)]
pub struct ShopSettings {
    pub name: String,
    pub description: String,
    pub locale: String,
    pub currency_code: String,
    pub timezone: String,
    pub contact_email: Option<String>,
    pub storefront: Storefront,
}

impl Shop {
    pub fn settings(&self) -> ShopSettings {
        ShopSettings {
            name: self.name.clone(),
            description: self.description.clone(),
            locale: self.locale.clone(),
            currency_code: self.currency_code.clone(),
            timezone: self.timezone.clone(),
            contact_email: self.contact_email.clone(),
            storefront: self.storefront,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct ShopFilter {
    pub seller_ids: Option<Vec<i64>>,
    pub subdomains: Option<Vec<String>>,
    pub storefront: Option<Storefront>,
    pub q: Option<String>,
    pub created_on: crate::sql::TimeRange,
    pub updated_on: crate::sql::TimeRange,
}

pub async fn insert(
    tx: &mut Tx,
    tenant_account_id: i64,
    seller_id: i64,
    subdomain: &str,
    settings: &ShopSettings,
    now: Timestamp,
) -> Result<Shop> {
    written(settings)
        .set("account_id", tenant_account_id)
        .set("seller_id", seller_id)
        .set("subdomain", subdomain)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("shops")
        .fetch_row(tx, columns!())
        .await
}

/// Writes new settings; the caller has locked the row with `find_for_update`.
pub async fn update(tx: &mut Tx, id: i64, settings: &ShopSettings, now: Timestamp) -> Result<Shop> {
    written(settings)
        .set("updated_on", now)
        .update("shops", id)
        .fetch_row(tx, columns!())
        .await
}

/// The columns a shop's settings write, on insert and update alike.
fn written(settings: &ShopSettings) -> Columns {
    Columns::new()
        .set("name", &settings.name)
        .set("description", &settings.description)
        .set("locale", &settings.locale)
        .set("currency_code", &settings.currency_code)
        .set("timezone", &settings.timezone)
        .set("contact_email", &settings.contact_email)
        .set("storefront", settings.storefront.as_str())
}

pub async fn find<'a>(exec: impl Into<Exec<'a>>, tenant: Tenant, id: i64) -> Result<Option<Shop>> {
    tenant_rows::find(exec, "shops", columns!(), tenant, id).await
}

/// Reads a shop and holds it against concurrent writers until the transaction ends.
pub async fn find_for_update(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<Shop>> {
    tenant_rows::find_for_update(tx, "shops", columns!(), tenant, id).await
}

/// Reads a shop and holds it (level 3) against its settings' and roster's other writers,
/// without holding back writes that only refer to it (an order's foreign key).
pub async fn find_for_roster(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<Shop>> {
    tenant_rows::find_locked(tx, "shops", columns!(), tenant, id, " FOR NO KEY UPDATE").await
}

pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &ShopFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Shop>, u64)> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
    if let Some(ids) = &filter.seller_ids {
        f.any_of("seller_id", ids.iter().copied().map(Arg::Int));
    }
    if let Some(subdomains) = &filter.subdomains {
        f.any_of("subdomain", subdomains.iter().cloned().map(Arg::Text));
    }
    f.eq_opt(
        "storefront",
        filter.storefront.map(|s| Arg::Text(s.as_str().to_owned())),
    );
    if let Some(q) = &filter.q {
        f.contains_text(&["name", "subdomain"], q);
    }
    f.range("created_on", filter.created_on.0, filter.created_on.1)
        .range("updated_on", filter.updated_on.0, filter.updated_on.1);
    let sql = list_sql(columns!(), "shops", &f, sort, window);
    fetch_list!(Exec::Db(db), Shop, sql, f)
}

/// The tenant's first shops by id, for embedding in the root.
pub async fn first_of_tenant(db: &Database, tenant: Tenant, limit: i64) -> Result<Vec<Shop>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Shop>(concat!(
            "SELECT ",
            columns!(),
            " FROM shops WHERE account_id = $1 AND ($2 IS NULL OR seller_id = $2) ORDER BY id LIMIT $3"
        ))
        .bind(tenant.account_id)
        .bind(tenant.seller_id)
        .bind(limit)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// The shops of several sellers in one query, for embedding them in a seller list.
pub async fn of_sellers(db: &Database, seller_ids: &[i64]) -> Result<Vec<Shop>> {
    if seller_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.any_of("seller_id", seller_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT {} FROM shops{} ORDER BY seller_id, id",
        columns!(),
        f.where_sql()
    );
    with_conn!(Exec::Db(db), |c| {
        crate::sql::bind_as(
            sqlx::query_as::<_, Shop>(sqlx::AssertSqlSafe(sql)),
            f.args(),
        )
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// The first shop of the database (operator commands).
pub async fn first(db: &Database) -> Result<Option<Shop>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Shop>(concat!(
            "SELECT ",
            columns!(),
            " FROM shops ORDER BY id LIMIT 1"
        ))
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Shops by id, whoever owns them (the webhook dispatcher names its deliveries' shops).
pub async fn by_ids(db: &Database, ids: &[i64]) -> Result<Vec<Shop>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.any_of("id", ids.iter().copied().map(Arg::Int));
    let sql = format!("SELECT {} FROM shops{}", columns!(), f.where_sql());
    Ok(fetch_all_bound!(Exec::Db(db), Shop, sql, f.args())?)
}
