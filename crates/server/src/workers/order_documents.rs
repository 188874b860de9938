//! Order documents: generates the PDF of each pending invoice or packing slip off the
//! request path. A singleton: documents are rendered one at a time on one node, and the
//! write that stores a file only takes a document still pending, so a node that lost its
//! lease mid-render and the one that took over never store one twice.

use std::time::Duration;

use services::Services;
use services::order_documents::generate_due;
use tokio_util::sync::CancellationToken;

use super::drain::drain;

/// How often pending documents are looked for.
pub const POLL: Duration = Duration::from_millis(250);
/// Documents rendered in one pass before the worker looks at its token again.
const PASS: i64 = 16;

/// Generates due documents until `cancel`.
pub async fn generate_documents(services: Services, cancel: CancellationToken) {
    drain("the pending order documents", POLL, cancel, || async {
        generate_due(&services, PASS).await.map(|tried| tried > 0)
    })
    .await;
}
