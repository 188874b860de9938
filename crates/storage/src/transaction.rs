//! The transaction runner: a write is one unit of work that commits when it succeeds,
//! rolls back when it fails, and runs again — a bounded number of times, after a short
//! random pause — when a concurrent transaction made it fail (a deadlock, a serialization
//! failure, a row it names deleted meanwhile). Taking locks in one order (`locks`) makes
//! such failures rare; the runner turns the rest into success or the answer the work
//! gives once it sees the other transaction's outcome.
//!
//! The work is called once per attempt with a fresh transaction, so whatever it does must
//! live in that transaction: events and their deliveries do (the outbox), and so does the
//! dispatcher's wake-up, a flag of the transaction acted on only at its commit. Values
//! computed outside the database (random secrets, slugs' suffixes) are simply made again.
//!
//! The work is a closure answering a boxed future, written
//! `|tx| async move { … }.scoped()`. An `async` closure would read better, but the
//! compiler cannot yet prove that a future awaiting a generic async closure is `Send`
//! (HTTP handlers must be); the box costs one allocation per attempt.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::time::Duration;

use crate::db::{Database, Tx};
use crate::error::Error;

/// How many times a unit of work runs at most.
pub const MAX_ATTEMPTS: u32 = 5;

/// The pause before the second attempt is drawn from zero to this; it doubles with each
/// attempt after that (full jitter, so that the transactions that collided spread out).
const FIRST_PAUSE_MAX: Duration = Duration::from_millis(10);

/// The error type of a unit of work: it carries storage errors, and says whether it
/// stands for a failure worth running the work again for. The API's error implements it,
/// so a handler's work fails with the error it answers and the runner still recognises
/// a lost conflict inside it.
pub trait TxError: From<Error> {
    fn is_retryable(&self) -> bool;
}

impl TxError for Error {
    fn is_retryable(&self) -> bool {
        Error::is_retryable(self)
    }
}

/// One attempt of a unit of work: a boxed future that may borrow the transaction (`'t`)
/// and the caller's environment (`'env`, which outlives every attempt).
pub struct Scoped<'env, 't, T> {
    future: Pin<Box<dyn Future<Output = T> + Send + 't>>,
    // `&'t &'env ()` makes `'env: 't` part of the closure's signature, so that the
    // closure may hand out futures borrowing both.
    _env: PhantomData<&'t &'env ()>,
}

/// Makes an `async` block one attempt of a unit of work (see the module's documentation).
pub trait ScopedExt<'env, 't>: Future + Send + Sized + 't {
    fn scoped(self) -> Scoped<'env, 't, Self::Output> {
        Scoped {
            future: Box::pin(self),
            _env: PhantomData,
        }
    }
}

impl<'env, 't, F: Future + Send + 't> ScopedExt<'env, 't> for F {}

impl Database {
    /// Runs `work` in a write transaction: commits when it succeeds, rolls back when it
    /// fails, and runs it again in a new transaction (at most `MAX_ATTEMPTS` times in all)
    /// while it fails with a retryable error. Answers the last attempt's outcome.
    pub async fn transaction<'env, T, E>(
        &self,
        mut work: impl for<'t> FnMut(&'t mut Tx) -> Scoped<'env, 't, Result<T, E>>,
    ) -> Result<T, E>
    where
        E: TxError,
    {
        let mut attempt = 1;
        loop {
            let outcome = self.attempt(&mut work).await;
            match outcome {
                Err(err) if err.is_retryable() && attempt < MAX_ATTEMPTS => {
                    tracing::debug!(attempt, "a concurrent transaction got in the way; retrying");
                    tokio::time::sleep(pause(attempt)).await;
                    attempt += 1;
                }
                Err(err) if err.is_retryable() => {
                    tracing::warn!(
                        attempts = attempt,
                        "concurrent transactions got in the way of every attempt; giving up"
                    );
                    return Err(err);
                }
                outcome => return outcome,
            }
        }
    }

    async fn attempt<'env, T, E: TxError>(
        &self,
        work: &mut impl for<'t> FnMut(&'t mut Tx) -> Scoped<'env, 't, Result<T, E>>,
    ) -> Result<T, E> {
        let mut tx = self.begin().await?;
        let outcome = work(&mut tx).future.await;
        match outcome {
            Ok(value) => {
                tx.commit().await?;
                Ok(value)
            }
            Err(err) => {
                // Released now rather than when the connection is next used: a retry, or
                // the transaction that won, may be waiting for these locks.
                if let Err(rollback) = tx.rollback().await {
                    tracing::warn!(error = %rollback, "rollback failed");
                }
                Err(err)
            }
        }
    }
}

/// A random pause before attempt `failed + 1`.
fn pause(failed: u32) -> Duration {
    let ceiling = FIRST_PAUSE_MAX.saturating_mul(1 << (failed - 1).min(8));
    let micros = u64::try_from(ceiling.as_micros()).unwrap_or(u64::MAX);
    let random = getrandom::u64().unwrap_or(micros / 2);
    Duration::from_micros(random % micros.max(1))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;
    use crate::StoreOptions;
    use crate::db::Exec;

    /// A caller's error type, as the API's is: storage errors inside, plus its own.
    #[derive(Debug)]
    enum CallerError {
        Storage(Error),
        Refused,
    }

    impl From<Error> for CallerError {
        fn from(err: Error) -> Self {
            CallerError::Storage(err)
        }
    }

    impl TxError for CallerError {
        fn is_retryable(&self) -> bool {
            matches!(self, CallerError::Storage(err) if err.is_retryable())
        }
    }

    fn deadlock() -> CallerError {
        CallerError::Storage(Error::Conflict(sqlx::Error::Protocol(
            "deadlock detected".into(),
        )))
    }

    async fn database() -> Database {
        let db = Database::connect("sqlite::memory:", &StoreOptions::default())
            .await
            .unwrap();
        run(&db, "CREATE TABLE notes (body TEXT NOT NULL)")
            .await
            .unwrap();
        db
    }

    async fn run(db: &Database, sql: &'static str) -> crate::Result<()> {
        with_conn!(Exec::Db(db), |c| sqlx::query(sql)
            .execute(c)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    async fn note(tx: &mut Tx, body: &str) -> crate::Result<()> {
        with_conn!(Exec::Tx(tx), |c| {
            sqlx::query("INSERT INTO notes (body) VALUES ($1)")
                .bind(body)
                .execute(c)
                .await
                .map(|_| ())
        })?;
        Ok(())
    }

    async fn notes(db: &Database) -> Vec<String> {
        async fn read(db: &Database) -> crate::Result<Vec<(String,)>> {
            Ok(with_conn!(Exec::Db(db), |c| {
                sqlx::query_as("SELECT body FROM notes ORDER BY rowid")
                    .fetch_all(c)
                    .await
            })?)
        }
        read(db)
            .await
            .unwrap()
            .into_iter()
            .map(|(body,)| body)
            .collect()
    }

    #[tokio::test]
    async fn a_lost_conflict_is_run_again_in_a_new_transaction_until_it_succeeds() {
        let db = database().await;
        let calls = AtomicU32::new(0);
        let calls = &calls;
        let answer = db
            .transaction(|tx| {
                async move {
                    let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
                    note(tx, &format!("attempt {call}")).await?;
                    if call < 3 {
                        return Err(deadlock());
                    }
                    Ok(call)
                }
                .scoped()
            })
            .await
            .unwrap();
        assert_eq!(answer, 3);
        assert_eq!(
            notes(&db).await,
            ["attempt 3"],
            "failed attempts leave nothing"
        );
    }

    #[tokio::test]
    async fn retries_stop_at_the_bound_with_the_last_error() {
        let db = database().await;
        let calls = AtomicU32::new(0);
        let calls = &calls;
        let outcome: Result<(), _> = db
            .transaction(|tx| {
                async move {
                    calls.fetch_add(1, Ordering::SeqCst);
                    note(tx, "doomed").await?;
                    Err(deadlock())
                }
                .scoped()
            })
            .await;
        assert!(outcome.unwrap_err().is_retryable());
        assert_eq!(calls.load(Ordering::SeqCst), MAX_ATTEMPTS);
        assert!(notes(&db).await.is_empty());
    }

    #[tokio::test]
    async fn other_errors_are_answered_at_once_and_roll_back() {
        let db = database().await;
        let calls = AtomicU32::new(0);
        let calls = &calls;
        let outcome: Result<(), _> = db
            .transaction(|tx| {
                async move {
                    calls.fetch_add(1, Ordering::SeqCst);
                    note(tx, "refused").await?;
                    Err(CallerError::Refused)
                }
                .scoped()
            })
            .await;
        assert!(matches!(outcome, Err(CallerError::Refused)));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert!(notes(&db).await.is_empty(), "the write was rolled back");
        // A storage error that is no conflict is not retried either.
        let outcome: Result<(), Error> = db
            .transaction(|tx| {
                async move {
                    with_conn!(Exec::Tx(tx), |c| {
                        sqlx::query("INSERT INTO missing_table VALUES (1)")
                            .execute(c)
                            .await
                            .map(|_| ())
                    })?;
                    Ok(())
                }
                .scoped()
            })
            .await;
        assert!(matches!(outcome, Err(Error::Database(_))));
    }

    #[tokio::test]
    async fn success_commits() {
        let db = database().await;
        let body = String::from("kept");
        let body = &body;
        db.transaction(|tx| async move { note(tx, body).await }.scoped())
            .await
            .unwrap();
        assert_eq!(notes(&db).await, ["kept"]);
    }

    #[test]
    fn pauses_grow_and_stay_bounded() {
        for failed in 1..MAX_ATTEMPTS {
            let ceiling = FIRST_PAUSE_MAX * (1 << (failed - 1));
            for _ in 0..50 {
                assert!(pause(failed) < ceiling);
            }
        }
    }
}
