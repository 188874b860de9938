//! Batch jobs: does the unfinished jobs' items off the request path, a chunk at a time,
//! oldest job first. A singleton: the progress a chunk saves is checked against the one it
//! started from, so a node that lost its lease mid-chunk and the one that took over never
//! both save it (and each item's move is idempotent).

use std::time::Duration;

use services::Services;
use services::batches::run_next;
use tokio_util::sync::CancellationToken;

use super::drain::drain;

/// How often unfinished jobs are looked for.
pub const POLL: Duration = Duration::from_millis(250);

/// Runs jobs until `cancel`, looking at it between chunks.
pub async fn run_batches(services: Services, cancel: CancellationToken) {
    drain("the batch jobs", POLL, cancel, || run_next(&services)).await;
}
