//! The HTTP API. `kernel` holds what every endpoint shares (errors, JSON input, lists,
//! conditional requests, authentication, rate limits, idempotency, metrics); each area
//! (`root`, `sellers`, `shops`) has its router, representations and input rules.

mod kernel;
mod rels;

mod credentials;
mod docs;
mod events;
mod ops;
mod root;
mod sellers;
mod shops;
mod urls;

mod app;
mod state;

pub use app::router;
pub use kernel::metrics::Metrics;
pub use kernel::rate_limit::{RateLimitConfig, RateLimiter};
pub use state::{ApiConfig, AppState};
