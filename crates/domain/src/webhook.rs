//! Webhook subscriptions: their states, what each delivery attempt does to them, and when
//! a failed delivery is tried again.

use crate::text_enum;

text_enum! {
    /// Where a subscription stands (the spec's status table).
    pub enum SubscriptionStatus {
        Pending => "pending",
        Active => "active",
        FailedActivation => "failed_activation",
        Failed => "failed",
        Disabled => "disabled",
    }
}

text_enum! {
    /// How deliveries authenticate to the target.
    pub enum AuthType {
        None => "none",
        Basic => "basic",
    }
}

text_enum! {
    /// Whether deliveries about one resource wait for the earlier ones to finish.
    pub enum Ordering {
        None => "none",
        PerResource => "per_resource",
    }
}

text_enum! {
    pub enum DeliveryStatus {
        /// Waiting for its next attempt (or for its subscription to be active again).
        Pending => "pending",
        Succeeded => "succeeded",
        /// Every scheduled attempt failed.
        Failed => "failed",
        /// Never sent: newer deliveries filled its subscription's backlog while the
        /// subscription was not active. A replay or a redelivery sends it.
        Skipped => "skipped",
    }
}

text_enum! {
    /// What started an attempt.
    pub enum Trigger {
        Scheduled => "scheduled",
        Manual => "manual",
        Replay => "replay",
    }
}

text_enum! {
    /// Why an attempt failed.
    pub enum ErrorClass {
        /// The target answered with a status other than 2xx.
        Status => "status",
        Timeout => "timeout",
        Connect => "connect",
        /// The target's address is private, loopback or link-local.
        Blocked => "blocked",
        /// The target answered with a redirect, which is never followed.
        Redirect => "redirect",
        /// The node sending it stopped before the answer was recorded.
        Interrupted => "interrupted",
        Other => "other",
    }
}

impl SubscriptionStatus {
    /// Whether new events are kept for the subscription (delivered once it is active):
    /// by every subscription but one that never consented by answering its verification.
    pub const fn receives_events(self) -> bool {
        !matches!(self, SubscriptionStatus::FailedActivation)
    }

    /// Whether its deliveries are parked: set aside, out of the dispatcher's way, until
    /// someone acts (reactivates the subscription or gives it a new URL), and bounded by
    /// its backlog. A pending subscription's deliveries just wait for its verification.
    pub const fn parks_deliveries(self) -> bool {
        matches!(
            self,
            SubscriptionStatus::Failed
                | SubscriptionStatus::Disabled
                | SubscriptionStatus::FailedActivation
        )
    }

    /// Whether `PUT /webhooks/{id}/disable` applies: to a subscription whose target once
    /// answered its verification. A pending or unverified one cannot be disabled, or its
    /// reactivation would make it active without the target ever consenting.
    pub const fn can_disable(self) -> bool {
        matches!(
            self,
            SubscriptionStatus::Active | SubscriptionStatus::Failed
        )
    }

    /// Whether `PUT /webhooks/{id}/reactivate` applies.
    pub const fn can_reactivate(self) -> bool {
        matches!(
            self,
            SubscriptionStatus::Failed | SubscriptionStatus::Disabled
        )
    }
}

/// When a subscription gives up on a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailurePolicy {
    /// Consecutive failed attempts that make a subscription `failed`.
    pub max_errors: u32,
    /// Consecutive deliveries that ran out of attempts that make it `failed`.
    pub max_exhausted: u32,
}

impl Default for FailurePolicy {
    fn default() -> Self {
        Self {
            max_errors: 100,
            max_exhausted: 3,
        }
    }
}

/// A subscription's failure counters and status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Health {
    pub status: SubscriptionStatus,
    pub error_count: u32,
    pub exhausted_count: u32,
}

/// How one attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// A 2xx answer.
    Delivered,
    /// `410 Gone`: the target asks never to be called again.
    Gone,
    /// Any other answer, or none.
    Failed {
        /// The delivery has no attempt left.
        exhausted: bool,
    },
}

impl Health {
    /// The state after an attempt. Only an active subscription changes status; the
    /// counters move whatever the status (a late answer still counts).
    pub fn after(self, outcome: AttemptOutcome, policy: FailurePolicy) -> Health {
        let mut next = self;
        match outcome {
            AttemptOutcome::Delivered => {
                next.error_count = 0;
                next.exhausted_count = 0;
            }
            AttemptOutcome::Gone => {
                next.error_count = next.error_count.saturating_add(1);
                if next.status == SubscriptionStatus::Active {
                    next.status = SubscriptionStatus::Disabled;
                }
            }
            AttemptOutcome::Failed { exhausted } => {
                next.error_count = next.error_count.saturating_add(1);
                if exhausted {
                    next.exhausted_count = next.exhausted_count.saturating_add(1);
                }
                let over = next.error_count >= policy.max_errors
                    || next.exhausted_count >= policy.max_exhausted;
                if over && next.status == SubscriptionStatus::Active {
                    next.status = SubscriptionStatus::Failed;
                }
            }
        }
        next
    }

    /// The state after `PUT /webhooks/{id}/reactivate`.
    pub fn reactivated(self) -> Health {
        Health {
            status: SubscriptionStatus::Active,
            error_count: 0,
            exhausted_count: 0,
        }
    }
}

/// How many parked deliveries a subscription keeps by default: when more are parked, the
/// oldest are skipped, so that a subscription left failed or disabled holds a bounded
/// backlog, and its reactivation a bounded burst.
pub const DEFAULT_MAX_BACKLOG: u32 = 10_000;

/// Seconds after the first attempt's failure at which each retry happens: immediately,
/// then 10 s, 1 min, 5 min, 30 min, 2 h, 6 h and 12 h (DESIGN §7).
pub const RETRY_DELAYS_SECS: &[i64] = &[10, 60, 300, 1_800, 7_200, 21_600, 43_200];

/// How long a `Retry-After` may hold a delivery back at most.
pub const RETRY_AFTER_MAX_SECS: i64 = 3_600;

/// The delay before the attempt after attempt number `attempts` (1 for the first), or
/// `None` when the schedule is exhausted. `jitter` in `[0, 1)` spreads each delay over
/// ±20% so that retries of many deliveries do not arrive together; a `Retry-After`
/// lengthens the delay (up to an hour), never shortens it.
pub fn retry_delay_secs(attempts: u32, jitter: f64, retry_after: Option<i64>) -> Option<i64> {
    let index = usize::try_from(attempts.checked_sub(1)?).ok()?;
    let base = *RETRY_DELAYS_SECS.get(index)?;
    let spread = (base as f64 * (0.8 + 0.4 * jitter.clamp(0.0, 1.0))).round() as i64;
    let asked = retry_after.unwrap_or(0).clamp(0, RETRY_AFTER_MAX_SECS);
    Some(spread.max(asked))
}

/// The attempts a delivery gets in all: the first and one per retry delay.
pub fn max_attempts() -> u32 {
    u32::try_from(RETRY_DELAYS_SECS.len()).unwrap_or(u32::MAX) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn active() -> Health {
        Health {
            status: SubscriptionStatus::Active,
            error_count: 0,
            exhausted_count: 0,
        }
    }

    #[test]
    fn only_a_verified_subscription_is_disabled_or_reactivated() {
        use SubscriptionStatus::*;
        for status in [Pending, FailedActivation] {
            assert!(
                !status.can_disable() && !status.can_reactivate(),
                "{status}"
            );
        }
        assert!(Active.can_disable() && Failed.can_disable());
        assert!(Disabled.can_reactivate() && Failed.can_reactivate());
    }

    #[test]
    fn retries_follow_the_schedule_with_jitter_and_retry_after() {
        assert_eq!(retry_delay_secs(1, 0.5, None), Some(10));
        assert_eq!(retry_delay_secs(1, 0.0, None), Some(8));
        assert_eq!(retry_delay_secs(1, 0.999_999, None), Some(12));
        assert_eq!(retry_delay_secs(2, 0.5, Some(120)), Some(120));
        assert_eq!(retry_delay_secs(2, 0.5, Some(5)), Some(60));
        assert_eq!(
            retry_delay_secs(1, 0.5, Some(999_999)),
            Some(RETRY_AFTER_MAX_SECS)
        );
        assert_eq!(retry_delay_secs(7, 0.5, None), Some(43_200));
        assert_eq!(retry_delay_secs(8, 0.5, None), None);
        assert_eq!(retry_delay_secs(0, 0.5, None), None);
        assert_eq!(max_attempts(), 8);
    }

    #[test]
    fn every_consenting_subscription_keeps_events_and_stalled_ones_park_them() {
        let of = |keeps: fn(SubscriptionStatus) -> bool| -> Vec<&str> {
            SubscriptionStatus::ALL
                .iter()
                .filter(|s| keeps(**s))
                .map(|s| s.as_str())
                .collect()
        };
        assert_eq!(
            of(SubscriptionStatus::receives_events),
            ["pending", "active", "failed", "disabled"]
        );
        assert_eq!(
            of(SubscriptionStatus::parks_deliveries),
            ["failed_activation", "failed", "disabled"]
        );
    }

    #[test]
    fn failures_count_and_reset() {
        let policy = FailurePolicy {
            max_errors: 3,
            max_exhausted: 2,
        };
        let h = active()
            .after(AttemptOutcome::Failed { exhausted: false }, policy)
            .after(AttemptOutcome::Failed { exhausted: false }, policy);
        assert_eq!((h.status, h.error_count), (SubscriptionStatus::Active, 2));
        let h = h.after(AttemptOutcome::Delivered, policy);
        assert_eq!(h.error_count, 0);
        let h = (0..3).fold(h, |h, _| {
            h.after(AttemptOutcome::Failed { exhausted: false }, policy)
        });
        assert_eq!(h.status, SubscriptionStatus::Failed);
        let h = h.reactivated();
        assert_eq!(h, active());
        let h = active()
            .after(AttemptOutcome::Failed { exhausted: true }, policy)
            .after(AttemptOutcome::Delivered, policy)
            .after(AttemptOutcome::Failed { exhausted: true }, policy);
        assert_eq!(
            h.status,
            SubscriptionStatus::Active,
            "a success in between resets"
        );
        let h = h.after(AttemptOutcome::Failed { exhausted: true }, policy);
        assert_eq!(h.status, SubscriptionStatus::Failed);
        let gone = active().after(AttemptOutcome::Gone, policy);
        assert_eq!(gone.status, SubscriptionStatus::Disabled);
        // A paused subscription's counters move, its status does not.
        let disabled = Health {
            status: SubscriptionStatus::Disabled,
            ..active()
        };
        let h = (0..5).fold(disabled, |h, _| {
            h.after(AttemptOutcome::Failed { exhausted: true }, policy)
        });
        assert_eq!(h.status, SubscriptionStatus::Disabled);
    }

    /// Random answer sequences against a plain model of the spec's rules.
    #[test]
    fn random_answer_sequences_match_the_model() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2_000 {
            let policy = FailurePolicy {
                max_errors: 1 + (next() % 6) as u32,
                max_exhausted: 1 + (next() % 4) as u32,
            };
            let mut health = active();
            let (mut status, mut errors, mut exhausted) = ("active", 0_u32, 0_u32);
            for _ in 0..(next() % 30) {
                let outcome = match next() % 10 {
                    0 => AttemptOutcome::Gone,
                    1..=4 => AttemptOutcome::Delivered,
                    n => AttemptOutcome::Failed { exhausted: n == 9 },
                };
                if next() % 25 == 0 {
                    health = health.reactivated();
                    (status, errors, exhausted) = ("active", 0, 0);
                }
                health = health.after(outcome, policy);
                match outcome {
                    AttemptOutcome::Delivered => (errors, exhausted) = (0, 0),
                    AttemptOutcome::Gone => {
                        errors += 1;
                        if status == "active" {
                            status = "disabled";
                        }
                    }
                    AttemptOutcome::Failed { exhausted: spent } => {
                        errors += 1;
                        exhausted += u32::from(spent);
                        if status == "active"
                            && (errors >= policy.max_errors || exhausted >= policy.max_exhausted)
                        {
                            status = "failed";
                        }
                    }
                }
                assert_eq!(health.status.as_str(), status);
                assert_eq!(
                    (health.error_count, health.exhausted_count),
                    (errors, exhausted)
                );
            }
        }
    }
}
