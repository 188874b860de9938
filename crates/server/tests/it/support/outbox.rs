//! Waits that end on a condition, not a fixed time: the webhook outbox says at once which
//! deliveries exist and which are done, so a test can tell when the dispatcher has caught
//! up before asserting that nothing more arrived.

use std::future::Future;
use std::time::{Duration, Instant};

use super::{TestDb, TestServer};

/// How long a condition may take before the test fails.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// How often a condition is checked again.
const POLL: Duration = Duration::from_millis(25);

/// Checks `done` until it answers `Some`, failing the test after [`DEADLINE`].
pub async fn eventually<T, F, Fut>(what: &str, mut done: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(value) = done().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(POLL).await;
    }
}

impl TestDb {
    /// Deliveries (of one subscription, or of all) that are due at `now_micros` and not
    /// finished: pending and not parked (a parked one is due after every time), including
    /// those claimed and in flight.
    pub async fn due_deliveries(&self, webhook: Option<i64>, now_micros: i64) -> i64 {
        let of_webhook = webhook.map_or(String::new(), |id| format!(" AND webhook_id = {id}"));
        self.scalar(&format!(
            "SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending' \
             AND next_attempt_on <= {now_micros}{of_webhook}"
        ))
        .await
    }
}

impl TestServer {
    /// Waits until the dispatcher has finished every delivery due on the server's clock
    /// (sent, answered and recorded), so that what a receiver got is all it gets until
    /// something changes: events fan out into deliveries in their own transaction, so a
    /// delivery wrongly made is in the outbox before this returns, and holds it up.
    pub async fn deliveries_settled(&self) {
        eventually("the due webhook deliveries to be finished", || async {
            let now = self.clock.now().as_micros();
            (self.db.due_deliveries(None, now).await == 0).then_some(())
        })
        .await;
    }
}
