//! Price lists over HTTP: their lifecycle and events, validation, tenancy and links by
//! scope; item batches and the counts every delete keeps are in `items`, the prices
//! preview and the loader orders use in `prices`. The helpers here serve all three.

mod items;
mod prices;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, access_token, error_fields, expect_error, json};

on_both_backends!(
    create_read_update_delete_and_record_events,
    invalid_fields_are_named_and_nothing_is_written,
    other_accounts_see_nothing_and_readers_get_no_write_links,
);

async fn send(
    s: &TestServer,
    method: Method,
    path: &str,
    token: &str,
    body: Value,
) -> (StatusCode, Value) {
    json(
        s.request(method, path, token)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn get(s: &TestServer, path: &str, token: &str) -> (StatusCode, Value) {
    json(s.get(path, token).send().await.unwrap()).await
}

/// Creates a product and answers its variant ids, in order.
async fn product(s: &TestServer, token: &str, body: Value) -> (i64, Vec<i64>) {
    let (status, product) = send(s, Method::POST, "/v2/products", token, body).await;
    assert_eq!(status, StatusCode::CREATED, "{product}");
    let variants = product["_embedded"]["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_i64().unwrap())
        .collect();
    (product["id"].as_i64().unwrap(), variants)
}

async fn two_variant_product(s: &TestServer, token: &str, title: &str) -> (i64, Vec<i64>) {
    product(
        s,
        token,
        json!({"title": title, "variants": [
            {"sku": format!("{title}-A"), "price": 1000, "price_comparison": 1200},
            {"sku": format!("{title}-B"), "price": 2000}
        ]}),
    )
    .await
}

async fn create_list(s: &TestServer, token: &str, body: Value) -> Value {
    let (status, list) = send(s, Method::POST, "/v2/price_lists", token, body).await;
    assert_eq!(status, StatusCode::CREATED, "{list}");
    list
}

async fn put_items(s: &TestServer, token: &str, list_id: i64, items: Value) -> (StatusCode, Value) {
    send(
        s,
        Method::PUT,
        &format!("/v2/price_lists/{list_id}/items"),
        token,
        json!({ "items": items }),
    )
    .await
}

async fn items_count(s: &TestServer, token: &str, list_id: i64) -> i64 {
    let (status, list) = get(s, &format!("/v2/price_lists/{list_id}"), token).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let stored =
        s.db.scalar(&format!(
            "SELECT COUNT(*) FROM price_list_items WHERE price_list_id = {list_id}"
        ))
        .await;
    let shown = list["items_count"].as_i64().unwrap();
    assert_eq!(shown, stored, "items_count is the number of items");
    shown
}

/// The owner token of a second, independent account.
async fn another_account_token(s: &TestServer) -> String {
    let other = s.seed_another_account().await;
    let app = (
        other.app.client_id.as_str(),
        other.app.client_secret.as_str(),
    );
    access_token(
        s.password_grant(app, &other.user.email, &other.user.password, &[])
            .await,
    )
    .await
}

/// The item of the latest event with `topic` in the demo account.
async fn last_event(s: &TestServer, topic: &str) -> Value {
    let (db, _) = s.open_storage().await;
    let events = storage::events::after(&db, s.demo.account_id, 0, 10_000)
        .await
        .unwrap();
    db.close().await;
    let event = events
        .iter()
        .rev()
        .find(|e| e.topic == topic)
        .unwrap_or_else(|| panic!("no {topic} event"));
    serde_json::from_str(&event.item).unwrap()
}

/// `n` new customers of the demo seller, for lists that name their buyers; their ids.
async fn customer_ids(s: &TestServer, token: &str, n: usize) -> Vec<i64> {
    let mut ids = Vec::with_capacity(n);
    for i in 0..n {
        let (status, customer) = send(
            s,
            Method::POST,
            "/v2/customers",
            token,
            json!({"email": format!("buyer{i}@example.com")}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{customer}");
        ids.push(id_of(&customer));
    }
    ids
}

fn id_of(doc: &Value) -> i64 {
    doc["id"].as_i64().unwrap()
}

async fn create_read_update_delete_and_record_events(s: TestServer) {
    let token = s.owner_token().await;
    let response = s
        .request(Method::POST, "/v2/price_lists", &token)
        .json(&json!({"name": "  Wholesale  ", "description": "For resellers"}))
        .send()
        .await
        .unwrap();
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let (status, list) = json(response).await;
    assert_eq!(status, StatusCode::CREATED, "{list}");
    let id = id_of(&list);
    assert_eq!(location, s.url(&format!("/v2/price_lists/{id}")));
    assert_eq!(list["name"], "Wholesale");
    assert_eq!(list["seller_id"], s.seller_id());
    assert_eq!(list["status"], "draft");
    assert_eq!(list["kind"], "override");
    assert_eq!(list["currency_code"], "USD", "the seller's currency");
    assert_eq!(list["priority"], 0);
    assert_eq!(list["contact_ids"], json!([]));
    assert_eq!(list["items_count"], 0);
    assert_eq!(list["starts_on"], Value::Null);
    assert_eq!(list["_links"]["self"]["href"], location);
    let (status, fetched) = get(&s, &format!("/v2/price_lists/{id}"), &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(fetched, list);
    assert_eq!(s.event_count("price_lists.created").await, 1);
    assert_eq!(last_event(&s, "price_lists.created").await, list);
    assert_eq!(
        s.db.scalar(&format!(
            "SELECT COUNT(*) FROM events WHERE topic = 'price_lists.created' AND item_type = 'price_list' \
             AND item_id = {id}"
        ))
        .await,
        1
    );

    let path = format!("/v2/price_lists/{id}");
    let buyers = customer_ids(&s, &token, 2).await;
    // Only the seller's customers may be named.
    let (status, refused) = send(
        &s,
        Method::PUT,
        &path,
        &token,
        json!({"contact_ids": [buyers[0], 999_999]}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(
        refused["_embedded"]["errors"][0]["messages"][0],
        "names no customer of the seller: 999999"
    );
    let changes = json!({"status": "active", "kind": "sale", "priority": 5, "currency_code": "EUR",
        "starts_on": "2026-01-01T00:00:00Z", "ends_on": "2027-01-01T00:00:00+02:00",
        "contact_ids": [buyers[0], buyers[0], buyers[1]]});
    let (status, updated) = send(&s, Method::PUT, &path, &token, changes.clone()).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["status"], "active");
    assert_eq!(updated["kind"], "sale");
    assert_eq!(updated["priority"], 5);
    assert_eq!(updated["currency_code"], "EUR");
    assert_eq!(updated["starts_on"], "2026-01-01T00:00:00Z");
    assert_eq!(updated["ends_on"], "2026-12-31T22:00:00Z");
    assert_eq!(updated["contact_ids"], json!(buyers));
    assert_eq!(s.event_count("price_lists.updated").await, 1);
    assert_eq!(last_event(&s, "price_lists.updated").await, updated);
    // The same values again change nothing and record nothing.
    let (status, again) = send(&s, Method::PUT, &path, &token, changes).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again, updated);
    assert_eq!(s.event_count("price_lists.updated").await, 1);
    // null clears the optional fields.
    let (status, cleared) = send(
        &s,
        Method::PUT,
        &path,
        &token,
        json!({"ends_on": null, "contact_ids": null, "description": null}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cleared["ends_on"], Value::Null);
    assert_eq!(cleared["contact_ids"], json!([]));
    assert_eq!(cleared["description"], "");
    assert_eq!(s.event_count("price_lists.updated").await, 2);

    // If-Match guards writes.
    let etag = s.get(&path, &token).send().await.unwrap().headers()["etag"]
        .to_str()
        .unwrap()
        .to_owned();
    let stale = s
        .request(Method::PUT, &path, &token)
        .header("if-match", "\"stale\"")
        .json(&json!({"name": "Renamed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    let fresh = s
        .request(Method::PUT, &path, &token)
        .header("if-match", &etag)
        .json(&json!({"name": "Renamed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(fresh.status(), StatusCode::OK);
    assert_eq!(s.event_count("price_lists.updated").await, 3);

    // Lists filter and sort.
    create_list(&s, &token, json!({"name": "Retail", "priority": 9})).await;
    let (_, active) = get(&s, "/v2/price_lists?status=active&q=RENAM", &token).await;
    assert_eq!(active["total_items"], 1);
    assert_eq!(active["_embedded"]["items"][0]["id"], id);
    assert_eq!(active["_class"], json!(["results", "price_lists"]));
    let (_, by_priority) = get(&s, "/v2/price_lists?sort=priority.desc", &token).await;
    assert_eq!(by_priority["_embedded"]["items"][0]["name"], "Retail");
    let (_, overrides) = get(&s, "/v2/price_lists?kind=override", &token).await;
    assert_eq!(overrides["total_items"], 1);
    let (status, bad) = get(&s, "/v2/price_lists?status=live&sort=price", &token).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&bad), ["sort", "status"]);

    let (status, deleted) = send(&s, Method::DELETE, &path, &token, json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted["id"], id);
    assert_eq!(deleted["name"], "Renamed");
    assert_eq!(s.event_count("price_lists.deleted").await, 1);
    assert_eq!(last_event(&s, "price_lists.deleted").await, deleted);
    assert_eq!(get(&s, &path, &token).await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        send(&s, Method::DELETE, &path, &token, json!({})).await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(s.event_count("price_lists.deleted").await, 1);
}

async fn invalid_fields_are_named_and_nothing_is_written(s: TestServer) {
    let token = s.owner_token().await;
    let (status, body) = send(
        &s,
        Method::POST,
        "/v2/price_lists",
        &token,
        json!({"status": "active"}),
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "missing_field");
    assert_eq!(error_fields(&body), ["name"]);
    let (status, body) = s
        .send_raw(
            Method::POST,
            "/v2/price_lists",
            &token,
            "application/json",
            "{\"name\": ",
        )
        .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "malformed_json");
    let (status, body) = send(
        &s,
        Method::POST,
        "/v2/price_lists",
        &token,
        json!({"name": " ", "description": "x".repeat(70_000), "status": "live", "kind": "discount",
               "currency_code": "usd", "starts_on": "soon", "ends_on": "2026-01-01T00:00:00Z",
               "priority": 2_000_000, "contact_ids": [1, 0]}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["_class"], json!(["errors"]));
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(
        fields,
        [
            "contact_ids",
            "currency_code",
            "description",
            "kind",
            "name",
            "priority",
            "starts_on",
            "status"
        ]
    );
    let (status, body) = send(
        &s,
        Method::POST,
        "/v2/price_lists",
        &token,
        json!({"name": "Backwards", "starts_on": "2026-02-01T00:00:00Z", "ends_on": "2026-01-01T00:00:00Z"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["ends_on"]);
    let (status, body) = send(
        &s,
        Method::POST,
        "/v2/price_lists",
        &token,
        json!({"name": "Typed", "priority": "high"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["priority"]);
    let (status, body) = send(
        &s,
        Method::POST,
        "/v2/price_lists",
        &token,
        json!({"name": "Elsewhere", "seller_id": 987_654}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["seller_id"]);
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM price_lists").await, 0);

    let list = create_list(&s, &token, json!({"name": "Valid"})).await;
    let path = format!("/v2/price_lists/{}", id_of(&list));
    let (status, body) = send(
        &s,
        Method::PUT,
        &path,
        &token,
        json!({"name": null, "status": null, "kind": "x", "seller_id": 2, "ends_on": "later",
               "priority": -2_000_000, "currency_code": "ABC"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(
        fields,
        [
            "currency_code",
            "ends_on",
            "kind",
            "name",
            "priority",
            "seller_id",
            "status"
        ]
    );
    assert_eq!(get(&s, &path, &token).await.1, list, "nothing changed");
    assert_eq!(s.event_count("price_lists.created").await, 1);
    assert_eq!(s.event_count("price_lists.updated").await, 0);
}

fn rels_of(doc: &Value) -> Vec<String> {
    let mut rels: Vec<String> = doc["_links"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("price_lists:"))
        .cloned()
        .collect();
    rels.sort();
    rels
}

async fn other_accounts_see_nothing_and_readers_get_no_write_links(s: TestServer) {
    let token = s.owner_token().await;
    let (_, v) = two_variant_product(&s, &token, "Cup").await;
    let list = create_list(&s, &token, json!({"name": "Private"})).await;
    let id = id_of(&list);
    let (_, body) = put_items(&s, &token, id, json!([{"variant_id": v[0], "price": 1}])).await;
    let item_id = body["_embedded"]["items"][0]["id"].as_i64().unwrap();
    assert_eq!(
        rels_of(&list),
        [
            "price_lists:delete",
            "price_lists:delete_item",
            "price_lists:items",
            "price_lists:prices",
            "price_lists:update",
            "price_lists:upsert_items"
        ]
    );
    assert_eq!(list["_links"]["price_lists:delete_item"]["templated"], true);
    assert_eq!(list["_links"]["price_lists:update"]["method"], "put");
    let curies = list["_links"]["curies"].as_array().unwrap();
    assert!(curies.iter().any(|c| c["name"] == "price_lists"));

    let stranger = another_account_token(&s).await;
    let path = format!("/v2/price_lists/{id}");
    for (method, path) in [
        (Method::GET, path.clone()),
        (Method::PUT, path.clone()),
        (Method::DELETE, path.clone()),
        (Method::GET, format!("{path}/items")),
        (Method::PUT, format!("{path}/items")),
        (Method::GET, format!("{path}/items/{item_id}")),
        (Method::DELETE, format!("{path}/items/{item_id}")),
        (Method::GET, format!("{path}/prices?variant_ids={}", v[0])),
    ] {
        let body = if method == Method::PUT && path.ends_with("/items") {
            json!({"items": [{"variant_id": v[0], "price": 2}]})
        } else {
            json!({"name": "Mine"})
        };
        let (status, _) = send(&s, method.clone(), &path, &stranger, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}");
    }
    let (_, theirs) = get(&s, "/v2/price_lists", &stranger).await;
    assert_eq!(theirs["total_items"], 0);
    assert_eq!(items_count(&s, &token, id).await, 1);
    assert_eq!(get(&s, &path, &token).await.1["name"], "Private");

    let reader = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("products.read"),
        )
        .await;
    let (status, seen) = get(&s, &path, &reader).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(rels_of(&seen), ["price_lists:items", "price_lists:prices"]);
    let (_, item) = get(&s, &format!("{path}/items/{item_id}"), &reader).await;
    assert_eq!(rels_of(&item), ["price_lists:price_list"]);
    let (status, _) = send(
        &s,
        Method::POST,
        "/v2/price_lists",
        &reader,
        json!({"name": "No"}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = put_items(&s, &reader, id, json!([{"variant_id": v[0], "price": 2}])).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (_, root) = get(&s, "/v2", &reader).await;
    assert_eq!(
        rels_of(&root),
        ["price_lists:price_list", "price_lists:price_lists"]
    );
    let (_, root) = get(&s, "/v2", &token).await;
    assert_eq!(
        rels_of(&root),
        [
            "price_lists:create_price_list",
            "price_lists:price_list",
            "price_lists:price_lists"
        ]
    );
    let template = root["_links"]["price_lists:price_lists"]["href"]
        .as_str()
        .unwrap();
    assert!(template.ends_with("/v2/price_lists{?q,status,kind,seller_ids,created_on.gte,created_on.lte,updated_on.gte,updated_on.lte,sort,page,per_page}"), "{template}");
    // Every rel has its documentation page.
    for rel in ["price_lists", "upsert_items", "prices", "delete_item"] {
        let page = s
            .client
            .get(s.url(&format!("/docs/rels/price_lists/{rel}")))
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), StatusCode::OK, "{rel}");
    }
}
