//! Mail delivery: hands the outbox's due mails to the configured SMTP server, one at a
//! time, and records each outcome (sent: the body erased; failed: tried again on the
//! schedule, then given up). A singleton, registered only when SMTP is configured: without
//! it mail waits in the outbox for an operator (`commerce mail list`).
//!
//! Each mail is claimed before it is sent, so a node that lost its lease mid-send and the
//! node that took it over never send one mail together; a node that dies mid-send leaves
//! its claim to run out, and the mail is sent again (at least once). Logs name a mail by
//! id and purpose: never its body, address or the server's password.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::Context;
use domain::{Clock, Timestamp};
use lettre::message::{Mailbox, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use storage::Database;
use storage::mail_outbox::{self, Claimed, Failure, Recorded};
use storage::secret_box::SecretBox;
use tokio_util::sync::CancellationToken;

use crate::config::smtp::{SmtpSecurity, SmtpUrl};

/// How long one SMTP command may wait for the server.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one mail's whole exchange may take.
const SEND_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a claim holds: longer than a send, so that no other node sends the mail
/// while this one still may.
const CLAIM: Duration = Duration::from_secs(180);
/// How long a send under way may go on once the worker is told to stop: most take well
/// under a second, and one cut short is sent again.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// Mails sent in one pass before the worker looks at its token and the clock again.
const PASS: usize = 64;

pub struct MailDelivery {
    pub db: Database,
    /// Shared with the rest of the node, so a rotated key file reaches it.
    pub secret_box: SecretBox,
    pub clock: Arc<dyn Clock>,
    /// This node's name in claims.
    pub node: String,
    pub from: Mailbox,
    /// How often due mail is looked for when no commit of this node wakes the worker.
    pub poll: Duration,
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl MailDelivery {
    pub fn new(
        db: Database,
        secret_box: SecretBox,
        clock: Arc<dyn Clock>,
        node: String,
        smtp: &SmtpUrl,
        from: Mailbox,
        poll: Duration,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            db,
            secret_box,
            clock,
            node,
            from,
            poll,
            transport: transport(smtp)?,
        })
    }
}

/// The SMTP transport: a connection per mail, TLS as the URL says (verified against the
/// platform's roots), signing in when the URL names a user.
fn transport(smtp: &SmtpUrl) -> anyhow::Result<AsyncSmtpTransport<Tokio1Executor>> {
    let tls = TlsParameters::builder(smtp.host.clone())
        .build_rustls()
        .with_context(|| format!("cannot set up TLS for the SMTP server {smtp}"))?;
    let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(smtp.host.clone())
        .port(smtp.port)
        .timeout(Some(COMMAND_TIMEOUT))
        .tls(match smtp.security {
            SmtpSecurity::StartTlsWhenOffered => Tls::Opportunistic(tls),
            SmtpSecurity::StartTlsRequired => Tls::Required(tls),
            SmtpSecurity::ImplicitTls => Tls::Wrapper(tls),
        });
    if let Some(credentials) = &smtp.credentials {
        builder = builder.credentials(Credentials::new(
            credentials.user.clone(),
            credentials.password.clone(),
        ));
    }
    Ok(builder.build())
}

/// Whether the worker goes on.
#[derive(PartialEq, Eq)]
enum Next {
    /// Wait for a commit or the next poll.
    Wait,
    /// More may be due at once.
    Again,
    Stop,
}

/// Sends due mail until `cancel`: whenever a commit of this node writes mail, and every
/// `poll` otherwise.
pub async fn deliver_mail(worker: Arc<MailDelivery>, cancel: CancellationToken) {
    loop {
        // Listened for before looking, so that mail committed meanwhile is not missed.
        let woken = worker.db.mailer_woken();
        tokio::pin!(woken);
        woken.as_mut().enable();
        match worker.pass(&cancel).await {
            Next::Stop => return,
            Next::Again => continue,
            Next::Wait => {}
        }
        tokio::select! {
            () = cancel.cancelled() => return,
            () = &mut woken => {}
            () = tokio::time::sleep(worker.poll) => {}
        }
    }
}

impl MailDelivery {
    /// Sends what is due, one mail at a time, up to [`PASS`] of them.
    async fn pass(&self, cancel: &CancellationToken) -> Next {
        for _ in 0..PASS {
            if cancel.is_cancelled() {
                return Next::Stop;
            }
            let now = self.clock.now();
            let claimed =
                match mail_outbox::claim_due(&self.db, &self.node, now, now.plus(CLAIM), 1).await {
                    Ok(claimed) => claimed,
                    Err(err) => {
                        tracing::warn!(error = %err, "cannot claim due mail");
                        return Next::Wait;
                    }
                };
            let Some(mail) = claimed.into_iter().next() else {
                return Next::Wait;
            };
            if self.send(&mail, cancel).await == Next::Stop {
                return Next::Stop;
            }
        }
        Next::Again
    }

    /// One attempt at a claimed mail, and its record.
    async fn send(&self, mail: &Claimed, cancel: &CancellationToken) -> Next {
        // A body that does not open may yet (a key file being rotated): tried again on the
        // schedule. An address no server would take never changes: given up at once.
        let text = match mail.text(&self.secret_box) {
            Ok(text) => text,
            Err(_) => {
                let error = "its body does not open with the encryption keys in use";
                self.record_failure(mail, Failure::Transient(error)).await;
                return Next::Again;
            }
        };
        let outgoing = Outgoing {
            id: mail.id,
            to: &mail.to_address,
            subject: &mail.subject,
            created_on: mail.created_on,
            text,
        };
        let message = match compose(&self.from, &outgoing) {
            Ok(message) => message,
            Err(error) => {
                self.record_failure(mail, Failure::Permanent(&error)).await;
                return Next::Again;
            }
        };
        if cancel.is_cancelled() {
            if let Err(err) = mail_outbox::release(&self.db, mail).await {
                tracing::warn!(mail = mail.id, error = %err, "cannot give back a claimed mail; its claim runs out");
            }
            return Next::Stop;
        }
        let sending = tokio::time::timeout(SEND_TIMEOUT, self.transport.send(message));
        tokio::pin!(sending);
        let sent = tokio::select! {
            sent = &mut sending => Some(sent),
            () = cancel.cancelled() => tokio::time::timeout(STOP_GRACE, &mut sending).await.ok(),
        };
        let outcome = match sent {
            Some(Ok(Ok(_))) => Ok(()),
            Some(Ok(Err(err))) => Err(err.to_string()),
            Some(Err(_)) => Err(format!(
                "the SMTP server took longer than {} s",
                SEND_TIMEOUT.as_secs()
            )),
            None => {
                // It may have reached the server: as after a crash, the claim runs out and
                // the mail is sent again.
                tracing::info!(
                    mail = mail.id,
                    "stopped while sending a mail; it is sent again later"
                );
                return Next::Stop;
            }
        };
        match outcome {
            Ok(()) => self.record_sent(mail).await,
            Err(error) => self.record_failure(mail, Failure::Transient(&error)).await,
        }
        if cancel.is_cancelled() {
            Next::Stop
        } else {
            Next::Again
        }
    }

    async fn record_sent(&self, mail: &Claimed) {
        // Recorded a few times over before giving up: a mail not recorded is sent again.
        for tried in 1..=3u64 {
            match mail_outbox::mark_sent(&self.db, mail, self.clock.now()).await {
                Ok(_) => {
                    tracing::info!(mail = mail.id, purpose = %mail.purpose, attempt = mail.attempts, "mail sent");
                    return;
                }
                Err(err) if tried < 3 => {
                    tracing::warn!(mail = mail.id, error = %err, "cannot record a sent mail; trying again");
                    tokio::time::sleep(Duration::from_millis(100 * tried)).await;
                }
                Err(err) => {
                    tracing::error!(mail = mail.id, error = %err, "cannot record a sent mail; it will be sent again")
                }
            }
        }
    }

    async fn record_failure(&self, mail: &Claimed, failure: Failure<'_>) {
        let error = match failure {
            Failure::Transient(error) | Failure::Permanent(error) => error,
        };
        match mail_outbox::mark_failed(&self.db, mail, failure, self.clock.now()).await {
            Ok(Recorded::RetryAt(at)) => tracing::warn!(mail = mail.id, purpose = %mail.purpose,
                attempt = mail.attempts, %error, retry_on = %at.to_rfc3339(), "mail not sent; it is tried again"),
            Ok(Recorded::GaveUp) => tracing::error!(mail = mail.id, purpose = %mail.purpose,
                attempt = mail.attempts, %error, "mail not sent and given up; it stays in the outbox"),
            Ok(Recorded::ClaimLost) => tracing::warn!(mail = mail.id, %error,
                "mail not sent, and its claim had run out: left to the node that took it over"),
            Err(err) => tracing::warn!(mail = mail.id, error = %err,
                "cannot record a failed mail; it is tried again when its claim runs out"),
        }
    }
}

/// A mail as it goes out.
struct Outgoing<'a> {
    id: i64,
    to: &'a str,
    subject: &'a str,
    created_on: Timestamp,
    text: String,
}

/// The message: plain UTF-8 text from `from`, dated when the mail was written, with a
/// Message-ID that stays the same on every attempt (so that a copy sent again after a
/// crash can be told for one).
fn compose(from: &Mailbox, mail: &Outgoing<'_>) -> Result<Message, String> {
    let to: Mailbox = mail
        .to
        .parse()
        .map_err(|_| "its recipient is not an e-mail address".to_owned())?;
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(mail.subject)
        .date(system_time(mail.created_on))
        .message_id(Some(format!(
            "<{}.{}.commerce@{}>",
            mail.created_on.as_micros(),
            mail.id,
            from.email.domain()
        )))
        .singlepart(SinglePart::plain(mail.text.clone()))
        .map_err(|err| format!("it cannot be composed: {err}"))
}

fn system_time(at: Timestamp) -> SystemTime {
    let micros = u64::try_from(at.as_micros()).unwrap_or(0);
    SystemTime::UNIX_EPOCH + Duration::from_micros(micros)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::smtp::mail_from;

    fn outgoing<'a>(to: &'a str, subject: &'a str, text: &str) -> Outgoing<'a> {
        Outgoing {
            id: 7,
            to,
            subject,
            created_on: Timestamp::from_secs(1_700_000_000),
            text: text.to_owned(),
        }
    }

    fn formatted(mail: &Outgoing<'_>) -> String {
        let from = mail_from("Example Shop <shop@example.com>").unwrap();
        String::from_utf8(compose(&from, mail).unwrap().formatted()).unwrap()
    }

    #[test]
    fn a_message_is_plain_utf8_from_the_sender_with_a_stable_id() {
        let text = formatted(&outgoing("ana@example.com", "Hello", "Bonjour, voilà."));
        for header in [
            "From: \"Example Shop\" <shop@example.com>\r\n",
            "To: ana@example.com\r\n",
            "Subject: Hello\r\n",
            "MIME-Version: 1.0\r\n",
            "Content-Type: text/plain; charset=utf-8\r\n",
            "Date: Tue, 14 Nov 2023 22:13:20 +0000\r\n",
            "Message-ID: <1700000000000000.7.commerce@example.com>\r\n",
        ] {
            assert!(text.contains(header), "{header:?} in {text}");
        }
        let again = formatted(&outgoing("ana@example.com", "Hello", "Bonjour, voilà."));
        assert!(again.contains("<1700000000000000.7.commerce@example.com>"));
    }

    #[test]
    fn a_subject_cannot_add_headers_and_a_bad_recipient_is_refused() {
        let text = formatted(&outgoing(
            "ana@example.com",
            "Hello\r\nBcc: thief@example.com",
            "body",
        ));
        assert!(!text.to_ascii_lowercase().contains("\nbcc:"), "{text}");
        let from = mail_from("shop@example.com").unwrap();
        for to in ["not an address", "ana@example.com, thief@example.com", ""] {
            let refused = compose(&from, &outgoing(to, "Hi", "body")).unwrap_err();
            assert!(refused.contains("recipient"), "{refused}");
        }
    }
}
