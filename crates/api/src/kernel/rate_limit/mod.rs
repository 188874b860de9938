//! Rate limits: a token bucket per access token (per client IP for unauthenticated
//! requests). Every answer carries the IETF `RateLimit-Policy`/`RateLimit` headers and the
//! customary `X-RateLimit-*` ones (`X-RateLimit-Reset` in epoch seconds); an empty bucket
//! answers 429 with `Retry-After`. Buckets refill on the server's clock (`AppState.clock`),
//! so a test can move time on instead of waiting. They live in this process ([`local`]),
//! or in Redis when one is configured ([`shared`]) so that every node draws on one quota;
//! while Redis does not answer, each process limits on its own.

mod local;
mod shared;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::Timestamp;

use self::local::LocalBuckets;
use self::shared::SharedBuckets;
use super::auth::Authentication;
use super::error::ApiError;
use crate::kernel::state::AppState;

/// `quota` requests per `window`, refilled continuously.
#[derive(Clone, Debug)]
pub struct RateLimitConfig {
    pub quota: u32,
    pub window: Duration,
}

/// Where the buckets every node shares are kept.
#[derive(Clone)]
pub struct SharedLimits {
    /// `redis://[user:password@]host[:port][/db]`
    pub url: String,
    /// Put before every key, so that several deployments can share one Redis.
    pub key_prefix: String,
    /// How long one bucket update may take before this process limits on its own.
    pub timeout: Duration,
}

impl std::fmt::Debug for SharedLimits {
    // The URL may hold a password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedLimits")
            .field("url", &storage::redact_url(&self.url))
            .field("key_prefix", &self.key_prefix)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The outcome of taking one request from a bucket.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    pub allowed: bool,
    pub remaining: u32,
    /// Seconds until the bucket is full again.
    pub reset_secs: u64,
    /// Seconds until one request is allowed again (0 when allowed now).
    pub retry_after_secs: u64,
}

/// A bucket's arithmetic, wherever the bucket is kept (the Redis script in [`shared`]
/// does the same sums).
#[derive(Clone, Copy, Debug)]
struct Rate {
    capacity: f64,
    per_sec: f64,
}

impl Rate {
    fn of(config: &RateLimitConfig) -> Self {
        Self {
            capacity: f64::from(config.quota),
            per_sec: f64::from(config.quota) / config.window.as_secs_f64().max(0.001),
        }
    }

    /// A bucket that held `tokens` `elapsed` seconds ago: refilled (never beyond full),
    /// then one request taken if it holds one. Whether it was, and what is left.
    fn take(self, tokens: f64, elapsed: f64) -> (bool, f64) {
        let tokens = (tokens + elapsed.max(0.0) * self.per_sec).min(self.capacity);
        if tokens >= 1.0 {
            (true, tokens - 1.0)
        } else {
            (false, tokens)
        }
    }

    /// What the answer says of a bucket left holding `tokens`.
    fn decision(self, allowed: bool, tokens: f64) -> Decision {
        let secs = |missing: f64| -> u64 {
            let s = (missing.max(0.0) / self.per_sec).ceil();
            if s.is_finite() { s as u64 } else { u64::MAX }
        };
        Decision {
            allowed,
            remaining: tokens.floor().max(0.0) as u32,
            reset_secs: secs(self.capacity - tokens),
            retry_after_secs: if allowed {
                0
            } else {
                secs(1.0 - tokens).max(1)
            },
        }
    }
}

/// The buckets of this process, and those in Redis when it is configured.
#[derive(Debug)]
pub struct RateLimiter {
    config: RateLimitConfig,
    rate: Rate,
    local: LocalBuckets,
    shared: Option<Arc<SharedBuckets>>,
}

impl RateLimiter {
    /// Buckets kept in this process.
    pub fn new(config: RateLimitConfig) -> Self {
        Self {
            rate: Rate::of(&config),
            config,
            local: LocalBuckets::new(),
            shared: None,
        }
    }

    /// Buckets kept in Redis (in this process while it does not answer). Refused when
    /// the URL is not one of Redis; nothing is connected yet (see [`Self::connect`]).
    pub fn shared(config: RateLimitConfig, limits: &SharedLimits) -> Result<Self, String> {
        Ok(Self {
            shared: Some(Arc::new(SharedBuckets::open(limits)?)),
            ..Self::new(config)
        })
    }

    /// Connects to Redis, if configured, before the first request (a failure is logged,
    /// and requests are limited in this process until Redis answers).
    pub async fn connect(&self) {
        if let Some(shared) = &self.shared {
            shared.connect().await;
        }
    }

    /// Takes one request from `key`'s bucket at `now` (a clock that goes back refills
    /// nothing).
    pub async fn check(&self, key: &str, now: Timestamp) -> Decision {
        if let Some(shared) = &self.shared
            && let Some((allowed, tokens)) = shared.take(key, now, self.rate).await
        {
            return self.rate.decision(allowed, tokens);
        }
        let (allowed, tokens) = self.local.take(key, now, self.rate);
        self.rate.decision(allowed, tokens)
    }

    fn set_headers(&self, headers: &mut HeaderMap, decision: &Decision, now: Timestamp) {
        let quota = self.config.quota;
        let window = self.config.window.as_secs().max(1);
        let epoch_reset = u64::try_from(now.as_secs())
            .unwrap_or(0)
            .saturating_add(decision.reset_secs);
        let mut set = |name: &'static str, value: String| {
            if let Ok(v) = HeaderValue::from_str(&value) {
                headers.insert(name, v);
            }
        };
        set(
            "ratelimit-policy",
            format!("\"default\";q={quota};w={window}"),
        );
        set(
            "ratelimit",
            format!(
                "\"default\";r={};t={}",
                decision.remaining, decision.reset_secs
            ),
        );
        set("x-ratelimit-limit", quota.to_string());
        set("x-ratelimit-remaining", decision.remaining.to_string());
        set("x-ratelimit-reset", epoch_reset.to_string());
    }
}

/// Operational endpoints are never limited: probes must not be refused.
fn exempt(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/metrics")
}

pub async fn middleware(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if exempt(request.uri().path()) {
        return next.run(request).await;
    }
    let key = match request
        .extensions()
        .get::<Authentication>()
        .and_then(Authentication::principal)
    {
        Some(principal) => format!("token:{}", principal.token_id),
        None => {
            let ip = request
                .extensions()
                .get::<ConnectInfo<SocketAddr>>()
                .map_or_else(|| "unknown".to_owned(), |c| c.0.ip().to_string());
            format!("ip:{ip}")
        }
    };
    let limiter = &state.limiter;
    let now = state.clock.now();
    let decision = limiter.check(&key, now).await;
    let mut response = if decision.allowed {
        next.run(request).await
    } else {
        ApiError::too_many_requests(decision.retry_after_secs).into_response()
    };
    limiter.set_headers(response.headers_mut(), &decision, now);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bucket_empties_and_refills() {
        let limiter = RateLimiter::new(RateLimitConfig {
            quota: 3,
            window: Duration::from_secs(3),
        });
        let t0 = Timestamp::from_secs(1_700_000_000);
        for expected_remaining in [2, 1, 0] {
            let d = limiter.check("k", t0).await;
            assert!(d.allowed);
            assert_eq!(d.remaining, expected_remaining);
        }
        let refused = limiter.check("k", t0).await;
        assert!(!refused.allowed);
        assert_eq!(refused.retry_after_secs, 1);
        assert_eq!(refused.reset_secs, 3);
        assert!(
            limiter.check("other", t0).await.allowed,
            "buckets are per key"
        );
        assert!(
            limiter.check("k", t0.plus_secs(1)).await.allowed,
            "one token back after a second"
        );
    }

    #[tokio::test]
    async fn a_clock_that_goes_back_refills_nothing() {
        let limiter = RateLimiter::new(RateLimitConfig {
            quota: 1,
            window: Duration::from_secs(10),
        });
        let t0 = Timestamp::from_secs(1_700_000_000);
        assert!(limiter.check("k", t0).await.allowed);
        assert!(!limiter.check("k", t0.plus_secs(-5)).await.allowed);
        // Nor does its coming back: the bucket refills from the latest time it saw.
        assert!(!limiter.check("k", t0.plus_secs(5)).await.allowed);
        assert!(limiter.check("k", t0.plus_secs(10)).await.allowed);
    }

    #[test]
    fn a_bucket_refills_continuously_up_to_full() {
        let rate = Rate::of(&RateLimitConfig {
            quota: 4,
            window: Duration::from_secs(60),
        });
        assert_eq!(rate.take(0.0, 15.0), (true, 0.0));
        assert!(!rate.take(0.0, 14.0).0);
        assert_eq!(rate.take(3.5, 600.0), (true, 3.0));
        assert_eq!(rate.take(2.0, -30.0), (true, 1.0));
        let refused = rate.decision(false, 0.25);
        assert_eq!(
            (
                refused.remaining,
                refused.retry_after_secs,
                refused.reset_secs
            ),
            (0, 12, 57)
        );
    }
}
