//! Order placement with payment under contention. Each round of each worker is a whole
//! purchase: an order created in checkout in the first demo shop with one or two lines of
//! a few hot variants (stock enough never to run out), placed (which takes their stock),
//! then paid in full through a test gateway method with an approving card (which closes
//! it). Every worker buys from the same variants, so that placing queues on their rows.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use reqwest::{Client, Method, Request, StatusCode};
use serde_json::{Value, json};

use crate::args::Args;
use crate::load::{self, Answers, Iteration, Outcome};
use crate::process::{DemoData, Server};
use crate::scenarios::{self, Api, Measured, Run, Scenario};

/// The variants every purchase buys from.
pub const HOT_VARIANTS: usize = 4;
/// The hot variants' stock: more than any run sells.
const STOCK: i64 = 1_000_000_000;
/// The measured outcomes of a purchase: the whole sequence, then each step.
const STEPS: usize = 4;
const STEP_NAMES: [&str; STEPS] = [
    "purchase",
    "purchase_create",
    "purchase_place",
    "purchase_pay",
];

/// Purchases by the command line's concurrency of workers, with the static baseline of
/// the size of the order at that concurrency. A purchase's rate is completed purchases
/// per second; its latency is the whole sequence's.
pub async fn run(server: &Server, demo: &DemoData, args: &Args) -> Result<Run> {
    let client = scenarios::client(args)?;
    let token = scenarios::token(&client, &server.url, demo).await?;
    let api = Api {
        client: &client,
        base: &server.url,
        token: &token,
    };
    let shop_id = demo.shops.first().context("the demo data has no shop")?.id;
    let buyer = Buyer {
        client: client.clone(),
        base: server.url.clone(),
        token: token.clone(),
        shop_id,
        method_id: test_gateway(&api, shop_id).await?,
        variants: hot_variants(&api).await?,
    };
    let workers = || {
        (0..args.concurrency as usize)
            .map(|worker| Purchase {
                buyer: buyer.clone(),
                round: worker,
            })
            .collect::<Vec<_>>()
    };
    let mut outcomes: [Outcome; STEPS] = load::empty_outcomes()?;
    let Some(bought) = workers()[0].buy(&mut outcomes).await else {
        let error = outcomes.iter().find_map(|o| o.first_error.clone());
        bail!("a purchase failed: {}", error.unwrap_or_default());
    };
    let (order_bytes, _) = api
        .probe(&format!("/v2/orders/{}", bought.order_id))
        .await?;
    server.reset_peak_memory();
    load::repeat::<_, STEPS>(workers(), args.warmup()).await?;
    let outcomes = load::repeat::<_, STEPS>(workers(), args.duration()).await?;
    let peak_memory = server.peak_memory();
    let mut measured: Vec<Measured> = outcomes
        .into_iter()
        .zip(STEP_NAMES)
        .zip(bought.bytes)
        .map(|((outcome, name), body_bytes)| Measured {
            name,
            baseline: "baseline_order",
            body_bytes,
            outcome,
            peak_memory,
        })
        .collect();
    let baseline = api.request(&format!("/v2/_bench/baseline?bytes={order_bytes}"), None)?;
    let baseline = Scenario::ok("baseline_order", "baseline_order", baseline);
    measured.extend(scenarios::measure(server, &api, vec![baseline], args).await?);
    Ok(Run::of(measured, None))
}

/// A test gateway payment method of the shop: its id.
async fn test_gateway(api: &Api<'_>, shop_id: i64) -> Result<i64> {
    let method = api
        .create(
            &format!("/v2/shops/{shop_id}/payment_methods"),
            &json!({"type": "test_gateway", "name": "Bench cards"}),
        )
        .await?;
    method["id"]
        .as_i64()
        .context("the payment method has no id")
}

/// A visible product with `HOT_VARIANTS` variants of plenty of stock: their ids.
async fn hot_variants(api: &Api<'_>) -> Result<Vec<i64>> {
    let variants: Vec<Value> = (1..=HOT_VARIANTS)
        .map(|n| json!({"sku": format!("HOT-BUY-{n}"), "price": 1_000 + 250 * n, "stock": STOCK}))
        .collect();
    let product = api
        .create(
            "/v2/products",
            &json!({"title": "Bestseller", "status": "visible", "variants": variants}),
        )
        .await?;
    let ids: Option<Vec<i64>> = product["_embedded"]["variants"]
        .as_array()
        .context("the hot product shows no variants")?
        .iter()
        .map(|v| v["id"].as_i64())
        .collect();
    ids.filter(|ids| ids.len() == HOT_VARIANTS)
        .context("the hot product does not show its variants")
}

/// What every worker buys with.
#[derive(Clone)]
struct Buyer {
    client: Client,
    base: String,
    token: String,
    shop_id: i64,
    method_id: i64,
    variants: Vec<i64>,
}

impl Buyer {
    fn request(&self, method: Method, path: &str, body: Option<&Value>) -> Option<Request> {
        let mut builder = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            builder = builder.json(body);
        }
        builder.build().ok()
    }
}

/// One worker's purchases; `round` picks each order's lines.
struct Purchase {
    buyer: Buyer,
    round: usize,
}

/// A completed purchase: its order, and the answers' sizes (their sum, then each step's).
struct Bought {
    order_id: i64,
    bytes: [usize; STEPS],
}

impl Purchase {
    /// One or two lines of the hot variants, in turn.
    fn order_body(&self) -> Value {
        let variants = &self.buyer.variants;
        let count = 1 + self.round % 2;
        let lines: Vec<Value> = (0..count)
            .map(|k| json!({"variant_id": variants[(self.round + k) % variants.len()], "quantity": 1}))
            .collect();
        json!({
            "lines": lines,
            "email": format!("buyer{}@example.com", self.round % 100),
            "payment_method_id": self.buyer.method_id,
        })
    }

    /// Creates, places and pays an order, recording each step and the whole.
    async fn buy(&mut self, outcomes: &mut [Outcome]) -> Option<Bought> {
        let [whole, create, place, pay] = outcomes else {
            unreachable!("a purchase records {STEPS} outcomes")
        };
        let started = Instant::now();
        let body = self.order_body();
        self.round += 1;
        let buyer = &self.buyer;
        let step = |method, path: &str, body: Option<&Value>| buyer.request(method, path, body);
        let orders = format!("/v2/shops/{}/orders", buyer.shop_id);
        let created = send(
            buyer,
            step(Method::POST, &orders, Some(&body)),
            StatusCode::CREATED,
            create,
        )
        .await;
        let Some(created) = created else {
            whole.fail("creating the order failed".into());
            return None;
        };
        let Some(order_id) = serde_json::from_slice::<Value>(&created)
            .ok()
            .and_then(|order| order["id"].as_i64())
        else {
            whole.fail("the created order shows no id".into());
            return None;
        };
        let placed = send(
            buyer,
            step(Method::PUT, &format!("/v2/orders/{order_id}/place"), None),
            StatusCode::OK,
            place,
        )
        .await;
        let Some(placed) = placed else {
            whole.fail("placing the order failed".into());
            return None;
        };
        let card = json!({"card": {"number": "4242424242424242", "exp_month": 12,
                                   "exp_year": 2099, "cvc": "123"}});
        let paid = send(
            buyer,
            step(
                Method::POST,
                &format!("/v2/orders/{order_id}/payments"),
                Some(&card),
            ),
            StatusCode::CREATED,
            pay,
        )
        .await;
        let Some(paid) = paid else {
            whole.fail("paying the order failed".into());
            return None;
        };
        whole.ok += 1;
        whole.record(started.elapsed());
        let sizes = [created.len(), placed.len(), paid.len()];
        Some(Bought {
            order_id,
            bytes: [sizes.iter().sum(), sizes[0], sizes[1], sizes[2]],
        })
    }
}

/// Sends one step of a purchase, recording it into `outcome`: the body, when answered
/// with `expect`.
async fn send(
    buyer: &Buyer,
    request: Option<Request>,
    expect: StatusCode,
    outcome: &mut Outcome,
) -> Option<axum::body::Bytes> {
    let Some(request) = request else {
        outcome.fail("the request cannot be built".into());
        return None;
    };
    load::send(&buyer.client, request, Answers::expect(expect), outcome).await
}

impl Iteration for Purchase {
    async fn once(&mut self, outcomes: &mut [Outcome]) {
        self.buy(outcomes).await;
    }
}
