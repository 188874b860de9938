//! Stock adjustments of one variant by many writers at once (on one node they are applied
//! in batches): each is answered with its own outcome, the stock never goes below zero
//! without backorders, every accepted adjustment has exactly one event showing the stock
//! it left (with its deliveries), refusals change nothing, and the writes send few
//! statements.

use std::collections::HashMap;
use std::sync::Arc;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{Backend, TestServer, error_fields};

on_both_backends!(
    a_lone_adjustment_sends_few_statements,
    concurrent_adjustments_of_one_variant_each_apply_once,
);

const TOPIC: &str = "products.updated.variants.updated";

/// Statements a batch of adjustments sends at most (its seller has no smart collections):
/// PostgreSQL locks the seller's catalog, the product and the variant in one, then writes
/// the stock, the events and their deliveries in another; SQLite needs no lock, but reads
/// the product and variant, and writes the stock and the events in two statements each.
fn statements_per_batch(backend: Backend) -> u32 {
    match backend {
        Backend::Postgres => 2,
        Backend::Sqlite => 5,
    }
}

/// A server whose webhooks may target loopback, and on it a product whose one variant has
/// `stock` and does not sell on backorder, watched by a subscription to the shop's
/// products that stays pending (its target, kept open by the caller, never answers the
/// verification) and so receives every event.
struct Watched {
    s: TestServer,
    /// The variant's path.
    path: String,
    variant: i64,
    webhook: i64,
    _silent: std::net::TcpListener,
}

async fn watched_variant(backend: Backend, stock: i64) -> Watched {
    let s = TestServer::start_with(backend, |c| {
        c.webhook_allowed_networks = vec![("127.0.0.0".parse().unwrap(), 8)];
    })
    .await;
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hooks", silent.local_addr().unwrap());
    let token = s.owner_token().await;
    let (status, webhook) = s
        .call(
            Method::POST,
            &format!("/v2/hub/{}/subscriptions", s.shop_id()),
            &token,
            Some(json!({"topic": "products", "url": url})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{webhook}");
    let product = s
        .create_product(
            &token,
            json!({"title": "Limited", "variants": [
                {"sku": "LTD", "price": 1, "stock": stock, "available_if_no_stock": false}]}),
        )
        .await;
    let variant = product["_embedded"]["variants"][0]["id"].as_i64().unwrap();
    let path = format!("/v2/products/{}/variants/{variant}", product["id"]);
    Watched {
        s,
        path,
        variant,
        webhook: webhook["id"].as_i64().unwrap(),
        _silent: silent,
    }
}

/// Adjusts the stock: the status, the body, and the statements the server counted.
async fn adjust(
    s: &TestServer,
    token: &str,
    variant: &str,
    delta: i64,
) -> (StatusCode, Value, u32) {
    let response = s
        .request(Method::POST, &format!("{variant}/stock_adjustments"), token)
        .json(&json!({ "delta": delta }))
        .send()
        .await
        .expect("the server answers");
    let queries = response
        .headers()
        .get("x-db-queries")
        .and_then(|v| v.to_str().ok()?.parse().ok())
        .expect("the server counts statements");
    let status = response.status();
    let body = response.json().await.expect("a JSON body");
    (status, body, queries)
}

async fn a_lone_adjustment_sends_few_statements(backend: Backend) {
    let Watched { s, path, .. } = watched_variant(backend, 1).await;
    let token = s.owner_token().await;
    let (status, body, queries) = adjust(&s, &token, &path, 2).await;
    assert_eq!(
        (status, &body["stock"]),
        (StatusCode::OK, &json!(3)),
        "{body}"
    );
    assert!(
        queries <= statements_per_batch(backend),
        "{queries} statements for one adjustment on {backend:?}"
    );
    let (status, body, queries) = adjust(&s, &token, &path, -4).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        queries <= statements_per_batch(backend),
        "{queries} for a refusal"
    );
    assert_eq!(
        s.event_count(TOPIC).await,
        1,
        "the refusal recorded nothing"
    );
}

async fn concurrent_adjustments_of_one_variant_each_apply_once(backend: Backend) {
    const START: i64 = 2;
    const WRITERS: usize = 48;
    let Watched {
        s,
        path,
        variant,
        webhook,
        _silent,
    } = watched_variant(backend, START).await;
    let s = Arc::new(s);
    let token = s.owner_token().await;
    let deltas: Vec<i64> = (0..WRITERS).map(|i| [-2, 1, -1, 3, -3, 1][i % 6]).collect();
    let tasks: Vec<_> = deltas
        .iter()
        .map(|&delta| {
            let (s, token, path) = (s.clone(), token.clone(), path.clone());
            tokio::spawn(async move { adjust(&s, &token, &path, delta).await })
        })
        .collect();
    let mut accepted: Vec<(i64, i64)> = Vec::new();
    let mut statements = 0;
    for (task, delta) in tasks.into_iter().zip(&deltas) {
        let (status, body, queries) = task.await.unwrap();
        statements += queries;
        match status {
            StatusCode::OK => accepted.push((*delta, body["stock"].as_i64().unwrap())),
            StatusCode::UNPROCESSABLE_ENTITY => {
                assert_eq!(error_fields(&body), ["delta"], "{body}");
            }
            other => panic!("the adjustment by {delta} answered {other}: {body}"),
        }
    }
    assert!(!accepted.is_empty());
    let (_, shown) = s.get_json(&path, &token).await;
    let sum: i64 = accepted.iter().map(|(delta, _)| delta).sum();
    assert_eq!(
        shown["stock"],
        json!(START + sum),
        "refusals changed nothing"
    );

    // The events, in sequence: each accepted adjustment's, once, with the stock it left;
    // replayed from the start they never go below zero.
    let events: Vec<(i64, String)> = s
        .db
        .rows(&format!(
            "SELECT id, item FROM events WHERE topic = '{TOPIC}' AND item_id = {variant} ORDER BY id"
        ))
        .await;
    let mut recorded: HashMap<(i64, i64), usize> = HashMap::new();
    let mut before = START;
    for (_, item) in &events {
        let stock = serde_json::from_str::<Value>(item).unwrap()["stock"]
            .as_i64()
            .unwrap();
        assert!(stock >= 0, "an event shows the stock below zero: {stock}");
        *recorded.entry((stock - before, stock)).or_default() += 1;
        before = stock;
    }
    let mut answered: HashMap<(i64, i64), usize> = HashMap::new();
    for pair in &accepted {
        *answered.entry(*pair).or_default() += 1;
    }
    assert_eq!(
        recorded, answered,
        "(delta, stock) of the events in sequence and of the accepted answers"
    );
    // Each event has its delivery, written with it.
    let deliveries: Vec<(i64, i64)> = s
        .db
        .rows(&format!(
            "SELECT COUNT(*), COUNT(DISTINCT d.event_id) FROM webhook_deliveries d \
             JOIN events e ON e.id = d.event_id WHERE d.webhook_id = {webhook} AND e.topic = '{TOPIC}'"
        ))
        .await;
    let accepted_count = accepted.len() as i64;
    assert_eq!(deliveries, [(accepted_count, accepted_count)]);
    // Counted through the batches, the writes sent no more than a batch each.
    assert!(statements > 0);
    assert!(
        statements <= statements_per_batch(backend) * WRITERS as u32,
        "{statements} statements for {WRITERS} adjustments on {backend:?}"
    );
}
