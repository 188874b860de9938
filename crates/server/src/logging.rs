//! Structured logs to standard error, as text or JSON, filtered by `COMMERCE_LOG`
//! (default `info`, without PostgreSQL's routine notices such as a migration's "already
//! exists, skipping"). Colours only on a terminal: logs piped to a file or a collector
//! carry no escape codes.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

const DEFAULT_FILTER: &str = "info,sqlx::postgres::notice=warn";

pub fn init(format: LogFormat) {
    let filter =
        EnvFilter::try_from_env("COMMERCE_LOG").unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colours(std::io::stderr().is_terminal()))
        .with_writer(std::io::stderr);
    // A second initialisation (tests start several servers in one process) is harmless.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

/// Whether log lines are coloured: only on a terminal, and not when `NO_COLOR` says no
/// (<https://no-color.org>).
fn colours(on_a_terminal: bool) -> bool {
    on_a_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
