//! Price list items: batches upserted all or nothing, and `items_count` kept exact
//! through item, variant, product and list deletes.

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{
    another_account_token, create_list, get, id_of, items_count, last_event, product, put_items,
    send, two_variant_product,
};
use crate::on_both_backends;
use crate::support::{TestServer, error_fields, expect_error};

on_both_backends!(
    item_batches_are_upserted_all_or_nothing,
    items_count_stays_exact_through_every_delete,
);

async fn item_batches_are_upserted_all_or_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let (product_id, v) = two_variant_product(&s, &token, "Mug").await;
    let list = create_list(&s, &token, json!({"name": "Wholesale"})).await;
    let id = id_of(&list);
    let (status, body) = put_items(
        &s,
        &token,
        id,
        json!([
            {"variant_id": v[0], "price": 900},
            {"variant_id": v[0], "price": 800, "min_quantity": 10},
            {"variant_id": v[1], "price": 1500, "price_comparison": 1800}
        ]),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["items_count"], 3);
    let items = body["_embedded"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[1]["min_quantity"], 10);
    assert_eq!(items[1]["product_id"], product_id);
    assert_eq!(items[1]["currency_code"], "USD");
    assert_eq!(items[2]["price_comparison"], 1800);
    assert_eq!(items[0]["min_quantity"], 1, "min_quantity defaults to 1");
    let first_item = items[0]["id"].as_i64().unwrap();
    assert_eq!(s.event_count("price_lists.updated.items.upserted").await, 1);
    let embedded = s
        .db
        .scalar(&format!(
            "SELECT COUNT(*) FROM events WHERE topic = 'price_lists.updated.items.upserted' AND item_id = {id}"
        ))
        .await;
    assert_eq!(embedded, 1);

    // The same tier again updates it in place.
    let (status, body) =
        put_items(&s, &token, id, json!([{"variant_id": v[0], "price": 850}])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["_embedded"]["items"][0]["id"], first_item);
    assert_eq!(body["_embedded"]["items"][0]["price"], 850);
    assert_eq!(items_count(&s, &token, id).await, 3);
    assert_eq!(s.event_count("price_lists.updated.items.upserted").await, 2);
    let event = last_event(&s, "price_lists.updated.items.upserted").await;
    assert_eq!(event["id"], id);
    assert_eq!(event["items_count"], 3);
    assert_eq!(event["_embedded"]["items"].as_array().unwrap().len(), 1);
    assert_eq!(event["_embedded"]["items"][0]["price"], 850);
    // Unchanged prices record nothing.
    let (status, body) =
        put_items(&s, &token, id, json!([{"variant_id": v[0], "price": 850}])).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["_embedded"]["items"][0]["price"], 850);
    assert_eq!(s.event_count("price_lists.updated.items.upserted").await, 2);

    // One bad item refuses the whole batch; each problem is named.
    let (status, body) = put_items(
        &s,
        &token,
        id,
        json!([
            {"variant_id": v[0], "price": 700},
            {"variant_id": v[1], "price": -5},
            {"price": 1, "min_quantity": 0},
            {"variant_id": 987_654, "price": 1},
            {"variant_id": v[0], "price": 600, "min_quantity": 1},
            {"variant_id": v[1], "price": 1, "price_comparison": -1, "min_quantity": 2}
        ]),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        error_fields(&body),
        [
            "items[1].price",
            "items[2].variant_id",
            "items[2].min_quantity",
            "items[4].min_quantity",
            "items[5].price_comparison",
            "items[3].variant_id"
        ]
    );
    let (_, tier) = get(
        &s,
        &format!("/v2/price_lists/{id}/items/{first_item}"),
        &token,
    )
    .await;
    assert_eq!(tier["price"], 850, "the good item was not written either");
    assert_eq!(
        tier["_links"]["self"]["href"],
        s.url(&format!("/v2/price_lists/{id}/items/{first_item}"))
    );
    let (status, body) = put_items(&s, &token, id, json!([])).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["items"]);
    let (status, body) =
        put_items(&s, &token, id, json!([{"variant_id": "one", "price": 1}])).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["items[0].variant_id"]);
    let (status, body) = send(
        &s,
        Method::PUT,
        &format!("/v2/price_lists/{id}/items"),
        &token,
        json!({}),
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "missing_field");
    assert_eq!(error_fields(&body), ["items"]);

    // The list's currency cannot change under its items.
    let (status, body) = send(
        &s,
        Method::PUT,
        &format!("/v2/price_lists/{id}"),
        &token,
        json!({"currency_code": "EUR"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["currency_code"]);

    // Items list, filtered and paged.
    let (_, page) = get(
        &s,
        &format!("/v2/price_lists/{id}/items?per_page=2"),
        &token,
    )
    .await;
    assert_eq!(page["total_items"], 3);
    assert_eq!(page["_embedded"]["items"].as_array().unwrap().len(), 2);
    assert!(
        page["_links"]["next"]["href"]
            .as_str()
            .unwrap()
            .contains("page=2")
    );
    let (_, of_b) = get(
        &s,
        &format!("/v2/price_lists/{id}/items?variant_ids={}", v[1]),
        &token,
    )
    .await;
    assert_eq!(of_b["total_items"], 1);
    let (_, of_product) = get(
        &s,
        &format!("/v2/price_lists/{id}/items?product_ids={product_id}&sort=product_id.desc"),
        &token,
    )
    .await;
    assert_eq!(of_product["total_items"], 3);

    // Another account's variant is refused.
    let other_token = another_account_token(&s).await;
    let (_, theirs) = two_variant_product(&s, &other_token, "Theirs").await;
    let (status, body) = put_items(
        &s,
        &token,
        id,
        json!([{"variant_id": theirs[0], "price": 1}]),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["items[0].variant_id"]);
    // So is another seller's of the same account.
    s.db.execute(&format!(
        "INSERT INTO sellers (account_id, name, slug, default_currency_code, created_on, updated_on) \
         VALUES ({}, 'Second', 'second', 'USD', 0, 0)",
        s.demo.account_id
    ))
    .await;
    let second = s.db.scalar("SELECT MAX(id) FROM sellers").await;
    let (_, other_seller) = product(
        &s,
        &token,
        json!({"title": "Other seller", "seller_id": second, "price": 100}),
    )
    .await;
    let (status, body) = put_items(
        &s,
        &token,
        id,
        json!([{"variant_id": v[1], "price": 1}, {"variant_id": other_seller[0], "price": 1}]),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["items[1].variant_id"]);
    assert_eq!(items_count(&s, &token, id).await, 3);
    assert_eq!(s.event_count("price_lists.updated.items.upserted").await, 2);
}

async fn items_count_stays_exact_through_every_delete(s: TestServer) {
    let token = s.owner_token().await;
    let (_, first) = product(
        &s,
        &token,
        json!({"title": "Three", "variants": [
            {"sku": "T-A", "price": 100}, {"sku": "T-B", "price": 200}, {"sku": "T-C", "price": 300}
        ]}),
    )
    .await;
    let (second_product, second) = product(&s, &token, json!({"title": "One", "price": 400})).await;
    let one = id_of(&create_list(&s, &token, json!({"name": "One"})).await);
    let two = id_of(&create_list(&s, &token, json!({"name": "Two"})).await);
    let (status, body) = put_items(
        &s,
        &token,
        one,
        json!([
            {"variant_id": first[0], "price": 90},
            {"variant_id": first[0], "price": 80, "min_quantity": 5},
            {"variant_id": first[1], "price": 190},
            {"variant_id": first[2], "price": 290},
            {"variant_id": second[0], "price": 390}
        ]),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let bulk_tier = body["_embedded"]["items"][1]["id"].as_i64().unwrap();
    put_items(
        &s,
        &token,
        two,
        json!([{"variant_id": first[0], "price": 95}, {"variant_id": second[0], "price": 395}]),
    )
    .await;
    assert_eq!(items_count(&s, &token, one).await, 5);
    assert_eq!(items_count(&s, &token, two).await, 2);

    // One item.
    let item_path = format!("/v2/price_lists/{one}/items/{bulk_tier}");
    let (status, deleted) = send(&s, Method::DELETE, &item_path, &token, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    assert_eq!(deleted["id"], bulk_tier);
    assert_eq!(deleted["min_quantity"], 5);
    assert_eq!(items_count(&s, &token, one).await, 4);
    assert_eq!(s.event_count("price_lists.updated.items.deleted").await, 1);
    let event = last_event(&s, "price_lists.updated.items.deleted").await;
    assert_eq!(
        (event["id"].as_i64(), event["items_count"].as_i64()),
        (Some(one), Some(4))
    );
    assert_eq!(event["_embedded"]["items"][0]["id"], bulk_tier);
    assert_eq!(
        send(&s, Method::DELETE, &item_path, &token, json!({}))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(get(&s, &item_path, &token).await.0, StatusCode::NOT_FOUND);
    assert_eq!(s.event_count("price_lists.updated.items.deleted").await, 1);
    // Another list's item is not reachable through this one.
    let (_, two_items) = get(&s, &format!("/v2/price_lists/{two}/items"), &token).await;
    let foreign = two_items["_embedded"]["items"][0]["id"].as_i64().unwrap();
    let (status, _) = send(
        &s,
        Method::DELETE,
        &format!("/v2/price_lists/{one}/items/{foreign}"),
        &token,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A variant.
    let product_path = format!(
        "/v2/products/{}",
        body["_embedded"]["items"][0]["product_id"]
    );
    let (status, _) = send(
        &s,
        Method::DELETE,
        &format!("{product_path}/variants/{}", first[1]),
        &token,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(items_count(&s, &token, one).await, 3);
    assert_eq!(items_count(&s, &token, two).await, 2);
    // A whole product, in both lists.
    let (status, _) = send(
        &s,
        Method::DELETE,
        &format!("/v2/products/{second_product}"),
        &token,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(items_count(&s, &token, one).await, 2);
    assert_eq!(items_count(&s, &token, two).await, 1);
    let (status, _) = send(&s, Method::DELETE, &product_path, &token, json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(items_count(&s, &token, one).await, 0);
    assert_eq!(items_count(&s, &token, two).await, 0);
    // A list takes its items with it.
    let (_, fresh) = product(&s, &token, json!({"title": "Fresh", "price": 500})).await;
    put_items(
        &s,
        &token,
        two,
        json!([{"variant_id": fresh[0], "price": 450}]),
    )
    .await;
    assert_eq!(items_count(&s, &token, two).await, 1);
    let (status, _) = send(
        &s,
        Method::DELETE,
        &format!("/v2/price_lists/{two}"),
        &token,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM price_list_items").await,
        0
    );
}
