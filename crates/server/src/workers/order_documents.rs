//! Order documents: generates the PDF of each pending invoice or packing slip off the
//! request path. A singleton: documents are rendered one at a time on one node, and the
//! write that stores a file only takes a document still pending, so a node that lost its
//! lease mid-render and the one that took over never store one twice.

use std::time::Duration;

use services::Services;
use services::order_documents::generate_due;
use tokio_util::sync::CancellationToken;

/// How often pending documents are looked for.
pub const POLL: Duration = Duration::from_millis(250);
/// Documents rendered in one pass before the worker looks at its token again.
const PASS: i64 = 16;

/// Generates due documents until `cancel`.
pub async fn generate_documents(services: Services, cancel: CancellationToken) {
    loop {
        let busy = match generate_due(&services, PASS).await {
            Ok(tried) => tried > 0,
            Err(err) => {
                tracing::warn!(error = %err, "cannot generate the pending order documents");
                false
            }
        };
        if cancel.is_cancelled() {
            return;
        }
        if !busy {
            tokio::select! {
                () = cancel.cancelled() => return,
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }
}
