//! Deliveries: one per subscription and event, written in the same transaction as the
//! event (so a committed change always has its deliveries, and a rolled-back one none),
//! claimed with leases by the dispatchers of every node, and their attempts — the history.
//!
//! A failed or disabled subscription's deliveries are parked: pending, but due after
//! every due time, so that claims never scan past them; reactivating the subscription
//! makes them due, and only its newest parked deliveries are kept (the older are skipped).
//! Every statement that parks, unparks or skips runs after its subscriptions are locked,
//! as the status changes that call for it do.

use std::sync::atomic::Ordering::Relaxed;

use domain::Timestamp;
use domain::webhook::{DeliveryStatus, ErrorClass, SubscriptionStatus, Trigger};

use crate::db::{Backend, Database, Exec, Tx};
use crate::error::Result;
use crate::events::{Audience, NewEvent};
use crate::sql::{Arg, Filter, Params, Sort, Window, list_sql};
use crate::write::execute_bound;

/// The PostgreSQL channel that tells every node's dispatcher of new work.
pub const CHANNEL: &str = "webhook_deliveries";

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
    pub next_attempt_on: Timestamp,
    #[sqlx(try_from = "String")]
    pub trigger: Trigger,
    pub replay_id: Option<i64>,
    pub last_status_code: Option<i64>,
    pub last_error: Option<String>,
    /// When the current claim ends: the claim's token, so that only the attempt made
    /// under it is recorded.
    pub lease_expires_on: Option<Timestamp>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

impl Delivery {
    /// Whether it waits for its subscription to be reactivated, with no attempt due.
    pub fn is_parked(&self) -> bool {
        self.status == DeliveryStatus::Pending && self.next_attempt_on.as_micros() == PARKED
    }
}

macro_rules! columns {
    () => {
        "id, webhook_id, event_id, topic, resource_key, status, attempts, next_attempt_on, trigger, replay_id, \
         last_status_code, last_error, lease_expires_on, created_on, updated_on"
    };
}

/// The `next_attempt_on` of a parked delivery: after every due time. It is written into
/// statements as it is, so that they can use the index of waiting deliveries.
pub const PARKED: i64 = i64::MAX;

/// The statuses whose subscriptions park their deliveries, as an SQL list.
fn parking_statuses() -> String {
    SubscriptionStatus::ALL
        .iter()
        .filter(|s| s.parks_deliveries())
        .map(|s| format!("'{}'", s.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// SQL for when a delivery is next attempted: never while its subscription (whose status
/// is the SQL expression `status`) parks deliveries, else at `due` (an SQL expression).
fn next_attempt(status: &str, due: &str) -> String {
    format!(
        "CASE WHEN {status} IN ({}) THEN {PARKED} ELSE {due} END",
        parking_statuses()
    )
}

/// The status of a delivery's subscription, in a statement on `webhook_deliveries`.
const ITS_SUBSCRIPTION_STATUS: &str =
    "(SELECT w.status FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id)";

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
    pub created_on: Timestamp,
}

/// Creates the event's deliveries: one per subscription of the audience whose topic
/// covers the event's (`orders` covers `orders.updated.shipped`), that still receives
/// events, and that does not skip its own app's changes; parked for a subscription that
/// parks them. One statement. On PostgreSQL it reads each subscription under the key-share
/// lock its deliveries' foreign key takes anyway, so that a subscription reactivated
/// meanwhile is seen as it is once reactivated, and never left with a parked delivery.
pub async fn fan_out(
    tx: &mut Tx,
    event_id: i64,
    event: &NewEvent<'_>,
    now: Timestamp,
) -> Result<()> {
    let mut p = Params::new();
    let events = format!(
        "(SELECT {id} AS id, {topic} AS topic, {account} AS account_id, {item_type} AS item_type, \
         {item_id} AS item_id, {app} AS app_id) e",
        id = p.bind(Arg::Int(event_id)),
        topic = p.bind(Arg::Text(event.topic.to_owned())),
        account = p.bind(Arg::Int(event.account_id)),
        item_type = p.bind(Arg::Text(event.item_type.to_owned())),
        item_id = p.bind(Arg::Int(event.item_id)),
        app = p.bind(Arg::MaybeInt(event.actor.app_id)),
    );
    insert_deliveries(tx, &events, event, now, p).await
}

/// Creates the deliveries of events already written (`ids`, in order) that share their
/// account, owner and audience (`like`), as `fan_out` does for one, in one statement.
pub(crate) async fn fan_out_all(
    tx: &mut Tx,
    ids: &[i64],
    like: &NewEvent<'_>,
    now: Timestamp,
) -> Result<()> {
    let mut p = Params::new();
    let events = format!(
        "(SELECT id, topic, account_id, item_type, item_id, app_id FROM events WHERE id IN ({})) e",
        p.bind_all(ids.iter().copied().map(Arg::Int))
    );
    insert_deliveries(tx, &events, like, now, p).await
}

/// Inserts the deliveries of `events` (see [`deliveries_sql`]), bound after `p`'s values,
/// and tells the dispatchers when there are any.
async fn insert_deliveries(
    tx: &mut Tx,
    events: &str,
    like: &NewEvent<'_>,
    now: Timestamp,
    mut p: Params,
) -> Result<()> {
    let sql = deliveries_sql(tx.backend(), events, like, now, &mut p);
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

/// The `INSERT … SELECT` of the deliveries of the events `events` (an SQL row source
/// named `e`, with their `id`, `topic`, `account_id`, `item_type`, `item_id` and
/// `app_id`), which share `like`'s owner and audience: in event order, then subscription
/// order. On PostgreSQL it holds the subscriptions `FOR KEY SHARE` (see `fan_out`).
pub(crate) fn deliveries_sql(
    backend: Backend,
    events: &str,
    like: &NewEvent<'_>,
    now: Timestamp,
    p: &mut Params,
) -> String {
    let audience = audience_sql(like, p);
    let receiving: Vec<Arg> = domain::webhook::SubscriptionStatus::ALL
        .iter()
        .filter(|s| s.receives_events())
        .map(|s| Arg::Text(s.as_str().to_owned()))
        .collect();
    let now = p.bind(Arg::Int(now.as_micros()));
    let lock = match backend {
        Backend::Sqlite => "",
        Backend::Postgres => " FOR KEY SHARE OF w",
    };
    format!(
        "INSERT INTO webhook_deliveries (webhook_id, event_id, topic, resource_key, status, next_attempt_on, \
         created_on, updated_on) \
         SELECT w.id, e.id, e.topic, e.item_type || ':' || e.item_id, 'pending', {next}, {now}, {now} \
         FROM {events} JOIN webhooks w ON w.account_id = e.account_id \
         WHERE {audience} AND w.status IN ({receiving}) \
         AND (w.topic = e.topic OR substr(e.topic, 1, length(w.topic) + 1) = w.topic || '.') \
         AND (w.notify_origin = TRUE OR w.app_id IS NULL OR e.app_id IS NULL OR w.app_id <> e.app_id) \
         ORDER BY e.id, w.id{lock}",
        next = next_attempt("w.status", &now),
        receiving = p.bind_all(receiving),
    )
}

/// Which subscriptions (`w`) hear of the event, in SQL.
fn audience_sql(event: &NewEvent<'_>, p: &mut Params) -> String {
    match (event.audience, event.shop_id, event.seller_id) {
        (Audience::Shops(shops), _, _) => format!(
            "w.shop_id IN ({})",
            p.bind_all(shops.iter().copied().map(Arg::Int))
        ),
        (
            Audience::ProductShops {
                seller_id,
                all_shops: true,
                ..
            },
            _,
            _,
        ) => format!(
            "w.shop_id IN (SELECT id FROM shops WHERE seller_id = {})",
            p.bind(Arg::Int(seller_id))
        ),
        (Audience::ProductShops { product_id, .. }, _, _) => format!(
            "w.shop_id IN (SELECT shop_id FROM product_shops WHERE product_id = {})",
            p.bind(Arg::Int(product_id))
        ),
        (Audience::Owner, Some(shop), _) => format!("w.shop_id = {}", p.bind(Arg::Int(shop))),
        (Audience::Owner, None, Some(seller)) => {
            format!("w.seller_id = {}", p.bind(Arg::Int(seller)))
        }
        (Audience::Owner, None, None) => "TRUE".to_owned(),
    }
}

/// Tells the dispatchers of this handle (after the commit) and of other nodes (through
/// PostgreSQL, at the commit) that work is due.
pub(crate) async fn announce(tx: &mut Tx) -> Result<()> {
    tx.wake_dispatcher_on_commit();
    if tx.backend() == Backend::Postgres {
        execute_bound(tx, format!("SELECT pg_notify('{CHANNEL}', '')"), &[]).await?;
    }
    Ok(())
}

/// The history's note on an attempt whose claim ran out before an answer was recorded.
const INTERRUPTED: &str = "interrupted: the node that claimed the delivery stopped before recording \
     an answer; it may have been sent";

/// What a claim took, and whether more may be due.
pub struct Claim {
    pub deliveries: Vec<Delivery>,
    /// More deliveries may be due: the scan stopped at its limit, or left some it saw
    /// for want of room. A sequence cut short does not count: the node that holds it
    /// claims the resource's next sequence when it ends ([`claim_next_sequences`]).
    pub more: bool,
}

/// What a claim looks at, and how long it holds what it takes.
#[derive(Clone, Copy, Debug)]
pub struct ClaimTerms {
    pub now: Timestamp,
    pub lease_until: Timestamp,
    /// Due deliveries looked at, at most.
    pub scan: i64,
    /// Deliveries about one resource of an ordered subscription taken at most, its oldest
    /// pending one included.
    pub sequence: i64,
}

/// A due delivery as a claim first sees it.
#[derive(sqlx::FromRow)]
struct Candidate {
    id: i64,
    webhook_id: i64,
    resource_key: String,
    next_attempt_on: i64,
    lease_expires_on: Option<i64>,
}

/// A candidate, with its subscription's ordering.
type Found = (i64, i64, String, i64, Option<i64>, String);

/// The columns of a [`Found`], of delivery `d`.
const FOUND_COLUMNS: &str = "d.id, d.webhook_id, d.resource_key, d.next_attempt_on, d.lease_expires_on, \
     (SELECT w.ordering FROM webhooks w WHERE w.id = d.webhook_id) AS ordering";

/// The lock a claim takes on what it found, and the fence that keeps PostgreSQL from
/// turning the subscription check into a join.
fn claim_lock(backend: Backend) -> (&'static str, &'static str) {
    match backend {
        Backend::Sqlite => ("", ""),
        Backend::Postgres => (" FOR UPDATE SKIP LOCKED", " OFFSET 0"),
    }
}

/// Looks at up to `scan` due deliveries of active, unpaused subscriptions (none of
/// `full`'s), in due order, and leases to `node` until `lease_until` those that `take`
/// accepts (asked in that order, with the subscription's id): the rest stay as they were,
/// so a claim never takes what it would have to give back.
///
/// A per-resource subscription's delivery waits while an earlier one about the same
/// resource is pending. When the oldest is taken, the due ones after it are taken with
/// it, in order, up to `sequence` (and as `take` allows): nothing else can take them
/// while it is pending, and they go out in order behind it. Only an oldest pending
/// delivery starts a sequence, so a resource has at most one, on one node.
///
/// A delivery whose earlier claim ran out unrecorded may have been sent: that attempt
/// goes into the history as interrupted, and the next one carries the following number.
pub async fn claim(
    db: &Database,
    node: &str,
    terms: ClaimTerms,
    full: &[i64],
    take: impl FnMut(i64) -> bool,
) -> Result<Claim> {
    // The due index answers in order and the scan stops at the limit.
    let (lock, fence) = claim_lock(db.backend());
    let mut p = Params::new();
    let at = p.bind(Arg::Int(terms.now.as_micros()));
    let excluded = if full.is_empty() {
        String::new()
    } else {
        format!(
            "AND d.webhook_id NOT IN ({}) ",
            p.bind_all(full.iter().copied().map(Arg::Int))
        )
    };
    let sql = format!(
        "SELECT {FOUND_COLUMNS} FROM webhook_deliveries d \
         WHERE d.status = 'pending' AND d.next_attempt_on <= {at} \
         AND (d.lease_expires_on IS NULL OR d.lease_expires_on <= {at}) {excluded}\
         AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.status = 'active' \
         AND (w.paused_until IS NULL OR w.paused_until <= {at}) \
         AND (w.ordering = 'none' OR NOT EXISTS (SELECT 1 FROM webhook_deliveries e \
         WHERE e.webhook_id = d.webhook_id AND e.resource_key = d.resource_key AND e.status = 'pending' \
         AND e.id < d.id)){fence}) \
         ORDER BY d.next_attempt_on, d.id LIMIT {limit}{lock}",
        limit = p.bind(Arg::Int(terms.scan)),
    );
    // Planned on the due index (see `begin_lease_work`).
    let (tx, found) = find_claimable(db, sql, &p).await?;
    db.claim_counters().due_scans.fetch_add(1, Relaxed);
    let limited = i64::try_from(found.len()).unwrap_or(i64::MAX) >= terms.scan;
    lease_found(tx, node, terms, found, limited, take).await
}

/// Claims the next sequence of each of these resources of per-resource subscriptions
/// (subscription id and resource key), as [`claim`] would on meeting their oldest
/// pending deliveries, but straight from the resource index, whatever else is due: for
/// the node whose sequences about them just ended, so that a hot resource's backlog is
/// not scanned past once per sequence. The oldest pending delivery starts a sequence only
/// while it is due and free (and, on PostgreSQL, not locked by another claim), so a
/// resource still has at most one sequence, on one node.
pub async fn claim_next_sequences(
    db: &Database,
    node: &str,
    terms: ClaimTerms,
    resources: &[(i64, String)],
    take: impl FnMut(i64) -> bool,
) -> Result<Claim> {
    if resources.is_empty() {
        return Ok(Claim {
            deliveries: Vec::new(),
            more: false,
        });
    }
    let (lock, fence) = claim_lock(db.backend());
    let mut p = Params::new();
    let at = p.bind(Arg::Int(terms.now.as_micros()));
    let oldest: Vec<String> = resources
        .iter()
        .map(|(webhook_id, resource_key)| {
            format!(
                "(SELECT id FROM webhook_deliveries WHERE webhook_id = {} AND resource_key = {} \
                 AND status = 'pending' ORDER BY id LIMIT 1)",
                p.bind(Arg::Int(*webhook_id)),
                p.bind(Arg::Text(resource_key.clone())),
            )
        })
        .collect();
    // On PostgreSQL `IN` of a single parenthesized subquery is a semi-join, planned (sorts
    // being off) as a walk of the whole table in id order; an array is looked up by key.
    let oldest = match db.backend() {
        Backend::Sqlite => format!("IN ({})", oldest.join(", ")),
        Backend::Postgres => format!("= ANY(ARRAY[{}])", oldest.join(", ")),
    };
    let sql = format!(
        "SELECT {FOUND_COLUMNS} FROM webhook_deliveries d \
         WHERE d.id {oldest} AND d.status = 'pending' AND d.next_attempt_on <= {at} \
         AND (d.lease_expires_on IS NULL OR d.lease_expires_on <= {at}) \
         AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.status = 'active' \
         AND (w.paused_until IS NULL OR w.paused_until <= {at}){fence}) \
         ORDER BY d.id{lock}"
    );
    let (tx, found) = find_claimable(db, sql, &p).await?;
    db.claim_counters().next_sequences.fetch_add(1, Relaxed);
    // A subscription no longer ordered per resource has its other deliveries found by
    // the scan.
    let unordered = found
        .iter()
        .any(|f| f.5 != domain::webhook::Ordering::PerResource.as_str());
    lease_found(tx, node, terms, found, unordered, take).await
}

/// Leases what a claim found (in `tx`, which it commits), as [`claim`] says: `more` when
/// more may be due than what it found.
/// Runs a claim's search in the lease transaction that will lease what it found.
async fn find_claimable(db: &Database, sql: String, p: &Params) -> Result<(Tx, Vec<Found>)> {
    let mut tx = db.begin_lease_work().await?;
    let found = with_conn!(Exec::Tx(&mut tx), |c| {
        crate::sql::bind_as(sqlx::query_as(sqlx::AssertSqlSafe(sql)), p.args())
            .fetch_all(c)
            .await
    })?;
    Ok((tx, found))
}

async fn lease_found(
    mut tx: Tx,
    node: &str,
    terms: ClaimTerms,
    found: Vec<Found>,
    mut more: bool,
    mut take: impl FnMut(i64) -> bool,
) -> Result<Claim> {
    let ClaimTerms {
        now,
        lease_until,
        sequence,
        ..
    } = terms;
    // Each taken delivery with where it goes in the claim: its due time and the oldest
    // delivery of its sequence.
    let mut picked: Vec<(Candidate, (i64, i64))> = Vec::new();
    let mut heads: Vec<Candidate> = Vec::new();
    for (id, webhook_id, resource_key, next_attempt_on, lease_expires_on, ordering) in found {
        if !take(webhook_id) {
            // Due, and left for want of room: more is due than this claim took.
            more = true;
            continue;
        }
        let candidate = Candidate {
            id,
            webhook_id,
            resource_key,
            next_attempt_on,
            lease_expires_on,
        };
        if ordering == domain::webhook::Ordering::PerResource.as_str() && sequence > 1 {
            heads.push(candidate);
        } else {
            picked.push((candidate, (next_attempt_on, id)));
        }
    }
    // A sequence cut short here (at its limit, at a follower not yet due or still held,
    // or for want of room) goes on when it ends, from `claim_next_sequences`.
    for (head, followers) in followers_of(&mut tx, heads, sequence - 1).await? {
        let place = (head.next_attempt_on, head.id);
        let webhook_id = head.webhook_id;
        picked.push((head, place));
        for follower in followers {
            let free = follower
                .lease_expires_on
                .is_none_or(|until| until <= now.as_micros());
            if follower.next_attempt_on > now.as_micros() || !free || !take(webhook_id) {
                break;
            }
            picked.push((follower, place));
        }
    }
    if picked.is_empty() {
        tx.commit().await?;
        return Ok(Claim {
            deliveries: Vec::new(),
            more,
        });
    }
    let taken_over: Vec<i64> = picked
        .iter()
        .filter(|(c, _)| c.lease_expires_on.is_some())
        .map(|(c, _)| c.id)
        .collect();
    if !taken_over.is_empty() {
        let mut p = Params::new();
        let sql = format!(
            "INSERT INTO webhook_attempts (delivery_id, number, trigger, url, status_code, duration_ms, error_class, \
             error, created_on) SELECT d.id, d.attempts + 1, d.trigger, w.url, NULL, 0, {class}, {error}, {at} \
             FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id IN ({ids})",
            class = p.bind(Arg::Text(ErrorClass::Interrupted.as_str().to_owned())),
            error = p.bind(Arg::Text(INTERRUPTED.to_owned())),
            at = p.bind(Arg::Int(now.as_micros())),
            ids = p.bind_all(taken_over.iter().copied().map(Arg::Int)),
        );
        execute_bound(&mut tx, sql, p.args()).await?;
    }
    // Every SET expression reads the row as it was, before this claim.
    let mut p = Params::new();
    let sql = format!(
        "UPDATE webhook_deliveries SET lease_owner = {owner}, lease_expires_on = {until}, \
         attempts = attempts + CASE WHEN lease_expires_on IS NULL THEN 0 ELSE 1 END, \
         last_status_code = CASE WHEN lease_expires_on IS NULL THEN last_status_code ELSE NULL END, \
         last_error = CASE WHEN lease_expires_on IS NULL THEN last_error ELSE {error} END \
         WHERE id IN ({ids}) RETURNING {}",
        columns!(),
        owner = p.bind(Arg::Text(node.to_owned())),
        until = p.bind(Arg::Int(lease_until.as_micros())),
        error = p.bind(Arg::Text(INTERRUPTED.to_owned())),
        ids = p.bind_all(picked.iter().map(|(c, _)| Arg::Int(c.id))),
    );
    let mut deliveries = fetch_all_bound!(Exec::Tx(&mut tx), Delivery, sql, p.args())?;
    tx.commit().await?;
    // Due order, with each sequence kept together and in order at its oldest's place.
    let places: std::collections::HashMap<i64, (i64, i64)> =
        picked.iter().map(|(c, place)| (c.id, *place)).collect();
    deliveries.sort_by_key(|d| (places.get(&d.id).copied(), d.id));
    Ok(Claim { deliveries, more })
}

/// The pending deliveries after each of these oldest ones about the same resource, in
/// order, up to `limit` each: one statement.
async fn followers_of(
    tx: &mut Tx,
    heads: Vec<Candidate>,
    limit: i64,
) -> Result<Vec<(Candidate, Vec<Candidate>)>> {
    if heads.is_empty() {
        return Ok(Vec::new());
    }
    let mut p = Params::new();
    let limit = p.bind(Arg::Int(limit));
    let parts: Vec<String> = heads
        .iter()
        .enumerate()
        .map(|(n, head)| {
            format!(
                "SELECT * FROM (SELECT id, webhook_id, resource_key, next_attempt_on, lease_expires_on \
                 FROM webhook_deliveries WHERE webhook_id = {} AND resource_key = {} AND status = 'pending' \
                 AND id > {} ORDER BY id LIMIT {limit}) AS f{n}",
                p.bind(Arg::Int(head.webhook_id)),
                p.bind(Arg::Text(head.resource_key.clone())),
                p.bind(Arg::Int(head.id)),
            )
        })
        .collect();
    let sql = parts.join(" UNION ALL ");
    let rows = fetch_all_bound!(Exec::Tx(tx), Candidate, sql, p.args())?;
    let mut by_head: Vec<(Candidate, Vec<Candidate>)> =
        heads.into_iter().map(|head| (head, Vec::new())).collect();
    for row in rows {
        if let Some((_, followers)) = by_head.iter_mut().find(|(head, _)| {
            head.webhook_id == row.webhook_id && head.resource_key == row.resource_key
        }) {
            followers.push(row);
        }
    }
    // UNION ALL keeps no order of its own.
    for (_, followers) in &mut by_head {
        followers.sort_by_key(|f| f.id);
    }
    Ok(by_head)
}

/// Gives claimed deliveries back without an attempt, unless their claim already ran out.
pub async fn release(db: &Database, node: &str, deliveries: &[&Delivery]) -> Result<()> {
    if deliveries.is_empty() {
        return Ok(());
    }
    let mut p = Params::new();
    let owner = p.bind(Arg::Text(node.to_owned()));
    let claims: Vec<String> = deliveries
        .iter()
        .map(|d| {
            format!(
                "({}, {})",
                p.bind(Arg::Int(d.id)),
                p.bind(Arg::MaybeInt(d.lease_expires_on.map(Timestamp::as_micros)))
            )
        })
        .collect();
    let sql = format!(
        "UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_on = NULL \
         WHERE lease_owner = {owner} AND (id, lease_expires_on) IN (VALUES {})",
        claims.join(", ")
    );
    let mut tx = db.begin_lease_work().await?;
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
    /// When the answer (or its absence) was known.
    pub at: Timestamp,
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

/// A finished attempt at a claimed delivery, and where the delivery goes next.
pub struct Finished<'a> {
    pub delivery: &'a Delivery,
    pub attempt: AttemptRecord<'a>,
    pub next: Next,
}

/// Records attempts and moves their deliveries on — only those made under the claim
/// `node` still holds (same owner, same lease): an attempt that outlasted its lease may
/// have been made again by whoever took the delivery over, and that one counts. Answers
/// the ids recorded. Three statements whatever the number of attempts.
pub async fn finish(
    tx: &mut Tx,
    node: &str,
    finished: &[Finished<'_>],
    now: Timestamp,
) -> Result<Vec<i64>> {
    if finished.is_empty() {
        return Ok(Vec::new());
    }
    let mut p = Params::new();
    let owner = p.bind(Arg::Text(node.to_owned()));
    let updated_on = p.bind(Arg::Int(now.as_micros()));
    let rows: Vec<String> = finished
        .iter()
        .map(|f| {
            let d = f.delivery;
            let (status, next_attempt_on) = match f.next {
                Next::Succeeded => (DeliveryStatus::Succeeded, d.next_attempt_on),
                Next::RetryAt(at) => (DeliveryStatus::Pending, at),
                Next::Park => (DeliveryStatus::Pending, f.attempt.at),
                Next::Exhausted => (DeliveryStatus::Failed, d.next_attempt_on),
            };
            format!(
                "({}, {}, {}, {}, {}, {})",
                p.bind(Arg::Int(d.id)),
                p.bind(Arg::MaybeInt(d.lease_expires_on.map(Timestamp::as_micros))),
                p.bind(Arg::Text(status.as_str().to_owned())),
                p.bind(Arg::Int(next_attempt_on.as_micros())),
                p.bind(Arg::MaybeInt(f.attempt.status_code)),
                p.bind(Arg::MaybeText(f.attempt.error.map(str::to_owned))),
            )
        })
        .collect();
    let sql = format!(
        "UPDATE webhook_deliveries SET status = v.status, attempts = webhook_deliveries.attempts + 1, \
         next_attempt_on = v.next_on, last_status_code = v.code, last_error = v.error, lease_owner = NULL, \
         lease_expires_on = NULL, updated_on = {updated_on} \
         FROM (SELECT column1 AS id, column2 AS lease, column3 AS status, column4 AS next_on, column5 AS code, \
         column6 AS error FROM (VALUES {}) AS t) AS v \
         WHERE webhook_deliveries.id = v.id AND webhook_deliveries.lease_owner = {owner} \
         AND webhook_deliveries.lease_expires_on = v.lease \
         RETURNING webhook_deliveries.id, webhook_deliveries.attempts",
        rows.join(", ")
    );
    let recorded: Vec<(i64, i64)> = with_conn!(Exec::Tx(tx), |c| {
        crate::sql::bind_as(sqlx::query_as(sqlx::AssertSqlSafe(sql)), p.args())
            .fetch_all(c)
            .await
    })?;
    if recorded.is_empty() {
        return Ok(Vec::new());
    }
    let numbers: std::collections::HashMap<i64, i64> = recorded.iter().copied().collect();
    let mut p = Params::new();
    let rows: Vec<String> = finished
        .iter()
        .filter_map(|f| {
            let number = *numbers.get(&f.delivery.id)?;
            let a = &f.attempt;
            Some(format!(
                "({}, {}, {}, {}, {}, {}, {}, {}, {})",
                p.bind(Arg::Int(f.delivery.id)),
                p.bind(Arg::Int(number)),
                p.bind(Arg::Text(a.trigger.as_str().to_owned())),
                p.bind(Arg::Text(a.url.to_owned())),
                p.bind(Arg::MaybeInt(a.status_code)),
                p.bind(Arg::Int(a.duration_ms)),
                p.bind(Arg::MaybeText(a.error_class.map(|c| c.as_str().to_owned()))),
                p.bind(Arg::MaybeText(a.error.map(str::to_owned))),
                p.bind(Arg::Int(a.at.as_micros())),
            ))
        })
        .collect();
    let sql = format!(
        "INSERT INTO webhook_attempts (delivery_id, number, trigger, url, status_code, duration_ms, error_class, \
         error, created_on) VALUES {}",
        rows.join(", ")
    );
    execute_bound(tx, sql, p.args()).await?;
    Ok(recorded.into_iter().map(|(id, _)| id).collect())
}

/// Parks the pending deliveries of those of these subscriptions that park deliveries (the
/// caller has locked them): claimed ones too, which their attempt's outcome moves on from
/// anyway, and which a node that dies leaves parked rather than due.
pub async fn park(tx: &mut Tx, webhook_ids: &[i64]) -> Result<()> {
    if webhook_ids.is_empty() {
        return Ok(());
    }
    let mut p = Params::new();
    let ids = p.bind_all(webhook_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "UPDATE webhook_deliveries SET next_attempt_on = {PARKED} WHERE status = 'pending' \
         AND webhook_id IN ({ids}) AND next_attempt_on < {PARKED} \
         AND webhook_id IN (SELECT id FROM webhooks WHERE id IN ({ids}) AND status IN ({}))",
        parking_statuses()
    );
    execute_bound(tx, sql, p.args()).await
}

/// Makes a subscription's parked deliveries due now, oldest first (the caller has locked
/// it, and it no longer parks deliveries).
pub async fn unpark(tx: &mut Tx, webhook_id: i64, now: Timestamp) -> Result<()> {
    let sql = format!(
        "UPDATE webhook_deliveries SET next_attempt_on = $2 \
         WHERE status = 'pending' AND webhook_id = $1 AND next_attempt_on = {PARKED}"
    );
    let unparked = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(webhook_id)
            .bind(now.as_micros())
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    if unparked > 0 {
        announce(tx).await?;
    }
    Ok(())
}

/// Deliveries parked after a point, by subscription.
pub struct Parked {
    pub webhook_ids: Vec<i64>,
    /// The newest delivery parked: the point to look after next time.
    pub newest: i64,
}

/// The subscriptions with deliveries parked since delivery `after` was, if any (their
/// backlog may have grown).
pub async fn parked_after(db: &Database, after: i64) -> Result<Option<Parked>> {
    let sql = format!(
        "SELECT webhook_id, MAX(id) FROM webhook_deliveries \
         WHERE status = 'pending' AND next_attempt_on = {PARKED} AND id > $1 GROUP BY webhook_id"
    );
    let found: Vec<(i64, i64)> = with_conn!(Exec::Db(db), |c| {
        sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(after)
            .fetch_all(c)
            .await
    })?;
    Ok(found
        .iter()
        .map(|&(_, newest)| newest)
        .max()
        .map(|newest| Parked {
            webhook_ids: found.iter().map(|&(webhook_id, _)| webhook_id).collect(),
            newest,
        }))
}

/// Skips the parked deliveries of these subscriptions beyond their newest `keep`, with a
/// note saying why, after locking the subscriptions (a reactivation makes their deliveries
/// due under the same lock). One statement per subscription, on the index of waiting
/// deliveries. Answers how many were skipped.
pub async fn skip_beyond_backlog(
    db: &Database,
    webhook_ids: &[i64],
    keep: u32,
    now: Timestamp,
) -> Result<u64> {
    let parked = format!("status = 'pending' AND webhook_id = $1 AND next_attempt_on = {PARKED}");
    let sql = format!(
        "UPDATE webhook_deliveries SET status = 'skipped', last_error = $3, updated_on = $4 \
         WHERE {parked} AND id <= (SELECT id FROM webhook_deliveries WHERE {parked} \
         ORDER BY id DESC LIMIT 1 OFFSET $2)"
    );
    let note = format!(
        "skipped: more than {keep} deliveries were waiting for the webhook to be reactivated"
    );
    let mut tx = db.begin().await?;
    crate::locks::webhooks(&mut tx, webhook_ids).await?;
    let mut skipped = 0;
    for &webhook_id in webhook_ids {
        skipped += with_conn!(Exec::Tx(&mut tx), |c| {
            sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
                .bind(webhook_id)
                .bind(i64::from(keep))
                .bind(&note)
                .bind(now.as_micros())
                .execute(c)
                .await
                .map(|done| done.rows_affected())
        })?;
    }
    tx.commit().await?;
    Ok(skipped)
}

#[derive(Clone, Debug, Default)]
pub struct DeliveryFilter {
    pub statuses: Option<Vec<DeliveryStatus>>,
    pub topics: Option<Vec<String>>,
    pub since: Option<Timestamp>,
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

/// Sends a delivery again now, as a manual attempt, whatever became of it (parked, if its
/// subscription parks deliveries). The caller has locked the subscription.
pub async fn redeliver(tx: &mut Tx, id: i64, now: Timestamp) -> Result<Delivery> {
    let sql = format!(
        "UPDATE webhook_deliveries SET status = 'pending', trigger = 'manual', next_attempt_on = {}, \
         updated_on = $2 WHERE id = $1 RETURNING {}",
        next_attempt(ITS_SUBSCRIPTION_STATUS, "$2"),
        columns!()
    );
    let delivery = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Delivery>(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(now.as_micros())
            .fetch_one(c)
            .await
    })?;
    announce(tx).await?;
    Ok(delivery)
}

/// A replay of a subscription's failed and skipped deliveries created in `[since, until)`.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Replay {
    pub id: i64,
    pub webhook_id: i64,
    pub since_on: Timestamp,
    pub until_on: Timestamp,
    pub deliveries: i64,
    pub created_on: Timestamp,
}

/// How far a replay got: its deliveries by status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub pending: i64,
    pub succeeded: i64,
    pub failed: i64,
}

/// Sends the failed and skipped deliveries of `[since, until)` again; the dispatchers work
/// through them like any other due delivery (parked, if the subscription parks
/// deliveries). The caller has locked the subscription.
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
    let sql = format!(
        "UPDATE webhook_deliveries SET status = 'pending', trigger = 'replay', replay_id = $2, \
         next_attempt_on = {}, updated_on = $5 \
         WHERE webhook_id = $1 AND status IN ('failed', 'skipped') AND created_on >= $3 AND created_on < $4",
        next_attempt(ITS_SUBSCRIPTION_STATUS, "$5")
    );
    let marked = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(sqlx::AssertSqlSafe(sql))
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

/// Relays PostgreSQL notifications of new work from every node to the dispatchers of
/// this handle, reconnecting when the connection drops; returns at once on SQLite, whose
/// other writers are not told (their work is found by polling).
pub async fn relay_notifications(db: Database) {
    let Some(pool) = db.postgres_pool() else {
        return;
    };
    loop {
        match sqlx::postgres::PgListener::connect_with(pool).await {
            Ok(mut listener) => {
                if listener.listen(CHANNEL).await.is_ok() {
                    while listener.recv().await.is_ok() {
                        db.wake_dispatcher();
                    }
                }
            }
            Err(err) => tracing::warn!(error = %err, "cannot listen for webhook work"),
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}
