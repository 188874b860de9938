//! Macros that let one piece of SQL code run on either backend.

/// Runs `$body` with `$c` bound to a `&mut` connection of the backend in use; the body is
/// written once and compiled for both backends. Evaluates to the body's `Result`, with
/// the connection error already propagated.
macro_rules! with_conn {
    ($exec:expr, |$c:ident| $body:expr) => {{
        let mut handle = $crate::db::Handle::open($exec).await?;
        match handle.conn() {
            $crate::db::Conn::Sqlite($c) => $body,
            $crate::db::Conn::Postgres($c) => $body,
        }
    }};
}

/// Runs a list query on either backend: the rows of the window and the total.
macro_rules! fetch_list {
    ($exec:expr, $row:ty, $sql:expr, $filter:expr) => {{
        let sql: &$crate::sql::ListSql = &$sql;
        let args = $filter.args();
        with_conn!($exec, |c| {
            let rows = $crate::sql::bind_as(
                sqlx::query_as::<_, $row>(sqlx::AssertSqlSafe(sql.page.clone())),
                args,
            )
            .fetch_all(&mut *c)
            .await?;
            $crate::query_count::note(1);
            let total: i64 = $crate::sql::bind_scalar(
                sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql.count.clone())),
                args,
            )
            .fetch_one(&mut *c)
            .await?;
            Ok::<_, $crate::Error>((rows, u64::try_from(total).unwrap_or(0)))
        })
    }};
}

/// Runs a row query whose values are bound `Arg`s (built with a `Filter`) on either
/// backend, answering every row.
macro_rules! fetch_all_bound {
    ($exec:expr, $row:ty, $sql:expr, $args:expr) => {{
        let sql: String = $sql;
        let args: &[$crate::sql::Arg] = $args;
        with_conn!($exec, |c| {
            $crate::sql::bind_as(sqlx::query_as::<_, $row>(sqlx::AssertSqlSafe(sql)), args)
                .fetch_all(c)
                .await
        })
    }};
}
