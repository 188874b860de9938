//! Every route the server has, with what each reads (query parameters, a JSON body, a
//! form), and the resources the fuzz test points them at. `declared_routes` reads the
//! server's OpenAPI document, so that a route added without a line here fails the test.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::TestServer;

/// How a route answers errors, and so what the test expects of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The API's JSON errors (`/v2`, `/v1`, docs, files, operations).
    Api,
    /// The signed-in customer's routes: the API's errors, sent with a customer session's
    /// token.
    Customer,
    /// The OAuth endpoints: RFC 6749 JSON errors.
    OAuth,
    /// The authorization service's HTML pages.
    Page,
}

/// What a route reads besides its path.
#[derive(Clone, Debug)]
pub enum Input {
    None,
    /// A JSON body holding every field the route takes (each is mutated in turn).
    Json(Value),
    /// A form-encoded body (OAuth endpoints and page forms).
    Form(Vec<(&'static str, String)>),
}

#[derive(Clone, Debug)]
pub struct Route {
    pub method: Method,
    /// `{name}` placeholders are filled from the fixture.
    pub path: &'static str,
    /// The query parameters the route reads (lists add `page`, `per_page` and `sort`).
    pub query: Vec<&'static str>,
    pub input: Input,
    pub kind: Kind,
}

impl Route {
    /// A write whose success would consume the fixture (a delete, an order's move): only
    /// requests that must be refused are sent to it.
    pub fn is_destructive(&self) -> bool {
        self.method == Method::DELETE
            || [
                "/place",
                "/close",
                "/ship",
                "/tracking",
                "/cancel",
                "/redeliver",
                "/reactivate",
                "/disable",
                "/batch_updates",
            ]
            .iter()
            .any(|end| self.path.ends_with(end))
    }
}

/// The resources the routes are pointed at, created through the API.
pub struct Fixture {
    values: Vec<(&'static str, String)>,
    /// A session's token of the fixture's customer.
    pub customer_token: String,
    pub client_id: String,
    pub client_secret: String,
    /// The `Cookie` header of a signed-in page session, and its CSRF token.
    pub cookies: String,
    pub csrf: String,
}

impl Fixture {
    pub fn value(&self, name: &str) -> &str {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no fixture named {name}"))
    }

    /// `path` with every placeholder filled, except `hostile` for the one named.
    pub fn fill(&self, path: &str, hostile: Option<(&str, &str)>) -> String {
        let mut filled = String::new();
        let mut rest = path;
        while let Some(start) = rest.find('{') {
            let end = rest[start..].find('}').expect("a closed placeholder") + start;
            filled.push_str(&rest[..start]);
            let name = &rest[start + 1..end];
            match hostile {
                Some((target, value)) if target == name => filled.push_str(value),
                _ => filled.push_str(self.value(name)),
            }
            rest = &rest[end + 1..];
        }
        filled.push_str(rest);
        filled
    }

    /// Creates one of every resource a route can name.
    pub async fn create(s: &TestServer, token: &str) -> Self {
        let mut values: Vec<(&'static str, String)> = vec![
            ("seller", s.seller_id().to_string()),
            ("shop", s.shop_id().to_string()),
            ("namespace", "products".into()),
            ("rel", "product".into()),
        ];
        let post = |path: String, body: Value| async move {
            let (status, created) = s.call(Method::POST, &path, token, Some(body)).await;
            assert!(status.is_success(), "{path}: {status} {created}");
            created
        };
        let id = |doc: &Value| doc["id"].as_i64().expect("an id").to_string();
        let product_type = post(
            "/v2/product_types".into(),
            json!({"name": "Fuzzed type", "attributes": [{"name": "color", "field_type": "string"}]}),
        )
        .await;
        values.push(("product_type", id(&product_type)));
        let product = post(
            "/v2/products".into(),
            json!({"title": "Fuzzed", "tags": ["fuzz"], "product_type_id": product_type["id"],
                   "variants": [{"sku": "FZ-1", "price": 1000, "stock": 50},
                                {"sku": "FZ-2", "price": 1200, "stock": 5}]}),
        )
        .await;
        let product_id = id(&product);
        values.push(("variant", id(&product["_embedded"]["variants"][0])));
        let asset = post(
            format!("/v2/products/{product_id}/assets"),
            json!({"file_name": "dot.png", "data": PNG}),
        )
        .await;
        values.push(("asset", id(&asset)));
        let file = asset["_links"]["enclosure"]["href"]
            .as_str()
            .expect("a file link")
            .rsplitn(3, '/')
            .map(str::to_owned)
            .collect::<Vec<_>>();
        values.push(("name", file[0].clone()));
        values.push(("digest", file[1].clone()));
        let collection = post("/v2/collections".into(), json!({"title": "Fuzzed manual"})).await;
        let collection_id = id(&collection);
        post(
            format!("/v2/collections/{collection_id}/products"),
            json!({"product_id": product["id"]}),
        )
        .await;
        values.push(("collection", collection_id));
        post(
            "/v2/collections".into(),
            json!({"title": "Fuzzed smart", "kind": "smart",
                   "rules": [{"field": "tag", "relation": "equals", "value": "fuzz"}]}),
        )
        .await;
        let list = post("/v2/price_lists".into(), json!({"name": "Fuzzed list"})).await;
        let list_id = id(&list);
        let (status, items) = s
            .call(
                Method::PUT,
                &format!("/v2/price_lists/{list_id}/items"),
                token,
                Some(json!({"items": [{"variant_id": product["_embedded"]["variants"][0]["id"], "price": 900}]})),
            )
            .await;
        assert!(status.is_success(), "{items}");
        let (_, items) = s
            .get_json(&format!("/v2/price_lists/{list_id}/items"), token)
            .await;
        values.push(("item", id(&items["_embedded"]["items"][0])));
        let fee = post(
            "/v2/subscription_fees".into(),
            json!({"variant_id": product["_embedded"]["variants"][0]["id"],
                   "payment_interval": "1_month", "renewal_fee": 900,
                   "allow_non_recurring_payment": true}),
        )
        .await;
        values.push(("subscription_fee", id(&fee)));
        values.push(("price_list", list_id));
        values.push(("product", product_id));
        let order = post(
            format!("/v2/shops/{}/orders", s.shop_id()),
            json!({"lines": [{"variant_id": product["_embedded"]["variants"][0]["id"], "quantity": 1}]}),
        )
        .await;
        values.push(("order", id(&order)));
        // The order is a cart, which has no documents: the document routes answer 404 and
        // asking for one 422, so nothing is written.
        values.push(("document", "1".into()));
        let method = post(
            format!("/v2/shops/{}/payment_methods", s.shop_id()),
            json!({"type": "bank_transfer"}),
        )
        .await;
        let paid = post(
            format!("/v2/shops/{}/orders", s.shop_id()),
            json!({"lines": [{"variant_id": product["_embedded"]["variants"][0]["id"]}],
                   "payment_method_id": method["id"]}),
        )
        .await;
        let (status, placed) = s
            .call(
                Method::PUT,
                &format!("/v2/orders/{}/place", paid["id"]),
                token,
                None,
            )
            .await;
        assert!(status.is_success(), "{placed}");
        let payment = post(
            format!("/v2/orders/{}/payments", paid["id"]),
            json!({"amount": 1, "reference": "R-1"}),
        )
        .await;
        // A subscription purchase, opened by paying a recurring order in full.
        let recurring = post(
            format!("/v2/shops/{}/orders", s.shop_id()),
            json!({"lines": [{"variant_id": product["_embedded"]["variants"][0]["id"],
                              "subscription_fee_id": fee["id"]}],
                   "payment_method_id": method["id"]}),
        )
        .await;
        let (status, placed) = s
            .call(
                Method::PUT,
                &format!("/v2/orders/{}/place", recurring["id"]),
                token,
                None,
            )
            .await;
        assert!(status.is_success(), "{placed}");
        post(
            format!("/v2/orders/{}/payments", recurring["id"]),
            json!({"amount": placed["total"], "reference": "R-2"}),
        )
        .await;
        let (_, purchases) = s.get_json("/v2/subscription_purchases", token).await;
        values.push((
            "subscription_purchase",
            id(&purchases["_embedded"]["items"][0]),
        ));
        values.push(("payment_method", id(&method)));
        values.push(("paid_order", id(&paid)));
        values.push(("payment", id(&payment)));
        let customer = post(
            "/v2/customers".into(),
            json!({"email": "fuzzed@example.com", "password": CUSTOMER_PASSWORD,
                   "addresses": [{"street": "Main 1"}]}),
        )
        .await;
        values.push(("customer", id(&customer)));
        let admin = post(
            format!("/v2/shops/{}/admins", s.shop_id()),
            json!({"email": "fuzzed-admin@example.com", "role": "staff", "name": "Fuzzed admin"}),
        )
        .await;
        values.push(("admin", id(&admin)));
        // A batch job over orders that do not exist: it writes nothing but itself.
        let unknown: Vec<i64> = (900_001..=900_101).collect();
        let job = post(
            format!("/v2/shops/{}/orders/batch_updates", s.shop_id()),
            json!({"ids": unknown, "status": "closed"}),
        )
        .await;
        values.push(("batch", id(&job)));
        // No invitation has this code: the page's forms are refused, so nothing changes.
        values.push(("invitation", "not-an-invitation-code".into()));
        values.push(("address", id(&customer["addresses"][0])));
        let shop = s.shop_id();
        let table = post(
            format!("/v2/shops/{shop}/shipping_tables"),
            json!({"name": "Fuzzed shipping", "method": "flat", "rates": [{"price": 500}]}),
        )
        .await;
        values.push(("shipping_table", id(&table)));
        let rate = post(
            format!("/v2/shops/{shop}/exchange_rates"),
            json!({"to_currency": "EUR", "rate": "0.92"}),
        )
        .await;
        values.push(("exchange_rate", id(&rate)));
        let customer_token = customer_session(s).await;
        // Port 1 refuses at once: the handshake fails quickly and nothing is delivered.
        let webhook = post(
            "/v2/webhooks".into(),
            json!({"topic": "products", "url": "http://127.0.0.1:1/hook", "shop_id": s.shop_id()}),
        )
        .await;
        let webhook_id = id(&webhook);
        settle(s, token, &webhook_id).await;
        let replay = post(
            format!("/v2/webhooks/{webhook_id}/replays"),
            json!({"since": "2000-01-01"}),
        )
        .await;
        let replay_href = replay["_links"]["self"]["href"].as_str().expect("a link");
        values.push(("replay", replay_href.rsplit('/').next().unwrap().to_owned()));
        values.push(("webhook", webhook_id));
        values.push(("delivery", "1".into()));
        // Credentials may need a scope this token lacks: their routes are fuzzed anyway.
        for (name, path, body) in [
            (
                "token",
                "/v2/personal_access_tokens",
                json!({"name": "fuzz", "expires": "30d", "scopes": "products.read"}),
            ),
            (
                "app",
                "/v2/apps",
                json!({"name": "Fuzz app", "redirect_uris": ["https://app.example/cb"],
                       "scopes": "products.read", "grants": ["authorization_code"]}),
            ),
        ] {
            let (status, created) = s.call(Method::POST, path, token, Some(body)).await;
            let value = if status == StatusCode::CREATED {
                id(&created)
            } else {
                "1".to_owned()
            };
            values.push((name, value));
        }
        let (cookies, csrf) = sign_in(s).await;
        Self {
            values,
            customer_token,
            client_id: s.demo.app.client_id.clone(),
            client_secret: s.demo.app.client_secret.clone(),
            cookies,
            csrf,
        }
    }
}

/// The fixture customer's password (the routes' bodies name another, so that no request
/// the fuzz sends can change it).
const CUSTOMER_PASSWORD: &str = "the fixture's password";

/// A session of the fixture's customer, signed in through a storefront app.
async fn customer_session(s: &TestServer) -> String {
    let (id, secret) = s
        .register_app(None, "public", "client_credentials", false)
        .await;
    let storefront = s
        .client_credentials_token(&id, &secret, Some("public"))
        .await;
    let (status, session) = s
        .call(
            Method::POST,
            &format!("/v2/shops/{}/customer_sessions", s.shop_id()),
            &storefront,
            Some(json!({"email": "fuzzed@example.com", "password": CUSTOMER_PASSWORD})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{session}");
    session["access_token"]
        .as_str()
        .expect("a token")
        .to_owned()
}

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// Waits (bounded) until the subscription's handshake is over, so that nothing changes
/// it behind the test's back.
async fn settle(s: &TestServer, token: &str, id: &str) {
    for _ in 0..200 {
        let (_, webhook) = s.get_json(&format!("/v2/webhooks/{id}"), token).await;
        if webhook["status"] != "pending" {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the webhook's handshake did not end");
}

/// Signs the demo owner in on the pages: the session and CSRF cookies, and the token.
async fn sign_in(s: &TestServer) -> (String, String) {
    let page = s.client.get(s.url("/oauth/login")).send().await.unwrap();
    let csrf = cookie_of(&page, "commerce_csrf").expect("a CSRF cookie");
    let signed_in = s
        .client
        .post(s.url("/oauth/login"))
        .header("cookie", format!("commerce_csrf={csrf}"))
        .form(&[
            ("csrf", csrf.as_str()),
            ("email", s.demo.user.email.as_str()),
            ("password", s.demo.user.password.as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), StatusCode::SEE_OTHER);
    let session = cookie_of(&signed_in, "commerce_session").expect("a session cookie");
    (
        format!("commerce_csrf={csrf}; commerce_session={session}"),
        csrf,
    )
}

fn cookie_of(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix(&format!("{name}=")))
        .map(|v| v.split(';').next().unwrap_or("").to_owned())
}

const DATES: [&str; 4] = [
    "created_on.gte",
    "created_on.lte",
    "updated_on.gte",
    "updated_on.lte",
];

/// A list's parameters: its filters, then paging and sorting.
fn list(filters: &[&'static str], dated: bool) -> Vec<&'static str> {
    let mut params = filters.to_vec();
    if dated {
        params.extend(DATES);
    }
    params.extend(["page", "per_page", "sort"]);
    params
}

/// Every route, with a body holding every field it takes.
pub fn table(f: &Fixture) -> Vec<Route> {
    let id = |name: &str| -> i64 { f.value(name).parse().expect("a numeric fixture") };
    let api = |method: Method, path: &'static str, query: Vec<&'static str>, input: Input| Route {
        method,
        path,
        query,
        input,
        kind: Kind::Api,
    };
    let get =
        |path: &'static str, query: Vec<&'static str>| api(Method::GET, path, query, Input::None);
    let own = |method: Method, path: &'static str, query: Vec<&'static str>, input: Input| Route {
        method,
        path,
        query,
        input,
        kind: Kind::Customer,
    };
    let none = || Input::None;
    let body = Input::Json;
    let address = json!({"name": "Ana", "company": "Co", "street": "Main 1", "street_2": "B",
        "locality": "Santiago", "region": "RM", "postal_code": "8320000", "country_code": "CL",
        "phone_number": "+56 2 1234"});
    let variant = json!({"title": "Big", "sku": "FZ-NEW", "options": {"size": "L"}, "price": 1500,
        "price_comparison": 2000, "stock": 3, "available_if_no_stock": false,
        "weight_in_grams": 250, "barcode": "123", "position": 2, "image_ids": [id("asset")]});
    let shop = json!({"name": "Fuzzed shop", "description": "d", "locale": "es-CL",
        "currency_code": "CLP", "timezone": "America/Santiago", "contact_email": "a@b.co",
        "storefront": "hosted"});
    let mut new_shop = shop.clone();
    new_shop["subdomain"] = json!("fuzzed-shop");
    let product = json!({"title": "Fuzzed product", "seller_id": id("seller"), "slug": "fuzzed-product",
        "description": "d", "status": "hidden", "vendor": "V", "tags": ["a", "b"], "price": 100,
        "price_comparison": 200, "currency_code": "CLP", "product_type_id": id("product_type"),
        "custom_attributes": {"color": "red"}, "shop_ids": [id("shop")], "all_shops": false,
        "collection_ids": [id("collection")], "variants": [variant.clone()]});
    let mut product_changes = product.clone();
    let changes = product_changes.as_object_mut().expect("an object");
    changes.remove("variants");
    changes.remove("seller_id");
    changes.insert("product_type_name".into(), json!("Another type"));
    changes.remove("product_type_id");
    let collection = json!({"title": "Fuzzed collection", "seller_id": id("seller"), "slug": "fuzzed-collection",
        "description": "d", "kind": "smart", "rules": [{"field": "price", "relation": "greater_than", "value": "100"},
        {"field": "title", "relation": "contains", "value": "shirt"}], "rule_match": "any", "sort_order": "price.desc"});
    let price_list = json!({"name": "Fuzzed list", "seller_id": id("seller"), "description": "d",
        "status": "active", "kind": "sale", "currency_code": "CLP", "starts_on": "2026-01-01T00:00:00Z",
        "ends_on": "2027-01-01", "priority": 5, "contact_ids": [1, 2]});
    let subscription = json!({"topic": "orders", "url": "http://127.0.0.1:1/other", "notify_origin": false,
        "auth": {"type": "basic", "username": "u", "password": "p"}, "ordering": "per_resource"});
    let mut new_webhook = subscription.clone();
    new_webhook["shop_id"] = json!(id("shop"));
    let order = json!({"lines": [{"variant_id": id("variant"), "quantity": 2}], "email": "a@b.co",
        "contact_name": "Ana", "phone_number": "+56", "shipping_address": address.clone(),
        "billing_address": address.clone(), "note": "n", "shipping_total": 500,
        "contact_id": id("customer"), "currency_code": "EUR"});
    let shipping_table = json!({"name": "Fuzzed express", "method": "weight",
        "zone": [{"country_code": "CL", "regions": ["Metropolitana"]}],
        "rates": [{"min": 0, "max": 1000, "price": 300}, {"min": 1000, "price": 900}],
        "free_over": 50000, "enabled": true, "position": 2});
    let payment_method = json!({"type": "bank_transfer", "name": "Wire", "instructions": "Pay to",
        "enabled": true, "position": 2, "settings": {"bank_name": "B", "iban": "CL1"}});
    let mut new_address = address.clone();
    new_address["default_shipping"] = json!(true);
    new_address["default_billing"] = json!(false);
    let customer = json!({"seller_id": id("seller"), "name": "Ana Rojas", "first_name": "Ana",
        "last_name": "Rojas", "email": "ana@example.com", "phone_number": "+56 9", "company": "Co",
        "opt_in": true, "status": "active", "tags": ["vip"], "note": "n", "password": "a long password",
        "addresses": [new_address.clone()]});
    let mut customer_changes = customer.clone();
    let changes = customer_changes.as_object_mut().expect("an object");
    changes.remove("seller_id");
    changes.remove("addresses");
    // A change the fuzz's random values let through would set it, ending the fixture
    // customer's session that the customer's own routes are fuzzed with afterwards.
    changes.remove("password");
    changes.insert("default_shipping_address_id".into(), json!(id("address")));
    changes.insert("default_billing_address_id".into(), json!(id("address")));
    let form = |fields: &[(&'static str, &str)]| -> Input {
        Input::Form(fields.iter().map(|(k, v)| (*k, (*v).to_owned())).collect())
    };
    let client = [
        ("client_id", f.client_id.as_str()),
        ("client_secret", f.client_secret.as_str()),
    ];
    let oauth = |path: &'static str, fields: &[(&'static str, &str)]| Route {
        method: Method::POST,
        path,
        query: Vec::new(),
        input: form(&[&client[..], fields].concat()),
        kind: Kind::OAuth,
    };
    let page = |method: Method,
                path: &'static str,
                query: Vec<&'static str>,
                fields: Option<&[(&'static str, &str)]>| Route {
        method,
        path,
        query,
        input: fields.map_or(Input::None, |fields| {
            form(&[&[("csrf", f.csrf.as_str())][..], fields].concat())
        }),
        kind: Kind::Page,
    };
    let authorize = [
        ("response_type", "code"),
        ("client_id", f.client_id.as_str()),
        ("redirect_uri", "http://127.0.0.1:8000/callback"),
        ("scope", "products.read"),
        ("state", "s"),
        (
            "code_challenge",
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        ),
        ("code_challenge_method", "S256"),
    ];
    let authorize_params: Vec<&'static str> = authorize.iter().map(|(k, _)| *k).collect();
    vec![
        get("/v2", vec![]),
        get("/v2/sellers", list(&["q"], true)),
        get("/v2/sellers/{seller}", vec![]),
        get(
            "/v2/shops",
            list(&["q", "seller_ids", "subdomains", "storefront"], true),
        ),
        get("/v2/shops/{shop}", vec![]),
        api(Method::PUT, "/v2/shops/{shop}", vec![], body(shop)),
        api(
            Method::POST,
            "/v2/sellers/{seller}/shops",
            vec![],
            body(new_shop),
        ),
        get("/v2/shops/{shop}/admins", list(&["role", "status"], false)),
        api(
            Method::POST,
            "/v2/shops/{shop}/admins",
            vec![],
            body(json!({"email": "another-admin@example.com", "role": "readonly", "name": "Ann"})),
        ),
        get("/v2/shops/{shop}/admins/{admin}", vec![]),
        api(
            Method::PUT,
            "/v2/shops/{shop}/admins/{admin}",
            vec![],
            body(json!({"role": "readonly"})),
        ),
        api(
            Method::DELETE,
            "/v2/shops/{shop}/admins/{admin}",
            vec![],
            none(),
        ),
        get(
            "/v2/products",
            list(
                &[
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
                    "price_gte",
                    "price_lte",
                ],
                true,
            ),
        ),
        api(Method::POST, "/v2/products", vec![], body(product.clone())),
        api(
            Method::POST,
            "/v2/shops/{shop}/products",
            vec![],
            body(product),
        ),
        get("/v2/products/{product}", vec!["shop_subdomains"]),
        api(
            Method::PUT,
            "/v2/products/{product}",
            vec![],
            body(product_changes),
        ),
        api(Method::DELETE, "/v2/products/{product}", vec![], none()),
        get(
            "/v2/products/{product}/variants",
            list(&["shop_subdomains"], false),
        ),
        api(
            Method::POST,
            "/v2/products/{product}/variants",
            vec![],
            body(variant.clone()),
        ),
        get(
            "/v2/products/{product}/variants/{variant}",
            vec!["shop_subdomains"],
        ),
        api(
            Method::PUT,
            "/v2/products/{product}/variants/{variant}",
            vec![],
            body(variant),
        ),
        api(
            Method::DELETE,
            "/v2/products/{product}/variants/{variant}",
            vec![],
            none(),
        ),
        api(
            Method::POST,
            "/v2/products/{product}/variants/{variant}/stock_adjustments",
            vec![],
            body(json!({"delta": 1})),
        ),
        get(
            "/v2/products/{product}/assets",
            list(&["shop_subdomains"], false),
        ),
        api(
            Method::POST,
            "/v2/products/{product}/assets",
            vec![],
            body(json!({"file_name": "dot.png", "data": PNG})),
        ),
        get(
            "/v2/products/{product}/assets/{asset}",
            vec!["shop_subdomains"],
        ),
        api(
            Method::DELETE,
            "/v2/products/{product}/assets/{asset}",
            vec![],
            none(),
        ),
        get("/files/{asset}/{digest}/{name}", vec![]),
        get(
            "/v2/product_types",
            list(&["q", "names", "seller_ids"], true),
        ),
        api(
            Method::POST,
            "/v2/product_types",
            vec![],
            body(json!({"name": "Fuzzed new type", "seller_id": id("seller"),
                "attributes": [{"name": "size", "field_type": "select", "required": true, "options": ["S", "M"]}]})),
        ),
        get("/v2/product_types/{product_type}", vec![]),
        api(
            Method::PUT,
            "/v2/product_types/{product_type}",
            vec![],
            body(
                json!({"name": "Renamed type", "attributes": [{"name": "color", "field_type": "string"}]}),
            ),
        ),
        api(
            Method::DELETE,
            "/v2/product_types/{product_type}",
            vec![],
            none(),
        ),
        get(
            "/v2/collections",
            list(&["q", "kind", "product_ids", "seller_ids"], true),
        ),
        api(Method::POST, "/v2/collections", vec![], body(collection)),
        get("/v2/collections/{collection}", vec![]),
        api(
            Method::PUT,
            "/v2/collections/{collection}",
            vec![],
            body(
                json!({"title": "Renamed", "slug": "renamed", "description": "d", "kind": "manual",
                "rules": [], "rule_match": "all", "sort_order": "manual"}),
            ),
        ),
        api(
            Method::DELETE,
            "/v2/collections/{collection}",
            vec![],
            none(),
        ),
        get("/v2/collections/{collection}/products", list(&[], false)),
        api(
            Method::POST,
            "/v2/collections/{collection}/products",
            vec![],
            body(json!({"product_id": id("product"), "position": 1})),
        ),
        api(
            Method::PUT,
            "/v2/collections/{collection}/products",
            vec![],
            body(json!({"product_ids": [id("product")]})),
        ),
        api(
            Method::DELETE,
            "/v2/collections/{collection}/products/{product}",
            vec![],
            none(),
        ),
        get("/v2/hub/{shop}/subscriptions", list(&["status"], false)),
        api(
            Method::POST,
            "/v2/hub/{shop}/subscriptions",
            vec![],
            body(subscription.clone()),
        ),
        get("/v2/hub/{shop}/subscriptions/{webhook}", vec![]),
        api(
            Method::DELETE,
            "/v2/hub/{shop}/subscriptions/{webhook}",
            vec![],
            none(),
        ),
        get("/v2/webhooks", list(&["status", "topic", "shop_id"], false)),
        api(Method::POST, "/v2/webhooks", vec![], body(new_webhook)),
        get("/v2/webhooks/topics", vec![]),
        get("/v2/webhooks/{webhook}", vec![]),
        api(
            Method::PUT,
            "/v2/webhooks/{webhook}",
            vec![],
            body(subscription),
        ),
        api(Method::DELETE, "/v2/webhooks/{webhook}", vec![], none()),
        api(
            Method::PUT,
            "/v2/webhooks/{webhook}/reactivate",
            vec![],
            none(),
        ),
        api(
            Method::PUT,
            "/v2/webhooks/{webhook}/disable",
            vec![],
            none(),
        ),
        api(
            Method::POST,
            "/v2/webhooks/{webhook}/secret",
            vec![],
            body(json!({"grace_period_seconds": 60})),
        ),
        get(
            "/v2/webhooks/{webhook}/deliveries",
            list(&["status", "topic", "since"], false),
        ),
        api(
            Method::POST,
            "/v2/webhooks/{webhook}/deliveries/{delivery}/redeliver",
            vec![],
            none(),
        ),
        api(
            Method::POST,
            "/v2/webhooks/{webhook}/replays",
            vec![],
            body(json!({"since": "2026-01-01", "until": "2026-02-01T00:00:00Z"})),
        ),
        get("/v2/webhooks/{webhook}/replays/{replay}", vec![]),
        get(
            "/v2/price_lists",
            list(&["q", "status", "kind", "seller_ids"], true),
        ),
        api(
            Method::POST,
            "/v2/price_lists",
            vec![],
            body(price_list.clone()),
        ),
        get("/v2/price_lists/{price_list}", vec![]),
        api(
            Method::PUT,
            "/v2/price_lists/{price_list}",
            vec![],
            body({
                let mut changes = price_list;
                changes
                    .as_object_mut()
                    .expect("an object")
                    .remove("seller_id");
                changes
            }),
        ),
        api(
            Method::DELETE,
            "/v2/price_lists/{price_list}",
            vec![],
            none(),
        ),
        get(
            "/v2/price_lists/{price_list}/items",
            list(&["variant_ids", "product_ids"], false),
        ),
        api(
            Method::PUT,
            "/v2/price_lists/{price_list}/items",
            vec![],
            body(
                json!({"items": [{"variant_id": id("variant"), "price": 800, "price_comparison": 900,
                "min_quantity": 10}]}),
            ),
        ),
        get("/v2/price_lists/{price_list}/items/{item}", vec![]),
        api(
            Method::DELETE,
            "/v2/price_lists/{price_list}/items/{item}",
            vec![],
            none(),
        ),
        get(
            "/v2/price_lists/{price_list}/prices",
            vec![
                "variant_ids",
                "quantity",
                "contact_id",
                "at",
                "currency_code",
            ],
        ),
        get(
            "/v2/orders",
            list(
                &[
                    "status",
                    "shop_ids",
                    "payment_method",
                    "payment_method_id",
                    "code",
                    "product_id",
                    "total.gte",
                    "total.lte",
                    "total_gte",
                ],
                true,
            ),
        ),
        get("/v2/orders/{order}", vec![]),
        api(
            Method::PUT,
            "/v2/orders/{order}",
            vec![],
            body(order.clone()),
        ),
        api(Method::DELETE, "/v2/orders/{order}", vec![], none()),
        api(Method::PUT, "/v2/orders/{order}/place", vec![], none()),
        api(Method::PUT, "/v2/orders/{order}/close", vec![], none()),
        api(
            Method::PUT,
            "/v2/orders/{order}/ship",
            vec![],
            body(
                json!({"tracking_code": "T1", "courier_name": "C", "tracking_url": "https://t.example/1"}),
            ),
        ),
        api(
            Method::PUT,
            "/v2/orders/{order}/tracking",
            vec![],
            body(
                json!({"tracking_code": "T2", "courier_name": "C", "tracking_url": "https://t.example/2",
                "notify": true}),
            ),
        ),
        api(Method::PUT, "/v2/orders/{order}/cancel", vec![], none()),
        api(Method::POST, "/v2/shops/{shop}/orders", vec![], body(order)),
        get("/v2/orders/{order}/documents", list(&[], false)),
        api(
            Method::POST,
            "/v2/orders/{order}/documents",
            vec![],
            body(json!({"kind": "invoice"})),
        ),
        get("/v2/orders/{order}/documents/{document}", vec![]),
        get("/v2/orders/{order}/documents/{document}/file", vec![]),
        get("/v2/shops/{shop}/payment_methods", list(&[], false)),
        api(
            Method::POST,
            "/v2/shops/{shop}/payment_methods",
            vec![],
            body(payment_method.clone()),
        ),
        get("/v2/shops/{shop}/payment_methods/{payment_method}", vec![]),
        api(
            Method::PUT,
            "/v2/shops/{shop}/payment_methods/{payment_method}",
            vec![],
            body({
                let mut changes = payment_method;
                changes.as_object_mut().expect("an object").remove("type");
                changes
            }),
        ),
        api(
            Method::DELETE,
            "/v2/shops/{shop}/payment_methods/{payment_method}",
            vec![],
            none(),
        ),
        get("/v2/orders/{paid_order}/payments", list(&[], false)),
        get("/v2/orders/{paid_order}/payments/{payment}", vec![]),
        api(
            Method::POST,
            "/v2/orders/{order}/payments",
            vec![],
            body(json!({"amount": 100, "reference": "R-2",
                "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "123"}})),
        ),
        get(
            "/v2/shops/{shop}/shipping_tables",
            list(&["enabled", "method"], false),
        ),
        api(
            Method::POST,
            "/v2/shops/{shop}/shipping_tables",
            vec![],
            body(shipping_table.clone()),
        ),
        get("/v2/shops/{shop}/shipping_tables/{shipping_table}", vec![]),
        api(
            Method::PUT,
            "/v2/shops/{shop}/shipping_tables/{shipping_table}",
            vec![],
            body(shipping_table),
        ),
        api(
            Method::DELETE,
            "/v2/shops/{shop}/shipping_tables/{shipping_table}",
            vec![],
            none(),
        ),
        get(
            "/v2/shops/{shop}/exchange_rates",
            list(&["from_currency", "to_currency"], false),
        ),
        api(
            Method::POST,
            "/v2/shops/{shop}/exchange_rates",
            vec![],
            body(json!({"to_currency": "CLP", "rate": "950.25"})),
        ),
        get("/v2/shops/{shop}/exchange_rates/{exchange_rate}", vec![]),
        api(
            Method::PUT,
            "/v2/shops/{shop}/exchange_rates/{exchange_rate}",
            vec![],
            body(json!({"rate": "0.93"})),
        ),
        api(
            Method::DELETE,
            "/v2/shops/{shop}/exchange_rates/{exchange_rate}",
            vec![],
            none(),
        ),
        get(
            "/v2/customers",
            list(&["q", "email", "tags", "status", "seller_ids"], true),
        ),
        api(Method::POST, "/v2/customers", vec![], body(customer)),
        get("/v2/customers/{customer}", vec![]),
        api(
            Method::PUT,
            "/v2/customers/{customer}",
            vec![],
            body(customer_changes),
        ),
        api(Method::DELETE, "/v2/customers/{customer}", vec![], none()),
        get(
            "/v2/customers/{customer}/orders",
            list(
                &[
                    "status",
                    "shop_ids",
                    "code",
                    "contact_id",
                    "product_id",
                    "total.gte",
                ],
                true,
            ),
        ),
        get("/v2/customers/{customer}/addresses", list(&[], false)),
        api(
            Method::POST,
            "/v2/customers/{customer}/addresses",
            vec![],
            body(new_address.clone()),
        ),
        get("/v2/customers/{customer}/addresses/{address}", vec![]),
        api(
            Method::PUT,
            "/v2/customers/{customer}/addresses/{address}",
            vec![],
            body(new_address.clone()),
        ),
        api(
            Method::DELETE,
            "/v2/customers/{customer}/addresses/{address}",
            vec![],
            none(),
        ),
        api(
            Method::POST,
            "/v2/shops/{shop}/customer_sessions",
            vec![],
            body(json!({"email": "fuzzed@example.com", "password": "a long password"})),
        ),
        api(
            Method::POST,
            "/v2/shops/{shop}/customer_password_resets",
            vec![],
            body(json!({"email": "fuzzed@example.com"})),
        ),
        api(
            Method::PUT,
            "/v2/shops/{shop}/customer_password",
            vec![],
            body(json!({"reset_token": "not-a-code", "password": "a long password"})),
        ),
        own(Method::DELETE, "/v2/customer/session", vec![], none()),
        own(Method::GET, "/v2/customer", vec![], none()),
        own(
            Method::PUT,
            "/v2/customer",
            vec![],
            body(
                json!({"name": "Ana", "first_name": "Ana", "last_name": "Rojas",
                "phone_number": "+56", "company": "Co", "opt_in": true,
                "default_shipping_address_id": id("address"), "default_billing_address_id": id("address")}),
            ),
        ),
        own(
            Method::PUT,
            "/v2/customer/password",
            vec![],
            body(json!({"current_password": "a long password", "password": "another long one"})),
        ),
        own(
            Method::GET,
            "/v2/customer/addresses",
            list(&[], false),
            none(),
        ),
        own(
            Method::POST,
            "/v2/customer/addresses",
            vec![],
            body(new_address.clone()),
        ),
        own(
            Method::GET,
            "/v2/customer/addresses/{address}",
            vec![],
            none(),
        ),
        own(
            Method::PUT,
            "/v2/customer/addresses/{address}",
            vec![],
            body(new_address.clone()),
        ),
        own(
            Method::DELETE,
            "/v2/customer/addresses/{address}",
            vec![],
            none(),
        ),
        own(
            Method::GET,
            "/v2/customer/orders",
            list(
                &[
                    "status",
                    "shop_ids",
                    "code",
                    "contact_id",
                    "product_id",
                    "total.gte",
                ],
                true,
            ),
            none(),
        ),
        own(Method::GET, "/v2/customer/orders/{order}", vec![], none()),
        get("/v2/personal_access_tokens", list(&[], false)),
        api(
            Method::POST,
            "/v2/personal_access_tokens",
            vec![],
            body(json!({"name": "fuzzed", "expires": "30d", "scopes": "products.read"})),
        ),
        get("/v2/personal_access_tokens/{token}", vec![]),
        api(
            Method::DELETE,
            "/v2/personal_access_tokens/{token}",
            vec![],
            none(),
        ),
        get("/v2/apps", list(&[], false)),
        api(
            Method::POST,
            "/v2/apps",
            vec![],
            body(
                json!({"name": "Fuzzed app", "redirect_uris": ["https://app.example/cb"],
                "scopes": "products.read", "grants": ["authorization_code"], "public": false}),
            ),
        ),
        get("/v2/apps/{app}", vec![]),
        get("/docs/rels", vec![]),
        get("/docs/v1", vec![]),
        get("/docs/rels/{namespace}", vec![]),
        get("/docs/rels/{namespace}/{rel}", vec![]),
        get("/healthz", vec![]),
        get("/readyz", vec![]),
        get("/metrics", vec![]),
        get("/openapi.json", vec![]),
        oauth(
            "/oauth/token",
            &[
                ("grant_type", "password"),
                ("username", "nobody@example.com"),
                ("password", "wrong"),
                ("scope", "products.read"),
                ("seller_id", f.value("seller")),
                ("code", "c"),
                ("redirect_uri", "https://app.example/cb"),
                ("code_verifier", "v"),
                ("refresh_token", "r"),
                ("assertion", "a.b.c"),
                (
                    "assertion_type",
                    "urn:ietf:params:oauth:grant-type:jwt-bearer",
                ),
            ],
        ),
        oauth(
            "/oauth/revoke",
            &[("token", "t"), ("token_type_hint", "access_token")],
        ),
        oauth(
            "/oauth/introspect",
            &[("token", "t"), ("token_type_hint", "refresh_token")],
        ),
        Route {
            method: Method::GET,
            path: "/oauth/authorize",
            query: authorize_params,
            input: Input::None,
            kind: Kind::Page,
        },
        page(
            Method::POST,
            "/oauth/authorize",
            vec![],
            Some(&[&authorize[..], &[("decision", "deny")]].concat()),
        ),
        page(Method::GET, "/oauth/login", vec!["continue"], None),
        page(
            Method::POST,
            "/oauth/login",
            vec![],
            Some(&[
                ("email", "nobody@example.com"),
                ("password", "wrong"),
                ("continue", "/oauth/credentials"),
            ]),
        ),
        page(Method::POST, "/oauth/logout", vec![], Some(&[])),
        page(Method::GET, "/oauth/credentials", vec![], None),
        page(Method::GET, "/oauth/invitations", vec!["code"], None),
        page(
            Method::POST,
            "/oauth/invitations",
            vec![],
            Some(&[
                ("code", f.value("invitation")),
                ("name", "Invited"),
                ("password", "a long password"),
                ("password_confirmation", "a long password"),
            ]),
        ),
        page(
            Method::POST,
            "/oauth/credentials/tokens",
            vec![],
            Some(&[
                ("name", "paged"),
                ("expires", "30d"),
                ("scope", "products.read"),
            ]),
        ),
        page(
            Method::POST,
            "/oauth/credentials/tokens/revoke",
            vec![],
            Some(&[("id", f.value("token"))]),
        ),
        page(
            Method::POST,
            "/oauth/credentials/apps",
            vec![],
            Some(&[
                ("name", "Paged app"),
                ("scope", "products.read"),
                ("grant", "authorization_code"),
                (
                    "redirect_uris",
                    "https://a.example/cb\r\nhttps://b.example/cb",
                ),
                ("public", "on"),
            ]),
        ),
        Route {
            method: Method::GET,
            path: "/.well-known/oauth-authorization-server",
            query: Vec::new(),
            input: Input::None,
            kind: Kind::OAuth,
        },
        // Last of the writes (it moves the fixture's order), so that the routes before it
        // meet the same hostile values whatever is added after it.
        api(
            Method::POST,
            "/v2/shops/{shop}/orders/batch_updates",
            vec![],
            body(json!({"ids": [id("order")], "status": "cancelled"})),
        ),
        get("/v2/batches", list(&["state", "shop_ids"], false)),
        get("/v2/batches/{batch}", vec![]),
        get(
            "/v2/subscription_fees",
            list(
                &["product_id", "variant_id", "payment_interval", "seller_ids"],
                true,
            ),
        ),
        api(
            Method::POST,
            "/v2/subscription_fees",
            vec![],
            body(
                json!({"variant_id": id("variant"), "product_id": id("product"),
                        "payment_interval": "1_week", "renewal_fee": 50, "by_percentage": true,
                        "setup_fee": 100, "number_of_payments": 12, "payment_day": 3,
                        "allow_non_recurring_payment": true, "min_days_for_cancellation": 7,
                        "allow_changing_day": true, "extend_on_reenable": true,
                        "on_first_renewal": "prorate"}),
            ),
        ),
        get("/v2/subscription_fees/{subscription_fee}", vec![]),
        api(
            Method::PUT,
            "/v2/subscription_fees/{subscription_fee}",
            vec![],
            body(
                json!({"payment_interval": "3_months", "renewal_fee": 700, "setup_fee": 0,
                        "number_of_payments": 4, "payment_day": 28, "update_purchases_fees": true,
                        "notify_purchases": false, "by_percentage": false,
                        "allow_non_recurring_payment": false, "min_days_for_cancellation": 30,
                        "allow_changing_day": false, "extend_on_reenable": false,
                        "on_first_renewal": "skip"}),
            ),
        ),
        api(
            Method::DELETE,
            "/v2/subscription_fees/{subscription_fee}",
            vec![],
            none(),
        ),
        get(
            "/v2/subscription_purchases",
            list(
                &[
                    "state",
                    "shop_id",
                    "contact_id",
                    "product_id",
                    "subscription_fee_id",
                    "next_payment_on.gte",
                    "next_payment_on.lte",
                ],
                true,
            ),
        ),
        get("/v2/subscription_purchases/{subscription_purchase}", vec![]),
        api(
            Method::PUT,
            "/v2/subscription_purchases/{subscription_purchase}",
            vec![],
            body(
                json!({"state": "paused", "next_payment_on": "2099-01-01", "total_renewal_fee": 900,
                        "remaining_payments": 3, "subscription_fee_id": id("subscription_fee"),
                        "cancel_at": "2099-06-01", "payments_to_skip": 1, "paused_by": "customer",
                        "last_pause_at": "2098-12-01T00:00:00Z", "renewal_discount": 10.5,
                        "discount_num_charges": 2, "end_date": "2099-12-31"}),
            ),
        ),
    ]
}

/// `(METHOD, path)` of every operation the server's OpenAPI document describes — which
/// are the routes it serves (`openapi::every_documented_operation_is_served`, and the
/// check of every answer) — with placeholders written `{}`.
pub async fn declared_routes(s: &TestServer) -> BTreeSet<(String, String)> {
    let response = s.client.get(s.url("/openapi.json")).send().await.unwrap();
    let document: serde_json::Value = response.json().await.expect("the OpenAPI document");
    let mut routes = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("a path item").keys() {
            routes.insert((method.to_uppercase(), normalized(path)));
        }
    }
    routes
}

/// The routes of the table in the same form.
pub fn tabled_routes(table: &[Route]) -> BTreeSet<(String, String)> {
    table
        .iter()
        .map(|r| (r.method.to_string(), normalized(r.path)))
        .collect()
}

fn normalized(path: &str) -> String {
    let mut out = String::new();
    let mut in_placeholder = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_placeholder = true;
                out.push_str("{}");
            }
            '}' => in_placeholder = false,
            _ if in_placeholder => {}
            _ => out.push(c),
        }
    }
    out
}
