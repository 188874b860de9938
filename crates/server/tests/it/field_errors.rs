//! Refused bodies name every field at fault in `_embedded.errors`, on every status the
//! spec gives them: a missing required field or malformed JSON is a 400 (with its
//! `error` code), a mistyped or invalid value a 422. Clients that tell a failed write by
//! the `errors` it lists see each of these as the failure it is, and nothing is written.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::TestServer;

on_both_backends!(
    products_name_every_bad_field_and_write_nothing,
    variants_name_every_bad_field_and_write_nothing,
    orders_name_every_bad_field_and_write_nothing,
    collections_name_every_bad_field_and_write_nothing,
    webhooks_name_every_bad_field_and_write_nothing,
    malformed_and_empty_bodies_name_the_body_or_the_required_fields,
    uploads_name_the_part_they_lack_or_cannot_read,
);

/// A refused answer: its status, its `error` code (none on a 422), and the fields it
/// lists, sorted.
#[derive(Debug, PartialEq)]
struct Refusal {
    status: StatusCode,
    code: Option<String>,
    fields: Vec<String>,
}

impl Refusal {
    fn new(status: StatusCode, code: Option<&str>, fields: &[&str]) -> Self {
        let mut fields: Vec<String> = fields.iter().map(|f| (*f).to_owned()).collect();
        fields.sort();
        Self {
            status,
            code: code.map(str::to_owned),
            fields,
        }
    }

    /// A 422 naming `fields`.
    fn invalid(fields: &[&str]) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, None, fields)
    }

    /// A 400 `missing_field` naming `fields` (the missing ones and every other).
    fn missing(fields: &[&str]) -> Self {
        Self::new(StatusCode::BAD_REQUEST, Some("missing_field"), fields)
    }

    /// Reads an answer, checking that each field it lists says what is wrong with it.
    fn of(status: StatusCode, body: &Value) -> Self {
        let errors = body["_embedded"]["errors"]
            .as_array()
            .unwrap_or_else(|| panic!("{status} without _embedded.errors: {body}"));
        for error in errors {
            let messages = error["messages"].as_array();
            assert!(
                messages.is_some_and(|m| !m.is_empty() && m.iter().all(Value::is_string)),
                "{body}"
            );
        }
        let mut fields: Vec<String> = errors
            .iter()
            .map(|e| e["field"].as_str().expect("a field").to_owned())
            .collect();
        fields.sort();
        Self {
            status,
            code: body["error"].as_str().map(str::to_owned),
            fields,
        }
    }
}

async fn send(s: &TestServer, method: Method, path: &str, token: &str, body: Value) -> Refusal {
    let (status, answer) = s.call(method, path, token, Some(body)).await;
    Refusal::of(status, &answer)
}

/// What the list at `path` shows.
async fn list(s: &TestServer, path: &str, token: &str) -> Value {
    let (status, list) = s.get_json(path, token).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list
}

async fn products_name_every_bad_field_and_write_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(&token, json!({"title": "Kept", "price": 100}))
        .await;
    let path = format!("/v2/products/{}", product["id"]);
    let products_before = list(&s, "/v2/products", &token).await;
    let product_before = list(&s, &path, &token).await;

    let cases = [
        // Every mistyped field, at any depth.
        (
            json!({"title": 5, "price": "x", "variants": [{"stock": "many"}]}),
            Refusal::invalid(&["title", "price", "variants[0].stock"]),
        ),
        (
            json!({"title": "T", "status": "gone", "all_shops": "yes", "shop_ids": [1, "two"],
                   "variants": [{"sku": 1, "price": 2}, {"price": 1.5, "options": []}]}),
            Refusal::invalid(&[
                "status",
                "all_shops",
                "shop_ids[1]",
                "variants[0].sku",
                "variants[1].price",
                "variants[1].options",
            ]),
        ),
        // The title missing as well: a 400 that still lists every field.
        (
            json!({"price": "x", "tags": [1, "ok", {}], "variants": [{"sku": 5, "stock": "many"}]}),
            Refusal::missing(&[
                "title",
                "price",
                "tags[0]",
                "tags[2]",
                "variants[0].sku",
                "variants[0].stock",
            ]),
        ),
    ];
    for (body, expected) in cases {
        let answer = send(&s, Method::POST, "/v2/products", &token, body.clone()).await;
        assert_eq!(answer, expected, "{body}");
    }
    let answer = send(
        &s,
        Method::PUT,
        &path,
        &token,
        json!({"title": 1, "status": "gone", "price": "1", "tags": "a,b", "description": null}),
    )
    .await;
    assert_eq!(
        answer,
        Refusal::invalid(&["title", "status", "price", "tags"])
    );

    assert_eq!(list(&s, "/v2/products", &token).await, products_before);
    assert_eq!(list(&s, &path, &token).await, product_before);
    assert_eq!(s.event_count("products.updated").await, 0);
}

async fn variants_name_every_bad_field_and_write_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Sized", "variants": [{"price": 1}]}),
        )
        .await;
    let variants = format!("/v2/products/{}/variants", product["id"]);
    let (_, listed) = s.get_json(&variants, &token).await;
    let variant = format!("{variants}/{}", listed["_embedded"]["items"][0]["id"]);
    let variants_before = list(&s, &variants, &token).await;

    let answer = send(
        &s,
        Method::POST,
        &variants,
        &token,
        json!({"title": 1, "price": "x", "stock": "many", "available_if_no_stock": "yes",
               "options": [], "weight_in_grams": -1.5}),
    )
    .await;
    assert_eq!(
        answer,
        Refusal::invalid(&[
            "title",
            "price",
            "stock",
            "available_if_no_stock",
            "options",
            "weight_in_grams",
        ])
    );
    let answer = send(
        &s,
        Method::PUT,
        &variant,
        &token,
        json!({"sku": ["A"], "price_comparison": "10", "position": true}),
    )
    .await;
    assert_eq!(
        answer,
        Refusal::invalid(&["sku", "price_comparison", "position"])
    );
    let adjustments = format!("{variant}/stock_adjustments");
    let answer = send(&s, Method::POST, &adjustments, &token, json!({"note": 1})).await;
    assert_eq!(answer, Refusal::missing(&["delta"]));
    let answer = send(
        &s,
        Method::POST,
        &adjustments,
        &token,
        json!({"delta": "1"}),
    )
    .await;
    assert_eq!(answer, Refusal::invalid(&["delta"]));

    assert_eq!(list(&s, &variants, &token).await, variants_before);
}

async fn orders_name_every_bad_field_and_write_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let orders = format!("/v2/shops/{}/orders", s.shop_id());
    let orders_before = list(&s, "/v2/orders", &token).await;

    let answer = send(
        &s,
        Method::POST,
        &orders,
        &token,
        json!({"lines": [{"variant_id": "x", "quantity": "two"}, {"quantity": 1}, 7],
               "email": 5, "shipping_total": "free", "shipping_address": "home",
               "billing_address": {"street": 1}}),
    )
    .await;
    assert_eq!(
        answer,
        Refusal::missing(&[
            "lines[0].variant_id",
            "lines[0].quantity",
            "lines[1].variant_id",
            "lines[2]",
            "email",
            "shipping_total",
            "shipping_address",
            "billing_address.street",
        ])
    );
    let answer = send(
        &s,
        Method::POST,
        &orders,
        &token,
        json!({"lines": [{"variant_id": 1, "quantity": "2"}], "note": ["n"], "phone_number": 5}),
    )
    .await;
    assert_eq!(
        answer,
        Refusal::invalid(&["lines[0].quantity", "note", "phone_number"])
    );
    let answer = send(&s, Method::POST, &orders, &token, json!({"email": []})).await;
    assert_eq!(answer, Refusal::missing(&["lines", "email"]));

    assert_eq!(list(&s, "/v2/orders", &token).await, orders_before);
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM orders").await, 0);
}

async fn collections_name_every_bad_field_and_write_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let before = list(&s, "/v2/collections", &token).await;

    let answer = send(
        &s,
        Method::POST,
        "/v2/collections",
        &token,
        json!({"title": [], "seller_id": "s", "kind": 3, "sort_order": 7,
               "rules": [{"field": "price", "relation": 5, "value": 1},
                         {"field": "colour", "relation": "equals", "value": "red"}]}),
    )
    .await;
    assert_eq!(
        answer,
        Refusal::invalid(&[
            "title",
            "seller_id",
            "kind",
            "sort_order",
            "rules[0].relation",
            "rules[0].value",
            "rules[1].field",
        ])
    );
    let answer = send(
        &s,
        Method::POST,
        "/v2/collections",
        &token,
        json!({"description": 1, "rules": [{"field": "price", "relation": "equals", "value": 1}]}),
    )
    .await;
    assert_eq!(
        answer,
        Refusal::missing(&["title", "description", "rules[0].value"])
    );
    // A collection to add members to, and the members' bodies.
    let (status, collection) = s
        .call(
            Method::POST,
            "/v2/collections",
            &token,
            Some(json!({"title": "Kept"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{collection}");
    let members = format!("/v2/collections/{}/products", collection["id"]);
    let members_before = list(&s, &members, &token).await;
    let answer = send(
        &s,
        Method::POST,
        &members,
        &token,
        json!({"product_id": "1", "position": "first"}),
    )
    .await;
    assert_eq!(answer, Refusal::invalid(&["product_id", "position"]));
    let answer = send(
        &s,
        Method::POST,
        &members,
        &token,
        json!({"position": -0.5}),
    )
    .await;
    assert_eq!(answer, Refusal::missing(&["product_id", "position"]));
    let answer = send(
        &s,
        Method::PUT,
        &format!("/v2/collections/{}", collection["id"]),
        &token,
        json!({"title": 1, "rule_match": "some", "rules": [{"field": 1}]}),
    )
    .await;
    assert_eq!(
        answer,
        Refusal::invalid(&["title", "rule_match", "rules[0].field"])
    );

    assert_eq!(list(&s, &members, &token).await, members_before);
    let after = list(&s, "/v2/collections", &token).await;
    assert_eq!(
        after["total_items"],
        before["total_items"].as_i64().unwrap() + 1
    );
    assert_eq!(s.event_count("collections.updated").await, 0);
}

async fn webhooks_name_every_bad_field_and_write_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let before = list(&s, "/v2/webhooks", &token).await;

    let answer = send(
        &s,
        Method::POST,
        "/v2/webhooks",
        &token,
        json!({"topic": 5, "url": [], "notify_origin": "yes", "ordering": 1,
               "auth": {"type": 1, "username": 2, "password": "p"}, "shop_id": "one"}),
    )
    .await;
    assert_eq!(
        answer,
        Refusal::invalid(&[
            "topic",
            "url",
            "notify_origin",
            "ordering",
            "auth.type",
            "auth.username",
            "shop_id",
        ])
    );
    let hub = format!("/v2/hub/{}/subscriptions", s.shop_id());
    let answer = send(
        &s,
        Method::POST,
        &hub,
        &token,
        json!({"topic": "products", "url": "https://example.com/h", "auth": "basic", "notify_origin": 1}),
    )
    .await;
    assert_eq!(answer, Refusal::invalid(&["auth", "notify_origin"]));

    assert_eq!(list(&s, "/v2/webhooks", &token).await, before);
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM webhooks").await, 0);
}

async fn malformed_and_empty_bodies_name_the_body_or_the_required_fields(s: TestServer) {
    let token = s.owner_token().await;
    let products_before = list(&s, "/v2/products", &token).await;
    let malformed = Refusal::new(StatusCode::BAD_REQUEST, Some("malformed_json"), &["body"]);
    for (path, body) in [
        ("/v2/products", "{\"title\": "),
        // A mistyped field before the JSON breaks: still not JSON.
        ("/v2/products", "{\"title\": 5, \"price\": "),
        ("/v2/collections", "{\"title\": \"a\"}}"),
        ("/v2/webhooks", "nul"),
    ] {
        let (status, answer) = s
            .send_raw(Method::POST, path, &token, "application/json", body)
            .await;
        assert_eq!(Refusal::of(status, &answer), malformed, "{path} {body}");
        assert_eq!(answer["_class"], json!(["error"]));
    }
    // An empty body reads as `{}`: every required field is missing.
    for (path, fields) in [
        ("/v2/products".to_owned(), vec!["title"]),
        (format!("/v2/shops/{}/orders", s.shop_id()), vec!["lines"]),
        ("/v2/collections".to_owned(), vec!["title"]),
        (
            format!("/v2/sellers/{}/shops", s.seller_id()),
            vec!["name", "subdomain"],
        ),
    ] {
        let (status, answer) = s
            .send_raw(Method::POST, &path, &token, "application/json", "")
            .await;
        assert_eq!(
            Refusal::of(status, &answer),
            Refusal::missing(&fields),
            "{path}"
        );
    }
    assert_eq!(list(&s, "/v2/products", &token).await, products_before);
}

async fn uploads_name_the_part_they_lack_or_cannot_read(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(&token, json!({"title": "Bare", "price": 1}))
        .await;
    let assets = format!("/v2/products/{}/assets", product["id"]);
    let before = list(&s, &assets, &token).await;

    let form = reqwest::multipart::Form::new().text("name", "no file here");
    let response = s
        .request(Method::POST, &assets, &token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let (status, answer) = crate::support::json(response).await;
    assert_eq!(Refusal::of(status, &answer), Refusal::missing(&["file"]));
    let (status, answer) = s
        .send_raw(
            Method::POST,
            &assets,
            &token,
            "multipart/form-data",
            "file=1",
        )
        .await;
    assert_eq!(
        Refusal::of(status, &answer),
        Refusal::new(
            StatusCode::BAD_REQUEST,
            Some("malformed_multipart"),
            &["body"]
        )
    );
    let answer = send(
        &s,
        Method::POST,
        &assets,
        &token,
        json!({"file_name": 1, "data": ["x"]}),
    )
    .await;
    assert_eq!(answer, Refusal::invalid(&["file_name", "data"]));
    let answer = send(&s, Method::POST, &assets, &token, json!({"file_name": 1})).await;
    assert_eq!(answer, Refusal::missing(&["file_name", "data"]));

    assert_eq!(list(&s, &assets, &token).await, before);
}
