//! `Idempotency-Key` on POST.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{TestServer, error_fields, expect_error, json};

on_both_backends!(replays_create_only_one_and_refuse_a_different_request);

async fn post(s: &TestServer, token: &str, key: &str, body: Value) -> reqwest::Response {
    s.request(
        Method::POST,
        &format!("/v2/sellers/{}/shops", s.seller_id()),
        token,
    )
    .header("idempotency-key", key)
    .json(&body)
    .send()
    .await
    .unwrap()
}

async fn replays_create_only_one_and_refuse_a_different_request(s: TestServer) {
    let token = s.owner_token().await;
    let body = json!({"subdomain": "once-only", "name": "Once"});
    let first = post(&s, &token, "key-1", body.clone()).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let location = first.headers()["location"].clone();
    let first_body: Value = first.json().await.unwrap();

    let replay = post(&s, &token, "key-1", body.clone()).await;
    assert_eq!(replay.status(), StatusCode::CREATED);
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(replay.headers()["location"], location);
    assert!(replay.headers().contains_key("x-ratelimit-remaining"));
    let replay_body: Value = replay.json().await.unwrap();
    assert_eq!(replay_body, first_body);
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM shops WHERE subdomain = 'once-only'")
            .await,
        1
    );
    assert_eq!(s.event_count("shops.created").await, 1);

    // The same key with another request is refused and changes nothing.
    let (status, refused) = json(
        post(
            &s,
            &token,
            "key-1",
            json!({"subdomain": "twice", "name": "Twice"}),
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_fields(&refused), ["Idempotency-Key"]);
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM shops WHERE subdomain = 'twice'")
            .await,
        0
    );

    // A refused request is replayed as refused, too (4xx answers are kept).
    let (status, _) = json(
        post(
            &s,
            &token,
            "key-2",
            json!({"subdomain": "Bad Sub", "name": "x"}),
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let again = post(
        &s,
        &token,
        "key-2",
        json!({"subdomain": "Bad Sub", "name": "x"}),
    )
    .await;
    assert_eq!(again.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(again.headers()["idempotent-replayed"], "true");

    // Keys belong to their caller: another app's token with the same key runs anew.
    let (id, secret) = s
        .register_app(
            Some(s.demo.account_id),
            "shops.write",
            "client_credentials",
            false,
        )
        .await;
    let other = s.client_credentials_token(&id, &secret, None).await;
    let (status, body) = json(
        post(
            &s,
            &other,
            "key-1",
            json!({"subdomain": "other-caller", "name": "Other"}),
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Malformed keys are refused.
    let long = "k".repeat(256);
    for key in [long.as_str(), "has space"] {
        let (status, body) =
            json(post(&s, &token, key, json!({"subdomain": "never", "name": "x"})).await).await;
        expect_error(
            status,
            &body,
            StatusCode::BAD_REQUEST,
            "invalid_idempotency_key",
        );
    }
}
