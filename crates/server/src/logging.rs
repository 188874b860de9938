//! Structured logs to standard error, as text or JSON, filtered by `COMMERCE_LOG`
//! (default `info`, without PostgreSQL's routine notices such as a migration's "already
//! exists, skipping").

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

const DEFAULT_FILTER: &str = "info,sqlx::postgres::notice=warn";

pub fn init(format: LogFormat) {
    let filter =
        EnvFilter::try_from_env("COMMERCE_LOG").unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // A second initialisation (tests start several servers in one process) is harmless.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}
