//! Product types: names unique per seller in any case, attribute schemas that products'
//! custom attributes must meet, counts, and deletion only when unused.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::on_both_backends;
use crate::support::{TestServer, error_fields, item_ids};

on_both_backends!(types_name_check_and_count_products);

async fn types_name_check_and_count_products(s: TestServer) {
    let token = s.owner_token().await;
    let (status, shirts) = s
        .call(
            Method::POST,
            "/v2/product_types",
            &token,
            Some(json!({"name": "Shirts", "attributes": [
                {"name": "material", "field_type": "select", "required": true, "options": ["cotton", "wool"]},
                {"name": "weight", "field_type": "number"}
            ]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{shirts}");
    assert_eq!(shirts["products_count"], 0);
    assert_eq!(s.event_count("product_types.created").await, 1);
    let path = format!("/v2/product_types/{}", shirts["id"]);
    // Names are unique whatever their case.
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/product_types",
            &token,
            Some(json!({"name": "SHIRTS"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["name"]);
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/product_types",
            &token,
            Some(
                json!({"name": "Bad", "attributes": [{"name": "a", "field_type": "select"},
                                                      {"name": "a", "field_type": "date"}]}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["attributes[1].field_type"]);
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/product_types",
            &token,
            Some(json!({"name": " ", "attributes": [{"name": "a", "field_type": "select"}]})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["name", "attributes[0].options"]);
    // Products of the type meet its schema.
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(json!({"title": "T", "price": 1, "product_type_id": shirts["id"],
                        "custom_attributes": {"material": "silk", "weight": "heavy", "colour": "red"}})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(
        fields,
        [
            "custom_attributes.colour",
            "custom_attributes.material",
            "custom_attributes.weight"
        ]
    );
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(json!({"title": "T", "price": 1, "product_type_name": "shirts"})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "the type is found by name: {body}"
    );
    assert_eq!(error_fields(&body), ["custom_attributes.material"]);
    let tee = s
        .create_product(
            &token,
            json!({"title": "Tee", "price": 1, "product_type_name": "SHIRTS",
                   "custom_attributes": {"material": "cotton", "weight": 120}}),
        )
        .await;
    assert_eq!(tee["product_type_id"], shirts["id"]);
    assert_eq!(tee["product_type_name"], "Shirts");
    let (_, fetched) = s.get_json(&path, &token).await;
    assert_eq!(fetched["products_count"], 1);
    assert!(
        fetched["_links"].get("product_types:delete").is_none(),
        "in use"
    );
    // In use: not deleted.
    let (status, body) = s.call(Method::DELETE, &path, &token, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["products_count"]);
    // Renaming reaches the product; clearing the product's type frees the type.
    let (status, renamed) = s
        .call(Method::PUT, &path, &token, Some(json!({"name": "Tees"})))
        .await;
    assert_eq!(status, StatusCode::OK, "{renamed}");
    let product_path = format!("/v2/products/{}", tee["id"]);
    let (_, product) = s.get_json(&product_path, &token).await;
    assert_eq!(product["product_type_name"], "Tees");
    let (status, cleared) = s
        .call(
            Method::PUT,
            &product_path,
            &token,
            Some(json!({"product_type_id": null})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cleared["product_type_id"], serde_json::Value::Null);
    let (_, list) = s.get_json("/v2/product_types?names=TEES", &token).await;
    assert_eq!(list["_embedded"]["items"][0]["products_count"], 0);
    let (_, list) = s
        .get_json("/v2/product_types?q=ee&sort=name.desc", &token)
        .await;
    assert_eq!(item_ids(&list), [shirts["id"].as_i64().unwrap()]);
    let (status, _) = s.call(Method::DELETE, &path, &token, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(s.event_count("product_types.deleted").await, 1);
    assert_eq!(s.event_count("product_types.updated").await, 1);
    // Other accounts see none of it.
    let other = s.seed_another_account().await;
    let theirs = s.owner_token_of(&other).await;
    let (_, list) = s.get_json("/v2/product_types", &theirs).await;
    assert_eq!(list["total_items"], 0);
}
