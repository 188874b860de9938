//! Leases: how singleton background jobs run on one node at a time, on either backend.
//! A lease is one row per job naming its holder until an expiry. A node takes it when it
//! is free or has run out, renews it while it holds it, and releases it when it stops; a
//! node that dies simply lets it run out, and another takes over.
//!
//! Two nodes racing for one lease both write the same row in one statement: PostgreSQL's
//! upsert makes the second wait for the first's commit and then see its holder, and
//! SQLite has a single writer at a time (`BEGIN IMMEDIATE`), so exactly one wins. The
//! times compared are the callers' clocks: nodes' clocks must agree to well within a
//! lease's length.

use domain::Timestamp;

use crate::db::{Database, Exec};
use crate::error::Result;

/// A lease as the database holds it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Lease {
    pub name: String,
    pub holder: String,
    pub acquired_on: Timestamp,
    pub expires_on: Timestamp,
}

/// Takes the lease `name` for `holder` until `until`, when it is free, has run out at
/// `now`, or is already `holder`'s (then it is extended). Answers whether `holder` holds it.
pub async fn acquire(
    db: &Database,
    name: &str,
    holder: &str,
    now: Timestamp,
    until: Timestamp,
) -> Result<bool> {
    write(
        db,
        "INSERT INTO leases (name, holder, acquired_on, expires_on) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, \
             acquired_on = CASE WHEN leases.holder = excluded.holder \
                 THEN leases.acquired_on ELSE excluded.acquired_on END, \
             expires_on = excluded.expires_on \
         WHERE leases.holder = excluded.holder OR leases.expires_on <= excluded.acquired_on",
        name,
        holder,
        now,
        until,
    )
    .await
}

/// Extends `holder`'s lease to `until`. Answers `false` when the lease was lost: it ran
/// out at `now` (another node may be about to take it) or another node holds it.
pub async fn renew(
    db: &Database,
    name: &str,
    holder: &str,
    now: Timestamp,
    until: Timestamp,
) -> Result<bool> {
    write(
        db,
        "UPDATE leases SET expires_on = $4 \
         WHERE name = $1 AND holder = $2 AND expires_on > $3",
        name,
        holder,
        now,
        until,
    )
    .await
}

/// Gives the lease up, so another node may take it at once; answers whether `holder`
/// still held it.
pub async fn release(db: &Database, name: &str, holder: &str) -> Result<bool> {
    let mut tx = db.begin().await?;
    let deleted = with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query("DELETE FROM leases WHERE name = $1 AND holder = $2")
            .bind(name)
            .bind(holder)
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    tx.commit().await?;
    Ok(deleted == 1)
}

/// The lease `name` while it is held at `now`.
pub async fn current(db: &Database, name: &str, now: Timestamp) -> Result<Option<Lease>> {
    let lease = with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Lease>(
            "SELECT name, holder, acquired_on, expires_on FROM leases \
             WHERE name = $1 AND expires_on > $2",
        )
        .bind(name)
        .bind(now)
        .fetch_optional(c)
        .await
    })?;
    Ok(lease)
}

/// Runs one lease statement binding name, holder, now and until; answers whether it
/// changed the row.
async fn write(
    db: &Database,
    sql: &'static str,
    name: &str,
    holder: &str,
    now: Timestamp,
    until: Timestamp,
) -> Result<bool> {
    let mut tx = db.begin().await?;
    let changed = with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query(sql)
            .bind(name)
            .bind(holder)
            .bind(now)
            .bind(until)
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    tx.commit().await?;
    Ok(changed == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StoreOptions;
    use crate::test_databases::{self, TestDatabase};

    const JOB: &str = "housekeeping";

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_secs(secs)
    }

    #[tokio::test]
    async fn a_lease_is_held_by_one_node_until_released_or_run_out() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            let backend = db.backend();
            assert!(acquire(&db, JOB, "a", at(100), at(110)).await.unwrap());
            assert!(!acquire(&db, JOB, "b", at(105), at(115)).await.unwrap());
            let held = current(&db, JOB, at(105)).await.unwrap().unwrap();
            assert_eq!((held.holder.as_str(), held.expires_on), ("a", at(110)));
            // The holder renews; another cannot.
            assert!(
                renew(&db, JOB, "a", at(108), at(120)).await.unwrap(),
                "{backend:?}"
            );
            assert!(!renew(&db, JOB, "b", at(108), at(120)).await.unwrap());
            assert!(!acquire(&db, JOB, "b", at(115), at(125)).await.unwrap());
            // Taking it again extends it and keeps when it was first taken.
            assert!(acquire(&db, JOB, "a", at(118), at(130)).await.unwrap());
            let held = current(&db, JOB, at(118)).await.unwrap().unwrap();
            assert_eq!(held.acquired_on, at(100));
            // Run out: another takes it, and the first can no longer renew it.
            assert!(current(&db, JOB, at(130)).await.unwrap().is_none());
            assert!(acquire(&db, JOB, "b", at(130), at(140)).await.unwrap());
            assert!(!renew(&db, JOB, "a", at(131), at(141)).await.unwrap());
            assert!(!release(&db, JOB, "a").await.unwrap());
            // Released: free at once.
            assert!(release(&db, JOB, "b").await.unwrap());
            assert!(current(&db, JOB, at(131)).await.unwrap().is_none());
            assert!(acquire(&db, JOB, "a", at(131), at(141)).await.unwrap());
            // A lease that ran out is lost even if no one took it.
            assert!(!renew(&db, JOB, "a", at(141), at(151)).await.unwrap());
            // Leases are independent of one another.
            assert!(acquire(&db, "other", "b", at(131), at(141)).await.unwrap());
            db.close().await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn of_nodes_racing_for_a_lease_exactly_one_wins() {
        for TestDatabase { db, url, _dir } in test_databases::both().await {
            for round in 0..10 {
                let name = format!("race-{round}");
                // Separate handles, as separate nodes have (on SQLite, separate writers).
                let mut racers = Vec::new();
                for node in 0..4 {
                    let other = Database::connect(&url, &StoreOptions::default())
                        .await
                        .unwrap();
                    let name = name.clone();
                    racers.push(tokio::spawn(async move {
                        let won = acquire(&other, &name, &format!("node-{node}"), at(100), at(110))
                            .await
                            .unwrap();
                        other.close().await;
                        won
                    }));
                }
                let mut winners = 0;
                for racer in racers {
                    winners += usize::from(racer.await.unwrap());
                }
                assert_eq!(winners, 1, "{:?} round {round}", db.backend());
            }
            db.close().await;
        }
    }
}
