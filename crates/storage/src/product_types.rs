//! Product types: how a seller groups its products, with an optional schema for their
//! custom attributes. Names are unique per seller whatever their case; `products_count`
//! is kept by every product write that sets or clears a type.

use domain::Timestamp;
use domain::catalog::attributes::AttributeDef;

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::json::{JsonText, to_text};
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::tenant_rows::{self, TenantTable};

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct ProductType {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub name: String,
    #[sqlx(try_from = "String")]
    pub attributes: JsonText<Vec<AttributeDef>>,
    pub products_count: i64,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, name, attributes, products_count, created_on, updated_on"
    };
}

/// Fields a product type list may be sorted by (`name` sorts without regard to case).
pub const SORT_FIELDS: &[&str] = &["id", "name", "created_on", "updated_on"];

#[derive(Clone, Debug, Default)]
pub struct ProductTypeFilter {
    pub seller_ids: Option<Vec<i64>>,
    /// Part of the name, in any case.
    pub q: Option<String>,
    /// Exact names, in any case.
    pub names: Option<Vec<String>>,
    pub created_on: crate::sql::TimeRange,
    pub updated_on: crate::sql::TimeRange,
}

pub async fn insert(
    tx: &mut Tx,
    account_id: i64,
    seller_id: i64,
    name: &str,
    attributes: &[AttributeDef],
    now: Timestamp,
) -> Result<ProductType> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, ProductType>(concat!(
            "INSERT INTO product_types (account_id, seller_id, name, name_key, attributes, created_on, updated_on) \
             VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ",
            columns!()
        ))
        .bind(account_id)
        .bind(seller_id)
        .bind(name)
        .bind(name.to_lowercase())
        .bind(to_text(attributes))
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

pub async fn update(
    tx: &mut Tx,
    id: i64,
    name: &str,
    attributes: &[AttributeDef],
    now: Timestamp,
) -> Result<ProductType> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, ProductType>(concat!(
            "UPDATE product_types SET name = $2, name_key = $3, attributes = $4, updated_on = $5 WHERE id = $1 \
             RETURNING ",
            columns!()
        ))
        .bind(id)
        .bind(name)
        .bind(name.to_lowercase())
        .bind(to_text(attributes))
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

/// Where its rows are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("product_types");

/// Moves one product from the type `from` to the type `to` in the counts, updating the
/// types in id order (two products moving between the same types the other way round
/// must not each wait for the other).
pub async fn recount(tx: &mut Tx, from: Option<i64>, to: Option<i64>) -> Result<()> {
    if from == to {
        return Ok(());
    }
    let mut changes: Vec<(i64, i64)> = [(from, -1_i64), (to, 1)]
        .into_iter()
        .filter_map(|(id, delta)| Some((id?, delta)))
        .collect();
    changes.sort_unstable();
    for (id, delta) in changes {
        with_conn!(Exec::Tx(tx), |c| {
            sqlx::query(
                "UPDATE product_types SET products_count = products_count + $2 WHERE id = $1",
            )
            .bind(id)
            .bind(delta)
            .execute(c)
            .await
            .map(|_| ())
        })?;
    }
    Ok(())
}

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    id: i64,
) -> Result<Option<ProductType>> {
    tenant_rows::find(exec, "product_types", columns!(), tenant, id).await
}

/// Reads a type and holds it against concurrent writers until the transaction ends.
pub async fn find_for_update(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<ProductType>> {
    tenant_rows::find_for_update(tx, "product_types", columns!(), tenant, id).await
}

/// Reads a type a product is to name, keeping it (and its attribute schema) as it is until
/// the transaction ends; products writing it go on side by side (level 8 of `locks`).
pub async fn find_held(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<ProductType>> {
    tenant_rows::find_locked(
        tx,
        "product_types",
        columns!(),
        tenant,
        id,
        " FOR KEY SHARE",
    )
    .await
}

/// The seller's type with this name, in any case, held as `find_held` holds it.
pub async fn find_by_name(tx: &mut Tx, seller_id: i64, name: &str) -> Result<Option<ProductType>> {
    let sql = format!(
        "SELECT {} FROM product_types WHERE seller_id = $1 AND name_key = $2{}",
        columns!(),
        crate::locks::clause(tx.backend(), " FOR KEY SHARE")
    );
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, ProductType>(sqlx::AssertSqlSafe(sql))
            .bind(seller_id)
            .bind(name.to_lowercase())
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &ProductTypeFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<ProductType>, u64)> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
    if let Some(ids) = &filter.seller_ids {
        f.any_of("seller_id", ids.iter().copied().map(Arg::Int));
    }
    if let Some(names) = &filter.names {
        f.any_of(
            "name_key",
            names.iter().map(|n| Arg::Text(n.to_lowercase())),
        );
    }
    if let Some(q) = &filter.q {
        f.contains_text(&["name_key"], q);
    }
    f.range("created_on", filter.created_on.0, filter.created_on.1)
        .range("updated_on", filter.updated_on.0, filter.updated_on.1);
    let sort = match sort.column {
        "name" => Sort {
            column: "name_key",
            ..sort
        },
        _ => sort,
    };
    let sql = list_sql(columns!(), "product_types", &f, sort, window);
    fetch_list!(Exec::Db(db), ProductType, sql, f)
}
