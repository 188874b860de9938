//! `/v1` as the published v1 clients use it: they find everything by v1 relation names
//! under the `btc` curie and filter with v1 names, following links that stay under `/v1`.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, json};

on_both_backends!(
    a_v1_client_goes_from_the_root_to_orders_by_v1_names,
    v1_documents_link_only_under_v1_in_v1_names,
    v1_etags_guard_v1_writes,
);

/// Expands a link's template with `vars` (the others left out).
fn expand(link: &Value, vars: &[(&str, &str)]) -> String {
    let href = link["href"].as_str().expect("a link");
    let template = hal::Template::new(href).unwrap();
    let names = template.variables();
    for (name, _) in vars {
        assert!(
            names.iter().any(|n| n == name),
            "{href} declares no `{name}`"
        );
    }
    template
        .expand(vars.iter().map(|(k, v)| (*k, hal::TemplateValue::from(*v))))
        .unwrap()
}

async fn follow(
    s: &TestServer,
    token: &str,
    method: Method,
    href: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = s.client.request(method, href).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    json(request.send().await.unwrap()).await
}

/// The acceptance flow: root → shops → products with v1 filters → create through
/// `btc:create_product` → orders with `updated_on_gte`, by v1 names only.
async fn a_v1_client_goes_from_the_root_to_orders_by_v1_names(s: TestServer) {
    let token = s.owner_token().await;
    let (status, root) = s.get_json("/v1", &token).await;
    assert_eq!(status, StatusCode::OK, "{root}");
    assert!(
        root["_links"]["btc:all_products"]["templated"] == true,
        "{root}"
    );
    let shops_href = expand(&root["_links"]["btc:shops"], &[]);
    let (status, shops) = follow(&s, &token, Method::GET, &shops_href, None).await;
    assert_eq!(status, StatusCode::OK, "{shops}");
    let shop = shops["_embedded"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|shop| shop["id"] == s.shop_id())
        .expect("the demo shop")
        .clone();
    assert!(shop["url"].is_string(), "{shop}");
    let (_, shop) = follow(
        &s,
        &token,
        Method::GET,
        shop["_links"]["self"]["href"].as_str().unwrap(),
        None,
    )
    .await;

    // A product created through the shop's btc:create_product.
    let started = "2000-01-01T00:00:00Z";
    let create = shop["_links"]["btc:create_product"]["href"]
        .as_str()
        .unwrap();
    let (status, product) = follow(
        &s,
        &token,
        Method::POST,
        create,
        Some(json!({"title": "Made by a v1 client", "price": 2500})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{product}");
    for rel in [
        "btc:update_product",
        "btc:delete_product",
        "btc:create_variant",
    ] {
        assert!(product["_links"][rel].is_object(), "{rel} in {product}");
    }

    // Found through the shop's btc:products with v1 filter names.
    let products = expand(
        &shop["_links"]["btc:products"],
        &[
            ("created_on_gte", started),
            ("price_gte", "2000"),
            ("q", "v1 client"),
        ],
    );
    assert!(products.contains("/v1/products?"), "{products}");
    let (status, page) = follow(&s, &token, Method::GET, &products, None).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["total_items"], 1, "{page}");
    assert_eq!(page["_embedded"]["items"][0]["id"], product["id"]);
    let everything = expand(
        &root["_links"]["btc:all_products"],
        &[("price_lte", "2000")],
    );
    let (_, cheaper) = follow(&s, &token, Method::GET, &everything, None).await;
    assert_eq!(cheaper["total_items"], 0, "{cheaper}");

    // An order, then the shop's orders changed since a moment, by v1 names.
    let variant = product["_embedded"]["variants"][0]["id"].clone();
    let create_order = shop["_links"]["btc:create_order"]["href"].as_str().unwrap();
    let (status, order) = follow(
        &s,
        &token,
        Method::POST,
        create_order,
        Some(json!({"lines": [{"variant_id": variant, "quantity": 2}]})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    assert!(order["_links"]["btc:update_order"].is_object(), "{order}");
    let orders = expand(
        &shop["_links"]["btc:orders"],
        &[("updated_on_gte", started), ("total_gte", "5000")],
    );
    let (status, listed) = follow(&s, &token, Method::GET, &orders, None).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(listed["total_items"], 1, "{listed}");
    assert_eq!(listed["_embedded"]["items"][0]["id"], order["id"]);
    let one = expand(
        &root["_links"]["btc:order"],
        &[("id", &order["id"].to_string())],
    );
    let (status, fetched) = follow(&s, &token, Method::GET, &one, None).await;
    assert_eq!(status, StatusCode::OK, "{fetched}");
    assert_eq!(fetched["code"], order["code"]);
}

/// Every link of every v1 document is under `/v1` (or outside the API), and every
/// relation is registered (`self`, `next`) or a `btc:` name the `btc` curie documents.
async fn v1_documents_link_only_under_v1_in_v1_names(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(&token, json!({"title": "Linked", "price": 100}))
        .await;
    let paths = [
        "/v1".to_owned(),
        "/v1/shops".to_owned(),
        format!("/v1/shops/{}", s.shop_id()),
        "/v1/products?per_page=1".to_owned(),
        format!("/v1/products/{}", product["id"]),
        format!("/v1/products/{}/variants", product["id"]),
        "/v1/sellers".to_owned(),
        "/v1/orders".to_owned(),
    ];
    let docs = s.url("/docs/v1");
    let html = s
        .client
        .get(&docs)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for path in paths {
        let (status, document) = s.get_json(&path, &token).await;
        assert_eq!(status, StatusCode::OK, "{path}: {document}");
        let mut links = Vec::new();
        collect_links(&document, &mut links);
        assert!(!links.is_empty());
        // One curie, `btc`, when a `btc:` relation is used (none otherwise).
        let curies = &document["_links"]["curies"];
        if links.iter().any(|(rel, _)| rel.starts_with("btc:")) {
            assert_eq!(curies.as_array().map(Vec::len), Some(1), "{path}: {curies}");
            assert_eq!(curies[0]["name"], "btc");
            assert_eq!(curies[0]["href"], format!("{docs}#{{rel}}"));
        } else {
            assert!(curies.is_null(), "{path}: {curies}");
        }
        for (rel, href) in links {
            assert!(!href.contains("/v2"), "{path}: {rel} → {href}");
            if let Some(name) = rel.strip_prefix("btc:") {
                assert!(
                    html.contains(&format!("id=\"{name}\"")),
                    "{path}: /docs/v1 documents {rel}"
                );
            } else {
                assert!(
                    ["self", "first", "last", "prev", "next", "enclosure"].contains(&rel.as_str()),
                    "{path}: {rel} is neither registered nor a v1 name"
                );
            }
        }
    }
}

fn collect_links(value: &Value, links: &mut Vec<(String, String)>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| collect_links(v, links)),
        Value::Object(object) => {
            if let Some(Value::Object(map)) = object.get("_links") {
                for (rel, link) in map {
                    if rel != "curies" {
                        links.push((rel.clone(), link["href"].as_str().unwrap().to_owned()));
                    }
                }
            }
            object
                .iter()
                .filter(|(k, _)| *k != "_links")
                .for_each(|(_, v)| collect_links(v, links));
        }
        _ => {}
    }
}

/// A v1 document's tag answers 304 to it, and a v1 client's `If-Match` with it guards a
/// write like a v2 client's.
async fn v1_etags_guard_v1_writes(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(&token, json!({"title": "Tagged", "price": 100}))
        .await;
    let path = format!("/v1/products/{}", product["id"]);
    let v1 = s.get(&path, &token).send().await.unwrap();
    let etag = v1.headers()["etag"].to_str().unwrap().to_owned();
    let (_, v1_body) = json(v1).await;
    let again = s
        .get(&path, &token)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    let update = v1_body["_links"]["btc:update_product"]["href"]
        .as_str()
        .unwrap();
    assert!(update.contains("/v1/"), "{update}");
    let stale = s
        .client
        .put(update)
        .bearer_auth(&token)
        .header("if-match", "\"0000\"")
        .json(&json!({"title": "Not applied"}))
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    let (status, changed) = json(
        s.client
            .put(update)
            .bearer_auth(&token)
            .header("if-match", &etag)
            .json(&json!({"title": "Retitled"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["title"], "Retitled");
    assert!(changed["_links"]["btc:update_product"].is_object());
    let after = s.get(&path, &token).send().await.unwrap();
    assert_ne!(after.headers()["etag"].to_str().unwrap(), etag);
}
