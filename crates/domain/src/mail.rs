//! Transactional mail without I/O: where a mail of the outbox stands, and when a mail
//! that could not be handed to the SMTP server is tried again.

use crate::text_enum;

text_enum! {
    /// A mail of the outbox: `pending` until the SMTP server accepted it (`sent`) or its
    /// attempts ran out (`failed`, kept for an operator to read).
    pub enum MailStatus {
        Pending => "pending",
        Sent => "sent",
        Failed => "failed",
    }
}

/// Seconds after a failed attempt at which the mail is tried again: 1 min, 5 min, 30 min,
/// 2 h and 6 h after the first, second, … failure; after the last, it is given up. No
/// jitter: one worker sends mail at a time, so retries never arrive at a server in a herd.
pub const RETRY_DELAYS_SECS: &[i64] = &[60, 300, 1_800, 7_200, 21_600];

/// The delay before the attempt after attempt number `attempts` (1 for the first) failed,
/// or `None` when the schedule is exhausted and the mail is given up.
pub fn retry_delay_secs(attempts: i64) -> Option<i64> {
    let index = usize::try_from(attempts.checked_sub(1)?).ok()?;
    RETRY_DELAYS_SECS.get(index).copied()
}

/// The attempts a mail gets in all: the first and one per retry delay.
pub const MAX_ATTEMPTS: i64 = RETRY_DELAYS_SECS.len() as i64 + 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_follow_the_schedule_then_stop() {
        let delays: Vec<Option<i64>> = (0..=7).map(retry_delay_secs).collect();
        assert_eq!(
            delays,
            [
                None,
                Some(60),
                Some(300),
                Some(1_800),
                Some(7_200),
                Some(21_600),
                None,
                None
            ]
        );
        assert_eq!(MAX_ATTEMPTS, 6);
        assert_eq!(retry_delay_secs(-1), None);
        assert_eq!(retry_delay_secs(i64::MIN), None);
    }

    #[test]
    fn statuses_travel_as_text() {
        assert_eq!("failed".parse::<MailStatus>(), Ok(MailStatus::Failed));
        assert_eq!(MailStatus::Pending.to_string(), "pending");
        assert!("queued".parse::<MailStatus>().is_err());
    }
}
