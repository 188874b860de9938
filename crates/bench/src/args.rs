//! The benchmark's command line: how long, how hard and against which databases to run.

use std::time::Duration;

use clap::{Parser, ValueEnum};

/// Products in the storefront scenarios, loaded before the catalog sizes: the catalog the
/// comparable measurement of the best-known open-source engine used.
pub const STOREFRONT_PRODUCTS: usize = 104;

#[derive(Debug, Parser)]
#[command(
    name = "bench",
    about = "Measures the commerce server, started as a child process, over loopback"
)]
pub struct Args {
    /// Seconds each scenario is measured for.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub duration: u64,
    /// Seconds each scenario runs before measuring.
    #[arg(long, default_value_t = 2)]
    pub warmup: u64,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub concurrency: u32,
    /// The databases to run the server on.
    #[arg(long, value_enum, default_value_t = BackendChoice::Both)]
    pub backend: BackendChoice,
    /// Catalog sizes to measure the product scenarios at, ascending and comma-separated
    /// (e.g. 10000,1000000); the catalog grows from one size to the next.
    #[arg(long, value_delimiter = ',', default_value = "10000")]
    pub products: Vec<usize>,
    /// Order history sizes to measure the order list's pages at, ascending and
    /// comma-separated (e.g. 10000,1000000); the history grows from one size to the next.
    #[arg(long, value_delimiter = ',', default_value = "10000")]
    pub orders: Vec<usize>,
    /// Measure only the order scenarios: purchases (with their baseline), then the order
    /// list's pages at each history size.
    #[arg(long, conflicts_with_all = ["webhooks_only", "hot_row_only", "lists_only"])]
    pub orders_only: bool,
    /// Subscription purchases, all due at once, that the renewal scenario loads before
    /// starting a server whose renewal engine bills them (measured last, on its own server).
    #[arg(long, default_value_t = 10_000, value_parser = parse_renewals)]
    pub renewals: usize,
    /// Measure only the renewal scenario (purchases billed per second, with its baseline).
    #[arg(long, conflicts_with_all = ["webhooks_only", "hot_row_only", "lists_only", "orders_only", "compare_with"])]
    pub renewals_only: bool,
    /// Measure webhook delivery only, not the API scenarios.
    #[arg(long)]
    pub webhooks_only: bool,
    /// Measure the hot-row scenario only (concurrent stock adjustments of one variant).
    #[arg(long, conflicts_with = "webhooks_only")]
    pub hot_row_only: bool,
    /// Measure only the catalog's list pages (with their baseline) at each catalog size:
    /// no webhooks, base or storefront scenarios.
    #[arg(long, conflicts_with_all = ["webhooks_only", "hot_row_only"])]
    pub lists_only: bool,
    /// Another build's bench binary (e.g. one built at an earlier commit): after this
    /// build's figures, its base and storefront read scenarios are measured too, each on a
    /// database it seeds itself, and compared with this build's.
    #[arg(long, value_name = "BENCH_BINARY", conflicts_with_all = ["webhooks_only", "hot_row_only", "lists_only", "orders_only"])]
    pub compare_with: Option<std::path::PathBuf>,
    /// PostgreSQL admin URL; the benchmark creates (and drops) its own database there.
    #[arg(
        long,
        env = "COMMERCE_BENCH_POSTGRES_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/postgres"
    )]
    pub postgres_url: String,
}

/// At least one purchase to renew.
fn parse_renewals(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("must be a whole number of at least 1".into()),
    }
}

impl Args {
    /// Whether the run measures the renewal scenario: with every scenario, or alone.
    pub fn renews(&self) -> bool {
        self.renewals_only
            || !(self.webhooks_only || self.hot_row_only || self.lists_only || self.orders_only)
    }

    pub fn duration(&self) -> Duration {
        Duration::from_secs(self.duration)
    }

    pub fn warmup(&self) -> Duration {
        Duration::from_secs(self.warmup)
    }

    /// The catalog sizes, ascending, without repeats; none smaller than the storefront
    /// scenarios' catalog, which is loaded first.
    pub fn catalog_sizes(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = self
            .products
            .iter()
            .map(|&n| n.max(STOREFRONT_PRODUCTS))
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// The order history sizes, ascending, without repeats.
    pub fn order_sizes(&self) -> Vec<usize> {
        let mut sizes = self.orders.clone();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    pub fn backends(&self) -> &'static [Backend] {
        match self.backend {
            BackendChoice::Sqlite => &[Backend::Sqlite],
            BackendChoice::Postgres => &[Backend::Postgres],
            BackendChoice::Both => &[Backend::Sqlite, Backend::Postgres],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendChoice {
    Sqlite,
    Postgres,
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}
