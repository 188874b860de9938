//! Rate limits per token and per client address, kept in each process or, with Redis,
//! shared by every node.

use std::sync::Arc;
use std::time::{Duration, Instant};

use domain::Clock;
use domain::clock::ManualClock;
use reqwest::{Response, StatusCode};
use server::ServeConfig;
use tokio::net::TcpListener;

use crate::on_both_backends;
use crate::support::test_redis::{Relay, TestRedis, WithRedis};
use crate::support::{Backend, TestServer, eventually, json};

on_both_backends!(
    a_burst_over_the_quota_gets_429_and_every_answer_has_the_headers,
    buckets_refill_on_the_server_clock,
    a_burst_over_a_quota_kept_in_redis_is_answered_alike,
    buckets_kept_in_redis_refill_on_the_server_clock,
    nodes_sharing_redis_give_the_quota_together,
    a_server_whose_redis_is_unreachable_serves_and_limits_on_its_own,
    a_redis_that_never_answers_holds_no_request_up,
    requests_go_back_to_redis_when_it_answers_again,
);

/// Keeps the buckets in `redis` (under its prefix), with a timeout long enough that a
/// busy test machine does not make the server limit on its own.
fn in_redis(redis: &TestRedis) -> impl Fn(&mut ServeConfig) + '_ {
    |c| {
        c.redis_url = Some(redis.url.clone());
        c.redis_key_prefix = redis.prefix.clone();
        c.redis_timeout = Duration::from_secs(5);
    }
}

/// Fails unless some bucket kept in Redis is empty (the answers came from there).
async fn assert_a_bucket_in_redis_is_empty(redis: Option<&TestRedis>) {
    let Some(redis) = redis else { return };
    let mut held = Vec::new();
    for key in redis.keys().await {
        held.push(redis.tokens(&key).await);
    }
    assert!(held.iter().any(|t| *t < 1.0), "{held:?}");
}

/// `X-RateLimit-Remaining` of an answer.
fn remaining(response: &Response) -> u32 {
    response.headers()["x-ratelimit-remaining"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

async fn a_burst_over_the_quota_gets_429_and_every_answer_has_the_headers(backend: Backend) {
    burst_over_the_quota(backend, None).await;
}

async fn a_burst_over_a_quota_kept_in_redis_is_answered_alike(
    WithRedis { backend, redis }: WithRedis,
) {
    burst_over_the_quota(backend, Some(&redis)).await;
}

async fn buckets_refill_on_the_server_clock(backend: Backend) {
    refill_on_the_server_clock(backend, None).await;
}

async fn buckets_kept_in_redis_refill_on_the_server_clock(WithRedis { backend, redis }: WithRedis) {
    refill_on_the_server_clock(backend, Some(&redis)).await;
}

async fn burst_over_the_quota(backend: Backend, redis: Option<&TestRedis>) {
    let quota = 5;
    let s = TestServer::start_with(backend, |c| {
        c.rate_limit_quota = quota;
        c.rate_limit_window = Duration::from_secs(3600);
        if let Some(redis) = redis {
            in_redis(redis)(c);
        }
    })
    .await;
    // The token request itself counts against the client address.
    let token = s.owner_token().await;
    for i in 0..quota + 3 {
        let response = s.get("/v2", &token).send().await.unwrap();
        let headers = response.headers().clone();
        assert_eq!(headers["x-ratelimit-limit"], quota.to_string().as_str());
        assert_eq!(
            headers["ratelimit-policy"],
            format!("\"default\";q={quota};w=3600").as_str()
        );
        assert!(
            headers["ratelimit"]
                .to_str()
                .unwrap()
                .starts_with("\"default\";r=")
        );
        assert!(
            headers["x-ratelimit-reset"]
                .to_str()
                .unwrap()
                .parse::<u64>()
                .unwrap()
                > 1_700_000_000
        );
        let remaining: u32 = headers["x-ratelimit-remaining"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        if i < quota {
            assert_eq!(response.status(), StatusCode::OK, "request {i}");
            assert_eq!(remaining, quota - 1 - i);
        } else {
            assert_eq!(
                response.status(),
                StatusCode::TOO_MANY_REQUESTS,
                "request {i}"
            );
            assert_eq!(remaining, 0);
            let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
            assert!(retry >= 1);
            let (_, body) = json(response).await;
            assert_eq!(body["error"], "rate_limit_exceeded");
        }
    }
    // Another token has its own bucket; probes are never limited.
    let (id, secret) = s
        .register_app(
            Some(s.demo.account_id),
            "shops.read",
            "client_credentials",
            false,
        )
        .await;
    let other = s.client_credentials_token(&id, &secret, None).await;
    assert_eq!(
        s.get("/v2", &other).send().await.unwrap().status(),
        StatusCode::OK
    );
    for _ in 0..quota + 2 {
        assert_eq!(
            s.client
                .get(s.url("/healthz"))
                .send()
                .await
                .unwrap()
                .status(),
            StatusCode::OK
        );
    }
    // Unauthenticated requests share the client address's bucket, which the two token
    // requests and the anonymous ones below drain.
    let mut anonymous_refused = false;
    for _ in 0..quota + 1 {
        let response = s.client.get(s.url("/docs/rels")).send().await.unwrap();
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            anonymous_refused = true;
        }
    }
    assert!(anonymous_refused);
    assert_a_bucket_in_redis_is_empty(redis).await;
}

/// The bucket refills as the server's clock moves, not the wall clock: a manual clock
/// moved on by part of the window gives back that part of the quota, and the reset time
/// is read from it too.
async fn refill_on_the_server_clock(backend: Backend, redis: Option<&TestRedis>) {
    let quota: u32 = 4;
    let start = domain::Timestamp::from_secs(2_000_000_000);
    let clock = Arc::new(ManualClock::new(start));
    let manual = clock.clone();
    let s = TestServer::start_with(backend, move |c| {
        c.clock = manual;
        c.rate_limit_quota = quota;
        c.rate_limit_window = Duration::from_secs(60);
        if let Some(redis) = redis {
            in_redis(redis)(c);
        }
    })
    .await;
    let token = s.owner_token().await;
    let status = || async { s.get("/v2", &token).send().await.unwrap() };
    for _ in 0..quota {
        assert_eq!(status().await.status(), StatusCode::OK);
    }
    let refused = status().await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.headers()["retry-after"], "15");
    assert_eq!(
        refused.headers()["x-ratelimit-reset"],
        (start.as_secs() + 60).to_string().as_str(),
        "a full bucket in a window, from the server's now"
    );
    // A quarter of the window gives back one request, and only one.
    clock.advance_secs(15);
    assert_eq!(status().await.status(), StatusCode::OK);
    assert_eq!(status().await.status(), StatusCode::TOO_MANY_REQUESTS);
    // A whole window fills the bucket, and no more than that.
    clock.advance_secs(600);
    for _ in 0..quota {
        assert_eq!(status().await.status(), StatusCode::OK);
    }
    assert_eq!(status().await.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(clock.now().as_secs(), start.as_secs() + 615);
    assert_a_bucket_in_redis_is_empty(redis).await;
}

/// Two nodes on one database and one Redis give a caller the quota once between them,
/// not once each; the buckets are kept under the prefix, named by digests, never tokens.
async fn nodes_sharing_redis_give_the_quota_together(WithRedis { backend, redis }: WithRedis) {
    let quota: u32 = 6;
    let limits = |c: &mut ServeConfig| {
        c.rate_limit_quota = quota;
        c.rate_limit_window = Duration::from_secs(600);
        in_redis(&redis)(c);
    };
    let first = TestServer::start_with(backend, limits).await;
    let mut config = ServeConfig::defaults();
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.database_url = first.db.url.clone();
    config.public_url = Some(first.url.clone());
    limits(&mut config);
    let second = TestServer::start_on(first.db.clone(), config).await;
    let token = first.owner_token().await;
    let nodes = [&first, &second];
    for i in 0..quota {
        let node = nodes[i as usize % 2];
        let response = node.get("/v2", &token).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "request {i}");
        assert_eq!(remaining(&response), quota - 1 - i, "request {i}");
    }
    for node in nodes {
        let response = node.get("/v2", &token).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(remaining(&response), 0);
        assert_eq!(
            response.headers()["ratelimit-policy"],
            format!("\"default\";q={quota};w=600").as_str()
        );
        let retry: u64 = response.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=100).contains(&retry), "{retry}");
        let (_, body) = json(response).await;
        assert_eq!(body["error"], "rate_limit_exceeded");
    }
    let keys = redis.keys().await;
    assert_eq!(
        keys.len(),
        2,
        "the token's bucket and the address's: {keys:?}"
    );
    let named = format!("{}rate-limit:", redis.prefix);
    for key in &keys {
        let digest = key.strip_prefix(&named).unwrap_or_else(|| panic!("{key}"));
        assert!(
            digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
            "{key}"
        );
        assert!(!key.contains(&token) && !key.contains("127.0.0.1"), "{key}");
    }
    second.stop().await;
    first.stop().await;
}

/// A Redis URL leading nowhere (a closed loopback port) does not stop the server: it
/// serves, and limits in its own process.
async fn a_server_whose_redis_is_unreachable_serves_and_limits_on_its_own(backend: Backend) {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let quota: u32 = 3;
    let s = TestServer::start_with(backend, |c| {
        c.rate_limit_quota = quota;
        c.rate_limit_window = Duration::from_secs(600);
        c.redis_url = Some(format!("redis://{closed}"));
    })
    .await;
    let token = s.owner_token().await;
    for i in 0..quota {
        let response = s.get("/v2", &token).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "request {i}");
        assert_eq!(remaining(&response), quota - 1 - i);
    }
    let refused = s.get("/v2", &token).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.headers().contains_key("retry-after"));
    s.stop().await;
}

/// A Redis that takes connections and never answers holds a request up for the timeout
/// at most, not for good; the server limits on its own meanwhile.
async fn a_redis_that_never_answers_holds_no_request_up(backend: Backend) {
    let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = silent.local_addr().unwrap();
    // Takes every connection, reads nothing, answers nothing.
    let holder = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((connection, _)) = silent.accept().await {
            held.push(connection);
        }
    });
    let quota: u32 = 3;
    let s = TestServer::start_with(backend, |c| {
        c.rate_limit_quota = quota;
        c.rate_limit_window = Duration::from_secs(600);
        c.redis_url = Some(format!("redis://{address}"));
        c.redis_timeout = Duration::from_millis(200);
    })
    .await;
    let token = s.owner_token().await;
    for i in 0..=quota {
        let started = Instant::now();
        let response = tokio::time::timeout(Duration::from_secs(10), s.get("/v2", &token).send())
            .await
            .unwrap_or_else(|_| panic!("request {i} is held up"))
            .unwrap();
        let expected = if i < quota {
            StatusCode::OK
        } else {
            StatusCode::TOO_MANY_REQUESTS
        };
        assert_eq!(response.status(), expected, "request {i}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "request {i} took {:?}",
            started.elapsed()
        );
    }
    s.stop().await;
    holder.abort();
}

/// Redis going away (its connections cut) leaves the node limiting on its own, with
/// buckets of its own; once Redis answers again, requests draw on the shared bucket,
/// where the requests made before are still counted.
async fn requests_go_back_to_redis_when_it_answers_again(WithRedis { backend, redis }: WithRedis) {
    let mut relay = Relay::start(&redis.address()).await;
    let quota: u32 = 4;
    let s = TestServer::start_with(backend, |c| {
        c.rate_limit_quota = quota;
        c.rate_limit_window = Duration::from_secs(600);
        in_redis(&redis)(c);
        c.redis_url = Some(redis.url_through(&relay.address.to_string()));
    })
    .await;
    let token = s.owner_token().await;
    let request = || async { s.get("/v2", &token).send().await.unwrap() };
    for expected in [3, 2] {
        let response = request().await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(remaining(&response), expected);
    }
    let mut held = Vec::new();
    for key in redis.keys().await {
        held.push(redis.tokens(&key).await);
    }
    assert!(
        held.iter().any(|t| (2.0..2.1).contains(t)),
        "the token's bucket holds two requests: {held:?}"
    );

    relay.stop().await;
    for expected in [3, 2, 1, 0] {
        let response = request().await;
        assert_eq!(response.status(), StatusCode::OK, "limited on its own");
        assert_eq!(remaining(&response), expected);
    }
    assert_eq!(request().await.status(), StatusCode::TOO_MANY_REQUESTS);

    relay.resume().await;
    let back = eventually("requests to be limited in Redis again", || async {
        let response = request().await;
        (response.status() == StatusCode::OK).then_some(response)
    })
    .await;
    assert_eq!(
        remaining(&back),
        1,
        "the shared bucket had two requests left"
    );
    let last = request().await;
    assert_eq!((last.status(), remaining(&last)), (StatusCode::OK, 0));
    assert_eq!(request().await.status(), StatusCode::TOO_MANY_REQUESTS);
    s.stop().await;
}
