//! Writing rows. An aggregate names each column beside its value once, and its INSERT and
//! UPDATE are rendered from that one list, so no value can slip into another column's
//! placeholder; and the statements with bound `Arg`s that every aggregate shares.

use std::fmt::Write as _;

use crate::db::{Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Params, bind_as, bind_query, bind_scalar};
use crate::tenant_rows::Row;

/// Columns most rows write; more only grow the lists once.
const TYPICAL_COLUMNS: usize = 16;

/// A row's columns, each with the value written into it.
#[derive(Clone, Debug)]
pub(crate) struct Columns {
    names: Vec<&'static str>,
    values: Vec<Arg>,
}

impl Columns {
    pub(crate) fn new() -> Self {
        Self {
            names: Vec::with_capacity(TYPICAL_COLUMNS),
            values: Vec::with_capacity(TYPICAL_COLUMNS),
        }
    }

    /// One more column and its value.
    pub(crate) fn set(mut self, column: &'static str, value: impl Into<Arg>) -> Self {
        self.names.push(column);
        self.values.push(value.into());
        self
    }

    /// `INSERT INTO table (a, b, …) VALUES ($1, $2, …)`. Rendered in one buffer: every
    /// write runs one, so the text costs no more allocations than it must.
    pub(crate) fn insert_into(self, table: &'static str) -> Statement {
        let mut sql = statement_buffer(table, &self.names);
        sql.push_str("INSERT INTO ");
        sql.push_str(table);
        sql.push_str(" (");
        for (i, name) in self.names.iter().enumerate() {
            if i > 0 {
                sql.push_str(", ");
            }
            sql.push_str(name);
        }
        sql.push_str(") VALUES (");
        for n in 1..=self.values.len() {
            if n > 1 {
                sql.push_str(", ");
            }
            placeholder(&mut sql, n);
        }
        sql.push(')');
        Statement {
            sql,
            args: self.values,
        }
    }

    /// `UPDATE table SET a = $1, b = $2, … WHERE id = $n`.
    pub(crate) fn update(mut self, table: &'static str, id: i64) -> Statement {
        let mut sql = statement_buffer(table, &self.names);
        sql.push_str("UPDATE ");
        sql.push_str(table);
        sql.push_str(" SET ");
        for (i, name) in self.names.iter().enumerate() {
            if i > 0 {
                sql.push_str(", ");
            }
            sql.push_str(name);
            sql.push_str(" = ");
            placeholder(&mut sql, i + 1);
        }
        self.values.push(Arg::Int(id));
        sql.push_str(" WHERE id = ");
        placeholder(&mut sql, self.values.len());
        Statement {
            sql,
            args: self.values,
        }
    }
}

/// A buffer large enough for a statement over these columns, its `RETURNING` included.
fn statement_buffer(table: &str, names: &[&str]) -> String {
    let columns: usize = names.iter().map(|n| n.len() + 9).sum();
    String::with_capacity(64 + table.len() + columns)
}

/// `$n`.
fn placeholder(sql: &mut String, n: usize) {
    // Writing to a String cannot fail.
    let _ = write!(sql, "${n}");
}

/// A statement with its bound values, run on either backend.
#[derive(Clone, Debug)]
pub(crate) struct Statement {
    sql: String,
    args: Vec<Arg>,
}

impl Statement {
    pub(crate) async fn execute(self, tx: &mut Tx) -> Result<()> {
        execute_bound(tx, self.sql, &self.args).await
    }

    /// Runs an INSERT, answering the new row's id.
    pub(crate) async fn fetch_id(mut self, tx: &mut Tx) -> Result<i64> {
        self.sql.push_str(" RETURNING id");
        let (sql, args) = (self.sql, self.args);
        let id = with_conn!(Exec::Tx(tx), |c| {
            bind_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)), &args)
                .fetch_one(c)
                .await
        })?;
        Ok(id)
    }

    /// Runs the statement, answering the written row as `columns` read it.
    pub(crate) async fn fetch_row<R: Row>(mut self, tx: &mut Tx, columns: &str) -> Result<R> {
        self.sql.push_str(" RETURNING ");
        self.sql.push_str(columns);
        let (sql, args) = (self.sql, self.args);
        let row = with_conn!(Exec::Tx(tx), |c| {
            bind_as(sqlx::query_as::<_, R>(sqlx::AssertSqlSafe(sql)), &args)
                .fetch_one(c)
                .await
        })?;
        Ok(row)
    }

    #[cfg(test)]
    fn sql(&self) -> &str {
        &self.sql
    }
}

/// Inserts rows in one statement, skipping ones already there.
pub(crate) async fn insert_rows<const N: usize>(
    tx: &mut Tx,
    table_and_columns: &'static str,
    rows: impl IntoIterator<Item = [Arg; N]>,
) -> Result<()> {
    let mut params = Params::new();
    let values: Vec<String> = rows
        .into_iter()
        .map(|row| format!("({})", params.bind_all(row)))
        .collect();
    if values.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "INSERT INTO {table_and_columns} VALUES {} ON CONFLICT DO NOTHING",
        values.join(", ")
    );
    execute_bound(tx, sql, params.args()).await
}

/// Runs one statement whose values are bound `Arg`s.
pub(crate) async fn execute_bound(tx: &mut Tx, sql: String, args: &[Arg]) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        bind_query(sqlx::query(sqlx::AssertSqlSafe(sql)), args)
            .execute(c)
            .await
            .map(|_| ())
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use domain::Timestamp;

    use super::*;

    fn row() -> Columns {
        Columns::new()
            .set("title", "Mug")
            .set("price", 1200_i64)
            .set("vendor", None::<String>)
            .set("updated_on", Timestamp::from_micros(7))
    }

    #[test]
    fn an_insert_lists_each_column_with_its_placeholder() {
        let insert = row().insert_into("products");
        assert_eq!(
            insert.sql(),
            "INSERT INTO products (title, price, vendor, updated_on) VALUES ($1, $2, $3, $4)"
        );
        assert_eq!(
            insert.args,
            [
                Arg::Text("Mug".into()),
                Arg::Int(1200),
                Arg::MaybeText(None),
                Arg::Int(7)
            ]
        );
    }

    #[test]
    fn an_update_sets_each_column_and_keys_on_the_id_last() {
        let update = row().update("products", 42);
        assert_eq!(
            update.sql(),
            "UPDATE products SET title = $1, price = $2, vendor = $3, updated_on = $4 WHERE id = $5"
        );
        assert_eq!(update.args[4], Arg::Int(42));
    }
}
