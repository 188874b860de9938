//! Shops: create, read, update, their validation, and the events they record.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::Backend;
use crate::support::{TestServer, assert_error, error_fields, expect_error, json};

on_both_backends!(
    create_read_and_record_one_event,
    create_refuses_invalid_input_and_changes_nothing,
    update_changes_settings_and_records_one_event,
    update_refuses_invalid_input_and_changes_nothing,
    a_failure_after_the_change_leaves_neither_change_nor_event,
    a_shop_has_its_storefront_url_and_creates_products_in_itself,
    a_configured_storefront_address_gives_each_shop_its_url,
);

async fn create(
    s: &TestServer,
    token: &str,
    body: Value,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let response = s
        .request(
            Method::POST,
            &format!("/v2/sellers/{}/shops", s.seller_id()),
            token,
        )
        .json(&body)
        .send()
        .await
        .unwrap();
    let headers = response.headers().clone();
    let (status, body) = json(response).await;
    (status, headers, body)
}

async fn create_read_and_record_one_event(s: TestServer) {
    let token = s.owner_token().await;
    let (status, headers, shop) = create(
        &s,
        &token,
        json!({"subdomain": "new-shop", "name": "  New Shop ", "timezone": "America/Santiago", "currency_code": "CLP",
               "locale": "es-CL", "storefront": "headless", "contact_email": "hello@new.example"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{shop}");
    let location = headers["location"].to_str().unwrap().to_owned();
    assert_eq!(location, s.url(&format!("/v2/shops/{}", shop["id"])));
    assert_eq!(shop["name"], "New Shop");
    assert_eq!(shop["subdomain"], "new-shop");
    assert_eq!(shop["storefront"], "headless");
    assert_eq!(shop["seller_id"], s.seller_id());
    assert_eq!(shop["_links"]["self"]["href"], location);
    let (status, fetched) = json(
        s.client
            .get(&location)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(fetched, shop);
    assert_eq!(s.event_count("shops.created").await, 1);
    let item = s
        .db
        .scalar(&format!(
            "SELECT COUNT(*) FROM events WHERE topic = 'shops.created' AND item_id = {} AND item_type = 'shop' \
             AND shop_subdomain = 'new-shop' AND user_name = 'Demo Owner'",
            shop["id"]
        ))
        .await;
    assert_eq!(item, 1, "the event names the shop and who made it");
    // Defaults come from the seller.
    let (status, _, minimal) = create(
        &s,
        &token,
        json!({"subdomain": "minimal", "name": "Minimal"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(minimal["currency_code"], "USD");
    assert_eq!(minimal["locale"], "en");
    assert_eq!(minimal["timezone"], "UTC");
    assert_eq!(minimal["storefront"], "hosted");
    assert_eq!(minimal["contact_email"], Value::Null);
    assert_eq!(s.event_count("shops.created").await, 2);
}

async fn create_refuses_invalid_input_and_changes_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let shops_before = s.db.scalar("SELECT COUNT(*) FROM shops").await;
    // A required field missing is a 400.
    let (status, _, body) = create(&s, &token, json!({"name": "No subdomain"})).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "missing_field");
    assert_eq!(error_fields(&body), ["subdomain"]);
    // Every invalid value is named.
    let (status, _, body) = create(
        &s,
        &token,
        json!({"subdomain": "Bad_Sub", "name": " ", "locale": "english", "currency_code": "XYZ",
               "timezone": "Mars/Base", "contact_email": "not-an-email", "storefront": "both"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["_class"], json!(["errors"]));
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(
        fields,
        [
            "contact_email",
            "currency_code",
            "locale",
            "name",
            "storefront",
            "subdomain",
            "timezone"
        ]
    );
    assert!(body["_embedded"]["errors"][0]["messages"][0].is_string());
    // Wrong types are 422 on the field.
    let (status, _, body) = create(&s, &token, json!({"subdomain": "typed", "name": 42})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["name"]);
    // Subdomains are unique across the service, and reserved names are refused.
    let taken = s.demo.shops[0].subdomain.clone();
    for subdomain in [taken.as_str(), "www"] {
        let (status, _, body) =
            create(&s, &token, json!({"subdomain": subdomain, "name": "Copy"})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{subdomain}");
        assert_eq!(error_fields(&body), ["subdomain"]);
    }
    // An unknown seller is a 404.
    let response = s
        .request(Method::POST, "/v2/sellers/987654/shops", &token)
        .json(&json!({"subdomain": "orphan", "name": "Orphan"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM shops").await,
        shops_before
    );
    assert_eq!(s.event_count("shops.created").await, 0);
}

async fn put(s: &TestServer, token: &str, id: i64, body: Value) -> (StatusCode, Value) {
    json(
        s.request(Method::PUT, &format!("/v2/shops/{id}"), token)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn update_changes_settings_and_records_one_event(s: TestServer) {
    let token = s.owner_token().await;
    let id = s.shop_id();
    let (status, shop) = put(
        &s,
        &token,
        id,
        json!({"name": "Renamed", "description": "Now with more.", "storefront": "headless", "contact_email": null,
               "subdomain": s.demo.shops[0].subdomain, "id": 12345, "created_on": "2000-01-01T00:00:00Z"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{shop}");
    assert_eq!(shop["name"], "Renamed");
    assert_eq!(shop["description"], "Now with more.");
    assert_eq!(shop["storefront"], "headless");
    assert_eq!(shop["contact_email"], Value::Null);
    assert_eq!(shop["id"], id, "read-only fields sent back are ignored");
    assert_eq!(s.event_count("shops.updated").await, 1);
    let (_, fetched) = json(
        s.get(&format!("/v2/shops/{id}"), &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(fetched, shop);
    // Nothing to change: no event, same answer.
    let (status, same) = put(&s, &token, id, json!({"name": "Renamed"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(same, shop);
    let (status, _) = put(&s, &token, id, json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(s.event_count("shops.updated").await, 1);
    // An empty body is an empty change.
    let response = s
        .request(Method::PUT, &format!("/v2/shops/{id}"), &token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

async fn update_refuses_invalid_input_and_changes_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let id = s.shop_id();
    let (_, before) = json(
        s.get(&format!("/v2/shops/{id}"), &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    let (status, body) = put(
        &s,
        &token,
        id,
        json!({"subdomain": "something-else", "name": null, "timezone": "Nowhere", "storefront": null}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(fields, ["name", "storefront", "subdomain", "timezone"]);
    let (status, body) = put(&s, &token, id, json!({"name": ["a"]})).await;
    assert_eq!(
        (status, error_fields(&body)),
        (StatusCode::UNPROCESSABLE_ENTITY, vec!["name".to_owned()])
    );
    let answer = s
        .send_raw(
            Method::PUT,
            &format!("/v2/shops/{id}"),
            &token,
            "application/json",
            "{\"name\": \"unterminated",
        )
        .await;
    assert_error(&answer, StatusCode::BAD_REQUEST, "malformed_json");
    let (_, after) = json(
        s.get(&format!("/v2/shops/{id}"), &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(after, before);
    assert_eq!(s.event_count("shops.updated").await, 0);
    let (status, _) = put(&s, &token, 424242, json!({"name": "Ghost"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let response = s
        .request(Method::PUT, "/v2/shops/not-a-number", &token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

async fn a_failure_after_the_change_leaves_neither_change_nor_event(s: TestServer) {
    let token = s.owner_token().await;
    let id = s.shop_id();
    // Make the event insert fail after the shop row has been written in the same transaction.
    s.db.refuse_events().await;
    let (status, body) = put(&s, &token, id, json!({"name": "Never saved"})).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(body["error"], "internal_error");
    assert!(
        !body.to_string().contains("refused"),
        "no internals leak: {body}"
    );
    let (status, _, _) = create(
        &s,
        &token,
        json!({"subdomain": "never-created", "name": "Never"}),
    )
    .await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    let (_, shop) = json(
        s.get(&format!("/v2/shops/{id}"), &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(shop["name"], "Demo Store");
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM shops WHERE subdomain = 'never-created'")
            .await,
        0
    );
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM events").await, 0);
    // Once the fault is gone the same change goes through, with its event.
    s.db.allow_events().await;
    let (status, _) = put(&s, &token, id, json!({"name": "Saved"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(s.event_count("shops.updated").await, 1);
}

/// What the published clients reach first: a shop's `url` (its storefront; `null` for a
/// headless shop) and its `products:create_product` link, which creates a product
/// available in that shop (and only there, unless the body names more).
async fn a_shop_has_its_storefront_url_and_creates_products_in_itself(s: TestServer) {
    let token = s.owner_token().await;
    let (status, hosted) = s
        .get_json(&format!("/v2/shops/{}", s.shop_id()), &token)
        .await;
    assert_eq!(status, StatusCode::OK, "{hosted}");
    assert_eq!(hosted["storefront"], "hosted");
    let subdomain = hosted["subdomain"].as_str().unwrap();
    // The default: a subdomain of the public host (here a loopback address).
    let port = s.url.rsplit(':').next().unwrap();
    assert_eq!(
        hosted["url"],
        format!("http://{subdomain}.localhost:{port}"),
        "{hosted}"
    );
    let (status, _, headless) = create(
        &s,
        &token,
        json!({"subdomain": "own-front", "name": "Own front", "storefront": "headless"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{headless}");
    assert_eq!(headless["url"], Value::Null, "{headless}");
    assert!(headless.as_object().unwrap().contains_key("url"));

    let link = hosted["_links"]["products:create_product"]["href"]
        .as_str()
        .expect("a writer sees products:create_product")
        .to_owned();
    let (status, product) = json(
        s.client
            .post(&link)
            .bearer_auth(&token)
            .json(&json!({"title": "Made in the shop", "price": 1200}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{product}");
    assert_eq!(product["shop_ids"], json!([s.shop_id()]), "{product}");
    assert_eq!(product["all_shops"], false, "{product}");
    let listed = format!("/v2/products?shop_ids={}&q=made", s.shop_id());
    let (_, page) = s.get_json(&listed, &token).await;
    assert_eq!(page["total_items"], 1, "{page}");
    let elsewhere = format!("/v2/products?shop_ids={}&q=made", headless["id"]);
    let (_, page) = s.get_json(&elsewhere, &token).await;
    assert_eq!(page["total_items"], 0, "{page}");
    // Shops the body names are kept, the link's shop added.
    let (status, both) = json(
        s.client
            .post(&link)
            .bearer_auth(&token)
            .json(&json!({"title": "In both", "price": 300, "shop_ids": [headless["id"]]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{both}");
    let mut shops: Vec<i64> = both["shop_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_i64().unwrap())
        .collect();
    shops.sort();
    let mut expected = vec![s.shop_id(), headless["id"].as_i64().unwrap()];
    expected.sort();
    assert_eq!(shops, expected);

    // A reader sees no link and cannot post; another account's shop is not found.
    let reader = s
        .password_token(
            &s.demo.user.email.clone(),
            &s.demo.user.password.clone(),
            Some("shops.read products.read"),
        )
        .await;
    let (_, seen) = s
        .get_json(&format!("/v2/shops/{}", s.shop_id()), &reader)
        .await;
    assert!(
        seen["_links"]["products:create_product"].is_null(),
        "{seen}"
    );
    let before = s.db.scalar("SELECT COUNT(*) FROM products").await;
    let (status, _) = json(
        s.client
            .post(&link)
            .bearer_auth(&reader)
            .json(&json!({"title": "Not allowed"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let other = s.seed_another_account().await;
    let intruder = s.owner_token_of(&other).await;
    let (status, _) = json(
        s.client
            .post(&link)
            .bearer_auth(&intruder)
            .json(&json!({"title": "Not mine"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM products").await, before);
}

/// `--storefront-url` places every hosted storefront.
async fn a_configured_storefront_address_gives_each_shop_its_url(backend: Backend) {
    let s = TestServer::start_with(backend, |config| {
        config.storefront_url = Some("https://{subdomain}.shops.example.net".into());
    })
    .await;
    let token = s.owner_token().await;
    let (_, shop) = s
        .get_json(&format!("/v2/shops/{}", s.shop_id()), &token)
        .await;
    let expected = format!(
        "https://{}.shops.example.net",
        shop["subdomain"].as_str().unwrap()
    );
    assert_eq!(shop["url"], expected, "{shop}");
}
