//! The HTTP API. `kernel` holds what every endpoint shares (the state, addresses, errors,
//! JSON input, lists, conditional requests, authentication, rate limits, idempotency,
//! metrics); `area` is the toolkit each area (`sellers`, `shops`, the catalog's
//! `products`, `variants`, `assets`, `product_types`, `collections` and `price_lists`,
//! `orders`, `webhooks`, `credentials`) declares itself to, in its own folder, with its
//! routes, root links, rels, representations and input rules.

mod area;
mod kernel;
mod openapi;
mod rels;

mod assets;
mod authorization;
mod batches;
mod catalog;
mod collections;
mod credentials;
mod customer_account;
mod customers;
mod docs;
mod exchange_rates;
mod ops;
mod order_batches;
mod order_documents;
mod orders;
mod payment_methods;
mod payments;
mod price_lists;
mod product_types;
mod products;
mod root;
mod sellers;
mod shipping_tables;
mod shop_admins;
mod shops;
mod subscription_fees;
mod subscription_purchases;
mod variants;
mod webhooks;

mod app;

pub use app::{ops_router, router};
pub use assets::upload_body_limit;
pub use kernel::metrics::Metrics;
pub use kernel::observe::{ObserveResponse, Observed, Observer};
pub use kernel::present::Presenter;
pub use kernel::rate_limit::{RateLimitConfig, RateLimiter, SharedLimits};
pub use kernel::state::{ApiConfig, AppState};
