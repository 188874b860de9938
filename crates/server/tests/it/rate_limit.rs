//! Rate limits per token and per client address.

use std::sync::Arc;
use std::time::Duration;

use domain::Clock;
use domain::clock::ManualClock;
use reqwest::StatusCode;

use crate::on_both_backends;
use crate::support::{Backend, TestServer, json};

on_both_backends!(
    a_burst_over_the_quota_gets_429_and_every_answer_has_the_headers,
    buckets_refill_on_the_server_clock,
);

async fn a_burst_over_the_quota_gets_429_and_every_answer_has_the_headers(backend: Backend) {
    let quota = 5;
    let s = TestServer::start_with(backend, |c| {
        c.rate_limit_quota = quota;
        c.rate_limit_window = Duration::from_secs(3600);
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
}

/// The bucket refills as the server's clock moves, not the wall clock: a manual clock
/// moved on by part of the window gives back that part of the quota, and the reset time
/// is read from it too.
async fn buckets_refill_on_the_server_clock(backend: Backend) {
    let quota: u32 = 4;
    let start = domain::Timestamp::from_secs(2_000_000_000);
    let clock = Arc::new(ManualClock::new(start));
    let manual = clock.clone();
    let s = TestServer::start_with(backend, move |c| {
        c.clock = manual;
        c.rate_limit_quota = quota;
        c.rate_limit_window = Duration::from_secs(60);
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
}
