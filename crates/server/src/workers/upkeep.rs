//! Tasks that keep one node's view of shared state fresh — signing keys, encryption keys,
//! revoked tokens — and write out what it notes per request (personal token use). They
//! run on every node whose role needs them, each until its token is cancelled.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use oauth::AuthService;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

/// Calls `work` every `period` (the first time at once unless `skip_first`) until `cancel`.
async fn every<F, Fut>(period: Duration, skip_first: bool, cancel: CancellationToken, work: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
    if skip_first {
        interval.tick().await;
    }
    loop {
        tokio::select! {
            () = cancel.cancelled() => return,
            _ = interval.tick() => work().await,
        }
    }
}

/// Every node re-reads the signing keys each minute, so a rotated key starts signing and
/// a retired one stops verifying everywhere without a restart.
pub async fn refresh_signing_keys(auth: Arc<AuthService>, cancel: CancellationToken) {
    every(Duration::from_secs(60), true, cancel, || async {
        if let Err(err) = auth.refresh_keys().await {
            tracing::warn!(error = %err, "could not refresh the signing keys");
        }
    })
    .await;
}

/// A key file is re-read every second, so that `commerce keys rotate-encryption-key`
/// reaches a running server before it reseals anything; the signing keys, resealed with
/// the new key, are then opened again.
pub async fn reload_encryption_keys(auth: Arc<AuthService>, cancel: CancellationToken) {
    every(ENCRYPTION_KEY_RELOAD, false, cancel, || async {
        match auth.secret_box().reload().await {
            Ok(false) => {}
            Ok(true) => {
                tracing::info!(keys = ?auth.secret_box(), "encryption keys reloaded");
                if let Err(err) = auth.refresh_keys().await {
                    tracing::warn!(error = %err, "could not reopen the signing keys");
                }
            }
            Err(err) => tracing::warn!(error = %err, "could not reload the encryption keys"),
        }
    })
    .await;
}

/// How often a server re-reads its key file (`commerce keys` waits longer than this).
pub const ENCRYPTION_KEY_RELOAD: Duration = Duration::from_secs(1);

/// Tokens revoked on other nodes are refused here within a quarter of a second.
pub async fn refresh_revocations(auth: Arc<AuthService>, cancel: CancellationToken) {
    every(Duration::from_millis(250), false, cancel, || async {
        if let Err(err) = auth.refresh_revocations().await {
            tracing::warn!(error = %err, "could not refresh the revoked tokens");
        }
    })
    .await;
}

/// When personal tokens were last used is written out every ten seconds, not per
/// request, and once more when the node stops.
pub async fn record_token_use(auth: Arc<AuthService>, cancel: CancellationToken) {
    let flush = || async {
        if let Err(err) = auth.flush_token_use().await {
            tracing::warn!(error = %err, "could not record personal token use");
        }
    };
    every(Duration::from_secs(10), false, cancel, flush).await;
    flush().await;
}
