//! Every setting of `commerce serve`, declared once: its name (the `commerce.toml` key),
//! flag, environment variable, documented default, help, and how its text sets the
//! resolved [`ServeConfig`]. The command line, the environment, the file and their tests
//! are all driven from this table, so a new setting is one entry here.

use std::net::SocketAddr;
use std::path::PathBuf;

use super::smtp::{SmtpUrl, mail_from};
use super::values::{at_least_one, parse_duration, parse_rate_limit, parse_seconds};
use super::{LogFormat, NodeRole, ServeConfig};

/// How a setting is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Text; a string in the file.
    Text,
    /// One of these words; a string in the file.
    Choice(&'static [&'static str]),
    /// A whole number; an integer in the file.
    Integer,
    /// On or off: a flag without a value, `true`/`false` (or `1`/`0`, `yes`/`no`,
    /// `on`/`off`) in the environment, a boolean in the file.
    Switch,
}

/// One setting (see the module's documentation).
pub struct Setting {
    /// The key in `commerce.toml`.
    pub key: &'static str,
    /// The long flag, without its dashes.
    pub flag: &'static str,
    pub env: &'static str,
    pub kind: Kind,
    /// The default, as the README states it.
    pub default: &'static str,
    /// The help line.
    pub doc: &'static str,
    /// Shown in `--help` (hidden ones tune tests and benchmarks).
    pub shown: bool,
    /// Two values that configure the server differently (and the first unlike the
    /// default): the tests give them in every layer.
    pub examples: [&'static str; 2],
    /// Sets the resolved configuration from the setting's text, or says what is wrong.
    pub apply: fn(&mut ServeConfig, &str) -> Result<(), String>,
}

impl std::fmt::Debug for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key)
    }
}

/// Declares the settings in a compact form: help, `key (flag, env, kind)`, default,
/// examples, and the body that applies the text `$v` to the configuration `$c`.
macro_rules! settings {
    ($(
        $(#[doc = $doc:literal])+
        $key:ident ($flag:literal, $env:literal, $kind:expr, $shown:ident)
            default $default:literal, examples [$a:literal, $b:literal],
            |$c:ident, $v:ident| $apply:expr;
    )+) => {
        /// Every setting, in the order `--help` and the README list them.
        pub const SETTINGS: &[Setting] = &[$(
            Setting {
                key: stringify!($key),
                flag: $flag,
                env: $env,
                kind: $kind,
                default: $default,
                doc: concat!($($doc),+),
                shown: settings!(@shown $shown),
                examples: [$a, $b],
                apply: |$c: &mut ServeConfig, $v: &str| -> Result<(), String> {
                    $apply;
                    Ok(())
                },
            },
        )+];
    };
    (@shown shown) => { true };
    (@shown hidden) => { false };
}

settings! {
    /// What this node runs: api (HTTP, no workers), worker (the workers, and only the
    /// health and metrics endpoints), or all.
    role ("role", "COMMERCE_ROLE", Kind::Choice(&["api", "worker", "all"]), shown)
        default "all", examples ["worker", "api"],
        |c, v| c.role = choice::<NodeRole>(v)?;
    /// Address to listen on.
    listen ("listen", "COMMERCE_LISTEN", Kind::Text, shown)
        default "127.0.0.1:8080", examples ["0.0.0.0:9000", "127.0.0.1:9001"],
        |c, v| c.listen = address(v)?;
    /// Scheme and host clients use (default: from the listen address).
    public_url ("public-url", "COMMERCE_PUBLIC_URL", Kind::Text, shown)
        default "http:// + the bound address",
        examples ["https://api.example.com", "https://other.example.com"],
        |c, v| c.public_url = Some(v.to_owned());
    /// A hosted shop's storefront address, `{subdomain}` standing for the shop's.
    storefront_url ("storefront-url", "COMMERCE_STOREFRONT_URL", Kind::Text, shown)
        default "the public URL's scheme, https://{subdomain}. + its host",
        examples ["https://{subdomain}.shops.example.com", "https://{subdomain}.example.net"],
        |c, v| c.storefront_url = Some(storefront_url(v)?);
    /// sqlite://PATH (created with its folder when missing) or postgres://…
    database_url ("database-url", "COMMERCE_DATABASE_URL", Kind::Text, shown)
        default "sqlite://./data/commerce.db",
        examples ["postgres://db.example/commerce", "sqlite://./other.db"],
        |c, v| c.database_url = v.to_owned();
    /// Connections per database pool.
    db_max_connections ("db-max-connections", "COMMERCE_DB_MAX_CONNECTIONS", Kind::Integer, shown)
        default "16", examples ["4", "32"],
        |c, v| c.db_max_connections = number::<u32>(v)?.max(1);
    /// Access token lifetime, e.g. 7200s, 15m, 2h.
    access_token_ttl ("access-token-ttl", "COMMERCE_ACCESS_TOKEN_TTL", Kind::Text, shown)
        default "7200s", examples ["15m", "1h"],
        |c, v| c.access_token_ttl = parse_seconds(v)?;
    /// Log lines as text or JSON.
    log_format ("log-format", "COMMERCE_LOG_FORMAT", Kind::Choice(&["text", "json"]), shown)
        default "text", examples ["json", "text"],
        |c, v| c.log_format = choice::<LogFormat>(v)?;
    /// Requests per token (or per IP without one) and window, e.g. 600/60s.
    rate_limit ("rate-limit", "COMMERCE_RATE_LIMIT", Kind::Text, shown)
        default "600/60s", examples ["100/10s", "5/1s"],
        |c, v| (c.rate_limit_quota, c.rate_limit_window) = parse_rate_limit(v)?;
    /// Keep rate-limit buckets in this Redis (redis://[:password@]host[:port][/db]), so
    /// that every node shares one quota; while it does not answer, each node limits on its
    /// own.
    redis_url ("redis-url", "COMMERCE_REDIS_URL", Kind::Text, shown)
        default "none: buckets per process",
        examples ["redis://127.0.0.1:6379", "redis://:secret@cache.example:6380/2"],
        |c, v| c.redis_url = Some(redis_url(v)?);
    /// Put before every key this server keeps in Redis (deployments sharing one Redis
    /// each use their own).
    redis_key_prefix ("redis-key-prefix", "COMMERCE_REDIS_KEY_PREFIX", Kind::Text, shown)
        default "commerce:", examples ["shop-a:", "staging:"],
        |c, v| c.redis_key_prefix = v.to_owned();
    /// How long a rate-limit update in Redis may take before the node limits on its own.
    redis_timeout ("redis-timeout", "COMMERCE_REDIS_TIMEOUT", Kind::Text, hidden)
        default "250ms", examples ["100ms", "2s"],
        |c, v| c.redis_timeout = parse_duration(v)?;
    /// Largest request body accepted, in bytes.
    max_body_bytes ("max-body-bytes", "COMMERCE_MAX_BODY_BYTES", Kind::Integer, shown)
        default "1048576", examples ["2048", "4096"],
        |c, v| c.max_body_bytes = number(v)?;
    /// Largest product image accepted, in bytes.
    max_asset_bytes ("max-asset-bytes", "COMMERCE_MAX_ASSET_BYTES", Kind::Integer, shown)
        default "10485760", examples ["2048", "4096"],
        |c, v| c.max_asset_bytes = number(v)?;
    /// How long after expiry an access token may still be renewed by the JWT bearer grant.
    jwt_bearer_max_age ("jwt-bearer-max-age", "COMMERCE_JWT_BEARER_MAX_AGE", Kind::Text, shown)
        default "7d", examples ["1d", "2h"],
        |c, v| c.jwt_bearer_max_age = parse_seconds(v)?;
    /// Token signing secret (at least 32 bytes); by default keys are kept in the database.
    signing_key ("signing-key", "COMMERCE_SIGNING_KEY", Kind::Text, shown)
        default "keys kept in the database, sealed",
        examples ["0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"],
        |c, v| c.signing_key = Some(signing_key(v)?);
    /// The keys (base64, 32 bytes each; the first seals, any opens) that seal the secrets
    /// kept in the database. Every node and command must use the same ones. Required with
    /// PostgreSQL; with SQLite, a key file beside the database is used by default.
    encryption_key ("encryption-key", "COMMERCE_ENCRYPTION_KEY", Kind::Text, shown)
        default "the key file beside a SQLite database", examples ["a2V5MQ==", "a2V5Mg=="],
        |c, v| c.encryption_key = Some(v.to_owned());
    /// A file of encryption keys, one per line (instead of --encryption-key).
    encryption_key_file ("encryption-key-file", "COMMERCE_ENCRYPTION_KEY_FILE", Kind::Text, shown)
        default "none", examples ["/etc/commerce/keys", "./keys"],
        |c, v| c.encryption_key_file = Some(PathBuf::from(v));
    /// Let webhooks target private, loopback and link-local addresses.
    allow_private_webhook_targets ("allow-private-webhook-targets",
        "COMMERCE_ALLOW_PRIVATE_WEBHOOK_TARGETS", Kind::Switch, shown)
        default "off", examples ["true", "false"],
        |c, v| c.allow_private_webhook_targets = switch(v)?;
    /// Failed webhook attempts in a row after which a subscription becomes `failed`.
    webhook_max_errors ("webhook-max-errors", "COMMERCE_WEBHOOK_MAX_ERRORS", Kind::Integer, shown)
        default "100", examples ["7", "9"],
        |c, v| c.webhook_policy.max_errors = at_least_one("the webhook error limit", number(v)?)?;
    /// Webhook deliveries in a row that run out of retries after which a subscription
    /// becomes `failed`.
    webhook_max_exhausted ("webhook-max-exhausted", "COMMERCE_WEBHOOK_MAX_EXHAUSTED",
        Kind::Integer, shown)
        default "3", examples ["2", "5"],
        |c, v| c.webhook_policy.max_exhausted =
            at_least_one("the webhook exhausted-delivery limit", number(v)?)?;
    /// Deliveries a failed or disabled webhook subscription keeps waiting for its
    /// reactivation; beyond, the oldest are skipped (replayable).
    webhook_max_backlog ("webhook-max-backlog", "COMMERCE_WEBHOOK_MAX_BACKLOG", Kind::Integer, shown)
        default "10000", examples ["50", "7"],
        |c, v| c.webhook_max_backlog = at_least_one("the webhook backlog", number(v)?)?;
    /// How long a node's claim on a webhook delivery holds (longer than the timeout).
    webhook_lease ("webhook-lease", "COMMERCE_WEBHOOK_LEASE", Kind::Text, hidden)
        default "60s", examples ["90s", "120s"],
        |c, v| c.webhook_lease = parse_duration(v)?;
    /// How often the webhook dispatcher looks for due work when nothing wakes it.
    webhook_poll ("webhook-poll", "COMMERCE_WEBHOOK_POLL", Kind::Text, hidden)
        default "1s", examples ["100ms", "2s"],
        |c, v| c.webhook_poll = parse_duration(v)?;
    /// How long one webhook request may take in all.
    webhook_timeout ("webhook-timeout", "COMMERCE_WEBHOOK_TIMEOUT", Kind::Text, hidden)
        default "15s", examples ["2s", "10s"],
        |c, v| c.webhook_timeout = parse_duration(v)?;
    /// How long a singleton worker's lease holds unless renewed.
    worker_lease ("worker-lease", "COMMERCE_WORKER_LEASE", Kind::Text, hidden)
        default "30s", examples ["2s", "1m"],
        |c, v| c.worker_lease = parse_duration(v)?;
    /// How often housekeeping deletes rows that ran out.
    housekeeping_interval ("housekeeping-interval", "COMMERCE_HOUSEKEEPING_INTERVAL",
        Kind::Text, hidden)
        default "10m", examples ["1s", "1h"],
        |c, v| c.housekeeping_interval = parse_duration(v)?;
    /// Send mail through this SMTP server: smtp://[user:password@]host[:port] (STARTTLS
    /// when offered; add ?tls=required to insist) or smtps://… (TLS from the start). The
    /// password is never shown. Without it, mail waits in the outbox (`commerce mail
    /// list`).
    smtp_url ("smtp-url", "COMMERCE_SMTP_URL", Kind::Text, shown)
        default "none: mail waits in the outbox",
        examples ["smtp://mailer:secret@smtp.example.com:587", "smtps://smtp.example.net"],
        |c, v| c.smtp_url = Some(SmtpUrl::parse(v)?);
    /// The sender of every mail, e.g. `Example Shop <shop@example.com>` (required with
    /// --smtp-url).
    mail_from ("mail-from", "COMMERCE_MAIL_FROM", Kind::Text, shown)
        default "none", examples ["Example Shop <shop@example.com>", "noreply@example.net"],
        |c, v| c.mail_from = Some(mail_from(v)?);
    /// Seed demo data into an empty database and print how to use it.
    demo ("demo", "COMMERCE_DEMO", Kind::Switch, shown)
        default "off", examples ["true", "false"],
        |c, v| c.demo = switch(v)?;
    /// Serve the benchmarks' static baseline endpoint.
    bench_baseline ("bench-baseline", "COMMERCE_BENCH_BASELINE", Kind::Switch, hidden)
        default "off", examples ["true", "false"],
        |c, v| c.bench_baseline = switch(v)?;
    /// Answer every request with X-Db-Queries, the number of queries it sent.
    count_queries ("count-queries", "COMMERCE_COUNT_QUERIES", Kind::Switch, hidden)
        default "off", examples ["true", "false"],
        |c, v| c.count_queries = switch(v)?;
    /// How many matches a product list counts exactly; past it, its total is a bound
    /// (`total_items_exact: false`).
    exact_total_cap ("exact-total-cap", "COMMERCE_EXACT_TOTAL_CAP", Kind::Integer, hidden)
        default "1000", examples ["10", "5000"],
        |c, v| c.exact_total_cap = exact_total_cap(v)?;
}

/// The setting named `key`.
pub fn setting(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key)
}

fn address(v: &str) -> Result<SocketAddr, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("`{v}` is not an address (e.g. 127.0.0.1:8080)"))
}

/// An http(s) address holding `{subdomain}`.
fn storefront_url(v: &str) -> Result<String, String> {
    let v = v.trim();
    let web = v.starts_with("https://") || v.starts_with("http://");
    let plain = !v.contains(|c: char| c.is_whitespace() || c.is_control());
    if web && plain && v.contains("{subdomain}") {
        Ok(v.to_owned())
    } else {
        Err(format!(
            "`{v}` is not an http(s) address with `{{subdomain}}` in it (e.g. https://{{subdomain}}.shops.example.com)"
        ))
    }
}

/// Counting a million rows is already far past what a page of totals is worth.
const EXACT_TOTAL_CAPS: std::ops::RangeInclusive<u64> = 1..=1_000_000;

fn exact_total_cap(v: &str) -> Result<u64, String> {
    let cap = number::<u64>(v)?;
    if EXACT_TOTAL_CAPS.contains(&cap) {
        Ok(cap)
    } else {
        Err(format!(
            "`{v}` is not between {} and {}",
            EXACT_TOTAL_CAPS.start(),
            EXACT_TOTAL_CAPS.end()
        ))
    }
}

fn number<N: std::str::FromStr>(v: &str) -> Result<N, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("`{v}` is not a whole number"))
}

fn choice<E: clap::ValueEnum>(v: &str) -> Result<E, String> {
    E::from_str(v.trim(), false).map_err(|_| {
        let names: Vec<String> = E::value_variants()
            .iter()
            .filter_map(|e| e.to_possible_value())
            .map(|p| p.get_name().to_owned())
            .collect();
        format!("`{v}` is not one of {}", names.join(", "))
    })
}

/// `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`.
pub fn switch(v: &str) -> Result<bool, String> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(format!("`{v}` is not true or false")),
    }
}

/// A Redis URL: `redis://…`, or a Unix socket (`unix://…`, `redis+unix://…`).
fn redis_url(v: &str) -> Result<String, String> {
    let v = v.trim();
    if v.starts_with("rediss://") {
        return Err("TLS to Redis (rediss://) is not supported; use redis://".into());
    }
    let (scheme, rest) = v.split_once("://").unwrap_or(("", ""));
    if !matches!(scheme, "redis" | "unix" | "redis+unix") || rest.is_empty() {
        return Err(format!(
            "`{}` is not a Redis URL (e.g. redis://127.0.0.1:6379)",
            storage::redact_url(v)
        ));
    }
    Ok(v.to_owned())
}

fn signing_key(v: &str) -> Result<Vec<u8>, String> {
    if v.len() < 32 {
        return Err("the signing key must be at least 32 bytes long".into());
    }
    Ok(v.as_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names follow one rule, so an operator can guess each from another.
    #[test]
    fn flags_and_variables_are_named_after_the_key() {
        let mut keys = std::collections::BTreeSet::new();
        for s in SETTINGS {
            assert!(keys.insert(s.key), "{} twice", s.key);
            assert_eq!(s.flag, s.key.replace('_', "-"), "{}", s.key);
            assert_eq!(
                s.env,
                format!("COMMERCE_{}", s.key.to_uppercase()),
                "{}",
                s.key
            );
        }
    }

    #[test]
    fn choices_are_what_the_enums_accept() {
        for s in SETTINGS {
            if let Kind::Choice(names) = s.kind {
                for name in names {
                    (s.apply)(&mut ServeConfig::defaults(), name)
                        .unwrap_or_else(|e| panic!("{}: {e}", s.key));
                }
                assert!((s.apply)(&mut ServeConfig::defaults(), "neither").is_err());
            }
        }
    }

    #[test]
    fn the_exact_total_cap_has_a_range() {
        for cap in ["1", "1000", "1000000"] {
            assert_eq!(exact_total_cap(cap), Ok(cap.parse().unwrap()));
        }
        for refused in ["0", "1000001", "18446744073709551615", "-1", "ten"] {
            assert!(exact_total_cap(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn redis_urls_are_checked() {
        for url in [
            "redis://127.0.0.1:6379",
            "redis://:pw@h/2",
            "unix:///run/redis.sock",
        ] {
            assert_eq!(redis_url(url).as_deref(), Ok(url));
        }
        for refused in ["127.0.0.1:6379", "http://h", "redis://", "rediss://h:6380"] {
            assert!(redis_url(refused).is_err(), "{refused}");
        }
        let shown = redis_url("postgres://u:secret@h/db").unwrap_err();
        assert!(!shown.contains("secret"), "{shown}");
    }

    #[test]
    fn storefront_urls_are_checked() {
        for url in [
            "https://{subdomain}.shops.example.com",
            "http://{subdomain}.localhost:8080/",
        ] {
            assert_eq!(storefront_url(url).as_deref(), Ok(url));
        }
        for refused in [
            "https://shops.example.com",
            "ftp://{subdomain}.example.com",
            "{subdomain}.example.com",
            "https://{subdomain}.exa mple.com",
            "https://{subdomain}.example.com/\u{1}",
        ] {
            assert!(storefront_url(refused).is_err(), "{refused:?}");
        }
    }

    /// The README's table documents every shown setting by flag, variable and key.
    #[test]
    fn the_readme_documents_every_shown_setting() {
        let readme = include_str!("../../../../README.md");
        let table = readme
            .split("## Configuration")
            .nth(1)
            .and_then(|rest| rest.split("\n## ").next())
            .expect("the README has a configuration section");
        for s in SETTINGS.iter().filter(|s| s.shown) {
            let row = format!("| `--{}` | `{}` |", s.flag, s.env);
            assert!(table.contains(&row), "the README lacks {row}");
            assert!(table.contains(&format!("| `{}` |", s.key)), "{}", s.key);
        }
    }
}
