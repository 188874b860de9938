//! The payments sweep: gives up charges whose gateway's answer was lost and makes the
//! refunds that are due again (`services::orders::payments::sweep`). A singleton: the rows are
//! settled under their order's lock anyway, but one node's sweep is enough.

use std::time::Duration;

use services::Services;
use storage::secret_box::SecretBox;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

/// Sweeps every `period` (the first time at once) until `cancel`.
pub async fn settle_payments(
    services: Services,
    secret_box: SecretBox,
    period: Duration,
    cancel: CancellationToken,
) {
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = cancel.cancelled() => return,
            _ = interval.tick() => sweep(&services, &secret_box).await,
        }
    }
}

async fn sweep(services: &Services, secret_box: &SecretBox) {
    match services::orders::payments::sweep::sweep(services, secret_box).await {
        Ok(swept) if swept == Default::default() => {}
        Ok(swept) => tracing::info!(
            abandoned = swept.abandoned,
            refunds_settled = swept.refunds_settled,
            refunds_postponed = swept.refunds_postponed,
            "payments settled"
        ),
        Err(err) => tracing::warn!(error = %err, "could not settle payments"),
    }
}
