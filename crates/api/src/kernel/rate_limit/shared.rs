//! Buckets kept in Redis, so that every node draws on one quota. A bucket is updated by a
//! Lua script, in one round trip and atomically, whichever node asks. Its key is a digest
//! of the limiter's key (never a token) after the configured prefix.
//!
//! Redis failing never fails a request: an update that errs or takes longer than the
//! timeout is answered from this process's buckets, and so is every request while Redis
//! is away. One background attempt at a time reconnects (each second at most), and
//! requests go back to Redis once it answers. Losing and finding Redis are logged, the
//! warnings at most once a minute.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use domain::Timestamp;
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Client, Script};
use sha2::{Digest, Sha256};

use super::{Rate, SharedLimits};

/// One request from the bucket `KEYS[1]`: `ARGV[1]` is its capacity, `ARGV[2]` its refill
/// per second, `ARGV[3]` now in microseconds on the asking node's clock. The sums are
/// `Rate::take`'s; the bucket refills from the latest time any node saw, so a node whose
/// clock is behind refills nothing. Answers whether the request was allowed and the tokens
/// left (as text: Redis would cut a number to an integer).
const TAKE: &str = r"
local capacity = tonumber(ARGV[1])
local per_sec = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens = tonumber(bucket[1])
local updated = tonumber(bucket[2])
local stamp = bucket[2]
if tokens == nil or updated == nil then
  tokens = capacity
  updated = now
  stamp = ARGV[3]
end
tokens = math.min(capacity, tokens + math.max(0, now - updated) / 1000000 * per_sec)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
if now > updated then
  stamp = ARGV[3]
end
local left = string.format('%.17g', tokens)
redis.call('HSET', KEYS[1], 'tokens', left, 'updated', stamp)
-- A full bucket is as good as none: the key goes a second after it would be full again.
local full_in_ms = math.ceil((capacity - tokens) / per_sec * 1000) + 1000
redis.call('PEXPIRE', KEYS[1], string.format('%d', full_in_ms))
return {allowed, left}
";

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How soon after a failure Redis is tried again.
const RETRY_AFTER: Duration = Duration::from_secs(1);
/// How often a Redis that stays away is warned about.
const WARN_EVERY: Duration = Duration::from_secs(60);

pub(super) struct SharedBuckets {
    client: Client,
    script: Script,
    key_prefix: String,
    timeout: Duration,
    /// The URL without its password, for the logs.
    shown_url: String,
    link: Mutex<Link>,
}

impl std::fmt::Debug for SharedBuckets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedBuckets")
            .field("url", &self.shown_url)
            .field("key_prefix", &self.key_prefix)
            .finish_non_exhaustive()
    }
}

/// The connection to Redis, if there is one, and what to do when there is not.
#[derive(Default)]
struct Link {
    /// The connection and its number (a failure seen on an older one leaves a newer alone).
    connection: Option<(u64, MultiplexedConnection)>,
    connections: u64,
    /// An attempt to connect is under way.
    connecting: bool,
    /// No attempt before then.
    next_attempt: Option<Instant>,
    /// Redis was lost (or never found) since the last connection: finding it is news.
    away: bool,
    last_warning: Option<Instant>,
}

impl Link {
    /// Whether a warning may be logged now (at most one a minute).
    fn may_warn(&mut self) -> bool {
        let now = Instant::now();
        if self
            .last_warning
            .is_some_and(|at| now.duration_since(at) < WARN_EVERY)
        {
            return false;
        }
        self.last_warning = Some(now);
        true
    }
}

impl SharedBuckets {
    /// Checks the URL; connects nothing yet.
    pub(super) fn open(limits: &SharedLimits) -> Result<Self, String> {
        let shown_url = storage::redact_url(&limits.url);
        let client = Client::open(limits.url.as_str())
            .map_err(|e| format!("`{shown_url}` is not a Redis URL: {e}"))?;
        Ok(Self {
            client,
            script: Script::new(TAKE),
            key_prefix: limits.key_prefix.clone(),
            timeout: limits.timeout,
            shown_url,
            link: Mutex::new(Link::default()),
        })
    }

    /// Connects now, unless an attempt is under way.
    pub(super) async fn connect(&self) {
        if self.start_attempt(true) {
            self.attempt().await;
        }
    }

    /// Takes one request from `key`'s bucket in Redis: whether it was allowed and the
    /// tokens left, or `None` when Redis cannot answer now.
    pub(super) async fn take(
        self: &std::sync::Arc<Self>,
        key: &str,
        now: Timestamp,
        rate: Rate,
    ) -> Option<(bool, f64)> {
        let (number, mut connection) = self.connection()?;
        let mut invocation = self.script.key(self.redis_key(key));
        invocation
            .arg(rate.capacity)
            .arg(rate.per_sec)
            .arg(now.as_micros());
        let update = invocation.invoke_async::<(i64, String)>(&mut connection);
        let failure = match tokio::time::timeout(self.timeout, update).await {
            Ok(Ok((allowed, tokens))) => match tokens.parse::<f64>() {
                Ok(tokens) => return Some((allowed == 1, tokens)),
                Err(_) => format!("the bucket script answered `{tokens}`"),
            },
            Ok(Err(error)) => error.to_string(),
            Err(_) => format!("no answer within {} ms", self.timeout.as_millis()),
        };
        self.lost(number, &failure);
        None
    }

    /// `{prefix}rate-limit:{SHA-256 of the key, in hex}`.
    fn redis_key(&self, key: &str) -> String {
        format!(
            "{}rate-limit:{}",
            self.key_prefix,
            hex::encode(Sha256::digest(key.as_bytes()))
        )
    }

    fn link(&self) -> MutexGuard<'_, Link> {
        self.link.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The connection, if there is one; otherwise a reconnection starts in the
    /// background when one is due.
    fn connection(self: &std::sync::Arc<Self>) -> Option<(u64, MultiplexedConnection)> {
        if let Some((number, connection)) = &self.link().connection {
            return Some((*number, connection.clone()));
        }
        if self.start_attempt(false) {
            let buckets = self.clone();
            tokio::spawn(async move { buckets.attempt().await });
        }
        None
    }

    /// Whether an attempt to connect should start now (then it is under way); `at_once`
    /// disregards when the last failure said to try again.
    fn start_attempt(&self, at_once: bool) -> bool {
        let mut link = self.link();
        let due = at_once || link.next_attempt.is_none_or(|at| Instant::now() >= at);
        if link.connection.is_some() || link.connecting || !due {
            return false;
        }
        link.connecting = true;
        true
    }

    /// One attempt to connect, bounded by [`CONNECT_TIMEOUT`].
    async fn attempt(&self) {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(self.timeout));
        let connecting = self
            .client
            .get_multiplexed_async_connection_with_config(&config);
        let outcome = match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
            Ok(Ok(connection)) => Ok(connection),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err(format!(
                "no connection within {} s",
                CONNECT_TIMEOUT.as_secs()
            )),
        };
        let mut link = self.link();
        link.connecting = false;
        match outcome {
            Ok(connection) => {
                link.connections += 1;
                link.connection = Some((link.connections, connection));
                link.next_attempt = None;
                if link.away || link.connections == 1 {
                    tracing::info!(redis = %self.shown_url, "rate limits are shared through Redis");
                }
                link.away = false;
            }
            Err(error) => {
                link.next_attempt = Some(Instant::now() + RETRY_AFTER);
                link.away = true;
                if link.may_warn() {
                    tracing::warn!(redis = %self.shown_url, %error,
                        "cannot reach Redis: rate limits are kept per process until it answers");
                } else {
                    tracing::debug!(redis = %self.shown_url, %error, "cannot reach Redis");
                }
            }
        }
    }

    /// Connection `number` failed: requests are limited here until Redis answers again.
    fn lost(&self, number: u64, failure: &str) {
        let mut link = self.link();
        if link
            .connection
            .as_ref()
            .is_none_or(|(current, _)| *current != number)
        {
            return;
        }
        link.connection = None;
        link.next_attempt = Some(Instant::now() + RETRY_AFTER);
        link.away = true;
        if link.may_warn() {
            tracing::warn!(redis = %self.shown_url, error = %failure,
                "Redis failed: rate limits are kept per process until it answers again");
        } else {
            tracing::debug!(redis = %self.shown_url, error = %failure, "Redis failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_digests_after_the_prefix() {
        let buckets = SharedBuckets::open(&SharedLimits {
            url: "redis://:secret@127.0.0.1:6379/0".into(),
            key_prefix: "shop-a:".into(),
            timeout: Duration::from_millis(250),
        })
        .unwrap();
        let key = buckets.redis_key("token:abc");
        assert!(key.starts_with("shop-a:rate-limit:"), "{key}");
        assert_eq!(key.len(), "shop-a:rate-limit:".len() + 64);
        assert!(!key.contains("abc"));
        assert_ne!(key, buckets.redis_key("token:abd"));
        assert!(!format!("{buckets:?}").contains("secret"));
    }

    #[test]
    fn only_redis_urls_are_taken() {
        let limits = |url: &str| SharedLimits {
            url: url.into(),
            key_prefix: String::new(),
            timeout: Duration::from_millis(250),
        };
        assert!(SharedBuckets::open(&limits("redis://127.0.0.1:6379")).is_ok());
        for refused in ["http://127.0.0.1:6379", "127.0.0.1:6379", "redis://"] {
            assert!(SharedBuckets::open(&limits(refused)).is_err(), "{refused}");
        }
    }
}
