//! Writing rows. An aggregate names each column beside its value once, and its INSERT and
//! UPDATE are rendered from that one list, so no value can slip into another column's
//! placeholder; and the statements with bound `Arg`s that every aggregate shares.

use crate::db::{Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Params, bind_as, bind_query, bind_scalar};
use crate::tenant_rows::Row;

/// A row's columns, each with the value written into it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Columns {
    names: Vec<&'static str>,
    values: Vec<Arg>,
}

impl Columns {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// One more column and its value.
    pub(crate) fn set(mut self, column: &'static str, value: impl Into<Arg>) -> Self {
        self.names.push(column);
        self.values.push(value.into());
        self
    }

    /// `INSERT INTO table (a, b, …) VALUES ($1, $2, …)`.
    pub(crate) fn insert_into(self, table: &'static str) -> Statement {
        let mut params = Params::new();
        let placeholders = params.bind_all(self.values);
        Statement {
            sql: format!(
                "INSERT INTO {table} ({}) VALUES ({placeholders})",
                self.names.join(", ")
            ),
            params,
        }
    }

    /// `UPDATE table SET a = $1, b = $2, … WHERE id = $n`.
    pub(crate) fn update(self, table: &'static str, id: i64) -> Statement {
        let mut params = Params::new();
        let assignments: Vec<String> = self
            .names
            .iter()
            .zip(self.values)
            .map(|(name, value)| format!("{name} = {}", params.bind(value)))
            .collect();
        let key = params.bind(Arg::Int(id));
        Statement {
            sql: format!(
                "UPDATE {table} SET {} WHERE id = {key}",
                assignments.join(", ")
            ),
            params,
        }
    }
}

/// A statement with its bound values, run on either backend.
#[derive(Clone, Debug)]
pub(crate) struct Statement {
    sql: String,
    params: Params,
}

impl Statement {
    pub(crate) async fn execute(self, tx: &mut Tx) -> Result<()> {
        execute_bound(tx, self.sql, self.params.args()).await
    }

    /// Runs an INSERT, answering the new row's id.
    pub(crate) async fn fetch_id(self, tx: &mut Tx) -> Result<i64> {
        let sql = format!("{} RETURNING id", self.sql);
        let args = self.params.args();
        let id = with_conn!(Exec::Tx(tx), |c| {
            bind_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)), args)
                .fetch_one(c)
                .await
        })?;
        Ok(id)
    }

    /// Runs the statement, answering the written row as `columns` read it.
    pub(crate) async fn fetch_row<R: Row>(self, tx: &mut Tx, columns: &str) -> Result<R> {
        let sql = format!("{} RETURNING {columns}", self.sql);
        let args = self.params.args();
        let row = with_conn!(Exec::Tx(tx), |c| {
            bind_as(sqlx::query_as::<_, R>(sqlx::AssertSqlSafe(sql)), args)
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
            insert.params.args(),
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
        assert_eq!(update.params.args()[4], Arg::Int(42));
    }
}
