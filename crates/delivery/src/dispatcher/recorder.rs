//! Records finished attempts in batches: one transaction for whatever finished meanwhile
//! (a few statements whatever its size), so that a fast target is not held back by a
//! commit per delivery.

use std::sync::Arc;
use std::time::Duration;

use domain::Timestamp;
use domain::webhook::{
    AttemptOutcome, RETRY_AFTER_MAX_SECS, SubscriptionStatus, Trigger, retry_delay_secs,
};
use storage::webhook_deliveries::{self, AttemptRecord, Finished, Next};
use storage::webhooks::{self, Outcome};
use tokio::sync::mpsc;

use super::{Attempted, Dispatcher};

/// Attempts recorded in one transaction at most.
const BATCH: usize = 256;
/// Tries at recording a batch before its deliveries are left to their leases: when those
/// run out, they are taken over, noted as interrupted and sent again.
const TRIES: u32 = 3;

pub(super) async fn run(
    dispatcher: Arc<Dispatcher>,
    mut finished: mpsc::UnboundedReceiver<Attempted>,
) {
    let mut batch = Vec::with_capacity(BATCH);
    while finished.recv_many(&mut batch, BATCH).await > 0 {
        // No waiting for company: a lane's slot is held until its attempt is recorded,
        // and under load attempts gather while the previous batch commits.
        for tried in 1..=TRIES {
            match record(&dispatcher, &batch).await {
                Ok(()) => break,
                Err(err) if tried == TRIES => tracing::warn!(
                    error = %err,
                    attempts = batch.len(),
                    "cannot record webhook attempts; their deliveries are sent again when their claims run out"
                ),
                Err(_) => tokio::time::sleep(Duration::from_millis(50 * u64::from(tried))).await,
            }
        }
        for attempted in batch.drain(..) {
            dispatcher.recorded(&attempted);
        }
    }
}

/// What an attempt means for its delivery and its subscription.
struct Judgement {
    outcome: AttemptOutcome,
    next: Next,
    /// Until when the subscription sends nothing (its target answered 429 or 503 with
    /// `Retry-After`).
    pause_until: Option<Timestamp>,
}

fn judge(attempted: &Attempted, jitter: f64) -> Judgement {
    let answer = &attempted.answer;
    let at = attempted.at;
    let delivery = &attempted.claimed.delivery;
    let scheduled = delivery.trigger == Trigger::Scheduled;
    let number = u32::try_from(delivery.attempts + 1).unwrap_or(u32::MAX);
    let retry_after = answer.retry_after_secs(at.as_secs());
    let (outcome, next) = match (&answer.error, answer.status) {
        (None, _) => (AttemptOutcome::Delivered, Next::Succeeded),
        (Some(_), Some(410)) => (AttemptOutcome::Gone, Next::Park),
        (Some(_), _) => {
            let delay = scheduled
                .then(|| retry_delay_secs(number, jitter, retry_after))
                .flatten();
            match delay {
                Some(secs) => (
                    AttemptOutcome::Failed { exhausted: false },
                    Next::RetryAt(at.plus_secs(secs)),
                ),
                None => (
                    AttemptOutcome::Failed {
                        exhausted: scheduled,
                    },
                    Next::Exhausted,
                ),
            }
        }
    };
    let pause_until = match (answer.status, retry_after) {
        (Some(429 | 503), Some(secs)) => Some(at.plus_secs(secs.min(RETRY_AFTER_MAX_SECS))),
        _ => None,
    };
    Judgement {
        outcome,
        next,
        pause_until,
    }
}

/// Records a batch and its consequences in one transaction; stops the lanes of
/// subscriptions that are no longer active.
async fn record(dispatcher: &Arc<Dispatcher>, batch: &[Attempted]) -> storage::Result<()> {
    let judgements: Vec<Judgement> = batch.iter().map(|a| judge(a, super::jitter())).collect();
    let finished: Vec<Finished<'_>> = batch
        .iter()
        .zip(&judgements)
        .map(|(attempted, judgement)| {
            let answer = &attempted.answer;
            Finished {
                delivery: &attempted.claimed.delivery,
                attempt: AttemptRecord {
                    trigger: attempted.claimed.delivery.trigger,
                    url: &attempted.claimed.webhook().url,
                    status_code: answer.status.map(i64::from),
                    duration_ms: i64::try_from(answer.duration.as_millis()).unwrap_or(i64::MAX),
                    error_class: answer.error.as_ref().map(|(class, _)| *class),
                    error: answer.error.as_ref().map(|(_, message)| message.as_str()),
                    at: attempted.at,
                },
                next: judgement.next,
            }
        })
        .collect();
    let webhook_ids: Vec<i64> = batch.iter().map(|a| a.claimed.webhook().id).collect();
    let now = dispatcher.clock.now();
    let mut tx = dispatcher.db.begin_lease_work().await?;
    let locked = webhooks::lock_in_id_order(&mut tx, &webhook_ids).await?;
    let recorded =
        webhook_deliveries::finish(&mut tx, &dispatcher.config.node, &finished, now).await?;
    // Only attempts made under a claim still held count: an attempt that outlasted its
    // lease was taken over, noted as interrupted, and made again.
    let outcomes: Vec<Outcome<'_>> = finished
        .iter()
        .zip(&judgements)
        .filter(|(f, _)| recorded.contains(&f.delivery.id))
        .map(|(f, judgement)| Outcome {
            webhook_id: f.delivery.webhook_id,
            outcome: judgement.outcome,
            error: f.attempt.error,
            pause_until: judgement.pause_until,
            at: f.attempt.at,
        })
        .collect();
    let changed =
        webhooks::record_outcomes(&mut tx, &locked, &outcomes, dispatcher.config.policy, now)
            .await?;
    tx.commit().await?;
    for (webhook, health) in changed {
        if health.status != SubscriptionStatus::Active {
            dispatcher.halt(webhook).await;
        }
    }
    Ok(())
}
