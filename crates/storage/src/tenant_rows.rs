//! Reading and deleting one row of a tenant's table by id: the tenancy check every
//! aggregate shares, written once, with the row lock writers take (PostgreSQL; SQLite's
//! `BEGIN IMMEDIATE` already serialises writers).

use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;

use crate::Tenant;
use crate::db::{Exec, Tx};
use crate::error::Result;

/// A row type both backends can decode.
pub trait Row:
    for<'r> sqlx::FromRow<'r, SqliteRow> + for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin
{
}

impl<T> Row for T where
    T: for<'r> sqlx::FromRow<'r, SqliteRow> + for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin
{
}

/// A table whose rows belong to a tenant (they carry `account_id` and `seller_id`); each
/// aggregate that may be deleted names its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TenantTable(&'static str);

impl TenantTable {
    pub(crate) const fn new(name: &'static str) -> Self {
        Self(name)
    }
}

/// Deletes the tenant's row of `table` with this id (what belongs to it goes by
/// foreign-key cascade); whether there was one.
pub async fn delete(tx: &mut Tx, table: TenantTable, tenant: Tenant, id: i64) -> Result<bool> {
    let sql = format!(
        "DELETE FROM {} WHERE id = $1 AND account_id = $2 AND ($3 IS NULL OR seller_id = $3)",
        table.0
    );
    let deleted = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(tenant.account_id)
            .bind(tenant.seller_id)
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    Ok(deleted > 0)
}

/// The row of `table` with this id, if it belongs to the tenant's account (and seller).
pub(crate) async fn find<'a, R: Row>(
    exec: impl Into<Exec<'a>>,
    table: &'static str,
    columns: &'static str,
    tenant: Tenant,
    id: i64,
) -> Result<Option<R>> {
    fetch(exec.into(), table, columns, tenant, id, "").await
}

/// As `find`, and holds the row against concurrent writers until the transaction ends.
pub(crate) async fn find_for_update<R: Row>(
    tx: &mut Tx,
    table: &'static str,
    columns: &'static str,
    tenant: Tenant,
    id: i64,
) -> Result<Option<R>> {
    find_locked(tx, table, columns, tenant, id, " FOR UPDATE").await
}

/// As `find`, holding the row with `lock` (` FOR …`, on PostgreSQL) until the transaction
/// ends.
pub(crate) async fn find_locked<R: Row>(
    tx: &mut Tx,
    table: &'static str,
    columns: &'static str,
    tenant: Tenant,
    id: i64,
    lock: &'static str,
) -> Result<Option<R>> {
    let lock = crate::locks::clause(tx.backend(), lock);
    fetch(Exec::Tx(tx), table, columns, tenant, id, lock).await
}

async fn fetch<R: Row>(
    exec: Exec<'_>,
    table: &'static str,
    columns: &'static str,
    tenant: Tenant,
    id: i64,
    lock: &'static str,
) -> Result<Option<R>> {
    let sql = format!(
        "SELECT {columns} FROM {table} WHERE id = $1 AND account_id = $2 AND ($3 IS NULL OR seller_id = $3){lock}"
    );
    with_conn!(exec, |c| {
        sqlx::query_as::<_, R>(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(tenant.account_id)
            .bind(tenant.seller_id)
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}
