//! Each account's commit count (PostgreSQL): statement triggers add to it with every
//! commit that changes the account's data (migration 0012, `changes::TABLES`).
//!
//! The API's revalidation shortcut reads it before every read it may answer, so under
//! load the reads are shared: a read asked for while another is on its way waits for the
//! next one, which starts after it was asked, and so counts every commit made before it
//! was — exactly what a read of its own would count. One round trip answers all who
//! wait, for the union of their accounts.
//!
//! The reads go over a connection of their own, kept between reads, rather than the
//! pool's: a pooled connection costs a second round trip when it is given back (sqlx
//! pings it), which would double the database work of every answer given without a
//! query. It is one connection beyond the pool's `max_connections`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sqlx::{ConnectOptions, PgConnection};
use tokio::sync::oneshot;

use crate::db::Database;
use crate::error::{Error, Result};

/// The accounts' commit counts, read for many callers at once.
#[derive(Clone)]
pub struct CommitCounts {
    db: Database,
    shared: Arc<Mutex<Queue>>,
}

/// The one reading task's connection: taken for a read, put back after it.
type Kept = Option<PgConnection>;

#[derive(Default)]
struct Queue {
    waiting: Vec<Waiter>,
    /// A task is reading, and will read again for whoever waits when it is done.
    reading: bool,
    /// The reads sent so far.
    round_trips: u64,
    /// The reads' own connection, while no read holds it.
    connection: Kept,
}

struct Waiter {
    accounts: Box<[i64]>,
    answer: oneshot::Sender<Result<i64>>,
}

impl CommitCounts {
    pub fn new(db: Database) -> Self {
        Self {
            db,
            shared: Arc::default(),
        }
    }

    /// The sum of the accounts' commit counts, as of a moment after this call (0 on
    /// SQLite, which keeps none): it grows with every commit that changes any of their
    /// data.
    pub async fn sum_of(&self, accounts: &[i64]) -> Result<i64> {
        if self.db.postgres_pool().is_none() {
            return Ok(0);
        }
        let (answer, answered) = oneshot::channel();
        let start_reading = {
            let mut queue = self.lock();
            queue.waiting.push(Waiter {
                accounts: accounts.into(),
                answer,
            });
            !std::mem::replace(&mut queue.reading, true)
        };
        if start_reading {
            tokio::spawn(self.clone().read_while_asked());
        }
        // The caller waited on one read (which the reading task sent).
        crate::query_count::note(1);
        answered
            .await
            .map_err(|_| Error::Database(sqlx::Error::WorkerCrashed))?
    }

    /// Reads for everyone waiting, again and again, until no one is.
    async fn read_while_asked(self) {
        loop {
            let waiting = {
                let mut queue = self.lock();
                if queue.waiting.is_empty() {
                    queue.reading = false;
                    return;
                }
                queue.round_trips += 1;
                std::mem::take(&mut queue.waiting)
            };
            let mut accounts: Vec<i64> = waiting
                .iter()
                .flat_map(|w| w.accounts.iter().copied())
                .collect();
            accounts.sort_unstable();
            accounts.dedup();
            match self.read(&accounts).await {
                Ok(counts) => {
                    for waiter in waiting {
                        let sum = waiter
                            .accounts
                            .iter()
                            .map(|account| counts.get(account).copied().unwrap_or(0))
                            .sum();
                        let _gone = waiter.answer.send(Ok(sum));
                    }
                }
                Err(err) => {
                    for waiter in waiting {
                        let _gone = waiter.answer.send(Err(err.duplicate()));
                    }
                }
            }
        }
    }

    /// How many reads were sent for all the sums asked of these counts.
    pub fn round_trips(&self) -> u64 {
        self.lock().round_trips
    }

    /// One read; a kept connection that has been lost (or closed by the server while
    /// idle) is replaced once, as the read changes nothing and may simply be sent again.
    async fn read(&self, accounts: &[i64]) -> Result<HashMap<i64, i64>> {
        let kept = self.lock().connection.take();
        if let Some(mut kept) = kept {
            match Self::read_on(&mut kept, accounts).await {
                Ok(counts) => {
                    self.lock().connection = Some(kept);
                    return Ok(counts);
                }
                Err(err) => match Error::from(err) {
                    Error::Busy(_lost) => {}
                    other => {
                        self.lock().connection = Some(kept);
                        return Err(other);
                    }
                },
            }
        }
        let pool = self
            .db
            .postgres_pool()
            .expect("only PostgreSQL keeps commit counts");
        let mut fresh = pool.connect_options().connect().await?;
        let counts = Self::read_on(&mut fresh, accounts).await?;
        self.lock().connection = Some(fresh);
        Ok(counts)
    }

    async fn read_on(
        connection: &mut PgConnection,
        accounts: &[i64],
    ) -> sqlx::Result<HashMap<i64, i64>> {
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT account_id, CAST(SUM(version) AS BIGINT) FROM account_versions \
             WHERE account_id = ANY($1) GROUP BY account_id",
        )
        .bind(accounts)
        .fetch_all(connection)
        .await?;
        Ok(rows.into_iter().collect())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.shared
            .lock()
            .expect("the commit counts' queue is not poisoned")
    }
}

#[cfg(test)]
mod tests {
    use domain::Timestamp;

    use super::*;
    use crate::accounts;
    use crate::db::Backend;
    use crate::test_databases::{self, TestDatabase};

    /// A commit changing the account's data (PostgreSQL).
    async fn rename(db: &Database, account: i64, name: &str) {
        sqlx::query("UPDATE accounts SET name = $1 WHERE id = $2")
            .bind(name)
            .bind(account)
            .execute(db.postgres_pool().unwrap())
            .await
            .unwrap();
    }

    /// Reads asked for together share round trips, and each still counts every commit
    /// made before it was asked for, for its own accounts only.
    #[tokio::test]
    async fn shared_reads_count_every_commit_made_before_they_were_asked() {
        for TestDatabase { db, .. } in test_databases::both().await {
            let counts = CommitCounts::new(db.clone());
            let mut tx = db.begin().await.unwrap();
            let now = Timestamp::from_micros(0);
            let one = accounts::insert(&mut tx, "One", now).await.unwrap().id;
            let other = accounts::insert(&mut tx, "Other", now).await.unwrap().id;
            tx.commit().await.unwrap();
            if db.backend() == Backend::Sqlite {
                assert_eq!(counts.sum_of(&[one]).await.unwrap(), 0);
                continue;
            }
            let before = counts.sum_of(&[one]).await.unwrap();
            let both_before = counts.sum_of(&[one, other]).await.unwrap();
            assert!(before > 0 && both_before > before);
            for round in 1..=20 {
                rename(&db, one, &format!("One {round}")).await;
                let reads: Vec<_> = (0..16)
                    .map(|i| {
                        let counts = counts.clone();
                        let asked = if i % 2 == 0 { vec![one] } else { vec![other] };
                        tokio::spawn(async move { counts.sum_of(&asked).await.unwrap() })
                    })
                    .collect();
                for (i, read) in reads.into_iter().enumerate() {
                    let sum = read.await.unwrap();
                    if i % 2 == 0 {
                        assert!(
                            sum >= before + round,
                            "round {round}: {sum} < {before} + {round}"
                        );
                    } else {
                        assert_eq!(sum, both_before - before, "another account's commits");
                    }
                }
            }
            // 2 reads alone, then 16 at once in each of 20 rounds: shared.
            let round_trips = counts.round_trips();
            assert!(
                round_trips <= 2 + 2 * 20,
                "{round_trips} reads for 322 sums"
            );
            db.close().await;
        }
    }

    /// The reads' own connection, ended by the server between reads, is replaced by the
    /// next read, which still counts every commit made before it.
    #[tokio::test]
    async fn a_lost_reading_connection_is_replaced_without_failing_a_read() {
        for TestDatabase { db, url, .. } in test_databases::both().await {
            if db.backend() != Backend::Postgres {
                continue;
            }
            let counts = CommitCounts::new(db.clone());
            let mut tx = db.begin().await.unwrap();
            let one = accounts::insert(&mut tx, "One", Timestamp::from_micros(0))
                .await
                .unwrap()
                .id;
            tx.commit().await.unwrap();
            let before = counts.sum_of(&[one]).await.unwrap();
            let admin = sqlx::PgPool::connect(&url).await.unwrap();
            let ended: Vec<(bool,)> = sqlx::query_as(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
            )
            .fetch_all(&admin)
            .await
            .unwrap();
            assert!(!ended.is_empty());
            sqlx::query("UPDATE accounts SET name = 'Renamed' WHERE id = $1")
                .bind(one)
                .execute(&admin)
                .await
                .unwrap();
            let after = counts.sum_of(&[one]).await.unwrap();
            assert!(after > before, "{after} after {before}");
            assert_eq!(counts.round_trips(), 2);
            admin.close().await;
            db.close().await;
        }
    }
}
