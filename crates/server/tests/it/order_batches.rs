//! Batch status updates of a shop's orders: each order moved on its own with its stock and
//! its event, the orders that cannot be moved reported with why, Bootic's form and names,
//! refusals that write nothing, identical batches in parallel, scopes and other accounts;
//! over 100 orders, a batch job followed to its end, done again from saved progress
//! without a second move, and read only by its account with `batches.read`.

use std::sync::Arc;

use reqwest::header;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, assert_error, error_fields, eventually};

on_both_backends!(
    a_batch_moves_each_order_on_its_own,
    bootic_form_and_names_are_understood,
    refused_batches_write_nothing,
    parallel_identical_batches_move_each_order_once,
    scopes_and_other_accounts,
    over_a_hundred_orders_a_job_moves_them,
    a_job_done_again_from_saved_progress_moves_nothing_twice,
    jobs_are_read_by_their_account_with_batches_read,
    an_order_the_server_fails_on_is_reported_and_the_others_move,
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
    let many: Vec<i64> = (1..=10_001).collect();
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

/// Starts a job over `ids`, asserting the 202, its Location and its pending state.
async fn started(s: &TestServer, token: &str, ids: &[i64], status: &str) -> Value {
    let response = s
        .request(
            Method::POST,
            &format!("/v2/shops/{}/orders/batch_updates", s.shop_id()),
            token,
        )
        .json(&json!({"ids": ids, "status": status}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let location = response.headers()[header::LOCATION]
        .to_str()
        .unwrap()
        .to_owned();
    let job: Value = response.json().await.unwrap();
    assert_eq!(location, job["_links"]["self"]["href"].as_str().unwrap());
    assert!(
        location.ends_with(&format!("/v2/batches/{}", job["id"])),
        "{location}"
    );
    assert_eq!(job["state"], "pending", "{job}");
    assert_eq!(job["kind"], "order_status");
    assert_eq!(job["shop_id"], s.shop_id());
    assert_eq!(job["total"], ids.len());
    assert_eq!(
        (job["processed"].as_i64(), job["succeeded"].as_i64()),
        (Some(0), Some(0))
    );
    assert!(job["finished_on"].is_null());
    job
}

/// Polls a job until it is finished.
async fn finished(s: &TestServer, token: &str, id: i64) -> Value {
    eventually("the batch job to finish", || async {
        let (status, job) = s.get_json(&format!("/v2/batches/{id}"), token).await;
        assert_eq!(status, StatusCode::OK, "{job}");
        (job["state"] == "finished").then_some(job)
    })
    .await
}

/// `count` orders in checkout of the shop, one unit of `variant` each.
async fn carts(s: &TestServer, token: &str, variant: i64, count: usize) -> Vec<i64> {
    let mut ids = Vec::with_capacity(count);
    for _ in 0..count {
        ids.push(new_order(s, token, s.shop_id(), variant).await);
    }
    ids
}

async fn over_a_hundred_orders_a_job_moves_them(s: TestServer) {
    let token = s.owner_token().await;
    let (product, variant) = stocked(&s, &token, "JOB", 500).await;
    let mut ids = carts(&s, &token, variant, 118).await;
    let other = s.seed_another_account().await;
    let theirs = {
        let intruder = s.owner_token_of(&other).await;
        let (_, their_variant) = stocked(&s, &intruder, "THEIRS", 5).await;
        new_order(&s, &intruder, other.shops[0].id, their_variant).await
    };
    let cancelled = ids[7];
    let (status, answer) = batch(
        &s,
        &token,
        json!({"ids": [cancelled], "status": "cancelled"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    // Unknown and foreign orders among the first and last of the job's chunks.
    ids.insert(3, theirs);
    ids.push(theirs + 1000);
    assert_eq!(ids.len(), 120);

    let job = started(&s, &token, &ids, "pending").await;
    let id = job["id"].as_i64().unwrap();
    assert_eq!(job["status"], "placed");
    assert_eq!(s.event_count("batches.created").await, 1);
    let done = finished(&s, &token, id).await;
    assert_eq!(done["total"], 120);
    assert_eq!(done["processed"], 120);
    assert_eq!(done["succeeded"], 117);
    assert_eq!(done["failed"], 3);
    assert!(done["finished_on"].is_string(), "{done}");
    assert_eq!(
        invalid(&done),
        [
            (theirs, vec!["id".to_owned()]),
            (cancelled, vec!["status".to_owned()]),
            (theirs + 1000, vec!["id".to_owned()]),
        ]
    );
    let items = done["_embedded"]["invalid_items"].as_array().unwrap();
    assert_eq!(items[0]["errors"], items[2]["errors"]);
    assert!(done["_links"]["shops:shop"]["href"].is_string(), "{done}");

    // Each order moved once, with its stock and its one event; the others not at all.
    for order in ids
        .iter()
        .filter(|o| ![theirs, theirs + 1000, cancelled].contains(o))
    {
        assert_eq!(
            events_of(&s, "orders.updated.placed", *order).await,
            1,
            "order {order}"
        );
    }
    assert_eq!(s.event_count("orders.updated.placed").await, 117);
    assert_eq!(status_of(&s, &token, cancelled).await, "cancelled");
    assert_eq!(stock_of(&s, &token, product, variant).await, 500 - 117);
    // The end is heard once, with the job as its GET shows it.
    let finished_events = eventually("the finished event", || async {
        let count = s.event_count("batches.finished").await;
        (count > 0).then_some(count)
    })
    .await;
    assert_eq!(finished_events, 1);
    let items: Vec<(String,)> =
        s.db.rows("SELECT item FROM events WHERE topic = 'batches.finished'")
            .await;
    let item: Value = serde_json::from_str(&items[0].0).unwrap();
    assert_eq!(item["state"], "finished", "{item}");
    assert_eq!(item["succeeded"], 117);
    assert_eq!(
        item["_embedded"]["invalid_items"],
        done["_embedded"]["invalid_items"]
    );
}

async fn a_job_done_again_from_saved_progress_moves_nothing_twice(s: TestServer) {
    let token = s.owner_token().await;
    let (product, variant) = stocked(&s, &token, "AGAIN", 300).await;
    let ids = carts(&s, &token, variant, 130).await;
    let job = started(&s, &token, &ids, "placed").await;
    let id = job["id"].as_i64().unwrap();
    finished(&s, &token, id).await;
    assert_eq!(s.event_count("orders.updated.placed").await, 130);
    // As after a crash between the moves of a chunk and the save of its progress: the
    // job stands where its last save left it, and the worker does those orders again.
    s.db.execute(&format!(
        "UPDATE batches SET state = 'running', processed = 50, succeeded = 50, failed = 0, \
         invalid_items = '[]', finished_on = NULL WHERE id = {id}"
    ))
    .await;
    let again = eventually("the job to finish again", || async {
        let (_, job) = s.get_json(&format!("/v2/batches/{id}"), &token).await;
        (job["state"] == "finished").then_some(job)
    })
    .await;
    assert_eq!(
        (again["processed"].as_i64(), again["succeeded"].as_i64()),
        (Some(130), Some(130))
    );
    assert_eq!(again["_embedded"]["invalid_items"], json!([]));
    assert_eq!(s.event_count("orders.updated.placed").await, 130);
    assert_eq!(stock_of(&s, &token, product, variant).await, 300 - 130);
}

async fn jobs_are_read_by_their_account_with_batches_read(s: TestServer) {
    let token = s.owner_token().await;
    let ids: Vec<i64> = (900_001..=900_101).collect();
    // Moving orders needs orders.write only; following the job needs batches.read.
    let writer = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("orders.write"),
        )
        .await;
    let job = started(&s, &writer, &ids, "closed").await;
    let id = job["id"].as_i64().unwrap();
    let answer = s.get_json(&format!("/v2/batches/{id}"), &writer).await;
    assert_error(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    let answer = s.get_json("/v2/batches", &writer).await;
    assert_error(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    let reader = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("batches.read"),
        )
        .await;
    let done = finished(&s, &reader, id).await;
    assert_eq!(
        (done["succeeded"].as_i64(), done["failed"].as_i64()),
        (Some(0), Some(101))
    );
    let (_, root) = s.get_json("/v2", &reader).await;
    assert!(
        root["_links"]["batches:batch"]["templated"] == true,
        "{root}"
    );
    let (_, root) = s.get_json("/v2", &writer).await;
    assert!(root["_links"].get("batches:batches").is_none());

    // The list: newest first, by state and shop.
    let second = started(&s, &token, &ids, "closed").await;
    finished(&s, &token, second["id"].as_i64().unwrap()).await;
    let (status, list) = s.get_json("/v2/batches", &reader).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(ids_of_list(&list), [second["id"].as_i64().unwrap(), id]);
    assert_eq!(list["total_items"], 2);
    // A list shows each job's progress; its invalid items (up to 10,000) are on its page.
    let listed = &list["_embedded"]["items"][1];
    assert_eq!(listed["failed"], 101);
    assert!(
        listed["_embedded"].get("invalid_items").is_none(),
        "{listed}"
    );
    assert_eq!(
        done["_embedded"]["invalid_items"].as_array().unwrap().len(),
        101
    );
    let (_, none) = s.get_json("/v2/batches?state=pending", &reader).await;
    assert_eq!(none["total_items"], 0, "{none}");
    let (_, by_shop) = s
        .get_json(
            &format!(
                "/v2/batches?state=finished&shop_ids={}&sort=id.asc",
                s.shop_id()
            ),
            &reader,
        )
        .await;
    assert_eq!(ids_of_list(&by_shop), [id, second["id"].as_i64().unwrap()]);
    let answer = s
        .get_json("/v2/batches?state=done&shop_ids=x", &reader)
        .await;
    assert_eq!(answer.0, StatusCode::UNPROCESSABLE_ENTITY, "{}", answer.1);
    assert_eq!(error_fields(&answer.1), ["state", "shop_ids"]);

    // Another account sees none of it.
    let other = s.seed_another_account().await;
    let intruder = s.owner_token_of(&other).await;
    let answer = s.get_json(&format!("/v2/batches/{id}"), &intruder).await;
    assert_error(&answer, StatusCode::NOT_FOUND, "not_found");
    let (_, theirs) = s.get_json("/v2/batches", &intruder).await;
    assert_eq!(theirs["total_items"], 0, "{theirs}");
    let answer = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/orders/batch_updates", s.shop_id()),
            &intruder,
            Some(json!({"ids": ids, "status": "closed"})),
        )
        .await;
    assert_error(&answer, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM batches").await, 2);
}

fn ids_of_list(list: &Value) -> Vec<i64> {
    ids(&list["_embedded"]["items"])
}

async fn an_order_the_server_fails_on_is_reported_and_the_others_move(s: TestServer) {
    let token = s.owner_token().await;
    let (_, variant) = stocked(&s, &token, "BROKEN", 300).await;
    let orders = carts(&s, &token, variant, 3).await;
    // A row the server cannot read: every read of this order fails, as a server error.
    let broken = orders[1];
    s.db.execute(&format!(
        "UPDATE orders SET shipping_address = 'not json' WHERE id = {broken}"
    ))
    .await;
    let (status, answer) = batch(&s, &token, json!({"ids": orders, "status": "placed"})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        ids(&answer["_embedded"]["valid_items"]),
        [orders[0], orders[2]]
    );
    assert_eq!(invalid(&answer), [(broken, vec!["id".to_owned()])]);
    let message = &answer["_embedded"]["invalid_items"][0]["errors"][0]["messages"][0];
    assert!(
        message.as_str().unwrap().contains("move it again"),
        "{answer}"
    );

    // A job is not stuck on it either: it finishes, with the order among its failures.
    let mut more = carts(&s, &token, variant, 100).await;
    more.push(broken);
    let job = started(&s, &token, &more, "placed").await;
    let done = finished(&s, &token, job["id"].as_i64().unwrap()).await;
    assert_eq!(
        (done["succeeded"].as_i64(), done["failed"].as_i64()),
        (Some(100), Some(1))
    );
    assert_eq!(invalid(&done), [(broken, vec!["id".to_owned()])]);
    assert_eq!(s.event_count("orders.updated.placed").await, 102);
    s.db.execute(&format!(
        "UPDATE orders SET shipping_address = NULL WHERE id = {broken}"
    ))
    .await;
}
