//! Concurrent writes to the same rows: for each pair of conflicting operations, a bounded
//! number of rounds fires both requests at once. Neither may answer 5xx; each answers
//! success or the 4xx it would answer had the other come first, and the stored state
//! stays consistent (counts, memberships, nothing left pointing at a deleted row).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{Backend, TestServer};

on_both_backends!(
    product_delete_vs_smart_rule_change,
    product_delete_vs_manual_collection_delete,
    product_delete_vs_joining_a_manual_collection,
    product_update_vs_smart_rule_change,
    smart_collection_create_vs_product_update,
    variant_delete_vs_stock_adjustment,
    product_type_delete_vs_product_taking_it,
    products_swapping_types,
    price_list_delete_vs_item_write,
    variant_delete_vs_item_write,
    order_placement_vs_product_delete,
    collection_delete_vs_reorder,
    twin_product_creations,
    webhook_delete_vs_product_event,
    orders_of_one_customer_counted_at_once_take_turns,
);

/// Rounds per pair: enough to hit the window on either backend, few enough for CI.
const ROUNDS: usize = 20;

const OK: StatusCode = StatusCode::OK;
const CREATED: StatusCode = StatusCode::CREATED;
const NOT_FOUND: StatusCode = StatusCode::NOT_FOUND;
const INVALID: StatusCode = StatusCode::UNPROCESSABLE_ENTITY;

/// One request of a pair.
struct Call {
    method: Method,
    path: String,
    body: Option<Value>,
}

fn call(method: Method, path: impl Into<String>, body: Option<Value>) -> Call {
    Call {
        method,
        path: path.into(),
        body,
    }
}

/// Sends both requests at once; answers both statuses and bodies.
async fn race(s: &TestServer, token: &str, a: Call, b: Call) -> [(StatusCode, Value); 2] {
    let (a, b) = tokio::join!(
        s.call(a.method, &a.path, token, a.body),
        s.call(b.method, &b.path, token, b.body)
    );
    [a, b]
}

/// Asserts that an answer is one of `allowed` (never a server error), and that an error
/// has the body every error has.
fn expect(answer: &(StatusCode, Value), allowed: &[StatusCode], what: &str) {
    let (status, body) = answer;
    assert!(
        !status.is_server_error(),
        "{what} answered {status}: {body}"
    );
    assert!(
        allowed.contains(status),
        "{what} answered {status}, not one of {allowed:?}: {body}"
    );
    if status.is_client_error() {
        let class = &body["_class"];
        assert!(
            *class == json!(["error"]) || *class == json!(["errors"]),
            "{what}: {body}"
        );
    }
}

async fn product(s: &TestServer, token: &str, body: Value) -> i64 {
    s.create_product(token, body).await["id"].as_i64().unwrap()
}

/// A product with two variants; answers its id and theirs.
async fn two_variants(s: &TestServer, token: &str, name: &str) -> (i64, [i64; 2]) {
    let created = s
        .create_product(
            token,
            json!({"title": name, "variants": [
                {"sku": format!("{name}-A"), "price": 100, "stock": 10},
                {"sku": format!("{name}-B"), "price": 200, "stock": 10}
            ]}),
        )
        .await;
    let variant = |i: usize| created["_embedded"]["variants"][i]["id"].as_i64().unwrap();
    (created["id"].as_i64().unwrap(), [variant(0), variant(1)])
}

async fn created(s: &TestServer, token: &str, path: &str, body: Value) -> i64 {
    let (status, made) = s.call(Method::POST, path, token, Some(body)).await;
    assert_eq!(status, CREATED, "{made}");
    made["id"].as_i64().unwrap()
}

async fn collection(s: &TestServer, token: &str, body: Value) -> i64 {
    created(s, token, "/v2/collections", body).await
}

async fn join(s: &TestServer, token: &str, collection: i64, product: i64) {
    let (status, body) = s
        .call(
            Method::POST,
            &format!("/v2/collections/{collection}/products"),
            token,
            Some(json!({"product_id": product})),
        )
        .await;
    assert_eq!(status, OK, "{body}");
}

fn tag_rule(tag: &str) -> Value {
    json!([{"field": "tag", "relation": "equals", "value": tag}])
}

/// The products a collection holds, as stored.
async fn members(s: &TestServer, collection: i64) -> Vec<i64> {
    ids(
        s,
        &format!(
            "SELECT product_id FROM collection_products WHERE collection_id = {collection} \
             ORDER BY product_id"
        ),
    )
    .await
}

async fn ids(s: &TestServer, sql: &str) -> Vec<i64> {
    let rows: Vec<(i64,)> = s.db.rows(sql).await;
    rows.into_iter().map(|(id,)| id).collect()
}

async fn count(s: &TestServer, sql: &str) -> i64 {
    s.db.scalar(sql).await
}

/// Every count the catalog keeps agrees with the rows it counts, and nothing points at a
/// row that is gone.
async fn assert_consistent(s: &TestServer) {
    let checks = [
        (
            "collections whose products_count is off",
            "SELECT COUNT(*) FROM collections c WHERE products_count <> \
             (SELECT COUNT(*) FROM collection_products cp WHERE cp.collection_id = c.id)",
        ),
        (
            "product types whose products_count is off",
            "SELECT COUNT(*) FROM product_types t WHERE products_count <> \
             (SELECT COUNT(*) FROM products p WHERE p.product_type_id = t.id)",
        ),
        (
            "price lists whose items_count is off",
            "SELECT COUNT(*) FROM price_lists l WHERE items_count <> \
             (SELECT COUNT(*) FROM price_list_items i WHERE i.price_list_id = l.id)",
        ),
        (
            "sellers whose product counts are off",
            "SELECT COUNT(*) FROM seller_product_counts c WHERE visible + hidden <> \
             (SELECT COUNT(*) FROM products p WHERE p.seller_id = c.seller_id)",
        ),
        (
            "products without a variant",
            "SELECT COUNT(*) FROM products p \
             WHERE NOT EXISTS (SELECT 1 FROM variants v WHERE v.product_id = p.id)",
        ),
    ];
    for (what, sql) in checks {
        assert_eq!(count(s, sql).await, 0, "{what}");
    }
}

/// Deleting a product while a smart collection holding it gets new rules (the probe's
/// first finding): the collection is recomputed around the product, never into a 500.
async fn product_delete_vs_smart_rule_change(s: TestServer) {
    let token = s.owner_token().await;
    let smart = collection(
        &s,
        &token,
        json!({"title": "Deals", "kind": "smart", "rules": tag_rule("sale")}),
    )
    .await;
    let mut kept = Vec::new();
    for (i, tag) in ["sale", "new", "sale"].into_iter().enumerate() {
        let body = json!({"title": format!("Kept {i}"), "price": 100, "tags": [tag]});
        kept.push((product(&s, &token, body).await, tag));
    }
    for round in 0..ROUNDS {
        let body =
            json!({"title": format!("Doomed {round}"), "price": 100, "tags": ["sale", "new"]});
        let doomed = product(&s, &token, body).await;
        let tag = if round % 2 == 0 { "new" } else { "sale" };
        let [deleted, changed] = race(
            &s,
            &token,
            call(Method::DELETE, format!("/v2/products/{doomed}"), None),
            call(
                Method::PUT,
                format!("/v2/collections/{smart}"),
                Some(json!({"rules": tag_rule(tag)})),
            ),
        )
        .await;
        expect(&deleted, &[OK], "the product's deletion");
        expect(&changed, &[OK], "the rules' change");
        let expected: Vec<i64> = kept
            .iter()
            .filter(|(_, t)| *t == tag)
            .map(|(id, _)| *id)
            .collect();
        assert_eq!(members(&s, smart).await, expected, "round {round}");
    }
    assert_consistent(&s).await;
}

/// Deleting a product while a manual collection holding it is deleted.
async fn product_delete_vs_manual_collection_delete(s: TestServer) {
    let token = s.owner_token().await;
    let kept = product(&s, &token, json!({"title": "Kept", "price": 1})).await;
    for round in 0..ROUNDS {
        let picks = collection(&s, &token, json!({"title": format!("Picks {round}")})).await;
        let doomed = product(
            &s,
            &token,
            json!({"title": format!("Doomed {round}"), "price": 1}),
        )
        .await;
        join(&s, &token, picks, kept).await;
        join(&s, &token, picks, doomed).await;
        let [product_deleted, collection_deleted] = race(
            &s,
            &token,
            call(Method::DELETE, format!("/v2/products/{doomed}"), None),
            call(Method::DELETE, format!("/v2/collections/{picks}"), None),
        )
        .await;
        expect(&product_deleted, &[OK], "the product's deletion");
        expect(&collection_deleted, &[OK], "the collection's deletion");
        assert!(members(&s, picks).await.is_empty(), "round {round}");
    }
    let (status, _) = s.get_json(&format!("/v2/products/{kept}"), &token).await;
    assert_eq!(status, OK);
    assert_consistent(&s).await;
}

/// Deleting a product while it is put in a manual collection: the addition succeeds (and
/// the deletion takes it out again) or finds no such product (422).
async fn product_delete_vs_joining_a_manual_collection(s: TestServer) {
    let token = s.owner_token().await;
    let picks = collection(&s, &token, json!({"title": "Picks"})).await;
    let kept = product(&s, &token, json!({"title": "Kept", "price": 1})).await;
    join(&s, &token, picks, kept).await;
    for round in 0..ROUNDS {
        let doomed = product(
            &s,
            &token,
            json!({"title": format!("Doomed {round}"), "price": 1}),
        )
        .await;
        let [deleted, joined] = race(
            &s,
            &token,
            call(Method::DELETE, format!("/v2/products/{doomed}"), None),
            call(
                Method::POST,
                format!("/v2/collections/{picks}/products"),
                Some(json!({"product_id": doomed})),
            ),
        )
        .await;
        expect(&deleted, &[OK], "the product's deletion");
        expect(&joined, &[OK, INVALID], "joining the collection");
        assert_eq!(members(&s, picks).await, [kept], "round {round}");
    }
    assert_consistent(&s).await;
}

/// A smart rule on tags or on price, and whether a product with these meets it.
fn meets(rule: &Value, tags: &[&str], price: i64) -> bool {
    let rule = &rule[0];
    match rule["field"].as_str() {
        Some("tag") => tags.contains(&rule["value"].as_str().unwrap()),
        Some("price") => price < rule["value"].as_str().unwrap().parse::<i64>().unwrap(),
        other => unreachable!("{other:?}"),
    }
}

/// Changing a product's tags and price while a smart collection's rules change: the
/// membership ends up as the final rules say of the final product.
async fn product_update_vs_smart_rule_change(s: TestServer) {
    let token = s.owner_token().await;
    let rules = [
        tag_rule("red"),
        json!([{"field": "price", "relation": "less_than", "value": "1000"}]),
        tag_rule("blue"),
    ];
    let smart = collection(
        &s,
        &token,
        json!({"title": "Moving", "kind": "smart", "rules": rules[0]}),
    )
    .await;
    let p = product(
        &s,
        &token,
        json!({"title": "Chameleon", "price": 500, "tags": ["red"]}),
    )
    .await;
    for round in 0..ROUNDS {
        let (tags, price) = match round % 4 {
            0 => (["blue"], 1500),
            1 => (["red"], 500),
            2 => (["red"], 1500),
            _ => (["blue"], 500),
        };
        let rule = &rules[round % 3];
        let [updated, changed] = race(
            &s,
            &token,
            call(
                Method::PUT,
                format!("/v2/products/{p}"),
                Some(json!({"tags": tags, "price": price})),
            ),
            call(
                Method::PUT,
                format!("/v2/collections/{smart}"),
                Some(json!({"rules": rule})),
            ),
        )
        .await;
        expect(&updated, &[OK], "the product's update");
        expect(&changed, &[OK], "the rules' change");
        let expected = if meets(rule, &tags, price) {
            vec![p]
        } else {
            vec![]
        };
        assert_eq!(members(&s, smart).await, expected, "round {round}");
    }
    assert_consistent(&s).await;
}

/// A smart collection made while a product changes: it holds the product exactly when
/// its rules hold for the product as it ends up.
async fn smart_collection_create_vs_product_update(s: TestServer) {
    let token = s.owner_token().await;
    let p = product(
        &s,
        &token,
        json!({"title": "Flipper", "price": 1, "tags": ["blue"]}),
    )
    .await;
    for round in 0..ROUNDS {
        let tag = if round % 2 == 0 { "red" } else { "blue" };
        let [made, updated] = race(
            &s,
            &token,
            call(
                Method::POST,
                "/v2/collections",
                Some(json!({"title": format!("Red {round}"), "kind": "smart", "rules": tag_rule("red")})),
            ),
            call(
                Method::PUT,
                format!("/v2/products/{p}"),
                Some(json!({"tags": [tag]})),
            ),
        )
        .await;
        expect(&made, &[CREATED], "the collection's creation");
        expect(&updated, &[OK], "the product's update");
        let smart = made.1["id"].as_i64().unwrap();
        let expected = if tag == "red" { vec![p] } else { vec![] };
        assert_eq!(members(&s, smart).await, expected, "round {round}");
    }
    assert_consistent(&s).await;
}

/// Deleting a variant while its stock is adjusted: the adjustment applies first or finds
/// no variant (404).
async fn variant_delete_vs_stock_adjustment(s: TestServer) {
    let token = s.owner_token().await;
    // Stock decides this collection's members, so adjustments rewrite memberships too.
    collection(
        &s,
        &token,
        json!({"title": "Stocked", "kind": "smart",
               "rules": [{"field": "stock", "relation": "greater_than", "value": "10"}]}),
    )
    .await;
    for round in 0..ROUNDS {
        let (p, [_, doomed]) = two_variants(&s, &token, &format!("V{round}")).await;
        let variant = format!("/v2/products/{p}/variants/{doomed}");
        let [deleted, adjusted] = race(
            &s,
            &token,
            call(Method::DELETE, variant.clone(), None),
            call(
                Method::POST,
                format!("{variant}/stock_adjustments"),
                Some(json!({"delta": 1})),
            ),
        )
        .await;
        expect(&deleted, &[OK], "the variant's deletion");
        expect(&adjusted, &[OK, NOT_FOUND], "the stock adjustment");
        let (status, _) = s.get_json(&variant, &token).await;
        assert_eq!(status, NOT_FOUND, "round {round}");
    }
    assert_consistent(&s).await;
}

/// Deleting a product type while a product takes it: exactly one of the two succeeds,
/// the other answers 422 (the type is in use, or is no type of the seller).
async fn product_type_delete_vs_product_taking_it(s: TestServer) {
    let token = s.owner_token().await;
    let p = product(&s, &token, json!({"title": "Typed", "price": 1})).await;
    for round in 0..ROUNDS {
        let kind = created(
            &s,
            &token,
            "/v2/product_types",
            json!({"name": format!("Kind {round}")}),
        )
        .await;
        let [deleted, taken] = race(
            &s,
            &token,
            call(Method::DELETE, format!("/v2/product_types/{kind}"), None),
            call(
                Method::PUT,
                format!("/v2/products/{p}"),
                Some(json!({"product_type_id": kind})),
            ),
        )
        .await;
        expect(&deleted, &[OK, INVALID], "the type's deletion");
        expect(&taken, &[OK, INVALID], "the product's update");
        assert!(
            (deleted.0 == OK) != (taken.0 == OK),
            "round {round}: {deleted:?} {taken:?}"
        );
    }
    assert_consistent(&s).await;
}

/// Two products moving between two types in opposite directions at once (each write
/// changes both types' counts).
async fn products_swapping_types(s: TestServer) {
    let token = s.owner_token().await;
    let mut kinds = Vec::new();
    for name in ["Left", "Right"] {
        kinds.push(created(&s, &token, "/v2/product_types", json!({"name": name})).await);
    }
    let a = product(
        &s,
        &token,
        json!({"title": "A", "price": 1, "product_type_id": kinds[0]}),
    )
    .await;
    let b = product(
        &s,
        &token,
        json!({"title": "B", "price": 1, "product_type_id": kinds[1]}),
    )
    .await;
    for round in 0..ROUNDS {
        let (to_a, to_b) = if round % 2 == 0 {
            (kinds[1], kinds[0])
        } else {
            (kinds[0], kinds[1])
        };
        let answers = race(
            &s,
            &token,
            call(
                Method::PUT,
                format!("/v2/products/{a}"),
                Some(json!({"product_type_id": to_a})),
            ),
            call(
                Method::PUT,
                format!("/v2/products/{b}"),
                Some(json!({"product_type_id": to_b})),
            ),
        )
        .await;
        for answer in &answers {
            expect(answer, &[OK], "a product's update");
        }
    }
    assert_consistent(&s).await;
}

/// Deleting a price list while items are written to it: the items go with the list, or
/// find no list (404).
async fn price_list_delete_vs_item_write(s: TestServer) {
    let token = s.owner_token().await;
    let (_, [first, second]) = two_variants(&s, &token, "Priced").await;
    for round in 0..ROUNDS {
        let list = created(
            &s,
            &token,
            "/v2/price_lists",
            json!({"name": format!("List {round}")}),
        )
        .await;
        let [deleted, written] = race(
            &s,
            &token,
            call(Method::DELETE, format!("/v2/price_lists/{list}"), None),
            call(
                Method::PUT,
                format!("/v2/price_lists/{list}/items"),
                Some(json!({"items": [
                    {"variant_id": first, "price": 90},
                    {"variant_id": second, "price": 180}
                ]})),
            ),
        )
        .await;
        expect(&deleted, &[OK], "the list's deletion");
        expect(&written, &[OK, NOT_FOUND], "the items' write");
        let left = count(
            &s,
            &format!("SELECT COUNT(*) FROM price_list_items WHERE price_list_id = {list}"),
        )
        .await;
        assert_eq!(left, 0, "round {round}");
    }
    assert_consistent(&s).await;
}

/// Deleting a variant while a price list gets an item for it: the item goes with the
/// variant, or the write finds no such variant (422).
async fn variant_delete_vs_item_write(s: TestServer) {
    let token = s.owner_token().await;
    let list = created(&s, &token, "/v2/price_lists", json!({"name": "Trade"})).await;
    for round in 0..ROUNDS {
        let (p, [kept, doomed]) = two_variants(&s, &token, &format!("I{round}")).await;
        let [deleted, written] = race(
            &s,
            &token,
            call(
                Method::DELETE,
                format!("/v2/products/{p}/variants/{doomed}"),
                None,
            ),
            call(
                Method::PUT,
                format!("/v2/price_lists/{list}/items"),
                Some(json!({"items": [
                    {"variant_id": kept, "price": 90},
                    {"variant_id": doomed, "price": 180}
                ]})),
            ),
        )
        .await;
        expect(&deleted, &[OK], "the variant's deletion");
        expect(&written, &[OK, INVALID], "the items' write");
        let left = count(
            &s,
            &format!("SELECT COUNT(*) FROM price_list_items WHERE variant_id = {doomed}"),
        )
        .await;
        assert_eq!(left, 0, "round {round}");
    }
    assert_consistent(&s).await;
}

/// Placing an order while the product it sells is deleted: the placement takes the stock
/// first, or finds the variant gone (422) and leaves the order in checkout.
async fn order_placement_vs_product_delete(s: TestServer) {
    let token = s.owner_token().await;
    let shop = s.shop_id();
    for round in 0..ROUNDS {
        let (p, [variant, _]) = two_variants(&s, &token, &format!("O{round}")).await;
        let order = created(
            &s,
            &token,
            &format!("/v2/shops/{shop}/orders"),
            json!({"lines": [{"variant_id": variant, "quantity": 2}]}),
        )
        .await;
        let [placed, deleted] = race(
            &s,
            &token,
            call(Method::PUT, format!("/v2/orders/{order}/place"), None),
            call(Method::DELETE, format!("/v2/products/{p}"), None),
        )
        .await;
        expect(&placed, &[OK, INVALID], "the placement");
        expect(&deleted, &[OK], "the product's deletion");
        let (_, stored) = s.get_json(&format!("/v2/orders/{order}"), &token).await;
        let status = if placed.0 == OK { "placed" } else { "checkout" };
        assert_eq!(stored["status"], status, "round {round}");
    }
    assert_consistent(&s).await;
}

/// Deleting a manual collection while its products are reordered: the reorder happens
/// first or finds no collection (404).
async fn collection_delete_vs_reorder(s: TestServer) {
    let token = s.owner_token().await;
    let mut products = Vec::new();
    for title in ["One", "Two", "Three"] {
        products.push(product(&s, &token, json!({"title": title, "price": 1})).await);
    }
    for round in 0..ROUNDS {
        let picks = collection(&s, &token, json!({"title": format!("Order {round}")})).await;
        for p in &products {
            join(&s, &token, picks, *p).await;
        }
        let [deleted, reordered] = race(
            &s,
            &token,
            call(Method::DELETE, format!("/v2/collections/{picks}"), None),
            call(
                Method::PUT,
                format!("/v2/collections/{picks}/products"),
                Some(json!({"product_ids": [products[2], products[0]]})),
            ),
        )
        .await;
        expect(&deleted, &[OK], "the collection's deletion");
        expect(&reordered, &[OK, NOT_FOUND], "the reorder");
        assert!(members(&s, picks).await.is_empty(), "round {round}");
    }
    assert_consistent(&s).await;
}

/// Two products with the same title and a new type of the same name, created at once:
/// both are made, with different slugs and one type.
async fn twin_product_creations(s: TestServer) {
    let token = s.owner_token().await;
    for round in 0..ROUNDS {
        let body = json!({"title": format!("Twin {round}"), "price": 1,
                          "product_type_name": format!("Kind {round}")});
        let twin = || call(Method::POST, "/v2/products", Some(body.clone()));
        let answers = race(&s, &token, twin(), twin()).await;
        for answer in &answers {
            expect(answer, &[CREATED], "a twin's creation");
        }
        assert_ne!(answers[0].1["slug"], answers[1].1["slug"], "round {round}");
        assert_eq!(
            answers[0].1["product_type_id"], answers[1].1["product_type_id"],
            "round {round}"
        );
    }
    assert_consistent(&s).await;
}

/// Deleting a webhook subscription while a product change fans its event out to it: the
/// change succeeds, and no delivery is left for the deleted subscription.
async fn webhook_delete_vs_product_event(backend: Backend) {
    let s = TestServer::start_with(backend, |c| {
        c.webhook_allowed_networks = vec![("127.0.0.0".parse().unwrap(), 8)];
    })
    .await;
    // A target that accepts connections and never answers: the verification ping waits,
    // and the subscription stays pending, receiving events.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hooks", silent.local_addr().unwrap());
    let token = s.owner_token().await;
    let p = product(&s, &token, json!({"title": "Watched", "price": 1})).await;
    for round in 0..ROUNDS {
        let webhook = created(
            &s,
            &token,
            &format!("/v2/hub/{}/subscriptions", s.shop_id()),
            json!({"topic": "products", "url": url}),
        )
        .await;
        let [deleted, updated] = race(
            &s,
            &token,
            call(Method::DELETE, format!("/v2/webhooks/{webhook}"), None),
            call(
                Method::PUT,
                format!("/v2/products/{p}"),
                Some(json!({"title": format!("Watched {round}")})),
            ),
        )
        .await;
        expect(&deleted, &[OK], "the subscription's deletion");
        expect(&updated, &[OK], "the product's update");
        let left = count(
            &s,
            &format!("SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = {webhook}"),
        )
        .await;
        assert_eq!(left, 0, "round {round}");
    }
    assert_eq!(s.event_count("products.updated").await, ROUNDS as i64);
}

/// Two transactions each save an order of one customer twice, as a payment that closes an
/// order does (saving a row the transaction wrote already checks its foreign key again,
/// holding the customer `FOR KEY SHARE`), then each locks the customer to count its order.
/// On PostgreSQL both locks are asked for while both transactions hold the customer so:
/// they must take turns, where two `FOR UPDATE` locks would deadlock. (On SQLite write
/// transactions run one at a time, so they run one after the other.)
async fn orders_of_one_customer_counted_at_once_take_turns(s: TestServer) {
    let token = s.owner_token().await;
    let variant = s
        .create_product(
            &token,
            json!({"title": "Counted", "variants": [{"price": 700, "stock": 10}]}),
        )
        .await["_embedded"]["variants"][0]["id"]
        .clone();
    let mut orders = Vec::new();
    for _ in 0..2 {
        let path = format!("/v2/shops/{}/orders", s.shop_id());
        let body = json!({"lines": [{"variant_id": variant}], "email": "twice@example.com"});
        let (status, order) = s.call(Method::POST, &path, &token, Some(body)).await;
        assert_eq!(status, CREATED, "{order}");
        orders.push(order);
    }
    let customer = orders[0]["contact_id"]
        .as_i64()
        .expect("the email links a customer");
    assert_eq!(orders[1]["contact_id"], customer);

    let (db, _) = s.open_storage().await;
    let tenant = storage::Tenant {
        account_id: s.demo.account_id,
        seller_id: None,
    };
    let now = domain::Timestamp::from_secs(1_800_000_000);
    // Begins a transaction that has saved the order twice.
    let holding = |id: i64| {
        let db = db.clone();
        async move {
            let mut tx = db.begin().await.expect("begin");
            let order = storage::orders::find(&mut tx, tenant, id)
                .await
                .unwrap()
                .expect("the order");
            storage::orders::save(&mut tx, &order, now).await.unwrap();
            storage::orders::save(&mut tx, &order, now).await.unwrap();
            tx
        }
    };
    let count = |mut tx: storage::Tx| async move {
        let locked = storage::customers::find_for_update(&mut tx, tenant, customer).await;
        let locked = locked.map_err(|e| e.to_string())?;
        assert_eq!(locked.map(|c| c.id), Some(customer));
        tx.commit().await.map_err(|e| e.to_string())
    };
    let ids = [
        orders[0]["id"].as_i64().unwrap(),
        orders[1]["id"].as_i64().unwrap(),
    ];
    let (a, b) = match s.db.backend {
        Backend::Postgres => {
            let (first, second) = (holding(ids[0]).await, holding(ids[1]).await);
            tokio::join!(count(first), count(second))
        }
        Backend::Sqlite => {
            let a = count(holding(ids[0]).await).await;
            (a, count(holding(ids[1]).await).await)
        }
    };
    assert_eq!((a, b), (Ok(()), Ok(())), "both counted, neither deadlocked");
    db.close().await;
}
