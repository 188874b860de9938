//! The event outbox. An event is written in the same transaction as the change it reports,
//! with a delivery for every subscription that hears of it, so there is never a change
//! without its event, nor an event (or a delivery) for a rolled-back change. Delivery reads
//! the outbox in `id` (= `sequence`) order.

use domain::Timestamp;

use crate::db::{Backend, Exec, Tx};
use crate::error::Result;
use crate::events::{self, NewEvent};
use crate::sql::Params;
use crate::webhook_deliveries::{self, CHANNEL};

/// Records an event inside the caller's transaction, with a delivery for every
/// subscription that hears of it; returns its sequence number.
pub async fn record(tx: &mut Tx, event: &NewEvent<'_>, now: Timestamp) -> Result<i64> {
    let id = events::insert(tx, event, now).await?;
    webhook_deliveries::fan_out(tx, id, event, now).await?;
    Ok(id)
}

/// Records events in order (their sequence numbers follow it), as `record` does each.
/// Events of one owner and audience (the changes of one item, a batch of stock
/// adjustments) take one statement on PostgreSQL (events, deliveries and the dispatchers'
/// notice) and two on SQLite, so that a write holding a busy row lock sends few.
pub async fn record_all(tx: &mut Tx, all: &[NewEvent<'_>], now: Timestamp) -> Result<()> {
    let Some(first) = all.first() else {
        return Ok(());
    };
    if !share_owner_and_audience(all) {
        for event in all {
            record(tx, event, now).await?;
        }
        return Ok(());
    }
    match tx.backend() {
        Backend::Postgres => record_in_one_statement(tx, all, now).await,
        Backend::Sqlite => {
            let mut p = Params::new();
            let sql = format!("{} RETURNING id", events::insert_sql(all, now, &mut p));
            let ids: Vec<(i64,)> = fetch_all_bound!(Exec::Tx(tx), (i64,), sql, p.args())?;
            let ids: Vec<i64> = ids.into_iter().map(|(id,)| id).collect();
            webhook_deliveries::fan_out_all(tx, &ids, first, now).await
        }
    }
}

/// Whether the events (some) have one owner and audience, so that their deliveries are
/// made by one statement.
fn share_owner_and_audience(all: &[NewEvent<'_>]) -> bool {
    all.first().is_some_and(|first| {
        all.iter().all(|e| {
            (e.account_id, e.seller_id, e.shop_id)
                == (first.account_id, first.seller_id, first.shop_id)
                && e.audience == first.audience
        })
    })
}

/// PostgreSQL: the events, their deliveries and, when there are some, the notice to
/// every node's dispatcher (sent at the commit), in one statement.
async fn record_in_one_statement(tx: &mut Tx, all: &[NewEvent<'_>], now: Timestamp) -> Result<()> {
    record_in_one_statement_after(tx, Params::new(), &[], all, now).await
}

/// PostgreSQL only (SQLite cannot write inside `WITH`): runs `writes` (`UPDATE`s or
/// `INSERT`s of the change the events report, their values bound in `p`), then records
/// the events as `record_all` does, in one statement when the events share their owner
/// and audience; so that a write holding a busy row lock sends one statement after it.
pub(crate) async fn record_all_after(
    tx: &mut Tx,
    p: Params,
    writes: &[String],
    all: &[NewEvent<'_>],
    now: Timestamp,
) -> Result<()> {
    if share_owner_and_audience(all) {
        return record_in_one_statement_after(tx, p, writes, all, now).await;
    }
    let sql = format!("{} SELECT 1", with_writes(writes));
    let _: Vec<(i32,)> = fetch_all_bound!(Exec::Tx(tx), (i32,), sql, p.args())?;
    record_all(tx, all, now).await
}

/// `WITH` and the writes as its first queries, each followed by a comma (empty for none).
fn with_writes(writes: &[String]) -> String {
    let mut sql = String::from("WITH ");
    for (i, write) in writes.iter().enumerate() {
        sql.push_str(&format!("write_{i} AS ({write}), "));
    }
    sql
}

async fn record_in_one_statement_after(
    tx: &mut Tx,
    mut p: Params,
    writes: &[String],
    all: &[NewEvent<'_>],
    now: Timestamp,
) -> Result<()> {
    let insert_events = events::insert_sql(all, now, &mut p);
    let events = "inserted e";
    let insert_deliveries =
        webhook_deliveries::deliveries_sql(Backend::Postgres, events, &all[0], now, &mut p);
    let sql = format!(
        "{}inserted AS ({insert_events} RETURNING id, topic, account_id, item_type, item_id, app_id), \
         delivered AS ({insert_deliveries} RETURNING 1) \
         SELECT c.n FROM (SELECT COUNT(*) AS n FROM delivered) c \
         LEFT JOIN LATERAL (SELECT pg_notify('{CHANNEL}', '') WHERE c.n > 0) notice ON TRUE",
        with_writes(writes)
    );
    let delivered: Vec<(i64,)> = fetch_all_bound!(Exec::Tx(tx), (i64,), sql, p.args())?;
    if delivered.first().is_some_and(|(n,)| *n > 0) {
        tx.wake_dispatcher_on_commit();
    }
    Ok(())
}
