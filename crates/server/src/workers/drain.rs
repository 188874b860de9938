//! The loop of a worker that drains a queue in the database: a pass at once while the
//! last one found work, a pause when it found none or failed, and the cancellation token
//! looked at between passes.

use std::future::Future;
use std::time::Duration;

use services::ServiceResult;
use tokio_util::sync::CancellationToken;

/// Runs `pass` (which answers whether it found work) until `cancel`; `what` names the
/// work in the warning a failed pass logs.
pub async fn drain<F, Fut>(what: &str, idle: Duration, cancel: CancellationToken, mut pass: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = ServiceResult<bool>>,
{
    loop {
        let busy = match pass().await {
            Ok(found) => found,
            Err(err) => {
                tracing::warn!(error = %err, "cannot run {what}");
                false
            }
        };
        if cancel.is_cancelled() {
            return;
        }
        if !busy {
            tokio::select! {
                () = cancel.cancelled() => return,
                () = tokio::time::sleep(idle) => {}
            }
        }
    }
}
