//! The state every handler shares.

use std::sync::Arc;

use domain::Clock;
use oauth::AuthService;
use services::Services;
use storage::Database;

use crate::kernel::metrics::Metrics;
use crate::kernel::present::Presenter;
use crate::kernel::rate_limit::RateLimiter;
use crate::kernel::revalidation::Revalidation;
use crate::kernel::urls::Urls;

#[derive(Clone, Debug)]
pub struct ApiConfig {
    /// Scheme, host and optional path prefix under which clients reach the service.
    pub public_url: String,
    /// A hosted shop's storefront address with `{subdomain}`; `None`: derived from
    /// `public_url` (see `Urls::storefront`).
    pub storefront_url: Option<String>,
    pub max_body_bytes: usize,
    /// The largest product image accepted, in bytes.
    pub max_asset_bytes: usize,
    /// Which addresses webhook targets may have.
    pub webhook_guard: delivery::ssrf::Guard,
    /// Serves `GET /v2/_bench/baseline`, the static reference the benchmarks compare against.
    pub bench_baseline: bool,
    /// Answers every request with `X-Db-Queries`, the number of queries it sent (tests
    /// and benchmarks hold pages to a constant number with it).
    pub count_queries: bool,
    /// How many matches a product list counts exactly before its total becomes a bound
    /// (`storage::products::EXACT_TOTAL_CAP`; tests lower it).
    pub exact_total_cap: u64,
    /// Sees every answer and the OpenAPI document (the test suite checks one against the
    /// other); `None` in production.
    pub observer: super::observe::Observer,
}

/// What every handler and middleware shares. Cloned for each middleware of each request,
/// so it is one reference-counted pointer (`state.db` reads through it).
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

pub struct Shared {
    pub db: Database,
    pub auth: Arc<AuthService>,
    pub clock: Arc<dyn Clock>,
    pub config: Arc<ApiConfig>,
    pub limiter: Arc<RateLimiter>,
    pub metrics: Arc<Metrics>,
    pub urls: Arc<Urls>,
    /// Answers a conditional read `304` without reading, where nothing it showed changed.
    pub revalidation: Revalidation,
    /// The operations handlers call, with resources shown as this API shows them.
    pub services: Services,
}

impl AppState {
    pub fn new(
        db: Database,
        auth: Arc<AuthService>,
        clock: Arc<dyn Clock>,
        config: ApiConfig,
        limiter: RateLimiter,
    ) -> Self {
        let urls = Urls::new(&config.public_url).with_storefront(config.storefront_url.as_deref());
        let urls = Arc::new(urls);
        let presenter = Presenter { urls: urls.clone() };
        Self(Arc::new(Shared {
            services: Services::new(db.clone(), clock.clone(), Arc::new(presenter)),
            limiter: Arc::new(limiter),
            metrics: Arc::new(Metrics::new(db.clone())),
            config: Arc::new(config),
            revalidation: Revalidation::new(db.clone()),
            db,
            auth,
            clock,
            urls,
        }))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}
