//! `GET /v2`.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, json};

on_both_backends!(
    password_token_sees_the_demo_sellers_and_shops,
    unbound_app_token_sees_nothing_and_no_write_links,
    every_root_link_answers,
    credentials_links_follow_the_credentials_scopes,
);

async fn password_token_sees_the_demo_sellers_and_shops(s: TestServer) {
    let token = s.owner_token().await;
    let (status, root) = json(s.get("/v2", &token).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(root["_class"], serde_json::json!(["root"]));
    assert_eq!(root["email"], s.demo.user.email);
    assert_eq!(root["user_name"], "Demo Owner");
    assert_eq!(root["role"], "owner");
    assert_eq!(root["account_id"], s.demo.account_id);
    assert!(root["uid"].is_i64());
    assert_eq!(
        root["scopes"], "admin,public,credentials.read,credentials.write",
        "the demo app names the credentials scopes, which admin does not imply"
    );
    let sellers = root["_embedded"]["sellers"].as_array().unwrap();
    assert_eq!(sellers.len(), 1);
    assert_eq!(sellers[0]["id"], s.seller_id());
    let subdomains: Vec<&str> = root["_embedded"]["shops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|shop| shop["subdomain"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = s
        .demo
        .shops
        .iter()
        .map(|shop| shop.subdomain.as_str())
        .collect();
    assert_eq!(subdomains, expected);
    let storefronts: Vec<&str> = root["_embedded"]["shops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|shop| shop["storefront"].as_str().unwrap())
        .collect();
    assert_eq!(storefronts, ["hosted", "headless"]);
    let links = &root["_links"];
    assert_eq!(links["self"]["href"], s.url("/v2"));
    assert_eq!(links["shops:shops"]["templated"], true);
    let shops_href = links["shops:shops"]["href"].as_str().unwrap();
    for param in [
        "q",
        "seller_ids",
        "storefront",
        "created_on.gte",
        "sort",
        "page",
        "per_page",
    ] {
        assert!(shops_href.contains(param), "{shops_href} declares {param}");
    }
    let curies: Vec<&str> = links["curies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        curies,
        [
            "batches",
            "collections",
            "customers",
            "orders",
            "price_lists",
            "product_types",
            "products",
            "root",
            "sellers",
            "shops",
            "subscriptions",
            "webhooks"
        ]
    );
    // Write links appear where the token may write.
    assert_eq!(
        root["_embedded"]["shops"][0]["_links"]["shops:update"]["method"],
        "put"
    );
}

async fn unbound_app_token_sees_nothing_and_no_write_links(s: TestServer) {
    let (id, secret) = s
        .register_app(
            None,
            "shops.write,sellers.read,products.read",
            "client_credentials",
            false,
        )
        .await;
    let token = s.client_credentials_token(&id, &secret, None).await;
    let (status, root) = json(s.get("/v2", &token).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(root["_embedded"]["sellers"], serde_json::json!([]));
    assert_eq!(root["_embedded"]["shops"], serde_json::json!([]));
    assert_eq!(root["account_id"], Value::Null);
    assert_eq!(root["uid"], Value::Null);
    assert_eq!(root["client_id"], id);
    let write_links: Vec<String> = all_links(&root)
        .into_iter()
        .filter(|(_, method)| method != "get")
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        write_links.is_empty(),
        "unexpected write links {write_links:?}"
    );
    // Lists answer, empty; a demo shop is not found.
    let (status, shops) = json(s.get("/v2/shops", &token).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(shops["total_items"], 0);
    let response = s
        .get(&format!("/v2/shops/{}", s.shop_id()), &token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

/// Every (rel, method) in a document, embedded ones included.
fn all_links(doc: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(links) = doc["_links"].as_object() {
        for (rel, link) in links {
            if let Some(method) = link["method"].as_str() {
                out.push((rel.clone(), method.to_owned()));
            }
        }
    }
    if let Some(embedded) = doc["_embedded"].as_object() {
        for value in embedded.values() {
            for item in value
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![value.clone()])
            {
                out.extend(all_links(&item));
            }
        }
    }
    out
}

async fn every_root_link_answers(s: TestServer) {
    let token = s.owner_token().await;
    // One resource of each kind, for the links templated with an id.
    let mut ids = vec![
        ("sellers:seller", s.seller_id()),
        ("shops:shop", s.shop_id()),
    ];
    for (rel, path, body) in [
        (
            "products:product",
            "/v2/products",
            json!({"title": "Linked", "price": 100}),
        ),
        (
            "collections:collection",
            "/v2/collections",
            json!({"title": "Linked"}),
        ),
        (
            "product_types:product_type",
            "/v2/product_types",
            json!({"name": "Linked"}),
        ),
        (
            "price_lists:price_list",
            "/v2/price_lists",
            json!({"name": "Linked"}),
        ),
        (
            "customers:customer",
            "/v2/customers",
            json!({"email": "linked@example.com"}),
        ),
        (
            "webhooks:webhook",
            "/v2/webhooks",
            json!({"topic": "products", "url": "https://hooks.example/linked", "shop_id": s.shop_id()}),
        ),
    ] {
        let (status, created) = json(
            s.request(Method::POST, path, &token)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        ids.push((rel, created["id"].as_i64().unwrap()));
    }
    let variant = ids
        .iter()
        .find(|(rel, _)| *rel == "products:product")
        .map(|(_, product)| format!("/v2/products/{product}/variants"))
        .unwrap();
    let (_, variants) = json(s.get(&variant, &token).send().await.unwrap()).await;
    let (status, order) = json(
        s.request(
            Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            &token,
        )
        .json(&json!({"lines": [{"variant_id": variants["_embedded"]["items"][0]["id"]}]}))
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    ids.push(("orders:order", order["id"].as_i64().unwrap()));
    let (status, fee) = json(
        s.request(Method::POST, "/v2/subscription_fees", &token)
            .json(
                &json!({"variant_id": variants["_embedded"]["items"][0]["id"],
                          "payment_interval": "1_month", "renewal_fee": 100}),
            )
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{fee}");
    ids.push((
        "subscriptions:subscription_fee",
        fee["id"].as_i64().unwrap(),
    ));
    ids.push((
        "subscriptions:subscription_purchase",
        subscribed(&s, &token).await,
    ));
    let unknown: Vec<i64> = (900_001..=900_101).collect();
    let (status, job) = json(
        s.request(
            Method::POST,
            &format!("/v2/shops/{}/orders/batch_updates", s.shop_id()),
            &token,
        )
        .json(&json!({"ids": unknown, "status": "closed"}))
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    ids.push(("batches:batch", job["id"].as_i64().unwrap()));
    let (_, root) = json(s.get("/v2", &token).send().await.unwrap()).await;
    let links = root["_links"].as_object().unwrap();
    for (rel, link) in links {
        if rel == "curies" {
            continue;
        }
        let template = hal::Template::new(link["href"].as_str().unwrap()).unwrap();
        let id = ids.iter().find(|(r, _)| r == rel).map_or(0, |(_, id)| *id);
        let href = template.expand([("id", id.to_string().into())]).unwrap();
        let response = s
            .client
            .get(&href)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{rel} → {href}");
        if let Some((ns, name)) = rel.split_once(':') {
            let doc = s
                .client
                .get(s.url(&format!("/docs/rels/{ns}/{name}")))
                .send()
                .await
                .unwrap();
            assert_eq!(doc.status(), StatusCode::OK, "docs for {rel}");
            assert!(
                doc.headers()["content-type"]
                    .to_str()
                    .unwrap()
                    .starts_with("text/html")
            );
            assert!(
                doc.text()
                    .await
                    .unwrap()
                    .contains(&format!("<code>{rel}</code>"))
            );
        }
    }
    // The curies resolve for every rel of an embedded shop too.
    let shop_links = root["_embedded"]["shops"][0]["_links"].as_object().unwrap();
    for rel in shop_links.keys().filter(|r| r.contains(':')) {
        let (ns, name) = rel.split_once(':').unwrap();
        let doc = s
            .client
            .get(s.url(&format!("/docs/rels/{ns}/{name}")))
            .send()
            .await
            .unwrap();
        assert_eq!(doc.status(), StatusCode::OK, "docs for {rel}");
    }
}

const CREDENTIALS_RELS: [&str; 4] = [
    "root:personal_access_tokens",
    "root:create_personal_access_token",
    "root:apps",
    "root:create_app",
];

/// The credentials rels of the root as `token` sees it.
async fn credentials_rels(s: &TestServer, token: &str) -> Vec<&'static str> {
    let (status, root) = json(s.get("/v2", token).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{root}");
    CREDENTIALS_RELS
        .into_iter()
        .filter(|rel| root["_links"].get(*rel).is_some())
        .collect()
}

async fn credentials_links_follow_the_credentials_scopes(s: TestServer) {
    let (email, password) = (s.demo.user.email.clone(), s.demo.user.password.clone());
    let owner = |scope: Option<&'static str>| s.password_token(&email, &password, scope);
    // The demo app names the credentials scopes: the owner's default token has every link.
    assert_eq!(
        credentials_rels(&s, &owner(None).await).await,
        CREDENTIALS_RELS
    );
    for scope in ["admin", "admin,public", "products.read", "public"] {
        assert!(
            credentials_rels(&s, &owner(Some(scope)).await)
                .await
                .is_empty(),
            "{scope}"
        );
    }
    assert_eq!(
        credentials_rels(&s, &owner(Some("credentials.read")).await).await,
        ["root:personal_access_tokens", "root:apps"]
    );
    // Staff make tokens but register no app; read-only users only read.
    s.add_user("staff@demo.example", "staff-password-1", "staff")
        .await;
    let staff = s
        .password_token("staff@demo.example", "staff-password-1", None)
        .await;
    assert_eq!(
        credentials_rels(&s, &staff).await,
        [
            "root:personal_access_tokens",
            "root:create_personal_access_token",
            "root:apps"
        ]
    );
    s.add_user("reader@demo.example", "reader-password-1", "readonly")
        .await;
    let reader = s
        .password_token("reader@demo.example", "reader-password-1", None)
        .await;
    assert_eq!(
        credentials_rels(&s, &reader).await,
        ["root:personal_access_tokens", "root:apps"]
    );
    // Each rel's page says which scope it needs.
    for (rel, needed) in [
        ("personal_access_tokens", "credentials.read"),
        ("create_personal_access_token", "credentials.write"),
        ("revoke", "credentials.write"),
        ("apps", "credentials.read"),
        ("create_app", "credentials.write"),
    ] {
        let page = s
            .client
            .get(s.url(&format!("/docs/rels/root/{rel}")))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(page.contains(needed), "{rel}: {page}");
    }
}

/// Opens a subscription purchase: an order with a recurring line of a variant in stock,
/// placed and paid through a test gateway method. Answers the purchase's id.
async fn subscribed(s: &TestServer, token: &str) -> i64 {
    let call = |method: Method, path: String, body: Value| async move {
        let (status, doc) = json(
            s.request(method, &path, token)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert!(status.is_success(), "{path}: {doc}");
        doc
    };
    let product = s
        .create_product(
            token,
            json!({"title": "Subscribed", "status": "visible", "variants": [{"price": 900, "stock": 5}]}),
        )
        .await;
    let variant = &product["_embedded"]["variants"][0]["id"];
    let fee = call(
        Method::POST,
        "/v2/subscription_fees".into(),
        json!({"variant_id": variant, "payment_interval": "1_month", "renewal_fee": 900}),
    )
    .await;
    let shop = s.shop_id();
    let method = call(
        Method::POST,
        format!("/v2/shops/{shop}/payment_methods"),
        json!({"type": "test_gateway"}),
    )
    .await;
    let order = call(
        Method::POST,
        format!("/v2/shops/{shop}/orders"),
        json!({"lines": [{"variant_id": variant, "subscription_fee_id": fee["id"]}],
               "payment_method_id": method["id"]}),
    )
    .await;
    call(
        Method::PUT,
        format!("/v2/orders/{}/place", order["id"]),
        json!({}),
    )
    .await;
    let card =
        json!({"number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "123"});
    call(
        Method::POST,
        format!("/v2/orders/{}/payments", order["id"]),
        json!({"card": card}),
    )
    .await;
    let (_, page) = json(
        s.get("/v2/subscription_purchases", token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    page["_embedded"]["items"][0]["id"].as_i64().unwrap()
}
