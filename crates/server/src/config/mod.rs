//! Configuration: every setting is declared once ([`settings`]) and resolved in layers
//! ([`layers`]): command-line flags win over `COMMERCE_*` environment variables, which win
//! over `commerce.toml`, which wins over the defaults. The result is a [`ServeConfig`],
//! which tests may also build and change directly.

mod args;
pub mod layers;
pub mod settings;
pub mod smtp;
pub mod values;

pub use args::{DatabaseSettings, ServeSettings, SettingArgs, TokenSettings};

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use domain::{Clock, SystemClock};
use lettre::message::Mailbox;
use storage::secret_box::KeySource;

use smtp::SmtpUrl;

use serde::Deserialize;

pub const DEFAULT_DATABASE_URL: &str = "sqlite://./data/commerce.db";
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
pub const DEFAULT_CONFIG_FILE: &str = "commerce.toml";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

/// What a node runs: `api` serves HTTP and runs no workers, `worker` runs the workers
/// (and serves only the operational endpoints), `all` both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum NodeRole {
    Api,
    Worker,
    #[default]
    All,
}

impl NodeRole {
    pub fn serves_api(self) -> bool {
        matches!(self, NodeRole::Api | NodeRole::All)
    }

    pub fn runs_workers(self) -> bool {
        matches!(self, NodeRole::Worker | NodeRole::All)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            NodeRole::Api => "api",
            NodeRole::Worker => "worker",
            NodeRole::All => "all",
        }
    }
}

/// Everything `commerce serve` needs, fully resolved.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Where "now" comes from: the wall clock, or a test's manual clock.
    pub clock: Arc<dyn Clock>,
    pub role: NodeRole,
    pub listen: SocketAddr,
    /// `None`: derived from the address actually bound.
    pub public_url: Option<String>,
    /// A hosted shop's storefront address with `{subdomain}`; `None`: from the public URL.
    pub storefront_url: Option<String>,
    pub database_url: String,
    pub db_max_connections: u32,
    pub access_token_ttl: Duration,
    /// How long after expiry an access token may be renewed by the JWT bearer grant.
    pub jwt_bearer_max_age: Duration,
    pub log_format: LogFormat,
    pub allow_private_webhook_targets: bool,
    /// Networks webhook targets may be on although private (tests allow loopback).
    pub webhook_allowed_networks: Vec<(std::net::IpAddr, u8)>,
    /// When webhook subscriptions give up on their targets.
    pub webhook_policy: domain::webhook::FailurePolicy,
    /// Deliveries a failed or disabled subscription keeps waiting; beyond, the oldest are
    /// skipped.
    pub webhook_max_backlog: u32,
    /// How often the dispatcher looks for due work when nothing wakes it.
    pub webhook_poll: Duration,
    /// How long a webhook request may take in all.
    pub webhook_timeout: Duration,
    /// How long a dispatcher's claim on a delivery holds before another may take it over:
    /// longer than `webhook_timeout`, or a slow target is sent the same delivery twice.
    pub webhook_lease: Duration,
    /// How long a singleton worker's lease holds unless renewed (a third of it passes
    /// between renewals, and between looks for a free lease).
    pub worker_lease: Duration,
    /// How often housekeeping deletes rows that ran out.
    pub housekeeping_interval: Duration,
    /// The SMTP server mail is handed to; `None`: mail waits in the outbox for an operator.
    pub smtp_url: Option<SmtpUrl>,
    /// The sender of every mail (required with `smtp_url`).
    pub mail_from: Option<Mailbox>,
    /// How often the mail worker looks for due mail when no commit of this node wakes it
    /// (tests shorten it; not a setting).
    pub mail_poll: Duration,
    /// How often the payments sweep looks for refunds due and charges whose gateway's
    /// answer was lost (tests shorten it; not a setting).
    pub payments_poll: Duration,
    pub demo: bool,
    pub max_body_bytes: usize,
    pub max_asset_bytes: usize,
    pub rate_limit_quota: u32,
    pub rate_limit_window: Duration,
    /// Where every node keeps its rate-limit buckets; `None`: in each process.
    pub redis_url: Option<String>,
    /// Put before every key kept in Redis.
    pub redis_key_prefix: String,
    /// How long a rate-limit update in Redis may take.
    pub redis_timeout: Duration,
    /// Configured token signing secret; otherwise keys are kept in the database, sealed.
    pub signing_key: Option<Vec<u8>>,
    /// The keys (base64, 32 bytes each, comma-separated, the first sealing) that seal the
    /// secrets kept in the database.
    pub encryption_key: Option<String>,
    /// A file of such keys; without either, a file beside a SQLite database.
    pub encryption_key_file: Option<PathBuf>,
    pub bench_baseline: bool,
    pub count_queries: bool,
    /// How many matches a product list counts exactly before its total becomes a bound.
    pub exact_total_cap: u64,
    /// Sees every answer and the OpenAPI document (set by the test suite, which checks
    /// one against the other); not a setting.
    pub observer: api::Observer,
}

impl ServeConfig {
    /// The defaults, as documented in the README.
    pub fn defaults() -> Self {
        Self {
            clock: Arc::new(SystemClock),
            role: NodeRole::All,
            listen: DEFAULT_LISTEN.parse().expect("the default address parses"),
            public_url: None,
            storefront_url: None,
            database_url: DEFAULT_DATABASE_URL.to_owned(),
            db_max_connections: 16,
            access_token_ttl: Duration::from_secs(7200),
            jwt_bearer_max_age: Duration::from_secs(7 * 86_400),
            log_format: LogFormat::Text,
            allow_private_webhook_targets: false,
            webhook_allowed_networks: Vec::new(),
            webhook_policy: domain::webhook::FailurePolicy::default(),
            webhook_max_backlog: domain::webhook::DEFAULT_MAX_BACKLOG,
            webhook_poll: Duration::from_secs(1),
            webhook_timeout: Duration::from_secs(15),
            webhook_lease: Duration::from_secs(60),
            worker_lease: Duration::from_secs(30),
            housekeeping_interval: Duration::from_secs(600),
            smtp_url: None,
            mail_from: None,
            mail_poll: Duration::from_secs(1),
            payments_poll: Duration::from_secs(30),
            demo: false,
            max_body_bytes: 1024 * 1024,
            max_asset_bytes: 10 * 1024 * 1024,
            rate_limit_quota: 600,
            rate_limit_window: Duration::from_secs(60),
            redis_url: None,
            redis_key_prefix: "commerce:".to_owned(),
            redis_timeout: Duration::from_millis(250),
            signing_key: None,
            encryption_key: None,
            encryption_key_file: None,
            bench_baseline: false,
            count_queries: false,
            exact_total_cap: storage::products::EXACT_TOTAL_CAP,
            observer: None,
        }
    }

    /// How long connecting to a webhook target may take: 5 s, or the whole request
    /// timeout when that is shorter (it bounds the connection too).
    pub fn webhook_connect_timeout(&self) -> Duration {
        self.webhook_timeout.min(Duration::from_secs(5))
    }

    /// Where the encryption keys come from: the configured keys, the configured key file,
    /// or by default a file beside a SQLite database (PostgreSQL has no default: its nodes
    /// must share a key kept outside the database).
    pub fn key_source(&self) -> anyhow::Result<KeySource> {
        Ok(match (&self.encryption_key, &self.encryption_key_file) {
            (Some(_), Some(_)) => anyhow::bail!(
                "give the encryption keys either in --encryption-key or in \
                 --encryption-key-file, not both"
            ),
            (Some(keys), None) => KeySource::configured(keys)?,
            (None, Some(path)) => KeySource::File {
                path: path.clone(),
                made_at_first_start: false,
            },
            (None, None) => KeySource::default_for(&self.database_url)?,
        })
    }

    /// Where mail goes and whom it is from, when SMTP is configured.
    pub fn mailer(&self) -> Option<(&SmtpUrl, &Mailbox)> {
        self.smtp_url.as_ref().zip(self.mail_from.as_ref())
    }

    /// Refuses settings the server cannot work safely with.
    pub fn check(&self) -> Result<(), String> {
        if self.smtp_url.is_some() && self.mail_from.is_none() {
            return Err(
                "--smtp-url needs --mail-from (COMMERCE_MAIL_FROM, mail_from in \
                 commerce.toml): the address mail is sent from"
                    .into(),
            );
        }
        // The dispatcher starts an attempt only while its claim outlasts both timeouts;
        // a shorter lease would send nothing, or let another node send it again.
        let attempt = self.webhook_timeout + self.webhook_connect_timeout();
        if self.webhook_lease <= attempt {
            return Err(format!(
                "the webhook lease ({}) must be longer than the webhook request and connect \
                 timeouts together ({} + {}): an attempt must end within its claim, or the \
                 delivery is sent twice",
                show_duration(self.webhook_lease),
                show_duration(self.webhook_timeout),
                show_duration(self.webhook_connect_timeout())
            ));
        }
        Ok(())
    }
}

/// A duration as the flags take it: `1500ms`, `3s`.
fn show_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_needs_a_sender() {
        let mut config = ServeConfig::defaults();
        assert!(config.mailer().is_none());
        config.smtp_url = Some(SmtpUrl::parse("smtp://u:p@smtp.example.com").unwrap());
        let refused = config.check().unwrap_err();
        assert!(refused.contains("--mail-from"), "{refused}");
        assert!(config.mailer().is_none());
        config.mail_from = Some(smtp::mail_from("shop@example.com").unwrap());
        assert!(config.check().is_ok());
        assert!(config.mailer().is_some());
        // A sender alone is harmless: no mail is sent without a server.
        config.smtp_url = None;
        assert!(config.check().is_ok() && config.mailer().is_none());
    }

    #[test]
    fn a_lease_must_outlast_an_attempt() {
        let mut config = ServeConfig::defaults();
        assert!(config.check().is_ok());
        assert_eq!(config.webhook_connect_timeout(), Duration::from_secs(5));
        config.webhook_timeout = Duration::from_secs(2);
        assert_eq!(config.webhook_connect_timeout(), Duration::from_secs(2));
        config.webhook_lease = Duration::from_secs(4);
        let refused = config.check().unwrap_err();
        assert!(
            refused.contains("(4s)") && refused.contains("(2s + 2s)") && !refused.contains('\n'),
            "{refused}"
        );
        config.webhook_lease = Duration::from_millis(4001);
        assert!(config.check().is_ok());
        config.webhook_timeout = Duration::from_secs(40);
        config.webhook_lease = Duration::from_secs(45);
        assert!(config.check().unwrap_err().contains("(40s + 5s)"));
        config.webhook_timeout = Duration::from_millis(1500);
        config.webhook_lease = Duration::from_millis(2900);
        assert!(config.check().unwrap_err().contains("(2900ms)"));
    }
}
