//! `Idempotency-Key` on POST.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::on_both_backends;
use crate::support::{TestServer, error_fields, expect_error, json};

on_both_backends!(
    replays_create_only_one_and_refuse_a_different_request,
    a_request_whose_client_hangs_up_still_keeps_its_answer,
);

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

/// A client sends a keyed stock adjustment and hangs up while the server's write waits
/// for a lock. The request still runs to its end and keeps its answer: a retry first hears
/// that it is in progress, then gets it replayed, and the stock moved once. (Were the
/// request dropped with its client, the key would stay claimed with no answer, and once
/// the claim was abandoned a retry would make the change a second time.)
async fn a_request_whose_client_hangs_up_still_keeps_its_answer(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Hung up", "variants": [{"sku": "HUNG", "price": 1, "stock": 0}]}),
        )
        .await;
    let variant = &product["_embedded"]["variants"][0];
    let variant_path = format!("/v2/products/{}/variants/{}", product["id"], variant["id"]);
    let path = format!("{variant_path}/stock_adjustments");
    let body = r#"{"delta": 3}"#;

    let hold = s.db.hold_writes("variants").await;
    let address = s.url.trim_start_matches("http://").to_owned();
    let mut client = tokio::net::TcpStream::connect(&address).await.unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: {address}\r\nauthorization: Bearer {token}\r\n\
         idempotency-key: hang-up\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    client.write_all(request.as_bytes()).await.unwrap();
    hold.until_a_write_waits(&s).await;
    // Hanging up: the server closes the connection without an answer.
    client.shutdown().await.unwrap();
    let mut heard = Vec::new();
    tokio::time::timeout(crate::support::DEADLINE, client.read_to_end(&mut heard))
        .await
        .expect("the server closes the connection")
        .unwrap();
    assert!(heard.is_empty(), "{}", String::from_utf8_lossy(&heard));
    hold.release().await;

    let retry = || {
        s.request(Method::POST, &path, &token)
            .header("idempotency-key", "hang-up")
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let replayed = crate::support::eventually("the first request's kept answer", || async {
        let answer = retry().await.unwrap();
        (answer.status() != StatusCode::CONFLICT).then_some(answer)
    })
    .await;
    assert_eq!(replayed.status(), StatusCode::OK);
    assert_eq!(replayed.headers()["idempotent-replayed"], "true");
    let (status, shown) = s.call(Method::GET, &variant_path, &token, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(shown["stock"], 3, "{shown}");
    assert_eq!(s.event_count("products.updated.variants.updated").await, 1);
}
