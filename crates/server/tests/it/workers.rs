//! Roles and workers: an `api` node records events but sends nothing, a `worker` node over
//! the same database sends them; a singleton worker (housekeeping) runs on one worker node
//! at a time under a lease, which a stopped node releases at once and a killed node's
//! runs out before another takes it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::json;
use server::serve::{HOUSEKEEPING, WEBHOOK_DISPATCHER};
use server::{NodeRole, ServeConfig};

use crate::binary::{Node, seed_demo};
use crate::on_both_backends;
use crate::receiver::Receiver;
use crate::support::{Backend, TestDb, TestServer};

on_both_backends!(
    an_api_node_records_events_that_a_worker_node_delivers,
    a_singleton_runs_on_one_worker_node_and_passes_on_when_it_stops,
    a_killed_nodes_lease_runs_out_before_another_node_takes_it,
);

/// The test settings of a node of `role`: webhooks may reach loopback, the dispatcher
/// polls quickly, singleton leases are short.
fn configure(config: &mut ServeConfig, role: NodeRole) {
    config.role = role;
    config.webhook_allowed_networks = vec![("127.0.0.0".parse().unwrap(), 8)];
    config.webhook_poll = Duration::from_millis(50);
    config.worker_lease = Duration::from_secs(3);
}

/// Another node of `role` over `db`.
async fn node_on(db: &Arc<TestDb>, role: NodeRole) -> TestServer {
    let mut config = ServeConfig::defaults();
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.database_url = db.url.clone();
    config.db_max_connections = 4;
    configure(&mut config, role);
    TestServer::start_on(db.clone(), config).await
}

/// Polls `check` every 20 ms until it answers something, for 30 s at most.
async fn eventually<T, F, Fut>(what: &str, check: F) -> T
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Some(found) = check().await {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out waiting for {what}");
}

fn runs(node: &TestServer, task: &str) -> bool {
    node.running().active_tasks().contains(&task)
}

/// The housekeeping lease as the database holds it: holder, taken, expires (µs).
async fn lease(db: &TestDb) -> Option<(String, i64, i64)> {
    db.rows::<(String, i64, i64)>(&format!(
        "SELECT holder, acquired_on, expires_on FROM leases WHERE name = '{HOUSEKEEPING}'"
    ))
    .await
    .pop()
}

async fn an_api_node_records_events_that_a_worker_node_delivers(backend: Backend) {
    let api = TestServer::start_with(backend, |c| configure(c, NodeRole::Api)).await;
    let receiver = Receiver::start().await;
    assert!(!runs(&api, WEBHOOK_DISPATCHER) && !runs(&api, HOUSEKEEPING));
    let token = api.owner_token().await;
    let (status, webhook) = api
        .call(
            Method::POST,
            &format!("/v2/hub/{}/subscriptions", api.shop_id()),
            &token,
            Some(json!({"topic": "products", "url": receiver.url("/split")})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{webhook}");
    api.create_product(
        &token,
        json!({"title": "Before", "variants": [{"sku": "B-1", "price": 100}]}),
    )
    .await;
    assert_eq!(api.event_count("products.created").await, 1);
    // No node pinged the subscription or sent anything.
    let (_, pending) = api
        .get_json(&format!("/v2/webhooks/{}", webhook["id"]), &token)
        .await;
    assert_eq!(pending["status"], "pending", "{pending}");
    assert!(receiver.received().is_empty());

    let worker = node_on(&api.db, NodeRole::Worker).await;
    assert!(runs(&worker, WEBHOOK_DISPATCHER));
    eventually("the worker's handshake", || async {
        let (_, webhook) = api
            .get_json(&format!("/v2/webhooks/{}", webhook["id"]), &token)
            .await;
        (webhook["status"] == "active").then_some(())
    })
    .await;
    api.create_product(
        &token,
        json!({"title": "After", "variants": [{"sku": "A-1", "price": 100}]}),
    )
    .await;
    eventually(
        "the delivery of the product made on the api node",
        || async {
            receiver
                .deliveries()
                .iter()
                .any(|d| d.json().to_string().contains("After"))
                .then_some(())
        },
    )
    .await;
    // A worker node serves the operational endpoints only.
    let health = worker
        .client
        .get(worker.url("/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let (status, _) = worker.get_json("/v2", &token).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    worker.stop().await;
    api.stop().await;
}

async fn a_singleton_runs_on_one_worker_node_and_passes_on_when_it_stops(backend: Backend) {
    let first = TestServer::start_with(backend, |c| configure(c, NodeRole::Worker)).await;
    let second = node_on(&first.db, NodeRole::Worker).await;
    let nodes = [first, second];
    // Exactly one runs it, and keeps it across renewals while the other never does.
    let holder = eventually("a node running housekeeping", || async {
        let running: Vec<usize> = (0..2).filter(|&i| runs(&nodes[i], HOUSEKEEPING)).collect();
        assert!(running.len() < 2, "both nodes run housekeeping");
        running.first().copied()
    })
    .await;
    let (name, _, first_expiry) = lease(&nodes[0].db).await.expect("the lease is held");
    assert_eq!(name, nodes[holder].running().node);
    eventually("two renewals", || async {
        assert!(runs(&nodes[holder], HOUSEKEEPING) && !runs(&nodes[1 - holder], HOUSEKEEPING));
        let (_, _, expiry) = lease(&nodes[0].db).await.expect("the lease is held");
        (expiry > first_expiry + 1_500_000).then_some(())
    })
    .await;

    let [a, b] = nodes;
    let (stopping, other) = if holder == 0 { (a, b) } else { (b, a) };
    let db = stopping.db.clone();
    let (_, _, expiry_when_stopped) = lease(&db).await.expect("the lease is held");
    stopping.stop().await;
    // Released, not left to run out: the other node takes it before it would have.
    let (_, taken, _) = eventually("the other node's lease", || async {
        lease(&db)
            .await
            .filter(|(name, _, _)| *name == other.running().node)
    })
    .await;
    assert!(
        taken < expiry_when_stopped,
        "taken at {taken}, not before the lease would have run out at {expiry_when_stopped}"
    );
    eventually("housekeeping on the other node", || async {
        runs(&other, HOUSEKEEPING).then_some(())
    })
    .await;
    other.stop().await;
    assert_eq!(lease(&db).await, None, "a stopped node releases its lease");
}

async fn a_killed_nodes_lease_runs_out_before_another_node_takes_it(backend: Backend) {
    let db = TestDb::create(backend).await;
    // Seeding makes the SQLite key file the nodes share.
    seed_demo(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let args = db.args(&["--role", "worker", "--worker-lease", "2s"]);
    let mut nodes = [
        Node::start(&args, dir.path()).await,
        Node::start(&args, dir.path()).await,
    ];
    let pids = [nodes[0].child.id().unwrap(), nodes[1].child.id().unwrap()];
    // A node's name is `host:boot.namespace:pid:start:random` (`pidPID-random` off Linux).
    let names = |holder: &str, pid: u32| {
        holder.split(':').nth(2) == Some(pid.to_string().as_str())
            || holder.starts_with(&format!("pid{pid}-"))
    };
    let (holder, _, expiry) = eventually("a node holding the lease", || lease(&db)).await;
    let killed = pids.iter().position(|p| names(&holder, *p)).unwrap();
    nodes[killed].kill().await;
    let (_, _, expiry_at_death) = lease(&db).await.expect("a killed node's lease stays");
    assert!(expiry_at_death >= expiry);
    let (_, taken, _) = eventually("the surviving node's lease", || async {
        lease(&db)
            .await
            .filter(|(holder, _, _)| names(holder, pids[1 - killed]))
    })
    .await;
    assert!(
        taken >= expiry_at_death,
        "the lease was taken at {taken}, before it ran out at {expiry_at_death}"
    );
}
