//! Housekeeping: deletes rows that have run out and that nothing reads again — idempotency
//! keys past their 24 hours, expired sign-in sessions. A singleton: one node's sweep is
//! enough, and nodes sweeping at once would only contend for the same rows.

use std::sync::Arc;
use std::time::Duration;

use domain::Clock;
use storage::Database;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

/// Sweeps every `period` (the first time at once) until `cancel`.
pub async fn housekeeping(
    db: Database,
    clock: Arc<dyn Clock>,
    period: Duration,
    cancel: CancellationToken,
) {
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = cancel.cancelled() => return,
            _ = interval.tick() => sweep(&db, clock.as_ref()).await,
        }
    }
}

async fn sweep(db: &Database, clock: &dyn Clock) {
    let now = clock.now();
    match storage::idempotency::purge_expired(db, now).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(deleted = n, "expired idempotency keys deleted"),
        Err(err) => tracing::warn!(error = %err, "could not delete expired idempotency keys"),
    }
    match storage::web_sessions::purge_expired(db, now).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(deleted = n, "expired sign-in sessions deleted"),
        Err(err) => tracing::warn!(error = %err, "could not delete expired sign-in sessions"),
    }
}
