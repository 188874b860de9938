//! Orders: create in checkout with priced, snapshotted lines, read and list them, every
//! refusal with nothing written, the state machine with its stock changes and events, who
//! sees and changes orders, and concurrent placements on scarce stock.

use std::sync::Arc;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, assert_error, error_fields, item_ids, json};

on_both_backends!(
    create_read_and_list_with_priced_snapshot_lines,
    list_filters_sort_and_pages_at_a_constant_cost,
    invalid_orders_are_refused_and_write_nothing,
    the_state_machine_moves_stock_and_records_each_move,
    checkout_edits_reprice_and_later_edits_are_limited,
    concurrent_placements_never_oversell,
    other_accounts_and_missing_scopes_see_and_change_nothing,
    catalog_changes_leave_orders_as_they_were,
    etags_and_if_match_guard_orders,
);

/// A visible product with these variants; answers its variant ids.
async fn variants_of_new_product(s: &TestServer, token: &str, body: Value) -> Vec<i64> {
    let product = s.create_product(token, body).await;
    product["_embedded"]["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_i64().unwrap())
        .collect()
}

/// One variant with `stock` units at `price`; answers `(product_id, variant_id)`.
async fn stocked(s: &TestServer, token: &str, sku: &str, price: i64, stock: i64) -> (i64, i64) {
    let product = s
        .create_product(
            token,
            json!({"title": format!("Item {sku}"), "status": "visible",
                   "variants": [{"sku": sku, "price": price, "stock": stock}]}),
        )
        .await;
    (
        product["id"].as_i64().unwrap(),
        product["_embedded"]["variants"][0]["id"].as_i64().unwrap(),
    )
}

async fn post_order(s: &TestServer, token: &str, shop_id: i64, body: Value) -> (StatusCode, Value) {
    s.call(
        Method::POST,
        &format!("/v2/shops/{shop_id}/orders"),
        token,
        Some(body),
    )
    .await
}

/// Creates an order in the first demo shop, asserting that it was created.
async fn new_order(s: &TestServer, token: &str, body: Value) -> Value {
    let (status, order) = post_order(s, token, s.shop_id(), body).await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    order
}

/// `PUT /v2/orders/{id}/{action}`.
async fn act(
    s: &TestServer,
    token: &str,
    order: &Value,
    action: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    s.call(
        Method::PUT,
        &format!("/v2/orders/{}/{action}", order["id"]),
        token,
        body,
    )
    .await
}

async fn stock_of(s: &TestServer, token: &str, product_id: i64, variant_id: i64) -> i64 {
    let (status, variant) = s
        .get_json(
            &format!("/v2/products/{product_id}/variants/{variant_id}"),
            token,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{variant}");
    variant["stock"].as_i64().unwrap()
}

/// The `orders:` links of an order but its payments (every order has them, whatever the
/// status allows: see `payments.rs`).
fn links(resource: &Value) -> Vec<String> {
    let mut rels: Vec<String> = resource["_links"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("orders:") && *k != "orders:payments")
        // Documents' links are checked with documents (order_documents.rs).
        .filter(|k| !k.contains("document"))
        .cloned()
        .collect();
    rels.sort();
    rels
}

async fn orders_in_db(s: &TestServer) -> i64 {
    s.db.scalar("SELECT COUNT(*) FROM orders").await
}

async fn create_read_and_list_with_priced_snapshot_lines(s: TestServer) {
    let token = s.owner_token().await;
    let ids = variants_of_new_product(
        &s,
        &token,
        json!({"title": "Tee", "status": "visible", "variants": [
            {"title": "S", "sku": "TEE-S", "price": 1500, "stock": 10},
            {"title": "M", "sku": "TEE-M", "price": 1000, "stock": 10}]}),
    )
    .await;
    // A wholesale list prices M at 700 from 3 units.
    let (status, list) = s
        .call(
            Method::POST,
            "/v2/price_lists",
            &token,
            Some(json!({"name": "Wholesale", "status": "active"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{list}");
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/price_lists/{}/items", list["id"]),
            &token,
            Some(json!({"items": [{"variant_id": ids[1], "price": 700, "min_quantity": 3}]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let body = json!({
        "lines": [{"variant_id": ids[0], "quantity": 2}, {"variant_id": ids[1], "quantity": 3}],
        "email": " buyer@example.com ", "contact_name": "Ana Buyer", "phone_number": "+56 9 1234",
        "shipping_address": {"name": "Ana", "street": "Av. Italia 1", "locality": "Santiago", "country_code": "CL"},
        "note": "Leave at the door", "shipping_total": 500
    });
    let response = s
        .request(
            Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            &token,
        )
        .header("idempotency-key", "order-1")
        .json(&body)
        .send()
        .await
        .unwrap();
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let (status, order) = json(response).await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert_eq!(location, s.url(&format!("/v2/orders/{}", order["id"])));
    assert_eq!(order["_class"], json!(["order"]));
    assert_eq!(order["code"], "1001");
    assert_eq!(order["status"], "checkout");
    assert_eq!(order["shop_id"], s.shop_id());
    assert_eq!(order["currency_code"], "USD");
    assert_eq!(order["email"], "buyer@example.com");
    assert_eq!(order["shipping_address"]["country_code"], "CL");
    assert_eq!(order["shipping_address"]["street_2"], Value::Null);
    assert_eq!(order["billing_address"], Value::Null);
    // 2 × 1500 + 3 × 700 (the list's tier), plus shipping.
    assert_eq!(order["net_total"], 5100);
    assert_eq!(order["shipping_total"], 500);
    assert_eq!(order["discount_total"], 0);
    assert_eq!(order["tax_total"], 0);
    assert_eq!(order["total"], 5600);
    assert!(order["app_id"].is_i64());
    assert!(order["placed_on"].is_null());
    let lines = order["_embedded"]["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["title"], "Tee");
    assert_eq!(lines[0]["variant_title"], "S");
    assert_eq!(lines[0]["sku"], "TEE-S");
    assert_eq!(
        (&lines[0]["unit_price"], &lines[0]["line_total"]),
        (&json!(1500), &json!(3000))
    );
    assert_eq!(
        (&lines[1]["unit_price"], &lines[1]["line_total"]),
        (&json!(700), &json!(2100))
    );
    assert_eq!(
        links(&order),
        [
            "orders:cancel",
            "orders:delete",
            "orders:place",
            "orders:update"
        ]
    );
    assert_eq!(
        order["_links"]["orders:place"]["href"],
        s.url(&format!("/v2/orders/{}/place", order["id"]))
    );
    assert_eq!(order["_links"]["orders:place"]["method"], "put");
    assert!(order["_links"]["shops:shop"].is_object());
    // Retrying with the same key replays the answer and creates nothing more.
    let replay = s
        .request(
            Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            &token,
        )
        .header("idempotency-key", "order-1")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(json(replay).await.1["id"], order["id"]);
    assert_eq!(orders_in_db(&s).await, 1);
    // GET shows it as created.
    let (status, read) = s
        .get_json(&format!("/v2/orders/{}", order["id"]), &token)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read, order);
    // Codes follow each other per shop; another shop starts its own.
    let second = new_order(&s, &token, json!({"lines": [{"variant_id": ids[0]}]})).await;
    assert_eq!(second["code"], "1002");
    assert_eq!(second["_embedded"]["lines"][0]["quantity"], 1);
    let (status, elsewhere) = post_order(
        &s,
        &token,
        s.demo.shops[1].id,
        json!({"lines": [{"variant_id": ids[0], "quantity": 1}]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{elsewhere}");
    assert_eq!(elsewhere["code"], "1001");
    // The list: newest first, lines embedded.
    let (status, list) = s.get_json("/v2/orders", &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["_class"], json!(["results", "orders"]));
    assert_eq!(list["total_items"], 3);
    assert_eq!(
        item_ids(&list),
        [&elsewhere, &second, &order].map(|o| o["id"].as_i64().unwrap())
    );
    let listed = &list["_embedded"]["items"][2];
    assert_eq!(listed["total"], order["total"]);
    assert_eq!(listed["_embedded"], order["_embedded"]);
    // Each creation is one event, heard in the order's shop.
    assert_eq!(s.event_count("orders.created.checkout").await, 3);
    let shops: Vec<(String, i64)> =
        s.db.rows(
            "SELECT shop_subdomain, item_id FROM events WHERE topic = 'orders.created.checkout' ORDER BY id",
        )
        .await;
    assert_eq!(
        shops[0],
        (
            s.demo.shops[0].subdomain.clone(),
            order["id"].as_i64().unwrap()
        )
    );
    // The root and the shops link to orders, and every orders rel has its page.
    let (_, root) = s.get_json("/v2", &token).await;
    assert_eq!(root["_links"]["orders:orders"]["templated"], true);
    assert!(root["_links"]["orders:order"].is_object());
    let shop = &root["_embedded"]["shops"][0];
    assert!(
        shop["_links"]["orders:orders"]["href"]
            .as_str()
            .unwrap()
            .contains(&format!("/v2/orders?shop_ids={}", s.shop_id()))
    );
    assert_eq!(
        shop["_links"]["orders:create_order"]["href"],
        s.url(&format!("/v2/shops/{}/orders", s.shop_id()))
    );
    for rel in [
        "orders",
        "order",
        "create_order",
        "update",
        "delete",
        "place",
        "close",
        "ship",
        "cancel",
    ] {
        let page = s
            .client
            .get(s.url(&format!("/docs/rels/orders/{rel}")))
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), StatusCode::OK, "{rel}");
    }
}

async fn list_filters_sort_and_pages_at_a_constant_cost(s: TestServer) {
    let token = s.owner_token().await;
    let (_, variant) = stocked(&s, &token, "LIST", 100, 100).await;
    let mut orders = Vec::new();
    for quantity in 1..=5 {
        orders.push(
            new_order(
                &s,
                &token,
                json!({"lines": [{"variant_id": variant, "quantity": quantity}]}),
            )
            .await,
        );
    }
    let (status, _) = act(&s, &token, &orders[1], "place", None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = act(&s, &token, &orders[2], "cancel", None).await;
    assert_eq!(status, StatusCode::OK);
    let (_, other_shop) = post_order(
        &s,
        &token,
        s.demo.shops[1].id,
        json!({"lines": [{"variant_id": variant, "quantity": 9}]}),
    )
    .await;
    let id = |i: usize| orders[i]["id"].as_i64().unwrap();
    let ids_of = |query: &str| {
        let s = &s;
        let token = &token;
        let query = query.to_owned();
        async move {
            let (status, list) = s.get_json(&format!("/v2/orders?{query}"), token).await;
            assert_eq!(status, StatusCode::OK, "{query}: {list}");
            item_ids(&list)
        }
    };
    assert_eq!(ids_of("status=placed").await, [id(1)]);
    assert_eq!(ids_of("status=pending").await, [id(1)], "Bootic's name");
    assert_eq!(
        ids_of("status=placed,cancelled&sort=id.asc").await,
        [id(1), id(2)]
    );
    assert_eq!(
        ids_of(&format!("shop_ids={}", s.demo.shops[1].id)).await,
        [other_shop["id"].as_i64().unwrap()]
    );
    assert_eq!(
        ids_of(&format!("code=1002,1004&shop_ids={}", s.shop_id())).await,
        [id(3), id(1)]
    );
    assert_eq!(ids_of("code=R1C3964").await, Vec::<i64>::new());
    assert_eq!(
        ids_of("total.gte=300&total.lte=400&sort=total.desc").await,
        [id(3), id(2)]
    );
    assert_eq!(ids_of("total_gte=900").await.len(), 1, "underscored bounds");
    assert_eq!(ids_of("created_on.gte=2999-01-01").await.len(), 0);
    assert_eq!(ids_of("created_on.lte=2999-01-01").await.len(), 6);
    assert_eq!(ids_of("updated_on.gte=2000-01-01").await.len(), 6);
    assert_eq!(
        ids_of(&format!("sort=code.asc&shop_ids={}", s.shop_id())).await,
        (0..5).map(id).collect::<Vec<_>>()
    );
    // Pages keep the filters in their links.
    let (_, page) = s
        .get_json(
            &format!(
                "/v2/orders?shop_ids={}&sort=total.asc&per_page=2&page=2",
                s.shop_id()
            ),
            &token,
        )
        .await;
    assert_eq!(page["total_items"], 5);
    assert_eq!(item_ids(&page), [id(2), id(3)]);
    let next = page["_links"]["next"]["href"].as_str().unwrap();
    assert!(
        next.contains("shop_ids=") && next.contains("sort=total.asc") && next.contains("page=3")
    );
    assert!(page["_links"]["prev"].is_object());
    for bad in [
        "status=lost",
        "per_page=0",
        "sort=email.asc",
        "total.gte=x",
        "created_on.gte=soon",
    ] {
        let (status, body) = s.get_json(&format!("/v2/orders?{bad}"), &token).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
    }
    // Lines for a whole page come in one query: a page of 1 costs what a page of 6 does.
    let one = s.queries_of("/v2/orders?per_page=1", &token).await;
    let all = s.queries_of("/v2/orders?per_page=6", &token).await;
    assert_eq!(one, all);
    assert!(all <= 6, "{all} queries");
}

async fn invalid_orders_are_refused_and_write_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let (_, variant) = stocked(&s, &token, "OK", 100, 5).await;
    // A product only in the second shop, and one priced in another currency.
    let only_elsewhere = variants_of_new_product(
        &s,
        &token,
        json!({"title": "Elsewhere", "price": 1, "shop_ids": [s.demo.shops[1].id]}),
    )
    .await[0];
    let in_euros = variants_of_new_product(
        &s,
        &token,
        json!({"title": "Euro", "price": 1, "currency_code": "EUR"}),
    )
    .await[0];
    let other = s.seed_another_account().await;
    let intruder = s.owner_token_of(&other).await;
    let (_, foreign) = s
        .call(
            Method::POST,
            "/v2/products",
            &intruder,
            Some(json!({"title": "Theirs", "price": 1})),
        )
        .await;
    let foreign_variant = foreign["_embedded"]["variants"][0]["id"].as_i64().unwrap();
    let events_before = s.db.scalar("SELECT COUNT(*) FROM events").await;
    let cases = [
        (
            json!({"lines": [
                {"variant_id": 999_999, "quantity": 1},
                {"variant_id": variant, "quantity": 0},
                {"variant_id": variant, "quantity": 1},
                {"variant_id": foreign_variant},
                {"variant_id": only_elsewhere},
                {"variant_id": in_euros}]}),
            vec![
                "lines[0].variant_id",
                "lines[1].quantity",
                "lines[2].variant_id",
                "lines[3].variant_id",
                "lines[4].variant_id",
                "lines[5].variant_id",
            ],
        ),
        (json!({"lines": []}), vec!["lines"]),
        (
            json!({"lines": [{"variant_id": variant, "quantity": 2_000_000_000}]}),
            vec!["lines[0].quantity"],
        ),
        (
            json!({"lines": [{"variant_id": variant}], "email": "not-an-email", "contact_name": "x".repeat(300),
                   "shipping_address": {"country_code": "Chile", "street": "1"}, "shipping_total": -1}),
            vec![
                "contact_name",
                "email",
                "shipping_address.country_code",
                "shipping_total",
            ],
        ),
        (
            json!({"lines": [{"variant_id": "one"}]}),
            vec!["lines[0].variant_id"],
        ),
        (
            json!({"lines": [{"variant_id": variant}], "billing_address": {"planet": "Mars"}}),
            vec!["billing_address"],
        ),
    ];
    for (body, fields) in cases {
        let (status, refused) = post_order(&s, &token, s.shop_id(), body.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {refused}"
        );
        assert_eq!(refused["_class"], json!(["errors"]));
        let mut found = error_fields(&refused);
        found.sort();
        // An address part the API does not know is named with its address.
        for field in &mut found {
            if field.starts_with("billing_address") {
                *field = "billing_address".into();
            }
        }
        assert_eq!(found, fields, "{refused}");
    }
    // Malformed JSON and a missing required field are 400s.
    let malformed = s
        .send_raw(
            Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            &token,
            "application/json",
            "{\"lines\": [",
        )
        .await;
    assert_error(&malformed, StatusCode::BAD_REQUEST, "malformed_json");
    let missing = post_order(&s, &token, s.shop_id(), json!({"email": "a@b.co"})).await;
    assert_error(&missing, StatusCode::BAD_REQUEST, "missing_field");
    assert_eq!(error_fields(&missing.1), ["lines"]);
    // Another account's shop does not exist for this token.
    let theirs = post_order(
        &s,
        &token,
        other.shops[0].id,
        json!({"lines": [{"variant_id": variant}]}),
    )
    .await;
    assert_error(&theirs, StatusCode::NOT_FOUND, "not_found");
    // Nothing was written: no order, no event, no code used up.
    assert_eq!(orders_in_db(&s).await, 0);
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM order_lines").await, 0);
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM events").await,
        events_before
    );
    let first = new_order(&s, &token, json!({"lines": [{"variant_id": variant}]})).await;
    assert_eq!(first["code"], "1001");
}

async fn the_state_machine_moves_stock_and_records_each_move(s: TestServer) {
    let token = s.owner_token().await;
    let (product, variant) = stocked(&s, &token, "FSM", 250, 5).await;
    let (other_product, backordered) = {
        let product = s
            .create_product(
                &token,
                json!({"title": "Made to order", "variants": [
                    {"sku": "MTO", "price": 100, "stock": 0, "available_if_no_stock": true}]}),
            )
            .await;
        (
            product["id"].as_i64().unwrap(),
            product["_embedded"]["variants"][0]["id"].as_i64().unwrap(),
        )
    };
    let order = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": variant, "quantity": 2}, {"variant_id": backordered, "quantity": 3}]}),
    )
    .await;
    // Moves the status does not allow are refused on `status`, changing nothing.
    for action in ["close", "ship"] {
        let (status, refused) = act(&s, &token, &order, action, None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{action}");
        assert_eq!(error_fields(&refused), ["status"]);
    }
    // Placing takes the stock (backorders go below zero).
    let (status, placed) = act(&s, &token, &order, "place", None).await;
    assert_eq!(status, StatusCode::OK, "{placed}");
    assert_eq!(placed["status"], "placed");
    assert!(placed["placed_on"].is_string());
    assert_eq!(
        links(&placed),
        ["orders:cancel", "orders:close", "orders:update"]
    );
    assert_eq!(stock_of(&s, &token, product, variant).await, 3);
    assert_eq!(stock_of(&s, &token, other_product, backordered).await, -3);
    let (status, refused) = act(&s, &token, &order, "place", None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        refused["_embedded"]["errors"][0]["messages"][0]
            .as_str()
            .unwrap()
            .contains("cannot place an order that is placed")
    );
    let (status, refused) = s
        .call(
            Method::DELETE,
            &format!("/v2/orders/{}", order["id"]),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["status"]);
    // Close, then ship with tracking.
    let (status, closed) = act(&s, &token, &order, "close", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(closed["status"], "closed");
    assert!(closed["closed_on"].is_string());
    assert_eq!(
        links(&closed),
        [
            "orders:cancel",
            "orders:ship",
            "orders:tracking",
            "orders:update"
        ]
    );
    let (status, refused) = act(
        &s,
        &token,
        &order,
        "ship",
        Some(json!({"tracking_url": "ftp://nope"})),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["tracking_url"]);
    let (status, shipped) = act(
        &s,
        &token,
        &order,
        "ship",
        Some(
            json!({"tracking_code": "TRK-1", "courier_name": "Chilexpress",
                    "tracking_url": "https://track.example/TRK-1"}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{shipped}");
    assert_eq!(shipped["status"], "shipped");
    assert_eq!(shipped["tracking_code"], "TRK-1");
    assert_eq!(shipped["courier_name"], "Chilexpress");
    assert!(shipped["shipped_on"].is_string());
    assert_eq!(shipped["placed_on"], placed["placed_on"]);
    assert_eq!(links(&shipped), ["orders:tracking", "orders:update"]);
    // A shipped order cannot be cancelled; its stock stays taken.
    let (status, refused) = act(&s, &token, &order, "cancel", None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["status"]);
    assert_eq!(stock_of(&s, &token, product, variant).await, 3);
    // Cancelling a placed order gives its stock back; a checkout one never took any.
    let second = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": variant, "quantity": 3}]}),
    )
    .await;
    let (status, _) = act(&s, &token, &second, "place", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stock_of(&s, &token, product, variant).await, 0);
    let (status, cancelled) = act(&s, &token, &second, "cancel", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cancelled["status"], "cancelled");
    assert!(cancelled["cancelled_on"].is_string());
    assert_eq!(links(&cancelled), ["orders:update"]);
    assert_eq!(stock_of(&s, &token, product, variant).await, 3);
    let (status, _) = act(&s, &token, &second, "cancel", None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let third = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": variant, "quantity": 1}]}),
    )
    .await;
    let (status, _) = act(&s, &token, &third, "cancel", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stock_of(&s, &token, product, variant).await, 3);
    // Too little stock: 422 naming the line, and nothing changes (not even the other line).
    let greedy = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": backordered, "quantity": 1}, {"variant_id": variant, "quantity": 4}]}),
    )
    .await;
    let (status, refused) = act(&s, &token, &greedy, "place", None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(error_fields(&refused), ["lines[1].quantity"]);
    assert_eq!(stock_of(&s, &token, product, variant).await, 3);
    assert_eq!(stock_of(&s, &token, other_product, backordered).await, -3);
    let (_, still) = s
        .get_json(&format!("/v2/orders/{}", greedy["id"]), &token)
        .await;
    assert_eq!(still["status"], "checkout");
    // A checkout order can be deleted, once; the event names it by its code.
    let (status, deleted) = s
        .call(
            Method::DELETE,
            &format!("/v2/orders/{}", greedy["id"]),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted["id"], greedy["id"]);
    let (status, _) = s
        .get_json(&format!("/v2/orders/{}", greedy["id"]), &token)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let slugs: Vec<(Option<String>,)> =
        s.db.rows("SELECT item_slug FROM events WHERE topic = 'orders.deleted'")
            .await;
    assert_eq!(
        slugs,
        [(Some(greedy["code"].as_str().unwrap().to_owned()),)]
    );
    // One event per move that happened, none for a refused one; and each line's stock
    // taken or given back is its variant's change (two lines placed, one line placed and
    // cancelled: none for the checkout cancelled, nor for the refused placement).
    for (topic, count) in [
        ("orders.created.checkout", 4),
        ("orders.updated.placed", 2),
        ("orders.updated.closed", 1),
        ("orders.updated.shipped", 1),
        ("orders.updated.cancelled", 2),
        ("orders.deleted", 1),
        ("orders.updated", 0),
        ("products.updated.variants.updated", 4),
    ] {
        assert_eq!(s.event_count(topic).await, count, "{topic}");
    }
}

async fn checkout_edits_reprice_and_later_edits_are_limited(s: TestServer) {
    let token = s.owner_token().await;
    let (_, cheap) = stocked(&s, &token, "CHEAP", 100, 10).await;
    let (_, dear) = stocked(&s, &token, "DEAR", 1000, 10).await;
    let order = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": cheap, "quantity": 1}], "note": "first"}),
    )
    .await;
    let path = format!("/v2/orders/{}", order["id"]);
    let (status, changed) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"lines": [{"variant_id": dear, "quantity": 2}, {"variant_id": cheap, "quantity": 1}],
                        "shipping_total": 50, "billing_address": {"street": "Main 1"}, "note": null})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["net_total"], 2100);
    assert_eq!(changed["total"], 2150);
    assert_eq!(changed["note"], "");
    assert_eq!(changed["billing_address"]["street"], "Main 1");
    assert_eq!(changed["_embedded"]["lines"][0]["sku"], "DEAR");
    assert_eq!(changed["code"], order["code"]);
    assert_eq!(s.event_count("orders.updated").await, 1);
    // Changing nothing records nothing.
    let (status, same) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"shipping_total": 50})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(same, changed);
    assert_eq!(s.event_count("orders.updated").await, 1);
    // Invalid changes are all named, and change nothing.
    let (status, refused) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"lines": [{"variant_id": 424_242}], "status": "shipped", "email": "nope"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error_fields(&refused),
        ["status", "email", "lines[0].variant_id"]
    );
    // Once placed, only the contact fields and the note change.
    let (status, _) = act(&s, &token, &order, "place", None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, refused) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"lines": [{"variant_id": cheap}], "shipping_address": null, "shipping_total": 0,
                        "note": "ok"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error_fields(&refused),
        ["lines", "shipping_address", "shipping_total"]
    );
    let (status, noted) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"note": "Gift wrap", "email": "late@example.com", "contact_name": null})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{noted}");
    assert_eq!(noted["note"], "Gift wrap");
    assert_eq!(noted["email"], "late@example.com");
    assert_eq!(noted["status"], "placed");
    assert_eq!(noted["total"], 2150);
    assert_eq!(s.event_count("orders.updated").await, 2);
}

async fn concurrent_placements_never_oversell(s: TestServer) {
    let s = Arc::new(s);
    let token = s.owner_token().await;
    const STOCK: i64 = 5;
    const BUYERS: usize = 12;
    let (product, scarce) = stocked(&s, &token, "SCARCE", 10, STOCK).await;
    let (other_product, plenty) = stocked(&s, &token, "PLENTY", 10, 1000).await;
    let mut orders = Vec::new();
    for i in 0..BUYERS {
        // Lines in both orders, so that placements lock the variants in opposite orders.
        let lines = if i % 2 == 0 {
            json!([{"variant_id": scarce, "quantity": 1}, {"variant_id": plenty, "quantity": 1}])
        } else {
            json!([{"variant_id": plenty, "quantity": 1}, {"variant_id": scarce, "quantity": 1}])
        };
        orders.push(new_order(&s, &token, json!({"lines": lines})).await);
    }
    let tasks: Vec<_> = orders
        .into_iter()
        .map(|order| {
            let (s, token) = (s.clone(), token.clone());
            tokio::spawn(async move { act(&s, &token, &order, "place", None).await.0 })
        })
        .collect();
    let mut placed = 0;
    for task in tasks {
        match task.await.unwrap() {
            StatusCode::OK => placed += 1,
            StatusCode::UNPROCESSABLE_ENTITY => {}
            other => panic!("unexpected answer {other}"),
        }
    }
    assert_eq!(placed, STOCK);
    assert_eq!(stock_of(&s, &token, product, scarce).await, 0);
    assert_eq!(
        stock_of(&s, &token, other_product, plenty).await,
        1000 - STOCK
    );
    assert_eq!(s.event_count("orders.updated.placed").await, STOCK);
    let (_, list) = s.get_json("/v2/orders?status=placed", &token).await;
    assert_eq!(list["total_items"], STOCK);
}

async fn other_accounts_and_missing_scopes_see_and_change_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let (_, variant) = stocked(&s, &token, "MINE", 100, 10).await;
    let order = new_order(&s, &token, json!({"lines": [{"variant_id": variant}]})).await;
    let path = format!("/v2/orders/{}", order["id"]);
    let other = s.seed_another_account().await;
    let intruder = s.owner_token_of(&other).await;
    for (method, path) in [
        (Method::GET, path.clone()),
        (Method::PUT, path.clone()),
        (Method::DELETE, path.clone()),
        (Method::PUT, format!("{path}/place")),
        (Method::PUT, format!("{path}/cancel")),
    ] {
        let answer = s
            .call(method.clone(), &path, &intruder, Some(json!({})))
            .await;
        assert_error(&answer, StatusCode::NOT_FOUND, "not_found");
    }
    let (_, theirs) = s.get_json("/v2/orders", &intruder).await;
    assert_eq!(theirs["total_items"], 0);
    // Reading needs orders.read; writing orders.write, and its links show only with it.
    let reader = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("orders.read shops.read"),
        )
        .await;
    let (status, read) = s.get_json(&path, &reader).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(links(&read), Vec::<String>::new());
    let (_, shop) = s
        .get_json(&format!("/v2/shops/{}", s.shop_id()), &reader)
        .await;
    assert!(shop["_links"]["orders:orders"].is_object());
    assert!(shop["_links"].get("orders:create_order").is_none());
    for (method, path, body) in [
        (Method::PUT, path.clone(), json!({"note": "x"})),
        (Method::PUT, format!("{path}/place"), json!({})),
        (Method::DELETE, path.clone(), json!({})),
        (
            Method::POST,
            format!("/v2/shops/{}/orders", s.shop_id()),
            json!({"lines": [{"variant_id": variant}]}),
        ),
    ] {
        let answer = s.call(method, &path, &reader, Some(body)).await;
        assert_error(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    }
    let shops_only = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("shops.read"),
        )
        .await;
    let answer = s.get_json(&path, &shops_only).await;
    assert_error(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    let answer = s.get_json("/v2/orders", &shops_only).await;
    assert_error(&answer, StatusCode::FORBIDDEN, "insufficient_scope");
    let (_, shop) = s
        .get_json(&format!("/v2/shops/{}", s.shop_id()), &shops_only)
        .await;
    assert!(shop["_links"].get("orders:orders").is_none());
    let (_, root) = s.get_json("/v2", &shops_only).await;
    assert!(root["_links"].get("orders:orders").is_none());
    let (_, unchanged) = s.get_json(&path, &token).await;
    assert_eq!(unchanged["status"], "checkout");
    assert_eq!(unchanged["updated_on"], order["updated_on"]);
}

async fn catalog_changes_leave_orders_as_they_were(s: TestServer) {
    let token = s.owner_token().await;
    let (product, variant) = stocked(&s, &token, "SNAP", 400, 10).await;
    let order = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": variant, "quantity": 2}]}),
    )
    .await;
    let (status, placed) = act(&s, &token, &order, "place", None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{product}/variants/{variant}"),
            &token,
            Some(json!({"price": 999, "sku": "RENAMED", "title": "New title"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{product}"),
            &token,
            Some(json!({"title": "Renamed product"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, read) = s
        .get_json(&format!("/v2/orders/{}", order["id"]), &token)
        .await;
    assert_eq!(read, placed, "catalog edits change nothing in the order");
    let (status, _) = s
        .call(
            Method::DELETE,
            &format!("/v2/products/{product}"),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, read) = s
        .get_json(&format!("/v2/orders/{}", order["id"]), &token)
        .await;
    assert_eq!(read, placed, "nor does deleting the product");
    // Cancelling gives back what it can: the variant is gone, the order still cancels.
    let (status, cancelled) = act(&s, &token, &order, "cancel", None).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(
        cancelled["_embedded"]["lines"],
        placed["_embedded"]["lines"]
    );
    // A checkout order whose variant went cannot be placed.
    let (_, variant) = stocked(&s, &token, "GONE", 1, 1).await;
    let doomed = new_order(&s, &token, json!({"lines": [{"variant_id": variant}]})).await;
    let product_id =
        s.db.scalar(&format!(
            "SELECT product_id FROM variants WHERE id = {variant}"
        ))
        .await;
    s.call(
        Method::DELETE,
        &format!("/v2/products/{product_id}"),
        &token,
        None,
    )
    .await;
    let (status, refused) = act(&s, &token, &doomed, "place", None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["lines[0].variant_id"]);
}

async fn etags_and_if_match_guard_orders(s: TestServer) {
    let token = s.owner_token().await;
    let (_, variant) = stocked(&s, &token, "TAG", 100, 10).await;
    let order = new_order(&s, &token, json!({"lines": [{"variant_id": variant}]})).await;
    let path = format!("/v2/orders/{}", order["id"]);
    let first = s.get(&path, &token).send().await.unwrap();
    assert!(first.headers().contains_key("last-modified"));
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    let again = s
        .get(&path, &token)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    // A write naming an old version is refused; naming the current one goes through.
    let stale = s
        .request(Method::PUT, &format!("{path}/place"), &token)
        .header("if-match", "\"stale\"")
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    let placed = s
        .request(Method::PUT, &format!("{path}/place"), &token)
        .header("if-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(placed.status(), StatusCode::OK);
    let changed = s
        .get(&path, &token)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), StatusCode::OK);
    let refused = s
        .request(Method::PUT, &path, &token)
        .header("if-match", &etag)
        .json(&json!({"note": "late"}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::PRECONDITION_FAILED);
}
