//! Deliveries: one per subscription and event, written in the same transaction as the
//! event (so a committed change always has its deliveries, and a rolled-back one none),
//! claimed with leases by the dispatchers of every node, and their attempts — the history.

use std::sync::LazyLock;

use domain::Timestamp;
use domain::webhook::{DeliveryStatus, ErrorClass, Trigger};
use tokio::sync::Notify;

use crate::db::{Backend, Database, Exec, Tx};
use crate::error::Result;
use crate::events::NewEvent;
use crate::products::execute_bound;
use crate::sql::{Arg, Filter, Params, Sort, Window, list_sql};

/// Wakes the dispatchers of this process when deliveries or pings become due.
static WAKE: LazyLock<Notify> = LazyLock::new(Notify::new);

/// The PostgreSQL channel that tells every node's dispatcher of new work.
pub const CHANNEL: &str = "webhook_deliveries";

pub(crate) fn wake_dispatchers() {
    WAKE.notify_waiters();
}

/// Resolves when this process committed new dispatcher work (or another node said so).
pub async fn woken() {
    WAKE.notified().await;
}

/// Wakes this process's dispatchers (for a notification from another node).
pub fn wake() {
    wake_dispatchers();
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Delivery {
    pub id: i64,
    pub webhook_id: i64,
    pub event_id: i64,
    pub topic: String,
    pub resource_key: String,
    #[sqlx(try_from = "String")]
    pub status: DeliveryStatus,
    pub attempts: i64,
    pub next_attempt_on: i64,
    #[sqlx(try_from = "String")]
    pub trigger: Trigger,
    pub replay_id: Option<i64>,
    pub last_status_code: Option<i64>,
    pub last_error: Option<String>,
    #[sqlx(try_from = "i64")]
    pub created_on: Timestamp,
    #[sqlx(try_from = "i64")]
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, webhook_id, event_id, topic, resource_key, status, attempts, next_attempt_on, trigger, replay_id, \
         last_status_code, last_error, created_on, updated_on"
    };
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Attempt {
    pub id: i64,
    pub delivery_id: i64,
    pub number: i64,
    #[sqlx(try_from = "String")]
    pub trigger: Trigger,
    pub url: String,
    pub status_code: Option<i64>,
    pub duration_ms: i64,
    pub error_class: Option<String>,
    pub error: Option<String>,
    #[sqlx(try_from = "i64")]
    pub created_on: Timestamp,
}

/// Creates the event's deliveries: one per subscription of the audience whose topic
/// covers the event's (`orders` covers `orders.updated.shipped`), that still receives
/// events, and that does not skip its own app's changes. One statement.
pub async fn fan_out(
    tx: &mut Tx,
    event_id: i64,
    event: &NewEvent<'_>,
    now: Timestamp,
) -> Result<()> {
    let mut p = Params::new();
    let audience = match (event.shop_ids, event.shop_id, event.seller_id) {
        (Some(shops), _, _) => format!(
            "w.shop_id IN ({})",
            p.bind_all(shops.iter().copied().map(Arg::Int))
        ),
        (None, Some(shop), _) => format!("w.shop_id = {}", p.bind(Arg::Int(shop))),
        (None, None, Some(seller)) => format!("w.seller_id = {}", p.bind(Arg::Int(seller))),
        (None, None, None) => "TRUE".to_owned(),
    };
    let topic = p.bind(Arg::Text(event.topic.to_owned()));
    let app = p.bind(Arg::MaybeInt(event.actor.app_id));
    let receiving: Vec<Arg> = domain::webhook::SubscriptionStatus::ALL
        .iter()
        .filter(|s| s.receives_events())
        .map(|s| Arg::Text(s.as_str().to_owned()))
        .collect();
    let sql = format!(
        "INSERT INTO webhook_deliveries (webhook_id, event_id, topic, resource_key, status, next_attempt_on, \
         created_on, updated_on) \
         SELECT w.id, {event}, {topic}, {resource}, 'pending', {now}, {now}, {now} FROM webhooks w \
         WHERE w.account_id = {account} AND {audience} AND w.status IN ({receiving}) \
         AND (w.topic = {topic} OR substr({topic}, 1, length(w.topic) + 1) = w.topic || '.') \
         AND (w.notify_origin = TRUE OR w.app_id IS NULL OR {app} IS NULL OR w.app_id <> {app})",
        event = p.bind(Arg::Int(event_id)),
        resource = p.bind(Arg::Text(format!("{}:{}", event.item_type, event.item_id))),
        now = p.bind(Arg::Int(now.as_micros())),
        account = p.bind(Arg::Int(event.account_id)),
        receiving = p.bind_all(receiving),
    );
    let inserted = with_conn!(Exec::Tx(tx), |c| {
        crate::sql::bind_query(sqlx::query(sqlx::AssertSqlSafe(sql)), p.args())
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    if inserted > 0 {
        announce(tx).await?;
    }
    Ok(())
}

/// Tells the dispatchers of this process (after the commit) and of other nodes (through
/// PostgreSQL, at the commit) that work is due.
async fn announce(tx: &mut Tx) -> Result<()> {
    tx.wake_dispatcher_on_commit();
    if tx.backend() == Backend::Postgres {
        execute_bound(tx, format!("SELECT pg_notify('{CHANNEL}', '')"), &[]).await?;
    }
    Ok(())
}

/// Takes up to `limit` due deliveries of active, unpaused subscriptions (not those in
/// `busy`), leased to `node` until `lease_until`. A per-resource subscription's delivery
/// waits while an earlier one about the same resource is pending.
pub async fn claim(
    db: &Database,
    node: &str,
    now: Timestamp,
    lease_until: Timestamp,
    limit: i64,
    busy: &[i64],
) -> Result<Vec<Delivery>> {
    let lock = match db.backend() {
        Backend::Sqlite => "",
        Backend::Postgres => " FOR UPDATE OF d SKIP LOCKED",
    };
    let mut p = Params::new();
    let owner = p.bind(Arg::Text(node.to_owned()));
    let until = p.bind(Arg::Int(lease_until.as_micros()));
    let now = p.bind(Arg::Int(now.as_micros()));
    let busy = if busy.is_empty() {
        String::new()
    } else {
        format!(
            "AND d.webhook_id NOT IN ({}) ",
            p.bind_all(busy.iter().copied().map(Arg::Int))
        )
    };
    let sql = format!(
        "UPDATE webhook_deliveries SET lease_owner = {owner}, lease_expires_on = {until} WHERE id IN (\
         SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id \
         WHERE d.status = 'pending' AND d.next_attempt_on <= {now} \
         AND (d.lease_expires_on IS NULL OR d.lease_expires_on <= {now}) \
         AND w.status = 'active' AND (w.paused_until IS NULL OR w.paused_until <= {now}) \
         {busy}AND (w.ordering = 'none' OR NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.webhook_id = d.webhook_id \
         AND e.resource_key = d.resource_key AND e.status = 'pending' AND e.id < d.id)) \
         ORDER BY d.next_attempt_on, d.id LIMIT {limit}{lock}) RETURNING {}",
        columns!()
    );
    let mut tx = db.begin().await?;
    let claimed = with_conn!(Exec::Tx(&mut tx), |c| {
        crate::sql::bind_as(
            sqlx::query_as::<_, Delivery>(sqlx::AssertSqlSafe(sql)),
            p.args(),
        )
        .fetch_all(c)
        .await
    })?;
    tx.commit().await?;
    Ok(claimed)
}

/// Gives deliveries back without an attempt (more than a subscription may send at once).
pub async fn release(db: &Database, node: &str, ids: &[i64]) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut p = Params::new();
    let sql = format!(
        "UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_on = NULL \
         WHERE lease_owner = {} AND id IN ({})",
        p.bind(Arg::Text(node.to_owned())),
        p.bind_all(ids.iter().copied().map(Arg::Int))
    );
    let mut tx = db.begin().await?;
    execute_bound(&mut tx, sql, p.args()).await?;
    tx.commit().await
}

/// One attempt's result.
pub struct AttemptRecord<'a> {
    pub trigger: Trigger,
    pub url: &'a str,
    pub status_code: Option<i64>,
    pub duration_ms: i64,
    pub error_class: Option<ErrorClass>,
    pub error: Option<&'a str>,
}

/// Where a delivery goes after an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    Succeeded,
    /// Retried at this time.
    RetryAt(Timestamp),
    /// Kept pending, for when its subscription is active again (after `410 Gone`).
    Park,
    /// No attempt left.
    Exhausted,
}

/// Records an attempt and moves the delivery on, if `node` still holds its lease.
/// Answers whether it did.
pub async fn finish(
    tx: &mut Tx,
    delivery: &Delivery,
    node: &str,
    attempt: &AttemptRecord<'_>,
    next: Next,
    now: Timestamp,
) -> Result<bool> {
    let (status, next_attempt_on) = match next {
        Next::Succeeded => (DeliveryStatus::Succeeded, delivery.next_attempt_on),
        Next::RetryAt(at) => (DeliveryStatus::Pending, at.as_micros()),
        Next::Park => (DeliveryStatus::Pending, now.as_micros()),
        Next::Exhausted => (DeliveryStatus::Failed, delivery.next_attempt_on),
    };
    let updated = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE webhook_deliveries SET status = $3, attempts = attempts + 1, next_attempt_on = $4, \
             last_status_code = $5, last_error = $6, lease_owner = NULL, lease_expires_on = NULL, updated_on = $7 \
             WHERE id = $1 AND lease_owner = $2",
        )
        .bind(delivery.id)
        .bind(node)
        .bind(status.as_str())
        .bind(next_attempt_on)
        .bind(attempt.status_code)
        .bind(attempt.error)
        .bind(now.as_micros())
        .execute(c)
        .await
        .map(|done| done.rows_affected())
    })?;
    if updated == 0 {
        return Ok(false);
    }
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "INSERT INTO webhook_attempts (delivery_id, number, trigger, url, status_code, duration_ms, error_class, \
             error, created_on) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(delivery.id)
        .bind(delivery.attempts + 1)
        .bind(attempt.trigger.as_str())
        .bind(attempt.url)
        .bind(attempt.status_code)
        .bind(attempt.duration_ms)
        .bind(attempt.error_class.map(ErrorClass::as_str))
        .bind(attempt.error)
        .bind(now.as_micros())
        .execute(c)
        .await
        .map(|_| ())
    })?;
    Ok(true)
}

#[derive(Clone, Debug, Default)]
pub struct DeliveryFilter {
    pub statuses: Option<Vec<DeliveryStatus>>,
    pub topics: Option<Vec<String>>,
    pub since: Option<i64>,
}

/// Fields a delivery list may be sorted by.
pub const SORT_FIELDS: &[&str] = &["id"];

/// A page of a subscription's deliveries, newest first by default.
pub async fn list(
    db: &Database,
    webhook_id: i64,
    filter: &DeliveryFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Delivery>, u64)> {
    let mut f = Filter::new();
    f.eq("webhook_id", Arg::Int(webhook_id));
    if let Some(statuses) = &filter.statuses {
        f.any_of(
            "status",
            statuses.iter().map(|s| Arg::Text(s.as_str().to_owned())),
        );
    }
    if let Some(topics) = &filter.topics {
        f.condition(|p| {
            let ors: Vec<String> = topics
                .iter()
                .map(|t| {
                    let exact = p.bind(Arg::Text(t.clone()));
                    let below = p.bind(Arg::Text(format!("{t}.")));
                    format!("(topic = {exact} OR substr(topic, 1, length({below})) = {below})")
                })
                .collect();
            format!("({})", ors.join(" OR "))
        });
    }
    f.range("created_on", filter.since, None);
    let sql = list_sql(columns!(), "webhook_deliveries", &f, sort, window);
    fetch_list!(Exec::Db(db), Delivery, sql, f)
}

/// The attempts of these deliveries, oldest first, in one query.
pub async fn attempts_of<'a>(
    exec: impl Into<Exec<'a>>,
    delivery_ids: &[i64],
) -> Result<Vec<Attempt>> {
    if delivery_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.any_of("delivery_id", delivery_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT id, delivery_id, number, trigger, url, status_code, duration_ms, error_class, error, created_on \
         FROM webhook_attempts{} ORDER BY delivery_id, id",
        f.where_sql()
    );
    Ok(fetch_all_bound!(exec.into(), Attempt, sql, f.args())?)
}

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    webhook_id: i64,
    id: i64,
) -> Result<Option<Delivery>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, Delivery>(concat!(
            "SELECT ",
            columns!(),
            " FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2"
        ))
        .bind(id)
        .bind(webhook_id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Sends a delivery again now, as a manual attempt, whatever became of it.
pub async fn redeliver(tx: &mut Tx, id: i64, now: Timestamp) -> Result<Delivery> {
    let delivery = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Delivery>(concat!(
            "UPDATE webhook_deliveries SET status = 'pending', trigger = 'manual', next_attempt_on = $2, \
             updated_on = $2 WHERE id = $1 RETURNING ",
            columns!()
        ))
        .bind(id)
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })?;
    announce(tx).await?;
    Ok(delivery)
}

/// A replay of a subscription's failed deliveries created in `[since, until)`.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Replay {
    pub id: i64,
    pub webhook_id: i64,
    pub since_on: i64,
    pub until_on: i64,
    pub deliveries: i64,
    #[sqlx(try_from = "i64")]
    pub created_on: Timestamp,
}

/// How far a replay got: its deliveries by status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub pending: i64,
    pub succeeded: i64,
    pub failed: i64,
}

/// Sends the failed deliveries of `[since, until)` again; the dispatchers work through
/// them like any other due delivery.
pub async fn replay(
    tx: &mut Tx,
    webhook_id: i64,
    since: Timestamp,
    until: Timestamp,
    now: Timestamp,
) -> Result<Replay> {
    let id: i64 = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(
            "INSERT INTO webhook_replays (webhook_id, since_on, until_on, deliveries, created_on) \
             VALUES ($1, $2, $3, 0, $4) RETURNING id",
        )
        .bind(webhook_id)
        .bind(since.as_micros())
        .bind(until.as_micros())
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })?;
    let marked = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE webhook_deliveries SET status = 'pending', trigger = 'replay', replay_id = $2, \
             next_attempt_on = $5, updated_on = $5 \
             WHERE webhook_id = $1 AND status = 'failed' AND created_on >= $3 AND created_on < $4",
        )
        .bind(webhook_id)
        .bind(id)
        .bind(since.as_micros())
        .bind(until.as_micros())
        .bind(now.as_micros())
        .execute(c)
        .await
        .map(|done| done.rows_affected())
    })?;
    let marked = i64::try_from(marked).unwrap_or(i64::MAX);
    let replay = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Replay>(
            "UPDATE webhook_replays SET deliveries = $2 WHERE id = $1 \
             RETURNING id, webhook_id, since_on, until_on, deliveries, created_on",
        )
        .bind(id)
        .bind(marked)
        .fetch_one(c)
        .await
    })?;
    if marked > 0 {
        announce(tx).await?;
    }
    Ok(replay)
}

/// A replay of the subscription, with its progress.
pub async fn replay_progress(
    db: &Database,
    webhook_id: i64,
    id: i64,
) -> Result<Option<(Replay, Progress)>> {
    let replay = with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Replay>(
            "SELECT id, webhook_id, since_on, until_on, deliveries, created_on FROM webhook_replays \
             WHERE id = $1 AND webhook_id = $2",
        )
        .bind(id)
        .bind(webhook_id)
        .fetch_optional(c)
        .await
    })?;
    let Some(replay) = replay else {
        return Ok(None);
    };
    let counts: Vec<(String, i64)> = with_conn!(Exec::Db(db), |c| {
        sqlx::query_as(
            "SELECT status, COUNT(*) FROM webhook_deliveries WHERE replay_id = $1 GROUP BY status",
        )
        .bind(id)
        .fetch_all(c)
        .await
    })?;
    let mut progress = Progress::default();
    for (status, count) in counts {
        match status.as_str() {
            "pending" => progress.pending = count,
            "succeeded" => progress.succeeded = count,
            _ => progress.failed = count,
        }
    }
    Ok(Some((replay, progress)))
}

/// Relays PostgreSQL notifications of new work from every node to this process's
/// dispatchers, reconnecting when the connection drops; returns at once on SQLite, whose
/// only writer is this process.
pub async fn relay_notifications(db: Database) {
    let Database::Postgres(pool) = db else {
        return;
    };
    loop {
        match sqlx::postgres::PgListener::connect_with(&pool).await {
            Ok(mut listener) => {
                if listener.listen(CHANNEL).await.is_ok() {
                    while listener.recv().await.is_ok() {
                        wake();
                    }
                }
            }
            Err(err) => tracing::warn!(error = %err, "cannot listen for webhook work"),
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}
