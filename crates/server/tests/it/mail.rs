//! Transactional mail, end to end: a mail enqueued in a committed transaction reaches a
//! real SMTP server (our own, in process) as plain UTF-8 text from the configured sender,
//! and its sealed body is erased; a rolled-back one never leaves; a refusing server gets
//! the mail on the retry schedule (1 min, 5 min, 30 min, 2 h, 6 h) until it is given up;
//! without SMTP, mail waits sealed in the outbox and `commerce mail list` shows it.

use std::sync::Arc;
use std::time::Duration;

use domain::clock::ManualClock;
use domain::{Clock, Timestamp};
use serde_json::Value;
use server::ServeConfig;
use server::config::smtp::{SmtpUrl, mail_from};
use server::serve::{HOUSEKEEPING, MAIL_DELIVERY};
use storage::mail_outbox::{self, NewMail};

use crate::binary::commerce;
use crate::on_both_backends;
use crate::support::smtp::{ReceivedMail, SmtpServer, Stage};
use crate::support::{Backend, TestServer, eventually};

on_both_backends!(
    a_committed_mail_is_delivered_and_its_body_erased,
    a_mail_committed_through_the_servers_own_handle_goes_out_at_once,
    a_refusing_server_gets_the_mail_on_the_retry_schedule_until_it_is_given_up,
    without_smtp_mail_waits_sealed_for_an_operator,
);

const PURPOSE: &str = "customer_password_reset";

/// Sends mail through `smtp`, looking for due mail every `poll`.
fn mail_through(config: &mut ServeConfig, smtp: &str, poll: Duration) {
    config.smtp_url = Some(SmtpUrl::parse(smtp).unwrap());
    config.mail_from = Some(mail_from("Example Shop <shop@example.com>").unwrap());
    config.mail_poll = poll;
}

/// Writes a mail in a transaction of its own on a handle of the test's, then commits it
/// or rolls it back; its id.
async fn enqueue(s: &TestServer, to: &str, subject: &str, text: &str, commit: bool) -> i64 {
    let (db, secret_box) = s.open_storage().await;
    let mut tx = db.begin().await.unwrap();
    let mail = NewMail {
        account_id: Some(s.demo.account_id),
        purpose: PURPOSE,
        to,
        subject,
        text,
    };
    let id = mail_outbox::enqueue(&mut tx, &secret_box, &mail, s.clock.now())
        .await
        .unwrap();
    match commit {
        true => tx.commit().await.unwrap(),
        false => tx.rollback().await.unwrap(),
    }
    db.close().await;
    id
}

/// A mail's row as stored.
#[derive(Debug)]
struct Row {
    created_on: i64,
    attempts: i64,
    next_attempt_on: i64,
    sent_on: Option<i64>,
    failed_on: Option<i64>,
    last_error: Option<String>,
    body_sealed: Option<Vec<u8>>,
    /// A node holds a claim on it (an attempt is under way, or was cut short).
    claimed: bool,
}

async fn row(s: &TestServer, id: i64) -> Row {
    type Columns = (
        i64,
        i64,
        i64,
        Option<i64>,
        Option<i64>,
        Option<String>,
        Option<Vec<u8>>,
        Option<String>,
    );
    let (created_on, attempts, next_attempt_on, sent_on, failed_on, last_error, body_sealed, owner) =
        s.db.rows::<Columns>(&format!(
            "SELECT created_on, attempts, next_attempt_on, sent_on, failed_on, last_error, \
             body_sealed, lease_owner FROM mail_outbox WHERE id = {id}"
        ))
        .await
        .pop()
        .expect("the mail's row");
    Row {
        created_on,
        attempts,
        next_attempt_on,
        sent_on,
        failed_on,
        last_error,
        body_sealed,
        claimed: owner.is_some(),
    }
}

/// The mail the server received for `to`, once it has.
async fn received_for(smtp: &SmtpServer, to: &str) -> ReceivedMail {
    eventually(
        &format!("a mail for {to} to reach the SMTP server"),
        || async { smtp.received().into_iter().find(|m| m.to == [to]) },
    )
    .await
}

async fn a_committed_mail_is_delivered_and_its_body_erased(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    let s = TestServer::start_with(backend, |c| {
        mail_through(c, &url, Duration::from_millis(50))
    })
    .await;
    // Lines that begin with a dot travel dot-stuffed and arrive as written (ASCII text
    // goes as 7bit, so the dots are on the wire as they are).
    let text = "Hello Ana,\n\nUse this code to reset your password: 271-828.\n.\n..a line with two dots\nIt expires in one hour.\n";
    let subject = "Réinitialisez votre mot de passe";
    enqueue(&s, "gone@example.com", "Never sent", "rolled back", false).await;
    let id = enqueue(&s, "ana@example.com", subject, text, true).await;

    let mail = received_for(&smtp, "ana@example.com").await;
    assert_eq!(mail.from, "shop@example.com");
    assert_eq!(
        mail.header("From").as_deref(),
        Some("\"Example Shop\" <shop@example.com>")
    );
    assert_eq!(mail.header("To").as_deref(), Some("ana@example.com"));
    assert_eq!(mail.subject(), subject);
    assert_eq!(mail.text().trim_end(), text.trim_end());
    let content_type = mail.header("Content-Type").unwrap();
    assert_eq!(content_type, "text/plain; charset=utf-8");
    assert!(mail.header("Date").is_some() && mail.header("MIME-Version").is_some());
    assert_eq!(mail.header_count("Bcc"), 0);

    let sent = eventually("the mail recorded as sent", || async {
        let row = row(&s, id).await;
        row.sent_on.is_some().then_some(row)
    })
    .await;
    assert_eq!(sent.attempts, 1);
    assert_eq!(sent.body_sealed, None, "the body is erased once sent");
    assert_eq!((sent.failed_on, sent.claimed), (None, false));
    assert_eq!(
        mail.header("Message-ID"),
        Some(format!("<{}.{id}.commerce@example.com>", sent.created_on))
    );
    // The rolled-back mail was never written, so never sent.
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM mail_outbox").await, 1);
    assert_eq!(smtp.received().len(), 1);
    assert!(smtp.recipient_replies("gone@example.com").is_empty());
    s.stop().await;
    smtp.stop().await;
}

async fn a_mail_committed_through_the_servers_own_handle_goes_out_at_once(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    // It never polls within the test: only the commit can wake it.
    let s = TestServer::start_with(backend, |c| {
        mail_through(c, &url, Duration::from_secs(3_600))
    })
    .await;
    eventually("the mail worker to run", || async {
        s.running()
            .active_tasks()
            .contains(&MAIL_DELIVERY)
            .then_some(())
    })
    .await;
    let db = s.running().db.clone();
    let secret_box = s.db.secret_box(&db).await;
    let send = |to: &'static str, text: &'static str| {
        let (db, secret_box) = (db.clone(), secret_box.clone());
        let account_id = s.demo.account_id;
        let now = s.clock.now();
        async move {
            let mut tx = db.begin().await.unwrap();
            let mail = NewMail {
                account_id: Some(account_id),
                purpose: PURPOSE,
                to,
                subject: "Grüße",
                text,
            };
            let id = mail_outbox::enqueue(&mut tx, &secret_box, &mail, now)
                .await
                .unwrap();
            tx.commit().await.unwrap();
            id
        }
    };
    // The first may be found by the worker's first look; the second, committed while it
    // waits, only by the wake-up.
    let first = send("first@example.com", "one").await;
    received_for(&smtp, "first@example.com").await;
    eventually("the first mail recorded", || async {
        row(&s, first).await.sent_on.map(|_| ())
    })
    .await;
    let text = "Grüße aus Köln — your code is Ω-42.\nÀ bientôt.\n";
    send("second@example.com", text).await;
    let mail = received_for(&smtp, "second@example.com").await;
    assert_eq!(mail.text().trim_end(), text.trim_end());
    assert_eq!(mail.subject(), "Grüße");
    s.stop().await;
    smtp.stop().await;
}

/// Waits until attempt `attempt` of mail `id` is recorded.
async fn attempt_recorded(s: &TestServer, id: i64, attempt: i64) -> Row {
    eventually(&format!("attempt {attempt} recorded"), || async {
        let row = row(s, id).await;
        (row.attempts == attempt && !row.claimed && row.last_error.is_some()).then_some(row)
    })
    .await
}

/// Sends a mail that is due now and waits until the server has it: the worker has looked
/// at the outbox at the clock's present time since.
async fn probe(s: &TestServer, smtp: &SmtpServer, n: i64) {
    let to = format!("probe{n}@example.com");
    enqueue(s, &to, "Probe", "probe", true).await;
    received_for(smtp, &to).await;
}

async fn a_refusing_server_gets_the_mail_on_the_retry_schedule_until_it_is_given_up(
    backend: Backend,
) {
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_900_000_000)));
    let smtp = SmtpServer::start().await;
    smtp.refuse(
        Stage::Recipient,
        Some("ana@example.com"),
        "451 4.3.0 Mailbox busy, try again later",
    );
    let (url, manual) = (smtp.url(), clock.clone());
    let s = TestServer::start_with(backend, move |c| {
        c.clock = manual;
        mail_through(c, &url, Duration::from_millis(50));
    })
    .await;
    let id = enqueue(&s, "ana@example.com", "Your code", "code 1234", true).await;
    let mut attempted_on = clock.now().as_micros();
    for (attempt, delay) in [(1, 60), (2, 300), (3, 1_800), (4, 7_200), (5, 21_600)] {
        let row = attempt_recorded(&s, id, attempt).await;
        let expected = if attempt <= 3 { "451" } else { "554" };
        let error = row.last_error.unwrap();
        assert!(error.contains(expected), "attempt {attempt}: {error}");
        assert_eq!(row.next_attempt_on, attempted_on + delay * 1_000_000);
        assert_eq!((row.failed_on, row.sent_on), (None, None));
        // Not a second early: a mail due now goes out meanwhile, this one stays.
        clock.advance_secs(delay - 1);
        probe(&s, &smtp, attempt).await;
        assert_eq!(row_attempts(&s, id).await, attempt);
        if attempt == 3 {
            // From the fourth attempt on the server takes the recipient and refuses the
            // message itself, permanently: still tried again on the schedule.
            smtp.refuse(
                Stage::Message,
                Some("ana@example.com"),
                "554 5.7.1 Message refused",
            );
        }
        clock.advance_secs(1);
        attempted_on += delay * 1_000_000;
    }
    let given_up = eventually("the mail given up", || async {
        let row = row(&s, id).await;
        row.failed_on.is_some().then_some(row)
    })
    .await;
    assert_eq!(given_up.attempts, 6);
    assert_eq!(given_up.failed_on, Some(attempted_on));
    assert!(given_up.last_error.unwrap().contains("554"));
    assert!(given_up.body_sealed.is_some(), "kept for an operator");
    // No seventh attempt, even a day later.
    clock.advance_secs(86_400);
    probe(&s, &smtp, 6).await;
    assert_eq!(row_attempts(&s, id).await, 6);
    assert_eq!(
        smtp.recipient_replies("ana@example.com"),
        [451, 451, 451, 250, 250, 250]
    );
    assert!(smtp.received().iter().all(|m| m.to != ["ana@example.com"]));
    s.stop().await;
    smtp.stop().await;
}

async fn row_attempts(s: &TestServer, id: i64) -> i64 {
    row(s, id).await.attempts
}

async fn without_smtp_mail_waits_sealed_for_an_operator(s: TestServer) {
    eventually("housekeeping to run", || async {
        s.running()
            .active_tasks()
            .contains(&HOUSEKEEPING)
            .then_some(())
    })
    .await;
    assert!(!s.running().active_tasks().contains(&MAIL_DELIVERY));
    let leases: Vec<(String,)> = s.db.rows("SELECT name FROM leases").await;
    assert!(
        !leases.iter().any(|(name,)| name == MAIL_DELIVERY),
        "{leases:?}"
    );

    // One mail sent (as a worker would record it), then one that waits.
    let sent = enqueue(&s, "bob@example.com", "Welcome", "welcome text", true).await;
    let (db, secret_box) = s.open_storage().await;
    let now = s.clock.now();
    let claimed = mail_outbox::claim_due(&db, "test-node", now, now.plus_secs(60), 1)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].id, sent);
    assert!(mail_outbox::mark_sent(&db, &claimed[0], now).await.unwrap());
    let text = "Use this code to reset your password: 481-516\nIt expires in one hour.";
    let waiting = enqueue(&s, "ana@example.com", "Reset your password", text, true).await;

    // Sealed at rest: the column holds no trace of the text, and opens to it.
    let stored = row(&s, waiting).await;
    let sealed = stored.body_sealed.expect("a sealed body");
    assert!(!sealed.windows(7).any(|w| w == b"481-516"));
    assert_eq!(secret_box.open(&sealed).unwrap(), text.as_bytes());
    assert_eq!((stored.attempts, stored.claimed), (0, false));
    db.close().await;

    let run = commerce(&s.db.args(&["mail", "list", "--undelivered"])).await;
    assert!(run.ok, "{}", run.stderr);
    for shown in [
        "ana@example.com",
        "Reset your password",
        PURPOSE,
        "pending",
        "Use this code to reset your password: 481-516",
        "It expires in one hour.",
    ] {
        assert!(run.stdout.contains(shown), "{shown} in {}", run.stdout);
    }
    assert!(!run.stdout.contains("bob@example.com"), "{}", run.stdout);

    let run = commerce(&s.db.args(&["mail", "list", "--json"])).await;
    assert!(run.ok, "{}", run.stderr);
    let listed: Value = serde_json::from_str(run.stdout.trim()).expect("one JSON array");
    let mails = listed.as_array().unwrap();
    assert_eq!(mails.len(), 2);
    let (newest, oldest) = (&mails[0], &mails[1]);
    assert_eq!(newest["id"], waiting);
    assert_eq!(newest["status"], "pending");
    assert_eq!(newest["to"], "ana@example.com");
    assert_eq!(newest["purpose"], PURPOSE);
    assert_eq!(newest["account_id"], s.demo.account_id);
    assert_eq!(newest["body"], text);
    assert_eq!(newest["attempts"], 0);
    assert!(newest["next_attempt_on"].is_string() && newest["sent_on"].is_null());
    assert_eq!(
        (oldest["id"].as_i64(), &oldest["status"]),
        (Some(sent), &Value::from("sent"))
    );
    assert!(oldest["body"].is_null() && oldest["sent_on"].is_string());

    let run = commerce(
        &s.db
            .args(&["mail", "list", "--undelivered", "--limit", "0"]),
    )
    .await;
    assert!(!run.ok, "a limit below one is refused");
}

/// `serve` refuses SMTP without a sender, and a bad URL, without ever showing the
/// password.
#[tokio::test]
async fn smtp_settings_are_checked_and_the_password_never_shown() {
    for (args, expected) in [
        (
            &["--smtp-url", "smtp://mailer:hunter2@127.0.0.1:1"][..],
            "--mail-from",
        ),
        (
            &[
                "--smtp-url",
                "smtp://mailer:hunter2@127.0.0.1:1/path",
                "--mail-from",
                "shop@example.com",
            ][..],
            "mailer:***@127.0.0.1:1",
        ),
        (
            &[
                "--smtp-url",
                "smtp://127.0.0.1:1",
                "--mail-from",
                "no address",
            ][..],
            "--mail-from",
        ),
    ] {
        let mut command = vec!["serve"];
        command.extend_from_slice(args);
        let run = commerce(&command).await;
        assert!(!run.ok, "{args:?}");
        assert!(run.stderr.contains(expected), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("hunter2") && !run.stdout.contains("hunter2"));
    }
}
