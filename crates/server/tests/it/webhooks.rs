//! Webhooks over real HTTP with a real receiver on 127.0.0.1: the verification handshake,
//! deliveries of catalog changes (signed, once, to matching subscriptions only), the
//! failure rules on a manual clock, reactivation, history and redelivery, and the API's
//! validation.

use std::sync::Arc;
use std::time::Duration;

use domain::Clock;
use domain::clock::ManualClock;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use server::ServeConfig;

use crate::on_both_backends;
use crate::receiver::{Pong, Received, Receiver, Reply};
use crate::support::{Backend, TestServer, error_fields, eventually, item_ids};

on_both_backends!(
    the_handshake_decides_activation,
    catalog_changes_reach_matching_subscriptions_once_signed,
    an_order_change_reaches_a_matching_subscription_exactly_once,
    failures_count_then_fail_and_gone_disables_at_once,
    reactivation_sends_what_was_kept_and_history_shows_every_attempt,
    subscriptions_are_checked_and_scoped,
    targets_must_be_globally_reachable_however_written,
    a_disabled_subscription_keeps_its_events_until_reactivated,
    parked_backlogs_keep_their_newest_and_skip_the_rest_replayably,
    per_resource_ordering_holds_back_only_the_same_resource,
    an_ordered_backlog_goes_out_as_sequences_that_a_failure_cuts_short,
    a_backlog_beyond_a_lanes_room_drains_without_waiting_for_the_poll,
    a_hot_resources_backlog_drains_without_scanning_past_it_per_sequence,
    a_slow_target_does_not_hold_back_others,
    a_subscription_is_deleted_while_its_deliveries_are_in_flight,
    an_attempt_outlasting_its_claim_is_recorded_as_interrupted,
);

/// A server whose webhooks may reach loopback, polling quickly, with a manual clock;
/// subscriptions fail after three failed attempts in a row.
pub(crate) async fn hub(backend: Backend) -> (TestServer, Arc<ManualClock>, Receiver) {
    hub_with(backend, 3, Duration::from_secs(1)).await
}

/// As `hub`, failing subscriptions after `max_errors` failures in a row, and giving each
/// request `timeout`.
async fn hub_with(
    backend: Backend,
    max_errors: u32,
    timeout: Duration,
) -> (TestServer, Arc<ManualClock>, Receiver) {
    hub_configured(backend, move |c| {
        c.webhook_timeout = timeout;
        c.webhook_policy = domain::webhook::FailurePolicy {
            max_errors,
            max_exhausted: 3,
        };
    })
    .await
}

/// A server whose webhooks may reach loopback, polling quickly, with a manual clock, and
/// with what `configure` changes.
async fn hub_configured(
    backend: Backend,
    configure: impl FnOnce(&mut ServeConfig),
) -> (TestServer, Arc<ManualClock>, Receiver) {
    let clock = Arc::new(ManualClock::new(domain::SystemClock.now()));
    let manual = clock.clone();
    let s = TestServer::start_with(backend, move |c| {
        c.clock = manual;
        c.webhook_allowed_networks = vec![("127.0.0.0".parse().unwrap(), 8)];
        c.webhook_poll = Duration::from_millis(50);
        // Tokens outlive the hours the tests move the clock on by.
        c.access_token_ttl = Duration::from_secs(30 * 86_400);
        configure(c);
    })
    .await;
    (s, clock, Receiver::start().await)
}

async fn subscribe(s: &TestServer, token: &str, body: Value) -> Value {
    let (status, created) = s
        .call(
            Method::POST,
            &format!("/v2/hub/{}/subscriptions", s.shop_id()),
            token,
            Some(body),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created
}

/// Subscriptions made with these bodies, each active once its handshake is over.
pub(crate) async fn active_subscriptions<const N: usize>(
    s: &TestServer,
    token: &str,
    bodies: [Value; N],
) -> [Value; N] {
    let mut made = Vec::with_capacity(N);
    for body in bodies {
        let webhook = subscribe(s, token, body).await;
        let settled = settled_status(s, token, &webhook["id"], "pending").await;
        assert_eq!(settled["status"], "active", "{settled}");
        made.push(webhook);
    }
    made.try_into().expect("one subscription per body")
}

/// A subscription to product topics at `url`, once its handshake is over.
async fn subscribed_to_products(s: &TestServer, token: &str, url: String) -> Value {
    let webhook = subscribe(s, token, json!({"topic": "products", "url": url})).await;
    settled_status(s, token, &webhook["id"], "pending").await;
    webhook
}

/// The webhook's status once the dispatcher is done with it.
async fn settled_status(s: &TestServer, token: &str, id: &Value, from: &str) -> Value {
    for _ in 0..200 {
        let (_, webhook) = s.get_json(&format!("/v2/webhooks/{id}"), token).await;
        if webhook["status"] != from {
            return webhook;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("webhook {id} stayed {from}");
}

async fn the_handshake_decides_activation(backend: Backend) {
    let (s, _clock, receiver) = hub(backend).await;
    let token = s.owner_token().await;
    let created = subscribe(
        &s,
        &token,
        json!({"topic": "products", "url": receiver.url("/hooks"), "auth": {"type": "basic", "username": "shop", "password": "s3cret"}}),
    )
    .await;
    assert_eq!(created["status"], "pending");
    assert!(created["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_eq!(
        created["auth"],
        json!({"type": "basic", "username": "shop"})
    );
    let active = settled_status(&s, &token, &created["id"], "pending").await;
    assert_eq!(active["status"], "active", "{active}");
    let ping = &receiver.received()[0];
    assert!(ping.header("x-hook-ping").unwrap().len() >= 32);
    assert_eq!(ping.json()["topic"], "activation");
    assert_eq!(ping.header("authorization"), Some("Basic c2hvcDpzM2NyZXQ="));
    // The secret is never shown again.
    assert!(active.get("secret").is_none());
    let (_, listed) = s
        .get_json(&format!("/v2/hub/{}/subscriptions", s.shop_id()), &token)
        .await;
    assert!(!listed.to_string().contains("s3cret") && !listed.to_string().contains("whsec_"));
    // Every way of not consenting fails the activation, with the reason.
    let cases: [(Reply, &str); 5] = [
        (Reply::ok().pong(Pong::Wrong), "did not match"),
        (Reply::ok().pong(Pong::Missing), "no X-Hook-Pong"),
        (Reply::status(500), "500"),
        (
            Reply::ok().redirect_to(&receiver.url("/elsewhere")),
            "redirect",
        ),
        (Reply::ok().delayed(Duration::from_secs(3)), "timed out"),
    ];
    for (reply, reason) in cases {
        receiver.answer_next(reply);
        let created = subscribe(
            &s,
            &token,
            json!({"topic": "products", "url": receiver.url("/h")}),
        )
        .await;
        let failed = settled_status(&s, &token, &created["id"], "pending").await;
        assert_eq!(failed["status"], "failed_activation", "{reason}: {failed}");
        assert!(
            failed["last_error"].as_str().unwrap().contains(reason),
            "{reason}: {failed}"
        );
        assert!(failed["last_error_on"].is_string());
    }
    // A refused target is never called.
    let before = receiver.received().len();
    let closed = subscribe(
        &s,
        &token,
        json!({"topic": "products", "url": "http://127.0.0.1:1/nothing"}),
    )
    .await;
    let failed = settled_status(&s, &token, &closed["id"], "pending").await;
    assert_eq!(failed["status"], "failed_activation");
    assert_eq!(receiver.received().len(), before);
    // A target that never consented cannot be made active by disabling and reactivating
    // its subscription: neither action applies, and neither is offered.
    let path = format!("/v2/webhooks/{}", closed["id"]);
    assert!(
        failed["_links"].get("webhooks:disable").is_none(),
        "{failed}"
    );
    assert!(
        failed["_links"].get("webhooks:reactivate").is_none(),
        "{failed}"
    );
    for action in ["disable", "reactivate"] {
        let (status, refused) = s
            .call(Method::PUT, &format!("{path}/{action}"), &token, None)
            .await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{action}: {refused}"
        );
        assert_eq!(error_fields(&refused), ["status"], "{action}");
    }
    let (_, after) = s.get_json(&path, &token).await;
    assert_eq!(after["status"], "failed_activation");
    assert_eq!(receiver.received().len(), before);
}

async fn catalog_changes_reach_matching_subscriptions_once_signed(backend: Backend) {
    let (s, _clock, receiver) = hub(backend).await;
    let token = s.owner_token().await;
    let [all, created_only, not_mine, orders] = active_subscriptions(
        &s,
        &token,
        [
            json!({"topic": "products", "url": receiver.url("/all")}),
            json!({"topic": "products.created", "url": receiver.url("/created")}),
            json!({"topic": "products", "url": receiver.url("/quiet"), "notify_origin": false}),
            json!({"topic": "orders", "url": receiver.url("/orders")}),
        ],
    )
    .await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Hooked", "variants": [{"sku": "HK-1", "price": 100}]}),
        )
        .await;
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{}", product["id"]),
            &token,
            Some(json!({"title": "Hooked twice"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let received = receiver
        .wait_until("three deliveries", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 3
        })
        .await;
    // A wrongly fanned-out delivery would be in the outbox, and sent before it settles.
    s.deliveries_settled().await;
    let deliveries = receiver.deliveries();
    let paths: Vec<(String, String)> = deliveries
        .iter()
        .map(|d| {
            (
                d.header("x-hook-topic").unwrap().to_owned(),
                d.json()["_links"]["webhook"]["href"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_owned(),
            )
        })
        .collect();
    assert_eq!(deliveries.len(), 3, "{paths:?}");
    assert!(received.len() >= 7);
    let created_body = deliveries
        .iter()
        .find(|d| d.header("x-hook-topic") == Some("products.created"))
        .unwrap()
        .json();
    assert_eq!(created_body["topic"], "products.created");
    assert_eq!(created_body["item_type"], "product");
    assert_eq!(created_body["item_id"], product["id"]);
    assert_eq!(created_body["shop_id"], s.shop_id());
    assert_eq!(created_body["shop_subdomain"], s.demo.shops[0].subdomain);
    assert_eq!(created_body["_embedded"]["item"]["title"], "Hooked");
    assert!(created_body["sequence"].as_i64().unwrap() > 0);
    assert!(created_body["created_on"].is_string());
    assert_eq!(created_body["user_name"], "Demo Owner");
    // Every delivery is signed with its subscription's secret, checked independently.
    for delivery in &deliveries {
        let id = webhook_of(delivery);
        let webhook = [&all, &created_only]
            .into_iter()
            .find(|w| w["id"] == id)
            .unwrap();
        assert_signed_once(delivery, webhook);
    }
    // The app that made the change does not hear of it where notify_origin is false,
    // and orders hear nothing of products.
    let (_, quiet) = s
        .get_json(
            &format!("/v2/webhooks/{}/deliveries", not_mine["id"]),
            &token,
        )
        .await;
    assert_eq!(quiet["total_items"], 0);
    let (_, silent) = s
        .get_json(&format!("/v2/webhooks/{}/deliveries", orders["id"]), &token)
        .await;
    assert_eq!(silent["total_items"], 0);
    let (_, history) = s
        .get_json(&format!("/v2/webhooks/{}/deliveries", all["id"]), &token)
        .await;
    assert_eq!(history["total_items"], 2);
    let first = &history["_embedded"]["items"][0];
    assert_eq!(first["status"], "succeeded");
    assert_eq!(first["_embedded"]["attempts"][0]["status_code"], 200);
    // A delivery for a shop the product is not in is not made.
    let elsewhere = s
        .create_product(
            &token,
            json!({"title": "Elsewhere", "price": 1, "shop_ids": [s.demo.shops[1].id]}),
        )
        .await;
    s.deliveries_settled().await;
    assert!(
        receiver
            .deliveries()
            .iter()
            .all(|d| d.json()["item_id"] != elsewhere["id"])
    );
}

/// The id of the webhook a delivery was made for.
pub(crate) fn webhook_of(delivery: &Received) -> i64 {
    delivery.json()["_links"]["webhook"]["href"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Asserts that a first attempt is signed with the secret `webhook` was created with, as
/// an independent Standard Webhooks implementation checks it.
fn assert_signed_once(delivery: &Received, webhook: &Value) {
    let verifier = standardwebhooks::Webhook::new(webhook["secret"].as_str().unwrap()).unwrap();
    let mut headers = http::HeaderMap::new();
    for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
        headers.insert(
            name,
            delivery.headers[name].to_str().unwrap().parse().unwrap(),
        );
    }
    verifier
        .verify(&delivery.body, &headers)
        .expect("the signature verifies");
    assert!(delivery.header("webhook-id").unwrap().starts_with("evt_"));
    assert_eq!(delivery.header("x-hook-attempt"), Some("1"));
}

async fn an_order_change_reaches_a_matching_subscription_exactly_once(backend: Backend) {
    let (s, _clock, receiver) = hub(backend).await;
    let token = s.owner_token().await;
    let [orders, shipped_only, products, not_mine] = active_subscriptions(
        &s,
        &token,
        [
            json!({"topic": "orders", "url": receiver.url("/orders")}),
            json!({"topic": "orders.updated.shipped", "url": receiver.url("/shipped")}),
            json!({"topic": "products", "url": receiver.url("/products")}),
            json!({"topic": "orders", "url": receiver.url("/quiet"), "notify_origin": false}),
        ],
    )
    .await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Ordered", "variants": [{"sku": "ORD-1", "price": 1200, "stock": 5}]}),
        )
        .await;
    // The product's own delivery, before any order exists.
    receiver
        .wait_until("the product's delivery", |r| r.iter().any(|x| !x.is_ping()))
        .await;
    let variant = &product["_embedded"]["variants"][0]["id"];
    let (status, created) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            &token,
            Some(json!({"lines": [{"variant_id": variant, "quantity": 2}], "email": "buyer@example.com"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let mut moved = vec![("orders.created.checkout", created.clone())];
    for (action, topic, body) in [
        ("place", "orders.updated.placed", None),
        ("close", "orders.updated.closed", None),
        (
            "ship",
            "orders.updated.shipped",
            Some(json!({"tracking_code": "TRK-9", "courier_name": "Starken"})),
        ),
    ] {
        let (status, order) = s
            .call(
                Method::PUT,
                &format!("/v2/orders/{}/{action}", created["id"]),
                &token,
                body,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{action}: {order}");
        moved.push((topic, order));
    }
    // The product's delivery, the four order changes, the shipment again, and the stock
    // the placement took.
    let expected = 7;
    receiver
        .wait_until(
            "four order deliveries, the shipped one and the stock taken",
            |r| r.iter().filter(|x| !x.is_ping()).count() >= expected,
        )
        .await;
    // A wrongly fanned-out or repeated delivery would be in the outbox, and sent before
    // it settles.
    s.deliveries_settled().await;
    let deliveries = receiver.deliveries();
    let to = |webhook: &Value| -> Vec<Received> {
        deliveries
            .iter()
            .filter(|d| webhook_of(d) == webhook["id"].as_i64().unwrap())
            .cloned()
            .collect()
    };
    // The orders subscription hears each change once (deliveries may arrive in any order;
    // their sequence follows the changes), with the order as GET showed it then.
    let mut heard = to(&orders);
    heard.sort_by_key(|d| d.json()["sequence"].as_i64().unwrap());
    let topics: Vec<String> = heard
        .iter()
        .map(|d| d.json()["topic"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        topics,
        moved.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
        "{topics:?}"
    );
    for (delivery, (topic, order)) in heard.iter().zip(&moved) {
        let body = delivery.json();
        assert_eq!(delivery.header("x-hook-topic"), Some(*topic));
        assert_eq!(body["item_type"], "order");
        assert_eq!(body["item_id"], created["id"]);
        assert_eq!(body["shop_id"], s.shop_id());
        assert_eq!(body["shop_subdomain"], s.demo.shops[0].subdomain);
        assert!(body["created_on"].is_string());
        assert_eq!(&body["_embedded"]["item"], order, "{topic}");
        assert_signed_once(delivery, &orders);
    }
    let (_, now) = s
        .get_json(&format!("/v2/orders/{}", created["id"]), &token)
        .await;
    assert_eq!(heard[3].json()["_embedded"]["item"], now);
    assert_eq!(now["status"], "shipped");
    // The shipped-only subscription hears the shipment alone.
    let shipped = to(&shipped_only);
    assert_eq!(shipped.len(), 1);
    assert_eq!(shipped[0].json()["topic"], "orders.updated.shipped");
    assert_eq!(
        shipped[0].json()["_embedded"]["item"]["tracking_code"],
        "TRK-9"
    );
    assert_signed_once(&shipped[0], &shipped_only);
    // Products hear their product's creation and the stock the placement took, nothing of
    // the orders themselves; the app's own changes skip the notify_origin: false one.
    let mut product_deliveries = to(&products);
    product_deliveries.sort_by_key(|d| d.json()["sequence"].as_i64().unwrap());
    let product_topics: Vec<String> = product_deliveries
        .iter()
        .map(|d| d.json()["topic"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        product_topics,
        ["products.created", "products.updated.variants.updated"]
    );
    let sold = product_deliveries[1].json();
    assert_eq!(sold["item_type"], "variant");
    assert_eq!(sold["_embedded"]["item"]["id"], *variant);
    assert_eq!(sold["_embedded"]["item"]["stock"], 3, "5 less the 2 placed");
    assert!(to(&not_mine).is_empty());
    let (_, quiet) = s
        .get_json(
            &format!("/v2/webhooks/{}/deliveries", not_mine["id"]),
            &token,
        )
        .await;
    assert_eq!(quiet["total_items"], 0);
    let (_, history) = s
        .get_json(&format!("/v2/webhooks/{}/deliveries", orders["id"]), &token)
        .await;
    assert_eq!(history["total_items"], 4);
}

/// Advances the clock past any retry delay, waits for `count` deliveries in all, and for
/// the last one's attempt to be recorded (so that the next retry is scheduled from the
/// time the clock shows now, not from a later one).
async fn after_retries(s: &TestServer, clock: &ManualClock, receiver: &Receiver, count: usize) {
    clock.advance_secs(100_000);
    receiver
        .wait_until(&format!("{count} deliveries"), |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= count
        })
        .await;
    attempts_recorded(s, count).await;
}

async fn attempts_recorded(s: &TestServer, count: usize) {
    for _ in 0..200 {
        if s.db.scalar("SELECT COUNT(*) FROM webhook_attempts").await >= count as i64 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{count} attempts were not recorded");
}

async fn failures_count_then_fail_and_gone_disables_at_once(backend: Backend) {
    let (s, clock, receiver) = hub(backend).await;
    let token = s.owner_token().await;
    let webhook = subscribed_to_products(&s, &token, receiver.url("/h")).await;
    let path = format!("/v2/webhooks/{}", webhook["id"]);
    receiver.answer_always(Reply::status(500).retry_after("120"));
    s.create_product(&token, json!({"title": "One", "price": 1}))
        .await;
    receiver
        .wait_until("one delivery", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 1
        })
        .await;
    attempts_recorded(&s, 1).await;
    let (_, after_one) = s.get_json(&path, &token).await;
    assert_eq!(
        (
            after_one["status"].clone(),
            after_one["error_count"].clone()
        ),
        (json!("active"), json!(1))
    );
    assert_eq!(
        after_one["last_error"],
        "answered 500 Internal Server Error"
    );
    // A retry waits for its time (here the Retry-After, longer than the 10 s step).
    clock.advance_secs(60);
    let now = clock.now().as_micros();
    assert_eq!(
        s.db.due_deliveries(webhook["id"].as_i64(), now).await,
        0,
        "not due before Retry-After"
    );
    assert_eq!(receiver.deliveries().len(), 1, "not before Retry-After");
    clock.advance_secs(61);
    receiver
        .wait_until("the retry", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 2
        })
        .await;
    attempts_recorded(&s, 2).await;
    let retry = &receiver.deliveries()[1];
    assert_eq!(retry.header("x-hook-attempt"), Some("2"));
    assert_eq!(
        retry.header("webhook-id"),
        receiver.deliveries()[0].header("webhook-id"),
        "a retry carries the same webhook-id"
    );
    // A success resets the count; then three failures in a row fail the subscription.
    receiver.answer_next(Reply::ok());
    after_retries(&s, &clock, &receiver, 3).await;
    s.deliveries_settled().await;
    let (_, reset) = s.get_json(&path, &token).await;
    assert_eq!(reset["error_count"], 0);
    s.create_product(&token, json!({"title": "Two", "price": 1}))
        .await;
    receiver
        .wait_until("four deliveries", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 4
        })
        .await;
    attempts_recorded(&s, 4).await;
    for count in [5, 6] {
        after_retries(&s, &clock, &receiver, count).await;
    }
    let failed = settled_status(&s, &token, &webhook["id"], "active").await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error_count"], 3);
    assert!(failed["_links"]["webhooks:reactivate"]["href"].is_string());
    // While failed, nothing is sent.
    let sent = receiver.deliveries().len();
    clock.advance_secs(86_400);
    // Its deliveries are parked: none is due, however late it is.
    let now = clock.now().as_micros();
    assert_eq!(s.db.due_deliveries(webhook["id"].as_i64(), now).await, 0);
    s.deliveries_settled().await;
    assert_eq!(receiver.deliveries().len(), sent);
    // 410 disables at once, with no further attempt. (The ping is answered before the
    // subscription exists: the dispatcher sends it at once.)
    receiver.answer_always(Reply::ok());
    let gone = subscribe(
        &s,
        &token,
        json!({"topic": "products.created", "url": receiver.url("/gone")}),
    )
    .await;
    settled_status(&s, &token, &gone["id"], "pending").await;
    receiver.answer_always(Reply::status(410));
    s.create_product(&token, json!({"title": "Three", "price": 1}))
        .await;
    let disabled = settled_status(&s, &token, &gone["id"], "active").await;
    assert_eq!(disabled["status"], "disabled");
    let to_gone = |r: &[crate::receiver::Received]| {
        r.iter()
            .filter(|x| {
                !x.is_ping()
                    && x.json()["_links"]["webhook"]["href"]
                        .as_str()
                        .unwrap()
                        .ends_with(&format!("/{}", gone["id"]))
            })
            .count()
    };
    let before = to_gone(&receiver.received());
    clock.advance_secs(86_400);
    let now = clock.now().as_micros();
    assert_eq!(s.db.due_deliveries(gone["id"].as_i64(), now).await, 0);
    s.deliveries_settled().await;
    assert_eq!(to_gone(&receiver.received()), before);
    assert_eq!(before, 1);
}

async fn reactivation_sends_what_was_kept_and_history_shows_every_attempt(backend: Backend) {
    // Failures never fail the subscription here, so that a delivery runs out of attempts.
    let (s, clock, receiver) = hub_with(backend, 100, Duration::from_secs(1)).await;
    let token = s.owner_token().await;
    let webhook = subscribed_to_products(&s, &token, receiver.url("/h")).await;
    let path = format!("/v2/webhooks/{}", webhook["id"]);
    // Disabled by hand: what it owes waits, parked (new events' deliveries too: see
    // `a_disabled_subscription_keeps_its_events_until_reactivated`).
    receiver.answer_always(Reply::status(503));
    s.create_product(&token, json!({"title": "Owed", "price": 1}))
        .await;
    receiver
        .wait_until("the first attempt", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 1
        })
        .await;
    let (status, disabled) = s
        .call(Method::PUT, &format!("{path}/disable"), &token, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(disabled["status"], "disabled");
    assert!(disabled["_links"].get("webhooks:disable").is_none());
    let owed = history_until(&s, &token, &webhook, "the owed delivery parked", |h| {
        h.len() == 1 && h[0]["next_attempt_on"].is_null()
    })
    .await;
    assert_eq!(owed[0]["status"], "pending", "{owed:?}");
    receiver.answer_always(Reply::ok());
    clock.advance_secs(3_600);
    assert_eq!(
        receiver.deliveries().len(),
        1,
        "nothing goes out while disabled"
    );
    // Reactivation: active, counters reset, the owed delivery goes out.
    let (status, active) = s
        .call(Method::PUT, &format!("{path}/reactivate"), &token, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{active}");
    assert_eq!(
        (active["status"].clone(), active["error_count"].clone()),
        (json!("active"), json!(0))
    );
    receiver
        .wait_until("the owed delivery", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 2
        })
        .await;
    s.deliveries_settled().await;
    let titles: Vec<Value> = receiver
        .deliveries()
        .iter()
        .map(|d| d.json()["_embedded"]["item"]["title"].clone())
        .collect();
    assert_eq!(titles, [json!("Owed"), json!("Owed")]);
    let (status, _) = s
        .call(Method::PUT, &format!("{path}/reactivate"), &token, None)
        .await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "only failed or disabled"
    );
    // History: every attempt, newest delivery first; redelivery sends it again.
    let (_, history) = s.get_json(&format!("{path}/deliveries"), &token).await;
    let delivery = &history["_embedded"]["items"][0];
    assert_eq!(delivery["status"], "succeeded");
    let attempts = delivery["_embedded"]["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0]["status_code"], 503);
    assert_eq!(attempts[0]["error_class"], "status");
    assert_eq!(attempts[1]["status_code"], 200);
    let redeliver = delivery["_links"]["webhooks:redeliver"]["href"]
        .as_str()
        .unwrap();
    let (status, again) = s
        .call(Method::POST, &redeliver.replace(&s.url, ""), &token, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{again}");
    receiver
        .wait_until("the redelivery", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 3
        })
        .await;
    let last = receiver.deliveries().pop().unwrap();
    assert_eq!(last.header("x-hook-attempt"), Some("3"));
    let (_, filtered) = s
        .get_json(&format!("{path}/deliveries?status=failed"), &token)
        .await;
    assert_eq!(filtered["total_items"], 0);
    // Rotation: both secrets sign during the grace period.
    let (status, rotated) = s
        .call(
            Method::POST,
            &format!("{path}/secret"),
            &token,
            Some(json!({"grace_period_seconds": 600})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let new_secret = rotated["secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, webhook["secret"].as_str().unwrap());
    s.create_product(&token, json!({"title": "Rotated", "price": 1}))
        .await;
    receiver
        .wait_until("a signed delivery", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 4
        })
        .await;
    let signed = receiver.deliveries().pop().unwrap();
    assert_eq!(
        signed
            .header("webhook-signature")
            .unwrap()
            .split(' ')
            .count(),
        2
    );
    // The clock was moved on, so the library's timestamp tolerance would refuse the
    // delivery: compare with the signature it computes instead.
    let signatures: Vec<&str> = signed
        .header("webhook-signature")
        .unwrap()
        .split(' ')
        .collect();
    for secret in [new_secret.as_str(), webhook["secret"].as_str().unwrap()] {
        let expected = standardwebhooks::Webhook::new(secret)
            .unwrap()
            .sign(
                signed.header("webhook-id").unwrap(),
                signed.header("webhook-timestamp").unwrap().parse().unwrap(),
                &signed.body,
            )
            .unwrap();
        assert!(
            signatures.contains(&expected.as_str()),
            "either secret signs during the grace period"
        );
    }
    // Replay: failed deliveries of a window go out again, with progress.
    receiver.answer_always(Reply::status(500));
    s.create_product(&token, json!({"title": "Doomed", "price": 1}))
        .await;
    receiver
        .wait_until("the first attempt", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 5
        })
        .await;
    attempts_recorded(&s, 5).await;
    for count in 6..=12 {
        after_retries(&s, &clock, &receiver, count).await;
    }
    s.deliveries_settled().await;
    let (_, failed) = s
        .get_json(&format!("{path}/deliveries?status=failed"), &token)
        .await;
    assert_eq!(failed["total_items"], 1, "eight attempts, then it gives up");
    assert_eq!(failed["_embedded"]["items"][0]["attempts"], 8);
    let (_, webhook_now) = s.get_json(&path, &token).await;
    assert_eq!(
        (
            webhook_now["status"].clone(),
            webhook_now["error_count"].clone()
        ),
        (json!("active"), json!(8))
    );
    clock.advance_secs(86_400);
    s.deliveries_settled().await;
    assert_eq!(receiver.deliveries().len(), 12, "no ninth attempt");
    receiver.answer_always(Reply::ok());
    let (status, replay) = s
        .call(
            Method::POST,
            &format!("{path}/replays"),
            &token,
            Some(json!({"since": "2000-01-01"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{replay}");
    assert_eq!(replay["deliveries"], 1);
    let replay_path = replay["_links"]["self"]["href"]
        .as_str()
        .unwrap()
        .replace(&s.url, "");
    for _ in 0..100 {
        let (_, progress) = s.get_json(&replay_path, &token).await;
        if progress["done"] == true {
            assert_eq!(progress["succeeded"], 1);
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the replay did not finish");
}

async fn subscriptions_are_checked_and_scoped(backend: Backend) {
    let (s, _clock, receiver) = hub(backend).await;
    let token = s.owner_token().await;
    let path = format!("/v2/hub/{}/subscriptions", s.shop_id());
    let cases = [
        (json!({"url": receiver.url("/h")}), vec!["topic"]),
        (json!({"topic": "products"}), vec!["url"]),
        (
            json!({"topic": "products.exploded", "url": receiver.url("/h")}),
            vec!["topic"],
        ),
        (
            json!({"topic": "products", "url": "ftp://example.com/h"}),
            vec!["url"],
        ),
        (
            json!({"topic": "products", "url": "http://10.0.0.1/h"}),
            vec!["url"],
        ),
        (
            json!({"topic": "products", "url": "http://[::ffff:169.254.169.254]/"}),
            vec!["url"],
        ),
        (
            json!({"topic": "products", "url": receiver.url("/h"), "auth": {"type": "basic"}}),
            vec!["auth.username", "auth.password"],
        ),
        (
            json!({"topic": "products", "url": receiver.url("/h"), "auth": {"type": "digest"}}),
            vec!["auth.type"],
        ),
    ];
    for (body, fields) in cases {
        let (status, answer) = s
            .call(Method::POST, &path, &token, Some(body.clone()))
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {answer}");
        assert_eq!(error_fields(&answer), fields, "{body}");
    }
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM webhooks").await, 0);
    // The topics registry, and listing with pages and a status filter.
    let (status, topics) = s.get_json("/v2/webhooks/topics", &token).await;
    assert_eq!(status, StatusCode::OK);
    let topics: Vec<&str> = topics["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        topics.contains(&"orders.updated.shipped")
            && topics.contains(&"products.updated.variants.created")
    );
    let a = subscribed_to_products(&s, &token, receiver.url("/a")).await;
    receiver.answer_next(Reply::status(500));
    let b = subscribe(
        &s,
        &token,
        json!({"topic": "orders", "url": receiver.url("/b")}),
    )
    .await;
    settled_status(&s, &token, &b["id"], "pending").await;
    let (_, page) = s.get_json(&format!("{path}?per_page=1"), &token).await;
    assert_eq!(
        (page["per_page"].clone(), page["total_items"].clone()),
        (json!(1), json!(2))
    );
    assert!(
        page["_links"]["next"]["href"].is_string() && page["_links"]["last"]["href"].is_string()
    );
    let (_, failed) = s
        .get_json(&format!("{path}?status=failed_activation"), &token)
        .await;
    assert_eq!(item_ids(&failed), [b["id"].as_i64().unwrap()]);
    let (_, defaults) = s.get_json(&path, &token).await;
    assert_eq!(defaults["per_page"], 50);
    let (status, _) = s.get_json(&format!("{path}?status=sleeping"), &token).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (_, webhooks) = s.get_json("/v2/webhooks?topic=orders", &token).await;
    assert_eq!(item_ids(&webhooks), [b["id"].as_i64().unwrap()]);
    assert_eq!(webhooks["_embedded"]["items"][0]["channel_id"], s.shop_id());
    // Scopes: reading needs hub.read, writing hub.write; other accounts see nothing.
    let reader = s
        .password_token(
            &s.demo.user.email.clone(),
            &s.demo.user.password.clone(),
            Some("hub.read"),
        )
        .await;
    let (status, seen) = s
        .get_json(&format!("/v2/webhooks/{}", a["id"]), &reader)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(seen["_links"].get("webhooks:update").is_none());
    let (status, _) = s
        .call(
            Method::POST,
            &path,
            &reader,
            Some(json!({"topic": "products", "url": receiver.url("/r")})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let shops_only = s
        .password_token(
            &s.demo.user.email.clone(),
            &s.demo.user.password.clone(),
            Some("shops.read"),
        )
        .await;
    let (status, _) = s.get_json("/v2/webhooks", &shops_only).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let other = s.seed_another_account().await;
    let theirs = s.owner_token_of(&other).await;
    let (status, _) = s
        .get_json(&format!("/v2/webhooks/{}", a["id"]), &theirs)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = s.get_json(&path, &theirs).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Deleting: from the hub and by id.
    let (status, _) = s
        .call(Method::DELETE, &format!("{path}/{}", a["id"]), &token, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = s
        .call(
            Method::DELETE,
            &format!("/v2/webhooks/{}", b["id"]),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM webhooks").await, 0);
    let _ = s.clock.now();
}

/// Targets that are not globally reachable are refused, also when written as IPv6 forms
/// that lead to an IPv4 address. The server allows 127.0.0.0/8: that lets through
/// `::ffff:127.0.0.1`, which is a connection to 127.0.0.1 itself, and nothing that reaches
/// 127.x through a translator, relay or tunnel.
async fn targets_must_be_globally_reachable_however_written(backend: Backend) {
    let (s, _clock, receiver) = hub(backend).await;
    let token = s.owner_token().await;
    let path = format!("/v2/hub/{}/subscriptions", s.shop_id());
    let refused = [
        // IPv4-translated, IPv4-compatible and other reserved space.
        "http://[::ffff:0:7f00:1]/h",
        "http://[::ffff:0:a9fe:a9fe]/h",
        "http://[::ffff:0:a00:1]/h",
        "http://[::127.0.0.1]/h",
        "http://[::1:0:0:7f00:1]/h",
        // NAT64, local-use NAT64, 6to4 and Teredo leading to loopback or metadata.
        "http://[64:ff9b::127.0.0.1]/h",
        "http://[64:ff9b::a9fe:a9fe]/h",
        "http://[64:ff9b:1::808:808]/h",
        "http://[2002:7f00:1::1]/h",
        "http://[2001::1]/h",
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/h",
        // Other blocks that are not globally reachable.
        "http://[::ffff:169.254.169.254]/h",
        "http://192.0.0.8/h",
        "http://192.88.99.1/h",
        "http://[2001:2::1]/h",
        "http://[2001:20::1]/h",
        "http://[3fff::1]/h",
        "http://[fd00:ec2::254]/h",
    ];
    for url in refused {
        let (status, answer) = s
            .call(
                Method::POST,
                &path,
                &token,
                Some(json!({"topic": "products", "url": url})),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{url}: {answer}");
        assert_eq!(error_fields(&answer), ["url"], "{url}");
    }
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM webhooks").await, 0);
    // The IPv4-mapped spelling of an allowed address is that address.
    let port = receiver.url.rsplit(':').next().unwrap();
    let mapped = subscribe(
        &s,
        &token,
        json!({"topic": "products", "url": format!("http://[::ffff:127.0.0.1]:{port}/h")}),
    )
    .await;
    // A subscription cannot be moved to such a target either.
    let (status, answer) = s
        .call(
            Method::PUT,
            &format!("/v2/webhooks/{}", mapped["id"]),
            &token,
            Some(json!({"url": "http://[64:ff9b::7f00:1]/h"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(error_fields(&answer), ["url"]);
}

/// A webhook's delivery history, oldest first.
async fn delivery_history(s: &TestServer, token: &str, webhook: &Value) -> Vec<Value> {
    let (status, page) = s
        .get_json(
            &format!(
                "/v2/webhooks/{}/deliveries?sort=id.asc&per_page=200",
                webhook["id"]
            ),
            token,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["_embedded"]["items"].as_array().unwrap().clone()
}

/// Waits (boundedly) until `done` holds for a webhook's delivery history, oldest first.
async fn history_until(
    s: &TestServer,
    token: &str,
    webhook: &Value,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    for _ in 0..200 {
        let history = delivery_history(s, token, webhook).await;
        if done(&history) {
            return history;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "timed out waiting for {what}: {:?}",
        delivery_history(s, token, webhook).await
    );
}

/// The event sequence numbers of what `webhook` received, in arrival order.
fn sequences_received(received: &[Received], webhook: &Value) -> Vec<i64> {
    received
        .iter()
        .filter(|r| !r.is_ping() && webhook_of(r) == webhook["id"].as_i64().unwrap())
        .map(|r| r.json()["sequence"].as_i64().unwrap())
        .collect()
}

/// The event sequence numbers of deliveries in a history, and their statuses.
fn sequences_and_statuses(history: &[Value]) -> Vec<(i64, String)> {
    history
        .iter()
        .map(|d| {
            (
                d["sequence"].as_i64().unwrap(),
                d["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Changes a product's title.
async fn retitle(s: &TestServer, token: &str, product: &Value, title: &str) {
    let (status, answer) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{}", product["id"]),
            token,
            Some(json!({"title": title})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
}

/// Calls one of a webhook's actions (`disable`, `reactivate`), expecting the new status.
/// A per-resource subscription to products at the receiver's `/ordered`, made active and
/// then disabled, with a new product changed `changes` times (its creation included): the
/// backlog is parked while the subscription is disabled, and due at once when it is
/// reactivated. Answers the subscription and the product.
async fn parked_ordered_backlog(
    s: &TestServer,
    token: &str,
    receiver: &Receiver,
    changes: usize,
) -> (Value, Value) {
    let [ordered] = active_subscriptions(
        s,
        token,
        [json!({"topic": "products", "url": receiver.url("/ordered"), "ordering": "per_resource"})],
    )
    .await;
    act_on(s, token, &ordered, "disable", "disabled").await;
    let product = s
        .create_product(token, json!({"title": "t0", "price": 1}))
        .await;
    for n in 1..changes {
        retitle(s, token, &product, &format!("t{n}")).await;
    }
    (ordered, product)
}

async fn act_on(s: &TestServer, token: &str, webhook: &Value, action: &str, expected: &str) {
    let (status, answer) = s
        .call(
            Method::PUT,
            &format!("/v2/webhooks/{}/{action}", webhook["id"]),
            token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{action}: {answer}");
    assert_eq!(answer["status"], expected, "{action}: {answer}");
}

async fn a_disabled_subscription_keeps_its_events_until_reactivated(backend: Backend) {
    let (s, _clock, receiver) = hub(backend).await;
    let token = s.owner_token().await;
    // The sentinel hears the same changes: once it has, the dispatcher has had the
    // disabled subscription's deliveries (made in the same transactions) to send.
    let [kept, sentinel] = active_subscriptions(
        &s,
        &token,
        [
            json!({"topic": "products", "url": receiver.url("/kept"), "ordering": "per_resource"}),
            json!({"topic": "products", "url": receiver.url("/sentinel")}),
        ],
    )
    .await;
    act_on(&s, &token, &kept, "disable", "disabled").await;
    let product = s
        .create_product(&token, json!({"title": "v0", "price": 1}))
        .await;
    for title in ["v1", "v2"] {
        retitle(&s, &token, &product, title).await;
    }
    let received = receiver
        .wait_until("the sentinel's three deliveries", |r| {
            sequences_received(r, &sentinel).len() >= 3
        })
        .await;
    let mut changes = sequences_received(&received, &sentinel);
    changes.sort_unstable();
    // Nothing went out while disabled; every change waits, parked, in the history.
    assert_eq!(sequences_received(&received, &kept), [0_i64; 0]);
    let waiting = delivery_history(&s, &token, &kept).await;
    let pending: Vec<(i64, String)> = changes.iter().map(|&c| (c, "pending".into())).collect();
    assert_eq!(sequences_and_statuses(&waiting), pending, "{waiting:?}");
    for delivery in &waiting {
        assert_eq!(delivery["next_attempt_on"], Value::Null, "{delivery}");
        assert_eq!(delivery["attempts"], 0, "{delivery}");
    }
    // Reactivated, it sends each change once, in order.
    act_on(&s, &token, &kept, "reactivate", "active").await;
    let received = receiver
        .wait_until("the kept deliveries", |r| {
            sequences_received(r, &kept).len() >= 3
        })
        .await;
    assert_eq!(sequences_received(&received, &kept), changes);
    // A later change follows them (it waits for them, as they are about the same product),
    // and none of them came twice.
    retitle(&s, &token, &product, "v3").await;
    let received = receiver
        .wait_until("the later change", |r| {
            sequences_received(r, &kept).len() >= 4
        })
        .await;
    let arrived = sequences_received(&received, &kept);
    assert_eq!(arrived[..3], changes[..], "{arrived:?}");
    assert!(arrived[3] > changes[2], "{arrived:?}");
    let sent = history_until(&s, &token, &kept, "four deliveries succeeded", |h| {
        h.len() == 4 && h.iter().all(|d| d["status"] == "succeeded")
    })
    .await;
    assert!(sent.iter().all(|d| d["attempts"] == 1), "{sent:?}");
}

/// Failed and disabled subscriptions keep the newest `webhook_max_backlog` deliveries
/// parked; the older ones are skipped, shown in the history, and replayable.
async fn parked_backlogs_keep_their_newest_and_skip_the_rest_replayably(backend: Backend) {
    let (s, clock, receiver) = hub_configured(backend, |c| {
        c.webhook_max_backlog = 3;
        c.webhook_policy = domain::webhook::FailurePolicy {
            max_errors: 1,
            max_exhausted: 3,
        };
    })
    .await;
    let token = s.owner_token().await;
    // One failed attempt fails a subscription: this one's first delivery is owed.
    let [failed] = active_subscriptions(
        &s,
        &token,
        [json!({"topic": "products", "url": receiver.url("/failed"), "ordering": "per_resource"})],
    )
    .await;
    receiver.answer_next(Reply::status(500));
    let product = s
        .create_product(&token, json!({"title": "v0", "price": 1}))
        .await;
    let status = settled_status(&s, &token, &failed["id"], "active").await;
    assert_eq!(status["status"], "failed", "{status}");
    let [disabled, sentinel] = active_subscriptions(
        &s,
        &token,
        [
            json!({"topic": "products", "url": receiver.url("/disabled"), "ordering": "per_resource"}),
            json!({"topic": "products", "url": receiver.url("/sentinel")}),
        ],
    )
    .await;
    act_on(&s, &token, &disabled, "disable", "disabled").await;
    for title in ["v1", "v2", "v3", "v4", "v5"] {
        retitle(&s, &token, &product, title).await;
    }
    let received = receiver
        .wait_until("the sentinel's five deliveries", |r| {
            sequences_received(r, &sentinel).len() >= 5
        })
        .await;
    let mut changes = sequences_received(&received, &sentinel);
    changes.sort_unstable();
    let owed = delivery_history(&s, &token, &failed).await[0]["sequence"]
        .as_i64()
        .unwrap();
    // Each keeps its newest three; the older ones are skipped, saying why.
    let expect = |skipped: &[i64], kept: &[i64]| -> Vec<(i64, String)> {
        let skipped = skipped.iter().map(|&c| (c, "skipped".to_owned()));
        skipped
            .chain(kept.iter().map(|&c| (c, "pending".to_owned())))
            .collect()
    };
    let skipped_of_disabled = &changes[..2];
    let skipped_of_failed = [owed, changes[0], changes[1]];
    let newest = &changes[2..];
    for (webhook, skipped) in [
        (&disabled, skipped_of_disabled),
        (&failed, &skipped_of_failed[..]),
    ] {
        let history = history_until(&s, &token, webhook, "the backlog bounded", |h| {
            h.iter().filter(|d| d["status"] == "skipped").count() == skipped.len()
        })
        .await;
        assert_eq!(
            sequences_and_statuses(&history),
            expect(skipped, newest),
            "{history:?}"
        );
        for delivery in &history[..skipped.len()] {
            let note = delivery["last_error"].as_str().unwrap();
            assert!(note.contains("more than 3 deliveries"), "{note}");
            assert_eq!(delivery["next_attempt_on"], Value::Null);
        }
    }
    // Reactivated, each sends the three it kept, in order, and nothing it skipped.
    let before = receiver.received();
    assert_eq!(sequences_received(&before, &failed), [owed]);
    assert_eq!(sequences_received(&before, &disabled), [0_i64; 0]);
    act_on(&s, &token, &disabled, "reactivate", "active").await;
    act_on(&s, &token, &failed, "reactivate", "active").await;
    let received = receiver
        .wait_until("the kept deliveries", |r| {
            sequences_received(r, &disabled).len() >= 3 && sequences_received(r, &failed).len() >= 4
        })
        .await;
    assert_eq!(sequences_received(&received, &disabled), newest);
    assert_eq!(sequences_received(&received, &failed)[1..], newest[..]);
    let settled = history_until(&s, &token, &disabled, "the kept ones sent", |h| {
        h.iter().filter(|d| d["status"] == "succeeded").count() == 3
    })
    .await;
    assert_eq!(
        settled.iter().filter(|d| d["status"] == "skipped").count(),
        2,
        "{settled:?}"
    );
    // A replay sends the skipped ones, oldest first. (Its window ends now, and the
    // clock has stood still since they were made.)
    clock.advance_secs(1);
    let (status, replay) = s
        .call(
            Method::POST,
            &format!("/v2/webhooks/{}/replays", disabled["id"]),
            &token,
            Some(json!({"since": "2000-01-01"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{replay}");
    assert_eq!(replay["deliveries"], 2);
    let received = receiver
        .wait_until("the replayed deliveries", |r| {
            sequences_received(r, &disabled).len() >= 5
        })
        .await;
    assert_eq!(
        sequences_received(&received, &disabled)[3..],
        skipped_of_disabled[..]
    );
    history_until(&s, &token, &disabled, "every delivery sent", |h| {
        h.len() == 5 && h.iter().all(|d| d["status"] == "succeeded")
    })
    .await;
}

/// The product ids of the deliveries received, in arrival order, with their topics.
fn arrivals(receiver: &Receiver) -> Vec<(i64, String)> {
    receiver
        .deliveries()
        .iter()
        .map(|d| {
            let body = d.json();
            (
                body["item_id"].as_i64().unwrap(),
                body["topic"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

async fn per_resource_ordering_holds_back_only_the_same_resource(backend: Backend) {
    let (s, clock, receiver) = hub_with(backend, 100, Duration::from_secs(1)).await;
    let token = s.owner_token().await;
    let webhook = subscribe(
        &s,
        &token,
        json!({"topic": "products", "url": receiver.url("/ordered"), "ordering": "per_resource"}),
    )
    .await;
    assert_eq!(webhook["ordering"], "per_resource");
    settled_status(&s, &token, &webhook["id"], "pending").await;
    // The first delivery about product A fails; A's later changes wait behind it.
    receiver.answer_next(Reply::status(500));
    let a = s
        .create_product(&token, json!({"title": "A", "price": 1}))
        .await["id"]
        .as_i64()
        .unwrap();
    receiver
        .wait_until("A's first attempt", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 1
        })
        .await;
    attempts_recorded(&s, 1).await;
    for title in ["A2", "A3"] {
        let (status, _) = s
            .call(
                Method::PUT,
                &format!("/v2/products/{a}"),
                &token,
                Some(json!({"title": title})),
            )
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    let b = s
        .create_product(&token, json!({"title": "B", "price": 1}))
        .await["id"]
        .as_i64()
        .unwrap();
    receiver
        .wait_until("B", |r| r.iter().filter(|x| !x.is_ping()).count() >= 2)
        .await;
    // B, made after A's updates, went out: a claim since then would have taken them had
    // they been free to go. Once B is recorded, they are still untried.
    let delivery_of = |item: i64| {
        format!(
            "SELECT COUNT(*) FROM webhook_deliveries d JOIN events e ON e.id = d.event_id \
             WHERE d.webhook_id = {} AND e.item_id = {item}",
            webhook["id"]
        )
    };
    eventually("B's delivery to be recorded", || async {
        let sql = format!("{} AND d.status = 'succeeded'", delivery_of(b));
        (s.db.scalar(&sql).await == 1).then_some(())
    })
    .await;
    let untried = format!(
        "{} AND d.status = 'pending' AND d.attempts = 0 AND d.lease_owner IS NULL",
        delivery_of(a)
    );
    assert_eq!(s.db.scalar(&untried).await, 2, "A's updates are held back");
    assert_eq!(
        arrivals(&receiver),
        [
            (a, "products.created".to_owned()),
            (b, "products.created".to_owned())
        ],
        "A's updates wait for A's create; B does not"
    );
    // Once A's create goes through, its updates follow in order.
    clock.advance_secs(20);
    receiver
        .wait_until("A's changes", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 5
        })
        .await;
    let of_a: Vec<String> = arrivals(&receiver)
        .into_iter()
        .filter(|(id, _)| *id == a)
        .map(|(_, topic)| topic)
        .collect();
    assert_eq!(
        of_a,
        [
            "products.created",
            "products.created",
            "products.updated",
            "products.updated"
        ]
    );
    let titles: Vec<Value> = receiver
        .deliveries()
        .iter()
        .filter(|d| d.json()["item_id"] == a)
        .map(|d| d.json()["_embedded"]["item"]["title"].clone())
        .collect();
    assert_eq!(titles, [json!("A"), json!("A"), json!("A2"), json!("A3")]);
}

/// A backlog about one resource drains sequence after sequence, each claimed straight
/// from the resource index when the one before it ends: the due deliveries are scanned
/// once for the whole drain, not once per sequence (a scan walks past the resource's whole
/// backlog, which made a drain quadratic in it on PostgreSQL).
async fn a_hot_resources_backlog_drains_without_scanning_past_it_per_sequence(backend: Backend) {
    const CHANGES: usize = 180;
    let (s, _clock, receiver) = hub_configured(backend, |c| {
        // Only commits and answers wake the dispatcher: the scans counted are those the
        // drain made.
        c.webhook_poll = Duration::from_secs(3600);
    })
    .await;
    let token = s.owner_token().await;
    let (ordered, _product) = parked_ordered_backlog(&s, &token, &receiver, CHANGES).await;
    let changes: Vec<i64> = sequences_and_statuses(&delivery_history(&s, &token, &ordered).await)
        .into_iter()
        .map(|(sequence, _)| sequence)
        .collect();
    assert_eq!(changes.len(), CHANGES);
    let before = s.running().db.claim_counts();
    act_on(&s, &token, &ordered, "reactivate", "active").await;
    let received = receiver
        .wait_until("the whole backlog", |r| {
            sequences_received(r, &ordered).len() >= CHANGES
        })
        .await;
    assert_eq!(
        sequences_received(&received, &ordered),
        changes,
        "in order, once each"
    );
    history_until(&s, &token, &ordered, "every delivery recorded", |h| {
        h.len() == CHANGES && h.iter().all(|d| d["status"] == "succeeded")
    })
    .await;
    let after = s.running().db.claim_counts();
    let scans = after.due_scans - before.due_scans;
    let next_sequences = after.next_sequences - before.next_sequences;
    // A lane holds 12 (three times the 4 in flight per subscription): a scan on the
    // reactivation takes the first of 15 sequences, and each of the others follows the one
    // before. The reactivation wakes the dispatcher twice on PostgreSQL (its own commit,
    // and the notification), and a scan while the lane is full looks once more.
    assert!(scans <= 5, "{scans} scans of the due deliveries");
    assert!(
        next_sequences >= 10,
        "{next_sequences} claims of a next sequence"
    );
    let metrics = s.metrics().await;
    assert!(
        metrics.contains(&format!(
            "webhook_claims_total{{by=\"next_sequence\"}} {}",
            after.next_sequences
        )),
        "{metrics}"
    );
}

async fn a_slow_target_does_not_hold_back_others(backend: Backend) {
    // Requests may take ten seconds: longer than the test waits for the fast target.
    let (s, _clock, fast) = hub_with(backend, 3, Duration::from_secs(10)).await;
    let slow = Receiver::start().await;
    let token = s.owner_token().await;
    let slow_hook = subscribe(
        &s,
        &token,
        json!({"topic": "products", "url": slow.url("/slow")}),
    )
    .await;
    let fast_hook = subscribe(
        &s,
        &token,
        json!({"topic": "products", "url": fast.url("/fast")}),
    )
    .await;
    settled_status(&s, &token, &slow_hook["id"], "pending").await;
    settled_status(&s, &token, &fast_hook["id"], "pending").await;
    // The slow target answers no delivery while the test runs.
    slow.answer_always(Reply::ok().delayed(Duration::from_secs(30)));
    const PRODUCTS: usize = 12;
    for i in 0..PRODUCTS {
        s.create_product(&token, json!({"title": format!("P{i}"), "price": 1}))
            .await;
    }
    fast.wait_until("every delivery to the fast target", |r| {
        r.iter().filter(|x| !x.is_ping()).count() >= PRODUCTS
    })
    .await;
    // Every fast delivery went out while the slow target still held its first ones, and
    // the slow target never has more than its share in flight.
    let slow_attempts = s
        .db
        .scalar(&format!(
            "SELECT COUNT(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id \
             WHERE d.webhook_id = {}",
            slow_hook["id"]
        ))
        .await;
    assert_eq!(slow_attempts, 0, "no slow attempt has ended yet");
    let in_flight = slow.deliveries().len();
    assert!(
        (1..=4).contains(&in_flight),
        "{in_flight} requests at the slow target"
    );
}

async fn a_subscription_is_deleted_while_its_deliveries_are_in_flight(backend: Backend) {
    let (s, _clock, receiver) = hub(backend).await;
    let token = s.owner_token().await;
    let hook = subscribed_to_products(&s, &token, receiver.url("/hook")).await;
    receiver.answer_always(Reply::ok().delayed(Duration::from_millis(20)));
    for i in 0..24 {
        s.create_product(&token, json!({"title": format!("P{i}"), "price": 1}))
            .await;
    }
    receiver
        .wait_until("a few deliveries", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 4
        })
        .await;
    // Attempts are being recorded while the subscription and its deliveries go.
    let (status, body) = s
        .call(
            Method::DELETE,
            &format!("/v2/webhooks/{}", hook["id"]),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = s
        .get_json(&format!("/v2/webhooks/{}", hook["id"]), &token)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Nothing of it is left to claim; what was in flight lands, and nothing else is sent:
    // the count stays put across two later deliveries through the same dispatcher.
    let left =
        s.db.scalar(&format!(
            "SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = {}",
            hook["id"]
        ))
        .await;
    assert_eq!(left, 0);
    receiver.answer_always(Reply::ok());
    let probe = subscribed_to_products(&s, &token, receiver.url("/probe")).await;
    let to_hook = |r: &[Received]| {
        r.iter()
            .filter(|d| !d.is_ping() && webhook_of(d) == hook["id"])
            .count()
    };
    let mut sent = Vec::new();
    for title in ["Probe 1", "Probe 2"] {
        s.create_product(&token, json!({"title": title, "price": 1}))
            .await;
        receiver
            .wait_until(title, |r| {
                r.iter().any(|d| {
                    !d.is_ping()
                        && webhook_of(d) == probe["id"]
                        && d.json()["_embedded"]["item"]["title"] == title
                })
            })
            .await;
        s.deliveries_settled().await;
        sent.push(to_hook(&receiver.received()));
    }
    assert_eq!(sent[0], sent[1], "deliveries after deletion");
}

async fn an_attempt_outlasting_its_claim_is_recorded_as_interrupted(backend: Backend) {
    let (s, clock, receiver) = hub_with(backend, 3, Duration::from_secs(10)).await;
    let token = s.owner_token().await;
    let hook = subscribed_to_products(&s, &token, receiver.url("/hook")).await;
    // The first attempt hangs while its claim (60 s) runs out on the clock; the claim is
    // taken over and the delivery sent again, and the first answer comes while the second
    // attempt is still out.
    receiver.answer_next(Reply::ok().delayed(Duration::from_millis(1000)));
    receiver.answer_next(Reply::ok().delayed(Duration::from_millis(2000)));
    s.create_product(&token, json!({"title": "Hat", "price": 1}))
        .await;
    receiver
        .wait_until("the first attempt", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 1
        })
        .await;
    clock.advance_secs(61);
    receiver
        .wait_until("the attempt made again", |r| {
            r.iter().filter(|x| !x.is_ping()).count() >= 2
        })
        .await;
    let sent = receiver.deliveries();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].header("webhook-id"), sent[1].header("webhook-id"));
    assert_eq!(sent[0].header("x-hook-attempt"), Some("1"));
    assert_eq!(sent[1].header("x-hook-attempt"), Some("2"));
    // Only the attempt made under the current claim counts (both recorded, the second
    // once its answer came, 2 s after it was sent).
    let history = history_until(&s, &token, &hook, "both attempts recorded", |h| {
        h.len() == 1
            && h[0]["status"] == "succeeded"
            && h[0]["_embedded"]["attempts"]
                .as_array()
                .is_some_and(|a| a.len() == 2)
    })
    .await;
    let delivery = &history[0];
    assert_eq!(delivery["status"], "succeeded", "{delivery}");
    assert_eq!(delivery["attempts"], 2, "{delivery}");
    let attempts = delivery["_embedded"]["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{delivery}");
    assert_eq!(attempts[0]["number"], 1);
    assert_eq!(attempts[0]["error_class"], "interrupted");
    assert_eq!(attempts[0]["status_code"], Value::Null);
    assert_eq!(attempts[1]["number"], 2);
    assert_eq!(attempts[1]["status_code"], 200);
    // The answer recorded is the second attempt's, held 2 s by the receiver; the first's
    // (held 1 s) came under a claim that was no longer its own.
    let duration = attempts[1]["duration_ms"].as_i64().unwrap();
    assert!(duration >= 2000, "recorded an attempt of {duration} ms");
    // An interrupted attempt is not the target's failure.
    let (_, webhook) = s
        .get_json(&format!("/v2/webhooks/{}", hook["id"]), &token)
        .await;
    assert_eq!(webhook["error_count"], 0);
    assert_eq!(webhook["status"], "active");
}

/// A per-resource subscription's backlog about one product goes out as sequences: in
/// order, each delivery as soon as the one before it went through, with no poll between
/// them. A failure in a sequence's middle sends the rest back to wait behind its retry.
async fn an_ordered_backlog_goes_out_as_sequences_that_a_failure_cuts_short(backend: Backend) {
    const CHANGES: usize = 30;
    const FAILING: usize = 8;
    let (s, clock, receiver) = hub_configured(backend, |c| {
        // Only commits and answers wake the dispatcher: a drain that waited for a poll
        // would not end.
        c.webhook_poll = Duration::from_secs(3600);
        c.webhook_policy = domain::webhook::FailurePolicy {
            max_errors: 100,
            max_exhausted: 3,
        };
    })
    .await;
    let token = s.owner_token().await;
    let (ordered, product) = parked_ordered_backlog(&s, &token, &receiver, CHANGES).await;
    for _ in 1..FAILING {
        receiver.answer_next(Reply::ok());
    }
    receiver.answer_next(Reply::status(500));
    act_on(&s, &token, &ordered, "reactivate", "active").await;
    let changes = sequences_and_statuses(&delivery_history(&s, &token, &ordered).await)
        .into_iter()
        .map(|(sequence, _)| sequence)
        .collect::<Vec<_>>();
    assert_eq!(changes.len(), CHANGES);
    receiver
        .wait_until("the attempts up to the failing one", |r| {
            sequences_received(r, &ordered).len() >= FAILING
        })
        .await;
    // Once the failure is recorded, what followed it is free, untried, behind it.
    let webhook_id = ordered["id"].as_i64().unwrap();
    eventually("the failure recorded and the rest given back", || async {
        let held = s
            .db
            .scalar(&format!(
                "SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = {webhook_id} \
                 AND status = 'pending' AND lease_owner IS NOT NULL"
            ))
            .await;
        let attempts = s
            .db
            .scalar(&format!(
                "SELECT COUNT(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id \
                 WHERE d.webhook_id = {webhook_id}"
            ))
            .await;
        (held == 0 && attempts == FAILING as i64).then_some(())
    })
    .await;
    assert_eq!(
        sequences_received(&receiver.received(), &ordered),
        changes[..FAILING],
        "in order, and nothing after the failure"
    );
    // After the retry delay, a change wakes the dispatcher: the failed delivery goes
    // again, then everything after it, in order, in sequences of a lane's capacity.
    clock.advance_secs(3_600);
    retitle(&s, &token, &product, "last").await;
    let received = receiver
        .wait_until("the whole backlog", |r| {
            sequences_received(r, &ordered).len() > CHANGES + 1
        })
        .await;
    let arrived = sequences_received(&received, &ordered);
    let mut expected = changes[..FAILING].to_vec();
    expected.extend_from_slice(&changes[FAILING - 1..]);
    assert_eq!(arrived[..CHANGES + 1], expected[..], "{arrived:?}");
    assert!(arrived[CHANGES + 1] > changes[CHANGES - 1], "{arrived:?}");
    let sent = history_until(&s, &token, &ordered, "every delivery succeeded", |h| {
        h.len() == CHANGES + 1 && h.iter().all(|d| d["status"] == "succeeded")
    })
    .await;
    assert_eq!(
        sent.iter().filter(|d| d["attempts"] != 1).count(),
        1,
        "only the failed one was tried twice: {sent:?}"
    );
}

/// A backlog larger than a lane holds, but smaller than a claim looks at, drains at once:
/// a claim that leaves due deliveries for want of room says there is more, so that the
/// lane is refilled as it empties rather than at the next poll.
async fn a_backlog_beyond_a_lanes_room_drains_without_waiting_for_the_poll(backend: Backend) {
    const CHANGES: usize = 40;
    let (s, _clock, receiver) = hub_configured(backend, |c| {
        c.webhook_poll = Duration::from_secs(3600);
    })
    .await;
    let token = s.owner_token().await;
    let [unordered] = active_subscriptions(
        &s,
        &token,
        [json!({"topic": "products", "url": receiver.url("/unordered")})],
    )
    .await;
    act_on(&s, &token, &unordered, "disable", "disabled").await;
    let product = s
        .create_product(&token, json!({"title": "t0", "price": 1}))
        .await;
    for n in 1..CHANGES {
        retitle(&s, &token, &product, &format!("t{n}")).await;
    }
    act_on(&s, &token, &unordered, "reactivate", "active").await;
    let received = receiver
        .wait_until("the whole backlog", |r| {
            sequences_received(r, &unordered).len() >= CHANGES
        })
        .await;
    let mut arrived = sequences_received(&received, &unordered);
    arrived.sort_unstable();
    arrived.dedup();
    assert_eq!(arrived.len(), CHANGES, "each once");
}
