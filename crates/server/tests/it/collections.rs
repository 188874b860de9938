//! Collections: manual ones curated in order, smart ones computed from rules and kept up
//! to date as products change, with the same membership for their product lists and for
//! the products list's `collections` filter.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, error_fields, item_ids};

on_both_backends!(
    manual_collections_hold_what_is_put_in_them,
    smart_collections_follow_their_rules,
    collection_input_is_checked,
);

async fn create(s: &TestServer, token: &str, body: Value) -> Value {
    let (status, collection) = s
        .call(Method::POST, "/v2/collections", token, Some(body))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{collection}");
    collection
}

/// The members as the collection lists them, and as the product filter finds them.
async fn members(s: &TestServer, token: &str, id: &Value) -> (Vec<i64>, Vec<i64>) {
    let (status, listed) = s
        .get_json(&format!("/v2/collections/{id}/products?per_page=50"), token)
        .await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let (_, filtered) = s
        .get_json(&format!("/v2/products?collections={id}&per_page=50"), token)
        .await;
    let (_, collection) = s.get_json(&format!("/v2/collections/{id}"), token).await;
    assert_eq!(collection["products_count"], listed["total_items"]);
    assert_eq!(listed["total_items"], filtered["total_items"]);
    (item_ids(&listed), item_ids(&filtered))
}

async fn manual_collections_hold_what_is_put_in_them(s: TestServer) {
    let token = s.owner_token().await;
    let collection = create(
        &s,
        &token,
        json!({"title": "Staff Picks", "description": "Ours"}),
    )
    .await;
    assert_eq!(collection["kind"], "manual");
    assert_eq!(collection["sort_order"], "manual");
    assert_eq!(collection["slug"], "staff-picks");
    assert_eq!(s.event_count("collections.created").await, 1);
    let id = &collection["id"];
    let mut products = Vec::new();
    for title in ["A", "B", "C"] {
        products.push(
            s.create_product(&token, json!({"title": title, "price": 1}))
                .await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    let members_path = format!("/v2/collections/{id}/products");
    let add = |product: i64, position: Option<i64>| {
        let body = match position {
            Some(p) => json!({"product_id": product, "position": p}),
            None => json!({"product_id": product}),
        };
        s.call(Method::POST, &members_path, &token, Some(body))
    };
    let (status, after) = add(products[0], None).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["products_count"], 1);
    assert_eq!(after["_embedded"]["product"]["id"], products[0]);
    assert_eq!(add(products[1], None).await.0, StatusCode::OK);
    assert_eq!(add(products[2], Some(1)).await.0, StatusCode::OK);
    let (status, body) = add(products[2], None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["product_id"]);
    assert_eq!(s.event_count("collections.updated.products.added").await, 3);
    let (listed, filtered) = members(&s, &token, id).await;
    assert_eq!(listed, [products[2], products[0], products[1]]);
    assert_eq!(filtered, products, "the filter lists by id");
    let (_, product) = s
        .get_json(&format!("/v2/products/{}", products[1]), &token)
        .await;
    assert_eq!(product["collection_ids"], json!([id]));
    // Reorder: the products named first, the rest as they were.
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/collections/{id}/products"),
            &token,
            Some(json!({"product_ids": [products[1], products[0]]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        members(&s, &token, id).await.0,
        [products[1], products[0], products[2]]
    );
    let (status, body) = s
        .call(
            Method::PUT,
            &format!("/v2/collections/{id}/products"),
            &token,
            Some(json!({"product_ids": [999999]})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["product_ids"]);
    // Remove one; a product's own update can move it in and out too.
    let (status, _) = s
        .call(
            Method::DELETE,
            &format!("/v2/collections/{id}/products/{}", products[0]),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = s
        .call(
            Method::DELETE,
            &format!("/v2/collections/{id}/products/{}", products[0]),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        s.event_count("collections.updated.products.removed").await,
        1
    );
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{}", products[2]),
            &token,
            Some(json!({"collection_ids": []})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{}", products[0]),
            &token,
            Some(json!({"collection_ids": [id]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (listed, _) = members(&s, &token, id).await;
    assert_eq!(listed, [products[1], products[0]]);
    // Another account's product cannot be added.
    let other = s.seed_another_account().await;
    let theirs = s.owner_token_of(&other).await;
    let foreign = s
        .create_product(&theirs, json!({"title": "F", "price": 1}))
        .await;
    let (status, body) = add(foreign["id"].as_i64().unwrap(), None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["product_id"]);
    let (status, _) = s.get_json(&format!("/v2/collections/{id}"), &theirs).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Deleting the collection keeps its products.
    let (status, _) = s
        .call(
            Method::DELETE,
            &format!("/v2/collections/{id}"),
            &token,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(s.event_count("collections.deleted").await, 1);
    let (_, product) = s
        .get_json(&format!("/v2/products/{}", products[0]), &token)
        .await;
    assert_eq!(product["collection_ids"], json!([]));
}

async fn smart_collections_follow_their_rules(s: TestServer) {
    let token = s.owner_token().await;
    let cheap_sale = s
        .create_product(
            &token,
            json!({"title": "Cheap Sale", "tags": ["SALE"], "vendor": "Acme",
                                       "variants": [{"price": 500, "stock": 0}]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let dear_sale = s
        .create_product(
            &token,
            json!({"title": "Dear Sale", "tags": ["sale"], "product_type_name": "Premium",
                                       "variants": [{"price": 5000, "stock": 3}]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let plain = s
        .create_product(
            &token,
            json!({"title": "Plain", "vendor": "ACME Corp",
                                       "variants": [{"price": 700, "stock": 1}]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let all = create(
        &s,
        &token,
        json!({"title": "Cheap deals", "kind": "smart", "sort_order": "price.desc",
               "rules": [{"field": "tag", "relation": "equals", "value": "Sale"},
                         {"field": "price", "relation": "less_than", "value": "1000"}]}),
    )
    .await;
    assert_eq!(all["products_count"], 1);
    let any = create(
        &s,
        &token,
        json!({"title": "Acme or in stock", "kind": "smart", "rule_match": "any",
               "rules": [{"field": "vendor", "relation": "starts_with", "value": "acme"},
                         {"field": "stock", "relation": "greater_than", "value": "0"}]}),
    )
    .await;
    let typed = create(
        &s,
        &token,
        json!({"title": "Not premium", "kind": "smart", "sort_order": "created_on.asc",
               "rules": [{"field": "type", "relation": "not_equals", "value": "PREMIUM"},
                         {"field": "title", "relation": "not_contains", "value": "sale"}]}),
    )
    .await;
    assert_eq!(members(&s, &token, &all["id"]).await.0, [cheap_sale]);
    let (listed, filtered) = members(&s, &token, &any["id"]).await;
    assert_eq!(listed, [cheap_sale, dear_sale, plain], "title order");
    assert_eq!(filtered, listed);
    assert_eq!(members(&s, &token, &typed["id"]).await.0, [plain]);
    // A new product that meets the rules joins; a change that breaks them takes it out.
    let newcomer = s
        .create_product(
            &token,
            json!({"title": "Newcomer", "tags": ["sale"], "variants": [{"price": 900}]}),
        )
        .await;
    assert_eq!(newcomer["collection_ids"], json!([all["id"], typed["id"]]));
    let (listed, _) = members(&s, &token, &all["id"]).await;
    assert_eq!(
        listed,
        [newcomer["id"].as_i64().unwrap(), cheap_sale],
        "price.desc"
    );
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{cheap_sale}"),
            &token,
            Some(json!({"tags": []})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        members(&s, &token, &all["id"]).await.0,
        [newcomer["id"].as_i64().unwrap()]
    );
    // Stock moves membership of a stock rule: the plain product sells out...
    let (_, product) = s.get_json(&format!("/v2/products/{plain}"), &token).await;
    let variant = &product["_embedded"]["variants"][0]["id"];
    let (status, _) = s
        .call(
            Method::POST,
            &format!("/v2/products/{plain}/variants/{variant}/stock_adjustments"),
            &token,
            Some(json!({"delta": -1})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    // ...but its vendor still matches; a price change on the variant does not matter here.
    assert!(members(&s, &token, &any["id"]).await.0.contains(&plain));
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{plain}"),
            &token,
            Some(json!({"vendor": "Other"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(!members(&s, &token, &any["id"]).await.0.contains(&plain));
    // Changing the rules recomputes the members.
    let (status, changed) = s
        .call(
            Method::PUT,
            &format!("/v2/collections/{}", all["id"]),
            &token,
            Some(
                json!({"rules": [{"field": "price", "relation": "greater_than", "value": "600"}]}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    let (listed, _) = members(&s, &token, &all["id"]).await;
    assert_eq!(listed, [dear_sale, newcomer["id"].as_i64().unwrap(), plain]);
    assert_eq!(s.event_count("collections.updated").await, 1);
    // Products cannot be put in a smart collection by hand.
    let (status, body) = s
        .call(
            Method::POST,
            &format!("/v2/collections/{}/products", all["id"]),
            &token,
            Some(json!({"product_id": cheap_sale})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["kind"]);
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(json!({"title": "X", "price": 1, "collection_ids": [all["id"]]})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["collection_ids"]);
    // Filtering by several collections finds the products of any of them.
    let (_, both) = s
        .get_json(
            &format!("/v2/products?collections={},{}", all["id"], typed["id"]),
            &token,
        )
        .await;
    assert_eq!(both["total_items"], 3);
}

async fn collection_input_is_checked(s: TestServer) {
    let token = s.owner_token().await;
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/collections",
            &token,
            Some(
                json!({"title": " ", "slug": "Not A Slug", "kind": "smart", "sort_order": "manual",
                        "rules": [{"field": "tag", "relation": "greater_than", "value": "x"},
                                  {"field": "price", "relation": "equals", "value": "cheap"}]}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(
        fields,
        [
            "rules[0].relation",
            "rules[1].value",
            "slug",
            "sort_order",
            "title"
        ]
    );
    for (body, field) in [
        (
            json!({"title": "T", "rules": [{"field": "tag", "relation": "equals", "value": "x"}]}),
            "rules",
        ),
        (json!({"title": "T", "kind": "smart"}), "rules"),
        (json!({"title": "T", "kind": "clever"}), "kind"),
        (
            json!({"title": "T", "rules": [{"field": "colour", "relation": "equals", "value": "x"}]}),
            "rules[0].field",
        ),
    ] {
        let (status, answer) = s
            .call(Method::POST, "/v2/collections", &token, Some(body))
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        assert_eq!(error_fields(&answer), [field]);
    }
    let manual = create(&s, &token, json!({"title": "M"})).await;
    let (status, body) = s
        .call(
            Method::PUT,
            &format!("/v2/collections/{}", manual["id"]),
            &token,
            Some(json!({"kind": "smart"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["kind"]);
    let same_title = create(&s, &token, json!({"title": "M"})).await;
    assert_eq!(same_title["slug"], "m-2");
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM collections").await, 2);
    let (_, list) = s.get_json("/v2/collections?kind=manual&q=m", &token).await;
    assert_eq!(list["total_items"], 2);
}
