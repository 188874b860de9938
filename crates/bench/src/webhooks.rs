//! Webhook delivery measured end to end with a receiver in this process that answers 200
//! at once: how many deliveries per second the dispatcher sends when a backlog waits,
//! and, at half that rate, the latency from a write request to the delivery's arrival.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use hdrhistogram::Histogram;
use reqwest::Client;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::args::Args;
use crate::process::{Build, DemoData};

/// Subscriptions that hear of every event: each event makes this many deliveries.
const SUBSCRIPTIONS: usize = 8;
/// Events loaded while the server is down, to be delivered when it starts.
const BACKLOG_EVENTS: usize = 2_500;
const WAIT_LIMIT: Duration = Duration::from_secs(300);

/// What the webhook measurements found.
pub struct WebhookRun {
    /// Deliveries per event.
    pub subscriptions: usize,
    pub deliveries: u64,
    pub drain: Duration,
    pub rate_events: f64,
    pub latency_us: Histogram<u64>,
    pub latency_events: u64,
}

impl WebhookRun {
    pub fn deliveries_per_second(&self) -> f64 {
        self.deliveries as f64 / self.drain.as_secs_f64().max(0.001)
    }
}

/// What the receiver saw.
#[derive(Default)]
struct Seen {
    deliveries: AtomicU64,
    /// Arrival of each latency-phase event, by the stock level it carried.
    arrivals: Mutex<Vec<(i64, Instant)>>,
}

/// Measures delivery on a fresh server started on `database_url` (seeded with `demo`).
pub async fn run(
    build: &Build,
    database_url: &str,
    demo: &DemoData,
    args: &Args,
) -> Result<WebhookRun> {
    let seen = Arc::new(Seen::default());
    let receiver = receiver(seen.clone()).await?;
    let client = Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .context("build the HTTP client")?;

    // Subscribe, and make a product whose stock changes are the events.
    let server = build
        .start_with(database_url, &["--allow-private-webhook-targets"])
        .await?;
    let api = Api::new(&client, &server.url, demo).await?;
    let (product, variant) = api.product().await?;
    let mut webhooks = Vec::with_capacity(SUBSCRIPTIONS);
    for n in 0..SUBSCRIPTIONS {
        webhooks.push(api.subscribe(&format!("{receiver}/hook/{n}")).await?);
    }
    for id in &webhooks {
        api.await_active(*id).await?;
    }
    server.stop().await?;

    // A backlog committed while no dispatcher runs, then drained by a fresh server.
    crate::backlog::load(database_url, BACKLOG_EVENTS).await?;
    let expected = (BACKLOG_EVENTS * SUBSCRIPTIONS) as u64;
    seen.deliveries.store(0, Ordering::SeqCst);
    let server = build
        .start_with(database_url, &["--allow-private-webhook-targets"])
        .await?;
    let started = Instant::now();
    wait_for(&seen, expected).await?;
    let drain = started.elapsed();
    let per_second = expected as f64 / drain.as_secs_f64().max(0.001);

    // At half that rate, the time from each write to its deliveries' arrival.
    let rate_events = (per_second / 2.0 / SUBSCRIPTIONS as f64).max(1.0);
    let api = Api::new(&client, &server.url, demo).await?;
    let mut sent = Vec::new();
    let interval = Duration::from_secs_f64(1.0 / rate_events);
    let phase = args.duration();
    let phase_started = Instant::now();
    let mut next = Instant::now();
    let base_stock = api.stock(product, variant).await?;
    let mut level = base_stock;
    while phase_started.elapsed() < phase {
        tokio::time::sleep_until(next.into()).await;
        next += interval;
        let at = Instant::now();
        level = api.adjust(product, variant).await?;
        sent.push((level, at));
    }
    let total = expected + (sent.len() * SUBSCRIPTIONS) as u64;
    wait_for(&seen, total).await?;
    let mut latency_us = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
    let arrivals = seen
        .arrivals
        .lock()
        .expect("the arrivals are never poisoned")
        .clone();
    for (stock, arrived) in arrivals {
        if let Some((_, at)) = sent.iter().find(|(level, _)| *level == stock) {
            let micros = arrived.saturating_duration_since(*at).as_micros();
            latency_us.record(u64::try_from(micros).unwrap_or(u64::MAX).max(1))?;
        }
    }
    ensure!(level > base_stock, "no latency events were sent");
    for id in webhooks {
        api.delete_webhook(id).await?;
    }
    server.stop().await?;
    Ok(WebhookRun {
        subscriptions: SUBSCRIPTIONS,
        deliveries: expected,
        drain,
        rate_events,
        latency_us,
        latency_events: sent.len() as u64,
    })
}

async fn wait_for(seen: &Seen, count: u64) -> Result<()> {
    let started = Instant::now();
    while seen.deliveries.load(Ordering::SeqCst) < count {
        if started.elapsed() > WAIT_LIMIT {
            bail!(
                "only {} of {count} deliveries arrived within {}s",
                seen.deliveries.load(Ordering::SeqCst),
                WAIT_LIMIT.as_secs()
            );
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    Ok(())
}

/// A receiver on loopback: answers 200 at once (echoing verification pings) and notes
/// each delivery.
async fn receiver(seen: Arc<Seen>) -> Result<String> {
    listen(Router::new().fallback(receive).with_state(seen)).await
}

/// Serves `app` on a loopback port of its own; its base URL.
pub(crate) async fn listen(app: Router) -> Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(url)
}

/// The answer to a verification ping, if the request is one.
pub(crate) fn pong(headers: &HeaderMap) -> Option<Response> {
    let ping = headers.get("x-hook-ping")?;
    let mut response = StatusCode::OK.into_response();
    response.headers_mut().insert("x-hook-pong", ping.clone());
    Some(response)
}

async fn receive(State(seen): State<Arc<Seen>>, headers: HeaderMap, body: Bytes) -> Response {
    let arrived = Instant::now();
    if let Some(pong) = pong(&headers) {
        return pong;
    }
    let response = StatusCode::OK.into_response();
    seen.deliveries.fetch_add(1, Ordering::SeqCst);
    if headers.get("x-hook-topic")
        == Some(&HeaderValue::from_static(
            "products.updated.variants.updated",
        ))
        && let Ok(body) = serde_json::from_slice::<Value>(&body)
        && let Some(stock) = body["_embedded"]["item"]["stock"].as_i64()
    {
        seen.arrivals
            .lock()
            .expect("the arrivals are never poisoned")
            .push((stock, arrived));
    }
    response
}

/// The API calls the measurement makes.
pub(crate) struct Api<'a> {
    client: &'a Client,
    base: &'a str,
    token: String,
    shop_id: i64,
}

impl<'a> Api<'a> {
    pub(crate) async fn new(client: &'a Client, base: &'a str, demo: &DemoData) -> Result<Self> {
        Ok(Self {
            token: crate::scenarios::token(client, base, demo).await?,
            client,
            base,
            shop_id: demo.shops.first().context("the demo has no shop")?.id,
        })
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value> {
        let mut request = self
            .client
            .request(method.clone(), format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request
            .send()
            .await
            .with_context(|| format!("{method} {path}"))?;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        ensure!(
            status.is_success(),
            "{method} {path} answered {status}: {body}"
        );
        Ok(body)
    }

    async fn product(&self) -> Result<(i64, i64)> {
        let product = self
            .send(
                reqwest::Method::POST,
                "/v2/products",
                Some(json!({"title": "Hooked", "variants": [{"price": 100, "stock": 0, "available_if_no_stock": true}]})),
            )
            .await?;
        let id = product["id"].as_i64().context("a product id")?;
        let variant = product["_embedded"]["variants"][0]["id"]
            .as_i64()
            .context("a variant id")?;
        Ok((id, variant))
    }

    async fn subscribe(&self, url: &str) -> Result<i64> {
        self.subscribe_ordered(url, "none").await
    }

    /// Subscribes `url` to product events with this `ordering`; the subscription's id.
    pub(crate) async fn subscribe_ordered(&self, url: &str, ordering: &str) -> Result<i64> {
        let created = self
            .send(
                reqwest::Method::POST,
                &format!("/v2/hub/{}/subscriptions", self.shop_id),
                Some(json!({"topic": "products", "url": url, "ordering": ordering})),
            )
            .await?;
        created["id"].as_i64().context("a subscription id")
    }

    pub(crate) async fn await_active(&self, id: i64) -> Result<()> {
        for _ in 0..500 {
            let webhook = self
                .send(reqwest::Method::GET, &format!("/v2/webhooks/{id}"), None)
                .await?;
            match webhook["status"].as_str() {
                Some("active") => return Ok(()),
                Some("pending") => tokio::time::sleep(Duration::from_millis(20)).await,
                other => bail!("webhook {id} is {other:?}: {webhook}"),
            }
        }
        bail!("webhook {id} did not become active")
    }

    async fn stock(&self, product: i64, variant: i64) -> Result<i64> {
        let v = self
            .send(
                reqwest::Method::GET,
                &format!("/v2/products/{product}/variants/{variant}"),
                None,
            )
            .await?;
        v["stock"].as_i64().context("a stock level")
    }

    /// One stock change: one event; answers the new stock level, which names the event.
    async fn adjust(&self, product: i64, variant: i64) -> Result<i64> {
        let v = self
            .send(
                reqwest::Method::POST,
                &format!("/v2/products/{product}/variants/{variant}/stock_adjustments"),
                Some(json!({"delta": 1})),
            )
            .await?;
        v["stock"].as_i64().context("a stock level")
    }

    pub(crate) async fn delete_webhook(&self, id: i64) -> Result<()> {
        self.send(reqwest::Method::DELETE, &format!("/v2/webhooks/{id}"), None)
            .await
            .map(|_| ())
    }
}
