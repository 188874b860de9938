//! What is measured: the API requests and the static baselines of the same size they are
//! compared with, each warmed up, then measured while the server's peak memory is tracked.

use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use domain::Clock;
use reqwest::header::{CACHE_CONTROL, ETAG, HeaderValue, IF_NONE_MATCH};
use reqwest::{Client, Request, StatusCode};
use serde::Deserialize;

use crate::args::Args;
use crate::load::{self, Outcome, Target};
use crate::process::{DemoData, Server};

/// Bounds every request, so that every load loop ends near its deadline.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// One measured scenario.
pub struct Measured {
    pub name: &'static str,
    /// The scenario this one is divided by.
    pub baseline: &'static str,
    pub body_bytes: usize,
    pub outcome: Outcome,
    /// The server's peak resident memory during the scenario, in bytes.
    pub peak_memory: Option<u64>,
}

/// Every scenario on one server.
pub struct Run {
    pub scenarios: Vec<Measured>,
    /// The server's peak resident memory since it started, in bytes.
    pub peak_memory: Option<u64>,
}

impl Run {
    /// The measured scenarios, with the largest peak among them and `earlier`.
    pub(crate) fn of(scenarios: Vec<Measured>, earlier: Option<u64>) -> Self {
        Self {
            peak_memory: scenarios
                .iter()
                .map(|m| m.peak_memory)
                .fold(earlier, Option::max),
            scenarios,
        }
    }
}

/// The read scenarios of one build.
#[derive(Default)]
pub struct Reads {
    pub base: Option<Run>,
    pub storefront: Option<Run>,
}

impl Reads {
    pub fn runs(&self) -> impl Iterator<Item = &Run> {
        self.base.iter().chain(&self.storefront)
    }

    pub fn clean(&self) -> bool {
        self.runs()
            .flat_map(|run| &run.scenarios)
            .all(|s| s.outcome.errors == 0)
    }
}

pub(crate) struct Scenario {
    name: &'static str,
    baseline: &'static str,
    /// Sent in turn (see `load::Target`).
    requests: Vec<Request>,
    expect: StatusCode,
    refusal: Option<StatusCode>,
    /// Requests in flight at once, when not the command line's.
    concurrency: Option<u32>,
}

pub async fn run(server: &Server, demo: &DemoData, args: &Args) -> Result<Run> {
    let client = client(args)?;
    let api = Api {
        client: &client,
        base: &server.url,
        token: &token(&client, &server.url, demo).await?,
    };
    let shop_id = demo.shops.first().context("the demo data has no shop")?.id;
    let shop_path = format!("/v2/shops/{shop_id}");
    let (root_bytes, _) = api.probe("/v2").await?;
    let (shop_bytes, shop_etag) = api.probe(&shop_path).await?;
    let get = |path: &str| api.request(path, None);
    let scenarios = vec![
        Scenario::ok("root", "baseline_root", get("/v2")?),
        Scenario::ok("shop", "baseline_shop", get(&shop_path)?),
        Scenario::not_modified(
            "shop_304",
            "baseline_shop",
            api.request(&shop_path, Some(&shop_etag))?,
        ),
        // The same static document with and without a bearer token: their ratio is what
        // verifying the token costs.
        Scenario::ok(
            "baseline_root",
            "no_auth_root",
            get(&format!("/v2/_bench/baseline?bytes={root_bytes}"))?,
        ),
        Scenario::ok(
            "baseline_shop",
            "baseline_shop",
            get(&format!("/v2/_bench/baseline?bytes={shop_bytes}"))?,
        ),
        Scenario::ok(
            "no_auth_root",
            "no_auth_root",
            api.anonymous(&format!("/bench/static?bytes={root_bytes}"))?,
        ),
        // Tokens issued per second (each one signed and recorded).
        Scenario::ok("token_cc", "no_auth_root", api.client_credentials(demo)?),
    ];
    // What starting, seeding and the probes took, before the first reset.
    let startup_peak = server.peak_memory();
    let measured = measure(server, &api, scenarios, args).await?;
    Ok(Run::of(measured, startup_peak))
}

/// Connections adjusting the stock of one variant at once in the hot-row scenario.
pub const HOT_ROW_WRITERS: u32 = 16;

/// Stock adjustments of one variant by `HOT_ROW_WRITERS` connections at once, alternating
/// +1 and -1 on a variant that does not sell on backorder and starts with no stock, so
/// that some are refused (422, counted apart); with the static baseline of the size of
/// the variant, at the same concurrency.
pub async fn run_hot_row(server: &Server, demo: &DemoData, args: &Args) -> Result<Run> {
    let client = client(args)?;
    let api = Api {
        client: &client,
        base: &server.url,
        token: &token(&client, &server.url, demo).await?,
    };
    let variant_path = api.hot_variant().await?;
    let (variant_bytes, _) = api.probe(&variant_path).await?;
    let adjustments = format!("{variant_path}/stock_adjustments");
    let baseline = api.request(&format!("/v2/_bench/baseline?bytes={variant_bytes}"), None)?;
    let scenarios = vec![
        Scenario {
            name: "hot_row_stock",
            baseline: "baseline_variant",
            requests: vec![
                api.post_json(&adjustments, r#"{"delta": 1}"#)?,
                api.post_json(&adjustments, r#"{"delta": -1}"#)?,
            ],
            expect: StatusCode::OK,
            refusal: Some(StatusCode::UNPROCESSABLE_ENTITY),
            concurrency: Some(HOT_ROW_WRITERS),
        },
        Scenario {
            concurrency: Some(HOT_ROW_WRITERS),
            ..Scenario::ok("baseline_variant", "baseline_variant", baseline)
        },
    ];
    let measured = measure(server, &api, scenarios, args).await?;
    Ok(Run::of(measured, None))
}

/// The catalog's scenarios on a catalog of `size` generated products (ids 1 to `size`):
/// one product, list pages (first, deep, by tag, by search words, by price) and a stock
/// update, each with a static baseline of the same size.
pub async fn run_catalog(
    server: &Server,
    demo: &DemoData,
    args: &Args,
    size: usize,
) -> Result<Run> {
    let client = client(args)?;
    let api = Api {
        client: &client,
        base: &server.url,
        token: &token(&client, &server.url, demo).await?,
    };
    let product_path = format!("/v2/products/{}", size.div_ceil(2));
    let variant_id = api.first_variant(&product_path).await?;
    let (product_bytes, _) = api.probe(&product_path).await?;
    let (list_bytes, _) = api.probe("/v2/products").await?;
    let get = |path: &str| api.request(path, None);
    // With `--lists-only`, the scenarios divided by the list baseline (and it) only.
    let scenarios = vec![
        Scenario::ok("product", "baseline_product", get(&product_path)?),
        // `no-cache`: made by the handler, not served from the remembered answer.
        Scenario::ok(
            "product_fresh",
            "baseline_product",
            api.fresh(&product_path)?,
        ),
        Scenario::ok("list_first", "baseline_list", get("/v2/products")?),
        // Page 250 of 20: the same offset (4,980) at every catalog size.
        Scenario::ok("list_deep", "baseline_list", get("/v2/products?page=250")?),
        Scenario::ok("list_tag", "baseline_list", get("/v2/products?tags=tag-7")?),
        Scenario::ok("list_q", "baseline_list", get("/v2/products?q=lamp")?),
        Scenario::ok(
            "list_price",
            "baseline_list",
            get("/v2/products?sort=price.asc")?,
        ),
        Scenario::ok(
            "stock_update",
            "baseline_product",
            api.post_json(
                &format!("{product_path}/variants/{variant_id}/stock_adjustments"),
                r#"{"delta": 1}"#,
            )?,
        ),
        Scenario::ok(
            "baseline_product",
            "baseline_product",
            get(&format!("/v2/_bench/baseline?bytes={product_bytes}"))?,
        ),
        Scenario::ok(
            "baseline_list",
            "baseline_list",
            get(&format!("/v2/_bench/baseline?bytes={list_bytes}"))?,
        ),
    ];
    let scenarios = scenarios
        .into_iter()
        .filter(|s| !args.lists_only || s.baseline == "baseline_list")
        .collect();
    let measured = measure(server, &api, scenarios, args).await?;
    Ok(Run::of(measured, None))
}

/// Requests in flight at once in the order search scenario: a search reads every order
/// (words match within emails, names and lines), so that at the command line's
/// concurrency a large history's answers would outlast the request timeout.
pub const ORDER_SEARCH_READERS: u32 = 4;

/// The order list's pages on the account's orders (the generated history of the first
/// shop, after the purchases): first, deep (page 250 of 20: the same offset at every
/// size), by status, by a `total` range, by a day of `created_on` early in the history
/// (the same orders at every size), by `q` (a buyer's email of the history's start), and
/// sorted by total; each with the static baseline of the first page's size. Every page
/// is asked for with `no-cache`, so that the handler makes it.
pub async fn run_order_lists(server: &Server, demo: &DemoData, args: &Args) -> Result<Run> {
    let client = client(args)?;
    let api = Api {
        client: &client,
        base: &server.url,
        token: &token(&client, &server.url, demo).await?,
    };
    let (list_bytes, _) = api.probe("/v2/orders").await?;
    let buyer = api.first_buyer().await?;
    let history_day = |days_ago: i64| {
        domain::SystemClock
            .now()
            .plus_secs(-days_ago * 86_400)
            .to_rfc3339()
    };
    let created = format!(
        "/v2/orders?created_on.gte={}&created_on.lte={}",
        history_day(729),
        history_day(728)
    );
    // `no-cache`: each page made by the handler, not served from the remembered answer.
    let get = |path: &str| api.fresh(path);
    let scenarios = vec![
        Scenario::ok("orders_first", "baseline_list", get("/v2/orders")?),
        Scenario::ok("orders_deep", "baseline_list", get("/v2/orders?page=250")?),
        Scenario::ok(
            "orders_status",
            "baseline_list",
            get("/v2/orders?status=shipped")?,
        ),
        Scenario::ok(
            "orders_total",
            "baseline_list",
            get("/v2/orders?total.gte=5000&total.lte=6000")?,
        ),
        Scenario::ok("orders_created", "baseline_list", get(&created)?),
        Scenario {
            concurrency: Some(ORDER_SEARCH_READERS),
            ..Scenario::ok(
                "orders_q",
                "baseline_list",
                get(&format!("/v2/orders?q={buyer}"))?,
            )
        },
        Scenario::ok(
            "orders_by_total",
            "baseline_list",
            get("/v2/orders?sort=total.desc")?,
        ),
        Scenario::ok(
            "baseline_list",
            "baseline_list",
            get(&format!("/v2/_bench/baseline?bytes={list_bytes}"))?,
        ),
    ];
    let measured = measure(server, &api, scenarios, args).await?;
    Ok(Run::of(measured, None))
}

/// The storefront's list pages of 20 and 50 on a catalog of `STOREFRONT_PRODUCTS`, read
/// with a storefront token (`public`, naming the shop) and with the account's own token,
/// each with a static baseline of the same size.
pub async fn run_storefront(server: &Server, demo: &DemoData, args: &Args) -> Result<Run> {
    let client = client(args)?;
    let account = Api {
        client: &client,
        base: &server.url,
        token: &token(&client, &server.url, demo).await?,
    };
    let storefront = Api {
        client: &client,
        base: &server.url,
        token: &public_token(&client, &server.url, demo).await?,
    };
    let shop = demo.shops.first().context("the demo data has no shop")?;
    let public_page = |n: u32| {
        format!(
            "/v2/products?per_page={n}&shop_subdomains={}",
            shop.subdomain
        )
    };
    let account_page = |n: u32| format!("/v2/products?per_page={n}");
    let mut scenarios = Vec::new();
    let pages = [
        (
            "storefront_20",
            "baseline_sf_20",
            &storefront,
            public_page(20),
        ),
        (
            "storefront_50",
            "baseline_sf_50",
            &storefront,
            public_page(50),
        ),
        ("account_20", "baseline_acct_20", &account, account_page(20)),
        ("account_50", "baseline_acct_50", &account, account_page(50)),
    ];
    for (name, baseline, api, path) in pages {
        let (bytes, etag) = api.probe(&path).await?;
        scenarios.push(Scenario::ok(name, baseline, api.request(&path, None)?));
        scenarios.push(Scenario::ok(
            baseline,
            baseline,
            api.request(&format!("/v2/_bench/baseline?bytes={bytes}"), None)?,
        ));
        match name {
            "storefront_20" => {
                scenarios.push(Scenario::ok(
                    "storefront_20_fresh",
                    baseline,
                    api.fresh(&path)?,
                ));
                scenarios.push(Scenario::not_modified(
                    "storefront_20_304",
                    baseline,
                    api.request(&path, Some(&etag))?,
                ));
            }
            "account_20" => {
                scenarios.push(Scenario::ok(
                    "account_20_fresh",
                    baseline,
                    api.fresh(&path)?,
                ));
            }
            _ => {}
        }
    }
    let measured = measure_with(server, &client, scenarios, args).await?;
    Ok(Run::of(measured, None))
}

pub(crate) fn client(args: &Args) -> Result<Client> {
    Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .pool_max_idle_per_host(args.concurrency as usize)
        .build()
        .context("build the HTTP client")
}

/// Checks, warms up and measures each scenario in turn, tracking the server's memory.
pub(crate) async fn measure(
    server: &Server,
    api: &Api<'_>,
    scenarios: Vec<Scenario>,
    args: &Args,
) -> Result<Vec<Measured>> {
    measure_with(server, api.client, scenarios, args).await
}

/// As `measure`, for scenarios whose requests carry their own credentials.
async fn measure_with(
    server: &Server,
    client: &Client,
    scenarios: Vec<Scenario>,
    args: &Args,
) -> Result<Vec<Measured>> {
    let mut measured = Vec::with_capacity(scenarios.len());
    for scenario in scenarios {
        let target = Target {
            requests: scenario.requests,
            expect: scenario.expect,
            refusal: scenario.refusal,
        };
        let concurrency = scenario.concurrency.unwrap_or(args.concurrency);
        let body_bytes = check(client, &target)
            .await
            .with_context(|| format!("scenario {} does not answer as expected", scenario.name))?;
        server.reset_peak_memory();
        load::run(client, &target, concurrency, args.warmup()).await?;
        let outcome = load::run(client, &target, concurrency, args.duration()).await?;
        measured.push(Measured {
            name: scenario.name,
            baseline: scenario.baseline,
            body_bytes,
            outcome,
            peak_memory: server.peak_memory(),
        });
    }
    Ok(measured)
}

impl Scenario {
    pub(crate) fn ok(name: &'static str, baseline: &'static str, request: Request) -> Self {
        Self {
            name,
            baseline,
            requests: vec![request],
            expect: StatusCode::OK,
            refusal: None,
            concurrency: None,
        }
    }

    fn not_modified(name: &'static str, baseline: &'static str, request: Request) -> Self {
        Self {
            expect: StatusCode::NOT_MODIFIED,
            ..Self::ok(name, baseline, request)
        }
    }
}

/// An access token for the demo owner, by the password grant.
pub async fn token(client: &Client, base: &str, demo: &DemoData) -> Result<String> {
    request_token(
        client,
        base,
        &[
            ("grant_type", "password"),
            ("username", demo.user.email.as_str()),
            ("password", demo.user.password.as_str()),
            ("client_id", demo.app.client_id.as_str()),
            ("client_secret", demo.app.client_secret.as_str()),
        ],
    )
    .await
}

/// A storefront's token: the demo app's own, with the `public` scope alone, which reads
/// the visible catalog of the shops a request names.
async fn public_token(client: &Client, base: &str, demo: &DemoData) -> Result<String> {
    request_token(
        client,
        base,
        &[
            ("grant_type", "client_credentials"),
            ("scope", "public"),
            ("client_id", demo.app.client_id.as_str()),
            ("client_secret", demo.app.client_secret.as_str()),
        ],
    )
    .await
}

async fn request_token(client: &Client, base: &str, form: &[(&str, &str)]) -> Result<String> {
    #[derive(Deserialize)]
    struct TokenResponse {
        access_token: String,
    }
    let response = client
        .post(format!("{base}/oauth/token"))
        .form(form)
        .send()
        .await
        .context("request a token")?;
    let status = response.status();
    if !status.is_success() {
        let body = response.text().await.unwrap_or_default();
        bail!("the token endpoint answered {status}: {body}");
    }
    let token: TokenResponse = response.json().await.context("parse the token response")?;
    Ok(token.access_token)
}

/// Authenticated requests to one server.
pub(crate) struct Api<'a> {
    pub client: &'a Client,
    pub base: &'a str,
    pub token: &'a str,
}

impl Api<'_> {
    pub(crate) fn request(
        &self,
        path: &str,
        if_none_match: Option<&HeaderValue>,
    ) -> Result<Request> {
        let mut builder = self
            .client
            .get(format!("{}{path}", self.base))
            .bearer_auth(self.token);
        if let Some(etag) = if_none_match {
            builder = builder.header(IF_NONE_MATCH, etag.clone());
        }
        builder.build().with_context(|| format!("build GET {path}"))
    }

    /// A GET that asks for an answer made now (`Cache-Control: no-cache`), which the
    /// server's remembered answers do not serve.
    fn fresh(&self, path: &str) -> Result<Request> {
        self.client
            .get(format!("{}{path}", self.base))
            .bearer_auth(self.token)
            .header(CACHE_CONTROL, "no-cache")
            .build()
            .with_context(|| format!("build GET {path}"))
    }

    /// A GET without credentials.
    fn anonymous(&self, path: &str) -> Result<Request> {
        self.client
            .get(format!("{}{path}", self.base))
            .build()
            .with_context(|| format!("build GET {path}"))
    }

    /// A POST of a JSON body.
    fn post_json(&self, path: &str, body: &'static str) -> Result<Request> {
        self.client
            .post(format!("{}{path}", self.base))
            .bearer_auth(self.token)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .build()
            .with_context(|| format!("build POST {path}"))
    }

    /// The id of the first variant of the product at `path`.
    async fn first_variant(&self, path: &str) -> Result<i64> {
        let response = self.client.execute(self.request(path, None)?).await?;
        ensure!(
            response.status() == StatusCode::OK,
            "GET {path} answered {}",
            response.status()
        );
        let product: serde_json::Value = response.json().await?;
        product["_embedded"]["variants"][0]["id"]
            .as_i64()
            .with_context(|| format!("GET {path} shows no variant"))
    }

    /// Creates a product whose one variant has no stock and does not sell on backorder:
    /// the variant's path.
    async fn hot_variant(&self) -> Result<String> {
        let product = self
            .create(
                "/v2/products",
                &serde_json::json!({
                    "title": "Hot item",
                    "variants": [{"sku": "HOT-1", "price": 100, "stock": 0,
                                  "available_if_no_stock": false}]
                }),
            )
            .await?;
        let variant = product["_embedded"]["variants"][0]["id"]
            .as_i64()
            .context("the hot-row product shows no variant")?;
        Ok(format!("/v2/products/{}/variants/{variant}", product["id"]))
    }

    /// The local part of the email of the oldest shipped order (one of the generated
    /// history's first), which `q` finds.
    async fn first_buyer(&self) -> Result<String> {
        let path = "/v2/orders?status=shipped&sort=id.asc&per_page=1";
        let response = self.client.execute(self.request(path, None)?).await?;
        ensure!(
            response.status() == StatusCode::OK,
            "GET {path} answered {}",
            response.status()
        );
        let list: serde_json::Value = response.json().await?;
        let email = list["_embedded"]["items"][0]["email"]
            .as_str()
            .with_context(|| format!("GET {path} shows no order with an email"))?;
        Ok(email.split('@').next().unwrap_or(email).to_owned())
    }

    /// POSTs `body` to `path`, expecting 201: the created resource.
    pub(crate) async fn create(
        &self,
        path: &str,
        body: &serde_json::Value,
    ) -> Result<serde_json::Value> {
        let response = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(self.token)
            .json(body)
            .send()
            .await
            .with_context(|| format!("POST {path}"))?;
        let status = response.status();
        let created: serde_json::Value = response.json().await?;
        ensure!(
            status == StatusCode::CREATED,
            "POST {path} answered {status}: {created}"
        );
        Ok(created)
    }

    /// A client-credentials token request of the demo app.
    fn client_credentials(&self, demo: &DemoData) -> Result<Request> {
        self.client
            .post(format!("{}/oauth/token", self.base))
            .basic_auth(&demo.app.client_id, Some(&demo.app.client_secret))
            .form(&[
                ("grant_type", "client_credentials"),
                ("scope", "shops.read"),
            ])
            .build()
            .context("build the token request")
    }

    /// GETs `path` once, expecting 200 with an ETag: the body's length and the ETag.
    pub(crate) async fn probe(&self, path: &str) -> Result<(usize, HeaderValue)> {
        let response = self
            .client
            .execute(self.request(path, None)?)
            .await
            .with_context(|| format!("GET {path}"))?;
        let status = response.status();
        let etag = response.headers().get(ETAG).cloned();
        let body = response
            .bytes()
            .await
            .with_context(|| format!("GET {path}"))?;
        ensure!(
            status == StatusCode::OK,
            "GET {path} answered {status}: {}",
            String::from_utf8_lossy(&body)
        );
        let etag = etag.with_context(|| format!("GET {path} has no ETag"))?;
        Ok((body.len(), etag))
    }
}

/// Sends the target's first request once and checks the status: the body's length.
async fn check(client: &Client, target: &Target) -> Result<usize> {
    let request = target
        .requests
        .first()
        .and_then(Request::try_clone)
        .context("the request cannot be cloned")?;
    let response = client.execute(request).await?;
    let status = response.status();
    let body = response.bytes().await?;
    ensure!(
        status == target.expect || Some(status) == target.refusal,
        "answered {status}, expected {}: {}",
        target.expect,
        String::from_utf8_lossy(&body)
    );
    Ok(body.len())
}
