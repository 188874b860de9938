//! The service layer without HTTP: an order created, priced and placed by the system actor
//! (as a scheduler will) reaches webhook subscribers exactly as one made through the API.

use std::sync::Arc;

use domain::order::{OrderStatus, Transition};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use services::orders::input::NewOrder;
use services::{Actor, Services, Unconditional};

use crate::on_both_backends;
use crate::receiver::Received;
use crate::support::Backend;
use crate::webhooks::{active_subscriptions, hub, webhook_of};

on_both_backends!(an_order_made_by_the_system_reaches_subscribers_as_one_made_through_http);

async fn an_order_made_by_the_system_reaches_subscribers_as_one_made_through_http(
    backend: Backend,
) {
    let (s, _clock, receiver) = hub(backend).await;
    let token = s.owner_token().await;
    let [orders, catalog] = active_subscriptions(
        &s,
        &token,
        [
            json!({"topic": "orders", "url": receiver.url("/orders")}),
            json!({"topic": "products", "url": receiver.url("/products")}),
        ],
    )
    .await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Sold twice", "variants": [{"sku": "SYS-1", "price": 1500, "stock": 10}]}),
        )
        .await;
    let variant_id = product["_embedded"]["variants"][0]["id"].as_i64().unwrap();
    let order_body = |quantity: i64| json!({"lines": [{"variant_id": variant_id, "quantity": quantity}], "email": "buyer@example.com"});
    let get = |path: String| {
        let (s, token) = (&s, &token);
        async move {
            let (status, doc) = s.get_json(&path, token).await;
            assert_eq!(status, StatusCode::OK, "{doc}");
            doc
        }
    };

    // Through the API.
    let (status, http_created) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            &token,
            Some(order_body(2)),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{http_created}");
    let http_id = http_created["id"].as_i64().unwrap();
    let (status, http_placed) = s
        .call(
            Method::PUT,
            &format!("/v2/orders/{http_id}/place"),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{http_placed}");
    let variant_path = format!("/v2/products/{}/variants/{variant_id}", product["id"]);
    let stock_after_http = get(variant_path.clone()).await;

    // Through the services, by the system, with no request around it: as the server's
    // own background work would, on its database.
    let presenter = Arc::new(api::Presenter::new(&s.url));
    let services = Services::new(s.running().db.clone(), s.clock.clone(), presenter);
    let actor = Actor::system("test", s.demo.account_id, s.seller_id());
    let input: NewOrder = serde_json::from_value(order_body(3)).unwrap();
    let made = services::orders::create(&services, &actor, s.shop_id(), input)
        .await
        .expect("the system creates an order");
    assert_eq!(made.value.order.status, OrderStatus::Checkout);
    // Priced by the same rule: three at the variant's price.
    assert_eq!(
        (made.value.order.net_total, made.value.order.total),
        (4500, 4500)
    );
    assert_eq!(made.value.order.app_id, None, "no app made it");
    let system_id = made.value.order.id;
    let system_created = get(format!("/v2/orders/{system_id}")).await;
    let placed = services::orders::transition(
        &services,
        &actor,
        system_id,
        &Unconditional,
        Transition::Place,
        None,
    )
    .await
    .expect("the system places it");
    assert_eq!(placed.value.order.status, OrderStatus::Placed);
    let system_placed = get(format!("/v2/orders/{system_id}")).await;
    let stock_after_system = get(variant_path).await;
    assert_eq!(stock_after_system["stock"], 5, "2 and 3 of 10 taken");

    // Each subscriber hears both orders alike: the same topics, each with the order (or
    // the variant whose stock it took) as a GET showed it then.
    receiver
        .wait_until("both orders' deliveries and their stock", |r| {
            let heard = |webhook: &Value, topic: &str| {
                r.iter()
                    .filter(|d| !d.is_ping() && webhook_of(d) == webhook["id"].as_i64().unwrap())
                    .filter(|d| d.json()["topic"] == topic)
                    .count()
            };
            heard(&orders, "orders.created.checkout") == 2
                && heard(&orders, "orders.updated.placed") == 2
                && heard(&catalog, "products.updated.variants.updated") == 2
        })
        .await;
    let deliveries = receiver.deliveries();
    let heard_of = |webhook: &Value, item_id: i64| -> Vec<(String, Value)> {
        let mut heard: Vec<&Received> = deliveries
            .iter()
            .filter(|d| !d.is_ping() && webhook_of(d) == webhook["id"].as_i64().unwrap())
            .filter(|d| d.json()["item_id"] == item_id)
            .collect();
        heard.sort_by_key(|d| d.json()["sequence"].as_i64().unwrap());
        heard
            .iter()
            .map(|d| {
                let body = d.json();
                (
                    body["topic"].as_str().unwrap().to_owned(),
                    body["_embedded"]["item"].clone(),
                )
            })
            .collect()
    };
    let expected = |created: Value, placed: Value| {
        vec![
            ("orders.created.checkout".to_owned(), created),
            ("orders.updated.placed".to_owned(), placed),
        ]
    };
    assert_eq!(
        heard_of(&orders, http_id),
        expected(http_created, http_placed)
    );
    assert_eq!(
        heard_of(&orders, system_id),
        expected(system_created, system_placed)
    );
    let stock_heard = heard_of(&catalog, variant_id);
    let stock_topics: Vec<&str> = stock_heard
        .iter()
        .map(|(topic, _)| topic.as_str())
        .filter(|topic| *topic == "products.updated.variants.updated")
        .collect();
    assert_eq!(stock_topics.len(), 2, "{stock_heard:?}");
    let last = &stock_heard.last().unwrap().1;
    assert_eq!(last, &stock_after_system);
    assert!(
        stock_heard
            .iter()
            .any(|(_, variant)| variant == &stock_after_http),
        "{stock_heard:?}"
    );
}
