//! The HTTP API. `kernel` holds what every endpoint shares (errors, JSON input, lists,
//! conditional requests, authentication, rate limits, idempotency, metrics); each area
//! (`root`, `sellers`, `shops`, the catalog's `products`, `variants`, `assets`,
//! `product_types`, `collections` and `price_lists`, `orders`, `webhooks`) has its router,
//! representations and input rules.

mod kernel;
mod rels;

mod assets;
mod collections;
mod credentials;
mod docs;
mod ops;
mod orders;
pub mod present;
mod price_lists;
mod product_types;
mod products;
mod root;
mod sellers;
mod shops;
mod urls;
mod variants;
mod webhooks;

mod app;
mod state;

pub use app::{ops_router, router};
pub use assets::upload_body_limit;
pub use kernel::metrics::Metrics;
pub use kernel::rate_limit::{RateLimitConfig, RateLimiter};
pub use state::{ApiConfig, AppState};
