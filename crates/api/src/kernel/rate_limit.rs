//! Rate limits: a token bucket per access token (per client IP for unauthenticated
//! requests). Every answer carries the IETF `RateLimit-Policy`/`RateLimit` headers and the
//! customary `X-RateLimit-*` ones (`X-RateLimit-Reset` in epoch seconds); an empty bucket
//! answers 429 with `Retry-After`. Buckets live in this process.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::auth::Authentication;
use super::error::ApiError;
use crate::state::AppState;

/// `quota` requests per `window`, refilled continuously.
#[derive(Clone, Debug)]
pub struct RateLimitConfig {
    pub quota: u32,
    pub window: Duration,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    updated: Instant,
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

    pub fn check(&self, key: &str, now: Instant) -> Decision {
        let capacity = f64::from(self.config.quota);
        let rate = self.rate_per_sec();
        let mut hasher = DefaultHasher::new();
        key.hash(&mut hasher);
        let shard = &self.shards[usize::try_from(hasher.finish() % SHARDS as u64).unwrap_or(0)];
        let mut buckets = shard
            .lock()
            .expect("rate limit shard lock is never poisoned");
        if buckets.len() > SHARD_SWEEP_THRESHOLD {
            buckets.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.updated).as_secs_f64() * rate < capacity
            });
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket {
            tokens: capacity,
            updated: now,
        });
        let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
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

    fn set_headers(&self, headers: &mut HeaderMap, decision: &Decision) {
        let quota = self.config.quota;
        let window = self.config.window.as_secs().max(1);
        let epoch_reset = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
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
    let decision = limiter.check(&key, Instant::now());
    let mut response = if decision.allowed {
        next.run(request).await
    } else {
        ApiError::too_many_requests(decision.retry_after_secs).into_response()
    };
    limiter.set_headers(response.headers_mut(), &decision);
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
        let t0 = Instant::now();
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
            limiter.check("k", t0 + Duration::from_secs(1)).allowed,
            "one token back after a second"
        );
    }
}
