//! Webhook delivery: the dispatcher that turns the event outbox into signed HTTP POSTs to
//! subscribed targets, with verification pings, retries, failure states and claims that
//! several nodes share; and the guard that keeps targets off private networks.

pub mod dispatcher;
pub mod request;
pub mod signature;
pub mod ssrf;
pub mod tls;
pub mod verify;

pub use dispatcher::{Dispatcher, DispatcherConfig};
