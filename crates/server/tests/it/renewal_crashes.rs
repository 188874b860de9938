//! Renewals bill each cycle exactly once under crashes and concurrency. Purchases are
//! opened over HTTP and moved weeks back, so that each has several weekly cycles to catch
//! up, and their renewal charges go through a slow test gateway. Then:
//! - `commerce serve` is killed with SIGKILL at random moments while it renews, and
//!   started again on the same database;
//! - two nodes share one PostgreSQL database: the renewal lease is made to run out so
//!   that it moves between them while the old holder is still charging, and the holder
//!   is killed midway;
//! - several passes of the engine run at once in one process, over one server's database;
//! - a node is killed while a renewal charge waits for the gateway and stays down longer
//!   than the payments sweep waits for an answer: the sweep leaves that charge to the
//!   engine, which sends it again under its key.
//!
//! Whatever happened, in the end every due cycle has exactly one renewal order, paid by
//! exactly one approved charge made under that charge's own key; every purchase stands
//! after its last due cycle with one payment per cycle; and a charge a kill left pending
//! is the one completed later, not charged again under a new key.
//!
//! Every test is bounded: short leases (2 s), bounded kills and passes, polls with
//! deadlines.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use domain::{CalendarDate, Clock, SystemClock};
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use server::NodeRole;
use services::Services;
use services::subscription_renewals::run_pass;

use crate::binary::{Node, demo_owner_token, seed_demo};
use crate::on_both_backends;
use crate::subscription_purchases::{APPROVE, card};
use crate::support::{Backend, TestDb, TestServer, json};

on_both_backends!(
    killed_nodes_bill_each_cycle_once,
    two_nodes_bill_each_cycle_once_as_the_lease_moves_and_one_is_killed,
    a_charge_left_pending_over_a_long_stop_is_completed_under_its_key,
    concurrent_passes_bill_each_cycle_once,
);

/// Purchases each test opens.
const PURCHASES: usize = 20;
/// How long the gateway takes to answer a renewal charge: long beside the database work,
/// so that kills and races catch charges waiting for their answer, and so that a node
/// renewing several purchases at once is still renewing when each kill comes.
const LATENCY_MS: u64 = 500;
/// What a cycle of one unit costs.
const RENEWAL_FEE: i64 = 300;
/// The renewal singleton's lease on the nodes: a killed holder's runs out soon.
const LEASE: &str = "2s";
/// The lease's name: the worker's.
const RENEWALS: &str = server::serve::RENEWALS;
/// The longest renewals may take to catch up once they run.
const SETTLE: Duration = Duration::from_secs(45);
/// The longest a node may take to start renewing (its lease free, its first pass).
const UNDERWAY: Duration = Duration::from_secs(15);

/// A uniformly random number in `[low, high)`.
fn random_between(low: u64, high: u64) -> u64 {
    let bytes = oauth::secrets::random_bytes(8);
    low + u64::from_le_bytes(bytes.try_into().unwrap()) % (high - low)
}

/// Today as the nodes see it (their clock is the wall clock).
fn today() -> CalendarDate {
    CalendarDate::of(SystemClock.now())
}

/// A node's API, called as the demo shop's owner.
struct Api {
    client: Client,
    base: String,
    token: String,
}

impl Api {
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        json(request.send().await.expect("the node answers")).await
    }

    /// Calls and expects `status`; the answer's body.
    async fn expect(&self, status: StatusCode, method: Method, path: &str, body: Value) -> Value {
        let (got, answer) = self.call(method, path, Some(body)).await;
        assert_eq!(got, status, "{path}: {answer}");
        answer
    }
}

/// A shop's test gateway method and the purchases opened with it.
struct Opened {
    method: i64,
    purchases: Vec<i64>,
}

/// Opens `PURCHASES` weekly purchases in `shop` (units 1 to 3, each by its own order paid
/// with a card the gateway saves), then makes the gateway take `latency_ms` to answer
/// their renewals.
async fn open_purchases(api: &Api, shop: i64, latency_ms: u64) -> Opened {
    let method = api
        .expect(
            StatusCode::CREATED,
            Method::POST,
            &format!("/v2/shops/{shop}/payment_methods"),
            json!({"type": "test_gateway"}),
        )
        .await;
    let product = api
        .expect(
            StatusCode::CREATED,
            Method::POST,
            "/v2/products",
            json!({"title": "Coffee club", "status": "visible",
                   "variants": [{"price": 1000, "stock": 100000, "sku": "CLUB"}]}),
        )
        .await;
    let variant = product["_embedded"]["variants"][0]["id"].clone();
    let fee = api
        .expect(
            StatusCode::CREATED,
            Method::POST,
            "/v2/subscription_fees",
            json!({"variant_id": variant, "payment_interval": "1_week",
                   "renewal_fee": RENEWAL_FEE}),
        )
        .await;
    for n in 0..PURCHASES {
        let order = api
            .expect(
                StatusCode::CREATED,
                Method::POST,
                &format!("/v2/shops/{shop}/orders"),
                json!({"lines": [{"variant_id": variant, "quantity": 1 + n % 3,
                                  "subscription_fee_id": fee["id"]}],
                       "email": "buyer@example.com", "payment_method_id": method["id"]}),
            )
            .await;
        let (status, placed) = api
            .call(
                Method::PUT,
                &format!("/v2/orders/{}/place", order["id"]),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{placed}");
        let payment = api
            .expect(
                StatusCode::CREATED,
                Method::POST,
                &format!("/v2/orders/{}/payments", order["id"]),
                json!({"card": card(APPROVE)}),
            )
            .await;
        assert_eq!(payment["status"], "approved", "{payment}");
    }
    // Slow from now on: the opening charges above were quick.
    api.expect(
        StatusCode::OK,
        Method::PUT,
        &format!("/v2/shops/{shop}/payment_methods/{}", method["id"]),
        json!({"settings": {"latency_ms": latency_ms}}),
    )
    .await;
    let (status, page) = api
        .call(
            Method::GET,
            &format!(
                "/v2/subscription_purchases?subscription_fee_id={}&per_page=100&sort=id",
                fee["id"]
            ),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let ids: Vec<i64> = page["_embedded"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), PURCHASES, "{page}");
    Opened {
        method: method["id"].as_i64().unwrap(),
        purchases: ids,
    }
}

/// Makes each purchase due for 2 to 4 weekly cycles, its last one 0 to 5 days ago (so its
/// next is at least 2 days ahead: a test running over midnight bills no more); the cycle
/// dates each is to be billed for.
///
/// The engine bills what is due on its clock's today, and a `commerce serve` child runs on
/// the wall clock (it cannot be given a manual one), so the purchases are made due with
/// SQL: their `next_payment_on` and `due_on` are moved back, as if they had been opened
/// weeks ago and no renewal had run since. The in-process race does the same, so that all
/// three tests share one check.
async fn backdate(db: &TestDb, purchases: &[i64]) -> BTreeMap<i64, Vec<CalendarDate>> {
    let today = today();
    let mut cycles = BTreeMap::new();
    let mut sql = String::new();
    for (n, id) in purchases.iter().enumerate() {
        let count = 2 + n % 3;
        let last = today.plus_days(-i64::try_from(n % 6).unwrap());
        let first = last.plus_days(-7 * i64::try_from(count - 1).unwrap());
        let dates: Vec<CalendarDate> = (0..count)
            .map(|k| first.plus_days(7 * i64::try_from(k).unwrap()))
            .collect();
        sql.push_str(&format!(
            "UPDATE subscription_purchases SET next_payment_on = '{first}', due_on = '{first}' \
             WHERE id = {id};"
        ));
        cycles.insert(*id, dates);
    }
    db.execute(&sql).await;
    cycles
}

/// Renewal orders written and renewal charges approved so far: grows while renewals run.
async fn progress(db: &TestDb) -> i64 {
    db.scalar(
        "SELECT (SELECT COUNT(*) FROM orders WHERE subscription_purchase_id IS NOT NULL) + \
         (SELECT COUNT(*) FROM payments p JOIN orders o ON o.id = p.order_id \
          WHERE o.subscription_purchase_id IS NOT NULL AND p.status = 'approved')",
    )
    .await
}

/// Purchases still due today.
async fn still_due(db: &TestDb) -> i64 {
    db.scalar(&format!(
        "SELECT COUNT(*) FROM subscription_purchases WHERE due_on <= '{}'",
        today()
    ))
    .await
}

/// Waits (at most `UNDERWAY`) until renewals make progress beyond `from`; `false` when
/// nothing is due any more.
async fn underway(db: &TestDb, from: i64) -> bool {
    let deadline = Instant::now() + UNDERWAY;
    loop {
        if progress(db).await > from {
            return true;
        }
        if still_due(db).await == 0 {
            return false;
        }
        assert!(
            Instant::now() < deadline,
            "renewals made no progress within {UNDERWAY:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Renewal charges pending now (waiting for their gateway's answer).
async fn pending_charges(db: &TestDb) -> BTreeSet<i64> {
    db.rows::<(i64,)>(
        "SELECT p.id FROM payments p JOIN orders o ON o.id = p.order_id \
         WHERE o.subscription_purchase_id IS NOT NULL AND p.kind = 'charge' \
         AND p.status = 'pending'",
    )
    .await
    .into_iter()
    .map(|(id,)| id)
    .collect()
}

/// Waits (at most `UNDERWAY`) until a renewal charge waits for its gateway's answer.
async fn charging(db: &TestDb) {
    let deadline = Instant::now() + UNDERWAY;
    while pending_charges(db).await.is_empty() {
        assert!(
            Instant::now() < deadline,
            "no renewal charge in flight within {UNDERWAY:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Waits (at most `SETTLE`) until nothing is due and no renewal charge is pending.
async fn settled(db: &TestDb) {
    let deadline = Instant::now() + SETTLE;
    while still_due(db).await > 0 || !pending_charges(db).await.is_empty() {
        assert!(
            Instant::now() < deadline,
            "renewals did not catch up within {SETTLE:?}: {} purchases due",
            still_due(db).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The test gateway's reference of a charge made under `key`.
fn gateway_reference(key: &str) -> String {
    let digest = storage::secrets::sha256(key.as_bytes());
    let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("test_ch_{hex}")
}

/// Asserts exactly-once billing: one renewal order per (purchase, cycle) for exactly the
/// cycles that were due, each closed and paid by one approved charge of its total under
/// its own key (`payment-{id}`), the charges in `left_pending` among them; one renewed
/// event per cycle; each purchase after its last cycle with one payment per cycle.
async fn assert_billed_once(
    db: &TestDb,
    cycles: &BTreeMap<i64, Vec<CalendarDate>>,
    left_pending: &BTreeSet<i64>,
) {
    let ids = cycles
        .keys()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let orders: Vec<(i64, i64, String, String, i64, i64)> = db
        .rows(&format!(
            "SELECT id, subscription_purchase_id, renewal_on, status, total, paid_total \
             FROM orders WHERE subscription_purchase_id IN ({ids}) \
             ORDER BY subscription_purchase_id, renewal_on, id"
        ))
        .await;
    let fees: BTreeMap<i64, i64> = db
        .rows::<(i64, i64)>(&format!(
            "SELECT id, total_renewal_fee FROM subscription_purchases WHERE id IN ({ids})"
        ))
        .await
        .into_iter()
        .collect();
    let mut billed: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    let mut totals = BTreeMap::new();
    for (order, purchase, on, status, total, paid) in &orders {
        billed.entry(*purchase).or_default().push(on.clone());
        assert_eq!(
            status, "closed",
            "renewal order {order} of {purchase} on {on}"
        );
        assert_eq!(total, &fees[purchase], "renewal order {order}");
        assert_eq!(paid, total, "renewal order {order} is paid once, in full");
        totals.insert(*order, *total);
    }
    let expected: BTreeMap<i64, Vec<String>> = cycles
        .iter()
        .map(|(id, dates)| (*id, dates.iter().map(ToString::to_string).collect()))
        .collect();
    assert_eq!(billed, expected, "one renewal order per due cycle");

    let payments: Vec<(i64, i64, String, String, i64, Option<String>)> = db
        .rows(&format!(
            "SELECT p.id, p.order_id, p.kind, p.status, p.amount, p.reference \
             FROM payments p JOIN orders o ON o.id = p.order_id \
             WHERE o.subscription_purchase_id IN ({ids}) ORDER BY p.order_id, p.id"
        ))
        .await;
    let mut charges: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for (payment, order, kind, status, amount, reference) in &payments {
        charges.entry(*order).or_default().push(*payment);
        assert_eq!(
            (kind.as_str(), status.as_str()),
            ("charge", "approved"),
            "payment {payment} of order {order}"
        );
        assert_eq!(Some(amount), totals.get(order), "payment {payment}");
        assert_eq!(
            reference.as_deref(),
            Some(gateway_reference(&format!("payment-{payment}")).as_str()),
            "payment {payment} was charged under its own key"
        );
    }
    for order in totals.keys() {
        assert_eq!(
            charges.get(order).map(Vec::len),
            Some(1),
            "renewal order {order} has exactly one charge: {charges:?}"
        );
    }
    let charged: BTreeSet<i64> = charges.values().flatten().copied().collect();
    assert!(
        left_pending.is_subset(&charged),
        "every charge left pending was completed: {left_pending:?}"
    );

    let renewed: BTreeMap<i64, i64> = db
        .rows::<(i64, i64)>(&format!(
            "SELECT item_id, COUNT(*) FROM events WHERE topic = 'subscriptions.purchases.renewed' \
             AND item_id IN ({ids}) GROUP BY item_id"
        ))
        .await
        .into_iter()
        .collect();
    let today = today();
    let purchases: Vec<(i64, String, String, Option<String>, i64, i64)> = db
        .rows(&format!(
            "SELECT id, state, next_payment_on, last_payment_on, total_payments, failed_attempts \
             FROM subscription_purchases WHERE id IN ({ids}) ORDER BY id"
        ))
        .await;
    assert_eq!(purchases.len(), cycles.len());
    for (id, state, next, last, total_payments, failed) in purchases {
        let dates = &cycles[&id];
        let last_cycle = *dates.last().unwrap();
        let count = i64::try_from(dates.len()).unwrap();
        assert_eq!(state, "active", "purchase {id}");
        assert_eq!(next, last_cycle.plus_days(7).to_string(), "purchase {id}");
        assert!(
            CalendarDate::parse(&next).unwrap() > today,
            "purchase {id} is past today"
        );
        assert_eq!(last, Some(last_cycle.to_string()), "purchase {id}");
        assert_eq!(total_payments, 1 + count, "purchase {id}");
        assert_eq!(failed, 0, "purchase {id}");
        assert_eq!(
            renewed.get(&id).copied(),
            Some(count),
            "purchase {id}: one renewed event per cycle"
        );
    }
}

/// A database with the demo data, and a folder to start `commerce serve` nodes in.
struct Setup {
    db: TestDb,
    demo: Value,
    dir: tempfile::TempDir,
    client: Client,
}

impl Setup {
    async fn new(backend: Backend) -> Self {
        let db = TestDb::create(backend).await;
        let demo = seed_demo(&db).await;
        Self {
            db,
            demo,
            dir: tempfile::tempdir().unwrap(),
            client: Client::new(),
        }
    }

    /// A node whose singleton leases hold for `LEASE`.
    async fn node(&self) -> Node {
        let args = self.db.args(&[
            // One issuer for every node, so one token works on all of them.
            "--public-url",
            "http://commerce.test",
            "--rate-limit",
            "100000/60s",
            "--worker-lease",
            LEASE,
        ]);
        Node::start(&args, self.dir.path()).await
    }

    /// Opens the purchases through `node` and makes them due: their cycles.
    async fn due_purchases(&self, node: &Node) -> BTreeMap<i64, Vec<CalendarDate>> {
        let opened = open_purchases(&self.api(node).await, self.shop_id(), LATENCY_MS).await;
        backdate(&self.db, &opened.purchases).await
    }

    /// The node's API, as the demo owner.
    async fn api(&self, node: &Node) -> Api {
        Api {
            client: self.client.clone(),
            base: node.base.clone(),
            token: demo_owner_token(&self.client, &node.base, &self.demo).await,
        }
    }

    fn shop_id(&self) -> i64 {
        self.demo["shops"][0]["id"].as_i64().unwrap()
    }

    /// The renewal lease's holder, if it is held.
    async fn holder(&self) -> Option<String> {
        self.db
            .rows::<(String,)>(&format!(
                "SELECT holder FROM leases WHERE name = '{RENEWALS}'"
            ))
            .await
            .pop()
            .map(|(holder,)| holder)
    }

    /// The renewal lease's holder, once it is held (a node takes a free lease within a
    /// third of its length).
    async fn held(&self) -> String {
        let deadline = Instant::now() + UNDERWAY;
        loop {
            if let Some(holder) = self.holder().await {
                return holder;
            }
            assert!(Instant::now() < deadline, "no node took the renewal lease");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Whether a lease holder's name is the node's (`host:boot.namespace:pid:start:random`, or
/// `pidPID-random` off Linux).
fn holds(node: &Node, holder: &str) -> bool {
    let pid = node.child.id().expect("the node runs").to_string();
    holder.split(':').nth(2) == Some(pid.as_str()) || holder.starts_with(&format!("pid{pid}-"))
}

fn total_cycles(cycles: &BTreeMap<i64, Vec<CalendarDate>>) -> usize {
    cycles.values().map(Vec::len).sum()
}

async fn killed_nodes_bill_each_cycle_once(backend: Backend) {
    const KILLS: usize = 4;
    let started = Instant::now();
    let setup = Setup::new(backend).await;
    let mut node = setup.node().await;
    let cycles = setup.due_purchases(&node).await;

    // Each round waits until the node renews, lets it run a random while, kills it, notes
    // the charges it left pending, and starts another node, which takes the lease once
    // the killed one's runs out. The kills land anywhere (in a transaction, between them,
    // during a gateway call); the first waits for a charge in flight as well, so that one
    // is surely left pending.
    let mut kills = 0;
    let mut left_pending = BTreeSet::new();
    for round in 0..KILLS {
        if !underway(&setup.db, progress(&setup.db).await).await {
            break;
        }
        tokio::time::sleep(Duration::from_millis(random_between(50, 1500))).await;
        if round == 0 {
            charging(&setup.db).await;
        }
        node.kill().await;
        kills += 1;
        // No node runs: what is pending now, the killed node left.
        left_pending.extend(pending_charges(&setup.db).await);
        node = setup.node().await;
    }
    settled(&setup.db).await;
    assert_billed_once(&setup.db, &cycles, &left_pending).await;
    node.kill().await;
    println!(
        "{backend:?}: {} cycles of {} purchases billed once through {kills} kills, \
         {} charges left pending and completed; {:.1} s",
        total_cycles(&cycles),
        cycles.len(),
        left_pending.len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(kills, KILLS, "every kill caught renewals running");
    assert!(
        !left_pending.is_empty(),
        "some kill caught a charge waiting for the gateway"
    );
}

/// Watches renewal charges on PostgreSQL: the most seen pending at once. A pass charges
/// one purchase at a time, so more than one means more than one engine was charging.
struct PendingWatcher {
    most: Arc<AtomicI64>,
    task: tokio::task::JoinHandle<()>,
}

impl PendingWatcher {
    async fn start(url: &str) -> Self {
        let pool = sqlx::PgPool::connect(url)
            .await
            .expect("connect to PostgreSQL");
        let most = Arc::new(AtomicI64::new(0));
        let seen = most.clone();
        let task = tokio::spawn(async move {
            loop {
                let pending: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM payments p JOIN orders o ON o.id = p.order_id \
                     WHERE o.subscription_purchase_id IS NOT NULL AND p.status = 'pending'",
                )
                .fetch_one(&pool)
                .await
                .expect("the payments are readable");
                seen.fetch_max(pending, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        Self { most, task }
    }

    fn most(&self) -> i64 {
        self.most.load(Ordering::SeqCst)
    }
}

impl Drop for PendingWatcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn two_nodes_bill_each_cycle_once_as_the_lease_moves_and_one_is_killed(backend: Backend) {
    const MOVES: usize = 3;
    if backend == Backend::Sqlite {
        eprintln!("notice: nodes share a database on PostgreSQL only; nothing to test on SQLite");
        return;
    }
    let started = Instant::now();
    let setup = Setup::new(backend).await;
    let nodes = [setup.node().await, setup.node().await];
    let cycles = setup.due_purchases(&nodes[0]).await;
    let watcher = PendingWatcher::start(&setup.db.url).await;

    // The lease is made to run out while its holder is charging, as when a holder stalls
    // longer than its lease: the other node takes it and renews while the old holder's
    // pass goes on (a pass ends before its worker stops), so both engines bill the same
    // purchases at once.
    let mut holders = BTreeSet::new();
    let mut moves = 0;
    for _ in 0..MOVES {
        if !underway(&setup.db, progress(&setup.db).await).await {
            break;
        }
        let holder = setup.held().await;
        holders.insert(holder.clone());
        tokio::time::sleep(Duration::from_millis(random_between(50, 800))).await;
        setup
            .db
            .execute(&format!(
                "UPDATE leases SET expires_on = 0 WHERE name = '{RENEWALS}'"
            ))
            .await;
        let deadline = Instant::now() + UNDERWAY;
        loop {
            match setup.holder().await {
                Some(now) if now != holder => {
                    holders.insert(now);
                    moves += 1;
                    break;
                }
                _ => {
                    assert!(Instant::now() < deadline, "the lease never moved");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    }

    // The holder is killed while it renews; the other takes over when its lease runs out.
    assert!(
        underway(&setup.db, progress(&setup.db).await).await,
        "renewals still run when the holder is to be killed"
    );
    tokio::time::sleep(Duration::from_millis(random_between(50, 800))).await;
    let holder = setup.held().await;
    let [mut a, mut b] = nodes;
    let mut survivor = if holds(&a, &holder) {
        a.kill().await;
        b
    } else {
        b.kill().await;
        a
    };
    let left_pending = pending_charges(&setup.db).await;
    settled(&setup.db).await;
    assert_billed_once(&setup.db, &cycles, &left_pending).await;
    let deadline = Instant::now() + UNDERWAY;
    while !holds(&survivor, &setup.held().await) {
        assert!(
            Instant::now() < deadline,
            "the survivor never took the lease"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    survivor.kill().await;
    let at_once = watcher.most();
    drop(watcher);
    println!(
        "{backend:?}: two nodes billed {} cycles of {} purchases once; the lease moved {moves} \
         times between {} holders, up to {at_once} charges in flight at once, then the holder \
         was killed with {} charges pending; {:.1} s",
        total_cycles(&cycles),
        cycles.len(),
        holders.len(),
        left_pending.len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(moves, MOVES, "the lease moved while renewals ran");
    assert_eq!(holders.len(), 2, "both nodes held the lease: {holders:?}");
    assert!(
        at_once >= 2,
        "both nodes charged at once after the lease moved"
    );
}

/// The payments sweep gives up a charge whose gateway's answer was not recorded within
/// `CHARGE_TIMEOUT_SECS`; a renewal charge it must leave to the engine, which sends it
/// again under its key (giving it up and charging anew would charge a card twice when the
/// first call went through). A node is killed while a renewal charge and an order's own
/// charge wait for the gateway, and stays down longer than the timeout.
async fn a_charge_left_pending_over_a_long_stop_is_completed_under_its_key(backend: Backend) {
    let started = Instant::now();
    let setup = Setup::new(backend).await;
    let mut node = setup.node().await;
    let api = setup.api(&node).await;
    // Renewal charges slow enough that the one in flight is still there at the kill.
    let opened = open_purchases(&api, setup.shop_id(), 1000).await;
    // An order of a product sold outright, paid through a method slow enough that its
    // charge is surely in flight when the node is killed.
    let slow = api
        .expect(
            StatusCode::CREATED,
            Method::POST,
            &format!("/v2/shops/{}/payment_methods", setup.shop_id()),
            json!({"type": "test_gateway", "settings": {"latency_ms": 3000}}),
        )
        .await;
    let product = api
        .expect(
            StatusCode::CREATED,
            Method::POST,
            "/v2/products",
            json!({"title": "Mug", "status": "visible",
                   "variants": [{"price": 800, "stock": 10}]}),
        )
        .await;
    let order = api
        .expect(
            StatusCode::CREATED,
            Method::POST,
            &format!("/v2/shops/{}/orders", setup.shop_id()),
            json!({"lines": [{"variant_id": product["_embedded"]["variants"][0]["id"]}],
                   "email": "buyer@example.com", "payment_method_id": slow["id"]}),
        )
        .await;
    let (status, placed) = api
        .call(
            Method::PUT,
            &format!("/v2/orders/{}/place", order["id"]),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{placed}");
    let cycles = backdate(&setup.db, &opened.purchases).await;

    // Killed while both kinds of charge wait for the gateway, the order's started last.
    charging(&setup.db).await;
    let paying = {
        let request = api
            .client
            .post(format!("{}/v2/orders/{}/payments", node.base, order["id"]))
            .bearer_auth(&api.token)
            .json(&json!({"card": card(APPROVE)}));
        // Cut off by the kill: no answer comes.
        tokio::spawn(async move { request.send().await.ok() })
    };
    let own_charge = format!(
        "SELECT id FROM payments WHERE order_id = {} AND status = 'pending'",
        order["id"]
    );
    let deadline = Instant::now() + UNDERWAY;
    while setup.db.rows::<(i64,)>(&own_charge).await.is_empty() {
        assert!(
            Instant::now() < deadline,
            "the order's charge never started"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    node.kill().await;
    paying.abort();
    let left_pending = pending_charges(&setup.db).await;
    assert!(
        !left_pending.is_empty(),
        "a renewal charge was left pending"
    );
    let own = setup.db.scalar(&own_charge).await;
    // The sweep walks pending charges in id order: when it has given up the order's, it
    // has looked at those started before it (the engine may have started more since).
    assert!(
        left_pending.iter().any(|id| *id < own),
        "none of {left_pending:?} started before {own}"
    );

    // The node stays down past the timeout: the charges are made older by SQL (the nodes
    // run on the wall clock). The purchases are held back from the engine meanwhile (no
    // longer due), so that the sweep surely looks at the renewal charges first.
    let aged = storage_micros(services::orders::payments::CHARGE_TIMEOUT_SECS + 300);
    setup
        .db
        .execute(&format!(
            "UPDATE payments SET created_on = created_on - {aged} WHERE status = 'pending'; \
             UPDATE subscription_purchases SET due_on = '9999-12-31' WHERE state = 'active'"
        ))
        .await;
    node = setup.node().await;
    setup
        .api(&node)
        .await
        .expect(
            StatusCode::OK,
            Method::PUT,
            &format!(
                "/v2/shops/{}/payment_methods/{}",
                setup.shop_id(),
                opened.method
            ),
            json!({"settings": {"latency_ms": LATENCY_MS}}),
        )
        .await;
    let deadline = Instant::now() + UNDERWAY;
    let abandoned = format!(
        "SELECT COUNT(*) FROM payments WHERE id = {own} AND status = 'failed'          AND failure_code = 'abandoned'"
    );
    while setup.db.scalar(&abandoned).await == 0 {
        assert!(
            Instant::now() < deadline,
            "the sweep never gave up the order's charge"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        pending_charges(&setup.db).await,
        left_pending,
        "the sweep left the renewal charges to the engine"
    );

    // Due again: the engine sends each left charge again under its key and goes on.
    setup
        .db
        .execute(
            "UPDATE subscription_purchases SET due_on = next_payment_on WHERE state = 'active'",
        )
        .await;
    settled(&setup.db).await;
    assert_billed_once(&setup.db, &cycles, &left_pending).await;
    node.kill().await;
    println!(
        "{backend:?}: {} renewal charges left pending over a long stop completed under their \
         keys, the order's own charge given up; {:.1} s",
        left_pending.len(),
        started.elapsed().as_secs_f64()
    );
}

/// Seconds as the database stores times (microseconds).
fn storage_micros(secs: i64) -> i64 {
    secs * 1_000_000
}

async fn concurrent_passes_bill_each_cycle_once(backend: Backend) {
    const RACERS: usize = 4;
    /// Passes one racer may run: each bills a due purchase one cycle at most.
    const MOST_PASSES: usize = 20;
    let started = Instant::now();
    // An API node runs no workers: only the racers renew.
    let s = TestServer::start_with(backend, |c| {
        c.role = NodeRole::Api;
        c.db_max_connections = 8;
    })
    .await;
    let api = Api {
        client: s.client.clone(),
        base: s.url.clone(),
        token: s.owner_token().await,
    };
    let opened = open_purchases(&api, s.shop_id(), LATENCY_MS).await;
    let cycles = backdate(&s.db, &opened.purchases).await;

    // The racers renew over the server's own database, as its worker would: each runs
    // passes until it finds nothing due. They walk the same due purchases in the same
    // order, so most cycles are raced by all of them.
    let db = s.running().db.clone();
    let secret_box = s.db.secret_box(&db).await;
    let services = Services::new(db, s.clock.clone(), Arc::new(api::Presenter::new(&s.url)));
    let racing = Instant::now();
    let racers: Vec<_> = (0..RACERS)
        .map(|_| {
            let (services, secret_box) = (services.clone(), secret_box.clone());
            tokio::spawn(async move {
                let mut billed = 0;
                for _ in 0..MOST_PASSES {
                    let (renewed, _) = run_pass(&services, &secret_box, None)
                        .await
                        .expect("a pass runs");
                    if renewed.seen == 0 {
                        return billed;
                    }
                    billed += renewed.billed;
                }
                panic!("purchases still due after {MOST_PASSES} passes");
            })
        })
        .collect();
    let mut billed = Vec::new();
    for racer in racers {
        billed.push(racer.await.unwrap());
    }
    let raced = racing.elapsed();
    assert!(pending_charges(&s.db).await.is_empty());
    assert_eq!(still_due(&s.db).await, 0);
    assert_billed_once(&s.db, &cycles, &BTreeSet::new()).await;
    // A cycle counts as billed by the racer that recorded it: once in all.
    assert_eq!(billed.iter().sum::<usize>(), total_cycles(&cycles));
    println!(
        "{backend:?}: {RACERS} racers billed {} cycles of {} purchases once (by racer: \
         {billed:?}) in {:.1} s; {:.1} s in all",
        total_cycles(&cycles),
        cycles.len(),
        raced.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}
