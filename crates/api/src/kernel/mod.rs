//! The HTTP kernel: the mechanisms every endpoint shares, each written once.

pub mod auth;
pub mod conditional;
pub mod error;
mod error_code;
pub mod framework_errors;
pub mod hal_response;
pub mod idempotency;
pub mod input;
pub mod list;
pub mod metrics;
pub mod observe;
pub mod present;
pub mod query;
pub mod query_count;
pub mod rate_limit;
pub mod request_id;
pub mod revalidation;
pub mod state;
pub mod text_guard;
pub mod urls;
pub mod versioning;
