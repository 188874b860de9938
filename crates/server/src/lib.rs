//! The `commerce` binary as a library: the CLI, configuration, the serving process with
//! its background work and graceful shutdown, and the operator commands (migrate, seed,
//! apps, users). The integration tests and the benchmarks start servers through it.

mod accounts;
pub mod cli;
pub mod config;
pub mod encryption_keys;
mod logging;
pub mod seed;
pub mod serve;
mod succession;
pub mod workers;

pub use config::{NodeRole, ServeConfig};
pub use serve::{RunningServer, start};
