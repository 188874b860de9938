//! Sellers: the business layer between an account and its shops. Read-only through the
//! API; created by operators and the demo seed.

use domain::Timestamp;

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter, Sort, Window, list_sql};

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Seller {
    pub id: i64,
    pub account_id: i64,
    pub name: String,
    pub slug: String,
    pub status: String,
    pub default_currency_code: String,
    pub country_code: Option<String>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, name, slug, status, default_currency_code, country_code, created_on, updated_on"
    };
}

/// Fields a seller list may be sorted by; each is indexed with the account.
pub const SORT_FIELDS: &[&str] = &["id", "name", "created_on", "updated_on"];

pub struct NewSeller<'a> {
    pub account_id: i64,
    pub name: &'a str,
    pub slug: &'a str,
    pub default_currency_code: &'a str,
    pub country_code: Option<&'a str>,
}

#[derive(Clone, Debug, Default)]
pub struct SellerFilter {
    pub q: Option<String>,
    pub created_on: crate::sql::TimeRange,
    pub updated_on: crate::sql::TimeRange,
}

pub async fn insert(tx: &mut Tx, seller: &NewSeller<'_>, now: Timestamp) -> Result<Seller> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Seller>(concat!(
            "INSERT INTO sellers (account_id, name, slug, default_currency_code, country_code, created_on, updated_on) \
             VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ",
            columns!()
        ))
        .bind(seller.account_id)
        .bind(seller.name)
        .bind(seller.slug)
        .bind(seller.default_currency_code)
        .bind(seller.country_code)
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

fn tenant_filter(tenant: Tenant) -> Filter {
    let mut filter = Filter::new();
    filter
        .eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("id", tenant.seller_id.map(Arg::Int));
    filter
}

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    id: i64,
) -> Result<Option<Seller>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, Seller>(concat!(
            "SELECT ",
            columns!(),
            " FROM sellers WHERE id = $1 AND account_id = $2 AND ($3 IS NULL OR id = $3)"
        ))
        .bind(id)
        .bind(tenant.account_id)
        .bind(tenant.seller_id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &SellerFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Seller>, u64)> {
    let mut f = tenant_filter(tenant);
    if let Some(q) = &filter.q {
        f.contains_text(&["name", "slug"], q);
    }
    f.range("created_on", filter.created_on.0, filter.created_on.1)
        .range("updated_on", filter.updated_on.0, filter.updated_on.1);
    let sql = list_sql(columns!(), "sellers", &f, sort, window);
    fetch_list!(Exec::Db(db), Seller, sql, f)
}

/// The tenant's first sellers by id, for embedding in the root.
pub async fn first_of_tenant(db: &Database, tenant: Tenant, limit: i64) -> Result<Vec<Seller>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Seller>(concat!(
            "SELECT ",
            columns!(),
            " FROM sellers WHERE account_id = $1 AND ($2 IS NULL OR id = $2) ORDER BY id LIMIT $3"
        ))
        .bind(tenant.account_id)
        .bind(tenant.seller_id)
        .bind(limit)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// A seller by id, whatever its account (operator commands).
pub async fn find_any(db: &Database, id: i64) -> Result<Option<Seller>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Seller>(concat!(
            "SELECT ",
            columns!(),
            " FROM sellers WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// The first seller of the database (operator commands).
pub async fn first(db: &Database) -> Result<Option<Seller>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Seller>(concat!(
            "SELECT ",
            columns!(),
            " FROM sellers ORDER BY id LIMIT 1"
        ))
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}
