//! Writes held up on purpose: a test holds a lock that its server's writes wait for, so it
//! can act while a request is stalled inside the server (its client hanging up, say).

use sqlx::Connection;

use super::outbox::eventually;
use super::{TestDb, TestServer};

/// An open transaction holding the lock (see [`TestDb::hold_writes`]); released by
/// [`WriteHold::release`], or when dropped.
pub enum WriteHold {
    Sqlite(sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection),
}

impl TestDb {
    /// Holds up writes: on SQLite every write (the database has one writer, so the
    /// server's next write transaction or autocommitted statement waits), on PostgreSQL
    /// those to `table` (reads, and writes to other tables, go on).
    pub async fn hold_writes(&self, table: &str) -> WriteHold {
        let sql = sqlx::AssertSqlSafe;
        match self.backend {
            super::Backend::Sqlite => {
                let mut conn = sqlx::SqliteConnection::connect(&self.url)
                    .await
                    .expect("connect to SQLite");
                sqlx::raw_sql("BEGIN IMMEDIATE")
                    .execute(&mut conn)
                    .await
                    .expect("the write lock");
                WriteHold::Sqlite(conn)
            }
            super::Backend::Postgres => {
                let mut conn = sqlx::PgConnection::connect(&self.url)
                    .await
                    .expect("connect to PostgreSQL");
                sqlx::raw_sql(sql(format!("BEGIN; LOCK TABLE {table} IN EXCLUSIVE MODE")))
                    .execute(&mut conn)
                    .await
                    .expect("the table lock");
                WriteHold::Postgres(conn)
            }
        }
    }
}

impl WriteHold {
    /// Waits until one of the server's writes waits for this hold: on PostgreSQL, a
    /// session of its database waiting for a lock; on SQLite, the server's one writer
    /// connection taken (by a write waiting out its busy timeout).
    pub async fn until_a_write_waits(&self, s: &TestServer) {
        match self {
            WriteHold::Postgres(_) => {
                eventually("a write waiting for the held lock", || async {
                    let waiting =
                        s.db.scalar(
                            "SELECT COUNT(*) FROM pg_stat_activity \
                             WHERE datname = current_database() AND wait_event_type = 'Lock'",
                        )
                        .await;
                    (waiting > 0).then_some(())
                })
                .await;
            }
            WriteHold::Sqlite(_) => {
                eventually("the writer connection taken", || async {
                    s.metrics()
                        .await
                        .contains(r#"db_pool_connections{pool="sqlite_writer",state="in_use"} 1"#)
                        .then_some(())
                })
                .await;
            }
        }
    }

    /// Ends the hold: the waiting writes go on.
    pub async fn release(self) {
        match self {
            WriteHold::Sqlite(mut conn) => {
                sqlx::raw_sql("ROLLBACK")
                    .execute(&mut conn)
                    .await
                    .expect("rollback");
            }
            WriteHold::Postgres(mut conn) => {
                sqlx::raw_sql("ROLLBACK")
                    .execute(&mut conn)
                    .await
                    .expect("rollback");
            }
        }
    }
}
