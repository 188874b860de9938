//! Variants: add, change, delete (never the last), SKUs unique per seller, and stock that
//! concurrent changes never take below zero.

use std::sync::Arc;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, error_fields, item_ids};

on_both_backends!(
    add_change_and_delete_variants,
    skus_are_unique_per_seller,
    stock_adjustments_are_relative_and_bounded,
    parallel_decrements_never_oversell,
);

async fn product_with(s: &TestServer, token: &str, variants: Value) -> (String, Vec<i64>) {
    let product = s
        .create_product(token, json!({"title": "Shoe", "variants": variants}))
        .await;
    let ids = product["_embedded"]["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_i64().unwrap())
        .collect();
    (format!("/v2/products/{}", product["id"]), ids)
}

async fn add_change_and_delete_variants(s: TestServer) {
    let token = s.owner_token().await;
    let (path, ids) = product_with(
        &s,
        &token,
        json!([{"title": "40", "sku": "SH-40", "price": 5000}]),
    )
    .await;
    let variants = format!("{path}/variants");
    let response = s
        .request(Method::POST, &variants, &token)
        .json(&json!({"title": "41", "sku": "SH-41", "price": 4500, "price_comparison": 6000, "stock": 2,
                      "options": {"size": "41"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let added: Value = response.json().await.unwrap();
    assert_eq!(location, s.url(&format!("{variants}/{}", added["id"])));
    assert_eq!(added["position"], 2);
    assert_eq!(added["discount_percentage"], 25);
    assert_eq!(s.event_count("products.updated.variants.created").await, 1);
    // The product's price follows its cheapest variant, and its search follows the SKUs.
    let (_, product) = s.get_json(&path, &token).await;
    assert_eq!(product["price"], 4500);
    assert_eq!(product["price_comparison"], 6000);
    let (_, found) = s.get_json("/v2/products?q=sh%2041", &token).await;
    assert_eq!(found["total_items"], 1);
    let (status, list) = s.get_json(&variants, &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(item_ids(&list), [ids[0], added["id"].as_i64().unwrap()]);
    let (_, list) = s
        .get_json(&format!("{variants}?sort=position.desc&per_page=1"), &token)
        .await;
    assert_eq!(item_ids(&list), [added["id"].as_i64().unwrap()]);
    assert_eq!(list["total_items"], 2);
    // Change one.
    let one = format!("{variants}/{}", ids[0]);
    let (status, changed) = s
        .call(
            Method::PUT,
            &one,
            &token,
            Some(json!({"price": 3000, "sku": "SH-40B", "barcode": "123", "position": 3, "options": {"size": "40"}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["sku"], "SH-40B");
    assert_eq!(changed["position"], 3);
    assert_eq!(s.event_count("products.updated.variants.updated").await, 1);
    let (_, product) = s.get_json(&path, &token).await;
    assert_eq!(product["price"], 3000);
    assert_eq!(product["price_comparison"], Value::Null);
    let (_, list) = s.get_json(&variants, &token).await;
    assert_eq!(item_ids(&list)[1], ids[0], "ordered by position");
    // Invalid changes are named and change nothing.
    let (status, body) = s
        .call(
            Method::PUT,
            &one,
            &token,
            Some(json!({"price": null, "stock": -1, "options": {"size": 40}, "image_ids": [999], "position": 0})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(fields, ["options", "position", "price", "stock"]);
    let (status, body) = s
        .call(Method::PUT, &one, &token, Some(json!({"image_ids": [999]})))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["image_ids"]);
    let (_, unchanged) = s.get_json(&one, &token).await;
    assert_eq!(unchanged["price"], 3000);
    // Delete one; the last one stays.
    let (status, deleted) = s.call(Method::DELETE, &one, &token, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted["id"], ids[0]);
    assert_eq!(s.event_count("products.updated.variants.deleted").await, 1);
    let (status, _) = s.get_json(&one, &token).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let last = format!("{variants}/{}", added["id"]);
    let (status, body) = s.call(Method::DELETE, &last, &token, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["id"]);
    let (_, product) = s.get_json(&path, &token).await;
    assert_eq!(product["price"], 4500);
    assert_eq!(
        product["_embedded"]["variants"].as_array().unwrap().len(),
        1
    );
    // A variant is found only under its own product.
    let (other, _) = product_with(&s, &token, json!([{"price": 1}])).await;
    let (status, _) = s
        .get_json(&format!("{other}/variants/{}", added["id"]), &token)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn skus_are_unique_per_seller(s: TestServer) {
    let token = s.owner_token().await;
    let (path, ids) = product_with(
        &s,
        &token,
        json!([{"sku": "DUP", "price": 1}, {"sku": "OTHER", "price": 1}]),
    )
    .await;
    let (other_path, _) = product_with(&s, &token, json!([{"price": 1}])).await;
    let (status, body) = s
        .call(
            Method::POST,
            &format!("{other_path}/variants"),
            &token,
            Some(json!({"sku": "DUP", "price": 2})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["sku"]);
    let (status, body) = s
        .call(
            Method::PUT,
            &format!("{path}/variants/{}", ids[1]),
            &token,
            Some(json!({"sku": "DUP"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["sku"]);
    // Keeping its own SKU is no conflict; another account may use the same SKU.
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("{path}/variants/{}", ids[0]),
            &token,
            Some(json!({"sku": "DUP", "title": "Renamed"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let other = s.seed_another_account().await;
    let their_token = s.owner_token_of(&other).await;
    s.create_product(
        &their_token,
        json!({"title": "Theirs", "variants": [{"sku": "DUP", "price": 1}]}),
    )
    .await;
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM variants WHERE sku = 'DUP'")
            .await,
        2
    );
}

async fn adjust(s: &TestServer, token: &str, variant: &str, body: Value) -> (StatusCode, Value) {
    s.call(
        Method::POST,
        &format!("{variant}/stock_adjustments"),
        token,
        Some(body),
    )
    .await
}

async fn stock_adjustments_are_relative_and_bounded(s: TestServer) {
    let token = s.owner_token().await;
    let (path, ids) = product_with(
        &s,
        &token,
        json!([{"sku": "A", "price": 1, "stock": 2}, {"sku": "B", "price": 1, "available_if_no_stock": true}]),
    )
    .await;
    let strict = format!("{path}/variants/{}", ids[0]);
    let backorder = format!("{path}/variants/{}", ids[1]);
    let (status, v) = adjust(&s, &token, &strict, json!({"delta": 5})).await;
    assert_eq!((status, v["stock"].clone()), (StatusCode::OK, json!(7)));
    let (status, v) = adjust(&s, &token, &strict, json!({"delta": -7})).await;
    assert_eq!((status, v["stock"].clone()), (StatusCode::OK, json!(0)));
    let (status, body) = adjust(&s, &token, &strict, json!({"delta": -1})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["delta"]);
    let (status, v) = adjust(&s, &token, &backorder, json!({"delta": -3})).await;
    assert_eq!((status, v["stock"].clone()), (StatusCode::OK, json!(-3)));
    // A variant on backorder with negative stock cannot stop selling on backorder.
    let (status, body) = s
        .call(
            Method::PUT,
            &backorder,
            &token,
            Some(json!({"available_if_no_stock": false})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["stock"]);
    for bad in [json!({"delta": 0}), json!({"delta": "one"})] {
        let (status, _) = adjust(&s, &token, &strict, bad).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    }
    let (status, body) = adjust(&s, &token, &strict, json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error_fields(&body), ["delta"]);
    let (status, _) = adjust(
        &s,
        &token,
        &format!("{path}/variants/999999"),
        json!({"delta": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // An adjustment retried with its Idempotency-Key applies once.
    for _ in 0..2 {
        let response = s
            .request(Method::POST, &format!("{strict}/stock_adjustments"), &token)
            .header("idempotency-key", "restock-1")
            .json(&json!({"delta": 4}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
    }
    let (_, v) = s.get_json(&strict, &token).await;
    assert_eq!(v["stock"], 4);
    // Applied adjustments: +5, -7, -3, +4.
    assert_eq!(s.event_count("products.updated.variants.updated").await, 4);
}

async fn parallel_decrements_never_oversell(s: TestServer) {
    let s = Arc::new(s);
    let token = s.owner_token().await;
    const START: i64 = 10;
    const BUYERS: usize = 24;
    let (path, ids) = product_with(
        &s,
        &token,
        json!([{"sku": "LIMITED", "price": 1, "stock": START},
               {"sku": "MADE-TO-ORDER", "price": 1, "stock": START, "available_if_no_stock": true}]),
    )
    .await;
    for (variant, backorders) in [(ids[0], false), (ids[1], true)] {
        let href = format!("{path}/variants/{variant}");
        let tasks: Vec<_> = (0..BUYERS)
            .map(|_| {
                let (s, token, href) = (s.clone(), token.clone(), href.clone());
                tokio::spawn(async move { adjust(&s, &token, &href, json!({"delta": -1})).await.0 })
            })
            .collect();
        let mut sold = 0_i64;
        for task in tasks {
            match task.await.unwrap() {
                StatusCode::OK => sold += 1,
                StatusCode::UNPROCESSABLE_ENTITY => {}
                other => panic!("unexpected answer {other}"),
            }
        }
        let (_, v) = s.get_json(&href, &token).await;
        let stock = v["stock"].as_i64().unwrap();
        assert_eq!(
            stock,
            START - sold,
            "the stock is the start minus what sold"
        );
        if backorders {
            assert_eq!(sold, BUYERS as i64, "backorders sell every time");
        } else {
            assert_eq!(sold, START, "exactly the stock sells");
            assert_eq!(stock, 0);
        }
    }
    assert_eq!(
        s.event_count("products.updated.variants.updated").await,
        START + BUYERS as i64
    );
}
