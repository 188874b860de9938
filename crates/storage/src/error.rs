//! Storage errors. Constraint violations are recognised on both backends so callers can turn
//! them into validation errors instead of failures (a unique violation names its index,
//! `unique::UniqueIndex`, whichever backend reported it), and the failures a concurrent
//! transaction causes are told apart from the rest, so that the transaction runner
//! (`Database::transaction`) can run the work again and callers can answer them cleanly.

use sqlx::error::{DatabaseError, ErrorKind};

use crate::unique::UniqueIndex;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A unique index refused the write: `index` when it is one of the schema's (see
    /// `unique`); `target` as the backend named it, the index (PostgreSQL) or the
    /// `table.column` list (SQLite).
    #[error("unique constraint violated: {target}")]
    UniqueViolation {
        index: Option<UniqueIndex>,
        target: String,
    },
    /// A foreign key refused the write: a row it names is gone, or a row deleted is still
    /// named. Every write checks the rows it names first, so this means a concurrent
    /// deletion it could not see; running the work again sees it.
    #[error("foreign key constraint violated: {target}")]
    ForeignKeyViolation { target: String },
    /// The database aborted the transaction to let a concurrent one go on: a deadlock or a
    /// serialization failure. Running the work again most likely succeeds.
    #[error("aborted by a concurrent transaction: {0}")]
    Conflict(#[source] sqlx::Error),
    /// What a write read to know which rows to lock changed before it held them (see
    /// `locks`); running the work again takes the right ones.
    #[error("the rows to lock changed while they were being locked")]
    LockOrderChanged,
    /// A lock or a connection stayed out of reach past the configured timeout (a
    /// PostgreSQL lock timeout, SQLite's busy timeout, a pool with no free connection), or
    /// the connection was lost (the server shut down or hung up; the pool replaces it).
    /// Not retried: the database already waited as long as it was told to, or the work
    /// was cut off (a commit cut off may have been applied, so `Tx::commit` reports that
    /// as `Database` instead).
    #[error("database busy: {0}")]
    Busy(#[source] sqlx::Error),
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("{0}")]
    Config(String),
    #[error("stored data is inconsistent: {0}")]
    Corrupt(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The unique index this error says refused the write, if any.
    pub fn violated_index(&self) -> Option<UniqueIndex> {
        match self {
            Error::UniqueViolation { index, .. } => *index,
            _ => None,
        }
    }

    /// The same failure for another caller whose work shared the transaction (a batch):
    /// of the same kind, so answered alike, with the driver's error as its message.
    pub fn duplicate(&self) -> Error {
        let copy = |err: &sqlx::Error| sqlx::Error::Protocol(err.to_string());
        match self {
            Error::UniqueViolation { index, target } => Error::UniqueViolation {
                index: *index,
                target: target.clone(),
            },
            Error::ForeignKeyViolation { target } => Error::ForeignKeyViolation {
                target: target.clone(),
            },
            Error::Conflict(err) => Error::Conflict(copy(err)),
            Error::LockOrderChanged => Error::LockOrderChanged,
            Error::Busy(err) => Error::Busy(copy(err)),
            Error::Database(err) => Error::Database(copy(err)),
            Error::Migrate(err) => Error::Database(sqlx::Error::Protocol(err.to_string())),
            Error::Config(message) => Error::Config(message.clone()),
            Error::Corrupt(message) => Error::Corrupt(message.clone()),
        }
    }

    /// Whether the same unit of work, run again in a new transaction, may succeed: it lost
    /// a conflict with a concurrent transaction, or a concurrent one deleted a row it
    /// names. Not `Busy`, whose timeout has already been waited out.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Error::Conflict(_) | Error::ForeignKeyViolation { .. } | Error::LockOrderChanged
        )
    }
}

/// How the database reports a failure caused by concurrent work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Contention {
    Conflict,
    Busy,
}

/// PostgreSQL SQLSTATEs of failures caused by concurrent transactions, or by the server
/// ending the connection.
fn postgres_contention(sqlstate: &str) -> Option<Contention> {
    match sqlstate {
        // deadlock_detected, serialization_failure
        "40P01" | "40001" => Some(Contention::Conflict),
        // lock_not_available: `lock_timeout` ran out (or NOWAIT)
        "55P03" => Some(Contention::Busy),
        // admin_shutdown, crash_shutdown, cannot_connect_now; connection exceptions
        "57P01" | "57P02" | "57P03" => Some(Contention::Busy),
        connection if connection.starts_with("08") => Some(Contention::Busy),
        _ => None,
    }
}

/// SQLite extended result codes of failures caused by concurrent connections.
fn sqlite_contention(code: i32) -> Option<Contention> {
    const SQLITE_BUSY: i32 = 5;
    const SQLITE_LOCKED: i32 = 6;
    // The low byte is the primary code (SQLITE_BUSY_SNAPSHOT is 517, …).
    match code & 0xff {
        SQLITE_BUSY | SQLITE_LOCKED => Some(Contention::Busy),
        _ => None,
    }
}

fn contention(db: &dyn DatabaseError) -> Option<Contention> {
    let code = db.code()?;
    if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
        sqlite_contention(code.parse().ok()?)
    } else {
        postgres_contention(&code)
    }
}

impl From<sqlx::Error> for Error {
    fn from(err: sqlx::Error) -> Self {
        if matches!(err, sqlx::Error::PoolTimedOut | sqlx::Error::Io(_)) {
            return Error::Busy(err);
        }
        let Some(db) = err.as_database_error() else {
            return Error::Database(err);
        };
        let target = || {
            db.constraint()
                .map_or_else(|| db.message().to_owned(), str::to_owned)
        };
        match (db.kind(), contention(db)) {
            (ErrorKind::UniqueViolation, _) => {
                // PostgreSQL names the index; SQLite only says which columns.
                let index = match db.constraint() {
                    Some(name) => UniqueIndex::by_name(name),
                    None => UniqueIndex::from_sqlite_message(db.message()),
                };
                Error::UniqueViolation {
                    index,
                    target: target(),
                }
            }
            (ErrorKind::ForeignKeyViolation, _) => Error::ForeignKeyViolation { target: target() },
            (_, Some(Contention::Conflict)) => Error::Conflict(err),
            (_, Some(Contention::Busy)) => Error::Busy(err),
            _ => Error::Database(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::db::{Backend, Exec};
    use crate::test_databases::{self, TestDatabase};
    use crate::{Database, StoreOptions};

    #[test]
    fn postgres_conflicts_are_retried_and_lock_timeouts_and_lost_connections_are_busy() {
        assert_eq!(postgres_contention("40P01"), Some(Contention::Conflict));
        assert_eq!(postgres_contention("40001"), Some(Contention::Conflict));
        for busy in ["55P03", "57P01", "57P02", "57P03", "08006", "08003"] {
            assert_eq!(postgres_contention(busy), Some(Contention::Busy), "{busy}");
        }
        for other in ["23505", "23503", "57014", "42P01", "58030"] {
            assert_eq!(postgres_contention(other), None, "{other}");
        }
    }

    #[test]
    fn sqlite_busy_and_locked_are_busy_with_their_extended_codes() {
        for code in [5, 6, 261, 517, 773, 262] {
            assert_eq!(sqlite_contention(code), Some(Contention::Busy), "{code}");
        }
        for other in [1, 19, 787, 2067, 11] {
            assert_eq!(sqlite_contention(other), None, "{other}");
        }
    }

    #[test]
    fn only_conflicts_vanished_rows_and_stale_lock_plans_are_retried() {
        let conflict = Error::Conflict(sqlx::Error::Protocol("deadlock".into()));
        assert!(conflict.is_retryable());
        assert!(Error::ForeignKeyViolation { target: "x".into() }.is_retryable());
        assert!(Error::LockOrderChanged.is_retryable());
        assert!(!Error::Busy(sqlx::Error::PoolTimedOut).is_retryable());
        let taken = Error::UniqueViolation {
            index: Some(UniqueIndex::ProductsSlug),
            target: "products_slug_key".into(),
        };
        assert!(!taken.is_retryable());
        assert!(!Error::Database(sqlx::Error::RowNotFound).is_retryable());
    }

    /// A PostgreSQL connection the server ended is reported busy (answered 503, not
    /// retried in place), pooled connections idle for less than a second included (they
    /// are handed out unchecked), and the pool replaces each such connection; but a
    /// commit that lost its connection is a plain failure, as it may have been applied.
    #[tokio::test]
    async fn a_lost_postgres_connection_is_busy_and_replaced() {
        for TestDatabase { db, url, .. } in test_databases::both().await {
            if db.backend() != Backend::Postgres {
                continue;
            }
            let mut tx = db.begin().await.unwrap();
            run(Exec::Tx(&mut tx), "SELECT 1").await.unwrap();
            let mut committing = db.begin().await.unwrap();
            run(Exec::Tx(&mut committing), "SELECT 1").await.unwrap();
            let admin = sqlx::PgPool::connect(&url).await.unwrap();
            sqlx::query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
            )
            .execute(&admin)
            .await
            .unwrap();
            let lost = run(Exec::Tx(&mut tx), "SELECT 1").await;
            assert!(matches!(lost, Err(Error::Busy(_))), "{lost:?}");
            drop(tx);
            let unknown = committing.commit().await;
            assert!(matches!(unknown, Err(Error::Database(_))), "{unknown:?}");
            // Each pooled connection the server ended fails once, then is replaced.
            let mut failures = 0;
            while let Err(err) = run(Exec::Db(&db), "SELECT 1").await {
                assert!(matches!(err, Error::Busy(_)), "{err:?}");
                failures += 1;
                assert!(
                    failures <= StoreOptions::default().max_connections,
                    "{err:?}"
                );
            }
            admin.close().await;
            db.close().await;
        }
    }

    async fn run(exec: Exec<'_>, sql: &'static str) -> Result<()> {
        with_conn!(exec, |c| sqlx::query(sql).execute(c).await.map(|_| ()))?;
        Ok(())
    }

    /// What SQLite itself reports, classified: a missing parent, a taken unique value
    /// (resolved to its index), and a write lock held by another connection past the
    /// busy timeout.
    #[tokio::test]
    async fn sqlite_reports_are_classified() {
        let dir = std::env::temp_dir().join(format!(
            "commerce-storage-errors-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        let url = format!("sqlite://{}/test.db", dir.display());
        let db = Database::connect(&url, &StoreOptions::default())
            .await
            .unwrap();
        let mut tx = db.begin().await.unwrap();
        run(
            Exec::Tx(&mut tx),
            "CREATE TABLE parents (id INTEGER PRIMARY KEY); \
             CREATE TABLE children (parent_id INTEGER NOT NULL REFERENCES parents (id)); \
             CREATE TABLE shops (subdomain TEXT NOT NULL); \
             CREATE UNIQUE INDEX shops_subdomain_key ON shops (subdomain); \
             INSERT INTO shops VALUES ('taken')",
        )
        .await
        .unwrap();
        let orphan = run(Exec::Tx(&mut tx), "INSERT INTO children VALUES (7)").await;
        assert!(
            matches!(orphan, Err(Error::ForeignKeyViolation { .. })),
            "{orphan:?}"
        );
        let taken = run(Exec::Tx(&mut tx), "INSERT INTO shops VALUES ('taken')")
            .await
            .unwrap_err();
        assert_eq!(
            taken.violated_index(),
            Some(UniqueIndex::ShopsSubdomain),
            "{taken:?}"
        );
        let impatient = StoreOptions {
            busy_timeout: Duration::ZERO,
            ..StoreOptions::default()
        };
        let other = Database::connect(&url, &impatient).await.unwrap();
        let busy = other.begin().await;
        assert!(matches!(busy, Err(Error::Busy(_))), "{busy:?}");
        tx.rollback().await.unwrap();
        other.begin().await.unwrap().rollback().await.unwrap();
        other.close().await;
        db.close().await;
        std::fs::remove_dir_all(dir).unwrap();
    }
}
