//! Webhook delivery survives crashes: `commerce serve` runs as a child process and is
//! killed with SIGKILL at random moments while it takes changes and sends their webhooks
//! to a receiver on 127.0.0.1. Every committed event still arrives; nothing arrives for a
//! change that was rolled back or refused; a duplicate carries the `webhook-id` of the
//! original, and each one is an attempt the history shows as interrupted, made under a
//! claim a killed node held when it died (so there are at most as many duplicates as
//! those claims). Two nodes on one PostgreSQL send each delivery once, and one keeps
//! delivering when the other is killed. A node stopped with SIGTERM hands its work back:
//! what was sent is recorded, what waited is free for the next node at once.
//!
//! The design's tighter bound — duplicates within the per-subscription in-flight cap per
//! kill — is printed, not asserted: attempts that ended but were not yet recorded (the
//! dispatcher records them in batches) are cut short by a kill too, so a loaded machine
//! can exceed it.
//!
//! Every test is bounded in time: short leases (5 s), request timeouts (2 s) and polls.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

use crate::binary::{Node, demo_owner_token, seed_demo, sigterm};
use crate::on_both_backends;
use crate::receiver::{Received, Receiver, Reply};
use crate::support::{Backend, TestDb, json};

on_both_backends!(
    killed_nodes_lose_no_committed_event_and_send_nothing_uncommitted,
    two_nodes_send_each_delivery_once_and_survive_one_killed,
    a_stopped_node_hands_its_webhook_work_back,
    a_node_started_after_a_kill_takes_over_at_once_what_the_killed_one_held,
);

/// How long a claim holds: longer than an attempt can take (request and connect
/// timeouts, 2 s each).
const LEASE: &str = "5s";
const TIMEOUT: &str = "2s";
const POLL: &str = "100ms";
/// How long the receiver takes to answer, so that kills catch requests in flight.
const ANSWER_DELAY: Duration = Duration::from_millis(40);

/// Attempts one subscription has in flight on one node: the most one kill can cut short.
fn in_flight_cap() -> usize {
    delivery::DispatcherConfig::new(String::new(), delivery::ssrf::Guard::default()).per_webhook
}

/// A uniformly random number in `[low, high)`.
fn random_between(low: u64, high: u64) -> u64 {
    let bytes = oauth::secrets::random_bytes(8);
    low + u64::from_le_bytes(bytes.try_into().unwrap()) % (high - low)
}

/// A database with the demo data, a receiver answering 200 after `ANSWER_DELAY`, and a
/// folder to start `commerce serve` nodes on them in.
struct Setup {
    db: TestDb,
    demo: Value,
    receiver: Receiver,
    dir: tempfile::TempDir,
    client: Client,
}

impl Setup {
    async fn new(backend: Backend) -> Self {
        let db = TestDb::create(backend).await;
        let demo = seed_demo(&db).await;
        refuse_marked_deliveries(&db).await;
        let receiver = Receiver::start().await;
        receiver.answer_always(Reply::ok().delayed(ANSWER_DELAY));
        Self {
            db,
            demo,
            receiver,
            dir: tempfile::tempdir().unwrap(),
            client: Client::new(),
        }
    }

    async fn node(&self) -> Node {
        self.node_leasing(LEASE).await
    }

    /// A node whose claims hold for `lease`.
    async fn node_leasing(&self, lease: &str) -> Node {
        let args = self.db.args(&[
            // One issuer for every node, so one token works on all of them.
            "--public-url",
            "http://commerce.test",
            "--allow-private-webhook-targets",
            "--rate-limit",
            "100000/60s",
            "--webhook-lease",
            lease,
            "--webhook-timeout",
            TIMEOUT,
            "--webhook-poll",
            POLL,
        ]);
        Node::start(&args, self.dir.path()).await
    }

    /// A node (claims holding for `lease`) sending the deliveries of `products` new
    /// products to a receiver that answers slowly, once the first have arrived; the
    /// subscription's id.
    async fn busy_node(&self, lease: &str, products: usize) -> (Node, i64) {
        let node = self.node_leasing(lease).await;
        let token = demo_owner_token(&self.client, &node.base, &self.demo).await;
        let webhook = self.subscribe(&node, &token).await;
        self.receiver
            .answer_always(Reply::ok().delayed(Duration::from_millis(400)));
        create_products(self.client.clone(), node.base.clone(), token, 0, products).await;
        self.receiver
            .wait_until("the first deliveries", |r| {
                r.iter().filter(|x| !x.is_ping()).count() >= 2
            })
            .await;
        (node, webhook)
    }

    fn shop_id(&self) -> i64 {
        self.demo["shops"][0]["id"].as_i64().unwrap()
    }

    /// Subscribes the receiver to product events through `node`; waits until the
    /// handshake made the subscription active. Its id.
    async fn subscribe(&self, node: &Node, token: &str) -> i64 {
        let (status, created) = json(
            self.client
                .post(node.url(&format!("/v2/hub/{}/subscriptions", self.shop_id())))
                .bearer_auth(token)
                .json(&json!({"topic": "products", "url": self.receiver.url("/crash")}))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        let id = created["id"].as_i64().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let (_, webhook) = json(
                self.client
                    .get(node.url(&format!("/v2/webhooks/{id}")))
                    .bearer_auth(token)
                    .send()
                    .await
                    .unwrap(),
            )
            .await;
            match webhook["status"].as_str() {
                Some("active") => return id,
                Some("pending") if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(25)).await;
                }
                _ => panic!("the subscription did not become active: {webhook}"),
            }
        }
    }

    /// Waits (at most `limit`) until every delivery of the webhook succeeded and each
    /// reached the receiver; the deliveries, as (delivery id, event id).
    async fn settled(&self, webhook: i64, limit: Duration) -> Vec<(i64, i64)> {
        let deadline = Instant::now() + limit;
        loop {
            let deliveries: Vec<(i64, i64, String)> = self
                .db
                .rows(&format!(
                    "SELECT id, event_id, status FROM webhook_deliveries WHERE webhook_id = {webhook} ORDER BY id"
                ))
                .await;
            let arrived = self.receiver.deliveries();
            let received = by_delivery(&arrived);
            let done = deliveries
                .iter()
                .all(|(id, _, status)| status == "succeeded" && received.contains_key(id));
            if done {
                return deliveries.into_iter().map(|(d, e, _)| (d, e)).collect();
            }
            if Instant::now() > deadline {
                let waiting: Vec<_> = deliveries
                    .iter()
                    .filter(|(id, _, status)| status != "succeeded" || !received.contains_key(id))
                    .collect();
                panic!(
                    "deliveries did not settle within {limit:?}: {} waiting, e.g. {:?}",
                    waiting.len(),
                    waiting.iter().take(5).collect::<Vec<_>>()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Makes the database roll back any change whose webhook delivery is about a product
/// titled `rolled-back-…`: the trigger fails the transaction after the product, its event
/// and the delivery were written in it, so all three are undone.
async fn refuse_marked_deliveries(db: &TestDb) {
    db.execute(match db.backend {
        Backend::Sqlite => {
            "CREATE TRIGGER refuse_marked AFTER INSERT ON webhook_deliveries \
             WHEN (SELECT item FROM events WHERE id = NEW.event_id) LIKE '%rolled-back-%' \
             BEGIN SELECT RAISE(ABORT, 'refused'); END;"
        }
        Backend::Postgres => {
            "CREATE FUNCTION refuse_marked() RETURNS trigger AS $$ BEGIN \
             IF (SELECT item FROM events WHERE id = NEW.event_id) LIKE '%rolled-back-%' THEN \
             RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql; \
             CREATE TRIGGER refuse_marked AFTER INSERT ON webhook_deliveries \
             FOR EACH ROW EXECUTE FUNCTION refuse_marked();"
        }
    })
    .await;
}

/// What one product creation is meant to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Valid,
    /// Refused with 422: nothing is written.
    Invalid,
    /// Written, then rolled back with its event and delivery (500).
    RolledBack,
}

impl Kind {
    fn of(n: usize) -> Self {
        match n % 5 {
            3 => Kind::Invalid,
            4 => Kind::RolledBack,
            _ => Kind::Valid,
        }
    }

    fn body(self, n: usize) -> Value {
        match self {
            Kind::Valid => json!({"title": format!("crash-{n}"), "price": 100}),
            Kind::Invalid => json!({"title": format!("invalid-{n}"), "price": "ten"}),
            Kind::RolledBack => json!({"title": format!("rolled-back-{n}"), "price": 100}),
        }
    }

    fn expected(self) -> StatusCode {
        match self {
            Kind::Valid => StatusCode::CREATED,
            Kind::Invalid => StatusCode::UNPROCESSABLE_ENTITY,
            Kind::RolledBack => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// How product creations ended, from the client's side.
#[derive(Debug, Default)]
struct Tally {
    created: usize,
    invalid: usize,
    rolled_back: usize,
    /// Cut off by a kill: committed or not, only the database knows.
    unknown: usize,
}

/// Creates the products numbered `from..to` through the node at `base`, one after the
/// other, until one gets no answer (the node was killed). Where it stopped.
async fn produce(
    client: Client,
    base: String,
    token: String,
    from: usize,
    to: usize,
) -> (usize, Tally) {
    let mut tally = Tally::default();
    for n in from..to {
        let kind = Kind::of(n);
        let sent = client
            .post(format!("{base}/v2/products"))
            .bearer_auth(&token)
            .json(&kind.body(n))
            .send()
            .await;
        let Ok(response) = sent else {
            tally.unknown += 1;
            return (n + 1, tally);
        };
        let status = response.status();
        if response.bytes().await.is_err() {
            tally.unknown += 1;
            return (n + 1, tally);
        }
        assert_eq!(status, kind.expected(), "product {n} ({kind:?})");
        match kind {
            Kind::Valid => tally.created += 1,
            Kind::Invalid => tally.invalid += 1,
            Kind::RolledBack => tally.rolled_back += 1,
        }
    }
    (to, tally)
}

/// Received deliveries by their `X-Hook-Delivery`.
fn by_delivery(received: &[Received]) -> BTreeMap<i64, Vec<&Received>> {
    let mut map: BTreeMap<i64, Vec<&Received>> = BTreeMap::new();
    for r in received {
        let id = r
            .header("x-hook-delivery")
            .and_then(|v| v.parse().ok())
            .expect("every delivery names itself");
        map.entry(id).or_default().push(r);
    }
    map
}

/// Checks what the receiver got against the database: each of `deliveries` arrived at
/// least once, with its event's `webhook-id` and body, and nothing else arrived. The
/// deliveries that arrived more than once, with their number of extra copies.
async fn check_received(
    db: &TestDb,
    received: &[Received],
    deliveries: &[(i64, i64)],
) -> BTreeMap<i64, usize> {
    // What each committed event is about, as the database holds it.
    let title_of: BTreeMap<i64, String> = db
        .rows::<(i64, String)>("SELECT id, item FROM events")
        .await
        .into_iter()
        .map(|(id, item)| {
            let item: Value = serde_json::from_str(&item).unwrap();
            (id, item["title"].as_str().unwrap_or_default().to_owned())
        })
        .collect();
    let event_of: BTreeMap<i64, i64> = deliveries.iter().copied().collect();
    let arrived = by_delivery(received);
    for (delivery, event) in deliveries {
        assert!(
            arrived.contains_key(delivery),
            "delivery {delivery} (event {event}) never arrived"
        );
    }
    let mut duplicates = BTreeMap::new();
    for (delivery, copies) in &arrived {
        let event = event_of
            .get(delivery)
            .unwrap_or_else(|| panic!("delivery {delivery} arrived but was never committed"));
        for copy in copies {
            assert_eq!(
                copy.header("webhook-id"),
                Some(format!("evt_{event}").as_str()),
                "every copy of delivery {delivery} carries its event's webhook-id"
            );
            let body = copy.json();
            assert_eq!(body["sequence"], *event);
            let title = body["_embedded"]["item"]["title"].as_str().unwrap();
            assert!(
                title_of
                    .get(event)
                    .is_some_and(|committed| committed == title)
                    && !title.starts_with("rolled-back-")
                    && !title.starts_with("invalid-"),
                "{title} was delivered but never committed"
            );
        }
        if copies.len() > 1 {
            duplicates.insert(*delivery, copies.len() - 1);
        }
    }
    duplicates
}

/// The deliveries claimed (leased) right now, with the node that holds each: read just
/// after a kill, those of the killed node are the only ones it may have sent unrecorded.
async fn claims(db: &TestDb, webhook: i64) -> BTreeSet<(i64, String)> {
    db.rows::<(i64, String)>(&format!(
        "SELECT id, lease_owner FROM webhook_deliveries WHERE webhook_id = {webhook} AND lease_owner IS NOT NULL"
    ))
    .await
    .into_iter()
    .collect()
}

/// Checks the duplicates against the history and the claims held at the kills: each
/// extra copy of a delivery is an attempt recorded as interrupted, made under a claim a
/// killed node held when it died. The number of duplicates and of interrupted attempts.
async fn check_duplicates(
    db: &TestDb,
    webhook: i64,
    duplicates: &BTreeMap<i64, usize>,
    claimed_at_kills: &BTreeSet<(i64, String)>,
) -> (usize, usize) {
    let interrupted: BTreeMap<i64, i64> = db
        .rows::<(i64, i64)>(&format!(
            "SELECT a.delivery_id, COUNT(*) FROM webhook_attempts a \
             JOIN webhook_deliveries d ON d.id = a.delivery_id \
             WHERE d.webhook_id = {webhook} AND a.error_class = 'interrupted' GROUP BY a.delivery_id"
        ))
        .await
        .into_iter()
        .collect();
    let claimed: BTreeSet<i64> = claimed_at_kills.iter().map(|(id, _)| *id).collect();
    for (delivery, extra) in duplicates {
        let cut_short = interrupted.get(delivery).copied().unwrap_or(0);
        assert!(
            cut_short >= i64::try_from(*extra).unwrap(),
            "delivery {delivery} arrived {extra} extra times but the history shows {cut_short} interrupted attempts"
        );
        assert!(
            claimed.contains(delivery),
            "delivery {delivery} arrived twice but no killed node held it"
        );
    }
    let total: usize = duplicates.values().sum();
    assert!(
        total <= claimed_at_kills.len(),
        "{total} duplicates, more than the {} claims the killed nodes held",
        claimed_at_kills.len()
    );
    let interrupted = interrupted.values().sum::<i64>();
    (total, usize::try_from(interrupted).unwrap())
}

async fn killed_nodes_lose_no_committed_event_and_send_nothing_uncommitted(backend: Backend) {
    const PRODUCTS: usize = 60;
    const KILLS: usize = 4;
    let started = Instant::now();
    let setup = Setup::new(backend).await;
    let mut node = setup.node().await;
    let token = demo_owner_token(&setup.client, &node.base, &setup.demo).await;
    let webhook = setup.subscribe(&node, &token).await;

    // Produce in rounds; each of the first KILLS rounds ends with a SIGKILL at a random
    // moment (while products are being created and their webhooks sent), and a restart on
    // the same database. The last round produces what is left.
    let mut next = 0;
    let mut tally = Tally::default();
    let mut kills = 0;
    let mut claimed_at_kills = BTreeSet::new();
    for round in 0..=KILLS {
        let producing = tokio::spawn(produce(
            setup.client.clone(),
            node.base.clone(),
            token.clone(),
            next,
            PRODUCTS,
        ));
        if round < KILLS {
            tokio::time::sleep(Duration::from_millis(random_between(30, 400))).await;
            node.kill().await;
            kills += 1;
            // No node runs now: every claim left is one a killed node held.
            claimed_at_kills.extend(claims(&setup.db, webhook).await);
        }
        let (stopped, done) = producing.await.unwrap();
        next = stopped;
        tally.created += done.created;
        tally.invalid += done.invalid;
        tally.rolled_back += done.rolled_back;
        tally.unknown += done.unknown;
        if round < KILLS {
            node = setup.node().await;
        }
    }
    assert_eq!(next, PRODUCTS, "the last round produces the rest");

    // Every committed product event has its delivery (the outbox), and nothing of the
    // refused or rolled-back changes was committed.
    assert_eq!(
        setup
            .db
            .scalar(&format!(
                "SELECT COUNT(*) FROM events e WHERE e.topic LIKE 'products%' AND NOT EXISTS \
                 (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.webhook_id = {webhook})"
            ))
            .await,
        0
    );
    assert_eq!(
        setup
            .db
            .scalar(
                "SELECT COUNT(*) FROM products WHERE title LIKE 'rolled-back-%' OR title LIKE 'invalid-%'"
            )
            .await,
        0
    );
    assert_eq!(
        setup
            .db
            .scalar("SELECT COUNT(*) FROM events WHERE item LIKE '%rolled-back-%'")
            .await,
        0
    );
    let deliveries = setup.settled(webhook, Duration::from_secs(20)).await;
    let committed = setup
        .db
        .scalar("SELECT COUNT(*) FROM products WHERE title LIKE 'crash-%'")
        .await;
    assert!(
        usize::try_from(committed).unwrap() >= tally.created
            && usize::try_from(committed).unwrap() <= tally.created + tally.unknown,
        "{committed} committed; {tally:?}"
    );
    assert_eq!(
        i64::try_from(deliveries.len()).unwrap(),
        setup
            .db
            .scalar("SELECT COUNT(*) FROM events WHERE topic LIKE 'products%'")
            .await,
        "one delivery per committed product event"
    );

    let received = setup.receiver.deliveries();
    let duplicated = check_received(&setup.db, &received, &deliveries).await;
    let (duplicates, interrupted) =
        check_duplicates(&setup.db, webhook, &duplicated, &claimed_at_kills).await;
    node.kill().await;
    let cap = kills * in_flight_cap();
    println!(
        "{backend:?}: {kills} kills; {} deliveries of committed events, {} requests received, \
         {duplicates} duplicates (in-flight cap {cap}; {} claims held at the kills), \
         {interrupted} attempts recorded as interrupted; client side {tally:?}; {:.1} s",
        deliveries.len(),
        received.len(),
        claimed_at_kills.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        duplicates <= cap,
        "{duplicates} duplicates after {kills} kills exceed the in-flight cap ({cap})"
    );
}

/// Creates products `node-{from}` … `node-{to - 1}` through the node at `base`, one after
/// the other; how many were created.
async fn create_products(
    client: Client,
    base: String,
    token: String,
    from: usize,
    to: usize,
) -> usize {
    for n in from..to {
        let (status, body) = json(
            client
                .post(format!("{base}/v2/products"))
                .bearer_auth(&token)
                .json(&json!({"title": format!("node-{n}"), "price": 100}))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    to - from
}

/// Watches a subscription's claims on PostgreSQL: the most distinct nodes seen holding
/// claims at once.
struct ClaimWatcher {
    owners: Arc<AtomicI64>,
    task: tokio::task::JoinHandle<()>,
}

impl ClaimWatcher {
    async fn start(url: &str, webhook: i64) -> Self {
        let pool = sqlx::PgPool::connect(url)
            .await
            .expect("connect to PostgreSQL");
        let owners = Arc::new(AtomicI64::new(0));
        let most = owners.clone();
        let task = tokio::spawn(async move {
            loop {
                let nodes: i64 = sqlx::query_scalar(
                    "SELECT COUNT(DISTINCT lease_owner) FROM webhook_deliveries \
                     WHERE webhook_id = $1 AND lease_owner IS NOT NULL",
                )
                .bind(webhook)
                .fetch_one(&pool)
                .await
                .expect("the claims are readable");
                most.fetch_max(nodes, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        Self { owners, task }
    }

    fn most_owners(&self) -> i64 {
        self.owners.load(Ordering::SeqCst)
    }

    fn reset(&self) {
        self.owners.store(0, Ordering::SeqCst);
    }
}

impl Drop for ClaimWatcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn two_nodes_send_each_delivery_once_and_survive_one_killed(backend: Backend) {
    const EVENTS: usize = 80;
    if backend == Backend::Sqlite {
        eprintln!("notice: nodes share a database on PostgreSQL only; nothing to test on SQLite");
        return;
    }
    let started = Instant::now();
    let setup = Setup::new(backend).await;
    let nodes = [setup.node().await, setup.node().await];
    let token = demo_owner_token(&setup.client, &nodes[0].base, &setup.demo).await;
    let webhook = setup.subscribe(&nodes[0], &token).await;
    let watcher = ClaimWatcher::start(&setup.db.url, webhook).await;

    // Both nodes take changes and share the deliveries: each is sent exactly once.
    let producing: Vec<_> = nodes
        .iter()
        .zip([(0, EVENTS / 2), (EVENTS / 2, EVENTS)])
        .map(|(node, (from, to))| {
            tokio::spawn(create_products(
                setup.client.clone(),
                node.base.clone(),
                token.clone(),
                from,
                to,
            ))
        })
        .collect();
    for producer in producing {
        producer.await.unwrap();
    }
    let deliveries = setup.settled(webhook, Duration::from_secs(20)).await;
    assert_eq!(deliveries.len(), EVENTS);
    let received = setup.receiver.deliveries();
    assert_eq!(
        check_received(&setup.db, &received, &deliveries).await,
        BTreeMap::new(),
        "no delivery is sent twice"
    );
    assert_eq!(received.len(), EVENTS);
    assert_eq!(
        setup
            .db
            .scalar(&format!(
                "SELECT COUNT(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id \
                 WHERE d.webhook_id = {webhook}"
            ))
            .await,
        i64::try_from(EVENTS).unwrap(),
        "one attempt per delivery"
    );
    let shared = watcher.most_owners();

    // More changes, answered more slowly; once both nodes hold claims, one of them is
    // killed. The other takes its deliveries over when their leases end.
    setup
        .receiver
        .answer_always(Reply::ok().delayed(Duration::from_millis(100)));
    watcher.reset();
    let [a, b] = nodes;
    let (mut victim, mut survivor) = if random_between(0, 2) == 0 {
        (a, b)
    } else {
        (b, a)
    };
    let producing = tokio::spawn(create_products(
        setup.client.clone(),
        survivor.base.clone(),
        token.clone(),
        EVENTS,
        2 * EVENTS,
    ));
    let deadline = Instant::now() + Duration::from_secs(15);
    while watcher.most_owners() < 2 {
        assert!(
            Instant::now() < deadline,
            "the two nodes never held claims at once"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    victim.kill().await;
    let killed_at = Instant::now();
    // The survivor's claims are among these too: an upper bound of the victim's.
    let claimed_at_kill = claims(&setup.db, webhook).await;
    assert_eq!(producing.await.unwrap(), EVENTS);
    let deliveries = setup.settled(webhook, Duration::from_secs(20)).await;
    let settled_after = killed_at.elapsed();
    assert_eq!(deliveries.len(), 2 * EVENTS);
    let received = setup.receiver.deliveries();
    let duplicated = check_received(&setup.db, &received, &deliveries).await;
    let (duplicates, interrupted) =
        check_duplicates(&setup.db, webhook, &duplicated, &claimed_at_kill).await;
    drop(watcher);
    survivor.kill().await;
    println!(
        "{backend:?}: two nodes sent {EVENTS} deliveries once each (claims held by {shared} nodes at once); \
         then {EVENTS} more, one node killed while {} deliveries were claimed: {} requests for {} \
         deliveries, {duplicates} duplicates (in-flight cap {}), {interrupted} interrupted attempts, \
         settled {:.1} s after the kill; {:.1} s in all",
        claimed_at_kill.len(),
        received.len(),
        deliveries.len(),
        in_flight_cap(),
        settled_after.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        duplicates <= in_flight_cap(),
        "{duplicates} duplicates after one kill exceed the in-flight cap ({})",
        in_flight_cap()
    );
}

async fn a_stopped_node_hands_its_webhook_work_back(backend: Backend) {
    const PRODUCTS: usize = 24;
    let setup = Setup::new(backend).await;
    // When the node is stopped, some attempts are in flight and more deliveries wait in
    // its lane.
    let (mut node, webhook) = setup.busy_node(LEASE, PRODUCTS).await;
    let claimed = claims(&setup.db, webhook).await;
    assert!(
        claimed.len() > in_flight_cap(),
        "the node holds more than it sends at once: {claimed:?}"
    );
    sigterm(&node.child).await;
    let stopped = tokio::time::timeout(Duration::from_secs(10), node.child.wait())
        .await
        .expect("a stopped node exits within the request timeout")
        .unwrap();
    assert!(stopped.success(), "{stopped}");

    // Nothing is left claimed, and every request that left was recorded as answered.
    assert_eq!(claims(&setup.db, webhook).await, BTreeSet::new());
    let sent = setup
        .receiver
        .deliveries()
        .iter()
        .filter(|r| !r.is_ping())
        .count();
    let recorded: Vec<(i64, Option<i64>, Option<String>)> = setup
        .db
        .rows(&format!(
            "SELECT a.delivery_id, a.status_code, a.error_class FROM webhook_attempts a \
             JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = {webhook}"
        ))
        .await;
    assert_eq!(recorded.len(), sent, "{recorded:?}");
    assert!(
        recorded
            .iter()
            .all(|(_, code, class)| *code == Some(200) && class.is_none()),
        "{recorded:?}"
    );

    // The next node sends the rest, each exactly once.
    setup.receiver.answer_always(Reply::ok());
    node = setup.node().await;
    let deliveries = setup.settled(webhook, Duration::from_secs(30)).await;
    assert_eq!(deliveries.len(), PRODUCTS);
    let duplicates = check_received(&setup.db, &setup.receiver.deliveries(), &deliveries).await;
    assert!(duplicates.is_empty(), "{duplicates:?}");
    let interrupted = setup
        .db
        .scalar("SELECT COUNT(*) FROM webhook_attempts WHERE error_class = 'interrupted'")
        .await;
    assert_eq!(interrupted, 0);
    node.kill().await;
}

/// A node started on the host where one was killed takes over at once what the killed
/// one held: with claims that would hold for an hour, every delivery still arrives within
/// the test's bounds, and those the killed node held are noted as interrupted.
async fn a_node_started_after_a_kill_takes_over_at_once_what_the_killed_one_held(backend: Backend) {
    const PRODUCTS: usize = 24;
    const HOUR: &str = "1h";
    let setup = Setup::new(backend).await;
    // When the node is killed, it holds claims it has not recorded.
    let (mut node, webhook) = setup.busy_node(HOUR, PRODUCTS).await;
    node.kill().await;
    let held = claims(&setup.db, webhook).await;
    assert!(!held.is_empty(), "the killed node held claims");

    setup.receiver.answer_always(Reply::ok());
    node = setup.node_leasing(HOUR).await;
    let deliveries = setup.settled(webhook, Duration::from_secs(60)).await;
    assert_eq!(deliveries.len(), PRODUCTS);
    let interrupted: Vec<(i64,)> = setup
        .db
        .rows("SELECT delivery_id FROM webhook_attempts WHERE error_class = 'interrupted'")
        .await;
    let held_ids: BTreeSet<i64> = held.iter().map(|(id, _)| *id).collect();
    assert!(
        !interrupted.is_empty() && interrupted.iter().all(|(id,)| held_ids.contains(id)),
        "only what the killed node held is noted as interrupted: {interrupted:?}, held {held_ids:?}"
    );
    let duplicates = check_received(&setup.db, &setup.receiver.deliveries(), &deliveries).await;
    assert!(
        duplicates.keys().all(|id| held_ids.contains(id)),
        "only what the killed node held may have come twice: {duplicates:?}"
    );
    node.kill().await;
}
