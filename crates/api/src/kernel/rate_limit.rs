//! Rate limits: a token bucket per access token (per client IP for unauthenticated
//! requests). Every answer carries the IETF `RateLimit-Policy`/`RateLimit` headers and the
//! customary `X-RateLimit-*` ones (`X-RateLimit-Reset` in epoch seconds); an empty bucket
//! answers 429 with `Retry-After`. Buckets live in this process and refill on the
//! server's clock (`AppState.clock`), so a test can move time on instead of waiting.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::Timestamp;

use super::auth::Authentication;
use super::error::ApiError;
use crate::kernel::state::AppState;

/// `quota` requests per `window`, refilled continuously.
#[derive(Clone, Debug)]
pub struct RateLimitConfig {
    pub quota: u32,
    pub window: Duration,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    updated: Timestamp,
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

const SHARDS: usize = 16;
/// Above this many buckets in a shard, full (idle) buckets are dropped.
const SHARD_SWEEP_THRESHOLD: usize = 4096;

#[derive(Debug)]
pub struct RateLimiter {
    config: RateLimitConfig,
    shards: Vec<Mutex<HashMap<String, Bucket>>>,
}

impl RateLimiter {
    pub fn new(config: RateLimitConfig) -> Self {
        Self {
            config,
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }

    fn rate_per_sec(&self) -> f64 {
        f64::from(self.config.quota) / self.config.window.as_secs_f64().max(0.001)
    }

    /// Takes one request from `key`'s bucket at `now` (a clock that goes back refills
    /// nothing).
    pub fn check(&self, key: &str, now: Timestamp) -> Decision {
        let capacity = f64::from(self.config.quota);
        let rate = self.rate_per_sec();
        let mut hasher = DefaultHasher::new();
        key.hash(&mut hasher);
        let shard = &self.shards[usize::try_from(hasher.finish() % SHARDS as u64).unwrap_or(0)];
        let mut buckets = shard
            .lock()
            .expect("rate limit shard lock is never poisoned");
        if buckets.len() > SHARD_SWEEP_THRESHOLD {
            buckets.retain(|_, b| b.tokens + secs_between(b.updated, now) * rate < capacity);
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket {
            tokens: capacity,
            updated: now,
        });
        let elapsed = secs_between(bucket.updated, now);
        bucket.tokens = (bucket.tokens + elapsed * rate).min(capacity);
        bucket.updated = now;
        let allowed = bucket.tokens >= 1.0;
        if allowed {
            bucket.tokens -= 1.0;
        }
        let secs = |missing: f64| -> u64 {
            let s = (missing.max(0.0) / rate).ceil();
            if s.is_finite() { s as u64 } else { u64::MAX }
        };
        Decision {
            allowed,
            remaining: bucket.tokens.floor().max(0.0) as u32,
            reset_secs: secs(capacity - bucket.tokens),
            retry_after_secs: if allowed {
                0
            } else {
                secs(1.0 - bucket.tokens).max(1)
            },
        }
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

/// Seconds from `earlier` to `later`, never negative.
fn secs_between(earlier: Timestamp, later: Timestamp) -> f64 {
    let micros = later.as_micros().saturating_sub(earlier.as_micros()).max(0);
    micros as f64 / 1_000_000.0
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
    let decision = limiter.check(&key, now);
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

    #[test]
    fn bucket_empties_and_refills() {
        let limiter = RateLimiter::new(RateLimitConfig {
            quota: 3,
            window: Duration::from_secs(3),
        });
        let t0 = Timestamp::from_secs(1_700_000_000);
        for expected_remaining in [2, 1, 0] {
            let d = limiter.check("k", t0);
            assert!(d.allowed);
            assert_eq!(d.remaining, expected_remaining);
        }
        let refused = limiter.check("k", t0);
        assert!(!refused.allowed);
        assert_eq!(refused.retry_after_secs, 1);
        assert_eq!(refused.reset_secs, 3);
        assert!(limiter.check("other", t0).allowed, "buckets are per key");
        assert!(
            limiter.check("k", t0.plus_secs(1)).allowed,
            "one token back after a second"
        );
    }

    #[test]
    fn a_clock_that_goes_back_refills_nothing() {
        let limiter = RateLimiter::new(RateLimitConfig {
            quota: 1,
            window: Duration::from_secs(1),
        });
        let t0 = Timestamp::from_secs(1_700_000_000);
        assert!(limiter.check("k", t0).allowed);
        assert!(!limiter.check("k", t0.plus_secs(-5)).allowed);
    }
}
