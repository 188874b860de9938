//! Subscription renewals: bills the due cycles of active purchases
//! (`services::subscription_renewals`). A singleton: each cycle is billed once
//! whichever node runs it, but one node's scan is enough.

use std::sync::Mutex;
use std::time::Duration;

use services::Services;
use services::subscription_renewals::{PASS, run_pass};
use storage::secret_box::SecretBox;
use storage::subscription_purchases::Due;
use tokio_util::sync::CancellationToken;

use super::drain::drain;

/// How often due purchases are looked for.
pub const POLL: Duration = Duration::from_millis(500);

/// Renews until `cancel`: pass after pass while they find work (a missed run catches up
/// one cycle a pass), then a pause.
pub async fn renew_subscriptions(
    services: Services,
    secret_box: SecretBox,
    cancel: CancellationToken,
) {
    // Where the scan goes on from while passes fill up.
    let after: Mutex<Option<Due>> = Mutex::new(None);
    let after = &after;
    let (services, secret_box) = (&services, &secret_box);
    drain("subscription renewals", POLL, cancel, || async move {
        let from = after.lock().unwrap_or_else(|e| e.into_inner()).take();
        let (renewed, last) = run_pass(services, secret_box, from.as_ref()).await?;
        let full = i64::try_from(renewed.seen).unwrap_or(i64::MAX) >= PASS;
        if full {
            *after.lock().unwrap_or_else(|e| e.into_inner()) = last;
        }
        if renewed.billed + renewed.skipped + renewed.failed_attempts + renewed.cancelled > 0 {
            tracing::info!(
                billed = renewed.billed,
                skipped = renewed.skipped,
                failed_attempts = renewed.failed_attempts,
                cancelled = renewed.cancelled,
                "subscriptions renewed"
            );
            return Ok(true);
        }
        Ok(full)
    })
    .await;
}
