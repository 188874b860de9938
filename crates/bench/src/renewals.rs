//! Subscription renewals: purchases all due today, loaded (`commerce seed --purchases`)
//! while no server runs, then billed by a fresh server's renewal engine, a singleton that
//! renews a few purchases at once (each one's order placed, its saved card charged through
//! the test gateway, the purchase moved on). Measured as the wall time from starting the
//! server until the database holds no due purchase; then the static baseline of a renewal
//! order's size on the same server.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use domain::{CalendarDate, Clock, SystemClock};
use serde_json::Value;
use storage::subscription_purchases::due;
use storage::{Database, StoreOptions};

use crate::args::Args;
use crate::process::{Build, DemoData, Server};
use crate::scenarios::{self, Api, Run, Scenario};

/// How often the database is asked whether anything is still due.
const POLL: Duration = Duration::from_millis(100);
/// How often the progress is told.
const PROGRESS: Duration = Duration::from_secs(60);
/// Bounds the wait: a hundred thousand renewals at a few per second.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(8 * 3600);

/// What the scenario measured.
pub struct RenewalRun {
    /// Purchases loaded, all due.
    pub purchases: usize,
    pub load_seconds: f64,
    /// From starting the server to none due.
    pub drain: Duration,
    /// Purchases whose cycle was billed (moved to their next week).
    pub billed: u64,
    /// The static baseline of a renewal order's size, measured after.
    pub baseline: Run,
}

impl RenewalRun {
    pub fn per_second(&self) -> f64 {
        self.billed as f64 / self.drain.as_secs_f64().max(0.001)
    }
}

/// Loads `args.renewals` due purchases into the first demo shop, starts a server, and
/// waits until it has renewed them all; stops the server whatever happened.
pub async fn run(
    build: &Build,
    database_url: &str,
    demo: &DemoData,
    args: &Args,
) -> Result<RenewalRun> {
    let shop = demo.shops.first().context("the demo data has no shop")?.id;
    let load_seconds = build
        .seed_purchases(database_url, shop, args.renewals)
        .await?;
    let db = Database::connect(database_url, &StoreOptions::default())
        .await
        .context("open the database to watch the due purchases")?;
    let today = CalendarDate::of(SystemClock.now());
    let started = Instant::now();
    let server = build.start(database_url).await?;
    let measured = measure(&server, &db, demo, args, today, started).await;
    db.close().await;
    let stopped = server.stop().await;
    let (drain, billed, baseline) = measured?;
    match stopped {
        Ok(status) if !status.success() => eprintln!("warning: the server exited with {status}"),
        Ok(_) => {}
        Err(err) => eprintln!("warning: cannot stop the server: {err:#}"),
    }
    Ok(RenewalRun {
        purchases: args.renewals,
        load_seconds,
        drain,
        billed,
        baseline,
    })
}

/// The drain's time and how many were billed, then the baseline.
async fn measure(
    server: &Server,
    db: &Database,
    demo: &DemoData,
    args: &Args,
    today: CalendarDate,
    started: Instant,
) -> Result<(Duration, u64, Run)> {
    let client = scenarios::client(args)?;
    let token = scenarios::token(&client, &server.url, demo).await?;
    let api = Api {
        client: &client,
        base: &server.url,
        token: &token,
    };
    let mut told = Instant::now();
    loop {
        if due(db, today, None, 1).await?.is_empty() {
            break;
        }
        if started.elapsed() > DRAIN_TIMEOUT {
            bail!(
                "purchases were still due after {}s",
                DRAIN_TIMEOUT.as_secs()
            );
        }
        if told.elapsed() >= PROGRESS {
            told = Instant::now();
            let billed = billed(&api, today).await?;
            eprintln!(
                "{billed} of {} purchases renewed after {:.0} s",
                args.renewals,
                started.elapsed().as_secs_f64()
            );
        }
        tokio::time::sleep(POLL).await;
    }
    let drain = started.elapsed();
    let billed = billed(&api, today).await?;
    let (order_bytes, _) = api
        .probe(&format!("/v2/orders/{}", last_order(&api).await?))
        .await?;
    let baseline = api.request(&format!("/v2/_bench/baseline?bytes={order_bytes}"), None)?;
    let baseline = Scenario::ok("baseline_order", "baseline_order", baseline);
    let measured = scenarios::measure(server, &api, vec![baseline], args).await?;
    Ok((drain, billed, Run::of(measured, server.peak_memory())))
}

/// Purchases renewed today: their next payment is after today.
async fn billed(api: &Api<'_>, today: CalendarDate) -> Result<u64> {
    let path = format!(
        "/v2/subscription_purchases?per_page=1&next_payment_on.gte={}",
        today.plus_days(1)
    );
    let list = get(api, &path).await?;
    list["total_items"]
        .as_u64()
        .with_context(|| format!("GET {path} shows no total: {list}"))
}

/// The newest order: a renewal order, as the renewals came last.
async fn last_order(api: &Api<'_>) -> Result<i64> {
    let list = get(api, "/v2/orders?per_page=1&sort=id.desc").await?;
    list["_embedded"]["items"][0]["id"]
        .as_i64()
        .with_context(|| format!("no order listed: {list}"))
}

async fn get(api: &Api<'_>, path: &str) -> Result<Value> {
    let response = api
        .client
        .execute(api.request(path, None)?)
        .await
        .with_context(|| format!("GET {path}"))?;
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .with_context(|| format!("GET {path}"))?;
    if !status.is_success() {
        bail!("GET {path} answered {status}: {body}");
    }
    Ok(body)
}
