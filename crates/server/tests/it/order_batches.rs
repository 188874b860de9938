//! Batch status updates of a shop's orders: each order moved on its own with its stock and
//! its event, the orders that cannot be moved reported with why, Bootic's form and names,
//! refusals that write nothing, identical batches in parallel, scopes and other accounts.

use std::sync::Arc;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, assert_error, error_fields};

on_both_backends!(
    a_batch_moves_each_order_on_its_own,
    bootic_form_and_names_are_understood,
    refused_batches_write_nothing,
    parallel_identical_batches_move_each_order_once,
    scopes_and_other_accounts,
);

/// One variant with `stock` units; answers `(product_id, variant_id)`.
async fn stocked(s: &TestServer, token: &str, sku: &str, stock: i64) -> (i64, i64) {
    let product = s
        .create_product(
            token,
            json!({"title": format!("Item {sku}"), "status": "visible",
                   "variants": [{"sku": sku, "price": 100, "stock": stock}]}),
        )
        .await;
    (
        product["id"].as_i64().unwrap(),
        product["_embedded"]["variants"][0]["id"].as_i64().unwrap(),
    )
}

/// An order in checkout of `shop_id` for one unit of `variant`; answers its id.
async fn new_order(s: &TestServer, token: &str, shop_id: i64, variant: i64) -> i64 {
    let (status, order) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{shop_id}/orders"),
            token,
            Some(json!({"lines": [{"variant_id": variant, "quantity": 1}]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    order["id"].as_i64().unwrap()
}

async fn place(s: &TestServer, token: &str, id: i64) {
    let (status, order) = s
        .call(Method::PUT, &format!("/v2/orders/{id}/place"), token, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{order}");
}

async fn batch(s: &TestServer, token: &str, body: Value) -> (StatusCode, Value) {
    let path = format!("/v2/shops/{}/orders/batch_updates", s.shop_id());
    s.call(Method::POST, &path, token, Some(body)).await
}

async fn status_of(s: &TestServer, token: &str, id: i64) -> String {
    let (status, order) = s.get_json(&format!("/v2/orders/{id}"), token).await;
    assert_eq!(status, StatusCode::OK, "{order}");
    order["status"].as_str().unwrap().to_owned()
}

async fn stock_of(s: &TestServer, token: &str, product: i64, variant: i64) -> i64 {
    let path = format!("/v2/products/{product}/variants/{variant}");
    let (_, variant) = s.get_json(&path, token).await;
    variant["stock"].as_i64().unwrap()
}

async fn events_of(s: &TestServer, topic: &str, order: i64) -> i64 {
    s.db.scalar(&format!(
        "SELECT COUNT(*) FROM events WHERE topic = '{topic}' AND item_id = {order}"
    ))
    .await
}

fn ids(items: &Value) -> Vec<i64> {
    items
        .as_array()
        .unwrap_or_else(|| panic!("a list: {items}"))
        .iter()
        .map(|item| item["id"].as_i64().unwrap())
        .collect()
}

/// The fields each invalid item's errors name, by order id.
fn invalid(answer: &Value) -> Vec<(i64, Vec<String>)> {
    answer["_embedded"]["invalid_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let fields = item["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["field"].as_str().unwrap().to_owned())
                .collect();
            (item["id"].as_i64().unwrap(), fields)
        })
        .collect()
}

async fn a_batch_moves_each_order_on_its_own(s: TestServer) {
    let token = s.owner_token().await;
    let (product, variant) = stocked(&s, &token, "BATCH", 10).await;
    let mut placed = Vec::new();
    for _ in 0..3 {
        let id = new_order(&s, &token, s.shop_id(), variant).await;
        place(&s, &token, id).await;
        placed.push(id);
    }
    let in_checkout = new_order(&s, &token, s.shop_id(), variant).await;
    assert_eq!(stock_of(&s, &token, product, variant).await, 7);
    let other = s.seed_another_account().await;
    let theirs = {
        let intruder = s.owner_token_of(&other).await;
        let (_, their_variant) = stocked(&s, &intruder, "THEIRS", 5).await;
        new_order(&s, &intruder, other.shops[0].id, their_variant).await
    };
    let missing = theirs + 1000;

    // Close: the placed orders move; the cart cannot, and unknown orders are not found.
    let named = [
        placed[0],
        in_checkout,
        missing,
        placed[1],
        theirs,
        placed[2],
    ];
    let (status, answer) = batch(&s, &token, json!({"ids": named, "status": "closed"})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["ids"], json!(named));
    assert_eq!(answer["status"], "closed");
    assert_eq!(answer["additions"], json!({"status": "closed"}));
    let valid = &answer["_embedded"]["valid_items"];
    assert_eq!(ids(valid), placed);
    assert!(
        valid
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["status"] == "closed")
    );
    assert!(valid[0]["_links"]["self"]["href"].is_string());
    assert!(valid[0]["_embedded"]["lines"].is_array());
    assert_eq!(
        invalid(&answer),
        [
            (in_checkout, vec!["status".to_owned()]),
            (missing, vec!["id".to_owned()]),
            (theirs, vec!["id".to_owned()]),
        ]
    );
    // Another account's order is told apart from a missing one by nothing.
    let items = answer["_embedded"]["invalid_items"].as_array().unwrap();
    assert_eq!(items[1]["errors"], items[2]["errors"]);
    for id in &placed {
        assert_eq!(status_of(&s, &token, *id).await, "closed");
        assert_eq!(events_of(&s, "orders.updated.closed", *id).await, 1);
    }
    assert_eq!(status_of(&s, &token, in_checkout).await, "checkout");
    assert_eq!(events_of(&s, "orders.updated.closed", in_checkout).await, 0);

    // Closing again: the closed orders are already there (valid, no second event).
    let (status, again) = batch(&s, &token, json!({"ids": placed, "status": "closed"})).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(ids(&again["_embedded"]["valid_items"]), placed);
    assert_eq!(again["_embedded"]["invalid_items"], json!([]));
    assert_eq!(s.event_count("orders.updated.closed").await, 3);

    // Shipping one and cancelling the rest: stock comes back from the cancelled only.
    let (status, shipped) =
        batch(&s, &token, json!({"ids": [placed[0]], "status": "shipped"})).await;
    assert_eq!(status, StatusCode::OK, "{shipped}");
    assert_eq!(shipped["_embedded"]["valid_items"][0]["status"], "shipped");
    let (status, cancelled) = batch(
        &s,
        &token,
        json!({"ids": [placed[0], placed[1], placed[2], in_checkout], "status": "cancelled"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(
        ids(&cancelled["_embedded"]["valid_items"]),
        [placed[1], placed[2], in_checkout]
    );
    assert_eq!(
        invalid(&cancelled),
        [(placed[0], vec!["status".to_owned()])]
    );
    assert_eq!(status_of(&s, &token, placed[0]).await, "shipped");
    assert_eq!(stock_of(&s, &token, product, variant).await, 9);
    assert_eq!(s.event_count("orders.updated.cancelled").await, 3);
}

async fn bootic_form_and_names_are_understood(s: TestServer) {
    let token = s.owner_token().await;
    let (product, variant) = stocked(&s, &token, "BOOTIC", 10).await;
    let a = new_order(&s, &token, s.shop_id(), variant).await;
    let b = new_order(&s, &token, s.shop_id(), variant).await;
    // `pending` is placed: the stock is taken.
    let (status, answer) = batch(
        &s,
        &token,
        json!({"ids": [a, b], "additions": {"status": "pending"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["status"], "placed");
    assert_eq!(answer["additions"]["status"], "placed");
    assert_eq!(ids(&answer["_embedded"]["valid_items"]), [a, b]);
    assert_eq!(stock_of(&s, &token, product, variant).await, 8);
    assert_eq!(s.event_count("orders.updated.placed").await, 2);
    // `invalid` is cancelled: the stock comes back.
    let (status, answer) = batch(&s, &token, json!({"ids": [b], "status": "invalid"})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["status"], "cancelled");
    assert_eq!(status_of(&s, &token, b).await, "cancelled");
    assert_eq!(status_of(&s, &token, a).await, "placed");
    assert_eq!(stock_of(&s, &token, product, variant).await, 9);
}

async fn refused_batches_write_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let (_, variant) = stocked(&s, &token, "REFUSED", 10).await;
    let order = new_order(&s, &token, s.shop_id(), variant).await;
    let events = s.db.scalar("SELECT COUNT(*) FROM events").await;
    let many: Vec<i64> = (1..=101).collect();
    for (body, fields) in [
        (json!({"ids": [], "status": "placed"}), vec!["ids"]),
        (json!({"status": "placed"}), vec!["ids"]),
        (json!({"ids": many, "status": "placed"}), vec!["ids"]),
        (
            json!({"ids": [order, 0, order, -4], "status": "placed"}),
            vec!["ids[1]", "ids[2]", "ids[3]"],
        ),
        (json!({"ids": [order], "status": "paid"}), vec!["status"]),
        (
            json!({"ids": [order], "status": "checkout"}),
            vec!["status"],
        ),
        (json!({"ids": [order]}), vec!["status"]),
        (
            json!({"ids": [order], "additions": {"status": "sent"}}),
            vec!["additions.status"],
        ),
        (
            json!({"ids": [order], "status": "placed", "additions": {"status": "placed"}}),
            vec!["status"],
        ),
        (json!({"ids": ["one"], "status": "placed"}), vec!["ids[0]"]),
    ] {
        let answer = batch(&s, &token, body.clone()).await;
        assert_eq!(
            answer.0,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {}",
            answer.1
        );
        assert_eq!(error_fields(&answer.1), fields, "{body}");
    }
    let (status, answer) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/orders/batch_updates", s.shop_id()),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert!(!error_fields(&answer).is_empty(), "{answer}");
    // A shop of no one's: not found, and nothing moves.
    let answer = s
        .call(
            Method::POST,
            "/v2/shops/999999/orders/batch_updates",
            &token,
            Some(json!({"ids": [order], "status": "placed"})),
        )
        .await;
    assert_error(&answer, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(status_of(&s, &token, order).await, "checkout");
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM events").await, events);
}

async fn parallel_identical_batches_move_each_order_once(s: TestServer) {
    let s = Arc::new(s);
    let token = s.owner_token().await;
    let (_, variant) = stocked(&s, &token, "RACE", 100).await;
    let mut orders = Vec::new();
    for _ in 0..12 {
        let id = new_order(&s, &token, s.shop_id(), variant).await;
        place(&s, &token, id).await;
        orders.push(id);
    }
    let tasks: Vec<_> = (0..3)
        .map(|_| {
            let (s, token, orders) = (s.clone(), token.clone(), orders.clone());
            tokio::spawn(async move {
                batch(&s, &token, json!({"ids": orders, "status": "closed"})).await
            })
        })
        .collect();
    for task in tasks {
        let (status, answer) = task.await.unwrap();
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(ids(&answer["_embedded"]["valid_items"]), orders);
        assert_eq!(answer["_embedded"]["invalid_items"], json!([]));
    }
    for id in &orders {
        assert_eq!(
            events_of(&s, "orders.updated.closed", *id).await,
            1,
            "order {id}"
        );
        assert_eq!(
            events_of(&s, "orders.updated.placed", *id).await,
            1,
            "order {id}"
        );
        assert_eq!(status_of(&s, &token, *id).await, "closed");
    }
}

async fn scopes_and_other_accounts(s: TestServer) {
    let token = s.owner_token().await;
    let (_, variant) = stocked(&s, &token, "SCOPES", 10).await;
    let order = new_order(&s, &token, s.shop_id(), variant).await;
    let body = json!({"ids": [order], "status": "placed"});
    // Moving orders needs orders.write; the shop links to it only then.
    let reader = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("orders.read shops.read batches.write"),
        )
        .await;
    let answer = batch(&s, &reader, body.clone()).await;
    assert_error(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    let shop_path = format!("/v2/shops/{}", s.shop_id());
    let (_, shop) = s.get_json(&shop_path, &reader).await;
    assert!(shop["_links"].get("orders:batch_updates").is_none());
    let (_, shop) = s.get_json(&shop_path, &token).await;
    assert!(
        shop["_links"]["orders:batch_updates"]["href"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/v2/shops/{}/orders/batch_updates", s.shop_id()))
    );
    // Another account cannot name this shop, nor move its orders from its own.
    let other = s.seed_another_account().await;
    let intruder = s.owner_token_of(&other).await;
    let answer = batch(&s, &intruder, body.clone()).await;
    assert_error(&answer, StatusCode::NOT_FOUND, "not_found");
    let (status, answer) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/orders/batch_updates", other.shops[0].id),
            &intruder,
            Some(body),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(invalid(&answer), [(order, vec!["id".to_owned()])]);
    assert_eq!(status_of(&s, &token, order).await, "checkout");
    assert_eq!(s.event_count("orders.updated.placed").await, 0);
}
