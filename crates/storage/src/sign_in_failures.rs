//! Failed sign-ins counted per user name and per client address, so the password grant
//! and the login page slow guessing down without locking anyone out for good.

use domain::Timestamp;

use crate::db::{Database, Exec, Tx};
use crate::error::Result;

/// When `keys` may be tried again, if any of them is locked now.
pub async fn locked_until(
    db: &Database,
    keys: &[&str],
    now: Timestamp,
) -> Result<Option<Timestamp>> {
    let mut latest: Option<i64> = None;
    for key in keys {
        let until: Option<Option<i64>> = with_conn!(Exec::Db(db), |c| {
            sqlx::query_scalar("SELECT locked_until FROM sign_in_failures WHERE key = $1")
                .bind(*key)
                .fetch_optional(c)
                .await
        })?;
        if let Some(Some(until)) = until
            && until > now.as_micros()
        {
            latest = Some(latest.map_or(until, |l| l.max(until)));
        }
    }
    Ok(latest.map(Timestamp::from_micros))
}

/// Counts a failure for `key` within a window of `window_secs`; from the `threshold`-th
/// failure on, the key is locked for `lock_secs`, doubling with each further failure (at
/// most an hour). Returns the failures counted in the window.
pub async fn record_failure(
    tx: &mut Tx,
    key: &str,
    now: Timestamp,
    window_secs: i64,
    threshold: i64,
    lock_secs: i64,
) -> Result<i64> {
    let window_floor = now.plus_secs(-window_secs).as_micros();
    let failures: i64 = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(
            "INSERT INTO sign_in_failures (key, failures, window_started) VALUES ($1, 1, $2) \
             ON CONFLICT (key) DO UPDATE SET \
             failures = CASE WHEN sign_in_failures.window_started < $3 THEN 1 ELSE sign_in_failures.failures + 1 END, \
             window_started = CASE WHEN sign_in_failures.window_started < $3 THEN $2 \
                              ELSE sign_in_failures.window_started END \
             RETURNING failures",
        )
        .bind(key)
        .bind(now.as_micros())
        .bind(window_floor)
        .fetch_one(c)
        .await
    })?;
    if failures >= threshold {
        let doublings = u32::try_from((failures - threshold).min(12)).unwrap_or(12);
        let lock = (lock_secs.saturating_mul(1 << doublings)).min(3600);
        with_conn!(Exec::Tx(tx), |c| {
            sqlx::query("UPDATE sign_in_failures SET locked_until = $2 WHERE key = $1")
                .bind(key)
                .bind(now.plus_secs(lock).as_micros())
                .execute(c)
                .await
                .map(|done| done.rows_affected())
        })?;
    }
    Ok(failures)
}

/// Forgets the failures of `key` (after a successful sign-in).
pub async fn clear(tx: &mut Tx, key: &str) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("DELETE FROM sign_in_failures WHERE key = $1")
            .bind(key)
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    Ok(())
}
