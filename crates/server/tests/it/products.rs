//! Products: create with variants, read, update, delete, their validation, their events,
//! and who sees them.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, assert_error, error_fields, json};

on_both_backends!(
    create_with_variants_and_read_it_back,
    defaults_and_derived_slugs,
    invalid_input_is_refused_and_changes_nothing,
    update_applies_changes_and_records_one_event,
    update_refuses_invalid_changes,
    delete_keeps_counts_and_records_one_event,
    tokens_of_other_accounts_see_nothing,
    write_links_and_writes_need_the_write_scope,
    etags_follow_every_change,
    a_failure_after_the_change_leaves_neither_change_nor_event,
);

async fn create_with_variants_and_read_it_back(s: TestServer) {
    let token = s.owner_token().await;
    let response = s
        .request(Method::POST, "/v2/products", &token)
        .json(&json!({
            "title": "  Red T-Shirt ", "description": "Soft organic cotton", "status": "visible",
            "vendor": "Acme", "tags": ["Summer", " sale ", "summer"], "product_type_name": "Shirts",
            "custom_attributes": {"fit": "slim", "organic": true, "gone": null},
            "variants": [
                {"title": "S", "sku": "TS-RED-S", "price": 1500, "price_comparison": 2000, "stock": 5,
                 "options": {"size": "S"}, "weight_in_grams": 180, "barcode": "0001"},
                {"title": "M", "sku": "TS-RED-M", "price": 1200, "price_comparison": 1600, "stock": 3,
                 "available_if_no_stock": true},
            ]
        }))
        .send()
        .await
        .unwrap();
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let (status, product) = json(response).await;
    assert_eq!(status, StatusCode::CREATED, "{product}");
    assert_eq!(location, s.url(&format!("/v2/products/{}", product["id"])));
    assert_eq!(product["title"], "Red T-Shirt");
    assert_eq!(product["slug"], "red-t-shirt");
    assert_eq!(product["status"], "visible");
    assert_eq!(product["tags"], json!(["Summer", "sale"]));
    assert_eq!(product["currency_code"], "USD");
    // The product's price is its lowest-priced variant's.
    assert_eq!(product["price"], 1200);
    assert_eq!(product["price_comparison"], 1600);
    assert_eq!(product["discount_percentage"], 25);
    assert_eq!(product["product_type_name"], "Shirts");
    assert_eq!(
        product["custom_attributes"],
        json!({"fit": "slim", "organic": true})
    );
    assert_eq!(product["all_shops"], true);
    let shops: Vec<i64> = s.demo.shops.iter().map(|shop| shop.id).collect();
    assert_eq!(product["shop_ids"], json!(shops));
    let variants = product["_embedded"]["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 2);
    assert_eq!(variants[0]["sku"], "TS-RED-S");
    assert_eq!(variants[0]["options"], json!({"size": "S"}));
    assert_eq!(variants[0]["discount_percentage"], 25);
    assert_eq!(variants[1]["available_if_no_stock"], true);
    assert_eq!(product["_embedded"]["images"], json!([]));
    for rel in [
        "products:update",
        "products:delete",
        "products:variants",
        "products:create_variant",
        "products:assets",
        "products:create_asset",
        "product_types:product_type",
    ] {
        assert!(product["_links"][rel]["href"].is_string(), "{rel}");
    }
    assert_eq!(
        variants[0]["_links"]["variants:adjust_stock"]["method"],
        "post"
    );
    let (status, fetched) = s.get_json(&location.replace(&s.url, ""), &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(fetched, product);
    assert_eq!(s.event_count("products.created").await, 1);
    assert_eq!(s.event_count("product_types.created").await, 1);
    let recorded = s
        .db
        .scalar(&format!(
            "SELECT COUNT(*) FROM events WHERE topic = 'products.created' AND item_type = 'product' \
             AND item_id = {} AND item_slug = 'red-t-shirt' AND seller_id = {}",
            product["id"],
            s.seller_id()
        ))
        .await;
    assert_eq!(recorded, 1, "the event names the product and its seller");
}

async fn defaults_and_derived_slugs(s: TestServer) {
    let token = s.owner_token().await;
    let mug = s
        .create_product(&token, json!({"title": "Mug", "price": 500}))
        .await;
    assert_eq!(mug["status"], "hidden");
    assert_eq!(mug["slug"], "mug");
    assert_eq!(mug["price"], 500);
    let only = &mug["_embedded"]["variants"][0];
    assert_eq!(only["title"], "Default");
    assert_eq!(only["price"], 500);
    assert_eq!(only["stock"], 0);
    assert_eq!(only["sku"], Value::Null);
    // Derived slugs are made unique; a given one that is taken is refused.
    let again = s
        .create_product(&token, json!({"title": "MUG!", "price": 1}))
        .await;
    assert_eq!(again["slug"], "mug-2");
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(json!({"title": "Cup", "slug": "mug", "price": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["slug"]);
    let symbols = s
        .create_product(&token, json!({"title": "!!!", "price": 1}))
        .await;
    assert_eq!(symbols["slug"], "product");
    let accented = s
        .create_product(&token, json!({"title": "Café Niño", "price": 1}))
        .await;
    assert_eq!(accented["slug"], "cafe-nino");
    // Only some shops.
    let headless = s.demo.shops[1].id;
    let limited = s
        .create_product(
            &token,
            json!({"title": "Limited", "price": 1, "shop_ids": [headless]}),
        )
        .await;
    assert_eq!(limited["all_shops"], false);
    assert_eq!(limited["shop_ids"], json!([headless]));
}

async fn invalid_input_is_refused_and_changes_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let other = s.seed_another_account().await;
    // Malformed JSON and a missing title are 400s.
    let (status, body) = s
        .send_raw(
            Method::POST,
            "/v2/products",
            &token,
            "application/json",
            "{\"title\": ",
        )
        .await;
    assert_eq!(error_fields(&body), ["body"]);
    assert_error(&(status, body), StatusCode::BAD_REQUEST, "malformed_json");
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(json!({"price": 1})),
        )
        .await;
    assert_eq!(error_fields(&body), ["title"]);
    assert_error(&(status, body), StatusCode::BAD_REQUEST, "missing_field");
    // A value of the wrong type is a 422 on its field.
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(json!({"title": "T", "price": "ten"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["price"]);
    // Every invalid value is named.
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(json!({
                "title": " ", "slug": "Bad Slug", "currency_code": "XYZ", "tags": ["a,b"],
                "shop_ids": [other.shops[0].id], "collection_ids": [999999], "product_type_id": 999999,
                "custom_attributes": {"colours": ["red"]},
                "variants": [
                    {"sku": "A", "price": -1, "stock": -2, "options": {"size": 3}},
                    {"sku": "A", "price_comparison": 10},
                ]
            })),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(
        fields,
        [
            "collection_ids",
            "currency_code",
            "custom_attributes.colours",
            "product_type_id",
            "shop_ids",
            "slug",
            "tags",
            "title",
            "variants[0].options",
            "variants[0].price",
            "variants[0].stock",
            "variants[1].price",
            "variants[1].sku",
        ]
    );
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(
                json!({"title": "T", "price": 1, "all_shops": true, "shop_ids": [s.shop_id()],
                        "status": "draft"}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["status"]);
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(json!({"title": "T", "price": 1, "all_shops": true, "shop_ids": [s.shop_id()]})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["shop_ids"]);
    // A SKU another product of the seller uses.
    s.create_product(
        &token,
        json!({"title": "Taken", "variants": [{"sku": "SKU-1", "price": 1}]}),
    )
    .await;
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(json!({"title": "T", "variants": [{"sku": "SKU-2", "price": 1}, {"sku": "SKU-1", "price": 1}]})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["variants[1].sku"]);
    // Nothing but the one valid product was written.
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM products").await, 1);
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM variants").await, 1);
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM product_types").await, 0);
    assert_eq!(s.event_count("products.created").await, 1);
}

async fn update_applies_changes_and_records_one_event(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Lamp", "vendor": "Acme", "tags": ["home"], "price": 3000}),
        )
        .await;
    let path = format!("/v2/products/{}", product["id"]);
    let (status, updated) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(
                json!({"title": "Desk Lamp", "status": "visible", "vendor": null,
                        "tags": ["Home", "Office"], "price": 2500, "price_comparison": 3000,
                        "custom_attributes": {"watts": 40}, "shop_ids": [s.shop_id()]}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["title"], "Desk Lamp");
    // The slug stays when the title changes.
    assert_eq!(updated["slug"], "lamp");
    assert_eq!(updated["status"], "visible");
    assert_eq!(updated["vendor"], Value::Null);
    assert_eq!(updated["tags"], json!(["Home", "Office"]));
    assert_eq!(updated["price"], 2500);
    assert_eq!(updated["discount_percentage"], 17);
    assert_eq!(updated["_embedded"]["variants"][0]["price"], 2500);
    assert_eq!(updated["custom_attributes"], json!({"watts": 40}));
    assert_eq!(updated["all_shops"], false);
    assert_eq!(updated["shop_ids"], json!([s.shop_id()]));
    assert_eq!(s.event_count("products.updated").await, 1);
    // The same values again change nothing and record nothing.
    let (status, same) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"title": "Desk Lamp", "tags": ["Home", "Office"]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(same, updated);
    assert_eq!(s.event_count("products.updated").await, 1);
    // An empty body is a valid no-op; the product can go back to every shop.
    let (status, all) = s
        .call(Method::PUT, &path, &token, Some(json!({"all_shops": true})))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(all["all_shops"], true);
    assert_eq!(all["shop_ids"].as_array().unwrap().len(), 2);
    let (status, _) = s
        .send_raw(Method::PUT, &path, &token, "application/json", "")
        .await;
    assert_eq!(status, StatusCode::OK);
    // The search document follows the title and tags.
    let (_, found) = s.get_json("/v2/products?q=desk%20off", &token).await;
    assert_eq!(found["total_items"], 1);
    let (_, gone) = s
        .get_json("/v2/products?q=home%20lamp%20acme", &token)
        .await;
    assert_eq!(
        gone["total_items"], 0,
        "the vendor is not searched and was cleared"
    );
}

async fn update_refuses_invalid_changes(s: TestServer) {
    let token = s.owner_token().await;
    s.create_product(
        &token,
        json!({"title": "Taken", "slug": "taken", "price": 1}),
    )
    .await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Two", "variants": [{"price": 1}, {"price": 2}]}),
        )
        .await;
    let path = format!("/v2/products/{}", product["id"]);
    let (status, body) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"title": null, "status": "gone", "slug": "taken"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["status"]);
    let (status, body) = s
        .call(
            Method::PUT,
            &path,
            &token,
            Some(json!({"title": null, "price": 5, "variants": []})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(fields, ["price", "title", "variants"]);
    let (status, body) = s
        .call(Method::PUT, &path, &token, Some(json!({"slug": "taken"})))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["slug"]);
    // A stale If-Match is refused before anything changes.
    let response = s
        .request(Method::PUT, &path, &token)
        .header("if-match", "\"stale\"")
        .json(&json!({"title": "New"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PRECONDITION_FAILED);
    let (_, after) = s.get_json(&path, &token).await;
    assert_eq!(after["title"], "Two");
    assert_eq!(after["slug"], "two");
    assert_eq!(s.event_count("products.updated").await, 0);
    let (status, _) = s
        .call(
            Method::PUT,
            "/v2/products/999999",
            &token,
            Some(json!({"title": "X"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn delete_keeps_counts_and_records_one_event(s: TestServer) {
    let token = s.owner_token().await;
    let (_, collection) = s
        .call(
            Method::POST,
            "/v2/collections",
            &token,
            Some(json!({"title": "Picks"})),
        )
        .await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Gone", "product_type_name": "Toys", "collection_ids": [collection["id"]],
                   "variants": [{"sku": "G-1", "price": 1}, {"sku": "G-2", "price": 2}]}),
        )
        .await;
    let keep = s
        .create_product(&token, json!({"title": "Kept", "price": 1}))
        .await;
    let type_path = format!("/v2/product_types/{}", product["product_type_id"]);
    let (_, product_type) = s.get_json(&type_path, &token).await;
    assert_eq!(product_type["products_count"], 1);
    let path = format!("/v2/products/{}", product["id"]);
    let (status, deleted) = s.call(Method::DELETE, &path, &token, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted, product);
    let (status, _) = s.get_json(&path, &token).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(s.event_count("products.deleted").await, 1);
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM variants").await, 1);
    let (_, product_type) = s.get_json(&type_path, &token).await;
    assert_eq!(product_type["products_count"], 0);
    let (_, collection) = s
        .get_json(&format!("/v2/collections/{}", collection["id"]), &token)
        .await;
    assert_eq!(collection["products_count"], 0);
    let (_, list) = s.get_json("/v2/products", &token).await;
    assert_eq!(list["total_items"], 1);
    assert_eq!(list["_embedded"]["items"][0]["id"], keep["id"]);
    // Its SKUs are free again.
    s.create_product(
        &token,
        json!({"title": "Again", "variants": [{"sku": "G-1", "price": 1}]}),
    )
    .await;
    let (status, _) = s.call(Method::DELETE, &path, &token, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn tokens_of_other_accounts_see_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Mine", "status": "visible", "price": 1}),
        )
        .await;
    let other = s.seed_another_account().await;
    let intruder = s.owner_token_of(&other).await;
    let path = format!("/v2/products/{}", product["id"]);
    for method in [Method::GET, Method::PUT, Method::DELETE] {
        let (status, _) = s
            .call(method.clone(), &path, &intruder, Some(json!({})))
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method}");
    }
    let (status, _) = s.get_json(&format!("{path}/variants"), &intruder).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, list) = s.get_json("/v2/products", &intruder).await;
    assert_eq!(list["total_items"], 0);
    // Naming the first account's shop finds nothing either.
    let (_, list) = s
        .get_json(
            &format!("/v2/products?shop_subdomains={}", s.demo.shops[0].subdomain),
            &intruder,
        )
        .await;
    assert_eq!(list["total_items"], 0);
    // Its shops, collections and types cannot be named on a write.
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &intruder,
            Some(json!({"title": "T", "price": 1, "shop_ids": [s.shop_id()],
                        "product_type_id": product["product_type_id"]})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["shop_ids"]);
    let (status, body) = s
        .call(
            Method::POST,
            "/v2/products",
            &intruder,
            Some(json!({"title": "T", "price": 1, "seller_id": s.seller_id()})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["seller_id"]);
}

async fn write_links_and_writes_need_the_write_scope(s: TestServer) {
    let owner = s.owner_token().await;
    let product = s
        .create_product(&owner, json!({"title": "P", "price": 1}))
        .await;
    let path = format!("/v2/products/{}", product["id"]);
    let reader = s
        .password_token(
            &s.demo.user.email.clone(),
            &s.demo.user.password.clone(),
            Some("products.read"),
        )
        .await;
    let (status, seen) = s.get_json(&path, &reader).await;
    assert_eq!(status, StatusCode::OK);
    let links = seen["_links"].as_object().unwrap();
    for rel in [
        "products:update",
        "products:delete",
        "products:create_variant",
        "products:create_asset",
    ] {
        assert!(!links.contains_key(rel), "{rel} without products.write");
    }
    assert!(links.contains_key("products:variants"));
    assert!(
        !seen["_embedded"]["variants"][0]["_links"]
            .as_object()
            .unwrap()
            .contains_key("variants:update")
    );
    let (status, _) = s
        .call(Method::PUT, &path, &reader, Some(json!({"title": "X"})))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = s
        .call(
            Method::POST,
            "/v2/products",
            &reader,
            Some(json!({"title": "X", "price": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (_, root) = s.get_json("/v2", &reader).await;
    assert!(root["_links"]["products:products"]["templated"] == true);
    assert!(root["_links"].get("products:create_product").is_none());
    // Without products.read the catalog is forbidden, and the root does not link to it.
    let shops_only = s
        .password_token(
            &s.demo.user.email.clone(),
            &s.demo.user.password.clone(),
            Some("shops.read"),
        )
        .await;
    let (status, _) = s.get_json("/v2/products", &shops_only).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (_, root) = s.get_json("/v2", &shops_only).await;
    assert!(root["_links"].get("products:products").is_none());
}

async fn etags_follow_every_change(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(
            &token,
            json!({"title": "E", "variants": [{"price": 1, "stock": 4}]}),
        )
        .await;
    let path = format!("/v2/products/{}", product["id"]);
    for list_or_item in [path.as_str(), "/v2/products", "/v2/products?q=e"] {
        let first = s.get(list_or_item, &token).send().await.unwrap();
        let etag = first.headers()["etag"].to_str().unwrap().to_owned();
        assert!(first.headers().contains_key("last-modified"));
        let again = s
            .get(list_or_item, &token)
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{list_or_item}");
    }
    let first = s.get(&path, &token).send().await.unwrap();
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    let variant = product["_embedded"]["variants"][0]["id"].as_i64().unwrap();
    let (status, _) = s
        .call(
            Method::POST,
            &format!("{path}/variants/{variant}/stock_adjustments"),
            &token,
            Some(json!({"delta": -1})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let after = s
        .get(&path, &token)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(
        after.status(),
        StatusCode::OK,
        "a stock change is a new version"
    );
    let (_, body) = json(after).await;
    assert_eq!(body["_embedded"]["variants"][0]["stock"], 3);
}

async fn a_failure_after_the_change_leaves_neither_change_nor_event(s: TestServer) {
    let token = s.owner_token().await;
    let (_, collection) = s
        .call(
            Method::POST,
            "/v2/collections",
            &token,
            Some(json!({"title": "Kept"})),
        )
        .await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Stable", "variants": [{"price": 1, "stock": 5}]}),
        )
        .await;
    let path = format!("/v2/products/{}", product["id"]);
    let variant = format!(
        "{path}/variants/{}",
        product["_embedded"]["variants"][0]["id"]
    );
    let events = s.db.scalar("SELECT COUNT(*) FROM events").await;
    s.db.refuse_events().await;
    let writes = [
        (
            Method::POST,
            "/v2/products".to_owned(),
            json!({"title": "Never", "product_type_name": "New Type", "tags": ["t"],
                   "collection_ids": [collection["id"]], "variants": [{"sku": "NEVER", "price": 1}]}),
        ),
        (
            Method::PUT,
            path.clone(),
            json!({"title": "Changed", "tags": ["x"]}),
        ),
        (
            Method::POST,
            format!("{variant}/stock_adjustments"),
            json!({"delta": -2}),
        ),
        (Method::PUT, variant.clone(), json!({"price": 99})),
        (
            Method::POST,
            format!("{path}/variants"),
            json!({"price": 3}),
        ),
        (Method::DELETE, path.clone(), json!({})),
        (
            Method::POST,
            "/v2/collections".to_owned(),
            json!({"title": "Never"}),
        ),
        (
            Method::POST,
            "/v2/product_types".to_owned(),
            json!({"name": "Never"}),
        ),
    ];
    for (method, target, body) in writes {
        let (status, answer) = s.call(method.clone(), &target, &token, Some(body)).await;
        assert_eq!(
            status,
            StatusCode::INTERNAL_SERVER_ERROR,
            "{method} {target}"
        );
        assert!(!answer.to_string().contains("refused"), "no internals leak");
    }
    s.db.allow_events().await;
    let (_, after) = s.get_json(&path, &token).await;
    assert_eq!(after, product, "the product is as it was");
    for (table, count) in [
        ("products", 1),
        ("variants", 1),
        ("product_tags", 0),
        ("product_types", 0),
        ("collections", 1),
        ("collection_products", 0),
    ] {
        assert_eq!(
            s.db.scalar(&format!("SELECT COUNT(*) FROM {table}")).await,
            count,
            "{table}"
        );
    }
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM events").await, events);
    let (_, list) = s.get_json("/v2/products", &token).await;
    assert_eq!(list["total_items"], 1, "the counts did not move");
}
