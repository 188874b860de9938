//! The suite's main flows, each response recorded in a stable form: with
//! `COMMERCE_RECORD_TO=<folder>` the test writes `<folder>/<backend>.txt`, so that two
//! builds' recordings can be compared byte for byte (a refactoring changes no answer).
//! Links use a fixed public URL, the clock is manual, and what the demo seed makes at
//! random (names, credentials) or at the wall-clock time is replaced by placeholders.

use std::fmt::Write as _;
use std::sync::Arc;

use domain::clock::ManualClock;
use domain::{Clock, Timestamp};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{Backend, TestServer};

on_both_backends!(main_flows_answer_as_recorded);

const PUBLIC_URL: &str = "http://api.test";

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

struct Recorder<'a> {
    s: &'a TestServer,
    token: String,
    clock: Arc<ManualClock>,
    seeded_on: String,
    /// Webhook secrets answered so far, replaced like the other random values.
    secrets: Vec<String>,
    out: String,
}

impl Recorder<'_> {
    /// Sends the request a second after the previous one, records the answer, and
    /// returns it after checking its status.
    async fn send(
        &mut self,
        method: Method,
        path: &str,
        body: Option<Value>,
        expected: StatusCode,
    ) -> Value {
        self.clock.advance_secs(1);
        let (status, answer) = self.s.call(method.clone(), path, &self.token, body).await;
        assert_eq!(status, expected, "{method} {path}: {answer}");
        if let Some(secret) = answer["secret"].as_str() {
            self.secrets.push(secret.to_owned());
        }
        let shown = self.stable(&serde_json::to_string_pretty(&answer).unwrap());
        writeln!(self.out, "{method} {path}\n{status}\n{shown}\n").unwrap();
        answer
    }

    async fn get(&mut self, path: &str) -> Value {
        self.send(Method::GET, path, None, StatusCode::OK).await
    }

    /// Records a page that is not JSON (the curie docs).
    async fn page(&mut self, path: &str) {
        let response = self.s.client.get(self.s.url(path)).send().await.unwrap();
        let status = response.status();
        assert_eq!(status, StatusCode::OK, "GET {path}");
        let shown = self.stable(&response.text().await.unwrap());
        writeln!(self.out, "GET {path}\n{status}\n{shown}\n").unwrap();
    }

    /// The text with what differs from run to run replaced.
    fn stable(&self, text: &str) -> String {
        let demo = &self.s.demo;
        let mut text = text.replace(&self.s.url, PUBLIC_URL);
        text = text.replace(&demo.user.email, "<owner email>");
        text = text.replace(&demo.app.client_id, "<client id>");
        for (i, shop) in demo.shops.iter().enumerate() {
            text = text.replace(&shop.subdomain, &format!("<shop {i}>"));
        }
        for (i, secret) in self.secrets.iter().enumerate() {
            text = text.replace(secret, &format!("<secret {i}>"));
        }
        // Times the seed wrote by the wall clock (`"2026-11-25T…Z"` of today), and the
        // seed's other random addresses (`"shop+x1y2z3@demo.example"`).
        let text = replace_strings(&text, |s| s.starts_with(&self.seeded_on), "<seeded at>");
        replace_strings(&text, |s| s.ends_with("@demo.example"), "<demo email>")
    }
}

/// `text` with every JSON string value for which `matches` holds replaced by `with`.
fn replace_strings(text: &str, matches: impl Fn(&str) -> bool, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut parts = text.split('"');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    for part in parts {
        out.push('"');
        out.push_str(if matches(part) { with } else { part });
    }
    out
}

async fn main_flows_answer_as_recorded(backend: Backend) {
    let start = Timestamp::parse("2026-01-01T00:00:00Z").unwrap();
    let clock = Arc::new(ManualClock::new(start));
    let manual = clock.clone();
    let s = TestServer::start_with(backend, move |c| {
        c.clock = manual;
        c.public_url = Some(PUBLIC_URL.into());
        // No workers: nothing changes behind the flows' backs (a webhook's verification).
        c.role = server::NodeRole::Api;
        c.access_token_ttl = std::time::Duration::from_secs(365 * 86_400);
    })
    .await;
    let token = s.owner_token().await;
    let seeded_on = domain::SystemClock.now().to_rfc3339()[..11].to_owned();
    let mut r = Recorder {
        s: &s,
        token,
        clock,
        seeded_on,
        secrets: Vec::new(),
        out: String::new(),
    };
    let (shop, seller) = (s.shop_id(), s.seller_id());
    use Method as M;
    use StatusCode as S;

    // The root, the rel docs, sellers and shops.
    r.get("/v2").await;
    r.page("/docs/rels").await;
    r.page("/docs/rels/orders").await;
    r.page("/docs/rels/webhooks/rotate_secret").await;
    r.get("/v2/sellers").await;
    r.get(&format!("/v2/sellers/{seller}")).await;
    r.get("/v2/shops").await;
    r.get(&format!("/v2/shops/{shop}")).await;
    r.send(
        M::PUT,
        &format!("/v2/shops/{shop}"),
        Some(json!({"name": "Renamed"})),
        S::OK,
    )
    .await;
    // The shop's admins: the owner, and a new address invited, its role changed, removed.
    let admins = format!("/v2/shops/{shop}/admins");
    r.get(&admins).await;
    let clerk = r
        .send(
            M::POST,
            &admins,
            Some(json!({"email": "clerk@example.com", "role": "staff", "name": "Clerk"})),
            S::CREATED,
        )
        .await;
    let clerk_path = format!("{admins}/{}", clerk["id"]);
    r.send(M::PUT, &clerk_path, Some(json!({"role": "admin"})), S::OK)
        .await;
    r.get(&format!("{admins}?status=invited")).await;
    r.send(M::DELETE, &clerk_path, None, S::OK).await;

    // The catalog: a type, products with variants, stock, a collection.
    let kind = r
        .send(
            M::POST,
            "/v2/product_types",
            Some(json!({"name": "Shirts"})),
            S::CREATED,
        )
        .await;
    r.get("/v2/product_types").await;
    let product = r
        .send(
            M::POST,
            "/v2/products",
            Some(json!({"title": "Linen shirt", "description": "Cool", "tags": ["summer", "linen"],
                "status": "visible", "product_type_id": kind["id"],
                "variants": [{"sku": "LS-S", "price": 2500, "stock": 4, "options": {"size": "S"}},
                             {"sku": "LS-M", "price": 2600, "price_comparison": 3000, "stock": 7, "options": {"size": "M"}}]})),
            S::CREATED,
        )
        .await;
    let product_id = product["id"].as_i64().unwrap();
    let variant_id = product["_embedded"]["variants"][0]["id"].as_i64().unwrap();
    r.get(&format!("/v2/products/{product_id}")).await;
    r.send(
        M::PUT,
        &format!("/v2/products/{product_id}"),
        Some(json!({"title": "Linen shirt, washed"})),
        S::OK,
    )
    .await;
    let variants = format!("/v2/products/{product_id}/variants");
    let added = r
        .send(
            M::POST,
            &variants,
            Some(json!({"sku": "LS-L", "price": 2700, "options": {"size": "L"}})),
            S::CREATED,
        )
        .await;
    r.send(
        M::PUT,
        &format!("{variants}/{}", added["id"]),
        Some(json!({"stock": 3})),
        S::OK,
    )
    .await;
    r.send(
        M::POST,
        &format!("{variants}/{variant_id}/stock_adjustments"),
        Some(json!({"delta": 6})),
        S::OK,
    )
    .await;
    r.get(&variants).await;
    r.send(
        M::DELETE,
        &format!("{variants}/{}", added["id"]),
        None,
        S::OK,
    )
    .await;
    let other = r
        .send(
            M::POST,
            "/v2/products",
            Some(json!({"title": "Straw hat", "price": 1500})),
            S::CREATED,
        )
        .await;
    r.get("/v2/products?sort=title.asc").await;
    r.get("/v2/products?q=linen").await;
    let collection = r
        .send(
            M::POST,
            "/v2/collections",
            Some(json!({"title": "Summer", "description": "Hot days"})),
            S::CREATED,
        )
        .await;
    let members = format!("/v2/collections/{}/products", collection["id"]);
    r.send(
        M::POST,
        &members,
        Some(json!({"product_id": product_id})),
        S::OK,
    )
    .await;
    r.get(&members).await;
    r.get("/v2/collections").await;

    // Price lists and the prices they give.
    let list = r
        .send(
            M::POST,
            "/v2/price_lists",
            Some(json!({"name": "Wholesale", "description": "For resellers", "status": "active"})),
            S::CREATED,
        )
        .await;
    let list_path = format!("/v2/price_lists/{}", list["id"]);
    let written = r
        .send(
            M::PUT,
            &format!("{list_path}/items"),
            Some(json!({"items": [{"variant_id": variant_id, "price": 2000}]})),
            S::OK,
        )
        .await;
    r.get(&list_path).await;
    r.get(&format!("{list_path}/prices?variant_ids={variant_id}"))
        .await;

    // A customer with an address; the order below links to it by email.
    let customer = r
        .send(
            M::POST,
            "/v2/customers",
            Some(json!({"first_name": "Ana", "last_name": "Rojas", "email": "Buyer@example.com",
                "tags": ["vip"], "addresses": [{"street": "Main 1", "locality": "Valparaíso", "country_code": "CL"}]})),
            S::CREATED,
        )
        .await;
    let customer_path = format!("/v2/customers/{}", customer["id"]);
    r.send(
        M::POST,
        &format!("{customer_path}/addresses"),
        Some(json!({"street": "Office 2", "locality": "Santiago", "country_code": "CL", "default_billing": true})),
        S::CREATED,
    )
    .await;
    r.send(M::PUT, &customer_path, Some(json!({"opt_in": true})), S::OK)
        .await;

    // Orders along the state machine.
    let orders = format!("/v2/shops/{shop}/orders");
    let order = r
        .send(
            M::POST,
            &orders,
            Some(json!({"lines": [{"variant_id": variant_id, "quantity": 2}], "email": "buyer@example.com",
                "shipping_address": {"name": "Ana", "street": "Main 1", "locality": "Valparaíso", "country_code": "CL"},
                "shipping_total": 500})),
            S::CREATED,
        )
        .await;
    let order_path = format!("/v2/orders/{}", order["id"]);
    r.send(M::PUT, &order_path, Some(json!({"note": "Gift"})), S::OK)
        .await;
    r.send(M::PUT, &format!("{order_path}/place"), None, S::OK)
        .await;
    r.send(M::PUT, &format!("{order_path}/close"), None, S::OK)
        .await;
    r.send(
        M::PUT,
        &format!("{order_path}/ship"),
        Some(json!({"tracking_code": "TRK-1", "courier_name": "Starken"})),
        S::OK,
    )
    .await;
    let second = r
        .send(
            M::POST,
            &orders,
            Some(json!({"lines": [{"variant_id": other["_embedded"]["variants"][0]["id"], "quantity": 1}]})),
            S::CREATED,
        )
        .await;
    r.send(
        M::DELETE,
        &format!("/v2/orders/{}", second["id"]),
        None,
        S::OK,
    )
    .await;
    // Payments: a manual method, an order paid through it, then cancelled and refunded.
    let methods = format!("/v2/shops/{shop}/payment_methods");
    let method = r
        .send(
            M::POST,
            &methods,
            Some(
                json!({"type": "bank_transfer", "instructions": "Transfer to our account",
                "settings": {"bank_name": "Banco", "iban": "CL00 1234"}}),
            ),
            S::CREATED,
        )
        .await;
    let paid = r
        .send(
            M::POST,
            &orders,
            Some(json!({"lines": [{"variant_id": variant_id, "quantity": 1}],
                "payment_method_id": method["id"]})),
            S::CREATED,
        )
        .await;
    let paid_path = format!("/v2/orders/{}", paid["id"]);
    r.send(M::PUT, &format!("{paid_path}/place"), None, S::OK)
        .await;
    r.send(
        M::POST,
        &format!("{paid_path}/payments"),
        Some(json!({"reference": "TRX-1"})),
        S::CREATED,
    )
    .await;
    // Documents: numbered at once, pending (no worker renders them here).
    let invoice = r
        .send(
            M::POST,
            &format!("{paid_path}/documents"),
            Some(json!({"kind": "invoice"})),
            S::ACCEPTED,
        )
        .await;
    r.get(&format!("{paid_path}/documents/{}", invoice["id"]))
        .await;
    r.get(&format!("{paid_path}/documents")).await;
    // Batches: moved by the request up to 100 orders, else a job (pending here).
    r.send(
        M::POST,
        &format!("{orders}/batch_updates"),
        Some(json!({"ids": [paid["id"], 999_999], "status": "closed"})),
        S::OK,
    )
    .await;
    let unknown: Vec<i64> = (900_001..=900_101).collect();
    let job = r
        .send(
            M::POST,
            &format!("{orders}/batch_updates"),
            Some(json!({"ids": unknown, "status": "closed"})),
            S::ACCEPTED,
        )
        .await;
    r.get(&format!("/v2/batches/{}", job["id"])).await;
    r.get("/v2/batches").await;
    r.send(M::PUT, &format!("{paid_path}/cancel"), None, S::OK)
        .await;
    r.get(&format!("{paid_path}/payments")).await;
    r.get(&methods).await;
    r.get("/v2/orders").await;
    r.get(&format!("/v2/products/{product_id}")).await;
    r.get(&customer_path).await;
    r.get(&format!("{customer_path}/orders")).await;
    r.get("/v2/customers?tags=VIP").await;

    // Webhooks: the topics, and a target the guard refuses.
    r.get("/v2/webhooks/topics").await;
    r.send(
        M::POST,
        "/v2/webhooks",
        Some(json!({"topic": "orders", "url": "http://127.0.0.1:9/hooks"})),
        S::UNPROCESSABLE_ENTITY,
    )
    .await;
    r.get("/v2/webhooks").await;

    // Images, collections, price lists and shops, changed and removed.
    let assets = format!("/v2/products/{product_id}/assets");
    let image = r
        .send(
            M::POST,
            &assets,
            Some(json!({"file_name": "dot.png", "data": PNG})),
            S::CREATED,
        )
        .await;
    r.get(&assets).await;
    r.send(M::DELETE, &format!("{assets}/{}", image["id"]), None, S::OK)
        .await;
    let collection_path = format!("/v2/collections/{}", collection["id"]);
    r.send(
        M::PUT,
        &collection_path,
        Some(json!({"title": "Late summer", "description": "Warm days"})),
        S::OK,
    )
    .await;
    let hat = r
        .send(
            M::POST,
            "/v2/products",
            Some(json!({"title": "Sun hat", "price": 1800})),
            S::CREATED,
        )
        .await;
    r.send(
        M::POST,
        &members,
        Some(json!({"product_id": hat["id"]})),
        S::OK,
    )
    .await;
    r.send(
        M::PUT,
        &members,
        Some(json!({"product_ids": [hat["id"], product_id]})),
        S::OK,
    )
    .await;
    r.send(M::DELETE, &format!("{members}/{}", hat["id"]), None, S::OK)
        .await;
    r.send(M::DELETE, &collection_path, None, S::OK).await;
    r.send(
        M::PUT,
        &list_path,
        Some(json!({"name": "Wholesale, reduced", "status": "inactive"})),
        S::OK,
    )
    .await;
    r.send(
        M::DELETE,
        &format!(
            "{list_path}/items/{}",
            written["_embedded"]["items"][0]["id"]
        ),
        None,
        S::OK,
    )
    .await;
    r.send(M::DELETE, &list_path, None, S::OK).await;
    let new_shop = r
        .send(
            M::POST,
            &format!("/v2/sellers/{seller}/shops"),
            Some(
                json!({"subdomain": "recorded-shop", "name": "Recorded", "description": "Second"}),
            ),
            S::CREATED,
        )
        .await;

    // Webhooks: created (a name passes the guard; its addresses are checked on delivery),
    // changed, refused a disabling while pending, its secret rotated, deleted.
    let hook = r
        .send(
            M::POST,
            "/v2/webhooks",
            Some(
                json!({"topic": "collections", "url": "https://hooks.example.invalid/in",
                "shop_id": new_shop["id"]}),
            ),
            S::CREATED,
        )
        .await;
    let hook_path = format!("/v2/webhooks/{}", hook["id"]);
    r.send(
        M::PUT,
        &hook_path,
        Some(json!({"url": "https://hooks.example.invalid/changed", "notify_origin": true})),
        S::OK,
    )
    .await;
    // Still pending (no dispatcher runs to verify it): refused.
    r.send(
        M::PUT,
        &format!("{hook_path}/disable"),
        None,
        S::UNPROCESSABLE_ENTITY,
    )
    .await;
    r.send(M::POST, &format!("{hook_path}/secret"), None, S::OK)
        .await;
    r.get(&hook_path).await;
    r.send(M::DELETE, &hook_path, None, S::OK).await;

    // Refusals.
    r.send(M::GET, "/v2/products/999999", None, S::NOT_FOUND)
        .await;
    r.send(M::POST, "/v2/products", Some(json!({})), S::BAD_REQUEST)
        .await;
    r.send(
        M::POST,
        &orders,
        Some(json!({"lines": [{"variant_id": variant_id, "quantity": 0}], "email": "x"})),
        S::UNPROCESSABLE_ENTITY,
    )
    .await;
    r.send(
        M::PUT,
        &format!("{order_path}/place"),
        None,
        S::UNPROCESSABLE_ENTITY,
    )
    .await;
    r.send(
        M::DELETE,
        &format!("/v2/products/{}", other["id"]),
        None,
        S::OK,
    )
    .await;
    r.get("/v2/products").await;

    // Subscription fees: one by percentage of the variant's price, changed to weekly
    // renewals on a weekday, listed, deleted.
    let fee = r
        .send(
            M::POST,
            "/v2/subscription_fees",
            Some(
                json!({"variant_id": variant_id, "payment_interval": "1_month",
                "renewal_fee": 15, "by_percentage": true, "setup_fee": 500, "payment_day": 31}),
            ),
            S::CREATED,
        )
        .await;
    let fee_path = format!("/v2/subscription_fees/{}", fee["id"]);
    r.send(
        M::PUT,
        &fee_path,
        Some(
            json!({"payment_interval": "1_week", "payment_day": 5, "on_first_renewal": "prorate"}),
        ),
        S::OK,
    )
    .await;
    r.get(&format!("/v2/subscription_fees?variant_id={variant_id}"))
        .await;
    // Subscription purchases: a recurring order paid by hand opens one; paused, then
    // cancelled, which lets its fee be deleted.
    let recurring = r
        .send(
            M::POST,
            &orders,
            Some(
                json!({"lines": [{"variant_id": variant_id, "subscription_fee_id": fee["id"]}],
                "payment_method_id": method["id"]}),
            ),
            S::CREATED,
        )
        .await;
    let recurring_path = format!("/v2/orders/{}", recurring["id"]);
    r.send(M::PUT, &format!("{recurring_path}/place"), None, S::OK)
        .await;
    r.send(
        M::POST,
        &format!("{recurring_path}/payments"),
        Some(json!({"reference": "TRX-2"})),
        S::CREATED,
    )
    .await;
    let purchases = r.get("/v2/subscription_purchases?state=active").await;
    let purchase_path = format!(
        "/v2/subscription_purchases/{}",
        purchases["_embedded"]["items"][0]["id"]
    );
    r.send(
        M::PUT,
        &purchase_path,
        Some(json!({"state": "paused", "paused_by": "customer"})),
        S::OK,
    )
    .await;
    r.send(
        M::PUT,
        &purchase_path,
        Some(json!({"state": "cancelled"})),
        S::OK,
    )
    .await;
    r.send(M::DELETE, &fee_path, None, S::OK).await;

    // The events the flows recorded, as subscribers receive them.
    let events: Vec<(String, String)> =
        s.db.rows("SELECT topic, item FROM events ORDER BY id")
            .await;
    for (topic, item) in events {
        let shown = r.stable(&item);
        writeln!(r.out, "EVENT {topic}\n{shown}\n").unwrap();
    }

    assert!(r.out.contains("LS-M"), "the flows ran");
    if let Ok(folder) = std::env::var("COMMERCE_RECORD_TO") {
        let name = match backend {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        };
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(format!("{folder}/{name}.txt"), &r.out).unwrap();
    }
}
