//! What the bulk loaders (`catalog_load`, `order_load`) share: ids reserved up front,
//! multi-row inserts of explicit ids, identity sequences moved past them, and the
//! planner's statistics refreshed afterwards. Not for requests: the loaders record no
//! events and expect no concurrent writers of their tables.

use crate::db::{Backend, Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Params};
use crate::write::execute_bound;

/// Rows per statement: well under both engines' limits on bound values.
const CHUNK: usize = 400;

/// On PostgreSQL, takes the tables' write locks for the transaction, so that the ids
/// reserved with [`next_id`] stay free (SQLite has one writer anyway).
pub(crate) async fn lock(tx: &mut Tx, tables: &str) -> Result<()> {
    if tx.backend() == Backend::Postgres {
        let sql = format!("LOCK TABLE {tables} IN SHARE ROW EXCLUSIVE MODE");
        execute_bound(tx, sql, &[]).await?;
    }
    Ok(())
}

/// The id after the table's largest.
pub(crate) async fn next_id(tx: &mut Tx, table: &'static str) -> Result<i64> {
    let sql = format!("SELECT COALESCE(MAX(id), 0) + 1 FROM {table}");
    let next: i64 = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .fetch_one(c)
            .await
    })?;
    Ok(next)
}

/// Inserts `rows` in statements of `CHUNK` rows, each row's values followed by `literals`.
pub(crate) async fn insert_all<const N: usize>(
    tx: &mut Tx,
    table_and_columns: &str,
    rows: &[[Arg; N]],
    literals: &str,
) -> Result<()> {
    for chunk in rows.chunks(CHUNK) {
        let mut params = Params::new();
        let values: Vec<String> = chunk
            .iter()
            .map(|row| format!("({}{literals})", params.bind_all(row.iter().cloned())))
            .collect();
        let sql = format!(
            "INSERT INTO {table_and_columns} VALUES {}",
            values.join(", ")
        );
        execute_bound(tx, sql, params.args()).await?;
    }
    Ok(())
}

/// Ids were given explicitly: on PostgreSQL, moves the tables' identity sequences past
/// them.
pub(crate) async fn advance_sequences(tx: &mut Tx, tables: &[&str]) -> Result<()> {
    if tx.backend() == Backend::Postgres {
        for table in tables {
            let sql = format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))"
            );
            execute_bound(tx, sql, &[]).await?;
        }
    }
    Ok(())
}

/// Refreshes the planner's statistics after a bulk load of `tables` (and, on PostgreSQL,
/// the visibility map that lets counts read indexes alone).
pub(crate) async fn refresh_statistics(db: &Database, tables: &[&str]) -> Result<()> {
    match db.backend() {
        Backend::Sqlite => {
            let mut tx = db.begin().await?;
            for table in tables {
                execute_bound(&mut tx, format!("ANALYZE {table}"), &[]).await?;
            }
            tx.commit().await
        }
        // VACUUM cannot run inside a transaction.
        Backend::Postgres => {
            let sql = format!("VACUUM ANALYZE {}", tables.join(", "));
            with_conn!(Exec::Db(db), |c| {
                sqlx::query(sqlx::AssertSqlSafe(sql))
                    .execute(c)
                    .await
                    .map(|_| ())
            })
            .map_err(Into::into)
        }
    }
}
