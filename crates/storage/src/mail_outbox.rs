//! The transactional mail outbox. A mail is written in the transaction of the change that
//! sends it (a password reset, say), so it exists exactly when that change committed; the
//! delivery worker claims due mails, hands each to the SMTP server, and records the
//! outcome; operators read what was not delivered.
//!
//! The text body may carry a one-time token: it is sealed with the secret box at rest and
//! erased once the mail is sent. A claim holds a mail for one node until it runs out, so
//! two nodes never send it at once; a node that dies mid-send leaves its claim to run out
//! (or to a node restarted on its host), and the mail is sent again: delivery is at least
//! once. A claim counts its attempt when it is taken, so attempts cut short by crashes
//! count towards giving up too.

use domain::Timestamp;
use domain::mail::{MAX_ATTEMPTS, MailStatus, retry_delay_secs};

use crate::db::{Backend, Database, Exec, Tx};
use crate::error::{Error, Result};
use crate::secret_box::{SecretBox, SecretBoxError};
use crate::sql::{Arg, Params, bind_query};
use crate::write::Columns;

pub const TABLE: &str = "mail_outbox";

/// A mail to send.
pub struct NewMail<'a> {
    /// The account the mail concerns, if any.
    pub account_id: Option<i64>,
    /// What it is for, e.g. `customer_password_reset`.
    pub purpose: &'a str,
    pub to: &'a str,
    pub subject: &'a str,
    /// The plain text body.
    pub text: &'a str,
}

/// Writes the mail in the caller's transaction (sent only if it commits); answers its id.
pub async fn enqueue(
    tx: &mut Tx,
    secret_box: &SecretBox,
    mail: &NewMail<'_>,
    now: Timestamp,
) -> Result<i64> {
    let id = Columns::new()
        .set("account_id", mail.account_id)
        .set("purpose", mail.purpose)
        .set("to_address", mail.to)
        .set("subject", mail.subject)
        .set(
            "body_sealed",
            Arg::Bytes(secret_box.seal(mail.text.as_bytes())),
        )
        .set("created_on", now)
        .set("attempts", 0_i64)
        .set("next_attempt_on", now)
        .insert_into(TABLE)
        .fetch_id(tx)
        .await?;
    tx.wake_mailer_on_commit();
    Ok(id)
}

/// A mail claimed by one node for one attempt.
#[derive(Clone, sqlx::FromRow)]
pub struct Claimed {
    pub id: i64,
    pub account_id: Option<i64>,
    pub purpose: String,
    pub to_address: String,
    pub subject: String,
    body_sealed: Option<Vec<u8>>,
    pub created_on: Timestamp,
    /// This attempt's number: 1 for the first.
    pub attempts: i64,
    /// The node that holds the claim.
    pub lease_owner: String,
    /// When the claim runs out; with the owner, what names this claim.
    pub lease_expires_on: Timestamp,
}

impl std::fmt::Debug for Claimed {
    // Neither the body nor where it goes belongs in a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Claimed")
            .field("id", &self.id)
            .field("purpose", &self.purpose)
            .field("attempts", &self.attempts)
            .finish_non_exhaustive()
    }
}

impl Claimed {
    /// The text body, unsealed.
    pub fn text(&self, secret_box: &SecretBox) -> Result<String, SecretBoxError> {
        let sealed = self.body_sealed.as_deref().ok_or_else(|| {
            Error::Corrupt(format!("mail {} is claimed but has no body", self.id))
        })?;
        Ok(String::from_utf8_lossy(&secret_box.open(sealed)?).into_owned())
    }
}

/// What a claim answers of each mail.
const CLAIMED_COLUMNS: &str = "id, account_id, purpose, to_address, subject, body_sealed, created_on, \
     attempts, lease_owner, lease_expires_on";

/// The history's note on an attempt whose claim ran out before its outcome was recorded.
pub const INTERRUPTED: &str =
    "interrupted: the node sending it stopped before recording the outcome; it may have been sent";

/// Mails still to send that are due at `at` (an SQL expression), in due order, and free of
/// any claim that still holds; locked on PostgreSQL, skipping those another claim locks.
fn due_ids(backend: Backend, at: &str, and: &str, limit: &str) -> String {
    let lock = match backend {
        Backend::Sqlite => "",
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
    };
    format!(
        "SELECT id FROM mail_outbox WHERE sent_on IS NULL AND failed_on IS NULL \
         AND next_attempt_on <= {at} AND (lease_expires_on IS NULL OR lease_expires_on <= {at}){and} \
         ORDER BY next_attempt_on, id LIMIT {limit}{lock}"
    )
}

/// Claims for `node` until `lease_until` up to `limit` mails due at `now` (the longest
/// due first; answered in the order they were written), counting an attempt for each. A
/// mail whose earlier claim ran out unrecorded is taken over, its attempt noted as
/// interrupted, or given up when that was its last.
pub async fn claim_due(
    db: &Database,
    node: &str,
    now: Timestamp,
    lease_until: Timestamp,
    limit: i64,
) -> Result<Vec<Claimed>> {
    let backend = db.backend();
    let mut tx = db.begin().await?;
    let mut p = Params::new();
    let at = p.bind(Arg::from(now));
    let error = p.bind(Arg::Text(INTERRUPTED.to_owned()));
    let exhausted = format!(
        " AND lease_expires_on IS NOT NULL AND attempts >= {}",
        p.bind(Arg::Int(MAX_ATTEMPTS))
    );
    let sql = format!(
        "UPDATE mail_outbox SET failed_on = {at}, last_error = {error}, lease_owner = NULL, \
         lease_expires_on = NULL WHERE id IN ({})",
        due_ids(backend, &at, &exhausted, &p.bind(Arg::Int(limit.max(1))))
    );
    execute(&mut tx, sql, p.args()).await?;

    let mut p = Params::new();
    let at = p.bind(Arg::from(now));
    let attempts_left = format!(
        " AND (lease_expires_on IS NULL OR attempts < {})",
        p.bind(Arg::Int(MAX_ATTEMPTS))
    );
    let sql = format!(
        "UPDATE mail_outbox SET lease_owner = {owner}, lease_expires_on = {until}, \
         attempts = attempts + 1, \
         last_error = CASE WHEN lease_expires_on IS NULL THEN last_error ELSE {error} END \
         WHERE id IN ({due}) RETURNING {CLAIMED_COLUMNS}",
        owner = p.bind(Arg::Text(node.to_owned())),
        until = p.bind(Arg::from(lease_until)),
        error = p.bind(Arg::Text(INTERRUPTED.to_owned())),
        due = due_ids(backend, &at, &attempts_left, &p.bind(Arg::Int(limit))),
    );
    let mut claimed = fetch_all_bound!(Exec::Tx(&mut tx), Claimed, sql, p.args())?;
    tx.commit().await?;
    // RETURNING keeps no order.
    claimed.sort_by_key(|mail| (mail.created_on, mail.id));
    Ok(claimed)
}

/// Records that the SMTP server accepted the mail, whoever's claim it is under (a mail
/// sent is sent), and erases its body; answers whether it was still unsent.
pub async fn mark_sent(db: &Database, mail: &Claimed, now: Timestamp) -> Result<bool> {
    let mut p = Params::new();
    let sql = format!(
        "UPDATE mail_outbox SET sent_on = {at}, failed_on = NULL, body_sealed = NULL, \
         lease_owner = NULL, lease_expires_on = NULL WHERE id = {id} AND sent_on IS NULL",
        at = p.bind(Arg::from(now)),
        id = p.bind(Arg::Int(mail.id)),
    );
    write(db, sql, &p).await
}

/// Why an attempt failed; its text is kept as the mail's `last_error`, so it must hold
/// neither the body nor a secret.
#[derive(Clone, Copy, Debug)]
pub enum Failure<'a> {
    /// The server or the network failed: tried again on the schedule.
    Transient(&'a str),
    /// The mail cannot be sent as it is (an address no server would take): given up now.
    Permanent(&'a str),
}

/// What became of a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Tried again then.
    RetryAt(Timestamp),
    /// No attempt is left: the mail stays, failed, for an operator.
    GaveUp,
    /// The claim had run out and the mail is another claim's (or sent): nothing recorded.
    ClaimLost,
}

/// How much of an error is kept.
const ERROR_CHARS: usize = 1_000;

/// Records a failed attempt under the claim that made it: the next attempt on the retry
/// schedule (1 min, 5 min, 30 min, 2 h, 6 h after each failure), or, after the last or a
/// permanent failure, the mail given up (its body kept for an operator to read).
pub async fn mark_failed(
    db: &Database,
    mail: &Claimed,
    failure: Failure<'_>,
    now: Timestamp,
) -> Result<Recorded> {
    let (error, retry) = match failure {
        Failure::Transient(error) => (error, retry_delay_secs(mail.attempts)),
        Failure::Permanent(error) => (error, None),
    };
    let error: String = error.chars().take(ERROR_CHARS).collect();
    let mut p = Params::new();
    let (set, recorded) = match retry {
        Some(secs) => {
            let at = now.plus_secs(secs);
            (
                format!("next_attempt_on = {}", p.bind(Arg::from(at))),
                Recorded::RetryAt(at),
            )
        }
        None => (
            format!("failed_on = {}", p.bind(Arg::from(now))),
            Recorded::GaveUp,
        ),
    };
    let sql = format!(
        "UPDATE mail_outbox SET {set}, last_error = {error}, lease_owner = NULL, \
         lease_expires_on = NULL WHERE {claim} AND sent_on IS NULL AND failed_on IS NULL",
        error = p.bind(Arg::Text(error)),
        claim = under_claim(mail, &mut p),
    );
    Ok(match write(db, sql, &p).await? {
        true => recorded,
        false => Recorded::ClaimLost,
    })
}

/// Gives a claimed mail back before its attempt (the worker is stopping): due again at
/// once, for any node, with the attempt not counted. Nothing when the claim ran out.
pub async fn release(db: &Database, mail: &Claimed) -> Result<bool> {
    let mut p = Params::new();
    let sql = format!(
        "UPDATE mail_outbox SET lease_owner = NULL, lease_expires_on = NULL, \
         attempts = attempts - 1 WHERE {}",
        under_claim(mail, &mut p)
    );
    write(db, sql, &p).await
}

/// SQL naming the mail as long as it is under the claim `mail` was taken with.
fn under_claim(mail: &Claimed, p: &mut Params) -> String {
    format!(
        "id = {} AND lease_owner = {} AND lease_expires_on = {}",
        p.bind(Arg::Int(mail.id)),
        p.bind(Arg::Text(mail.lease_owner.clone())),
        p.bind(Arg::from(mail.lease_expires_on)),
    )
}

/// A mail as operators read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mail {
    pub id: i64,
    pub account_id: Option<i64>,
    pub purpose: String,
    pub to_address: String,
    pub subject: String,
    /// The text body, unsealed; `None` once the mail was sent (it is erased then).
    pub body: Option<String>,
    pub status: MailStatus,
    pub created_on: Timestamp,
    pub attempts: i64,
    /// When it is tried next, while it is pending.
    pub next_attempt_on: Option<Timestamp>,
    pub sent_on: Option<Timestamp>,
    pub failed_on: Option<Timestamp>,
    pub last_error: Option<String>,
}

#[derive(sqlx::FromRow)]
struct MailRow {
    id: i64,
    account_id: Option<i64>,
    purpose: String,
    to_address: String,
    subject: String,
    body_sealed: Option<Vec<u8>>,
    created_on: Timestamp,
    attempts: i64,
    next_attempt_on: Timestamp,
    sent_on: Option<Timestamp>,
    failed_on: Option<Timestamp>,
    last_error: Option<String>,
}

/// Which mails a listing shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listed {
    All,
    /// Pending and failed ones: those the SMTP server has not accepted.
    Undelivered,
}

/// Up to `limit` mails, newest first, with their bodies unsealed (for operators).
pub async fn list(
    db: &Database,
    secret_box: &SecretBox,
    which: Listed,
    limit: i64,
) -> Result<Vec<Mail>, SecretBoxError> {
    let filter = match which {
        Listed::All => "",
        Listed::Undelivered => "WHERE sent_on IS NULL ",
    };
    let mut p = Params::new();
    let sql = format!(
        "SELECT id, account_id, purpose, to_address, subject, body_sealed, created_on, attempts, \
         next_attempt_on, sent_on, failed_on, last_error FROM mail_outbox {filter}\
         ORDER BY created_on DESC, id DESC LIMIT {}",
        p.bind(Arg::Int(limit.max(0)))
    );
    let rows = fetch_all_bound!(Exec::Db(db), MailRow, sql, p.args()).map_err(Error::from)?;
    rows.into_iter()
        .map(|row| {
            let body = match &row.body_sealed {
                Some(sealed) => {
                    Some(String::from_utf8_lossy(&secret_box.open(sealed)?).into_owned())
                }
                None => None,
            };
            let status = match (row.sent_on, row.failed_on) {
                (Some(_), _) => MailStatus::Sent,
                (None, Some(_)) => MailStatus::Failed,
                (None, None) => MailStatus::Pending,
            };
            Ok(Mail {
                id: row.id,
                account_id: row.account_id,
                purpose: row.purpose,
                to_address: row.to_address,
                subject: row.subject,
                body,
                status,
                created_on: row.created_on,
                attempts: row.attempts,
                next_attempt_on: (status == MailStatus::Pending).then_some(row.next_attempt_on),
                sent_on: row.sent_on,
                failed_on: row.failed_on,
                last_error: row.last_error,
            })
        })
        .collect()
}

async fn execute(tx: &mut Tx, sql: String, args: &[Arg]) -> Result<u64> {
    Ok(with_conn!(Exec::Tx(tx), |c| {
        bind_query(sqlx::query(sqlx::AssertSqlSafe(sql)), args)
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?)
}

/// Runs one statement in a transaction of its own; answers whether it changed a row.
async fn write(db: &Database, sql: String, p: &Params) -> Result<bool> {
    let mut tx = db.begin().await?;
    let changed = execute(&mut tx, sql, p.args()).await?;
    tx.commit().await?;
    Ok(changed > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StoreOptions;
    use crate::test_databases::{self, TestDatabase};

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_secs(1_000_000 + secs)
    }

    fn secret_box() -> SecretBox {
        SecretBox::new(&[[5; 32]]).unwrap()
    }

    const LEASE: i64 = 120;

    async fn enqueue_one(db: &Database, to: &str, text: &str, now: Timestamp) -> i64 {
        let mut tx = db.begin().await.unwrap();
        let id = enqueue(
            &mut tx,
            &secret_box(),
            &NewMail {
                account_id: None,
                purpose: "customer_password_reset",
                to,
                subject: "Reset your password",
                text,
            },
            now,
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        id
    }

    async fn claim(db: &Database, node: &str, now: Timestamp) -> Vec<Claimed> {
        claim_due(db, node, now, now.plus_secs(LEASE), 10)
            .await
            .unwrap()
    }

    async fn listed(db: &Database, which: Listed) -> Vec<Mail> {
        list(db, &secret_box(), which, 100).await.unwrap()
    }

    #[tokio::test]
    async fn a_mail_exists_exactly_when_its_transaction_commits_and_wakes_the_worker() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            let mut tx = db.begin().await.unwrap();
            let mail = NewMail {
                account_id: None,
                purpose: "customer_password_reset",
                to: "gone@example.com",
                subject: "Never sent",
                text: "token-rolled-back",
            };
            enqueue(&mut tx, &secret_box(), &mail, at(0)).await.unwrap();
            tx.rollback().await.unwrap();
            assert!(listed(&db, Listed::All).await.is_empty());
            assert!(claim(&db, "a", at(0)).await.is_empty());

            let woken = db.mailer_woken();
            tokio::pin!(woken);
            woken.as_mut().enable();
            let id = enqueue_one(&db, "ana@example.com", "Your code: tök-123", at(0)).await;
            tokio::time::timeout(std::time::Duration::from_secs(5), woken)
                .await
                .expect("the commit wakes the mail worker");
            let claimed = claim(&db, "a", at(0)).await;
            assert_eq!(claimed.len(), 1);
            let mail = &claimed[0];
            assert_eq!((mail.id, mail.attempts), (id, 1));
            assert_eq!(mail.to_address, "ana@example.com");
            assert_eq!(mail.text(&secret_box()).unwrap(), "Your code: tök-123");
            let sealed = mail.body_sealed.as_deref().unwrap();
            assert!(
                !sealed
                    .windows("tök-123".len())
                    .any(|w| w == "tök-123".as_bytes())
            );
            assert!(mail.text(&SecretBox::new(&[[6; 32]]).unwrap()).is_err());
            assert!(!format!("{mail:?}").contains("ana@"), "{mail:?}");
            db.close().await;
        }
    }

    #[tokio::test]
    async fn a_claimed_mail_is_claimed_again_only_once_its_claim_runs_out() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            let backend = db.backend();
            let id = enqueue_one(&db, "ana@example.com", "hello", at(0)).await;
            let first = claim(&db, "a", at(0)).await.pop().unwrap();
            assert!(claim(&db, "b", at(1)).await.is_empty(), "{backend:?}");
            assert!(claim(&db, "b", at(LEASE - 1)).await.is_empty());
            // Run out: taken over, the cut-short attempt counted and noted.
            let second = claim(&db, "b", at(LEASE)).await.pop().unwrap();
            assert_eq!((second.id, second.attempts), (id, 2));
            let failure = Failure::Transient("421 busy");
            assert_eq!(
                mark_failed(&db, &first, failure, at(LEASE + 1))
                    .await
                    .unwrap(),
                Recorded::ClaimLost,
                "the first claim records nothing"
            );
            let pending = listed(&db, Listed::All).await.pop().unwrap();
            assert_eq!(pending.last_error.as_deref(), Some(INTERRUPTED));
            assert_eq!(pending.status, MailStatus::Pending);
            // A send under a claim that ran out still counts: the mail was sent.
            assert!(mark_sent(&db, &first, at(LEASE + 2)).await.unwrap());
            assert!(!mark_sent(&db, &second, at(LEASE + 3)).await.unwrap());
            assert_eq!(
                mark_failed(&db, &second, failure, at(LEASE + 3))
                    .await
                    .unwrap(),
                Recorded::ClaimLost
            );
            let sent = listed(&db, Listed::All).await.pop().unwrap();
            assert_eq!(sent.status, MailStatus::Sent);
            assert_eq!(sent.sent_on, Some(at(LEASE + 2)));
            assert_eq!((sent.body, sent.next_attempt_on), (None, None));
            assert!(claim(&db, "c", at(10 * LEASE)).await.is_empty());
            db.close().await;
        }
    }

    #[tokio::test]
    async fn failed_attempts_follow_the_schedule_then_the_mail_is_given_up() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            enqueue_one(&db, "ana@example.com", "hello", at(0)).await;
            let mut now = at(0);
            let mut outcomes = Vec::new();
            for attempt in 1..=MAX_ATTEMPTS {
                let mail = claim(&db, "a", now).await.pop().expect("due");
                assert_eq!(mail.attempts, attempt);
                let error = format!("451 try later ({attempt})");
                let recorded = mark_failed(&db, &mail, Failure::Transient(&error), now)
                    .await
                    .unwrap();
                outcomes.push(recorded);
                let listed = listed(&db, Listed::Undelivered).await.pop().unwrap();
                assert_eq!(listed.last_error.as_deref(), Some(error.as_str()));
                assert_eq!(listed.attempts, attempt);
                if let Recorded::RetryAt(next) = recorded {
                    assert_eq!(listed.next_attempt_on, Some(next));
                    assert!(claim(&db, "a", next.plus_secs(-1)).await.is_empty());
                    now = next;
                }
            }
            let delays: Vec<i64> = outcomes
                .iter()
                .filter_map(|r| match r {
                    Recorded::RetryAt(t) => Some(t.as_secs()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .windows(2)
                .map(|w| w[1] - w[0])
                .collect();
            assert_eq!(delays, [300, 1_800, 7_200, 21_600]);
            assert_eq!(outcomes[0], Recorded::RetryAt(at(60)));
            assert_eq!(outcomes.last(), Some(&Recorded::GaveUp));
            let failed = listed(&db, Listed::Undelivered).await.pop().unwrap();
            assert_eq!(failed.status, MailStatus::Failed);
            assert_eq!(failed.failed_on, Some(now));
            assert_eq!(failed.next_attempt_on, None);
            assert_eq!(
                failed.body.as_deref(),
                Some("hello"),
                "kept for an operator"
            );
            assert!(claim(&db, "a", at(1_000_000)).await.is_empty());
            db.close().await;
        }
    }

    #[tokio::test]
    async fn a_permanent_failure_gives_up_at_once_and_errors_are_kept_short() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            enqueue_one(&db, "not an address", "hello", at(0)).await;
            let mail = claim(&db, "a", at(0)).await.pop().unwrap();
            let long = "x".repeat(5_000);
            let recorded = mark_failed(&db, &mail, Failure::Permanent(&long), at(1))
                .await
                .unwrap();
            assert_eq!(recorded, Recorded::GaveUp);
            let failed = listed(&db, Listed::All).await.pop().unwrap();
            assert_eq!(failed.status, MailStatus::Failed);
            assert_eq!(failed.last_error.unwrap().len(), ERROR_CHARS);
            db.close().await;
        }
    }

    #[tokio::test]
    async fn an_interrupted_last_attempt_gives_the_mail_up() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            enqueue_one(&db, "ana@example.com", "hello", at(0)).await;
            let mut now = at(0);
            for attempt in 1..=MAX_ATTEMPTS {
                let mail = claim(&db, "a", now).await.pop().expect("claimable");
                assert_eq!(mail.attempts, attempt);
                // The node dies: its claim runs out.
                now = now.plus_secs(LEASE);
            }
            assert!(claim(&db, "a", now).await.is_empty());
            let failed = listed(&db, Listed::All).await.pop().unwrap();
            assert_eq!(failed.status, MailStatus::Failed);
            assert_eq!(failed.attempts, MAX_ATTEMPTS);
            assert_eq!(failed.last_error.as_deref(), Some(INTERRUPTED));
            db.close().await;
        }
    }

    #[tokio::test]
    async fn a_released_claim_is_due_again_at_once_without_its_attempt() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            enqueue_one(&db, "ana@example.com", "hello", at(0)).await;
            let mail = claim(&db, "a", at(0)).await.pop().unwrap();
            assert!(release(&db, &mail).await.unwrap());
            assert!(!release(&db, &mail).await.unwrap(), "released once");
            let again = claim(&db, "b", at(1)).await.pop().unwrap();
            assert_eq!(again.attempts, 1);
            assert_eq!(listed(&db, Listed::All).await[0].last_error, None);
            db.close().await;
        }
    }

    #[tokio::test]
    async fn operators_list_the_newest_first_and_what_was_not_delivered() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            let old = enqueue_one(&db, "old@example.com", "first", at(0)).await;
            let new = enqueue_one(&db, "new@example.com", "second", at(5)).await;
            let ids = |mails: Vec<Mail>| mails.iter().map(|m| m.id).collect::<Vec<_>>();
            assert_eq!(ids(listed(&db, Listed::All).await), [new, old]);
            let sent = claim(&db, "a", at(5)).await;
            let first = sent.iter().find(|m| m.id == old).unwrap();
            mark_sent(&db, first, at(6)).await.unwrap();
            assert_eq!(ids(listed(&db, Listed::Undelivered).await), [new]);
            let all = listed(&db, Listed::All).await;
            assert_eq!(all[0].body.as_deref(), Some("second"));
            assert_eq!(all[1].body, None, "erased once sent");
            assert_eq!(
                ids(list(&db, &secret_box(), Listed::All, 1).await.unwrap()),
                [new]
            );
            // A body sealed with a key this box lacks is refused, not shown.
            assert!(
                list(&db, &SecretBox::new(&[[6; 32]]).unwrap(), Listed::All, 10)
                    .await
                    .is_err()
            );
            db.close().await;
        }
    }

    #[tokio::test]
    async fn a_gone_nodes_claims_are_taken_over_at_once() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            enqueue_one(&db, "ana@example.com", "hello", at(0)).await;
            claim(&db, "host:boot:41", at(0)).await.pop().unwrap();
            let holders = crate::succession::holders(&db, "host:", at(1))
                .await
                .unwrap();
            assert_eq!(holders, ["host:boot:41"]);
            crate::succession::end_claims_of(&db, &holders, at(1))
                .await
                .unwrap();
            let taken = claim(&db, "host:boot:42", at(1)).await.pop().unwrap();
            assert_eq!(taken.attempts, 2, "the cut-short attempt counts");
            db.close().await;
        }
    }

    #[tokio::test]
    async fn a_key_rotation_reseals_the_bodies_of_waiting_mail() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            enqueue_one(&db, "ana@example.com", "code 1", at(0)).await;
            let rotated = SecretBox::new(&[[6; 32], [5; 32]]).unwrap();
            assert_eq!(
                crate::sealed_secrets::reseal(&db, &rotated).await.unwrap(),
                1
            );
            let new_alone = SecretBox::new(&[[6; 32]]).unwrap();
            let mails = list(&db, &new_alone, Listed::All, 10).await.unwrap();
            assert_eq!(mails[0].body.as_deref(), Some("code 1"));
            assert!(list(&db, &secret_box(), Listed::All, 10).await.is_err());
            db.close().await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn nodes_claiming_together_never_take_the_same_mail() {
        for TestDatabase { db, url, _dir } in test_databases::both().await {
            for n in 0..12 {
                enqueue_one(&db, &format!("m{n}@example.com"), "hello", at(0)).await;
            }
            let mut racers = Vec::new();
            for node in 0..4 {
                let url = url.clone();
                racers.push(tokio::spawn(async move {
                    let other = Database::connect(&url, &StoreOptions::default())
                        .await
                        .unwrap();
                    let mut mine = Vec::new();
                    for _ in 0..6 {
                        let claimed =
                            claim_due(&other, &format!("node-{node}"), at(0), at(LEASE), 2)
                                .await
                                .unwrap();
                        mine.extend(claimed.into_iter().map(|m| m.id));
                    }
                    other.close().await;
                    mine
                }));
            }
            let mut all = Vec::new();
            for racer in racers {
                all.extend(racer.await.unwrap());
            }
            all.sort_unstable();
            let claimed = all.len();
            all.dedup();
            assert_eq!((claimed, all.len()), (12, 12), "{:?}", db.backend());
            db.close().await;
        }
    }
}
