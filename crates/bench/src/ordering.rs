//! Ordered webhook delivery measured against unordered. A backlog of events about one
//! product, committed while no server runs, is drained by a fresh server through one
//! subscription at a time: one that does not order deliveries, then one that orders them
//! per resource; then the ordered drain again, with the server killed (SIGKILL) a third
//! of the way through and started again at once. The receiver checks that the ordered
//! deliveries arrive in order.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use reqwest::Client;
use serde_json::Value;

use crate::process::{Build, DemoData};
use crate::webhooks::{Api, listen, pong};

/// Events in each backlog, all about one product.
pub const EVENTS: usize = 1_000;
/// The product they are about.
const PRODUCT: i64 = 1;
const WAIT_LIMIT: Duration = Duration::from_secs(600);

/// What the ordering measurements found.
pub struct OrderingRun {
    pub unordered: Duration,
    pub ordered: Duration,
    /// The ordered drain with a kill and a restart in it, restart included.
    pub ordered_killed: Duration,
    /// The ordered deliveries (first arrivals) came in the order of their events.
    pub in_order: bool,
    /// Deliveries that came again after the kill.
    pub duplicates: usize,
}

impl OrderingRun {
    pub fn per_second(drain: Duration) -> f64 {
        EVENTS as f64 / drain.as_secs_f64().max(0.001)
    }
}

/// What one receiving path saw.
#[derive(Default)]
struct Path {
    ids: HashSet<String>,
    /// Event sequence numbers, in order of first arrival.
    sequences: Vec<i64>,
    duplicates: usize,
}

impl Path {
    fn in_order(&self) -> bool {
        self.sequences.windows(2).all(|w| w[0] < w[1])
    }
}

type Seen = Arc<Mutex<HashMap<String, Path>>>;

pub async fn run(build: &Build, database_url: &str, demo: &DemoData) -> Result<OrderingRun> {
    let seen: Seen = Arc::default();
    let receiver = listen(Router::new().fallback(receive).with_state(seen.clone())).await?;
    let client = Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .context("build the HTTP client")?;
    let drain = |ordering: &'static str, path: &'static str, kill_after: Option<usize>| {
        let drained = Drain {
            build,
            database_url,
            demo,
            client: &client,
            receiver: &receiver,
            seen: &seen,
        };
        async move { drained.run(ordering, path, kill_after).await }
    };
    let unordered = drain("none", "/unordered", None).await?;
    let ordered = drain("per_resource", "/ordered", None).await?;
    let ordered_killed = drain("per_resource", "/killed", Some(EVENTS / 3)).await?;
    let seen = seen.lock().expect("never poisoned");
    let path = |name: &str| seen.get(name).context("no deliveries arrived");
    Ok(OrderingRun {
        unordered,
        ordered,
        ordered_killed,
        in_order: path("/ordered")?.in_order() && path("/killed")?.in_order(),
        duplicates: path("/killed")?.duplicates,
    })
}

/// One drain: a subscription, its backlog, and the time a fresh server takes to send it.
struct Drain<'a> {
    build: &'a Build,
    database_url: &'a str,
    demo: &'a DemoData,
    client: &'a Client,
    receiver: &'a str,
    seen: &'a Seen,
}

impl Drain<'_> {
    async fn run(&self, ordering: &str, path: &str, kill_after: Option<usize>) -> Result<Duration> {
        const FLAGS: &[&str] = &["--allow-private-webhook-targets"];
        let server = self.build.start_with(self.database_url, FLAGS).await?;
        let webhook = {
            let api = Api::new(self.client, &server.url, self.demo).await?;
            let id = api
                .subscribe_ordered(&format!("{}{path}", self.receiver), ordering)
                .await?;
            api.await_active(id).await?;
            id
        };
        server.stop().await?;
        crate::backlog::load_about(self.database_url, EVENTS, |_| PRODUCT).await?;
        let mut server = self.build.start_with(self.database_url, FLAGS).await?;
        let started = Instant::now();
        if let Some(count) = kill_after {
            self.wait_for(path, count).await?;
            server.kill().await?;
            server = self.build.start_with(self.database_url, FLAGS).await?;
        }
        self.wait_for(path, EVENTS).await?;
        let drained = started.elapsed();
        Api::new(self.client, &server.url, self.demo)
            .await?
            .delete_webhook(webhook)
            .await?;
        server.stop().await?;
        Ok(drained)
    }

    async fn wait_for(&self, path: &str, count: usize) -> Result<()> {
        let started = Instant::now();
        loop {
            let arrived = self
                .seen
                .lock()
                .expect("never poisoned")
                .get(path)
                .map_or(0, |p| p.ids.len());
            if arrived >= count {
                return Ok(());
            }
            if started.elapsed() > WAIT_LIMIT {
                bail!(
                    "only {arrived} of {count} deliveries to {path} arrived within {}s",
                    WAIT_LIMIT.as_secs()
                );
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
}

async fn receive(State(seen): State<Seen>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(pong) = pong(&headers) {
        return pong;
    }
    let id = headers
        .get("webhook-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let sequence = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|body| body["sequence"].as_i64())
        .unwrap_or(-1);
    let mut seen = seen.lock().expect("never poisoned");
    let path = seen.entry(uri.path().to_owned()).or_default();
    if path.ids.insert(id) {
        path.sequences.push(sequence);
    } else {
        path.duplicates += 1;
    }
    StatusCode::OK.into_response()
}
