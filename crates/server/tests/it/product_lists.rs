//! The product list: every filter and sort, the public catalog of named shops, and its
//! cost in queries whatever the page size.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, error_fields, item_ids};

on_both_backends!(
    every_filter_narrows_the_list,
    sorts_are_stable_and_pages_link_to_each_other,
    tokens_bound_to_no_account_must_name_shops,
    a_page_costs_the_same_number_of_queries_whatever_its_size,
);

/// Five products with varied fields; answers their ids in creation order.
async fn catalog(s: &TestServer, token: &str) -> Vec<i64> {
    let (_, collection) = s
        .call(
            Method::POST,
            "/v2/collections",
            token,
            Some(json!({"title": "Featured"})),
        )
        .await;
    let headless = s.demo.shops[1].id;
    let bodies = [
        json!({"title": "Red Shirt", "status": "visible", "vendor": "Acme", "tags": ["Summer", "sale"],
               "product_type_name": "Shirts", "collection_ids": [collection["id"]],
               "variants": [{"sku": "RS-1", "price": 1500}]}),
        json!({"title": "Blue Shirt", "vendor": "Acme", "tags": ["winter"], "product_type_name": "shirts",
               "description": "Warm flannel", "variants": [{"sku": "BS-1", "price": 2500}]}),
        json!({"title": "Green Mug", "status": "visible", "vendor": "Mugs Inc", "tags": ["SALE"],
               "shop_ids": [headless], "variants": [{"sku": "GM-1", "price": 800}]}),
        json!({"title": "Yellow Cap", "status": "visible", "collection_ids": [collection["id"]],
               "variants": [{"sku": "YC-1", "price": 1200}, {"sku": "YC-2", "price": 3000}]}),
        json!({"title": "Black Bag", "vendor": "Bags", "variants": [{"sku": "BB-1", "price": 5000}]}),
    ];
    let mut ids = Vec::new();
    for body in bodies {
        ids.push(s.create_product(token, body).await["id"].as_i64().unwrap());
    }
    ids
}

async fn ids_of(s: &TestServer, token: &str, query: &str) -> Vec<i64> {
    let (status, list) = s.get_json(&format!("/v2/products?{query}"), token).await;
    assert_eq!(status, StatusCode::OK, "{query}: {list}");
    let ids = item_ids(&list);
    assert_eq!(list["total_items"], ids.len(), "{query}");
    ids
}

async fn every_filter_narrows_the_list(s: TestServer) {
    let token = s.owner_token().await;
    let [red, blue, mug, cap, bag] = catalog(&s, &token).await[..] else {
        panic!("five products");
    };
    let (_, shirt) = s.get_json(&format!("/v2/products/{red}"), &token).await;
    let type_id = shirt["product_type_id"].as_i64().unwrap();
    let collection = shirt["collection_ids"][0].as_i64().unwrap();
    let (store, headless) = (&s.demo.shops[0], &s.demo.shops[1]);
    let cases: Vec<(String, Vec<i64>)> = vec![
        ("".into(), vec![red, blue, mug, cap, bag]),
        ("q=shirt".into(), vec![red, blue]),
        ("q=SHI%20re".into(), vec![red]),
        ("q=flannel".into(), vec![blue]),
        ("q=gm-1".into(), vec![mug]),
        ("q=summer".into(), vec![red]),
        ("q=acme".into(), vec![]),
        ("q=%20--%20".into(), vec![red, blue, mug, cap, bag]),
        ("status=visible".into(), vec![red, mug, cap]),
        ("status=hidden".into(), vec![blue, bag]),
        (format!("shop_ids={}", store.id), vec![red, blue, cap, bag]),
        (
            format!("shop_ids={}", headless.id),
            vec![red, blue, mug, cap, bag],
        ),
        (
            format!("shop_subdomains={}", store.subdomain),
            vec![red, blue, cap, bag],
        ),
        (
            format!(
                "shop_ids={}&shop_subdomains={}",
                store.id, headless.subdomain
            ),
            vec![],
        ),
        (format!("collections={collection}"), vec![red, cap]),
        (format!("type_ids={type_id}"), vec![red, blue]),
        ("tags=sale".into(), vec![red, mug]),
        ("tags=WINTER,summer".into(), vec![red, blue]),
        ("sku=YC-2".into(), vec![cap]),
        ("sku=GM-1,BB-1".into(), vec![mug, bag]),
        ("vendor=Acme".into(), vec![red, blue]),
        ("vendor=Acme,Bags".into(), vec![red, blue, bag]),
        ("price.gte=1200&price.lte=2500".into(), vec![red, blue, cap]),
        ("price_gte=2000".into(), vec![blue, bag]),
        (
            "created_on.gte=2000-01-01&created_on.lte=2999-01-01".into(),
            vec![red, blue, mug, cap, bag],
        ),
        ("created_on.gte=2999-01-01".into(), vec![]),
        ("updated_on.lte=2000-01-01".into(), vec![]),
        ("status=visible&tags=sale&price.lte=1000".into(), vec![mug]),
    ];
    for (query, expected) in cases {
        assert_eq!(ids_of(&s, &token, &query).await, expected, "{query}");
    }
    // A product's changes reach the filters.
    let (status, _) = s
        .call(
            Method::PUT,
            &format!("/v2/products/{bag}"),
            &token,
            Some(json!({"tags": ["Sale"], "status": "visible"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(ids_of(&s, &token, "tags=sale").await, [red, mug, bag]);
    assert_eq!(
        ids_of(&s, &token, "status=visible").await,
        [red, mug, cap, bag]
    );
    // Bad values are named.
    let (status, body) = s
        .get_json(
            "/v2/products?status=draft&price.gte=ten&shop_ids=x&created_on.lte=soon&sort=weight&per_page=0",
            &token,
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(
        fields,
        [
            "created_on.lte",
            "per_page",
            "price.gte",
            "shop_ids",
            "sort",
            "status"
        ]
    );
}

async fn sorts_are_stable_and_pages_link_to_each_other(s: TestServer) {
    let token = s.owner_token().await;
    let [red, blue, mug, cap, bag] = catalog(&s, &token).await[..] else {
        panic!("five products");
    };
    for (sort, expected) in [
        ("id.desc", vec![bag, cap, mug, blue, red]),
        ("title", vec![bag, blue, mug, red, cap]),
        ("title.desc", vec![cap, red, mug, blue, bag]),
        ("price.asc", vec![mug, cap, red, blue, bag]),
        ("price.desc", vec![bag, blue, red, cap, mug]),
        ("created_on.asc", vec![red, blue, mug, cap, bag]),
    ] {
        assert_eq!(
            ids_of(&s, &token, &format!("sort={sort}")).await,
            expected,
            "{sort}"
        );
    }
    let (_, page) = s
        .get_json(
            "/v2/products?sort=price.asc&per_page=2&page=2&tags=sale,summer,winter",
            &token,
        )
        .await;
    assert_eq!(page["total_items"], 3);
    assert_eq!(item_ids(&page), [blue]);
    let prev = page["_links"]["prev"]["href"].as_str().unwrap();
    assert!(
        prev.contains("tags=sale%2Csummer%2Cwinter") && prev.contains("sort=price.asc"),
        "{prev}"
    );
    assert!(page["_links"].get("next").is_none());
    let (_, first) = s.get_json(&prev.replace(&s.url, ""), &token).await;
    assert_eq!(item_ids(&first), [mug, red]);
    // The templated list link declares every parameter.
    let (_, root) = s.get_json("/v2", &token).await;
    let href = root["_links"]["products:products"]["href"]
        .as_str()
        .unwrap();
    for param in [
        "q",
        "status",
        "shop_ids",
        "shop_subdomains",
        "collections",
        "type_ids",
        "tags",
        "sku",
        "vendor",
        "price.gte",
        "price.lte",
        "created_on.gte",
        "created_on.lte",
        "updated_on.gte",
        "updated_on.lte",
        "sort",
        "page",
        "per_page",
    ] {
        assert!(href.contains(param), "{href} declares {param}");
    }
    let shop_link = root["_embedded"]["shops"][0]["_links"]["products:products"]["href"]
        .as_str()
        .unwrap();
    assert!(
        shop_link.contains(&format!("shop_ids={}", s.shop_id())),
        "{shop_link}"
    );
}

async fn tokens_bound_to_no_account_must_name_shops(s: TestServer) {
    let token = s.owner_token().await;
    let [red, blue, mug, cap, _bag] = catalog(&s, &token).await[..] else {
        panic!("five products");
    };
    let (client_id, secret) = s
        .register_app(None, "public", "client_credentials", false)
        .await;
    let public = s.client_credentials_token(&client_id, &secret, None).await;
    let (status, body) = s.get_json("/v2/products", &public).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&body), ["shop_subdomains"]);
    let (store, headless) = (&s.demo.shops[0], &s.demo.shops[1]);
    // Only visible products available in the shops named.
    let query = format!("shop_subdomains={}", store.subdomain);
    assert_eq!(ids_of(&s, &public, &query).await, [red, cap]);
    let query = format!("shop_subdomains={},{}", store.subdomain, headless.subdomain);
    assert_eq!(ids_of(&s, &public, &query).await, [red, mug, cap]);
    assert_eq!(
        ids_of(&s, &public, &format!("{query}&tags=sale")).await,
        [red, mug]
    );
    assert_eq!(
        ids_of(&s, &public, "shop_subdomains=nowhere").await,
        Vec::<i64>::new()
    );
    // One product: visible ones only, and links that name the shops again.
    let (status, seen) = s
        .get_json(&format!("/v2/products/{red}?{query}"), &public)
        .await;
    assert_eq!(status, StatusCode::OK);
    let self_href = seen["_links"]["self"]["href"].as_str().unwrap();
    assert!(
        self_href.ends_with(&format!(
            "/v2/products/{red}?shop_subdomains={}%2C{}",
            store.subdomain, headless.subdomain
        )),
        "{self_href}"
    );
    let links: Vec<&String> = seen["_links"].as_object().unwrap().keys().collect();
    assert_eq!(
        links,
        ["self", "curies"],
        "no admin links for the public catalog"
    );
    let (status, _) = s
        .get_json(&format!("/v2/products/{blue}?{query}"), &public)
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "hidden products are not public"
    );
    let (status, _) = s.get_json(&format!("/v2/products/{red}"), &public).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    // A token with neither products.read nor public reads no catalog.
    let (client_id, secret) = s
        .register_app(None, "shops.read", "client_credentials", false)
        .await;
    let shops_only = s.client_credentials_token(&client_id, &secret, None).await;
    let (status, _) = s
        .get_json(&format!("/v2/products?{query}"), &shops_only)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Writing needs an account.
    let (status, _) = s
        .call(
            Method::POST,
            "/v2/products",
            &public,
            Some(json!({"title": "X", "price": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

async fn a_page_costs_the_same_number_of_queries_whatever_its_size(s: TestServer) {
    let token = s.owner_token().await;
    let (_, collection) = s
        .call(
            Method::POST,
            "/v2/collections",
            &token,
            Some(json!({"title": "All"})),
        )
        .await;
    for i in 0..12 {
        let body: Value = json!({
            "title": format!("Item {i}"), "status": "visible", "tags": ["bulk", format!("t{i}")],
            "product_type_name": format!("Type {}", i % 3), "collection_ids": [collection["id"]],
            "shop_ids": if i % 2 == 0 { json!([s.shop_id()]) } else { json!([]) },
            "all_shops": i % 2 != 0,
            "variants": [{"sku": format!("S{i}-A"), "price": 100 + i}, {"sku": format!("S{i}-B"), "price": 200 + i}]
        });
        s.create_product(&token, body).await;
    }
    for filter in [
        "",
        "&tags=bulk",
        "&q=item",
        "&sort=price.desc",
        "&status=visible",
        &format!("&shop_ids={}", s.shop_id()),
        &format!("&collections={}", collection["id"]),
    ] {
        let one = s
            .queries_of(&format!("/v2/products?per_page=1{filter}"), &token)
            .await;
        let all = s
            .queries_of(&format!("/v2/products?per_page=12{filter}"), &token)
            .await;
        assert_eq!(one, all, "a page of 1 and of 12 ({filter})");
        // The page with what it embeds, its total, and the shops a filter names.
        assert!(all <= 3, "{all} queries for {filter}");
    }
    let product_id = collection_first_product(&s, &token, &collection).await;
    assert_eq!(
        s.queries_of(&format!("/v2/products/{product_id}"), &token)
            .await,
        1,
        "a product with its variants, images, collections and shops is one statement"
    );
    let one = s
        .queries_of(
            &format!("/v2/collections/{}/products?per_page=1", collection["id"]),
            &token,
        )
        .await;
    let all = s
        .queries_of(
            &format!("/v2/collections/{}/products?per_page=12", collection["id"]),
            &token,
        )
        .await;
    assert_eq!(one, all);
    assert!(all <= 2, "the collection, then its page: {all}");
}

async fn collection_first_product(s: &TestServer, token: &str, collection: &Value) -> i64 {
    let (_, page) = s
        .get_json(
            &format!("/v2/collections/{}/products?per_page=1", collection["id"]),
            token,
        )
        .await;
    page["_embedded"]["items"][0]["id"]
        .as_i64()
        .expect("a product")
}
