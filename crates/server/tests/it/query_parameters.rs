//! Query parameters: an operation reads those its OpenAPI description declares and refuses
//! any other with a 422 naming it, so that a misspelt or unsupported filter never answers
//! a different question (`/v2/orders?discount_totl_gte=1` listing every order). And the
//! orders list's own filters: `q` and the ranges of each total.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, filled, json};

on_both_backends!(
    every_api_operation_refuses_what_it_does_not_declare,
    an_unknown_filter_is_refused_and_known_ones_filter,
    orders_are_found_by_q,
);

/// Each `(method, path template, declared query names)` of the API's operations.
async fn api_operations(s: &TestServer) -> Vec<(Method, String, Vec<String>)> {
    let (status, document) = json(s.client.get(s.url("/openapi.json")).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    let mut all = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        if !path.starts_with("/v2") {
            continue;
        }
        for (method, operation) in item.as_object().unwrap() {
            let declared = operation["parameters"]
                .as_array()
                .map(|params| {
                    params
                        .iter()
                        .filter(|p| p["in"] == "query")
                        .map(|p| p["name"].as_str().unwrap().to_owned())
                        .collect()
                })
                .unwrap_or_default();
            let method = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).unwrap();
            all.push((method, path.clone(), declared));
        }
    }
    assert!(all.len() > 40, "the document describes the API");
    all
}

/// The fields a 422 names.
fn refused_fields(body: &Value) -> Vec<String> {
    body["_embedded"]["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .map(|e| e["field"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Every operation of the API, under `/v2` and `/v1`, answers a 422 naming each parameter
/// it does not declare (before anything else, so the request changes nothing), and
/// accepts every parameter it declares.
async fn every_api_operation_refuses_what_it_does_not_declare(s: TestServer) {
    let token = s.owner_token().await;
    for (method, template, declared) in api_operations(&s).await {
        let path = filled(&template);
        let v1 = format!("/v1{}", path.strip_prefix("/v2").unwrap());
        for path in [&path, &v1] {
            let url = format!("{path}?zz_unknown=1&page_size=2&page_size=3");
            let (status, body) = s.call(method.clone(), &url, &token, None).await;
            assert_eq!(
                status,
                StatusCode::UNPROCESSABLE_ENTITY,
                "{method} {url}: {body}"
            );
            // Each undeclared name once; a declared one (`page`) is never named.
            let mut fields = refused_fields(&body);
            fields.sort();
            let expected = if declared.iter().any(|d| d == "page_size") {
                vec!["zz_unknown"]
            } else {
                vec!["page_size", "zz_unknown"]
            };
            assert_eq!(fields, expected, "{method} {url}: {body}");
        }
        if declared.is_empty() {
            continue;
        }
        // Declared names pass the check (empty values are read as absent).
        let query: Vec<String> = declared.iter().map(|name| format!("{name}=")).collect();
        let url = format!("{path}?{}", query.join("&"));
        let (status, body) = s.call(method.clone(), &url, &token, None).await;
        let refused = refused_fields(&body);
        assert!(
            !refused.iter().any(|f| declared.contains(f)),
            "{method} {url} refused a declared parameter: {status} {body}"
        );
    }
}

/// The example clients met: an unsupported filter lists every order instead of none.
/// Now it is refused, and the totals' ranges (`discount_total_gte` among them) filter.
async fn an_unknown_filter_is_refused_and_known_ones_filter(s: TestServer) {
    let token = s.owner_token().await;
    let variant = visible_variant(&s, &token, "RANGE", 1500).await;
    for quantity in [1, 2] {
        new_order(
            &s,
            &token,
            json!({"lines": [{"variant_id": variant, "quantity": quantity}]}),
        )
        .await;
    }
    let (status, body) = s
        .get_json("/v2/orders?discount_totl_gte=1&status=checkout", &token)
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(refused_fields(&body), ["discount_totl_gte"]);

    assert_eq!(total_of(&s, &token, "/v2/orders").await, 2);
    assert_eq!(
        total_of(&s, &token, "/v2/orders?discount_total_gte=999999").await,
        0
    );
    assert_eq!(
        total_of(&s, &token, "/v2/orders?discount_total.lte=0").await,
        2
    );
    assert_eq!(
        total_of(&s, &token, "/v2/orders?net_total_gte=3000").await,
        1
    );
    assert_eq!(
        total_of(&s, &token, "/v2/orders?net_total.lte=1500").await,
        1
    );
    assert_eq!(
        total_of(&s, &token, "/v2/orders?shipping_total_lte=0").await,
        2
    );
    let (status, body) = s
        .get_json("/v2/orders?shipping_total_gte=many", &token)
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
}

/// `q` finds orders by code, by a word of the contact's email or name, or of a line's
/// title or SKU; every word must match.
async fn orders_are_found_by_q(s: TestServer) {
    let token = s.owner_token().await;
    let mug = visible_variant(&s, &token, "MUG-RED", 900).await;
    let tea = visible_variant(&s, &token, "TEA-GREEN", 400).await;
    let ann = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": mug}], "email": "ann@example.com",
               "contact_name": "Ann Lee"}),
    )
    .await;
    let bob = new_order(
        &s,
        &token,
        json!({"lines": [{"variant_id": tea}], "email": "bob@shop.test",
               "contact_name": "Bob Ray"}),
    )
    .await;
    let (ann, bob) = (
        ann["code"].as_str().unwrap().to_owned(),
        bob["code"].as_str().unwrap().to_owned(),
    );
    assert_eq!(found(&s, &token, &ann).await, [ann.as_str()]);
    assert_eq!(found(&s, &token, "ANN").await, [ann.as_str()]);
    assert_eq!(found(&s, &token, "shop.test").await, [bob.as_str()]);
    assert_eq!(found(&s, &token, "ray").await, [bob.as_str()]);
    assert_eq!(found(&s, &token, "Item MUG").await, [ann.as_str()]);
    assert_eq!(found(&s, &token, "green").await, [bob.as_str()]);
    assert_eq!(
        found(&s, &token, "item").await,
        [ann.as_str(), bob.as_str()]
    );
    assert_eq!(found(&s, &token, "ann green").await, Vec::<String>::new());
    assert_eq!(found(&s, &token, "nobody").await, Vec::<String>::new());
}

async fn total_of(s: &TestServer, token: &str, path: &str) -> i64 {
    let (status, page) = s.get_json(path, token).await;
    assert_eq!(status, StatusCode::OK, "{path}: {page}");
    page["total_items"].as_i64().unwrap()
}

/// The codes of the orders `q` finds, sorted.
async fn found(s: &TestServer, token: &str, q: &str) -> Vec<String> {
    let url = format!("/v2/orders?q={}", urlencode(q));
    let (status, page) = s.get_json(&url, token).await;
    assert_eq!(status, StatusCode::OK, "{url}: {page}");
    let mut codes: Vec<String> = page["_embedded"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["code"].as_str().unwrap().to_owned())
        .collect();
    codes.sort();
    codes
}

fn urlencode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A visible product with one stocked variant; answers the variant's id.
async fn visible_variant(s: &TestServer, token: &str, sku: &str, price: i64) -> i64 {
    let product = s
        .create_product(
            token,
            json!({"title": format!("Item {sku}"), "status": "visible",
                   "variants": [{"sku": sku, "price": price, "stock": 50}]}),
        )
        .await;
    product["_embedded"]["variants"][0]["id"].as_i64().unwrap()
}

async fn new_order(s: &TestServer, token: &str, body: Value) -> Value {
    let path = format!("/v2/shops/{}/orders", s.shop_id());
    let (status, order) = s.call(Method::POST, &path, token, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    order
}
